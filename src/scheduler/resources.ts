/**
 * Compute resources as the scheduler counts them: CPU in millicores, memory and ephemeral storage in
 * bytes, extended resources (`example.com/gpu`) as integer units. Quantities are parsed once per pod
 * or node, never on the per-node hot path.
 *
 * Follows upstream pkg/scheduler/framework/types.go (`Resource`, `NewResource`, `SetMaxResource`) and
 * k8s.io/component-helpers/resource/helpers.go (`PodRequests`), which the NodeResourcesFit plugin's
 * `computePodResourceRequest` calls.
 */
import type { Container, Pod } from '../api/index.js';
import { parseQuantity } from '../machinery/quantity/index.js';

/** An amount of every resource the scheduler tracks. */
export interface Resource {
  /** CPU, in millicores (`500m` = 500, `2` = 2000). */
  milliCPU: number;
  /** Memory, in bytes. */
  memory: number;
  /** Ephemeral storage, in bytes. */
  ephemeralStorage: number;
  /** Extended resources (any name other than cpu/memory/ephemeral-storage/pods), in units. */
  scalar: Map<string, number>;
}

/** CPU counted for a container without a CPU request when scoring (upstream `DefaultMilliCPURequest`). */
export const DEFAULT_MILLI_CPU_REQUEST = 100;
/** Memory counted for a container without a memory request when scoring (upstream `DefaultMemoryRequest`, 200 MiB). */
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

export function emptyResource(): Resource {
  return { milliCPU: 0, memory: 0, ephemeralStorage: 0, scalar: new Map() };
}

/** Resource names that are not extended resources; `pods` is a node capacity, never a request. */
const NATIVE = new Set(['cpu', 'memory', 'ephemeral-storage', 'pods']);

/** Parses a ResourceList (`{cpu: '500m', memory: '1Gi'}`) into a {@link Resource}. Throws on a malformed quantity. */
export function resourceFromList(list: Record<string, string> | undefined): Resource {
  const r = emptyResource();
  if (list) addList(r, list);
  return r;
}

function addList(r: Resource, list: Record<string, string>): void {
  for (const [name, q] of Object.entries(list)) {
    switch (name) {
      case 'cpu':
        r.milliCPU += parseQuantity(q).milliValue();
        break;
      case 'memory':
        r.memory += parseQuantity(q).value();
        break;
      case 'ephemeral-storage':
        r.ephemeralStorage += parseQuantity(q).value();
        break;
      default:
        if (!NATIVE.has(name)) r.scalar.set(name, (r.scalar.get(name) ?? 0) + parseQuantity(q).value());
    }
  }
}

/** `into += r`, in place. */
export function addResource(into: Resource, r: Resource, sign: 1 | -1 = 1): void {
  into.milliCPU += sign * r.milliCPU;
  into.memory += sign * r.memory;
  into.ephemeralStorage += sign * r.ephemeralStorage;
  for (const [k, v] of r.scalar) {
    const next = (into.scalar.get(k) ?? 0) + sign * v;
    if (next === 0) into.scalar.delete(k);
    else into.scalar.set(k, next);
  }
}

/** `into = max(into, r)` per resource, in place. */
function maxResource(into: Resource, r: Resource): void {
  into.milliCPU = Math.max(into.milliCPU, r.milliCPU);
  into.memory = Math.max(into.memory, r.memory);
  into.ephemeralStorage = Math.max(into.ephemeralStorage, r.ephemeralStorage);
  for (const [k, v] of r.scalar) into.scalar.set(k, Math.max(into.scalar.get(k) ?? 0, v));
}

function cloneResource(r: Resource): Resource {
  return { ...r, scalar: new Map(r.scalar) };
}

/**
 * The effective request of a pod (upstream `PodRequests`):
 * `max(sum(containers) + sum(sidecars), max over init containers of (init + sidecars started before it))
 * + overhead`. Sidecars are init containers with `restartPolicy: Always`; they keep running, so they add
 * to the containers' sum and to every later init container.
 *
 * Worked example: containers 200m + 300m, init containers [sidecar 100m, plain 800m] ⇒ containers
 * side = 500m + 100m = 600m; init side = max(100m, 800m + 100m) = 900m; request = 900m.
 */
export function computePodResourceRequest(pod: Pod): Resource {
  return podRequests(pod, (c) => resourceFromList(c.resources?.requests));
}

/**
 * Like {@link computePodResourceRequest}, but a container with no cpu (memory) request counts
 * {@link DEFAULT_MILLI_CPU_REQUEST} ({@link DEFAULT_MEMORY_REQUEST}), so that scoring also spreads
 * best-effort pods (upstream `NodeInfo.NonZeroRequested`, option `NonMissingContainerRequests`).
 */
export function computePodNonZeroRequest(pod: Pod): Resource {
  return podRequests(pod, (c) => {
    const r = resourceFromList(c.resources?.requests);
    if (c.resources?.requests?.cpu === undefined) r.milliCPU = DEFAULT_MILLI_CPU_REQUEST;
    if (c.resources?.requests?.memory === undefined) r.memory = DEFAULT_MEMORY_REQUEST;
    return r;
  });
}

function podRequests(pod: Pod, containerRequests: (c: Container) => Resource): Resource {
  const spec = pod.spec;
  const reqs = emptyResource();
  for (const c of spec?.containers ?? []) addResource(reqs, containerRequests(c));
  const sidecars = emptyResource();
  const initMax = emptyResource();
  for (const c of spec?.initContainers ?? []) {
    const r = containerRequests(c);
    if (c.restartPolicy === 'Always') {
      addResource(reqs, r);
      addResource(sidecars, r);
      maxResource(initMax, sidecars);
    } else {
      const withSidecars = cloneResource(r);
      addResource(withSidecars, sidecars);
      maxResource(initMax, withSidecars);
    }
  }
  maxResource(reqs, initMax);
  if (spec?.overhead) addList(reqs, spec.overhead);
  return reqs;
}
