export { PodGCController, GC_CHECK_PERIOD_MS, QUARANTINE_TIME_MS, type PodGCControllerOptions } from './pod-gc-controller.js';
