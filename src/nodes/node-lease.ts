/**
 * Node heartbeats through Leases: one `coordination.k8s.io/v1` Lease per simulated node in
 * `kube-node-lease`, named after the node, `holderIdentity` = node name, `leaseDurationSeconds` 40,
 * owned by the Node, its `renewTime` (MicroTime) renewed every 10 s — the kubelet's defaults
 * (pkg/kubelet/apis/config/v1beta1/defaults.go `nodeLeaseDurationSeconds: 40`; pkg/kubelet/kubelet.go
 * renew interval = 0.25 × duration) and kwok's node lease controller.
 *
 * Each node's lease has its own clock timer, as each kubelet runs its own lease controller
 * (k8s.io/component-helpers/apimachinery/lease/controller.go `Run`: `wait.JitterUntil(sync, 10 s, …,
 * sliding=true)`, the next renewal 10 s after the last one ended). Renewals start from the last Lease
 * this controller wrote (the kubelet's `latestLease`); a conflict or a missing lease falls back to
 * GET/create. Earlier all leases were renewed in rounds, 32 at a time, the next round 10 s after the
 * last ended: with 5,000 nodes on a busy server a round took 40 s and more, leases expired past the
 * node monitor's 50 s grace, and the node lifecycle controller marked healthy nodes' pods not Ready.
 */
import type { Lease } from '../api/index.js';
import type { Clientset } from '../client/index.js';
import type { Logger } from '../util/runtime/index.js';
import { errorMessage, isAlreadyExists, isConflict, isNotFound } from '../machinery/errors/index.js';
import { formatMicroTime, type Clock, type Timer } from '../util/clock/index.js';

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
export const NODE_LEASE_DURATION_SECONDS = 40;
/** 0.25 × 40 s. */
export const NODE_LEASE_RENEW_INTERVAL_MS = 10_000;

export interface NodeLeaseControllerOptions {
  client: Clientset;
  clock: Clock;
  logger?: Logger;
}

export class NodeLeaseController {
  private readonly client: Clientset;
  private readonly clock: Clock;
  private readonly logger: Logger | undefined;
  /** node name → Node uid (for the owner reference). */
  private readonly nodes = new Map<string, string>();
  /** node name → the Lease as last written. */
  private readonly latest = new Map<string, Lease>();
  /** node name → the timer of its next renewal (none while a renewal runs). */
  private readonly timers = new Map<string, Timer>();
  private running = false;

  constructor(opts: NodeLeaseControllerOptions) {
    this.client = opts.client;
    this.clock = opts.clock;
    this.logger = opts.logger;
  }

  /** Starts renewing the node's lease (at once, then every interval). */
  add(nodeName: string, nodeUID: string): void {
    const known = this.nodes.get(nodeName);
    this.nodes.set(nodeName, nodeUID);
    if (known !== nodeUID) {
      this.latest.delete(nodeName);
      if (this.running) this.renewNow(nodeName);
    }
  }

  /** Stops renewing (the lease itself goes with the Node, through its owner reference). */
  remove(nodeName: string): void {
    this.nodes.delete(nodeName);
    this.latest.delete(nodeName);
    this.timers.get(nodeName)?.stop();
    this.timers.delete(nodeName);
  }

  /** Renews every lease now and then {@link NODE_LEASE_RENEW_INTERVAL_MS} after each renewal until {@link stop}. */
  start(): void {
    if (this.running) return;
    this.running = true;
    for (const name of this.nodes.keys()) this.renewNow(name);
  }

  stop(): void {
    this.running = false;
    for (const timer of this.timers.values()) timer.stop();
    this.timers.clear();
  }

  /** Renews `nodeName`'s lease now and schedules the next renewal for 10 s after it ends. */
  private renewNow(nodeName: string): void {
    this.timers.get(nodeName)?.stop();
    this.timers.delete(nodeName);
    void this.renewSafely(nodeName).then(() => {
      if (!this.running || !this.nodes.has(nodeName) || this.timers.has(nodeName)) return;
      this.timers.set(nodeName, this.clock.setTimer(NODE_LEASE_RENEW_INTERVAL_MS, () => this.renewNow(nodeName)));
    });
  }

  private async renewSafely(nodeName: string): Promise<void> {
    try {
      await this.renew(nodeName);
    } catch (err) {
      this.latest.delete(nodeName);
      this.logger?.error({ node: nodeName, err: errorMessage(err) }, 'Failed to renew node lease');
    }
  }

  /** One renewal; throws StatusError when the API refuses twice. */
  async renew(nodeName: string): Promise<void> {
    const uid = this.nodes.get(nodeName);
    if (uid === undefined) return;
    const leases = this.client.coordination.leases(NODE_LEASE_NAMESPACE);
    const renewTime = formatMicroTime(this.clock.now());
    const cached = this.latest.get(nodeName);
    if (cached) {
      try {
        this.latest.set(nodeName, await leases.update({ ...cached, spec: { ...cached.spec, renewTime } }));
        return;
      } catch (err) {
        if (!isConflict(err) && !isNotFound(err)) throw err;
      }
    }
    let current: Lease | undefined;
    try {
      current = await leases.get(nodeName);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const desired = this.desiredLease(nodeName, uid, renewTime);
    if (current) {
      this.latest.set(nodeName, await leases.update({ ...current, metadata: { ...current.metadata, ownerReferences: desired.metadata?.ownerReferences }, spec: desired.spec }));
      return;
    }
    try {
      this.latest.set(nodeName, await leases.create(desired));
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }

  private desiredLease(nodeName: string, nodeUID: string, renewTime: string): Lease {
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: nodeName,
        namespace: NODE_LEASE_NAMESPACE,
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid: nodeUID }],
      },
      spec: { holderIdentity: nodeName, leaseDurationSeconds: NODE_LEASE_DURATION_SECONDS, renewTime },
    };
  }
}
