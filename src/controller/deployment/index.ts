/** The Deployment controller (pkg/controller/deployment) and its pure helpers (deployment/util). */
export { DeploymentController, MAX_RETRIES, type DeploymentControllerOptions } from './deployment-controller.js';
export { DEPLOYMENT_KIND, calculateStatus, deploymentStatusEqual, type DeploymentSyncContext } from './sync.js';
export { oldPodsRunning } from './recreate.js';
export { getReplicaFailures } from './progress.js';
export * as deploymentUtil from './util/deployment-util.js';
