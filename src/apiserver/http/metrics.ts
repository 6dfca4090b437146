/**
 * `GET /metrics`: the process's Prometheus metrics in the text exposition format, from prom-client's
 * default registry (k8s.io/component-base/metrics/legacyregistry, which kube-apiserver serves at the
 * same path, behind authentication). Everything running in the process registers there: the API
 * server's request and storage metrics (apiserver/metrics), the work queues' (workqueue/metrics.ts),
 * the scheduler's (scheduler/metrics.ts), `kubeplane_handled_errors_total` (util/runtime), and the
 * process's own `process_*` and `nodejs_*` (util/metrics `collectProcessMetrics`).
 */
import type { ServerResponse } from 'node:http';
import { register } from 'prom-client';
import { writeRaw } from './errors.js';

/** Writes every registered metric. */
export async function serveMetrics(res: ServerResponse): Promise<void> {
  writeRaw(res, 200, await register.metrics(), register.contentType);
}
