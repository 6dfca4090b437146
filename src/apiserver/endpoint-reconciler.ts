/**
 * The `kubernetes` Service's Endpoints list every live API server: upstream's lease endpoint reconciler
 * (k8s.io/kubernetes pkg/controlplane/reconcilers/lease.go, `--endpoint-reconciler-type=lease`, the
 * default). Each API server keeps a lease key `/registry/masterleases/<ip>:<port>` in storage, renewed
 * every {@link RECONCILE_INTERVAL_MS}, and rewrites `default/kubernetes` Endpoints from the keys not
 * older than {@link LEASE_TTL_MS}; an expired key is deleted by whichever API server sees it first.
 * Upstream keys by IP only, with etcd's own TTL on the key and one port for every API server; here
 * API servers may share an address and differ by port, so the key holds both and the Endpoints get one
 * subset per port, and expiry is the renew time in the value (the Backend has no TTL). A server that
 * stops removes its key and reconciles once more (upstream `RemoveEndpoints`).
 */
import type { Endpoints, EndpointSubset } from '../api/index.js';
import type { Transport } from '../api/request.js';
import { isAlreadyExists, isNotFound } from '../machinery/errors/index.js';
import type { Backend, KeyValue } from '../storage/interface.js';
import type { Clock, Timer } from '../util/clock/index.js';
import { handleError, type Logger } from '../util/runtime/index.js';

/** Where the lease keys live (upstream's `/masterleases/` under the registry prefix). */
export const MASTER_LEASES_PREFIX = '/registry/masterleases/';
/** How long a lease key counts after its renewal (upstream `--master-endpoint-reconciler-ttl`, 15 s). */
export const LEASE_TTL_MS = 15_000;
/** How often an API server renews its key and reconciles (upstream's endpoint interval, 10 s). */
export const RECONCILE_INTERVAL_MS = 10_000;

/** One API server's lease key value. */
interface MasterLease {
  ip: string;
  port: number;
  /** When it was last renewed, ms since the epoch on the writer's clock. */
  renewTime: number;
}

/** Options of {@link LeaseEndpointReconciler}. */
export interface LeaseEndpointReconcilerOptions {
  backend: Backend;
  /** The API server's in-process transport, for the Endpoints object. */
  transport: Transport;
  clock: Clock;
  /** The address and port this API server serves on. */
  ip: string;
  port: number;
  logger: Logger;
}

/** The `default/kubernetes` Endpoints, as requests address it. */
const ENDPOINTS = { group: '', version: 'v1', resource: 'endpoints', namespace: 'default' } as const;
const NAME = 'kubernetes';

/** Keeps this API server's lease key and the `kubernetes` Endpoints (see the module comment). */
export class LeaseEndpointReconciler {
  private timer: Timer | undefined;
  private stopped = false;
  private readonly key: string;

  constructor(private readonly opts: LeaseEndpointReconcilerOptions) {
    this.key = `${MASTER_LEASES_PREFIX}${opts.ip}:${opts.port}`;
  }

  /** Reconciles now and every {@link RECONCILE_INTERVAL_MS}; failures are logged and retried then. */
  start(): void {
    const tick = (): void => {
      if (this.stopped) return;
      this.reconcile()
        .catch((err: unknown) => handleError(err, { component: 'endpoint-reconciler', logger: this.opts.logger, msg: 'Unable to reconcile the kubernetes endpoints' }))
        .finally(() => {
          if (!this.stopped) this.timer = this.opts.clock.setTimer(RECONCILE_INTERVAL_MS, tick);
        });
    };
    tick();
  }

  /** Stops renewing, removes this server's key and rewrites the Endpoints without it. Never throws. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.stop();
    try {
      const own = await this.opts.backend.get(this.key);
      if (own) await this.opts.backend.delete(this.key, own.modRevision);
      await this.writeEndpoints(await this.liveLeases());
    } catch (err) {
      handleError(err, { component: 'endpoint-reconciler', logger: this.opts.logger, msg: 'Unable to remove this API server from the kubernetes endpoints' });
    }
  }

  /** Renews this server's key, drops expired ones, and makes the Endpoints list the live servers. */
  async reconcile(): Promise<void> {
    await this.renew();
    await this.writeEndpoints(await this.liveLeases());
  }

  private async renew(): Promise<void> {
    const { backend, clock, ip, port } = this.opts;
    const value = JSON.stringify({ ip, port, renewTime: clock.now() } satisfies MasterLease);
    const current = await backend.get(this.key);
    if (current) await backend.update(this.key, value, current.modRevision);
    else await backend.create(this.key, value);
  }

  /** The unexpired leases; expired keys are deleted (a concurrent delete by another server is fine). */
  private async liveLeases(): Promise<MasterLease[]> {
    const { backend, clock } = this.opts;
    const live: MasterLease[] = [];
    for (const kv of (await backend.list(MASTER_LEASES_PREFIX)).kvs) {
      const lease = parseLease(kv);
      if (lease && clock.now() - lease.renewTime < LEASE_TTL_MS) live.push(lease);
      else await backend.delete(kv.key, kv.modRevision).catch(() => undefined);
    }
    return live;
  }

  private async writeEndpoints(leases: readonly MasterLease[]): Promise<void> {
    const { transport } = this.opts;
    const subsets = subsetsOf(leases);
    let current: Endpoints | undefined;
    try {
      current = (await transport.request({ verb: 'get', ...ENDPOINTS, name: NAME })) as Endpoints;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (current && JSON.stringify(current.subsets ?? []) === JSON.stringify(subsets)) return;
    const body: Endpoints = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: NAME, namespace: 'default', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' }, ...(current?.metadata?.resourceVersion ? { resourceVersion: current.metadata.resourceVersion } : {}) },
      ...(subsets.length > 0 ? { subsets } : {}),
    };
    try {
      await transport.request(current ? { verb: 'update', ...ENDPOINTS, name: NAME, body } : { verb: 'create', ...ENDPOINTS, body });
    } catch (err) {
      // Another API server wrote it first: the next round compares again.
      if (!isAlreadyExists(err)) throw err;
    }
  }
}

/** The lease in a key's value, or undefined when the value is not one (it is then dropped as expired). */
function parseLease(kv: KeyValue): MasterLease | undefined {
  try {
    const v = JSON.parse(kv.value) as Partial<MasterLease>;
    return typeof v.ip === 'string' && typeof v.port === 'number' && typeof v.renewTime === 'number' ? { ip: v.ip, port: v.port, renewTime: v.renewTime } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One subset per port, with the addresses serving on it, sorted (upstream's one subset of every
 * address on the one port, when all servers share it): `https`, TCP.
 */
export function subsetsOf(leases: readonly MasterLease[]): EndpointSubset[] {
  const byPort = new Map<number, Set<string>>();
  for (const l of leases) byPort.set(l.port, (byPort.get(l.port) ?? new Set()).add(l.ip));
  return [...byPort.entries()]
    .sort(([a], [b]) => a - b)
    .map(([port, ips]) => ({ addresses: [...ips].sort().map((ip) => ({ ip })), ports: [{ name: 'https', port, protocol: 'TCP' }] }));
}
