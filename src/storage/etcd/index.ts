/**
 * The etcd v3 {@link Backend}: the store Kubernetes itself runs on, for clusters that outgrow one
 * machine or share their state between several API servers. etcd's own revisions are the
 * resourceVersions, one call per method as upstream's `k8s.io/apiserver/pkg/storage/etcd3/store.go`
 * makes them:
 *
 * - create: `txn(mod_revision(key) == 0 → put)`; update: `txn(version(key) > 0 ∧ mod_revision(key) ==
 *   rev → put with prev_kv)`; delete: the same compare, then `delete with prev_kv`. A failed compare
 *   reads the key in the same txn, for `KeyExists`/`KeyNotFound`/`Conflict` with the current version.
 * - get/list/count: `range`, at a revision and with a limit for pages (etcd counts what is left).
 * - watch: one gRPC watch stream per watch, see ./watch.ts.
 * - compact: etcd's compaction at the revision. History at or below it is gone in this process's
 *   view; etcd itself still serves a read at exactly that revision, which no caller here asks for.
 *
 * A write whose connection broke after etcd applied it is retried by the client (etcd3's retry
 * policy); its compare then fails against its own result. When the key then holds exactly the value
 * the write sent, the write is taken as done rather than reported as a conflict — Kubernetes objects
 * carry their uid, so equal bytes are this write's (or a write with the same outcome).
 *
 * What this process knows of the store (its current and compacted revisions) lags other clients: see
 * ADR 20 for how consistent reads ask the store instead.
 */

import { ExponentialBackoff, handleWhen, noop, retry } from 'cockatiel';
import { Etcd3, isRecoverableError } from 'etcd3';
import type { ICompare, IKeyValue, IResponseHeader, ITxnRequest, ITxnResponse } from 'etcd3';
import { realClock } from '../../util/clock/index.js';
import type { Clock } from '../../util/clock/index.js';
import { isStorageError } from '../interface.js';
import type { Backend, KeyValue, ListOptions, ListResult, WatchEvent, WatchHandle, WatchOptions } from '../interface.js';
import { checkWatchStart, closedError, compacted, conflict, futureRevision, keyExists, keyNotFound } from '../internal/errors.js';
import { listStart } from '../internal/keys.js';
import { bytes, internalError, isCompactedError, isFutureRevisionError, rangeEnd, toKeyValue } from './codec.js';
import { EtcdWatch } from './watch.js';
import { WriteOrder } from './write-order.js';

/** How to reach etcd; the flags of `kube-apiserver` that set each are named. */
export interface EtcdBackendOptions {
  /** Client URLs of the members (`--etcd-servers`), `http://host:port` or `https://host:port`. */
  servers: string[];
  /**
   * Prepended to every key in etcd (default none: the API server's keys already start with
   * `/registry/`, upstream's default `--etcd-prefix`).
   */
  prefix?: string;
  /** TLS (`--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`), PEM contents. */
  tls?: { ca?: Buffer; cert?: Buffer; key?: Buffer };
  /** Times watch reconnects and progress retries (default the real clock). */
  clock?: Clock;
  /** How long each call to etcd may take before it fails with `Internal`, in milliseconds (default 30,000). */
  requestTimeoutMs?: number;
}

/** Default for {@link EtcdBackendOptions.requestTimeoutMs}: what kube-apiserver's `--request-timeout` defaults to (60 s) halved, so the API answers first. */
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** Attempts of a call that fails because its member is unreachable (see the client's `faultHandling`). */
const RETRY_ATTEMPTS = 20;

/** The etcd backend (see the module comment). Open it with {@link EtcdBackend.open}. */
export class EtcdBackend implements Backend {
  private readonly client: Etcd3;
  private readonly prefix: string;
  private readonly prefixBytes: Buffer;
  private readonly clock: Clock;
  private readonly order = new WriteOrder();
  private readonly watches = new Set<EtcdWatch>();
  private observed = 0;
  private compacted = 0;
  private closed = false;
  private closing: Promise<void> | undefined;
  private fetching: Promise<number> | undefined;
  private queuedFetch: Promise<number> | undefined;
  private lastSize: number | undefined;
  private progressRequestsOrdered = false;

  private constructor(opts: EtcdBackendOptions) {
    this.prefix = opts.prefix ?? '';
    this.prefixBytes = bytes(this.prefix);
    this.clock = opts.clock ?? realClock;
    const timeout = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const tls = opts.tls;
    this.client = new Etcd3({
      hosts: opts.servers,
      credentials: tls?.ca ? { rootCertificate: tls.ca, privateKey: tls.key, certChain: tls.cert } : undefined,
      // Streams (watches) must not time out; unary calls get the deadline, a wall-clock instant for
      // gRPC whatever clock times the rest.
      defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: realClock.now() + timeout }),
      // A member that went away, one whose connection is still being re-established after it came
      // back, and one without a leader while the others elect one, fail a call at once (UNAVAILABLE);
      // the call is tried again on the next member, with a pause of 50 ms growing to 1 s (jittered),
      // for 20 attempts: about ten seconds, enough for a three-member cluster to elect a new leader and
      // its clients to reconnect while one member is down. etcd3's default is 3 attempts with no
      // pause; 10 attempts from 20 ms ran out in 0.7 s under the test suite's load.
      // etcd3's per-member circuit breaker is off: it opened on the "no leader" answers of an election
      // too, shut out for 5 s a member that had just come back, and with every member's open, failed
      // calls at once without a retry.
      faultHandling: {
        global: retry(handleWhen(isRecoverableError), { maxAttempts: RETRY_ATTEMPTS, backoff: new ExponentialBackoff({ initialDelay: 50, maxDelay: 1_000 }) }),
        host: () => noop,
      },
      grpcOptions: { 'grpc.initial_reconnect_backoff_ms': 100, 'grpc.max_reconnect_backoff_ms': 1_000 },
    });
  }

  /**
   * Connects to etcd and learns its current and compacted revisions.
   * @throws StorageError `Internal` when no member answers
   */
  static async open(opts: EtcdBackendOptions): Promise<EtcdBackend> {
    const backend = new EtcdBackend(opts);
    try {
      await backend.fetchCurrentRevision();
      await backend.learnCompactedRevision();
      const status = await backend.client.maintenance.status();
      backend.progressRequestsOrdered = progressRequestsOrdered(status.version);
    } catch (err) {
      backend.client.close();
      throw internalError('', err);
    }
    return backend;
  }

  currentRevision(): number {
    return this.observed;
  }

  /**
   * A linearizable range of one key, for its header revision. A fetch already in flight may have been
   * answered before the caller's own write, so a call made during one waits for the next; the calls
   * made meanwhile share that one.
   */
  fetchCurrentRevision(): Promise<number> {
    if (this.closed) return Promise.reject(closedError(''));
    if (!this.fetching) return this.startFetch();
    this.queuedFetch ??= this.fetching
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        this.queuedFetch = undefined;
        return this.startFetch();
      });
    return this.queuedFetch;
  }

  compactedRevision(): number {
    return this.compacted;
  }

  async get(key: string): Promise<KeyValue | undefined> {
    this.assertOpen(key);
    const res = await this.call(key, () => this.client.kv.range({ key: this.etcdKey(key) }));
    const kv = res.kvs[0];
    return kv && this.toKv(kv);
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    this.assertOpen(prefix);
    const revision = opts.revision ?? 0;
    if (revision > 0 && revision <= this.compacted) throw compacted(prefix, this.compacted);
    const { key, rangeEnd: end } = this.rangeOf(prefix);
    const start = opts.startAfter !== undefined ? this.etcdKey(listStart(prefix, opts.startAfter)) : key;
    const limit = opts.limit ?? 0;
    const res = await this.call(prefix, () => this.client.kv.range({ key: start, range_end: end, revision, limit }), revision);
    const kvs = res.kvs.map((kv) => this.toKv(kv));
    const remaining = Number(res.count) - kvs.length;
    return { kvs, revision: revision || Number(res.header.revision), more: res.more, remaining: res.more ? remaining : 0 };
  }

  async count(prefix: string): Promise<number> {
    this.assertOpen(prefix);
    const { key, rangeEnd: end } = this.rangeOf(prefix);
    const res = await this.call(prefix, () => this.client.kv.range({ key, range_end: end, count_only: true }));
    return Number(res.count);
  }

  async create(key: string, value: string): Promise<KeyValue> {
    this.assertOpen(key);
    const k = this.etcdKey(key);
    const res = await this.write(key, {
      compare: [{ target: 'Mod', result: 'Equal', key: k, mod_revision: 0 }],
      success: [{ request_put: { key: k, value: bytes(value) } }],
      failure: [{ request_range: { key: k } }],
    });
    const revision = Number(res.header.revision);
    if (res.succeeded) return Object.freeze({ key, value, createRevision: revision, modRevision: revision });
    const current = this.currentOf(res);
    if (current && current.value === value && current.createRevision === current.modRevision) return current;
    throw keyExists(key);
  }

  async update(key: string, value: string, expectedRevision: number): Promise<KeyValue> {
    this.assertOpen(key);
    const k = this.etcdKey(key);
    const res = await this.write(key, {
      compare: [
        { target: 'Version', result: 'Greater', key: k, version: 0 },
        { target: 'Mod', result: 'Equal', key: k, mod_revision: expectedRevision },
      ],
      success: [{ request_put: { key: k, value: bytes(value), prev_kv: true } }],
      failure: [{ request_range: { key: k } }],
    });
    if (res.succeeded) {
      const prev = res.responses[0]?.response_put.prev_kv as IKeyValue;
      return Object.freeze({ key, value, createRevision: Number(prev.create_revision), modRevision: Number(res.header.revision) });
    }
    const current = this.currentOf(res);
    if (!current) throw keyNotFound(key);
    if (current.value === value && current.modRevision > expectedRevision) return current;
    throw conflict(key, expectedRevision, current);
  }

  async delete(key: string, expectedRevision: number): Promise<KeyValue> {
    this.assertOpen(key);
    const k = this.etcdKey(key);
    const compare: ICompare[] = [{ target: 'Version', result: 'Greater', key: k, version: 0 }];
    if (expectedRevision) compare.push({ target: 'Mod', result: 'Equal', key: k, mod_revision: expectedRevision });
    const res = await this.write(key, {
      compare,
      success: [{ request_delete_range: { key: k, prev_kv: true } }],
      failure: [{ request_range: { key: k } }],
    });
    if (res.succeeded) {
      const prev = res.responses[0]?.response_delete_range.prev_kvs[0] as IKeyValue;
      return Object.freeze({ ...this.toKv(prev), modRevision: Number(res.header.revision) });
    }
    const current = this.currentOf(res);
    if (!current) throw keyNotFound(key);
    throw conflict(key, expectedRevision, current);
  }

  watch(prefix: string, fromRevision: number, handler: (events: WatchEvent[]) => void, opts: WatchOptions = {}): WatchHandle {
    this.assertOpen(prefix);
    checkWatchStart(prefix, fromRevision, this.compacted, this.observed);
    const w = new EtcdWatch(
      this.rangeOf(prefix),
      prefix,
      fromRevision,
      handler,
      {
        onProgress: opts.onProgress,
        onError: (err) => {
          this.watches.delete(w);
          opts.onError?.(err);
        },
      },
      {
        openStream: () => this.client.watchClient.watch(),
        order: this.order,
        observe: (revision) => this.observe(revision),
        clock: this.clock,
        prefixLength: this.prefixBytes.length,
        progressRequestsOrdered: this.progressRequestsOrdered,
      },
    );
    this.watches.add(w);
    return {
      stop: () => {
        this.watches.delete(w);
        w.stop();
      },
      requestProgress: () => w.requestProgress(),
    };
  }

  /**
   * Compacts etcd at `revision` (not physically: etcd's compaction returns once it is recorded). A
   * revision at or below the known compacted one does nothing; one beyond the store's current
   * revision throws `FutureRevision`; one another client compacted past meanwhile is taken as done.
   */
  async compact(revision: number): Promise<void> {
    this.assertOpen('');
    if (revision <= this.compacted) return;
    if (revision > this.observed) await this.fetchCurrentRevision();
    if (revision > this.observed) throw futureRevision('', revision, this.observed);
    try {
      await this.call('', () => this.client.kv.compact({ revision }));
    } catch (err) {
      // Another API server compacted at or past it: nothing left to do.
      if (!isStorageError(err, 'Compacted')) throw err;
    }
    this.compacted = Math.max(this.compacted, revision);
  }

  /** etcd has made every answered write durable; this waits for the writes still unanswered. */
  async flush(): Promise<void> {
    await this.order.whenAllAnswered();
  }

  /** Waits for unanswered writes, stops every watch and closes the connections. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      await this.order.whenAllAnswered();
      for (const w of this.watches) w.stop();
      this.watches.clear();
      this.client.close();
    })();
    return this.closing;
  }

  /**
   * The database size the last status call reported (etcd's `dbSize`, what `apiserver_storage_size_bytes`
   * shows upstream), and asks for a fresh one: answering synchronously, it lags one call behind.
   */
  sizeBytes(): number | undefined {
    if (this.closed) return undefined;
    this.client.maintenance
      .status()
      .then((s) => (this.lastSize = Number(s.dbSize)))
      .catch(() => undefined);
    return this.lastSize;
  }

  private startFetch(): Promise<number> {
    const p = this.call('', () => this.client.kv.range({ key: this.prefixBytes.length > 0 ? this.prefixBytes : bytes('/'), count_only: true })).then(
      (res) => Number(res.header.revision),
    );
    const settled = p.finally(() => {
      if (this.fetching === settled) this.fetching = undefined;
    });
    this.fetching = settled;
    return settled;
  }

  /**
   * Learns the compacted revision from etcd, which tells a client only whether a read at a revision is
   * compacted, not where compaction stands: a binary search for the oldest revision a range can read
   * (etcd still reads at its compacted revision itself), about log2(current revision) calls —
   * 24 for a store at revision 10 million. Revision 1 readable means never compacted: 0.
   */
  private async learnCompactedRevision(): Promise<void> {
    const readable = async (revision: number): Promise<boolean> => {
      try {
        await this.client.kv.range({ key: this.prefixBytes.length > 0 ? this.prefixBytes : bytes('/'), revision, count_only: true });
        return true;
      } catch (err) {
        if (isCompactedError(err)) return false;
        throw err;
      }
    };
    let high = Math.max(this.observed, 1);
    if (await readable(1)) return;
    // Invariant: `low` is compacted away, `high` is readable (the current revision always is).
    let low = 1;
    while (high - low > 1) {
      const mid = Math.floor((low + high) / 2);
      if (await readable(mid)) high = mid;
      else low = mid;
    }
    this.compacted = Math.max(this.compacted, high);
  }

  /** Runs a write txn as one of this backend's writes (see ./write-order.ts). */
  private async write(key: string, txn: ITxnRequest): Promise<ITxnResponse> {
    const seq = this.order.begin();
    try {
      return await this.call(key, () => this.client.kv.txn(txn));
    } finally {
      this.order.end(seq);
    }
  }

  /**
   * Runs one call to etcd: raises the known revision from its header, maps etcd's errors to
   * StorageError (`revision`: the revision a range asked for, for FutureRevision/Compacted).
   */
  private async call<T extends { header: IResponseHeader }>(key: string, fn: () => Promise<T>, revision = 0): Promise<T> {
    let res: T;
    try {
      res = await fn();
    } catch (err) {
      if (this.closed) throw closedError(key);
      if (isCompactedError(err)) {
        // Another client compacted: learn where, for the error and later checks.
        await this.learnCompactedRevision().catch(() => undefined);
        throw compacted(key, this.compacted);
      }
      if (isFutureRevisionError(err)) {
        const current = await this.fetchCurrentRevision().catch(() => this.observed);
        throw futureRevision(key, revision, current);
      }
      throw internalError(key, err);
    }
    this.observe(Number(res.header.revision));
    return res;
  }

  private observe(revision: number): void {
    if (revision > this.observed) this.observed = revision;
  }

  private currentOf(res: ITxnResponse): KeyValue | undefined {
    const kv = res.responses[0]?.response_range.kvs[0];
    return kv && this.toKv(kv);
  }

  private toKv(kv: IKeyValue): KeyValue {
    return toKeyValue(kv, this.prefixBytes.length);
  }

  private etcdKey(key: string): Buffer {
    return bytes(this.prefix + key);
  }

  /** The etcd range of the keys under `prefix`. */
  private rangeOf(prefix: string): { key: Buffer; rangeEnd: Buffer } {
    const key = this.etcdKey(prefix);
    // The empty key is not a valid etcd start key: "\0" (the lowest key) is.
    return { key: key.length > 0 ? key : Buffer.from([0]), rangeEnd: rangeEnd(key) };
  }

  private assertOpen(key: string): void {
    if (this.closed) throw closedError(key);
  }
}

/**
 * True for etcd versions that answer a watch progress request only after the events queued before it:
 * 3.4.31 and later 3.4s, 3.5.13 and later 3.5s, and 3.6 on (etcd-io/etcd#15220, fixed by #15237 and
 * #17557 with their backports; the versions Kubernetes requires for consistent reads from cache). `version` is what the Status call reports, e.g. `3.4.23`.
 */
export function progressRequestsOrdered(version: string): boolean {
  const [major = 0, minor = 0, patch = 0] = version.split('.').map((p) => Number.parseInt(p, 10) || 0);
  if (major !== 3) return major > 3;
  if (minor === 4) return patch >= 31;
  if (minor === 5) return patch >= 13;
  return minor > 5;
}
