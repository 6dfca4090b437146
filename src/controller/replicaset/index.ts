/** The ReplicaSet controller (pkg/controller/replicaset), which also runs ReplicationControllers (pkg/controller/replication). */
export { ReplicaSetController, BURST_REPLICAS, type ReplicaSetControllerOptions } from './replica-set-controller.js';
export { REPLICA_SET, REPLICATION_CONTROLLER, type ReplicatedKind } from './replicated-kind.js';
export {
  calculateStatus,
  getPodsToDelete,
  updateReplicaSetStatus,
  replicaSetStatusUnchanged,
  newReplicaSetCondition,
  getCondition,
  setCondition,
  removeCondition,
  REPLICA_FAILURE,
  STATUS_UPDATE_RETRIES,
} from './replica-set-utils.js';
