/**
 * The scheduling queue of pods waiting for a node — upstream's PriorityQueue
 * (pkg/scheduler/backend/queue/scheduling_queue.go), simplified but with the same three parts:
 *
 * - activeQ: pods ready to be tried, highest `spec.priority` first, then oldest first;
 * - backoffQ: pods that failed recently and wait out their backoff
 *   (`min(initial * 2^(attempts-1), max)`: 1 s, 2 s, 4 s, 8 s, 10 s, 10 s… with upstream's defaults
 *   podInitialBackoffSeconds=1, podMaxBackoffSeconds=10);
 * - unschedulablePods: pods that fit no node; they stay parked until a cluster event that may make
 *   them schedulable (a node added or changed, an assigned pod deleted) moves them to backoffQ (still
 *   backing off) or activeQ, or until they have waited podMaxInUnschedulablePodsDuration (5 min).
 *
 * A pod whose scheduling attempt overlapped such an event (the event's `moveRequestCycle` is at or
 * after the attempt's cycle) goes to backoffQ instead of being parked, so the event is not lost.
 *
 * Timers: at most one clock timer for the earliest backoff expiry and one for the oldest parked pod —
 * not one per pod.
 */
import type { Pod } from '../api/index.js';
import type { Clock, Timer } from '../util/clock/index.js';
import { KeyedHeap } from './heap.js';
import { newPodInfo, type PodInfo } from './node-info.js';

/** A pod in the queue, with its attempt bookkeeping. */
export interface QueuedPodInfo {
  podInfo: PodInfo;
  /** When the pod was last added to the queue (ms); backoff counts from here. */
  timestamp: number;
  /** Scheduling attempts so far (incremented on pop). */
  attempts: number;
  /** When the pod was first added (ms). */
  initialAttemptTimestamp: number;
  /**
   * The plugins that rejected the pod in its last attempt (upstream `UnschedulablePlugins`): a cluster
   * event registered by one of them may make it schedulable (see {@link SchedulingQueue.moveAllToActiveOrBackoffQueue}).
   */
  unschedulablePlugins?: ReadonlySet<string>;
}

export interface SchedulingQueueOptions {
  clock: Clock;
  /** Backoff after the first failure, ms (default 1000, upstream podInitialBackoffSeconds). */
  podInitialBackoffMs?: number;
  /** Backoff cap, ms (default 10000, upstream podMaxBackoffSeconds). */
  podMaxBackoffMs?: number;
  /** How long a pod may stay parked before it is retried anyway, ms (default 300000). */
  podMaxInUnschedulablePodsDurationMs?: number;
}

const priorityOf = (q: QueuedPodInfo): number => q.podInfo.pod.spec?.priority ?? 0;

export class SchedulingQueue {
  private readonly clock: Clock;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly maxUnschedulableMs: number;
  private readonly activeQ = new KeyedHeap<QueuedPodInfo>(
    (q) => q.podInfo.uid,
    (a, b) => priorityOf(a) > priorityOf(b) || (priorityOf(a) === priorityOf(b) && a.timestamp < b.timestamp),
  );
  private readonly backoffQ = new KeyedHeap<QueuedPodInfo>(
    (q) => q.podInfo.uid,
    (a, b) => this.backoffExpiry(a) < this.backoffExpiry(b),
  );
  private readonly unschedulablePods = new Map<string, QueuedPodInfo>();
  /** Pods popped and not yet returned: uid → latest pod object seen meanwhile (undefined = deleted). */
  private readonly inFlight = new Map<string, { pod: Pod | undefined }>();
  private schedulingCycle = 0;
  private moveRequestCycle = -1;
  private waiters: Array<(q: QueuedPodInfo | undefined) => void> = [];
  private backoffTimer: Timer | undefined;
  private backoffTimerAt = Infinity;
  private leftoverTimer: Timer | undefined;
  private closed = false;

  constructor(opts: SchedulingQueueOptions) {
    this.clock = opts.clock;
    this.initialBackoffMs = opts.podInitialBackoffMs ?? 1000;
    this.maxBackoffMs = opts.podMaxBackoffMs ?? 10_000;
    this.maxUnschedulableMs = opts.podMaxInUnschedulablePodsDurationMs ?? 300_000;
  }

  /** Numbers of pods in activeQ, backoffQ and unschedulablePods (for tests and metrics). */
  stats(): { active: number; backoff: number; unschedulable: number } {
    return { active: this.activeQ.size, backoff: this.backoffQ.size, unschedulable: this.unschedulablePods.size };
  }

  /** The current scheduling cycle (incremented by every pop). */
  get cycle(): number {
    return this.schedulingCycle;
  }

  /** Adds a new pending pod to activeQ (or refreshes it where it already is). */
  add(pod: Pod): void {
    const uid = pod.metadata?.uid ?? '';
    if (this.inFlight.has(uid)) {
      this.inFlight.set(uid, { pod });
      return;
    }
    const existing = this.find(uid);
    if (existing) {
      this.update(pod);
      return;
    }
    const now = this.clock.now();
    this.pushActive({ podInfo: newPodInfo(pod), timestamp: now, attempts: 0, initialAttemptTimestamp: now });
  }

  /**
   * A pending pod changed. In activeQ/backoffQ the object is replaced in place; a parked pod is moved
   * (to backoffQ while backing off, else activeQ), because the change may make it schedulable.
   */
  update(pod: Pod): void {
    const uid = pod.metadata?.uid ?? '';
    if (this.inFlight.has(uid)) {
      this.inFlight.set(uid, { pod });
      return;
    }
    const podInfo = newPodInfo(pod);
    const active = this.activeQ.get(uid);
    if (active) {
      this.activeQ.addOrUpdate({ ...active, podInfo });
      return;
    }
    const backoff = this.backoffQ.get(uid);
    if (backoff) {
      this.backoffQ.addOrUpdate({ ...backoff, podInfo });
      return;
    }
    const parked = this.unschedulablePods.get(uid);
    if (parked) {
      this.unschedulablePods.delete(uid);
      this.requeue({ ...parked, podInfo });
      return;
    }
    this.add(pod);
  }

  /** Removes a pod from every queue (deleted, or bound by someone else). */
  delete(uid: string): void {
    if (this.inFlight.has(uid)) this.inFlight.set(uid, { pod: undefined });
    this.activeQ.delete(uid);
    this.backoffQ.delete(uid);
    this.unschedulablePods.delete(uid);
  }

  /**
   * Waits for the next pod from activeQ; resolves undefined once {@link close}d. The pod is "in
   * flight" until {@link done} or {@link addUnschedulableIfNotPresent}.
   */
  pop(): Promise<QueuedPodInfo | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    const q = this.activeQ.pop();
    if (q) return Promise.resolve(this.startFlight(q));
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The attempt for a popped pod ended (bound, assumed, or dropped). */
  done(uid: string): void {
    this.inFlight.delete(uid);
  }

  /**
   * Returns a pod whose attempt (started at `podSchedulingCycle`) failed. `unschedulable` = no node fits
   * (park it unless an event arrived meanwhile); false = an error such as a failed bind (back off).
   * A pod deleted or bound meanwhile is dropped; a pod updated meanwhile is re-queued with the new object.
   */
  addUnschedulableIfNotPresent(q: QueuedPodInfo, podSchedulingCycle: number, unschedulable: boolean): void {
    const uid = q.podInfo.uid;
    const flight = this.inFlight.get(uid);
    this.inFlight.delete(uid);
    if (flight && flight.pod === undefined) return;
    if (this.find(uid)) return;
    const podInfo = flight?.pod && flight.pod !== q.podInfo.pod ? newPodInfo(flight.pod) : q.podInfo;
    const entry: QueuedPodInfo = { ...q, podInfo, timestamp: this.clock.now() };
    const changed = podInfo !== q.podInfo;
    if (!unschedulable || changed || this.moveRequestCycle >= podSchedulingCycle) {
      this.pushBackoff(entry);
    } else {
      this.unschedulablePods.set(uid, entry);
      this.armLeftoverTimer();
    }
  }

  /**
   * A cluster event that may make parked pods schedulable (upstream `MoveAllToActiveOrBackoffQueue`):
   * every parked pod — or, with `preCheck`, every parked pod for which it returns true (upstream's
   * queueing hints: the event concerns a plugin that rejected the pod, and may help this pod) — moves
   * to backoffQ or activeQ.
   */
  moveAllToActiveOrBackoffQueue(preCheck?: (q: QueuedPodInfo) => boolean): void {
    this.moveRequestCycle = this.schedulingCycle;
    if (this.unschedulablePods.size === 0) return;
    if (preCheck) {
      for (const [uid, q] of this.unschedulablePods) {
        if (!preCheck(q)) continue;
        this.unschedulablePods.delete(uid);
        this.requeue(q);
      }
      return;
    }
    const parked = [...this.unschedulablePods.values()];
    this.unschedulablePods.clear();
    for (const q of parked) this.requeue(q);
  }

  /** Stops timers and wakes a waiting {@link pop} with undefined. */
  close(): void {
    this.closed = true;
    this.backoffTimer?.stop();
    this.leftoverTimer?.stop();
    for (const w of this.waiters.splice(0)) w(undefined);
  }

  /** Backoff duration after `attempts` failures, ms. */
  backoffDuration(attempts: number): number {
    let d = this.initialBackoffMs;
    for (let i = 1; i < attempts && d < this.maxBackoffMs; i++) d *= 2;
    return Math.min(d, this.maxBackoffMs);
  }

  private backoffExpiry(q: QueuedPodInfo): number {
    return q.timestamp + this.backoffDuration(q.attempts);
  }

  private find(uid: string): QueuedPodInfo | undefined {
    return this.activeQ.get(uid) ?? this.backoffQ.get(uid) ?? this.unschedulablePods.get(uid);
  }

  private requeue(q: QueuedPodInfo): void {
    if (q.attempts > 0 && this.backoffExpiry(q) > this.clock.now()) this.pushBackoff(q);
    else this.pushActive(q);
  }

  private startFlight(q: QueuedPodInfo): QueuedPodInfo {
    this.schedulingCycle++;
    this.inFlight.set(q.podInfo.uid, { pod: q.podInfo.pod });
    return { ...q, attempts: q.attempts + 1 };
  }

  private pushActive(q: QueuedPodInfo): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter(this.startFlight(q));
    else this.activeQ.addOrUpdate(q);
  }

  private pushBackoff(q: QueuedPodInfo): void {
    this.backoffQ.addOrUpdate(q);
    this.armBackoffTimer();
  }

  /** Keeps exactly one timer, for the earliest backoff expiry. */
  private armBackoffTimer(): void {
    const head = this.backoffQ.peek();
    if (!head || this.closed) return;
    const at = this.backoffExpiry(head);
    if (this.backoffTimer && this.backoffTimerAt <= at) return;
    this.backoffTimer?.stop();
    this.backoffTimerAt = at;
    this.backoffTimer = this.clock.setTimer(at - this.clock.now(), () => {
      this.backoffTimer = undefined;
      this.backoffTimerAt = Infinity;
      this.flushBackoffQCompleted();
    });
  }

  /** Moves every pod whose backoff has expired to activeQ. */
  private flushBackoffQCompleted(): void {
    const now = this.clock.now();
    for (let head = this.backoffQ.peek(); head && this.backoffExpiry(head) <= now; head = this.backoffQ.peek()) {
      this.backoffQ.pop();
      this.pushActive(head);
    }
    this.armBackoffTimer();
  }

  private armLeftoverTimer(): void {
    if (this.leftoverTimer || this.closed || this.unschedulablePods.size === 0) return;
    let oldest = Infinity;
    for (const q of this.unschedulablePods.values()) oldest = Math.min(oldest, q.timestamp);
    this.leftoverTimer = this.clock.setTimer(oldest + this.maxUnschedulableMs - this.clock.now(), () => {
      this.leftoverTimer = undefined;
      this.flushUnschedulablePodsLeftover();
    });
  }

  /** Retries pods parked for podMaxInUnschedulablePodsDuration or longer. */
  private flushUnschedulablePodsLeftover(): void {
    const now = this.clock.now();
    for (const [uid, q] of this.unschedulablePods) {
      if (now - q.timestamp >= this.maxUnschedulableMs) {
        this.unschedulablePods.delete(uid);
        this.requeue(q);
      }
    }
    this.armLeftoverTimer();
  }
}
