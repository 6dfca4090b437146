/**
 * Controller expectations: how many creations/deletions a controller has issued and not yet seen
 * come back through its informers. A controller whose expectations are not satisfied must not act
 * again (its cache is stale about its own writes); it only writes status.
 *
 * Follows kubernetes/kubernetes pkg/controller/controller_utils.go (`ControllerExpectations`,
 * `ControlleeExpectations`, `UIDTrackingControllerExpectations`). Contract from upstream: once set,
 * expectations can only be lowered; a controller is synced when they are fulfilled (add ≤ 0 and
 * del ≤ 0), when it has none, or when they are older than {@link EXPECTATIONS_TIMEOUT_MS} (5 min),
 * which forces a resync if a watch event was lost. Unlike upstream, the clock is injected.
 */
import type { Clock } from '../util/clock/index.js';

/** ExpectationsTimeout: expectations older than this (ms) count as satisfied. */
export const EXPECTATIONS_TIMEOUT_MS = 5 * 60 * 1000;

/** One controller's outstanding expectations (`ControlleeExpectations`). */
export interface ControlleeExpectations {
  /** Creations still expected (may go negative when extra creations are observed). */
  add: number;
  /** Deletions still expected. */
  del: number;
  /** When the expectations were set (ms since the epoch, from the clock). */
  timestamp: number;
}

/** The per-controller-key TTL cache of expectations. */
export class ControllerExpectations {
  private readonly records = new Map<string, ControlleeExpectations>();

  constructor(private readonly clock: Clock) {}

  /** The record for `controllerKey`, if any (a live object: do not mutate). */
  getExpectations(controllerKey: string): Readonly<ControlleeExpectations> | undefined {
    return this.records.get(controllerKey);
  }

  /** Forgets `controllerKey` (its controller was deleted). */
  deleteExpectations(controllerKey: string): void {
    this.records.delete(controllerKey);
  }

  /**
   * True when the controller may act: no record, a fulfilled record, or an expired one
   * (older than {@link EXPECTATIONS_TIMEOUT_MS}).
   */
  satisfiedExpectations(controllerKey: string): boolean {
    const exp = this.records.get(controllerKey);
    if (!exp) return true;
    if (exp.add <= 0 && exp.del <= 0) return true;
    return this.clock.since(exp.timestamp) > EXPECTATIONS_TIMEOUT_MS;
  }

  /** Replaces the record with `add` creations and `del` deletions, stamped now. */
  setExpectations(controllerKey: string, add: number, del: number): void {
    this.records.set(controllerKey, { add, del, timestamp: this.clock.now() });
  }

  expectCreations(controllerKey: string, adds: number): void {
    this.setExpectations(controllerKey, adds, 0);
  }

  expectDeletions(controllerKey: string, dels: number): void {
    this.setExpectations(controllerKey, 0, dels);
  }

  /** Decrements the counts of an existing record (no-op without one). */
  lowerExpectations(controllerKey: string, add: number, del: number): void {
    const exp = this.records.get(controllerKey);
    if (!exp) return;
    exp.add -= add;
    exp.del -= del;
  }

  /** Increments the counts of an existing record (no-op without one). */
  raiseExpectations(controllerKey: string, add: number, del: number): void {
    this.lowerExpectations(controllerKey, -add, -del);
  }

  /** One expected creation was seen (pod add event) or will never happen (failed/skipped create). */
  creationObserved(controllerKey: string): void {
    this.lowerExpectations(controllerKey, 1, 0);
  }

  /** One expected deletion was seen or will never happen. */
  deletionObserved(controllerKey: string): void {
    this.lowerExpectations(controllerKey, 0, 1);
  }
}

/**
 * Expectations that remember *which* pods (by `namespace/name` key) a controller deleted, so a pod
 * whose delete event arrives twice (update with deletionTimestamp, then delete) or a pod it did not
 * delete lowers the deletion count at most once (`UIDTrackingControllerExpectations`).
 */
export class UIDTrackingControllerExpectations {
  private readonly expectations: ControllerExpectations;
  private readonly uids = new Map<string, Set<string>>();

  constructor(clock: Clock) {
    this.expectations = new ControllerExpectations(clock);
  }

  getExpectations(controllerKey: string): Readonly<ControlleeExpectations> | undefined {
    return this.expectations.getExpectations(controllerKey);
  }

  /** The pod keys still expected to be deleted for `controllerKey`, if any. */
  getUIDs(controllerKey: string): ReadonlySet<string> | undefined {
    return this.uids.get(controllerKey);
  }

  satisfiedExpectations(controllerKey: string): boolean {
    return this.expectations.satisfiedExpectations(controllerKey);
  }

  expectCreations(controllerKey: string, adds: number): void {
    this.expectations.expectCreations(controllerKey, adds);
  }

  creationObserved(controllerKey: string): void {
    this.expectations.creationObserved(controllerKey);
  }

  lowerExpectations(controllerKey: string, add: number, del: number): void {
    this.expectations.lowerExpectations(controllerKey, add, del);
  }

  /** Expects the deletion of exactly these pod keys (replacing any previous set). */
  expectDeletions(controllerKey: string, deletedKeys: readonly string[]): void {
    const set = new Set(deletedKeys);
    this.uids.set(controllerKey, set);
    this.expectations.expectDeletions(controllerKey, set.size);
  }

  /** Records the deletion of `deleteKey`; lowers the count only if that key was expected and not yet seen. */
  deletionObserved(controllerKey: string, deleteKey: string): void {
    const set = this.uids.get(controllerKey);
    if (set?.has(deleteKey)) {
      set.delete(deleteKey);
      this.expectations.deletionObserved(controllerKey);
    }
  }

  deleteExpectations(controllerKey: string): void {
    this.expectations.deleteExpectations(controllerKey);
    this.uids.delete(controllerKey);
  }
}
