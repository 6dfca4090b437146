/**
 * Addresses for simulated nodes and pods: node InternalIPs from 10.0.0.0/16 and one /24 pod CIDR per
 * node from 10.128.0.0/9, pod IPs from the node's /24 (kwok allocates from `--cidr` the same way).
 *
 * Worked example: the 1st node gets 10.0.0.2 and 10.128.0.0/24, the 300th (n = 299) 10.0.1.48 and
 * 10.129.43.0/24; its pods get 10.129.43.1 … 10.129.43.254.
 */

/** The n-th (0-based) node InternalIP: 10.0.x.y, skipping .0, .1 and .255 of each /24. */
export function nodeInternalIP(n: number): string {
  const perBlock = 253; // .2 … .254
  return `10.0.${Math.floor(n / perBlock) % 256}.${(n % perBlock) + 2}`;
}

/** The n-th (0-based) node pod CIDR: 10.(128 + n/256).(n%256).0/24 — 32,768 nodes. */
export function nodePodCIDR(n: number): string {
  return `10.${128 + (Math.floor(n / 256) % 128)}.${n % 256}.0/24`;
}

/** Pod IPs of one node's /24: .1 … .254, lowest free first, one per pod uid. */
export class PodIPPool {
  private readonly prefix: string;
  private readonly byUID = new Map<string, number>();
  private readonly used = new Set<number>();
  private next = 1;

  /** @param cidr `a.b.c.0/24`; throws Error for anything else. */
  constructor(cidr: string) {
    const m = /^(\d+\.\d+\.\d+)\.0\/24$/.exec(cidr);
    if (!m) throw new Error(`unsupported pod CIDR ${JSON.stringify(cidr)}: want a.b.c.0/24`);
    this.prefix = m[1] as string;
  }

  /** The pod's IP, allocating one if it has none. Throws Error when all 254 are taken. */
  allocate(uid: string): string {
    const have = this.byUID.get(uid);
    if (have !== undefined) return `${this.prefix}.${have}`;
    for (let i = 0; i < 254; i++) {
      const host = ((this.next - 1 + i) % 254) + 1;
      if (!this.used.has(host)) {
        this.used.add(host);
        this.byUID.set(uid, host);
        this.next = (host % 254) + 1;
        return `${this.prefix}.${host}`;
      }
    }
    throw new Error(`no free pod IP in ${this.prefix}.0/24`);
  }

  /** Records an IP a pod already has (after a restart of the simulator); ignored if outside the CIDR or taken. */
  reserve(uid: string, ip: string): void {
    if (!ip.startsWith(`${this.prefix}.`) || this.byUID.has(uid)) return;
    const host = Number(ip.slice(this.prefix.length + 1));
    if (!Number.isInteger(host) || host < 1 || host > 254 || this.used.has(host)) return;
    this.used.add(host);
    this.byUID.set(uid, host);
  }

  release(uid: string): void {
    const host = this.byUID.get(uid);
    if (host === undefined) return;
    this.byUID.delete(uid);
    this.used.delete(host);
  }
}
