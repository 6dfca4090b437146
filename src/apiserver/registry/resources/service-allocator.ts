/**
 * Service ClusterIP and NodePort allocation, run by the services store before validation (upstream's
 * BeginCreate/BeginUpdate of pkg/registry/core/service/storage/alloc.go, with the allocators of
 * pkg/registry/core/service/ipallocator and portallocator).
 *
 * What is in use is derived from the stored services themselves — the services watch cache — plus the
 * reservations of writes in flight. So the state survives restarts (the cache is primed from storage),
 * and deletes, finalizer removals and failed writes free addresses without bookkeeping: an address is
 * free once no stored service holds it and no write is about to store it. Upstream keeps a bitmap in
 * etcd and repairs it with a controller; the outcome for clients is the same.
 *
 * Allocation order follows upstream: a random free address of the upper ("dynamic") band first, then
 * the lower band, which is left to users who pick addresses themselves (KEP-3070). For 10.96.0.0/12 the
 * lower band is the first 256 addresses (10.96.0.1–10.96.1.0); for ports 30000–32767 it is the first 86.
 */
import type { KubeObject, Service, ServicePort } from '../../../api/index.js';
import { field, isAlreadyExists, newInvalid, type FieldError } from '../../../machinery/errors/index.js';
import type { Rand } from '../../../util/random/index.js';
import type { StorageContext, StorageExtension } from '../extension.js';

/** kube-apiserver's `--service-cluster-ip-range` default here. */
export const DEFAULT_SERVICE_CIDR = '10.96.0.0/12';
/** kube-apiserver's `--service-node-port-range` default. */
export const DEFAULT_NODE_PORT_RANGE = { base: 30000, size: 2768 };

/** The services the allocator sees: the cached stored objects by key (`/registry/core/services/<ns>/<name>`). */
export interface ServiceSource {
  entries(): Iterable<[string, KubeObject]>;
  /** The revision the source is current at. */
  revision(): number;
  /** The storage's newest revision (a committed write is in the source once `revision()` reaches it). */
  currentRevision(): number;
}

/** A parsed IPv4 CIDR: the usable addresses are base+1 … base+size-2 (no network or broadcast address). */
interface Cidr {
  base: number;
  size: number;
  text: string;
}

/** Parses `a.b.c.d` to an unsigned 32-bit number, or undefined. */
export function parseIPv4(ip: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return ((parts[0] as number) * 2 ** 24 + (parts[1] as number) * 2 ** 16 + (parts[2] as number) * 2 ** 8 + (parts[3] as number)) >>> 0;
}

/** Formats an unsigned 32-bit number as `a.b.c.d`. */
export function formatIPv4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

function parseCidr(text: string): Cidr {
  const [ip, bits] = text.split('/');
  const base = parseIPv4(ip ?? '');
  const prefix = Number(bits);
  if (base === undefined || !Number.isInteger(prefix) || prefix < 1 || prefix > 30) throw new Error(`invalid service CIDR ${text}`);
  const size = 2 ** (32 - prefix);
  return { base: base - (base % size), size, text };
}

/** `min(max(min, size/step), max)` — the size of the lower, user-preferred band (calculateRangeOffset). */
function rangeOffset(size: number, min: number, max: number, step: number): number {
  if (size <= min) return 0;
  return Math.min(Math.max(Math.floor(size / step), min), max);
}

/** True when the service needs a cluster IP: not ExternalName, not headless. */
export function needsClusterIP(svc: Service): boolean {
  const spec = svc.spec ?? {};
  return spec.type !== 'ExternalName' && spec.clusterIP !== 'None';
}

/** True when the service's ports need node ports (NodePort, and LoadBalancer unless allocateLoadBalancerNodePorts is false). */
export function needsNodePorts(svc: Service): boolean {
  const spec = svc.spec ?? {};
  return spec.type === 'NodePort' || (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);
}

interface Reservation {
  ips: number[];
  ports: number[];
  /** Set when the write committed: the reservation ends once the source has caught up to this revision. */
  until?: number;
}

type Finish = (success: boolean) => void;

/** What a failed allocation reports: 422 on the service, upstream's field and message. */
function invalid(svc: Service, errs: FieldError[]): never {
  throw newInvalid({ group: '', kind: 'Service' }, svc.metadata?.name ?? '', errs);
}

/** Allocates service cluster IPs and node ports. One per API server. */
export class ServiceAllocator {
  private readonly cidr: Cidr;
  private readonly ipOffset: number;
  private readonly portOffset: number;
  private readonly reservations = new Map<object, Reservation>();

  constructor(
    private readonly source: ServiceSource,
    private readonly rand: Rand,
    cidr = DEFAULT_SERVICE_CIDR,
    private readonly ports = DEFAULT_NODE_PORT_RANGE,
  ) {
    this.cidr = parseCidr(cidr);
    this.ipOffset = rangeOffset(this.cidr.size, 16, 256, 16);
    this.portOffset = rangeOffset(ports.size, 16, 128, 32);
  }

  /** The first usable address of the range: the `kubernetes` service's (10.96.0.1). */
  firstIP(): string {
    return formatIPv4(this.cidr.base + 1);
  }

  /**
   * Before a create (BeginCreate): sets ipFamilies/ipFamilyPolicy, allocates `spec.clusterIP(s)` (the
   * requested one, or a free one) and the node ports the type needs. Returns the finish function.
   * @throws StatusError 422 `spec.clusterIPs: Invalid value: ["10.96.0.10"]: failed to allocate IP
   *   10.96.0.10: provided IP is already allocated`, `spec.ports[0].nodePort: Invalid value: 30080:
   *   provided port is already allocated`, or range errors
   */
  beginCreate(svc: Service, dryRun: boolean): Finish {
    return this.allocate(svc, undefined, dryRun);
  }

  /**
   * Before an update (BeginUpdate): values the client left out are kept from the stored service
   * (`patchAllocatedValues`: clusterIP(s) and, port by port, node ports), then anything newly needed
   * is allocated. Addresses the update stops using are free once it is stored.
   */
  beginUpdate(svc: Service, old: Service, dryRun: boolean): Finish {
    return this.allocate(svc, old, dryRun);
  }

  private allocate(svc: Service, old: Service | undefined, dryRun: boolean): Finish {
    const spec = (svc.spec ??= {});
    if (old) patchAllocatedValues(svc, old);
    initIPFamilyFields(svc);
    const used = this.inUse(old);
    const reservation: Reservation = { ips: [], ports: [] };
    if (needsClusterIP(svc)) {
      const ip = this.allocateIP(svc, spec.clusterIPs?.[0] ?? spec.clusterIP ?? '', used.ips, old);
      spec.clusterIP = ip;
      spec.clusterIPs = [ip];
      const n = parseIPv4(ip);
      if (n !== undefined) reservation.ips.push(n);
    }
    if (needsNodePorts(svc)) reservation.ports = this.allocateNodePorts(svc, used.ports);
    if (dryRun) return () => undefined;
    const token = {};
    this.reservations.set(token, reservation);
    return (success) => {
      if (!success) this.reservations.delete(token);
      else reservation.until = this.source.currentRevision();
    };
  }

  /** Addresses and ports held by stored services (but `self`, being updated) and by writes in flight. */
  private inUse(self: Service | undefined): { ips: Set<number>; ports: Set<number> } {
    const ips = new Set<number>();
    const ports = new Set<number>();
    const revision = this.source.revision();
    for (const [token, r] of this.reservations) {
      if (r.until !== undefined && revision >= r.until) {
        this.reservations.delete(token);
        continue;
      }
      r.ips.forEach((ip) => ips.add(ip));
      r.ports.forEach((p) => ports.add(p));
    }
    const selfUid = self?.metadata?.uid;
    for (const [, obj] of this.source.entries()) {
      const s = obj as Service;
      if (selfUid !== undefined && s.metadata?.uid === selfUid) continue;
      for (const ip of s.spec?.clusterIPs ?? (s.spec?.clusterIP ? [s.spec.clusterIP] : [])) {
        const n = parseIPv4(ip);
        if (n !== undefined) ips.add(n);
      }
      for (const p of s.spec?.ports ?? []) if (p.nodePort) ports.add(p.nodePort);
    }
    return { ips, ports };
  }

  private allocateIP(svc: Service, requested: string, used: Set<number>, old: Service | undefined): string {
    const path = 'spec.clusterIPs';
    if (requested !== '') {
      const n = parseIPv4(requested);
      // Keeping the address the service already has is not a new allocation.
      if (n !== undefined && old?.spec?.clusterIP === requested) return requested;
      const first = this.cidr.base + 1;
      const last = this.cidr.base + this.cidr.size - 2;
      if (n === undefined) return requested; // validation reports the malformed value
      if (n < first || n > last) {
        invalid(svc, [
          field.invalid(path, [requested], `failed to allocate IP ${requested}: the provided IP (${requested}) is not in the valid range. The range of valid IPs is ${this.cidr.text}`),
        ]);
      }
      if (used.has(n)) invalid(svc, [field.invalid(path, [requested], `failed to allocate IP ${requested}: provided IP is already allocated`)]);
      return requested;
    }
    const offset = this.pick(this.cidr.size - 2, this.ipOffset, (i) => used.has(this.cidr.base + 1 + i));
    if (offset === undefined) invalid(svc, [field.invalid(path, [], 'failed to allocate IP: range is full')]);
    return formatIPv4(this.cidr.base + 1 + offset);
  }

  private allocateNodePorts(svc: Service, used: Set<number>): number[] {
    const taken: number[] = [];
    const errs: FieldError[] = [];
    // One node port may serve the same port number over several protocols (upstream's nodePortOp).
    const byPort = new Map<number, number>();
    const { base, size } = this.ports;
    (svc.spec?.ports ?? []).forEach((p: ServicePort, i) => {
      const path = `spec.ports[${i}].nodePort`;
      if (p.nodePort) {
        if (taken.includes(p.nodePort)) return;
        if (p.nodePort < base || p.nodePort >= base + size) {
          errs.push(field.invalid(path, p.nodePort, `provided port is not in the valid range. The range of valid ports is ${base}-${base + size - 1}`));
        } else if (used.has(p.nodePort)) errs.push(field.invalid(path, p.nodePort, 'provided port is already allocated'));
        else taken.push(p.nodePort);
        return;
      }
      const shared = byPort.get(p.port);
      if (shared !== undefined) {
        p.nodePort = shared;
        return;
      }
      const offset = this.pick(size, this.portOffset, (o) => used.has(base + o) || taken.includes(base + o));
      if (offset === undefined) {
        errs.push(field.invalid(path, 0, 'range is full'));
        return;
      }
      p.nodePort = base + offset;
      byPort.set(p.port, p.nodePort);
      taken.push(p.nodePort);
    });
    if (errs.length) invalid(svc, errs);
    return taken;
  }

  /**
   * A free offset in [0, size): a random start in the upper band [lower, size) probed upward with
   * wrap-around, then the lower band [0, lower) likewise; undefined when everything is taken.
   */
  private pick(size: number, lower: number, isUsed: (offset: number) => boolean): number | undefined {
    const bands: [number, number][] = lower > 0 && lower < size ? [[lower, size], [0, lower]] : [[0, size]];
    for (const [from, to] of bands) {
      const n = to - from;
      const start = this.rand.int(n);
      for (let i = 0; i < n; i++) {
        const o = from + ((start + i) % n);
        if (!isUsed(o)) return o;
      }
    }
    return undefined;
  }
}

/**
 * `initIPFamilyFields` for a single-stack IPv4 cluster: services with a cluster IP (and headless ones
 * with a selector) get `ipFamilies: [IPv4]` and `ipFamilyPolicy: SingleStack` when unset; headless
 * services without a selector get `RequireDualStack`, as upstream; ExternalName services get neither.
 * A `clusterIP` without `clusterIPs` is copied into it.
 */
export function initIPFamilyFields(svc: Service): void {
  const spec = (svc.spec ??= {});
  if (spec.type === 'ExternalName') return;
  if (spec.clusterIP && !(spec.clusterIPs && spec.clusterIPs.length > 0)) spec.clusterIPs = [spec.clusterIP];
  if (!spec.clusterIP && spec.clusterIPs?.[0]) spec.clusterIP = spec.clusterIPs[0];
  const headlessWithoutSelector = spec.clusterIP === 'None' && Object.keys(spec.selector ?? {}).length === 0;
  spec.ipFamilyPolicy ??= headlessWithoutSelector ? 'RequireDualStack' : 'SingleStack';
  if (!spec.ipFamilies || spec.ipFamilies.length === 0) spec.ipFamilies = ['IPv4'];
}

/**
 * `patchAllocatedValues`: an update that leaves out the cluster IP or a port's node port keeps the
 * stored ones (kubectl replace/apply of a manifest without them), when both versions need them. Node
 * ports are matched by port name, then by port number and protocol.
 */
export function patchAllocatedValues(svc: Service, old: Service): void {
  const spec = (svc.spec ??= {});
  const oldSpec = old.spec ?? {};
  if (needsClusterIP(old) && needsClusterIP(svc)) {
    if (!spec.clusterIP) spec.clusterIP = oldSpec.clusterIP;
    if (!spec.clusterIPs?.length && oldSpec.clusterIPs?.length) spec.clusterIPs = [...oldSpec.clusterIPs];
  }
  if (needsNodePorts(old) && needsNodePorts(svc)) {
    const oldPorts = oldSpec.ports ?? [];
    for (const p of spec.ports ?? []) {
      if (p.nodePort) continue;
      const match =
        oldPorts.find((o) => (o.name ?? '') === (p.name ?? '') && (o.name ?? '') !== '') ??
        oldPorts.find((o) => o.port === p.port && (o.protocol ?? 'TCP') === (p.protocol ?? 'TCP'));
      if (match?.nodePort) p.nodePort = match.nodePort;
    }
  }
}

/**
 * The storage extension of services: the allocator over the services watch cache runs before every
 * create and update, and the `kubernetes` service exists from start-up.
 */
export function serviceStorage({ store, cache, backend, rand }: StorageContext): StorageExtension {
  const allocator = new ServiceAllocator(
    { entries: () => cache.entries(store.prefix), revision: () => cache.revision, currentRevision: () => backend.currentRevision() },
    rand,
  );
  return {
    beginCreate: (obj, dryRun) => allocator.beginCreate(obj as Service, dryRun),
    beginUpdate: (obj, old, dryRun) => allocator.beginUpdate(obj as Service, old as Service, dryRun),
    bootstrap: async () => {
      if (store.cached('default', 'kubernetes')) return;
      try {
        await store.create('default', kubernetesService(allocator.firstIP()), {}, []);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
    },
  };
}

/**
 * The `kubernetes` service of the `default` namespace, through which pods reach the API server: the
 * first address of the service range, port 443 (`https`) to the API server's port (pkg/controlplane/
 * controller/kubernetesservice: `createOrUpdateMasterServiceIfNeeded`).
 */
export function kubernetesService(clusterIP: string, apiServerPort = 6443): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: { type: 'ClusterIP', clusterIP, ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: apiServerPort }], sessionAffinity: 'None' },
  };
}
