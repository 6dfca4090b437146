/**
 * Leader election for the control plane's components, as k8s.io/client-go/tools/leaderelection
 * (v1.33) with its `LeaseLock` resource lock: kube-controller-manager and the scheduler run one
 * {@link LeaderElector} each on Lease `kube-system/kube-controller-manager` and
 * `kube-system/kube-scheduler`, start their work in `onStartedLeading` and exit in `onStoppedLeading`.
 *
 * ```ts
 * const elector = new LeaderElector({
 *   client, clock, namespace: DEFAULT_LEASE_NAMESPACE, name: 'kube-controller-manager',
 *   identity: newIdentity(os.hostname(), realRand),
 *   onStartedLeading: (signal) => startControllers(signal),
 *   onStoppedLeading: () => process.exit(1),
 * });
 * await elector.run(shutdownSignal);
 * ```
 */
export {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_LEASE_NAMESPACE,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
  JITTER_FACTOR,
  LeaderElector,
  newIdentity,
  type LeaderElectorOptions,
} from './leader-elector.js';
export { LeaseLock, leaderElectionRecordToLeaseSpec, leaseSpecToLeaderElectionRecord, type LeaderElectionRecord, type ObservedRecord } from './resource-lock.js';
