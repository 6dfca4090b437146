/** The disruption controller (pkg/controller/disruption): the status of PodDisruptionBudgets. */
export {
  DisruptionController,
  DELETION_TIMEOUT_MS,
  STALE_POD_DISRUPTION_TIMEOUT_MS,
  countHealthyPods,
  type DisruptionControllerOptions,
} from './disruption-controller.js';
