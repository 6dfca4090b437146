/**
 * Pod defaulting and QoS class: pkg/apis/core/v1/defaults.go (SetDefaults_Pod) and
 * pkg/apis/core/helper/qos/qos.go (ComputePodQOS).
 */
import type { Pod, PodSpec } from '../../../api/index.js';
import { defaultPodSpec, tryParseQuantity } from './pod-template.js';


/**
 * SetDefaults_Pod then the PodSpec defaults: container (and init container) requests default to their
 * limits per resource; enableServiceLinks true; with hostNetwork, hostPort defaults to containerPort.
 */
export function defaultPod(pod: Pod): void {
  const spec = (pod.spec ??= { containers: [] });
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
    const resources = c.resources;
    if (!resources?.limits) continue;
    const limits = resources.limits;
    const requests = (resources.requests ??= {});
    for (const [k, v] of Object.entries(limits)) if (!(k in requests)) requests[k] = v;
  }
  spec.enableServiceLinks ??= true;
  if (spec.hostNetwork) {
    for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
      for (const p of c.ports ?? []) if (!p.hostPort) p.hostPort = p.containerPort;
    }
  }
  defaultPodSpec(spec);
}

/** A cpu or memory quantity in milli-units; 0 for other resources and malformed values (validation reports those). */
function qosMilli(name: string, q: string | number): number {
  if (name !== 'cpu' && name !== 'memory') return 0;
  const [quantity] = tryParseQuantity(q);
  return quantity?.milliValue() ?? 0;
}

/**
 * `ComputePodQOS` over regular and init containers, counting only cpu and memory with values > 0:
 * nothing requested or limited → `BestEffort`; every container limits both cpu and memory and the summed
 * requests equal the summed limits → `Guaranteed`; otherwise `Burstable`.
 */
export function computePodQOS(spec: PodSpec | undefined): 'BestEffort' | 'Burstable' | 'Guaranteed' {
  const requests = new Map<string, number>();
  const limits = new Map<string, number>();
  let isGuaranteed = true;
  for (const c of [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])]) {
    for (const [name, q] of Object.entries(c.resources?.requests ?? {})) {
      const v = qosMilli(name, q);
      if (v > 0) requests.set(name, (requests.get(name) ?? 0) + v);
    }
    const found = new Set<string>();
    for (const [name, q] of Object.entries(c.resources?.limits ?? {})) {
      const v = qosMilli(name, q);
      if (v > 0) {
        found.add(name);
        limits.set(name, (limits.get(name) ?? 0) + v);
      }
    }
    if (!found.has('cpu') || !found.has('memory')) isGuaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (isGuaranteed) {
    for (const [name, req] of requests) {
      if (limits.get(name) !== req) {
        isGuaranteed = false;
        break;
      }
    }
  }
  return isGuaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}
