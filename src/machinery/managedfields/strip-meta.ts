/**
 * Nobody owns the object's identity and server-set metadata. Follows k8s.io/apimachinery
 * pkg/util/managedfields/internal/stripmeta.go (v0.33.9).
 */
import type { KubeObject } from '../../api/index.js';
import { FieldSet, makePath, type ManagedFields } from '../fieldpath/index.js';
import type { Managed, Manager, ManagerResult } from './managed.js';

/** apiVersion, kind, metadata itself, and metadata's name, namespace, creationTimestamp, selfLink, uid, clusterName, generation, managedFields, resourceVersion. */
const STRIP_SET = FieldSet.of(
  makePath('apiVersion'),
  makePath('kind'),
  makePath('metadata'),
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((f) => makePath('metadata', f)),
);

/** Removes the strip set from the writing manager's set after the write (stripMetaManager); a manager left with nothing is dropped. */
export class StripMetaManager implements Manager {
  constructor(private readonly next: Manager) {}

  update(liveObj: KubeObject, newObj: KubeObject, managed: Managed, manager: string): ManagerResult {
    const r = this.next.update(liveObj, newObj, managed, manager);
    stripFields(r.managed.fields, manager);
    return r;
  }

  apply(liveObj: KubeObject, appliedObj: KubeObject, managed: Managed, manager: string, force: boolean): ManagerResult {
    const r = this.next.apply(liveObj, appliedObj, managed, manager, force);
    stripFields(r.managed.fields, manager);
    return r;
  }
}

function stripFields(fields: ManagedFields, manager: string): void {
  const vs = fields.get(manager);
  if (vs === undefined) return;
  const set = vs.set.difference(STRIP_SET);
  if (set.empty()) fields.delete(manager);
  // Nothing stripped: difference returns the set itself, whose stored encoding is then reused.
  else if (set !== vs.set) fields.set(manager, { set, apiVersion: vs.apiVersion, applied: vs.applied });
}
