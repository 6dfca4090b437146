/**
 * Managed fields of the `scale` subresource: the parent's owners of the replicas field become the
 * owners of `autoscaling/v1` Scale's `.spec.replicas`, and back. Follows k8s.io/apimachinery
 * pkg/util/managedfields/scalehandler.go (v0.33.9).
 */
import { FieldSet, makePath, type ManagedFields, type Path } from '../fieldpath/index.js';
import { decodeManagedFields, encodeManagedFields, newManaged, type ManagedFieldsEntry } from './managed.js';

const SCALE_GROUP_VERSION = 'autoscaling/v1';
const REPLICAS_PATH_IN_SCALE: Path = makePath('spec', 'replicas');

/** Per parent apiVersion, the path of its replicas field (`apps/v1` → `.spec.replicas`); undefined when that version has none (ResourcePathMappings). */
export type ResourcePathMappings = ReadonlyMap<string, Path | undefined>;

/**
 * Translates managed fields between a parent (Deployment, ReplicaSet, StatefulSet, a custom resource
 * with a scale subresource) and its Scale (ScaleHandler). `parentEntries` is the parent's
 * `metadata.managedFields`, `groupVersion` the parent's version at this endpoint.
 */
export class ScaleHandler {
  constructor(
    private readonly parentEntries: unknown,
    private readonly groupVersion: string,
    private readonly mappings: ResourcePathMappings,
  ) {}

  /**
   * The Scale's managed fields (ToSubresource): each parent manager owning the replicas path of its
   * version owns the Scale's `.spec.replicas` in `autoscaling/v1`; undefined when none. Throws when
   * the parent's entries do not decode.
   */
  toSubresource(): ManagedFieldsEntry[] | undefined {
    const managed = decodeManagedFields(this.parentEntries);
    const fields: ManagedFields = new Map();
    const times = new Map<string, string | undefined>();
    for (const [manager, vs] of managed.fields) {
      const path = this.mappings.get(vs.apiVersion);
      if (path === undefined || !vs.set.has(path)) continue;
      fields.set(manager, { set: FieldSet.of(REPLICAS_PATH_IN_SCALE), apiVersion: SCALE_GROUP_VERSION, applied: vs.applied });
      times.set(manager, managed.times.get(manager));
    }
    return encodeManagedFields(newManaged(fields, times));
  }

  /**
   * The parent's managed fields after a write to the Scale with `scaleEntries` (ToParent): parent
   * managers keep their sets, minus the replicas path if they no longer own the Scale's replicas;
   * Scale managers new to the parent own the parent's replicas path. Managers of versions without a
   * mapping are dropped. Throws when either list does not decode.
   */
  toParent(scaleEntries: unknown): ManagedFieldsEntry[] | undefined {
    const parent = decodeManagedFields(this.parentEntries);
    const scale = decodeManagedFields(scaleEntries);
    const scaleFields = new Map(scale.fields);
    const fields: ManagedFields = new Map();
    const times = new Map<string, string | undefined>();
    for (const [manager, vs] of parent.fields) {
      if (!this.mappings.has(vs.apiVersion)) continue;
      const path = this.mappings.get(vs.apiVersion);
      if (path === undefined || !vs.set.has(path)) {
        fields.set(manager, vs);
        times.set(manager, parent.times.get(manager));
        continue;
      }
      if (!scaleFields.has(manager)) {
        const set = vs.set.difference(FieldSet.of(path));
        if (!set.empty()) {
          fields.set(manager, { set, apiVersion: vs.apiVersion, applied: vs.applied });
          times.set(manager, parent.times.get(manager));
        }
      } else {
        fields.set(manager, vs);
        times.set(manager, parent.times.get(manager));
        scaleFields.delete(manager);
      }
    }
    for (const [manager, vs] of scaleFields) {
      if (!vs.set.has(REPLICAS_PATH_IN_SCALE)) continue;
      const path = this.mappings.get(this.groupVersion);
      fields.set(manager, { set: path === undefined ? new FieldSet() : FieldSet.of(path), apiVersion: this.groupVersion, applied: vs.applied });
      times.set(manager, parent.times.get(manager));
    }
    return encodeManagedFields(newManaged(fields, times));
  }
}
