/**
 * ControllerRevision helpers shared by the controllers that keep history (DaemonSet, StatefulSet):
 * ordering, the next revision number, the template patch a revision stores, hashing, equality,
 * creation with collision handling, and claiming revisions through their ControllerRef.
 *
 * Follows kubernetes/kubernetes pkg/controller/history/controller_history.go (`Less`/`SortControllerRevisions`,
 * `ControllerRevisionName`, `NewControllerRevision`, `HashControllerRevision`, `EqualRevision`,
 * `FindEqualRevisions`, `realHistory.ListControllerRevisions/CreateControllerRevision/UpdateControllerRevision`)
 * and pkg/controller/controller_ref_manager.go (`ControllerRevisionControllerRefManager.ClaimControllerRevisions`).
 */
import type { ControllerRevision, OwnerReference, PodTemplateSpec } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import type { Lister } from '../../informers/index.js';
import { isAlreadyExists, isConflict } from '../../machinery/errors/index.js';
import { canonicalJSON, fnv32, safeEncodeString } from '../../machinery/hash/index.js';
import type { Selector } from '../../machinery/labels/index.js';
import { getControllerOf } from '../../machinery/meta/index.js';
import { parseTime } from '../../util/clock/index.js';
import { ControllerRefManager, type ControllerRefManagerOptions } from '../controller-ref-manager.js';

/** Older first: by `revision`, then creationTimestamp, then name (`history.Less`). */
export function compareControllerRevisions(a: ControllerRevision, b: ControllerRevision): number {
  if (a.revision !== b.revision) return a.revision - b.revision;
  const ta = parseTime(a.metadata?.creationTimestamp) ?? 0;
  const tb = parseTime(b.metadata?.creationTimestamp) ?? 0;
  if (ta !== tb) return ta - tb;
  const na = a.metadata?.name ?? '';
  const nb = b.metadata?.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** The highest `revision` of `revisions`, 0 when there are none (`maxRevision`). */
export function maxRevision(revisions: readonly ControllerRevision[]): number {
  let max = 0;
  for (const r of revisions) if (r.revision > max) max = r.revision;
  return max;
}

/**
 * `ControllerRevisionName`: `<prefix>-<hash>`, the prefix cut to 223 characters so the name stays a
 * valid DNS subdomain.
 */
export function controllerRevisionName(prefix: string, hash: string): string {
  return `${prefix.length > 223 ? prefix.slice(0, 223) : prefix}-${hash}`;
}

/**
 * `ClaimControllerRevisions`: adopts matching orphan revisions and releases owned ones that no longer
 * match, patching through `client`; returns the revisions that are now owned. Throws after trying all
 * when any adopt/release failed.
 */
export function claimControllerRevisions(
  opts: Omit<ControllerRefManagerOptions<ControllerRevision>, 'patch' | 'dependentKind'> & { client: Clientset },
  revisions: readonly ControllerRevision[],
): Promise<ControllerRevision[]> {
  const { client, ...rest } = opts;
  const manager = new ControllerRefManager<ControllerRevision>({
    ...rest,
    dependentKind: 'ControllerRevision',
    patch: async (cr, patch) => {
      await client.apps.controllerRevisions(cr.metadata?.namespace).patch(cr.metadata?.name ?? '', 'application/strategic-merge-patch+json', patch);
    },
  });
  return manager.claimObjects(revisions);
}

/** The label naming a revision's hash (`ControllerRevisionHashLabel`). */
export const CONTROLLER_REVISION_HASH_LABEL = 'controller-revision-hash';

/**
 * The data a DaemonSet or StatefulSet revision stores (`getPatch` in daemon/update.go and
 * statefulset/stateful_set_utils.go): the strategic merge patch that restores `template`,
 * `{spec: {template: {$patch: 'replace', metadata: {creationTimestamp: null, …}, spec: {…}}}}`, keys
 * sorted as Go's json.Marshal of a map writes them, with the template's `metadata.creationTimestamp:
 * null` as Go serializes an unset time. `kubectl rollout undo` sends this back and compares it byte for byte.
 */
export function templateRevisionPatch(template: PodTemplateSpec | undefined): Record<string, unknown> {
  const t = template ?? {};
  const withGoMeta = { ...t, metadata: { creationTimestamp: null, ...t.metadata }, $patch: 'replace' };
  return JSON.parse(canonicalJSON({ spec: { template: withGoMeta } })) as Record<string, unknown>;
}

/**
 * The pod template a revision made by {@link templateRevisionPatch} restores (what applying the patch
 * to its owner yields for `spec.template`): the patch's template without `$patch` and without the
 * `creationTimestamp: null` Go adds. Undefined when the data holds no template.
 */
export function templateFromRevision(revision: ControllerRevision): PodTemplateSpec | undefined {
  const data: unknown = revision.data;
  const raw = (data as { spec?: { template?: Record<string, unknown> } } | undefined)?.spec?.template;
  if (!raw || typeof raw !== 'object') return undefined;
  const template = structuredClone(raw);
  delete template.$patch;
  const meta = template.metadata as Record<string, unknown> | undefined;
  if (meta && meta.creationTimestamp === null) delete meta.creationTimestamp;
  return template;
}

/**
 * `HashControllerRevision`: FNV-1 32 of the revision's data (canonical JSON here, Go's bytes upstream),
 * then of the decimal collision count when given, safe-encoded (e.g. `5d8b9c7f6`).
 */
export function hashControllerRevision(revision: ControllerRevision, probe?: number): string {
  let h = fnv32(canonicalJSON(revision.data ?? null));
  if (probe !== undefined) h = fnv32(String(probe), h);
  return safeEncodeString(String(h));
}

/**
 * `NewControllerRevision`: a revision owned (controller ref `ownerRef`) by its parent named
 * `<parent>-<hash>`, labelled with `templateLabels` plus controller-revision-hash.
 */
export function newControllerRevision(
  parent: { metadata?: { name?: string; namespace?: string } },
  ownerRef: OwnerReference,
  templateLabels: Record<string, string> | undefined,
  data: Record<string, unknown>,
  revision: number,
  collisionCount: number | undefined,
): ControllerRevision {
  const cr: ControllerRevision = {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: { namespace: parent.metadata?.namespace ?? '', labels: { ...templateLabels }, ownerReferences: [ownerRef] },
    data,
    revision,
  };
  const hash = hashControllerRevision(cr, collisionCount);
  return {
    ...cr,
    metadata: { ...cr.metadata, name: controllerRevisionName(parent.metadata?.name ?? '', hash), labels: { ...templateLabels, [CONTROLLER_REVISION_HASH_LABEL]: hash } },
  };
}

/** `EqualRevision`: both hold the same data (hash labels, when both parse as numbers, must agree too). */
export function equalRevision(lhs: ControllerRevision | undefined, rhs: ControllerRevision | undefined): boolean {
  if (!lhs || !rhs) return lhs === rhs;
  const hl = lhs.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL];
  const hr = rhs.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL];
  if (hl !== undefined && hr !== undefined && /^-?\d+$/.test(hl) && /^-?\d+$/.test(hr) && Number(hl) !== Number(hr)) return false;
  return canonicalJSON(lhs.data ?? null) === canonicalJSON(rhs.data ?? null);
}

/** `FindEqualRevisions`: the revisions of `revisions` equal to `needle`, in their order. */
export function findEqualRevisions(revisions: readonly ControllerRevision[], needle: ControllerRevision): ControllerRevision[] {
  return revisions.filter((r) => equalRevision(r, needle));
}

/** `nextRevision`: 1 + the highest `revision` of `revisions` (1 when there are none). */
export function nextRevision(revisions: readonly ControllerRevision[]): number {
  return maxRevision(revisions) + 1;
}

/**
 * `ListControllerRevisions`: the revisions of `parent`'s namespace that `selector` matches and that
 * `parent` controls or nobody controls (orphans, to be adopted), sorted older first.
 */
export function listControllerRevisions(
  lister: Lister<ControllerRevision>,
  parent: { metadata?: { namespace?: string; uid?: string } },
  selector: Selector,
): ControllerRevision[] {
  const uid = parent.metadata?.uid;
  return lister
    .namespace(parent.metadata?.namespace ?? '')
    .list()
    .filter((r) => selector.matches(r.metadata?.labels))
    .filter((r) => {
      const ref = getControllerOf(r);
      return !ref || ref.uid === uid;
    })
    .sort(compareControllerRevisions);
}

/**
 * `realHistory.CreateControllerRevision`: creates `revision` named `<parent>-<hash(data, collisionCount)>`.
 * When the name is taken by equal data the existing revision is returned; when taken by other data the
 * collision count (`collision.count`, updated in place for the caller to store in status) is bumped and
 * the next name tried. Throws other API errors.
 */
export async function createControllerRevision(
  client: Clientset,
  parent: { metadata?: { name?: string; namespace?: string } },
  revision: ControllerRevision,
  collision: { count: number },
): Promise<ControllerRevision> {
  const ns = parent.metadata?.namespace ?? '';
  const revisions = client.apps.controllerRevisions(ns);
  for (;;) {
    const hash = hashControllerRevision(revision, collision.count);
    const name = controllerRevisionName(parent.metadata?.name ?? '', hash);
    const meta = revision.metadata ?? {};
    const clone: ControllerRevision = { ...revision, metadata: { ...meta, name, namespace: ns, labels: { ...meta.labels, [CONTROLLER_REVISION_HASH_LABEL]: hash } } };
    try {
      return await revisions.create(clone);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    const exists = await revisions.get(name);
    if (canonicalJSON(exists.data ?? null) === canonicalJSON(clone.data ?? null)) return exists;
    collision.count++;
  }
}

/**
 * `realHistory.UpdateControllerRevision`: sets the revision's `revision` number to `newRevision`,
 * re-reading and retrying on conflicts (at most 5 attempts, retry.DefaultRetry's steps). Throws the last error.
 */
export async function updateControllerRevision(client: Clientset, revision: ControllerRevision, newRevision: number): Promise<ControllerRevision> {
  const revisions = client.apps.controllerRevisions(revision.metadata?.namespace);
  let cur = revision;
  for (let attempt = 0; ; attempt++) {
    if (cur.revision === newRevision) return cur;
    try {
      return await revisions.update({ ...cur, revision: newRevision });
    } catch (err) {
      if (!isConflict(err) || attempt >= 4) throw err;
    }
    cur = await revisions.get(revision.metadata?.name ?? '');
  }
}
