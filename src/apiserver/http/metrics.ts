/**
 * `GET /metrics`: the process's Prometheus metrics in the text exposition format, from prom-client's
 * default registry (k8s.io/component-base/metrics/legacyregistry, which kube-apiserver serves at the
 * same path, behind authentication).
 */
import type { ServerResponse } from 'node:http';
import { register } from 'prom-client';
import { writeRaw } from './errors.js';

/** Writes every registered metric. */
export async function serveMetrics(res: ServerResponse): Promise<void> {
  writeRaw(res, 200, await register.metrics(), register.contentType);
}
