/** The ClusterRole aggregation controller (pkg/controller/clusterroleaggregation). */
export {
  aggregatedRules,
  CLUSTER_ROLE_AGGREGATION_WORKERS,
  ClusterRoleAggregationController,
  FIELD_MANAGER,
  type ClusterRoleAggregationControllerOptions,
} from './clusterrole-aggregation-controller.js';
