/**
 * One {@link Backend.watch} on etcd: a gRPC watch stream of its own, created with `prev_kv` (deletes
 * and updates carry the previous version) and `progress_notify`, from `fromRevision + 1`.
 *
 * - **Resume.** When the stream breaks (the member went away, the connection dropped) it is opened
 *   again, on whichever member the pool picks, from the revision after the last one received, so no
 *   event is lost and none is delivered twice (etcd's clientv3 watcher resumes the same way). The
 *   delay between attempts doubles from {@link MIN_RECONNECT_MS} to {@link MAX_RECONNECT_MS}.
 * - **Ending.** etcd cancels a watch whose next revision it has compacted (its answer names the
 *   compacted revision); that ends the watch with `Compacted` through `onError`, as a reflector's
 *   watch ends with 410 and relists.
 * - **Order.** Each response is delivered after the writes of this backend in flight when it arrived
 *   have been answered ({@link WriteOrder}) and one macrotask later, so writers have resumed; responses
 *   are delivered in arrival order.
 * - **Progress.** Two kinds of notice say "every change up to R has been sent": etcd's periodic one
 *   (`progress_notify`, every `--experimental-watch-progress-notify-interval`, 10 minutes by default),
 *   sent on the watch's own channel and only once it has caught up, and the answer to a
 *   `WatchProgressRequest`. Before etcd 3.4.31 and 3.5.13 that answer is sent at once, ahead of events
 *   still queued (etcd-io/etcd#15220; Kubernetes requires those versions for consistent reads from
 *   cache), so on older servers only the periodic notices count and `requestProgress` waits for the
 *   next one. On newer ones the request is sent, and again every {@link PROGRESS_RETRY_MS} until
 *   answered (they answer only a watch that has caught up).
 */

import type { IDuplexStream, IWatchRequest, IWatchResponse } from 'etcd3';
import type { Clock, Timer } from '../../util/clock/index.js';
import type { StorageError, WatchEvent, WatchHandle, WatchOptions } from '../interface.js';
import { compacted } from '../internal/errors.js';
import { internalError, toWatchEvent } from './codec.js';
import type { WriteOrder } from './write-order.js';

/** First delay before opening a broken watch stream again. */
export const MIN_RECONNECT_MS = 50;
/** Longest delay between attempts to open a broken watch stream. */
export const MAX_RECONNECT_MS = 2_000;
/** How often an unanswered progress request is sent again. */
export const PROGRESS_RETRY_MS = 100;

/** What an {@link EtcdWatch} needs from its backend. */
export interface EtcdWatchContext {
  /** Opens a new watch stream (a new gRPC call on a member the pool picks). */
  openStream(): Promise<IDuplexStream<IWatchRequest, IWatchResponse>>;
  /** The backend's writes, to deliver behind. */
  order: WriteOrder;
  /** Tells the backend a revision the store has reached. */
  observe(revision: number): void;
  clock: Clock;
  /** Bytes of backend prefix to drop from keys. */
  prefixLength: number;
  /** True when the server answers a progress request only after the events before it (see the module comment). */
  progressRequestsOrdered: boolean;
}

/** The etcd key range watched: [key, rangeEnd). */
export interface KeyRange {
  key: Buffer;
  rangeEnd: Buffer;
}

/** A running watch (see the module comment). */
export class EtcdWatch implements WatchHandle {
  private stream: IDuplexStream<IWatchRequest, IWatchResponse> | undefined;
  private stopped = false;
  /** The first revision not yet received: where a reopened stream starts. */
  private next: number;
  /** Deliveries in arrival order. */
  private deliveries: Promise<void> = Promise.resolve();
  private reconnectDelay = MIN_RECONNECT_MS;
  private reconnectTimer: Timer | undefined;
  private progressTimer: Timer | undefined;

  /**
   * @param label the watched prefix, for error messages
   * @param fromRevision deliver changes with revision > this
   */
  constructor(
    private readonly range: KeyRange,
    private readonly label: string,
    fromRevision: number,
    private readonly handler: (events: WatchEvent[]) => void,
    private readonly opts: WatchOptions,
    private readonly ctx: EtcdWatchContext,
  ) {
    this.next = fromRevision + 1;
    void this.connect();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.reconnectTimer?.stop();
    this.progressTimer?.stop();
    this.progressTimer = undefined;
    const stream = this.stream;
    this.stream = undefined;
    stream?.cancel();
  }

  requestProgress(): void {
    if (this.stopped || !this.opts.onProgress || this.progressTimer || !this.ctx.progressRequestsOrdered) return;
    this.sendProgressRequest();
  }

  private sendProgressRequest(): void {
    this.stream?.write({ progress_request: {} });
    this.progressTimer = this.ctx.clock.setTimer(PROGRESS_RETRY_MS, () => {
      this.progressTimer = undefined;
      if (!this.stopped) this.sendProgressRequest();
    });
  }

  private async connect(): Promise<void> {
    let stream: IDuplexStream<IWatchRequest, IWatchResponse>;
    try {
      stream = await this.ctx.openStream();
    } catch {
      this.reconnectLater();
      return;
    }
    if (this.stopped) {
      stream.cancel();
      return;
    }
    this.stream = stream;
    stream.on('data', (res) => this.onResponse(stream, res));
    // A cancelled call ends with an error too; only a stream still in use is reopened.
    stream.on('error', () => this.onBroken(stream));
    stream.on('end', () => this.onBroken(stream));
    stream.write({
      create_request: { key: this.range.key, range_end: this.range.rangeEnd, start_revision: this.next, prev_kv: true, progress_notify: true },
    });
    if (this.progressTimer) stream.write({ progress_request: {} });
  }

  private onBroken(stream: IDuplexStream<IWatchRequest, IWatchResponse>): void {
    if (this.stopped || this.stream !== stream) return;
    this.stream = undefined;
    stream.cancel();
    this.reconnectLater();
  }

  private reconnectLater(): void {
    if (this.stopped) return;
    const delay = this.reconnectDelay;
    this.reconnectDelay = Math.min(delay * 2, MAX_RECONNECT_MS);
    this.reconnectTimer = this.ctx.clock.setTimer(delay, () => {
      this.reconnectTimer = undefined;
      void this.connect();
    });
  }

  private onResponse(stream: IDuplexStream<IWatchRequest, IWatchResponse>, res: IWatchResponse): void {
    if (this.stopped || this.stream !== stream) return;
    const revision = Number(res.header.revision);
    this.ctx.observe(revision);
    if (res.canceled) {
      const compactedAt = Number(res.compact_revision);
      this.fail(compactedAt > 0 ? compacted(this.label, compactedAt) : internalError(this.label, new Error(`watch canceled: ${res.cancel_reason}`)));
      return;
    }
    if (res.created) this.reconnectDelay = MIN_RECONNECT_MS;
    if (res.events.length === 0) {
      // The answer to a progress request is not tied to a watch (id -1); see the module comment.
      const answer = res.watch_id === '-1';
      if (!res.created && (!answer || this.ctx.progressRequestsOrdered)) this.onProgress(revision);
      return;
    }
    const events: WatchEvent[] = [];
    for (const raw of res.events) {
      // A reopened stream may repeat what the broken one delivered before it broke.
      if (Number(raw.kv.mod_revision) < this.next) continue;
      const ev = toWatchEvent(raw, this.ctx.prefixLength);
      if (!ev) {
        // etcd sent no previous version: it was compacted before the event reached this watch.
        this.fail(compacted(this.label, Number(raw.kv.mod_revision) - 1));
        return;
      }
      events.push(ev);
    }
    if (events.length === 0) return;
    this.next = (events[events.length - 1] as WatchEvent).kv.modRevision + 1;
    this.deliver(() => this.handler(events));
  }

  /** Every change up to `revision` has been sent on this stream (asked for, or etcd's periodic notice). */
  private onProgress(revision: number): void {
    this.next = Math.max(this.next, revision + 1);
    this.progressTimer?.stop();
    this.progressTimer = undefined;
    const onProgress = this.opts.onProgress;
    if (onProgress) this.deliver(() => onProgress(revision));
  }

  private fail(err: StorageError): void {
    const onError = this.opts.onError;
    this.stop();
    if (onError) this.deliver(() => onError(err), true);
  }

  /** Runs `fn` after what was queued before it, behind this backend's writes in flight now. */
  private deliver(fn: () => void, afterStop = false): void {
    const upTo = this.ctx.order.lastIssued;
    this.deliveries = this.deliveries
      .then(() => this.ctx.order.whenAnswered(upTo))
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => {
        if (afterStop || !this.stopped) fn();
      });
  }
}
