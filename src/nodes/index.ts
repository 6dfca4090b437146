/** Simulated nodes (kwok-style): node registration and adoption, leases, stage-driven pod lifecycles. */
export { NodeSimulator, NODE_SIMULATE_ANNOTATION, NODE_STOPPED, SIMULATED_ANNOTATION, DEFAULT_EVENT_QUEUE, type NodeSimulatorOptions, type NodeSpecInput } from './simulator.js';
export {
  defaultStages,
  healthyNodeConditions,
  nodeHeartbeatStage,
  nodeInitializeStage,
  podDeleteStage,
  podCreateStage,
  podReadyStage,
  simulatedNodeStatus,
  DEFAULT_NODE_CAPACITY,
  KUBELET_VERSION,
  type AnyStage,
  type DefaultStageOptions,
  type NodeStage,
  type PodStage,
  type SimulatedNodeInfo,
  type Stage,
  type StageContext,
  type StageResult,
  startEvents,
} from './stages.js';
export type { StageEvent } from './stage-types.js';
export {
  containerConfigErrorEvent,
  containerStartedEvents,
  failedMountEvent,
  goDurationMs,
  imageEvents,
  imageSizeBytes,
  killingEvents,
  nodeHealthyEvents,
  nodeStartupEvents,
  pullPolicyOf,
} from './kubelet-events.js';
export { containerConfigError, containerConfigErrors, volumeMountErrors, volumeSetUpError, type PodReferenceLookup, type VolumeMountError } from './pod-references.js';
export { containerConfigStages, mountRetryDelayMs, volumeMountStage, CREATE_CONTAINER_CONFIG_ERROR, POD_SYNC_BACKOFF_MS } from './reference-stages.js';
export { imageRepository } from './pod-status.js';
export {
  activeDeadlineAt,
  containerProgram,
  initCrashLoopStages,
  restartStagesOfContainers,
  podActiveDeadlineStage,
  podContainerExitStage,
  podKillStage,
  runsToCompletion,
  withActiveDeadline,
  DEADLINE_EXCEEDED_MESSAGE,
  DEADLINE_EXCEEDED_REASON,
} from './completion-stages.js';
export {
  backOffMs,
  crashLoopStages,
  goDuration,
  imagePullFailureStages,
  isMissingImage,
  pullErrorMessage,
  pullRetryDelayMs,
  MISSING_IMAGE_MARKER,
  SIMULATE_ANNOTATION,
} from './failure-stages.js';
export { NodeLeaseController, NODE_LEASE_DURATION_SECONDS, NODE_LEASE_NAMESPACE, NODE_LEASE_RENEW_INTERVAL_MS } from './node-lease.js';
export { PodIPPool, nodeInternalIP, nodePodCIDR } from './ip-allocator.js';
export { StageEngine, type StageEngineOptions } from './stage-engine.js';
