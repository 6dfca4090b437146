/**
 * Small pieces the per-kind strategies share: writable object types, semantic
 * equality of API values, generation bumps, field resets, selector strings, immutable-field errors,
 * the scale subresource of replicated workloads and the objects a kind creates at start-up.
 */
import type { KubeObject, LabelSelector, ObjectMeta } from '../../../api/index.js';
import { field, isAlreadyExists, type FieldError } from '../../../machinery/errors/index.js';
import { selectorFromLabelSelector } from '../../../machinery/labels/index.js';
import { FIELD_IMMUTABLE_ERROR_MSG } from '../../../machinery/validation/index.js';
import { semanticDeepEqual } from '../../../machinery/meta/index.js';
import type { Store } from '../generic/store.js';
import type { ResourceStrategy, ScaleStrategy } from '../strategy.js';

export { semanticDeepEqual };

/**
 * A kind's wire type with the fields kubernetes-types marks readonly (status, metadata.generation,
 * metadata.deletionTimestamp…) writable, since strategies set them; optionality is kept.
 */
export type ApiObject<T> = {
  -readonly [K in keyof T]: K extends 'metadata' ? { -readonly [M in keyof ObjectMeta]: ObjectMeta[M] } : T[K];
} & Omit<KubeObject, 'metadata'>;

/**
 * Sets `obj.metadata.generation` to the old generation, plus one when `changed` (upstream's
 * PrepareForUpdate, after rest.BeforeUpdate reset the generation to the stored one).
 */
export function bumpGenerationIf(obj: ApiObject<KubeObject>, old: KubeObject, changed: boolean): void {
  const meta = (obj.metadata ??= {});
  const oldGeneration = old.metadata?.generation ?? 0;
  meta.generation = changed ? oldGeneration + 1 : oldGeneration;
}

/**
 * Resets `obj[key]` to the stored `old[key]`, removing it when the stored object has none — upstream's
 * `newObj.Status = oldObj.Status` in PrepareForUpdate, where a nil becomes an absent field here rather
 * than an explicit `undefined`.
 */
export function resetField<T extends object>(obj: T, old: T | undefined, key: keyof T): void {
  const value = old?.[key];
  if (value) obj[key] = value;
  else delete obj[key];
}

/**
 * `metav1.ResetObjectMetaForStatus`: a status update keeps the stored labels, annotations,
 * finalizers and ownerReferences (the store itself keeps generation and the deletion fields).
 */
export function resetObjectMetaForStatus(obj: ApiObject<KubeObject>, old: KubeObject): void {
  const meta = (obj.metadata ??= {});
  for (const key of ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const) resetField(meta, old.metadata, key);
}

/**
 * A short stand-in for upstream's `cmp.Diff(old, new)` of two structs of Go type `goType` (e.g.
 * `core.PodSpec`), appended to "immutable after creation" messages: one `-`/`+` pair per top-level
 * field that differs semantically.
 */
export function specDiff(goType: string, oldSpec: object, newSpec: object): string {
  const lines = [`  ${goType}{`];
  const o = oldSpec as Record<string, unknown>;
  const n = newSpec as Record<string, unknown>;
  for (const k of new Set([...Object.keys(o), ...Object.keys(n)])) {
    if (semanticDeepEqual(o[k], n[k])) continue;
    lines.push(`- \t${k}: ${JSON.stringify(o[k] ?? null)},`, `+ \t${k}: ${JSON.stringify(n[k] ?? null)},`);
  }
  lines.push('  }');
  return lines.join('\n');
}

/** `ValidateImmutableField`: `<path>: Invalid value: <new>: field is immutable` when the values differ semantically. */
export function validateImmutableField(newVal: unknown, oldVal: unknown, path: string): FieldError[] {
  return semanticDeepEqual(newVal, oldVal) ? [] : [field.invalid(path, newVal ?? null, FIELD_IMMUTABLE_ERROR_MSG)];
}

/**
 * `metav1.LabelSelectorAsSelector(sel).String()`: `app=nginx,tier in (a,b)`; `''` for an absent or empty
 * selector; `<invalid>` when it cannot be compiled (printDeployment's fallback). Used for the Selector
 * cell of Deployments and the Scale subresource's `status.selector`.
 */
export function labelSelectorString(ls: LabelSelector | undefined): string {
  try {
    return selectorFromLabelSelector(ls).toString();
  } catch {
    return '<invalid>';
  }
}

/** A workload with a replica count (Deployments, ReplicaSets, ReplicationControllers). */
interface ReplicatedObject {
  spec?: { replicas?: number };
  status?: { replicas?: number };
}

/**
 * The `scale` subresource of a replicated workload (upstream's ScaleREST in
 * pkg/registry/apps/{deployment,replicaset}/storage/storage.go and
 * pkg/registry/core/replicationcontroller/storage/storage.go): spec.replicas (1 when unset),
 * status.replicas (0 when unset) and `selector(obj)` as `status.selector`.
 */
export function replicasScaleWith<T extends ReplicatedObject>(selector: (obj: T) => string): ScaleStrategy<T> {
  return {
    specReplicas: (obj) => obj.spec?.replicas ?? 1,
    setSpecReplicas(obj, replicas) {
      (obj.spec ??= {}).replicas = replicas;
    },
    statusReplicas: (obj) => obj.status?.replicas ?? 0,
    selector,
  };
}

/** The scale of an apps/v1 workload: its label selector's string form as `status.selector`. */
export const replicasScale: ScaleStrategy<ReplicatedObject & { spec?: { selector?: LabelSelector } }> = replicasScaleWith((obj) => labelSelectorString(obj.spec?.selector));

/**
 * Creates each of `objects` that `store` does not hold yet (by namespace and name), leaving existing
 * ones as they are: upstream's post-start hook that ensures the system PriorityClasses
 * (pkg/registry/scheduling/rest/storage_scheduling.go); the RBAC bootstrap policy is reconciled
 * instead (rbac-reconcile.ts). A concurrent creation by another API server is not an error.
 */
export async function createMissing(store: Store, objects: readonly { metadata?: ObjectMeta }[]): Promise<void> {
  for (const obj of objects) {
    if (store.cached(obj.metadata?.namespace, obj.metadata?.name ?? '')) continue;
    try {
      await store.create(obj.metadata?.namespace, obj, {}, []);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }
}

/** A kind with spec and status whose generation follows its spec, as {@link specStatusPreparation} handles it. */
type SpecStatusObject<S> = ApiObject<KubeObject> & { spec?: unknown; status?: S };

/**
 * The preparation hooks of a kind with a status subresource whose generation counts spec changes
 * (upstream's PrepareForCreate / PrepareForUpdate and the status strategy's PrepareForUpdate; e.g.
 * StatefulSets, Jobs, CronJobs, FlowSchemas, ValidatingAdmissionPolicies): create starts at
 * generation 1 with `initialStatus()`; an update keeps the stored status and bumps the generation when
 * the spec changed semantically; a status update keeps the stored spec and the metadata
 * `ResetObjectMetaForStatus` keeps.
 */
export function specStatusPreparation<S, T extends SpecStatusObject<S>>(
  initialStatus: () => S,
): Pick<ResourceStrategy<T>, 'prepareForCreate' | 'prepareForUpdate'> & Required<Pick<ResourceStrategy<T>, 'prepareForStatusUpdate'>> {
  return {
    prepareForCreate(obj) {
      obj.status = initialStatus();
      (obj.metadata ??= {}).generation = 1;
    },
    prepareForUpdate(obj, old) {
      obj.status = old.status ?? initialStatus();
      bumpGenerationIf(obj, old, !semanticDeepEqual(obj.spec, old.spec));
    },
    prepareForStatusUpdate(obj, old) {
      resetField(obj, old, 'spec');
      resetObjectMetaForStatus(obj, old);
    },
  };
}

/**
 * The strategy hooks of a kind that stores nothing of its own — its `storage` serves every verb it
 * has (a Binding binds a pod, ComponentStatuses are computed): each does nothing. Spread it first
 * and add `info`, `storage` and `table`.
 */
export const STORES_NOTHING = {
  hasStatus: false,
  defaults() {},
  prepareForCreate() {},
  prepareForUpdate() {},
  validate: () => [],
  validateUpdate: () => [],
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
} satisfies Omit<ResourceStrategy, 'info' | 'table'>;
