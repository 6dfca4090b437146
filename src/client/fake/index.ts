/**
 * A {@link Transport} for tests, in the manner of client-go's `testing.Fake` (k8s.io/client-go/testing/
 * fake.go): it records every request in {@link FakeTransport.actions}, lets tests inject faults with
 * {@link FakeTransport.prependReactor} and {@link FakeTransport.closeWatches}, and hands every other
 * request to an inner Transport unchanged.
 *
 * It imitates no server behaviour. The inner transport is the real API server's in-process transport
 * on memory storage (`src/testing` builds it: `newFakeTransport`), so a controller's unit test sees
 * the same defaulting, validation, admission, subresources, watch and pagination as in production
 * (DESIGN.md: the test fake must agree with the real server). This module cannot build that server
 * itself: `client` is below `apiserver` and `storage` in the layers, so what it needs of the server
 * beyond the Transport (seeding, compaction) comes in as {@link FakeServerHooks}.
 */
import type { ObjectMeta } from '../../api/index.js';
import type { RestRequest, Transport, Verb, WatchEvent, WatchStream } from '../../api/request.js';

/** What a reactor decides: `handled: false` passes the request on; otherwise `error` is thrown or `result` returned. */
export interface ReactionResult {
  handled: boolean;
  result?: unknown;
  error?: unknown;
}

/** A fault-injection hook (client-go testing.ReactionFunc). */
export type ReactionFunc = (req: RestRequest) => ReactionResult;

/** Any API object (typed ones such as Pod included): apiVersion and kind select the resource. */
export interface SeedObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/** What {@link FakeTransport} needs of the server behind its inner transport, besides requests. */
export interface FakeServerHooks {
  /** Puts objects into the server's storage as they are (see {@link FakeTransport.seed}). */
  seed(objects: readonly SeedObject[]): Promise<void>;
  /** Compacts the server's history up to its current revision. */
  compact(): Promise<void>;
  /** The server's current (newest) resourceVersion. */
  resourceVersion(): string;
}

/** A watch handed to the inner transport, as this layer tracks it. */
interface FakeWatch {
  /** The inner watch (absent when a reactor answered the watch). */
  stream?: WatchStream;
  onClose: (err?: unknown) => void;
  /** No more events are delivered and `onClose` has been called or queued. */
  ended: boolean;
}

/** Records requests and runs reactors in front of an inner {@link Transport}. */
export class FakeTransport implements Transport {
  /** Every request, in order (watches included), as the caller sent it. */
  readonly actions: RestRequest[] = [];
  private readonly reactors: { verb: Verb | '*'; resource: string; fn: ReactionFunc }[] = [];
  private readonly watches = new Set<FakeWatch>();

  /**
   * @param inner runs every request no reactor handles
   * @param hooks the server behind `inner`; without them {@link seed}, {@link compact} and
   *   {@link resourceVersion} throw
   */
  constructor(
    private readonly inner: Transport,
    private readonly hooks?: FakeServerHooks,
  ) {}

  /**
   * Puts `fn` first in the reaction chain for `verb` on `resource` (`'*'` for any; `'pods/status'`
   * matches only that subresource, `'pods'` any request on pods). Reactors run synchronously when the
   * request is made; the first that returns `handled: true` answers it and the server never sees it.
   */
  prependReactor(verb: Verb | '*', resource: string, fn: ReactionFunc): void {
    this.reactors.unshift({ verb, resource, fn });
  }

  /** Empties {@link actions}. */
  clearActions(): void {
    this.actions.length = 0;
  }

  /**
   * Stores objects in the server exactly as given (status, spec.nodeName, ownerReferences,
   * deletionTimestamp… are kept), as a restore would, and resolves once reads and watches see them;
   * watchers get them as ADDED (or MODIFIED when replacing). `src/testing` documents what is filled in.
   */
  seed(objects: readonly SeedObject[]): Promise<void> {
    return this.server('seed').seed(objects);
  }

  /** Forgets the server's change history: watches and continue tokens from any resourceVersion before now get 410 Expired. */
  compact(): Promise<void> {
    return this.server('compact').compact();
  }

  /** The server's current (newest) resourceVersion. */
  resourceVersion(): string {
    return this.server('resourceVersion').resourceVersion();
  }

  /**
   * Ends every running watch as a dropped connection or a server timeout would: no more events, then
   * `onClose(err)` on a microtask (`err` undefined: a normal end).
   */
  closeWatches(err?: unknown): void {
    for (const w of [...this.watches]) this.end(w, err, true);
  }

  /** Number of running watches (started, not yet ended by either side). */
  activeWatches(): number {
    return this.watches.size;
  }

  request(req: RestRequest): Promise<unknown> {
    this.actions.push(req);
    let reaction: ReactionResult | undefined;
    try {
      reaction = this.react(req);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    if (!reaction) return this.inner.request(req);
    if (reaction.error !== undefined) return Promise.reject(reaction.error as Error);
    return Promise.resolve(reaction.result);
  }

  /**
   * Starts a watch on the inner transport. A reactor that handles a watch ends it with its `error`
   * (or an Error saying a reactor answered it) before any event.
   */
  watch(req: RestRequest, onEvent: (ev: WatchEvent) => void, onClose: (err?: unknown) => void): WatchStream {
    this.actions.push(req);
    const w: FakeWatch = { onClose, ended: false };
    this.watches.add(w);
    const stop = (): void => this.end(w, undefined, false);
    let reaction: ReactionResult | undefined;
    try {
      reaction = this.react(req);
    } catch (err) {
      reaction = { handled: true, error: err };
    }
    if (reaction) {
      this.end(w, reaction.error ?? new Error('watch handled by a reactor without an error'), true);
      return { stop };
    }
    w.stream = this.inner.watch(
      req,
      (ev) => {
        if (!w.ended) onEvent(ev);
      },
      (err) => this.end(w, err, false),
    );
    // The inner watch may have ended before it returned (the contract allows an onClose that soon).
    if (w.ended) w.stream.stop();
    return { stop };
  }

  /** The hooks, or an error naming what needs them. */
  private server(what: string): FakeServerHooks {
    if (!this.hooks) throw new Error(`FakeTransport.${what} needs a server behind the transport (src/testing newFakeTransport)`);
    return this.hooks;
  }

  private react(req: RestRequest): ReactionResult | undefined {
    const withSub = req.subresource ? `${req.resource}/${req.subresource}` : req.resource;
    for (const r of this.reactors) {
      if (r.verb !== '*' && r.verb !== req.verb) continue;
      if (r.resource !== '*' && r.resource !== req.resource && r.resource !== withSub) continue;
      const result = r.fn(req);
      if (result.handled) return result;
    }
    return undefined;
  }

  /**
   * Ends a watch once: no event is delivered after this, the inner watch is stopped (its own onClose
   * is then ignored), and `onClose(err)` runs now or, for `deferred`, on a microtask.
   */
  private end(w: FakeWatch, err: unknown, deferred: boolean): void {
    if (w.ended) return;
    w.ended = true;
    this.watches.delete(w);
    w.stream?.stop();
    if (deferred) queueMicrotask(() => w.onClose(err));
    else w.onClose(err);
  }
}
