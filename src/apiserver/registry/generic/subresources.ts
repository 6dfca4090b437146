/**
 * Subresources that are not the object itself: `scale` (autoscaling/v1 Scale, as
 * pkg/registry/apps/deployment/storage/storage.go `ScaleREST` maps it) and `pods/binding`
 * (pkg/registry/core/pod/storage/storage.go `BindingREST`). `status` and `finalize` are updates of the
 * object with another strategy and live in the store ({@link UpdateMode}).
 */
import type { KubeObject } from '../../../api/index.js';
import type { PatchType } from '../../../api/request.js';
import { deepFreeze } from '../../../machinery/meta/index.js';
import { field, newBadRequest, newConflict, newInvalid, newNotFound, newMethodNotSupported, fieldErrorString, type FieldError } from '../../../machinery/errors/index.js';
import { rootTypeName } from '../../../api/schema/index.js';
import { formatTime, type Clock } from '../../../util/clock/index.js';
import { decodeBody } from './decode.js';
import { clone, metaOf } from './objects.js';
import { parseDryRun, parseFieldValidation } from './options.js';
import type { Store } from './store.js';

type Query = Record<string, string>;

const SCALE = { group: 'autoscaling', version: 'v1', kind: 'Scale' } as const;

function scaleStrategyOf(store: Store): NonNullable<Store['strategy']['scale']> {
  const scale = store.strategy.scale;
  if (!scale) throw newMethodNotSupported(store.gr, 'scale');
  return scale;
}

/** The autoscaling/v1 Scale of `obj`: metadata {name, namespace, uid, resourceVersion, creationTimestamp}, spec.replicas, status {replicas, selector}. */
export function scaleOf(store: Store, obj: KubeObject): KubeObject {
  const s = scaleStrategyOf(store);
  const m = obj.metadata ?? {};
  const metadata: Record<string, unknown> = { name: m.name };
  if (m.namespace) metadata.namespace = m.namespace;
  Object.assign(metadata, { uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp });
  return {
    kind: SCALE.kind,
    apiVersion: `${SCALE.group}/${SCALE.version}`,
    metadata,
    spec: { replicas: s.specReplicas(obj) },
    status: { replicas: s.statusReplicas(obj), selector: s.selector(obj) },
  };
}

/** GET …/scale. */
export async function getScale(store: Store, namespace: string | undefined, name: string, query: Query): Promise<KubeObject> {
  return deepFreeze(scaleOf(store, await store.get(namespace, name, query)));
}

/**
 * Applies a Scale to the object: `ValidateScale` (spec.replicas ≥ 0, else 422 on `Scale.autoscaling`),
 * the Scale's resourceVersion (when set) becomes the update's precondition, spec.replicas is copied.
 */
function applyScale(store: Store, existing: KubeObject, scale: KubeObject): KubeObject {
  const replicas = (scale.spec as { replicas?: unknown } | undefined)?.replicas ?? 0;
  const errs: FieldError[] = [];
  if (typeof replicas !== 'number' || !Number.isInteger(replicas)) errs.push(field.invalid('spec.replicas', replicas, 'must be an integer'));
  else if (replicas < 0) errs.push(field.invalid('spec.replicas', replicas, 'must be greater than or equal to 0'));
  if (errs.length > 0) throw newInvalid({ group: SCALE.group, kind: SCALE.kind }, scale.metadata?.name ?? '', errs);
  const obj = clone(existing);
  const rv = scale.metadata?.resourceVersion;
  if (rv) metaOf(obj).resourceVersion = rv;
  scaleStrategyOf(store).setSpecReplicas(obj, replicas as number);
  return obj;
}

/** PUT …/scale (`kubectl scale --current-replicas` sends the Scale with its resourceVersion; stale → 409). */
export async function updateScale(store: Store, namespace: string | undefined, name: string, body: unknown, query: Query, warnings: string[]): Promise<KubeObject> {
  scaleStrategyOf(store);
  const validation = parseFieldValidation(query, 'UpdateOptions');
  const dryRun = parseDryRun(query, 'UpdateOptions');
  const scale = decodeBody(store.strategy, body, validation, warnings, SCALE);
  store.checkName(scale, namespace, name);
  const res = await store.updateObject(namespace, name, 'main', dryRun, false, (existing) => {
    if (!existing) throw newNotFound(store.gr, name);
    return applyScale(store, existing, scale);
  });
  return deepFreeze(scaleOf(store, res.obj));
}

/** PATCH …/scale (`kubectl scale` sends a merge patch `{"spec":{"replicas":5}}`). */
export async function patchScale(
  store: Store,
  namespace: string | undefined,
  name: string,
  patchType: PatchType | undefined,
  patch: unknown,
  query: Query,
  warnings: string[],
): Promise<KubeObject> {
  scaleStrategyOf(store);
  const validation = parseFieldValidation(query, 'PatchOptions');
  const dryRun = parseDryRun(query, 'PatchOptions');
  const root = rootTypeName(SCALE.group, SCALE.version, SCALE.kind);
  const res = await store.updateObject(namespace, name, 'main', dryRun, false, (existing) => {
    if (!existing) throw newNotFound(store.gr, name);
    const scale = store.patchedObject(scaleOf(store, existing), patchType, patch, root, validation, warnings, SCALE);
    store.checkName(scale, namespace, name);
    return applyScale(store, existing, scale);
  });
  return deepFreeze(scaleOf(store, res.obj));
}

/**
 * POST pods/<name>/binding with a Binding `{metadata: {name}, target: {kind: 'Node', name}}`: sets
 * spec.nodeName, merges the Binding's annotations and sets condition PodScheduled=True. A pod already
 * bound, being deleted or still gated → 409 on `pods/binding`, e.g.
 * `Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "n1"`.
 * Returns the `metav1.Status` Success (code 201) upstream's create handler answers with.
 */
export async function bindPod(store: Store, clock: Clock, namespace: string | undefined, name: string, body: unknown, query: Query): Promise<unknown> {
  const dryRun = parseDryRun(query, 'CreateOptions');
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw newBadRequest('the object provided is unrecognized (must be of type Binding)');
  const binding = body as { metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string; annotations?: Record<string, string> }; target?: { kind?: string; name?: string } };
  const meta = binding.metadata ?? {};
  if (meta.name !== name) throw newBadRequest('name in URL does not match name in Binding object');
  if (meta.namespace && meta.namespace !== namespace) {
    throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  // ValidatePodBinding errors are a plain aggregate error, which upstream leaks as a 500; 400 here (ADR 5).
  const errs: FieldError[] = [];
  const kind = binding.target?.kind ?? '';
  if (kind !== '' && kind !== 'Node') errs.push(field.notSupported('target.kind', kind, ['Node', '<empty>']));
  if (!binding.target?.name) errs.push(field.required('target.name'));
  if (errs.length > 0) throw newBadRequest(errs.length === 1 ? fieldErrorString(errs[0] as FieldError) : `[${errs.map(fieldErrorString).join(', ')}]`);
  const node = binding.target?.name as string;
  const bindingGR = { group: '', resource: 'pods/binding' };
  const preconditions = { ...(meta.uid ? { uid: meta.uid } : {}), ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}) };
  await store.guaranteedUpdate(store.keyFor(namespace, name), name, { dryRun, ignoreNotFound: false, preconditions }, (existing) => {
    const pod = clone(existing as KubeObject);
    const spec = (pod.spec ??= {}) as { nodeName?: string; schedulingGates?: unknown[] };
    if (pod.metadata?.deletionTimestamp) throw newConflict(bindingGR, name, `pod ${name} is being deleted, cannot be assigned to a host`);
    if (spec.nodeName) throw newConflict(bindingGR, name, `pod ${name} is already assigned to node ${JSON.stringify(spec.nodeName)}`);
    if ((spec.schedulingGates ?? []).length > 0) throw newConflict(bindingGR, name, `pod ${name} has non-empty .spec.schedulingGates`);
    spec.nodeName = node;
    if (meta.annotations) {
      const m = metaOf(pod);
      m.annotations = { ...m.annotations, ...meta.annotations };
    }
    setPodScheduled(pod, formatTime(clock.now()));
    return { action: 'write', obj: pod };
  });
  return deepFreeze({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
}

/**
 * POST pods/<name>/eviction with a policy/v1 Eviction `{metadata: {name}, deleteOptions?}` (what
 * `kubectl drain` sends; pkg/registry/core/pod/storage/eviction.go). No PodDisruptionBudgets are
 * served, so every eviction is allowed: a pod that is not finished gets the condition
 * DisruptionTarget (reason `EvictionByEvictionAPI`, message `Eviction API: evicting`), then it is
 * deleted with the Eviction's deleteOptions (graceful, as any delete). Answers the Status Success
 * (code 201) upstream's create handler returns. A missing pod → 404; a name that differs from the
 * URL's → 400.
 */
export async function evictPod(store: Store, clock: Clock, namespace: string | undefined, name: string, body: unknown, query: Query): Promise<unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw newBadRequest('the object provided is unrecognized (must be of type Eviction)');
  const eviction = body as { metadata?: { name?: string; namespace?: string }; deleteOptions?: unknown };
  if (eviction.metadata?.name !== name) throw newBadRequest('name in URL does not match name in Eviction object');
  const dryRun = parseDryRun(query, 'CreateOptions');
  await store.guaranteedUpdate(store.keyFor(namespace, name), name, { dryRun, ignoreNotFound: false }, (existing) => {
    const pod = clone(existing as KubeObject);
    const status = (pod.status ??= {}) as { phase?: string; conditions?: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }[] };
    if (status.phase === 'Succeeded' || status.phase === 'Failed') return { action: 'write', obj: existing as KubeObject };
    const condition = { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting', lastTransitionTime: formatTime(clock.now()) };
    status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== 'DisruptionTarget'), condition];
    return { action: 'write', obj: pod };
  });
  await store.delete(namespace, name, eviction.deleteOptions ?? {}, query);
  return deepFreeze({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
}

/** `podutil.UpdatePodCondition` for PodScheduled=True: replaces the condition, keeping its transition time if it was already True. */
function setPodScheduled(pod: KubeObject, now: string): void {
  const status = (pod.status ??= {}) as { conditions?: { type: string; status: string; lastProbeTime?: string | null; lastTransitionTime?: string }[] };
  const conditions = (status.conditions ??= []);
  const i = conditions.findIndex((c) => c.type === 'PodScheduled');
  const old = i >= 0 ? conditions[i] : undefined;
  const next = { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: old?.status === 'True' && old.lastTransitionTime ? old.lastTransitionTime : now };
  if (i >= 0) conditions[i] = next;
  else conditions.push(next);
}

