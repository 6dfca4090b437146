/**
 * The event recorder components use to write core/v1 Events about objects ("Created pod: web-x2f4k").
 *
 * Follows client-go tools/record: `recorderImpl.makeEvent`/`generateEvent` (event.go) for the Event
 * shape and name `<object>.<hex nanoseconds>`, `recordToSink`/`recordEvent` for the write path, and
 * events_cache.go's `EventCorrelator` for what happens before a write:
 * 1. aggregation: more than 9 events in 10 minutes for one object that differ only in message are
 *    written as one "(combined from similar events): <latest message>" event;
 * 2. deduplication: an event identical (source, object, type, reason, message) to one already written
 *    PATCHes that Event's `count` + 1 and `lastTimestamp` instead of creating a new Event;
 * 3. spam filter: each source+object has a token bucket of 25 events refilled at 1 per 5 minutes;
 *    events beyond it are dropped.
 *
 * Writing is fire-and-forget: {@link EventRecorder.event} only queues (up to 1000 events by default,
 * then drops, as the broadcaster's channel does); background loops write them. Errors are logged and
 * never reach the caller; transport errors (not a StatusError) are retried up to 12 times, 10 s apart.
 * One loop by default, so events are written in the order recorded; with `writers` > 1 (a recorder
 * that stands for many kubelets, each with its own broadcaster upstream) the events of one involved
 * object still go through one loop, in order, and different objects' events are written concurrently
 * (the storage batches concurrent writes into shared transactions).
 */
import type { Event, MetaObject } from '../../api/index.js';
import type { Clientset } from '../index.js';
import { StatusError, errorMessage, isNotFound } from '../../machinery/errors/index.js';
import { formatTime, type Clock } from '../../util/clock/index.js';
import { handleError, stderrLogger, type Logger } from '../../util/runtime/index.js';
import { Fifo } from '../../util/fifo/index.js';
import { LruCache } from '../../util/cache/index.js';

/** `Normal` or `Warning` (v1.EventTypeNormal / EventTypeWarning). */
export type EventType = 'Normal' | 'Warning';

const MAX_LRU_ENTRIES = 4096;
const AGGREGATE_MAX_EVENTS = 10;
const AGGREGATE_INTERVAL_MS = 600_000;
const SPAM_BURST = 25;
const SPAM_QPS = 1 / 300;
/** client-go's `maxQueuedEvents`: the broadcaster's channel size. */
const MAX_QUEUED_EVENTS = 1000;
const MAX_TRIES = 12;
const RETRY_SLEEP_MS = 10_000;

interface EventLog {
  count: number;
  firstTimestamp: string | undefined;
  name: string;
}

interface AggregateRecord {
  localKeys: Set<string>;
  lastTimestamp: number;
}

interface SpamRecord {
  tokens: number;
  last: number;
}

interface QueuedEvent {
  event: Event;
  /** Strategic-merge patch for an existing Event (count > 1), else undefined. */
  patch: Record<string, unknown> | undefined;
}

function src(e: Event): [string, string] {
  return [e.source?.component ?? '', e.source?.host ?? ''];
}

function objectKeyParts(e: Event): string[] {
  const o = e.involvedObject;
  return [o.kind ?? '', o.namespace ?? '', o.name ?? ''];
}

/** getEventKey: everything that makes two events identical. */
function eventKey(e: Event): string {
  const o = e.involvedObject;
  return [...src(e), ...objectKeyParts(e), o.fieldPath ?? '', o.uid ?? '', o.apiVersion ?? '', e.type ?? '', e.reason ?? '', e.message ?? ''].join('');
}

/** getSpamKey: the source and the object. */
function spamKey(e: Event): string {
  const o = e.involvedObject;
  return [...src(e), ...objectKeyParts(e), o.uid ?? '', o.apiVersion ?? ''].join('');
}

/** EventAggregatorByReasonFunc: the aggregate key (all but the message) and the local key (the message). */
function aggregateKeys(e: Event): [string, string] {
  const o = e.involvedObject;
  const agg = [
    ...src(e),
    ...objectKeyParts(e),
    o.uid ?? '',
    o.apiVersion ?? '',
    e.type ?? '',
    e.reason ?? '',
    e.reportingComponent ?? '',
    e.reportingInstance ?? '',
  ].join('');
  return [agg, e.message ?? ''];
}

/** The write loop of an event: by its involved object, so one object's events stay in order. */
function laneOf(e: Event, lanes: number): number {
  const key = `${e.involvedObject.namespace ?? ''}/${e.involvedObject.name ?? ''}`;
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) | 0;
  return Math.abs(h) % lanes;
}

/** A shallow copy of `obj` with `apiVersion`/`kind` set when the object lacks them (informer objects may). */
export function withTypeMeta<T extends MetaObject>(obj: T, apiVersion: string, kind: string): T {
  return obj.kind ? obj : { ...obj, apiVersion, kind };
}

/** Options of {@link EventRecorder}. */
export interface EventRecorderOptions {
  /** `source.component`, e.g. `replicaset-controller`. */
  component: string;
  clock: Clock;
  /** `source.host`, e.g. the node name for kubelet-like components. */
  host?: string;
  logger?: Logger;
  /** Events queued at most before new ones are dropped (default 1000, client-go's `maxQueuedEvents`). */
  maxQueued?: number;
  /** Concurrent write loops (default 1); one object's events always share a loop. */
  writers?: number;
}

/** Per-event details of {@link EventRecorder.event}. */
export interface EventOptions {
  /**
   * `involvedObject.fieldPath`, e.g. `spec.containers{nginx}` for a kubelet's container events
   * (pkg/kubelet/container/ref.go `GenerateContainerRef`).
   */
  fieldPath?: string;
  /** `source.host` and `reportingInstance` for this event, overriding the recorder's (one recorder for many nodes). */
  host?: string;
}

/**
 * Makes event names unique across every recorder of the process: events recorded within one clock
 * millisecond are named in the order they were recorded, so `kubectl describe` (which sorts by
 * seconds, then keeps the list order, i.e. by name) shows a scheduler's event before the kubelet's
 * that followed it.
 */
let nameSeq = 0;

/** Records events about objects, correlated and written asynchronously. */
export class EventRecorder {
  private readonly client: Clientset;
  private readonly component: string;
  private readonly host: string | undefined;
  private readonly clock: Clock;
  private readonly logger: Logger;

  private readonly eventLogs = new LruCache<string, EventLog>(MAX_LRU_ENTRIES);
  private readonly aggregates = new LruCache<string, AggregateRecord>(MAX_LRU_ENTRIES);
  private readonly spam = new LruCache<string, SpamRecord>(MAX_LRU_ENTRIES);

  /** One FIFO per write loop. */
  private readonly queues: Fifo<QueuedEvent>[];
  private readonly draining: boolean[];
  private readonly maxQueued: number;
  private queued = 0;
  /** Events dropped since the queue last filled up (reported once it drains). */
  private dropped = 0;
  private idleWaiters: (() => void)[] = [];
  private stopped = false;

  constructor(client: Clientset, opts: EventRecorderOptions) {
    this.client = client;
    this.component = opts.component;
    this.host = opts.host;
    this.clock = opts.clock;
    this.logger = opts.logger ?? stderrLogger;
    this.maxQueued = Math.max(1, opts.maxQueued ?? MAX_QUEUED_EVENTS);
    const writers = Math.max(1, Math.floor(opts.writers ?? 1));
    this.queues = Array.from({ length: writers }, () => new Fifo<QueuedEvent>());
    this.draining = this.queues.map(() => false);
  }

  /**
   * Records an event about `obj` (which should carry apiVersion/kind; see {@link withTypeMeta}).
   * Returns at once; never throws.
   */
  event(obj: MetaObject, type: EventType, reason: string, message: string, opts: EventOptions = {}): void {
    if (this.stopped) return;
    const correlated = this.correlate(this.makeEvent(obj, type, reason, message, opts));
    if (!correlated) return;
    if (this.queued >= this.maxQueued) {
      // Upstream's broadcaster drops silently (watch.DropIfChannelFull); one line per burst is enough
      // here, or a 10,000-pod scale-up would log thousands of them.
      if (this.dropped++ === 0) this.logger.error({ component: this.component }, 'Event queue full, dropping events');
      return;
    }
    const lane = this.queues.length === 1 ? 0 : laneOf(correlated.event, this.queues.length);
    this.queues[lane]?.push(correlated);
    this.queued++;
    if (!this.draining[lane]) void this.drain(lane);
  }

  /** Resolves once every queued event has been written (or given up on). */
  flush(): Promise<void> {
    if (this.idle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private idle(): boolean {
    return this.queued === 0 && !this.draining.includes(true);
  }

  /** Stops accepting events; queued ones are still written. */
  shutdown(): void {
    this.stopped = true;
  }

  /** A unique name suffix: the clock in nanoseconds (plus a counter within one ms), in hex. */
  private nameSuffix(now: number): string {
    const ns = BigInt(Math.floor(now)) * 1_000_000n + BigInt(nameSeq++ % 1_000_000);
    return ns.toString(16);
  }

  private makeEvent(obj: MetaObject, type: EventType, reason: string, message: string, opts: EventOptions): Event {
    const meta = obj.metadata ?? {};
    const now = this.clock.now();
    const t = formatTime(now);
    const involvedObject: Event['involvedObject'] = {};
    if (obj.kind) involvedObject.kind = obj.kind;
    if (meta.namespace) involvedObject.namespace = meta.namespace;
    if (meta.name) involvedObject.name = meta.name;
    if (meta.uid) involvedObject.uid = meta.uid;
    if (obj.apiVersion) involvedObject.apiVersion = obj.apiVersion;
    if (meta.resourceVersion) involvedObject.resourceVersion = meta.resourceVersion;
    if (opts.fieldPath) involvedObject.fieldPath = opts.fieldPath;
    const host = opts.host ?? this.host;
    const source: NonNullable<Event['source']> = { component: this.component };
    if (host) source.host = host;
    const event: Event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${meta.name ?? ''}.${this.nameSuffix(now)}`, namespace: meta.namespace || 'default' },
      involvedObject,
      reason,
      message,
      type,
      source,
      firstTimestamp: t,
      lastTimestamp: t,
      count: 1,
      reportingComponent: this.component,
      reportingInstance: host ?? '',
    };
    return event;
  }

  /** EventCorrelate: aggregate, observe (count), then spam-filter. Undefined when the event is dropped. */
  private correlate(event: Event): QueuedEvent | undefined {
    const [aggregated, key] = this.aggregate(event);
    const observed = this.observe(aggregated, key);
    if (this.spamFiltered(observed.event)) return undefined;
    return observed;
  }

  private aggregate(event: Event): [Event, string] {
    const now = this.clock.now();
    const [aggKey, localKey] = aggregateKeys(event);
    let record = this.aggregates.get(aggKey);
    if (!record || now - record.lastTimestamp > AGGREGATE_INTERVAL_MS) record = { localKeys: new Set(), lastTimestamp: now };
    record.localKeys.add(localKey);
    record.lastTimestamp = now;
    this.aggregates.set(aggKey, record);
    if (record.localKeys.size < AGGREGATE_MAX_EVENTS) return [event, eventKey(event)];
    // Keep the set from growing past the threshold (upstream pops an arbitrary key).
    const first = record.localKeys.values().next().value;
    if (first !== undefined) record.localKeys.delete(first);
    const t = formatTime(now);
    const combined: Event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${event.involvedObject.name ?? ''}.${this.nameSuffix(now)}`, namespace: event.metadata.namespace },
      involvedObject: event.involvedObject,
      reason: event.reason,
      message: `(combined from similar events): ${event.message ?? ''}`,
      type: event.type,
      source: event.source,
      firstTimestamp: t,
      lastTimestamp: t,
      count: 1,
    };
    return [combined, aggKey];
  }

  /** eventObserve: a repeat of a logged event becomes a patch of the logged Event. */
  private observe(event: Event, key: string): QueuedEvent {
    const last = this.eventLogs.get(key);
    let out = event;
    let patch: Record<string, unknown> | undefined;
    if (last && last.count > 0) {
      out = {
        ...event,
        metadata: { ...event.metadata, name: last.name },
        firstTimestamp: last.firstTimestamp,
        count: last.count + 1,
      };
      patch = { count: out.count, lastTimestamp: out.lastTimestamp, message: out.message };
    }
    this.eventLogs.set(key, {
      count: out.count ?? 1,
      firstTimestamp: out.firstTimestamp,
      name: out.metadata.name ?? '',
    });
    return { event: out, patch };
  }

  /** EventSourceObjectSpamFilter: true when the source+object token bucket is empty. */
  private spamFiltered(event: Event): boolean {
    const now = this.clock.now();
    const key = spamKey(event);
    const record = this.spam.get(key) ?? { tokens: SPAM_BURST, last: now };
    record.tokens = Math.min(SPAM_BURST, record.tokens + ((now - record.last) / 1000) * SPAM_QPS);
    record.last = now;
    const accepted = record.tokens >= 1;
    if (accepted) record.tokens -= 1;
    this.spam.set(key, record);
    return !accepted;
  }

  private async drain(lane: number): Promise<void> {
    const queue = this.queues[lane];
    if (!queue) return;
    this.draining[lane] = true;
    for (let next = queue.shift(); next; next = queue.shift()) {
      this.queued--;
      try {
        await this.recordToSink(next);
      } catch (err) {
        // A bug writing one event must not stop every later one (draining would stay true forever).
        handleError(err, { component: this.component, logger: this.logger, msg: 'Could not record an event', event: next.event.metadata.name });
      }
    }
    this.draining[lane] = false;
    if (!this.idle()) return;
    if (this.dropped > 0) {
      this.logger.info({ component: this.component, dropped: this.dropped }, 'Event queue drained; events were dropped while it was full');
      this.dropped = 0;
    }
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** recordToSink: tries {@link MAX_TRIES} times while the failure is a transport error. */
  private async recordToSink(item: QueuedEvent): Promise<void> {
    for (let tries = 1; ; tries++) {
      if (await this.recordEvent(item)) return;
      if (tries >= MAX_TRIES) {
        this.logger.error({ component: this.component, event: item.event.metadata.name }, 'Unable to write event (retry limit exceeded!)');
        return;
      }
      await this.clock.sleep(RETRY_SLEEP_MS);
    }
  }

  /** recordEvent: patch or create; true when done (written, or rejected by the server for good). */
  private async recordEvent({ event, patch }: QueuedEvent): Promise<boolean> {
    const ns = event.metadata.namespace;
    const events = this.client.core.events(ns);
    try {
      let written: Event | undefined;
      if (patch && event.metadata.name) {
        try {
          written = await events.patch(event.metadata.name, 'application/strategic-merge-patch+json', patch);
        } catch (err) {
          // The Event may have been deleted (TTL): create it afresh.
          if (!isNotFound(err)) throw err;
        }
      }
      if (!written) {
        written = await events.create(event);
      }
      this.eventLogs.set(eventKey(written), {
        count: written.count ?? 1,
        firstTimestamp: written.firstTimestamp,
        name: written.metadata.name ?? '',
      });
      return true;
    } catch (err) {
      if (err instanceof StatusError) {
        this.logger.error({ component: this.component, event: event.metadata.name, err: errorMessage(err) }, 'Server rejected event (will not retry!)');
        return true;
      }
      this.logger.error({ component: this.component, event: event.metadata.name, err: errorMessage(err) }, 'Unable to write event (may retry after sleeping)');
      return false;
    }
  }
}
