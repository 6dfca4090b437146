export { JobController, SYNC_JOB_BATCH_PERIOD_MS, type JobControllerOptions } from './job-controller.js';
export { JOB_TRACKING_FINALIZER } from './status.js';
