/**
 * The `scale` subresource (autoscaling/v1 Scale, as pkg/registry/apps/deployment/storage/storage.go
 * `ScaleREST` maps it) of every kind whose strategy has a {@link ScaleStrategy}. `status` is an
 * update of the object with another strategy and lives in the store ({@link UpdateMode}); a kind's
 * other subresources are its own ({@link StorageExtension.subresources}).
 */
import type { KubeObject } from '../../../api/index.js';
import type { PatchType } from '../../../api/request.js';
import { deepFreeze } from '../../../machinery/meta/index.js';
import { field, newInvalid, newNotFound, newMethodNotSupported, type FieldError } from '../../../machinery/errors/index.js';
import { rootTypeName } from '../../../api/schema/index.js';
import { decodeBody } from './decode.js';
import { clone, metaOf } from './objects.js';
import { APPLY_PATCH_TYPE, parseWriteOptions } from './options.js';
import { checkDuplicateKeys, checkPatchType } from './patch.js';
import type { Store } from './store.js';
import type { StoreView } from './store-core.js';
import { managerOrUserAgent } from '../../../machinery/managedfields/index.js';

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

/**
 * The parent after a write to its Scale (ScaleREST's `scaleUpdatedObjectInfo`): the current Scale,
 * carrying the parent's owners of its replicas field as its managedFields (ScaleHandler), is turned
 * into the new one by `updatedScale` (which records the write's manager), then the new replicas and
 * ownership go back to the parent.
 */
function scaledParent(store: Store, existing: KubeObject, view: StoreView | undefined, updatedScale: (oldScale: KubeObject) => KubeObject): KubeObject {
  const track = store.trackingManagedFields;
  const handler = track ? store.fieldManagers.scaleHandler(existing, view, scaleStrategyOf(store).specReplicasPath ?? ['spec', 'replicas']) : undefined;
  const oldScale = scaleOf(store, existing);
  const managed = handler?.toSubresource();
  if (managed) (oldScale.metadata as Record<string, unknown>).managedFields = managed;
  const scale = updatedScale(oldScale);
  const obj = applyScale(store, existing, scale);
  if (handler) {
    const entries = handler.toParent(scale.metadata?.managedFields);
    if (entries) metaOf(obj).managedFields = entries;
    else delete metaOf(obj).managedFields;
  }
  return obj;
}

/** PUT …/scale (`kubectl scale --current-replicas` sends the Scale with its resourceVersion; stale → 409). */
export async function updateScale(
  store: Store,
  namespace: string | undefined,
  name: string,
  body: unknown,
  query: Query,
  warnings: string[],
  view?: StoreView,
  userAgent = '',
): Promise<KubeObject> {
  scaleStrategyOf(store);
  const { validation, dryRun, fieldManager } = parseWriteOptions(query, 'UpdateOptions');
  const manager = managerOrUserAgent(fieldManager, userAgent);
  const scale = decodeBody(store.strategy, body, validation, warnings, SCALE);
  store.checkName(scale, namespace, name);
  const res = await store.updateObject(namespace, name, 'main', dryRun, false, (existing) => {
    if (!existing) throw newNotFound(store.gr, name);
    return scaledParent(store, existing, view, (oldScale) => trackScale(store, oldScale, clone(scale), manager));
  });
  return deepFreeze(scaleOf(store, res.obj));
}

/** `scale` with managedFields recording `manager`'s write against `oldScale`, when the server tracks them. */
function trackScale(store: Store, oldScale: KubeObject, scale: KubeObject, manager: string): KubeObject {
  return store.trackingManagedFields ? store.fieldManagers.forScale().updateNoErrors(oldScale, scale, manager) : scale;
}

/**
 * PATCH …/scale (`kubectl scale` sends a merge patch `{"spec":{"replicas":5}}`; an apply patch of a
 * Scale merges with the Scale's owners of `spec.replicas`, 409 on conflicts).
 */
export async function patchScale(
  store: Store,
  namespace: string | undefined,
  name: string,
  patchType: PatchType | undefined,
  patch: unknown,
  query: Query,
  warnings: string[],
  view?: StoreView,
  userAgent = '',
): Promise<KubeObject> {
  scaleStrategyOf(store);
  checkPatchType(patchType);
  const opts = parseWriteOptions(query, 'PatchOptions', patchType);
  const manager = managerOrUserAgent(opts.fieldManager, userAgent);
  const root = rootTypeName(SCALE.group, SCALE.version, SCALE.kind);
  const res = await store.updateObject(namespace, name, 'main', opts.dryRun, false, (existing) => {
    if (!existing) throw newNotFound(store.gr, name);
    return scaledParent(store, existing, view, (oldScale) => {
      if (patchType === APPLY_PATCH_TYPE) {
        const applied = structuredClone(store.fieldManagers.forScale().apply(oldScale, patch as Record<string, unknown>, opts.fieldManager, opts.force === true));
        checkDuplicateKeys(patch as object, opts.validation, warnings);
        store.checkName(applied, namespace, name);
        return applied;
      }
      const scale = store.patchedObject(oldScale, patchType, patch, root, opts.validation, warnings, SCALE);
      store.checkName(scale, namespace, name);
      return trackScale(store, oldScale, scale, manager);
    });
  });
  return deepFreeze(scaleOf(store, res.obj));
}
