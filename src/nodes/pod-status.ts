/**
 * Pieces of the pod status a simulated kubelet reports, shared by the stages: image and container
 * ids, conditions that keep their transition times, container states.
 * Shapes follow what the kubelet writes (pkg/kubelet/kubelet_pods.go `generateAPIPodStatus`,
 * `convertToAPIContainerStatuses`; pkg/kubelet/status/generate.go for the Ready/ContainersReady reasons).
 */
import type { Container, ContainerStatus, Pod, PodCondition } from '../api/index.js';
import { sha256Hex } from './hash.js';

export const isBeingDeleted = (pod: Pod): boolean => !!pod.metadata?.deletionTimestamp;
export const phaseOf = (pod: Pod): string => pod.status?.phase ?? 'Pending';

/** `docker.io/library/nginx` for `nginx:1.27`, as the runtime reports image repositories. */
export function imageRepository(image: string): string {
  const at = image.indexOf('@');
  let name = at >= 0 ? image.slice(0, at) : image;
  const colon = name.lastIndexOf(':');
  if (colon > name.lastIndexOf('/')) name = name.slice(0, colon);
  const first = name.split('/')[0] ?? '';
  const hasRegistry = name.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (hasRegistry) return name;
  return name.includes('/') ? `docker.io/${name}` : `docker.io/library/${name}`;
}

/** Deterministic image digest reference, e.g. `docker.io/library/nginx@sha256:…`. */
export function imageID(image: string): string {
  return `${imageRepository(image)}@sha256:${sha256Hex(image)}`;
}

/** Deterministic container id in the simulated runtime's scheme. */
export function containerID(pod: Pod, c: Container): string {
  return `kubeplane://${sha256Hex(`${pod.metadata?.uid ?? ''}/${c.name}`)}`;
}

/** Conditions set to `status` keeping lastTransitionTime where the status does not change. */
export function setConditions(pod: Pod, wanted: Array<Omit<PodCondition, 'lastTransitionTime'>>, now: string): PodCondition[] {
  const existing = pod.status?.conditions ?? [];
  const byType = new Map(existing.map((c) => [c.type, c]));
  const out: PodCondition[] = wanted.map((w) => {
    const old = byType.get(w.type);
    const lastTransitionTime = old && old.status === w.status && old.lastTransitionTime ? old.lastTransitionTime : now;
    return { ...w, lastTransitionTime };
  });
  // Conditions owned by others (readiness gates, DisruptionTarget…) are kept.
  for (const c of existing) if (!wanted.some((w) => w.type === c.type)) out.push(c);
  return out;
}

/**
 * The five kubelet conditions of a pod whose sandbox is (`sandboxReady`) or is not yet up, with the
 * containers named in `unready` not ready: Ready/ContainersReady False, reason ContainersNotReady,
 * message `containers with unready status: [a b]`; True when `unready` is empty.
 */
export function podConditions(pod: Pod, sandboxReady: boolean, unready: readonly string[], now: string): PodCondition[] {
  const ready =
    unready.length === 0
      ? { status: 'True' }
      : { status: 'False', reason: 'ContainersNotReady', message: `containers with unready status: [${unready.join(' ')}]` };
  return setConditions(
    pod,
    [
      { type: 'PodReadyToStartContainers', status: sandboxReady ? 'True' : 'False' },
      { type: 'Initialized', status: 'True' },
      { type: 'Ready', ...ready },
      { type: 'ContainersReady', ...ready },
      { type: 'PodScheduled', status: 'True' },
    ],
    now,
  );
}

/** A running, ready container started at `startedAt` (RFC 3339). */
export const running = (pod: Pod, c: Container, startedAt: string): ContainerStatus => ({
  name: c.name,
  image: c.image ?? '',
  imageID: imageID(c.image ?? ''),
  containerID: containerID(pod, c),
  ready: true,
  started: true,
  restartCount: 0,
  state: { running: { startedAt } },
});

/** A container not started yet, waiting with `reason` (ContainerCreating, PodInitializing). */
export const waitingContainer = (c: Container, reason: string): ContainerStatus => ({
  name: c.name,
  image: c.image ?? '',
  imageID: '',
  ready: false,
  started: false,
  restartCount: 0,
  state: { waiting: { reason } },
});
