/**
 * Leader election through a Lease, as k8s.io/client-go/tools/leaderelection/leaderelection.go (v1.33):
 * candidates race to write their identity into one Lease; the holder renews it every retry period, the
 * others wait until they have seen no change for the lease duration and then take it over. A
 * compare-and-swap on the Lease's resourceVersion decides every race.
 *
 * As upstream, a candidate trusts no timestamp written by another: a lease counts as expired when
 * this elector's own clock has seen the record unchanged for the record's `leaseDurationSeconds`
 * (`observedTime`), so clock skew between candidates does not matter, only skew of clock *rates*.
 * Nothing guarantees a single acting leader (no fencing): the holder stops as soon as it cannot renew
 * within the renew deadline, which is shorter than the lease duration the others wait.
 *
 * Units: options and constants ending in `Ms` are **milliseconds**; the Lease holds whole **seconds**.
 */
import type { Clientset } from '../../client/index.js';
import type { EventRecorder } from '../../client/record/index.js';
import { errorMessage, isNotFound } from '../../machinery/errors/index.js';
import { sleepUnlessAborted, type Clock } from '../../util/clock/index.js';
import type { Rand } from '../../util/random/index.js';
import { handleError, stderrLogger, type Logger } from '../../util/runtime/index.js';
import { LeaseLock, type LeaderElectionRecord } from './resource-lock.js';

/** Upstream `JitterFactor`: acquire retries wait retryPeriod × (1 + up to 1.2). */
export const JITTER_FACTOR = 1.2;
/** Default lease duration, 15 s (k8s.io/component-base/config/v1alpha1/defaults.go `RecommendedDefaultLeaderElectionConfiguration`). */
export const DEFAULT_LEASE_DURATION_MS = 15_000;
/** Default renew deadline, 10 s (same source). */
export const DEFAULT_RENEW_DEADLINE_MS = 10_000;
/** Default retry period, 2 s (same source). */
export const DEFAULT_RETRY_PERIOD_MS = 2_000;
/** Namespace of the control plane's leader election Leases (component-base `ResourceNamespace` default). */
export const DEFAULT_LEASE_NAMESPACE = 'kube-system';

/** Options of {@link LeaderElector} (upstream `LeaderElectionConfig` with a `LeaseLock`). */
export interface LeaderElectorOptions {
  client: Clientset;
  /** Namespace of the Lease, e.g. {@link DEFAULT_LEASE_NAMESPACE}. */
  namespace: string;
  /** Name of the Lease: `kube-controller-manager`, `kube-scheduler`, … */
  name: string;
  /** This candidate's holder identity; must be unique, e.g. {@link newIdentity}'s `<hostname>_<uuid>`. */
  identity: string;
  /** How long others wait, in **ms**, without seeing a renewal before taking over (default 15 000; ≥ 1000: the Lease holds seconds). */
  leaseDurationMs?: number;
  /** How long, in **ms**, the leader keeps retrying a renewal before it gives up leading (default 10 000; < leaseDuration). */
  renewDeadlineMs?: number;
  /** Wait between attempts, in **ms** (default 2 000; renewDeadline must exceed 1.2 × this). */
  retryPeriodMs?: number;
  clock: Clock;
  /** Jitter for acquire retries ({@link JITTER_FACTOR}); without it they come exactly every retry period. */
  rand?: Rand;
  /**
   * Give the Lease up when `run`'s signal aborts, so another candidate takes over at its next retry
   * instead of after the lease duration (default true, as kube-controller-manager and the scheduler
   * set it). Only safe when the work guarded by the lease has stopped by then.
   */
  releaseOnCancel?: boolean;
  /** Called once leadership is acquired; `signal` aborts the moment it is lost or `run` is aborted. Errors are logged. */
  onStartedLeading: (signal: AbortSignal) => void | Promise<void>;
  /** Called when `run` ends, whether or not this candidate ever led (as upstream). Errors are logged. */
  onStoppedLeading: () => void;
  /** Called when the observed holder changes, the first one included (`''` when the lease was released). */
  onNewLeader?: (identity: string) => void;
  /** Records `LeaderElection` events (`<identity> became leader` / `stopped leading`) on the Lease. */
  eventRecorder?: EventRecorder;
  logger?: Logger;
}

/** Upstream's default holder identity: `<hostname>_<uuid>`, unique per process. */
export function newIdentity(hostname: string, rand: Rand): string {
  return `${hostname}_${rand.uuid()}`;
}

/** A leader election candidate (upstream `LeaderElector`); one {@link LeaderElector.run} at a time. */
export class LeaderElector {
  private readonly lock: LeaseLock;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly releaseOnCancel: boolean;
  private readonly clock: Clock;
  private readonly logger: Logger;

  /** The record as last read or written, and when (this clock, ms) it last changed. */
  private observedRecord: LeaderElectionRecord | undefined;
  private observedRawRecord = '';
  private observedTime = 0;
  /** The holder last passed to onNewLeader (upstream `reportedLeader`). */
  private reportedLeader = '';
  /** Aborted when leadership ends; undefined before the first acquisition. */
  private leading: AbortController | undefined;
  private running = false;

  /** @throws Error for inconsistent durations or an empty identity (upstream `NewLeaderElector`). */
  constructor(private readonly opts: LeaderElectorOptions) {
    this.leaseDurationMs = opts.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS;
    this.renewDeadlineMs = opts.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS;
    this.retryPeriodMs = opts.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS;
    if (this.leaseDurationMs <= this.renewDeadlineMs) throw new Error('leaseDuration must be greater than renewDeadline');
    if (this.renewDeadlineMs <= JITTER_FACTOR * this.retryPeriodMs) throw new Error('renewDeadline must be greater than retryPeriod*JitterFactor');
    if (this.leaseDurationMs < 1000) throw new Error('leaseDuration must be at least one second');
    if (this.retryPeriodMs <= 0) throw new Error('retryPeriod must be greater than zero');
    if (!opts.identity) throw new Error('Lock identity is empty');
    this.lock = new LeaseLock(opts.client, opts.namespace, opts.name, opts.identity);
    this.releaseOnCancel = opts.releaseOnCancel ?? true;
    this.clock = opts.clock;
    this.logger = opts.logger ?? stderrLogger;
  }

  /**
   * Upstream `Run`: tries to acquire the Lease every retry period until it succeeds or `signal` aborts,
   * then calls onStartedLeading and renews every retry period. Resolves after leadership ends, which
   * is when `signal` aborts or when a renewal has not succeeded within the renew deadline (callers
   * then exit, as kube-controller-manager does); the leading signal is aborted at that moment. Before
   * resolving it releases the Lease if `releaseOnCancel` and this candidate still holds it (bounded by
   * the renew deadline), then calls onStoppedLeading. Callback errors are logged, not thrown.
   * @throws Error (rejects) when called while a previous run is still running; never otherwise
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.running) throw new Error('LeaderElector.run is already running');
    this.running = true;
    try {
      if (await this.acquire(signal)) await this.lead(signal);
    } finally {
      this.running = false;
      this.callback('onStoppedLeading', () => this.opts.onStoppedLeading());
    }
  }

  /** Whether this candidate leads now: it acquired the Lease, has not lost it, and last saw itself as holder. */
  isLeader(): boolean {
    return this.leading !== undefined && !this.leading.signal.aborted && this.holdsObservedRecord();
  }

  /** The holder identity last observed (`''` before any observation or after a release); for information only. */
  getLeader(): string {
    return this.observedRecord?.holderIdentity ?? '';
  }

  /** Upstream `acquire`: true once the Lease is ours, false when `signal` aborted first. */
  private async acquire(signal: AbortSignal): Promise<boolean> {
    this.logger.info({ lease: this.lock.describe() }, 'Attempting to acquire leader lease');
    while (!signal.aborted) {
      const succeeded = await this.tryAcquireOrRenew();
      this.maybeReportTransition();
      if (succeeded && signal.aborted) {
        // Won after being told to stop: do not lead, but do not sit on the Lease either.
        if (this.releaseOnCancel) await this.release();
        return false;
      }
      if (succeeded) {
        this.recordEvent('became leader');
        this.logger.info({ lease: this.lock.describe() }, 'Successfully acquired lease');
        return true;
      }
      const jitter = this.opts.rand ? this.opts.rand.float() * JITTER_FACTOR * this.retryPeriodMs : 0;
      await sleepUnlessAborted(this.clock, this.retryPeriodMs + jitter, signal);
    }
    return false;
  }

  /** Runs onStartedLeading and upstream `renew` until leadership ends, then releases if configured. */
  private async lead(signal: AbortSignal): Promise<void> {
    const leading = new AbortController();
    this.leading = leading;
    const stopLeading = (): void => leading.abort();
    signal.addEventListener('abort', stopLeading, { once: true });
    try {
      this.callback('onStartedLeading', () => this.opts.onStartedLeading(leading.signal));
      while (!leading.signal.aborted) {
        const renewed = await this.renewWithinDeadline(leading);
        this.maybeReportTransition();
        if (!renewed) break;
        await sleepUnlessAborted(this.clock, this.retryPeriodMs, leading.signal);
      }
      if (!signal.aborted) this.logger.info({ lease: this.lock.describe() }, 'Failed to renew lease, stopped leading');
      this.recordEvent('stopped leading');
    } finally {
      leading.abort();
      signal.removeEventListener('abort', stopLeading);
    }
    if (this.releaseOnCancel) await this.release();
  }

  /**
   * One renewal round (upstream `wait.PollUntilContextTimeout(retryPeriod, renewDeadline)` around
   * `tryAcquireOrRenew`): attempts now and every retry period until one succeeds. When the renew
   * deadline passes first, `leading` is aborted at that instant, without waiting for an attempt in
   * flight. Returns false when leadership ended (deadline or abort).
   */
  private async renewWithinDeadline(leading: AbortController): Promise<boolean> {
    let expire: () => void = () => {};
    const expired = new Promise<false>((resolve) => (expire = () => resolve(false)));
    const deadline = this.clock.setTimer(this.renewDeadlineMs, () => {
      leading.abort();
      expire();
    });
    try {
      while (!leading.signal.aborted) {
        const started = this.clock.now();
        if (await Promise.race([this.tryAcquireOrRenew(), expired])) return !leading.signal.aborted;
        await sleepUnlessAborted(this.clock, this.retryPeriodMs - this.clock.since(started), leading.signal);
      }
      return false;
    } finally {
      deadline.stop();
    }
  }

  /**
   * Upstream `tryAcquireOrRenew`: renews optimistically over the last written Lease while our lease
   * is valid; otherwise reads the Lease (creating it when missing), fails while another holder's lease
   * is still valid on our clock, and else writes our record with the resourceVersion read. Never throws.
   */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.clock.now();
    const record: LeaderElectionRecord = {
      holderIdentity: this.opts.identity,
      leaseDurationSeconds: Math.floor(this.leaseDurationMs / 1000),
      acquireTime: now,
      renewTime: now,
      leaderTransitions: 0,
    };

    // 1. Fast path: the holder writes over the Lease it last wrote.
    const observed = this.observedRecord;
    if (observed && this.holdsObservedRecord() && this.isLeaseValid(now)) {
      const renewal = { ...record, acquireTime: observed.acquireTime, leaderTransitions: observed.leaderTransitions };
      try {
        await this.lock.update(renewal);
        this.setObservedRecord(renewal);
        return true;
      } catch (err) {
        this.logger.error({ lease: this.lock.describe(), err: errorMessage(err) }, 'Failed to update lock optimistically, falling back to slow path');
      }
    }

    // 2. Read the Lease, or create it.
    let current;
    try {
      current = await this.lock.get();
    } catch (err) {
      if (!isNotFound(err)) {
        this.logger.error({ lease: this.lock.describe(), err: errorMessage(err) }, 'Error retrieving resource lock');
        return false;
      }
      try {
        await this.lock.create(record);
      } catch (createErr) {
        this.logger.error({ lease: this.lock.describe(), err: errorMessage(createErr) }, 'Error initially creating leader election record');
        return false;
      }
      this.setObservedRecord(record);
      return true;
    }

    // 3. A changed record restarts the wait (observedTime is our clock, never the holder's).
    if (current.raw !== this.observedRawRecord) {
      this.setObservedRecord(current.record);
      this.observedRawRecord = current.raw;
    }
    const old = current.record;
    if (old.holderIdentity !== '' && this.isLeaseValid(now) && !this.holdsObservedRecord()) return false;

    // 4. Take over or renew, over the resourceVersion just read.
    if (this.holdsObservedRecord()) {
      record.acquireTime = old.acquireTime;
      record.leaderTransitions = old.leaderTransitions;
    } else {
      record.leaderTransitions = old.leaderTransitions + 1;
    }
    try {
      await this.lock.update(record);
    } catch (err) {
      this.logger.error({ lease: this.lock.describe(), err: errorMessage(err) }, 'Failed to update lock');
      return false;
    }
    this.setObservedRecord(record);
    return true;
  }

  /**
   * Upstream `release`: if we are the observed holder, writes an empty holder with
   * leaseDurationSeconds 1 so the others take over at their next retry. Gives up after the renew deadline.
   */
  private async release(): Promise<void> {
    const observed = this.observedRecord;
    if (!observed || !this.holdsObservedRecord()) return;
    const now = this.clock.now();
    const released: LeaderElectionRecord = { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaderTransitions: observed.leaderTransitions };
    let timer = { stop: () => false };
    const timedOut = new Promise<never>((_, reject) => {
      timer = this.clock.setTimer(this.renewDeadlineMs, () => reject(new Error('timed out releasing the lease')));
    });
    try {
      await Promise.race([this.lock.update(released), timedOut]);
      this.setObservedRecord(released);
    } catch (err) {
      this.logger.error({ lease: this.lock.describe(), err: errorMessage(err) }, 'Failed to release lock');
    } finally {
      timer.stop();
    }
  }

  private holdsObservedRecord(): boolean {
    return this.observedRecord?.holderIdentity === this.opts.identity;
  }

  /** Upstream `isLeaseValid`: observedTime + the observed record's lease duration is after `now`. */
  private isLeaseValid(now: number): boolean {
    return this.observedTime + (this.observedRecord?.leaseDurationSeconds ?? 0) * 1000 > now;
  }

  private setObservedRecord(record: LeaderElectionRecord): void {
    this.observedRecord = record;
    this.observedTime = this.clock.now();
  }

  /** Upstream `maybeReportTransition`: onNewLeader when the observed holder changed. */
  private maybeReportTransition(): void {
    const holder = this.getLeader();
    if (holder === this.reportedLeader) return;
    this.reportedLeader = holder;
    const onNewLeader = this.opts.onNewLeader;
    if (onNewLeader) this.callback('onNewLeader', () => onNewLeader(holder));
  }

  /** Upstream `LeaseLock.RecordEvent`. */
  private recordEvent(what: string): void {
    const lease = this.lock.current();
    if (!this.opts.eventRecorder || !lease?.metadata) return;
    const subject = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: lease.metadata };
    this.opts.eventRecorder.event(subject, 'Normal', 'LeaderElection', `${this.opts.identity} ${what}`);
  }

  /** Runs a user callback; a throw or rejection is logged (upstream runs them in goroutines under HandleCrash). */
  private callback(name: string, fn: () => unknown): void {
    const context = { component: 'leaderelection', logger: this.logger, msg: `${name} failed`, lease: this.lock.describe() };
    try {
      const result = fn();
      if (result instanceof Promise) result.catch((err: unknown) => handleError(err, context));
    } catch (err) {
      handleError(err, context);
    }
  }
}
