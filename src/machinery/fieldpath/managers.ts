/**
 * Who owns which fields: a manager's set with the API version it was recorded in and whether it
 * came from an apply. Follows sigs.k8s.io/structured-merge-diff/v4 fieldpath/managers.go (v4.6.0).
 */
import type { FieldSet } from './set.js';

/** What a manager owns (VersionedSet): `apiVersion` is the group/version the paths are in (`apps/v1`). */
export interface VersionedSet {
  readonly set: FieldSet;
  readonly apiVersion: string;
  readonly applied: boolean;
}

/** Managers to what they own. Upstream's is a Go map; order here is insertion order and carries no meaning. */
export type ManagedFields = Map<string, VersionedSet>;

/** Same managers, versions, applied flags and sets (ManagedFields.Equals). */
export function managedFieldsEqual(a: ManagedFields, b: ManagedFields): boolean {
  if (a.size !== b.size) return false;
  for (const [manager, left] of a) {
    const right = b.get(manager);
    if (right === undefined || left.apiVersion !== right.apiVersion || left.applied !== right.applied || !left.set.equals(right.set)) return false;
  }
  return true;
}

/**
 * What changed between two ownership maps, per manager (ManagedFields.Difference): a manager on one
 * side only keeps its set (if not empty); a manager whose version changed keeps the right-hand entry
 * whole; otherwise the symmetric difference of its sets, in the right-hand version, if not empty.
 */
export function managedFieldsDifference(lhs: ManagedFields, rhs: ManagedFields): ManagedFields {
  const diff: ManagedFields = new Map();
  for (const [manager, left] of lhs) {
    const right = rhs.get(manager);
    if (right === undefined) {
      if (!left.set.empty()) diff.set(manager, left);
      continue;
    }
    if (left.apiVersion !== right.apiVersion) {
      diff.set(manager, right);
      continue;
    }
    const s = left.set.difference(right.set).union(right.set.difference(left.set));
    if (!s.empty()) diff.set(manager, { set: s, apiVersion: right.apiVersion, applied: false });
  }
  for (const [manager, right] of rhs) {
    if (!lhs.has(manager) && !right.set.empty()) diff.set(manager, right);
  }
  return diff;
}
