/**
 * Apply conflicts: a field another manager owns with a different value than the applied one.
 * Follows sigs.k8s.io/structured-merge-diff/v4 merge/conflict.go (v4.6.0) for the types and
 * texts, and k8s.io/apimachinery pkg/util/managedfields/internal/conflict.go (v0.33.9) for the
 * API server's message (`Apply failed with 1 conflict: conflict with "kubectl" using apps/v1: .spec.replicas`).
 */
import { FieldSet, pathString, type ManagedFields, type Path } from '../fieldpath/index.js';

/** One conflicting field and the manager that owns it (merge.Conflict). */
export interface Conflict {
  readonly manager: string;
  readonly path: Path;
}

/** Go's `%q` for a manager name (printable text; JSON's escaping agrees with Go's there). */
function quote(s: string): string {
  return JSON.stringify(s);
}

/** Conflicts grouped by manager in sorted order, each manager's paths in set order. */
function grouped(conflicts: readonly Conflict[]): [string, Path[]][] {
  const m = new Map<string, Path[]>();
  for (const c of conflicts) {
    const paths = m.get(c.manager) ?? [];
    paths.push(c.path);
    m.set(c.manager, paths);
  }
  return [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The conflicts of an apply, thrown by {@link Updater.apply} (merge.Conflicts). `message` is
 * structured-merge-diff's own text: `conflict with "m": .a` for one, else per manager
 * `conflicts with "m":` and `- .path` lines.
 */
export class Conflicts extends Error {
  override readonly name = 'Conflicts';
  constructor(readonly conflicts: readonly Conflict[]) {
    super(
      conflicts.length === 1
        ? `conflict with ${quote(conflicts[0]?.manager ?? '')}: ${pathString(conflicts[0]?.path ?? [])}`
        : grouped(conflicts)
            .flatMap(([manager, paths]) => [`conflicts with ${quote(manager)}:`, ...paths.map((p) => `- ${pathString(p)}`)])
            .join('\n'),
    );
  }

  /** Every conflicting path in one set (Conflicts.ToSet). */
  toSet(): FieldSet {
    return FieldSet.of(...this.conflicts.map((c) => c.path));
  }
}

/** One conflict per path of each manager's set (ConflictsFromManagers), managers in map order. */
export function conflictsFromManagers(sets: ManagedFields): Conflicts {
  const out: Conflict[] = [];
  for (const [manager, vs] of sets) vs.set.iterate((p) => out.push({ manager, path: p }));
  return new Conflicts(out);
}

/**
 * How the API server names a manager in a conflict (printManager): a manager identifier is the JSON
 * of a managedFields entry without time and fields (`{"manager":"kubectl","operation":"Update","apiVersion":"apps/v1"}`);
 * an Update manager prints `"kubectl" using apps/v1` (with ` at <RFC 3339>` if a time is there), a
 * subresource adds ` with subresource "status"`; anything not JSON prints quoted.
 */
export function printManager(manager: string): string {
  let entry: { manager?: unknown; operation?: unknown; apiVersion?: unknown; subresource?: unknown; time?: unknown };
  try {
    const parsed: unknown = JSON.parse(manager);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return quote(manager);
    entry = parsed;
  } catch {
    return quote(manager);
  }
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  let out = quote(str(entry.manager));
  if (str(entry.subresource) !== '') out += ` with subresource ${quote(str(entry.subresource))}`;
  if (entry.operation === 'Update') {
    // metav1.Time prints as RFC 3339 in UTC, whole seconds.
    const time = str(entry.time).replace(/\.\d+Z$/, 'Z');
    return time === '' ? `${out} using ${str(entry.apiVersion)}` : `${out} using ${str(entry.apiVersion)} at ${time}`;
  }
  return out;
}

/**
 * The API server's 409 message for an apply's conflicts (getConflictMessage):
 * `Apply failed with 1 conflict: conflict with "kubectl" using apps/v1: .spec.replicas`, or for
 * several `Apply failed with N conflicts: conflicts with "m" using v:\n- .a\n- .b`.
 */
export function applyConflictMessage(conflicts: readonly Conflict[]): string {
  const first = conflicts[0];
  if (conflicts.length === 1 && first !== undefined) return `Apply failed with 1 conflict: conflict with ${printManager(first.manager)}: ${pathString(first.path)}`;
  const lines = grouped(conflicts).flatMap(([manager, paths]) => [`conflicts with ${printManager(manager)}:`, ...paths.map((p) => `- ${pathString(p)}`)]);
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

/** One cause of the API server's 409 for an apply conflict (metav1.StatusCause of type FieldManagerConflict). */
export interface ConflictCause {
  readonly type: 'FieldManagerConflict';
  readonly message: string;
  readonly field: string;
}

/** The causes of the API server's 409, one per conflict in order (NewConflictError): `conflict with "foo" using v1`, field `.spec.replicas`. */
export function conflictCauses(conflicts: readonly Conflict[]): ConflictCause[] {
  return conflicts.map((c) => ({ type: 'FieldManagerConflict', message: `conflict with ${printManager(c.manager)}`, field: pathString(c.path) }));
}
