export { CronJobController, formatRFC1123Z, type CronJobControllerOptions } from './cronjob-controller.js';
export * from './utils.js';
