/**
 * Objects that existed before managed fields were tracked: updates leave them untracked, and the
 * first apply first records everything already there under `before-first-apply`. Follows
 * k8s.io/apimachinery pkg/util/managedfields/internal/skipnonapplied.go (v0.33.9).
 */
import type { KubeObject } from '../../api/index.js';
import type { Rand } from '../../util/random/index.js';
import type { Managed, Manager, ManagerResult } from './managed.js';

/** The manager of the fields an object had before its first apply. */
export const BEFORE_FIRST_APPLY_MANAGER = 'before-first-apply';

/** Upstream's default probability of tracking a create (DefaultTrackOnCreateProbability): always. */
export const DEFAULT_TRACK_ON_CREATE_PROBABILITY = 1;

/**
 * skipNonAppliedManager: with no managers, an update of an existing object (it has a uid) is not
 * tracked, and a create is tracked with probability `probability` (1 in the default stack, where no
 * random number is drawn: upstream's `p <= rand.Float32()` never holds for p = 1); an apply first
 * records the live object's fields as an update by `before-first-apply` from `creater()`.
 */
export class SkipNonAppliedManager implements Manager {
  constructor(
    private readonly next: Manager,
    /** The empty object of the kind (runtime.ObjectCreater.New). */
    private readonly creater: () => KubeObject,
    private readonly probability: number = DEFAULT_TRACK_ON_CREATE_PROBABILITY,
    private readonly rand?: Rand,
  ) {}

  update(liveObj: KubeObject, newObj: KubeObject, managed: Managed, manager: string): ManagerResult {
    if (managed.fields.size === 0) {
      const uid = liveObj.metadata?.uid ?? '';
      if (uid !== '') return { object: newObj, managed };
      if (this.probability < 1 && this.probability <= (this.rand?.float() ?? 1)) return { object: newObj, managed };
    }
    return this.next.update(liveObj, newObj, managed, manager);
  }

  apply(liveObj: KubeObject, appliedObj: KubeObject, managed: Managed, manager: string, force: boolean): ManagerResult {
    let live = liveObj;
    let m = managed;
    if (managed.fields.size === 0) {
      let r: ManagerResult;
      try {
        r = this.next.update(this.creater(), liveObj, managed, BEFORE_FIRST_APPLY_MANAGER);
      } catch (e) {
        throw new Error(`failed to create manager for existing fields: ${(e as Error).message}`, { cause: e });
      }
      live = r.object ?? liveObj;
      m = r.managed;
    }
    return this.next.apply(live, appliedObj, m, manager, force);
  }
}
