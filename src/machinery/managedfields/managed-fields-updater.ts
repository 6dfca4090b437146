/**
 * A manager's time changes only when its write changed its set. Follows k8s.io/apimachinery
 * pkg/util/managedfields/internal/managedfieldsupdater.go (v0.33.9).
 */
import type { KubeObject } from '../../api/index.js';
import { formatTime, type Clock } from '../../util/clock/index.js';
import { removeObjectManagedFields, type Managed, type Manager, type ManagerResult } from './managed.js';

/** The manager name the write is recorded under before it is merged into the real one. */
const CURRENT_OPERATION = 'current-operation';

/**
 * Updates are recorded under a temporary manager, so only what this write changed is new; that set
 * joins the manager's previous one and stamps its time. An apply stamps the time when it changed
 * the object; an apply that changes nothing returns a copy of the live object (managedFieldsUpdater).
 */
export class ManagedFieldsUpdater implements Manager {
  constructor(
    private readonly next: Manager,
    private readonly clock: Clock,
  ) {}

  update(liveObj: KubeObject, newObj: KubeObject, managed: Managed, manager: string): ManagerResult {
    const r = this.next.update(liveObj, newObj, managed, CURRENT_OPERATION);
    const fields = r.managed.fields;
    const vs = fields.get(CURRENT_OPERATION);
    if (vs !== undefined) {
      fields.delete(CURRENT_OPERATION);
      const previous = fields.get(manager);
      if (previous === undefined) fields.set(manager, vs);
      else {
        const set = vs.set.union(previous.set);
        // Rewriting fields it already had leaves the manager's set as it was (and its stored encoding reusable).
        const same = set.size() === previous.set.size() && previous.apiVersion === vs.apiVersion && previous.applied === vs.applied;
        if (!same) fields.set(manager, { set, apiVersion: vs.apiVersion, applied: vs.applied });
      }
      r.managed.times.set(manager, formatTime(this.clock.now()));
    }
    return r;
  }

  apply(liveObj: KubeObject, appliedObj: KubeObject, managed: Managed, manager: string, force: boolean): ManagerResult {
    const r = this.next.apply(liveObj, appliedObj, managed, manager, force);
    if (r.object !== undefined) {
      r.managed.times.set(manager, formatTime(this.clock.now()));
      return r;
    }
    const object = structuredClone(liveObj);
    removeObjectManagedFields(object);
    return { object, managed: r.managed };
  }
}
