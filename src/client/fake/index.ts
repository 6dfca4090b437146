/**
 * A {@link Transport} for tests, in the manner of client-go's `testing.Fake` (k8s.io/client-go/testing/
 * fake.go): it records every request in {@link FakeTransport.actions}, lets tests inject faults with
 * {@link FakeTransport.prependReactor} and {@link FakeTransport.closeWatches}, and hands every other
 * request to an inner Transport unchanged.
 *
 * It imitates no server behaviour. The inner transport is the real API server's in-process transport
 * on memory storage (`src/testing` builds it: `newFakeTransport`), so a controller's unit test sees
 * the same defaulting, validation, admission, graceful deletion, subresources, watch and pagination as
 * in production (DESIGN.md: the test fake must agree with the real server; src/testing's conformance
 * test checks it). Where client-go's fake keeps objects in its own `ObjectTracker` (testing/fixture.go),
 * this one has the server's storage: {@link FakeTransport.seed} is the tracker's `Add`. This module
 * cannot build that server itself: `client` is below `apiserver` and `storage` in the layers, so what
 * it needs of the server beyond the Transport (seeding, compaction, the current revision) comes in as
 * {@link FakeServerHooks}.
 *
 * What a test sees is what a client of a real server sees, e.g. a create resets status (seed objects
 * that need one), a bound pod's delete leaves it terminating until it is deleted with
 * `gracePeriodSeconds: 0`, writes reach watches and informers asynchronously (`flushAsync`), and
 * watch bookmarks come every 60 s of the server's clock (step the FakeClock; there is no
 * `sendBookmarks`).
 */
import type { ObjectMeta } from '../../api/index.js';
import type { RestRequest, Transport, Verb, WatchEvent, WatchStream } from '../../api/request.js';

/**
 * What a reactor decides (client-go `ReactionFunc`'s `handled, ret, err`): `handled: false` passes the
 * request on; otherwise the request rejects with `error` when it is set, else resolves to `result`.
 */
export interface ReactionResult {
  handled: boolean;
  result?: unknown;
  error?: Error;
}

/** A fault-injection hook (client-go testing.ReactionFunc); it gets the request as the caller sent it and must not change it. */
export type ReactionFunc = (req: RestRequest) => ReactionResult;

/**
 * Any API object (typed ones such as Pod included): `apiVersion` (default `v1`) and `kind` select the
 * resource; `metadata.name` (and `metadata.namespace` for namespaced kinds) its key.
 */
export interface SeedObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/** What {@link FakeTransport} needs of the server behind its inner transport, besides requests (src/testing implements it). */
export interface FakeServerHooks {
  /** Puts objects into the server's storage as they are and resolves once its caches hold them (see {@link FakeTransport.seed}). */
  seed(objects: readonly SeedObject[]): Promise<void>;
  /** Compacts the server's storage and watch caches up to its current revision. */
  compact(): Promise<void>;
  /** The server's current (newest) storage revision, as a resourceVersion string, e.g. `'42'`. */
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
  /**
   * Every request, in the order made (watches and requests answered by reactors included), as the
   * caller sent it: `{verb, group, version, resource, namespace?, name?, subresource?, query?, body?,
   * patchType?}` (client-go `Fake.Actions()`). Append-only until {@link clearActions}.
   */
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
   * Puts `fn` first in the reaction chain for `verb` on `resource` (client-go `Fake.PrependReactor`):
   * `'*'` matches any verb or resource; `'pods/status'` only that subresource, `'pods'` any request on
   * pods, subresources included. Reactors run synchronously when the request is made, newest first;
   * the first that returns `handled: true` answers it and the server never sees it. A reactor that
   * throws rejects the request (or ends the watch) with what it threw.
   */
  prependReactor(verb: Verb | '*', resource: string, fn: ReactionFunc): void {
    this.reactors.unshift({ verb, resource, fn });
  }

  /** Empties {@link actions} (client-go `Fake.ClearActions`). */
  clearActions(): void {
    this.actions.length = 0;
  }

  /**
   * Stores objects in the server exactly as given (status, spec.nodeName, ownerReferences,
   * deletionTimestamp… are kept: not validated, not admitted), as a restore would, creating their
   * namespaces; resolves once reads and watches see them; watchers get them as ADDED (MODIFIED when
   * one replaces an object of the same key). Absent uid, creationTimestamp, generation and defaults
   * are filled in (src/testing's module comment). The counterpart of client-go's `ObjectTracker.Add`
   * (testing/fixture.go).
   * @throws Error (the promise rejects) for a kind the server does not serve, an object without
   *   metadata.name, or a namespaced one without metadata.namespace; an Error at once without hooks
   */
  seed(objects: readonly SeedObject[]): Promise<void> {
    return this.server('seed').seed(objects);
  }

  /**
   * Forgets the server's change history up to now (storage and watch caches, as its compactor does
   * every 5 minutes): watches from an older resourceVersion, continue tokens and exact lists of one get
   * 410 Expired.
   * @throws Error at once without hooks
   */
  compact(): Promise<void> {
    return this.server('compact').compact();
  }

  /**
   * The server's current (newest) resourceVersion, e.g. `'42'`.
   * @throws Error without hooks
   */
  resourceVersion(): string {
    return this.server('resourceVersion').resourceVersion();
  }

  /**
   * Ends every running watch as a dropped connection (`err` set) or a server-side timeout (`err`
   * undefined) would: no more events are delivered, the server's watch is stopped, then `onClose(err)`
   * runs on a microtask. Like client-go's `FakeControllerSource.ResetWatch`
   * (tools/cache/testing/fake_controller_source.go); the server keeps running.
   */
  closeWatches(err?: unknown): void {
    for (const w of [...this.watches]) this.end(w, err, true);
  }

  /** Number of running watches: started through this transport and not yet ended by either side. */
  activeWatches(): number {
    return this.watches.size;
  }

  /** Records `req`, runs the reactors (synchronously: an async function runs until its first await), else the inner transport. */
  async request(req: RestRequest): Promise<unknown> {
    this.actions.push(req);
    const reaction = this.react(req);
    if (!reaction) return this.inner.request(req);
    if (reaction.error !== undefined) throw reaction.error;
    return reaction.result;
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
      this.end(w, err, true);
      return { stop };
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
