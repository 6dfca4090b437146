/**
 * The `LeaseLock` resource lock: the leader election record kept in the spec of a
 * `coordination.k8s.io/v1` Lease. Follows k8s.io/client-go/tools/leaderelection/resourcelock
 * (v1.33): `interface.go` (`LeaderElectionRecord`) and `leaselock.go` (`LeaseLock`,
 * `LeaseSpecToLeaderElectionRecord`, `LeaderElectionRecordToLeaseSpec`).
 *
 * The lock keeps the Lease as last read or written; {@link LeaseLock.update} writes over that copy,
 * resourceVersion included, so a candidate that raced us to the same version gets 409 Conflict.
 */
import type { Lease } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import { formatMicroTime, parseTime } from '../../util/clock/index.js';

/**
 * What the lock stores (upstream `LeaderElectionRecord`, minus the coordinated-election
 * `strategy`/`preferredHolder`, which kubeplane does not use).
 */
export interface LeaderElectionRecord {
  /** Identity of the holder; `''` when nobody holds the lock (released). */
  holderIdentity: string;
  /** How long candidates wait for a renewal before taking the lock over, in **seconds**. */
  leaseDurationSeconds: number;
  /** When the holder acquired the lock, in ms since the epoch (the holder's clock); undefined when unset. */
  acquireTime: number | undefined;
  /** When the holder last renewed, in ms since the epoch (the holder's clock); undefined when unset. */
  renewTime: number | undefined;
  /** How many times the lock changed holders (the Lease's `leaseTransitions`). */
  leaderTransitions: number;
}

/** A record as read, with a string that changes whenever any of the Lease's election fields does. */
export interface ObservedRecord {
  record: LeaderElectionRecord;
  /** Compared, not parsed: upstream compares the record's JSON (`observedRawRecord`). */
  raw: string;
}

/** Upstream `LeaseSpecToLeaderElectionRecord`: missing fields read as zero / unset. */
export function leaseSpecToLeaderElectionRecord(spec: Lease['spec']): LeaderElectionRecord {
  return {
    holderIdentity: spec?.holderIdentity ?? '',
    leaseDurationSeconds: spec?.leaseDurationSeconds ?? 0,
    acquireTime: parseTime(spec?.acquireTime),
    renewTime: parseTime(spec?.renewTime),
    leaderTransitions: spec?.leaseTransitions ?? 0,
  };
}

/**
 * Upstream `LeaderElectionRecordToLeaseSpec`: every field is written (an empty holder too), times as
 * MicroTime (`2006-01-02T15:04:05.000000Z`).
 */
export function leaderElectionRecordToLeaseSpec(record: LeaderElectionRecord): NonNullable<Lease['spec']> {
  return {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    ...(record.acquireTime === undefined ? {} : { acquireTime: formatMicroTime(record.acquireTime) }),
    ...(record.renewTime === undefined ? {} : { renewTime: formatMicroTime(record.renewTime) }),
    leaseTransitions: record.leaderTransitions,
  };
}

/** Upstream `resourcelock.LeaseLock`: the election record in Lease `namespace/name`. */
export class LeaseLock {
  /** The Lease as last read or written (upstream `ll.lease`). */
  private lease: Lease | undefined;

  /**
   * @param client the clientset the Lease is read and written through
   * @param namespace the Lease's namespace, e.g. `kube-system`
   * @param name the Lease's name, e.g. `kube-controller-manager`
   * @param identity this candidate's identity (upstream `ResourceLockConfig.Identity`)
   */
  constructor(
    private readonly client: Clientset,
    readonly namespace: string,
    readonly name: string,
    readonly identity: string,
  ) {}

  /** GETs the Lease and returns its record. Throws StatusError (NotFound when there is no Lease). */
  async get(): Promise<ObservedRecord> {
    this.lease = await this.leases().get(this.name);
    const spec = this.lease.spec ?? {};
    const raw = JSON.stringify([spec.holderIdentity, spec.leaseDurationSeconds, spec.acquireTime, spec.renewTime, spec.leaseTransitions]);
    return { record: leaseSpecToLeaderElectionRecord(this.lease.spec), raw };
  }

  /** Creates the Lease holding `record`. Throws StatusError (AlreadyExists when another candidate was first). */
  async create(record: LeaderElectionRecord): Promise<void> {
    this.lease = await this.leases().create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.name, namespace: this.namespace },
      spec: leaderElectionRecordToLeaseSpec(record),
    });
  }

  /**
   * Writes `record` over the Lease as last read or written, with that resourceVersion. Throws
   * StatusError Conflict when the Lease changed since, or an Error before any get or create.
   */
  async update(record: LeaderElectionRecord): Promise<void> {
    if (!this.lease) throw new Error('lease not initialized, call get or create first');
    this.lease = await this.leases().update({ ...this.lease, spec: leaderElectionRecordToLeaseSpec(record) });
  }

  /** The Lease as last read or written (for events about it); undefined before any get or create. */
  current(): Lease | undefined {
    return this.lease;
  }

  /** `namespace/name`, for logs. */
  describe(): string {
    return `${this.namespace}/${this.name}`;
  }

  private leases(): ReturnType<Clientset['coordination']['leases']> {
    return this.client.coordination.leases(this.namespace);
  }
}
