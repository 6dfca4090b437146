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
