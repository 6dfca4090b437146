/**
 * Work queues and rate limiters for controllers (client-go util/workqueue). See queue.ts for the
 * queue's guarantees and rate-limiters.ts for the retry delays.
 */
export { RateLimitingQueue, type GetResult, type RateLimitingQueueOptions } from './queue.js';
export {
  type RateLimiter,
  itemExponentialFailureRateLimiter,
  bucketRateLimiter,
  maxOfRateLimiter,
  defaultControllerRateLimiter,
} from './rate-limiters.js';
export {
  TerminalError,
  processNextWorkItem,
  runWorkers,
  runWorkersWhenSynced,
  type RunWorkersOptions,
  type Syncable,
  type SyncResult,
} from './worker.js';
