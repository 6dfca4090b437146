/**
 * Fan-out of committed changes to the watchers of one backend, and the hand-over from a watcher's
 * history to its live events.
 *
 * Every watcher keeps a cursor: the highest revision it has been offered. An event is queued for it
 * only if its revision is above the cursor, and queuing raises the cursor, so no event is queued
 * twice. A backend starts a watch in one synchronous step: it reads the retained history in
 * (fromRevision, upTo] — upTo being the newest revision it could read, whether or not that event has
 * been published yet — and registers the watcher with cursor = upTo. JavaScript runs that step
 * without interruption, so every event above upTo is published after the registration and reaches the
 * watcher (no gap), while events at or below upTo that are still waiting to be published are skipped
 * by the cursor (no duplicate). Backends publish in revision order.
 *
 * Handlers are called from a microtask, never inside `watch()`, `publish()` or a write; one call
 * carries everything queued for the watcher since its previous call. A progress request is answered
 * from the same microtask with the cursor, after the queued events: every change up to the cursor has
 * then been delivered.
 */

import type { WatchEvent, WatchHandle, WatchOptions } from '../interface.js';

/** The watchers of one backend. */
export class WatchHub {
  private readonly watchers = new Set<Watcher>();

  /**
   * Registers a watcher of `prefix` and queues `history` for it: the changes under `prefix` with
   * revision in (fromRevision, upTo], in order. Live changes above `upTo` follow via {@link publish}.
   */
  add(prefix: string, history: readonly WatchEvent[], upTo: number, handler: (events: WatchEvent[]) => void, opts: WatchOptions = {}): WatchHandle {
    const watcher = new Watcher(prefix, upTo, handler, opts.onProgress, (w) => this.watchers.delete(w));
    this.watchers.add(watcher);
    watcher.enqueue(history);
    return watcher;
  }

  /** Offers committed `events` (ascending revisions) to every watcher. */
  publish(events: readonly WatchEvent[]): void {
    for (const watcher of this.watchers) watcher.offer(events);
  }

  /** Stops every watcher (backend closing). */
  stopAll(): void {
    for (const watcher of [...this.watchers]) watcher.stop();
  }
}

class Watcher implements WatchHandle {
  private outbox: WatchEvent[] = [];
  private scheduled = false;
  private stopped = false;
  private progressRequested = false;

  constructor(
    private readonly prefix: string,
    /** Highest revision offered to this watcher; see the module comment. */
    private cursor: number,
    private readonly handler: (events: WatchEvent[]) => void,
    private readonly onProgress: ((revision: number) => void) | undefined,
    private readonly onStop: (w: Watcher) => void,
  ) {}

  offer(events: readonly WatchEvent[]): void {
    const fresh: WatchEvent[] = [];
    for (const event of events) {
      if (event.kv.modRevision <= this.cursor) continue;
      this.cursor = event.kv.modRevision;
      if (event.kv.key.startsWith(this.prefix)) fresh.push(event);
    }
    this.enqueue(fresh);
  }

  enqueue(events: readonly WatchEvent[]): void {
    if (this.stopped || events.length === 0) return;
    for (const event of events) this.outbox.push(event);
    this.schedule();
  }

  requestProgress(): void {
    if (this.stopped || !this.onProgress) return;
    this.progressRequested = true;
    this.schedule();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.outbox = [];
    this.onStop(this);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => this.deliver());
  }

  private deliver(): void {
    this.scheduled = false;
    if (this.stopped) return;
    if (this.outbox.length > 0) {
      const batch = this.outbox;
      this.outbox = [];
      this.handler(batch);
    }
    if (!this.progressRequested || this.stopped) return;
    this.progressRequested = false;
    this.onProgress?.(this.cursor);
  }
}
