/**
 * Stages of pods whose references are missing (pod-references.ts decides what is missing):
 *
 * | pod                                                  | what happens                                                        |
 * |------------------------------------------------------|---------------------------------------------------------------------|
 * | mounts a ConfigMap/Secret (or a projected source, or  | stays Pending, containers `ContainerCreating`; Warning FailedMount   |
 * | an `items` key) that does not exist, not optional      | `MountVolume.SetUp failed for volume "v" : configmap "x" not found`, |
 * |                                                      | retried 0.5 s, 1 s, 2 s … at most 2m2s apart; mounts once it exists  |
 * | takes env (`env[].valueFrom` configMapKeyRef/         | Pending; that container waiting `CreateContainerConfigError` with    |
 * | secretKeyRef, `envFrom`) from a missing object or key | the error as message, the others run; Warning Failed `Error: …`;     |
 * |                                                      | retried every 10–15 s; starts once it exists                         |
 *
 * Follows the kubelet: the volume manager's reconciler retries a failed mount with the exponential
 * back-off of pkg/util/goroutinemap/exponentialbackoff (500 ms doubled per failure, at most 2m2s;
 * pkg/volume/util/nestedpendingoperations), recording FailedMount each time (operation_generator.go);
 * the containers are only started once every volume is mounted (kubelet.go `SyncPod`,
 * `WaitForAttachAndMount`). A container config error (kuberuntime_container.go `startContainer`:
 * `generateContainerConfig` fails after the image is ensured) fails the pod sync; the pod worker
 * retries it after its back-off period, 10 s with a jitter of up to 50 % (pod_workers.go,
 * kubelet.go `backOffPeriod`), recording the image event and `Failed` again each time.
 */
import type { Pod } from '../api/index.js';
import { parseTime } from '../util/clock/index.js';
import { waitingContainersStatus } from './failure-stages.js';
import { containerConfigErrorEvent, containerStartedEvents, failedMountEvent, imageEvents, imagePullMs } from './kubelet-events.js';
import { containerConfigErrors, volumeMountErrors, type PodReferenceLookup } from './pod-references.js';
import { isBeingDeleted, phaseOf } from './pod-status.js';
import type { PodStage, StageContext, StageEvent, StageResult } from './stage-types.js';

/** The container waiting reason of a config error (kuberuntime `ErrCreateContainerConfig`). */
export const CREATE_CONTAINER_CONFIG_ERROR = 'CreateContainerConfigError';
/** exponentialbackoff: the first retry of a failed volume operation, ms. */
const MOUNT_BACKOFF_INITIAL_MS = 500;
/** exponentialbackoff `maxDurationBeforeRetry`: 2m2s. */
const MOUNT_BACKOFF_MAX_MS = 122_000;
/** The pod worker's back-off after a failed sync, ms, and its jitter (factor 0.5). */
export const POD_SYNC_BACKOFF_MS = 10_000;
const POD_SYNC_BACKOFF_JITTER_MS = 5_000;

/** A pod the kubelet has started (sandbox being created), not being deleted, still Pending. */
const starting = (pod: Pod): boolean => !isBeingDeleted(pod) && phaseOf(pod) === 'Pending' && !!pod.status?.startTime;

/**
 * The wait from `now` until the next mount attempt of a pod started at `startTime`: attempts at 0.5,
 * 1.5, 3.5, 7.5 … s after the start, each gap doubled up to 2m2s (strictly after `now`, so an attempt
 * made at `now` is not made again). Derived from the start time rather than counted, so the simulator
 * keeps no state per pod.
 */
export function mountRetryDelayMs(pod: Pod, now: number): number {
  const start = parseTime(pod.status?.startTime) ?? now;
  let at = start;
  for (let gap = MOUNT_BACKOFF_INITIAL_MS; at <= now; gap = Math.min(gap * 2, MOUNT_BACKOFF_MAX_MS)) at += gap;
  return at - now;
}

/**
 * pod-volume-mount-failed: a starting pod (no IP yet: its containers wait in ContainerCreating) with a
 * volume that cannot be set up ⇒ Warning FailedMount per such volume, no status change; evaluated
 * again at the next attempt, when pod-ready (or another stage) takes over once every volume mounts.
 */
export function volumeMountStage(): PodStage {
  return {
    name: 'pod-volume-mount-failed',
    resource: 'Pod',
    selector: (pod, lookup) => !!lookup && starting(pod) && !pod.status?.podIP && volumeMountErrors(pod, lookup).length > 0,
    delayMs: mountRetryDelayMs,
    next: (pod, ctx) => ({ events: ctx.lookup ? volumeMountErrors(pod, ctx.lookup).map((e) => failedMountEvent(e.volume, e.message)) : [] }),
  };
}

const inConfigError = (pod: Pod): boolean => (pod.status?.containerStatuses ?? []).some((s) => s.state?.waiting?.reason === CREATE_CONTAINER_CONFIG_ERROR);
const configErrors = (pod: Pod, lookup: PodReferenceLookup | undefined): Map<string, string> => (lookup ? containerConfigErrors(pod, lookup) : new Map<string, string>());

/**
 * One start attempt of the pod's containers with `errors` (name → message): for each container in
 * order its image event, then `Failed: Error: …` for a failing one or Created/Started for the others.
 * Only containers not running yet are attempted.
 */
function attemptEvents(pod: Pod, errors: ReadonlyMap<string, string>, ctx: StageContext): StageEvent[] {
  const runningNow = new Set((pod.status?.containerStatuses ?? []).filter((s) => s.state?.running).map((s) => s.name));
  const events: StageEvent[] = [];
  for (const c of pod.spec?.containers ?? []) {
    if (runningNow.has(c.name)) continue;
    const image = c.image ?? '';
    events.push(...imageEvents(pod, c, ctx.node.images?.has(image) ?? false, imagePullMs(image)));
    ctx.node.images?.add(image);
    const err = errors.get(c.name);
    events.push(...(err ? [containerConfigErrorEvent(pod, c, err)] : containerStartedEvents(pod, c)));
  }
  return events;
}

function configErrorResult(pod: Pod, errors: ReadonlyMap<string, string>, ctx: StageContext): StageResult {
  const waiting = new Map([...errors].map(([name, message]) => [name, { reason: CREATE_CONTAINER_CONFIG_ERROR, message }]));
  return { status: waitingContainersStatus(pod, ctx, waiting), events: attemptEvents(pod, errors, ctx) };
}

/** Whether the pod's status already reports exactly `errors`. */
function reports(pod: Pod, errors: ReadonlyMap<string, string>): boolean {
  const shown = (pod.status?.containerStatuses ?? []).filter((s) => s.state?.waiting?.reason === CREATE_CONTAINER_CONFIG_ERROR);
  return shown.length === errors.size && shown.every((s) => errors.get(s.name) === s.state?.waiting?.message);
}

/**
 * The container config error stages of a starting pod whose containers take env from missing objects
 * or keys:
 * - pod-container-config-error: first attempt, after the start delay (as pod-ready) ⇒ those containers
 *   waiting CreateContainerConfigError with the error as message, the others running; Pending, not Ready;
 * - pod-container-config-retry: in CreateContainerConfigError ⇒ attempted again after 10–15 s: the same
 *   events again (status rewritten only when the errors changed). Once nothing is missing neither
 *   applies and pod-ready starts the pod.
 */
export function containerConfigStages(delayMs = 500, jitterMs = 500): PodStage[] {
  return [
    {
      name: 'pod-container-config-retry',
      resource: 'Pod',
      selector: (pod, lookup) => starting(pod) && inConfigError(pod) && configErrors(pod, lookup).size > 0,
      delayMs: POD_SYNC_BACKOFF_MS,
      jitterMs: POD_SYNC_BACKOFF_JITTER_MS,
      next: (pod, ctx) => {
        const errors = configErrors(pod, ctx.lookup);
        return reports(pod, errors) ? { events: attemptEvents(pod, errors, ctx) } : configErrorResult(pod, errors, ctx);
      },
    },
    {
      name: 'pod-container-config-error',
      resource: 'Pod',
      selector: (pod, lookup) => starting(pod) && !inConfigError(pod) && configErrors(pod, lookup).size > 0,
      delayMs,
      jitterMs,
      next: (pod, ctx) => configErrorResult(pod, configErrors(pod, ctx.lookup), ctx),
    },
  ];
}
