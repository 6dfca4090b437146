export { TTLAfterFinishedController, getFinishAndExpireTime, needsCleanup, type TTLAfterFinishedControllerOptions } from './ttl-after-finished-controller.js';
