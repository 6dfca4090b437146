/** The DaemonSet controller and its pure helpers (eligibility, templates, update arithmetic). */
export { DaemonSetsController, DAEMON_SET_KIND, BURST_REPLICAS, FAILED_DAEMON_POD_REASON, SELECTING_ALL_REASON, type DaemonSetsControllerOptions } from './daemon-controller.js';
export { getPatch, matchRevision } from './update.js';
export * from './util.js';
