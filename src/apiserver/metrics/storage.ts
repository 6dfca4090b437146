/**
 * The API server's storage metrics, with upstream's names, labels, help texts and buckets
 * (k8s.io/apiserver/pkg/storage/etcd3/metrics/metrics.go, v1.33):
 *
 * - `etcd_request_duration_seconds{operation, type}`, `etcd_requests_total{operation, type}` and
 *   `etcd_request_errors_total{operation, type}`: every call a resource's store makes to the storage
 *   Backend ({@link instrumentBackend}), labelled as etcd3/store.go labels its etcd calls — `type` is
 *   the group-resource (`pods`, `deployments.apps`), `operation` is `get`, `list` (a prefix),
 *   `create`, `update` or `delete`, and `listWithCount` for a count, whose `type` upstream sets to the
 *   key prefix. A `KeyNotFound`, `KeyExists` or `Conflict` answer is not an error: etcd answers those
 *   with a failed transaction or an empty range, not an error. The cache's one storage watch (shared
 *   by every resource) is not counted, as upstream's watches are not.
 * - `apiserver_storage_objects{resource}`: objects per stored resource (`pods`, `deployments.apps`,
 *   `<plural>.<group>` for custom resources). Upstream counts each resource in etcd once a minute; here
 *   the count is the watch cache's at scrape time, which holds every stored object.
 * - `apiserver_storage_size_bytes{storage_cluster_id}`: the size of the database file, for a backend
 *   that has one (SQLite); `storage_cluster_id` is upstream's `etcd-<i>`.
 */
import type { Backend, KeyValue, ListOptions, ListResult } from '../../storage/interface.js';
import { StorageError } from '../../storage/interface.js';
import { ForwardingBackend } from '../../storage/forwarding.js';
import type { Clock } from '../../util/clock/index.js';
import { CounterVec, GaugeVec, HistogramVec, LiveSet, type CounterChild, type HistogramChild } from '../../util/metrics/index.js';
import { REQUEST_DURATION_BUCKETS } from './requests.js';

/** metrics.go `etcdRequestLatency`: the same buckets as apiserver_request_duration_seconds. */
export const etcdRequestDuration = new HistogramVec({
  name: 'etcd_request_duration_seconds',
  help: 'Etcd request latency in seconds for each operation and object type.',
  stabilityLevel: 'ALPHA',
  labelNames: ['operation', 'type'] as const,
  buckets: REQUEST_DURATION_BUCKETS,
});

/** metrics.go `etcdRequestCounts`. */
export const etcdRequestsTotal = new CounterVec({
  name: 'etcd_requests_total',
  help: 'Etcd request counts for each operation and object type.',
  stabilityLevel: 'ALPHA',
  labelNames: ['operation', 'type'] as const,
});

/** metrics.go `etcdRequestErrorCounts`. */
export const etcdRequestErrorsTotal = new CounterVec({
  name: 'etcd_request_errors_total',
  help: 'Etcd failed request counts for each operation and object type.',
  stabilityLevel: 'ALPHA',
  labelNames: ['operation', 'type'] as const,
});

/** What the storage gauges read from a running API server. */
export interface StorageGauges {
  /** Objects per stored resource, by its group-resource string. */
  storageObjectCounts(): Iterable<readonly [resource: string, count: number]>;
  /** The size of the storage's database file, if it has one. */
  storageSizeBytes(): number | undefined;
}

/** The running API servers. */
export const liveServers = new LiveSet<StorageGauges>();

/** metrics.go `objectCounts`. Several servers in one process add up. */
export const storageObjects = new GaugeVec({
  name: 'apiserver_storage_objects',
  help: 'Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
  stabilityLevel: 'STABLE',
  labelNames: ['resource'] as const,
  collect: (g) => {
    for (const server of liveServers) for (const [resource, n] of server.storageObjectCounts()) g.with(resource).inc(n);
  },
});

/** metrics.go `storageSizeDescription`, one series per server (`etcd-0`, `etcd-1` …), as upstream's monitors. */
export const storageSizeBytes = new GaugeVec({
  name: 'apiserver_storage_size_bytes',
  help: 'Size of the storage database file physically allocated in bytes.',
  stabilityLevel: 'STABLE',
  labelNames: ['storage_cluster_id'] as const,
  collect: (g) => {
    let i = 0;
    for (const server of liveServers) {
      const size = server.storageSizeBytes();
      if (size !== undefined) g.with(`etcd-${i}`).set(size);
      i++;
    }
  },
});

/** etcd3/store.go `groupResourceString`: `deployments.apps`, or the bare resource for the core group. */
export function groupResourceString(gr: { group: string; resource: string }): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

/** The children of one `operation` and `type`, made at the first call (as upstream's series appear). */
class Operation {
  private children: { duration: HistogramChild; total: CounterChild } | undefined;
  private errors: CounterChild | undefined;

  constructor(
    private readonly operation: string,
    private readonly type: string,
  ) {}

  /** `RecordEtcdRequest`. */
  record(start: number, now: number, failed: boolean): void {
    const c = (this.children ??= { duration: etcdRequestDuration.with(this.operation, this.type), total: etcdRequestsTotal.with(this.operation, this.type) });
    c.duration.observe((now - start) / 1000);
    c.total.inc();
    if (failed) (this.errors ??= etcdRequestErrorsTotal.with(this.operation, this.type)).inc();
  }
}

/** A storage answer that etcd gives without an error (a failed transaction, an empty range). */
function isError(err: unknown): boolean {
  return !(err instanceof StorageError) || !(err.code === 'KeyNotFound' || err.code === 'KeyExists' || err.code === 'Conflict');
}

/** A Backend that times and counts the calls of one resource's store (see the module comment). */
class InstrumentedBackend extends ForwardingBackend {
  private readonly getOp: Operation;
  private readonly listOp: Operation;
  private readonly createOp: Operation;
  private readonly updateOp: Operation;
  private readonly deleteOp: Operation;
  private readonly countOps = new Map<string, Operation>();

  constructor(
    inner: Backend,
    private readonly clock: Clock,
    type: string,
  ) {
    super(inner);
    this.getOp = new Operation('get', type);
    this.listOp = new Operation('list', type);
    this.createOp = new Operation('create', type);
    this.updateOp = new Operation('update', type);
    this.deleteOp = new Operation('delete', type);
  }

  private track<R>(op: Operation, call: () => Promise<R>): Promise<R> {
    const start = this.clock.monotonic();
    let p: Promise<R>;
    try {
      p = call();
    } catch (err) {
      op.record(start, this.clock.monotonic(), isError(err));
      throw err;
    }
    return p.then(
      (r) => {
        op.record(start, this.clock.monotonic(), false);
        return r;
      },
      (err: unknown) => {
        op.record(start, this.clock.monotonic(), isError(err));
        throw err;
      },
    );
  }

  override get(key: string): Promise<KeyValue | undefined> {
    return this.track(this.getOp, () => this.inner.get(key));
  }

  override list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    return this.track(this.listOp, () => this.inner.list(prefix, opts));
  }

  override count(prefix: string): Promise<number> {
    // Upstream labels a count with the key prefix it counts (store.go `Count`).
    let op = this.countOps.get(prefix);
    if (!op) {
      op = new Operation('listWithCount', prefix);
      this.countOps.set(prefix, op);
    }
    return this.track(op, () => this.inner.count(prefix));
  }

  override create(key: string, value: string): Promise<KeyValue> {
    return this.track(this.createOp, () => this.inner.create(key, value));
  }

  override update(key: string, value: string, expectedRevision: number): Promise<KeyValue> {
    return this.track(this.updateOp, () => this.inner.update(key, value, expectedRevision));
  }

  override delete(key: string, expectedRevision: number): Promise<KeyValue> {
    return this.track(this.deleteOp, () => this.inner.delete(key, expectedRevision));
  }

}

/**
 * `backend` as one resource's store sees it: every call timed and counted under `type` (the
 * group-resource string, see {@link groupResourceString}), with durations read from `clock`.
 */
export function instrumentBackend(backend: Backend, type: string, clock: Clock): Backend {
  return new InstrumentedBackend(backend, clock, type);
}
