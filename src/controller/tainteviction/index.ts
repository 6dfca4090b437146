/** The taint eviction controller: deletes pods from nodes with NoExecute taints they do not tolerate (for long enough). */
export {
  TaintEvictionController,
  TAINT_EVICTION_CONTROLLER,
  getMatchingTolerations,
  getMinTolerationTime,
  getNoExecuteTaints,
  type TaintEvictionControllerOptions,
} from './taint-eviction-controller.js';
export { TimedWorkerQueue, type TimedWorker, type TimedWorkFunc } from './timed-workers.js';
