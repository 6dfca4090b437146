/** The ReplicaSet controller (pkg/controller/replicaset). */
export { ReplicaSetController, REPLICA_SET_KIND, BURST_REPLICAS, type ReplicaSetControllerOptions } from './replica-set-controller.js';
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
