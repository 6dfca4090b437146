/**
 * The API server's Prometheus metrics: requests (requests.ts, upstream's endpoints/metrics) and
 * storage (storage.ts, upstream's storage/etcd3/metrics).
 */
export * from './requests.js';
export * from './storage.js';
