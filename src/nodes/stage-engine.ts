/**
 * Runs stages for one resource: on every change of an object it finds the first matching stage and
 * schedules it `delay` after the change; when due, and if the object still matches that stage, the
 * stage fires. Level-triggered like a controller: the work queue carries only keys, the decision is
 * re-made from the informer's latest object each time, and the delays are the work queue's
 * (`addAfter`, one clock timer for all of them) — no timer per object.
 *
 * Follows kwok's stage controller (pkg/kwok/controllers/stage_controller.go: watch → match stage →
 * delay → apply `next`), with a bounded number of concurrent workers (kwok's
 * `podPlayStageParallelism`).
 */
import type { Node, Pod } from '../api/index.js';
import { type Logger } from '../util/runtime/index.js';
import { runWorkers } from '../workqueue/index.js';
import type { Clock } from '../util/clock/index.js';
import type { Rand } from '../util/random/index.js';
import { RateLimitingQueue } from '../workqueue/index.js';
import type { PodReferenceLookup } from './pod-references.js';
import type { SimulatedNodeInfo, Stage } from './stages.js';

export interface StageEngineOptions<T extends Pod | Node> {
  /** For logs and the queue name, e.g. `pod`. */
  name: string;
  stages: readonly Stage<T>[];
  clock: Clock;
  rand: Rand;
  /** The informer's latest object for a key. */
  get: (key: string) => T | undefined;
  /** The simulated node an object belongs to (the pod's node, or the node itself); undefined = not ours. */
  nodeOf: (obj: T) => SimulatedNodeInfo | undefined;
  /**
   * Performs a due stage on an object; resolves true when it wrote (status or delete), false when it
   * only recorded events. Throws to have the key retried with backoff.
   */
  fire: (obj: T, stage: Stage<T>, node: SimulatedNodeInfo) => Promise<boolean>;
  /** What selectors may read besides the object (ConfigMaps and Secrets pods refer to). */
  lookup?: PodReferenceLookup;
  logger?: Logger;
}

interface Pending {
  stage: string;
  uid: string;
  dueAt: number;
}

export class StageEngine<T extends Pod | Node> {
  private readonly queue: RateLimitingQueue;
  /** The stage each object is waiting for, and when it is due. */
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly opts: StageEngineOptions<T>) {
    this.queue = new RateLimitingQueue<string>({ clock: opts.clock, name: `stages-${opts.name}` });
  }

  /** The object changed (or may now be ours): re-evaluate it. */
  enqueue(key: string): void {
    this.queue.add(key);
  }

  /** Number of objects with a stage scheduled (for tests). */
  pendingCount(): number {
    return this.pending.size;
  }

  /** Runs `workers` workers until `signal` aborts. */
  run(workers: number, signal?: AbortSignal): Promise<void> {
    return runWorkers(this.queue, workers, (key) => this.sync(key), {
      name: `stages-${this.opts.name}`,
      signal,
      logger: this.opts.logger,
    });
  }

  private async sync(key: string): Promise<{ requeueAfter: number } | undefined> {
    const obj = this.opts.get(key);
    const node = obj && this.opts.nodeOf(obj);
    const stage = obj && node ? this.opts.stages.find((s) => s.selector(obj, this.opts.lookup)) : undefined;
    if (!obj || !node || !stage) {
      this.pending.delete(key);
      return undefined;
    }
    const uid = obj.metadata?.uid ?? '';
    const now = this.opts.clock.now();
    let p = this.pending.get(key);
    if (!p || p.stage !== stage.name || p.uid !== uid) {
      // A new state: the stage's delay counts from now (kwok: from the event that selected it).
      p = { stage: stage.name, uid, dueAt: now + this.delayFor(stage, obj, now) };
      this.pending.set(key, p);
    }
    if (now < p.dueAt) return { requeueAfter: p.dueAt - now };
    // Cleared only after success: a failed write is retried (rate-limited) without a new delay; the
    // write's own watch event then re-queues the key and selects the next stage.
    const wrote = await this.opts.fire(obj, stage, node);
    this.pending.delete(key);
    // A stage that only recorded events (a retry that failed again: FailedMount, CreateContainerConfigError)
    // left the object as it was, so no watch event will come: evaluate it again now, and the stage's
    // delay, counted anew, is the wait until the next attempt.
    return wrote ? undefined : { requeueAfter: 0 };
  }

  private delayFor(stage: Stage<T>, obj: T, now: number): number {
    const jitter = stage.jitterMs ? this.opts.rand.int(stage.jitterMs) : 0;
    const delay = (typeof stage.delayMs === 'number' ? stage.delayMs : stage.delayMs(obj, now)) + jitter;
    const limit = stage.delayLimitMs?.(obj, now);
    return limit === undefined ? delay : Math.min(delay, limit);
  }
}
