/**
 * Failure paths of simulated pods: containers that never start, so rollouts stall as they do on a
 * real cluster. Two triggers, both visible in the manifest:
 *
 * | trigger                                                   | what the pod does                                          |
 * |-----------------------------------------------------------|------------------------------------------------------------|
 * | a container image containing `doesnotexist`               | Pending; that container waiting `ErrImagePull`, then        |
 * | (e.g. `nginx:doesnotexist`, `doesnotexist/app`)           | `ImagePullBackOff`; pulled again after 10 s, 20 s, 40 s … 5 min |
 * | pod annotation `kubeplane.io/simulate: CrashLoopBackOff`  | Running; every container exits at once (exit code 1,        |
 * | (in a Deployment: on the pod template)                    | `Error`), restarted at once, then `CrashLoopBackOff` with   |
 * |                                                           | back-off 10 s, 20 s, 40 s … 5 min; restartCount climbs      |
 *
 * Neither pod ever becomes Ready. With `restartPolicy: Never` a crashing pod ends `Failed`.
 *
 * Follows the kubelet: pkg/kubelet/images/image_manager.go (`EnsureImageExists`: pull error →
 * ErrImagePull, back-off keyed per pod and image, 10 s doubling to `MaxContainerBackOff` 300 s, the
 * back-off message wrapping the previous pull error), pkg/kubelet/kuberuntime/kuberuntime_manager.go
 * (`doBackOff`: the first restart is immediate, then "back-off <d> restarting failed
 * container=<c> pod=<name>_<ns>(<uid>)"), pkg/kubelet/kubelet_pods.go (`getPhase`: a container that
 * never started keeps the pod Pending; one that ran keeps it Running under restartPolicy Always).
 * The pull error text is containerd's for a missing tag.
 */
import type { Container, ContainerStatus, Pod } from '../api/index.js';
import { formatTime, parseTime } from '../util/clock/index.js';
import { restartEvents } from './kubelet-events.js';
import { containerID, imageRepository, isBeingDeleted, phaseOf, podConditions, running } from './pod-status.js';
import type { PodStage, StageContext } from './stage-types.js';

type ContainerStateTerminated = NonNullable<NonNullable<ContainerStatus['state']>['terminated']>;

/** Pod annotation selecting a simulated failure. Value: `CrashLoopBackOff`. */
export const SIMULATE_ANNOTATION = 'kubeplane.io/simulate';
/** Images containing this string cannot be pulled. */
export const MISSING_IMAGE_MARKER = 'doesnotexist';

/** kubelet back-off: 10 s initial, doubled per failure, at most `MaxContainerBackOff` = 300 s. */
const BACKOFF_INITIAL_MS = 10_000;
const BACKOFF_MAX_MS = 300_000;
/** From a failure to the kubelet's next pod sync reporting the back-off, ms. */
const RESYNC_MS = 1000;

/** The `n`-th back-off (n ≥ 1): 10 s, 20 s, 40 s, 80 s, 160 s, 300 s, 300 s … */
export function backOffMs(n: number): number {
  return Math.min(BACKOFF_INITIAL_MS * 2 ** Math.max(0, n - 1), BACKOFF_MAX_MS);
}

/** A duration as Go's `time.Duration.String()` for whole seconds: `10s`, `1m20s`, `5m0s`. */
export function goDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${s % 60}s`;
}

/** `format.Pod`: `<name>_<namespace>(<uid>)`. */
const formatPod = (pod: Pod): string => `${pod.metadata?.name ?? ''}_${pod.metadata?.namespace ?? ''}(${pod.metadata?.uid ?? ''})`;

// ---- image pull failures ----------------------------------------------------------------------

export const isMissingImage = (image: string | undefined): boolean => (image ?? '').includes(MISSING_IMAGE_MARKER);
const hasMissingImage = (pod: Pod): boolean => (pod.spec?.containers ?? []).some((c) => isMissingImage(c.image));
const waitingReason = (pod: Pod): Set<string> => new Set((pod.status?.containerStatuses ?? []).map((s) => s.state?.waiting?.reason ?? ''));

/** `applyDefaultImageTag`: `nginx` → `nginx:latest`; tagged or digested references unchanged. */
function withDefaultTag(image: string): string {
  const lastPart = image.slice(image.lastIndexOf('/') + 1);
  return image.includes('@') || lastPart.includes(':') ? image : `${image}:latest`;
}

/** containerd's error for a tag that does not exist, e.g. for `nginx:doesnotexist`. */
export function pullErrorMessage(image: string): string {
  const ref = withDefaultTag(image);
  const full = imageRepository(ref) + ref.slice(ref.search(/[:@][^/]*$/));
  return (
    `rpc error: code = NotFound desc = failed to pull and unpack image ${JSON.stringify(full)}: ` +
    `failed to resolve reference ${JSON.stringify(full)}: ${full}: not found`
  );
}

/**
 * The pull back-off left at `now` for a pod started at `startTime`: pulls happen at 0, 10, 30, 70,
 * 150, 310, 610 … s after the start (each gap one back-off longer), so the wait is until the next of
 * those instants (at least 1 s). E.g. in back-off 12 s after the start: the next pull is at 30 s, in 18 s.
 */
export function pullRetryDelayMs(pod: Pod, now: number): number {
  const start = parseTime(pod.status?.startTime) ?? now;
  let at = 0;
  for (let n = 1; start + at <= now; n++) at += backOffMs(n);
  return Math.max(RESYNC_MS, start + at - now);
}

/** The status of a pod whose missing images are waiting with `reason`; its other containers run. */
function pullFailureStatus(pod: Pod, ctx: StageContext, reason: 'ErrImagePull' | 'ImagePullBackOff'): object {
  const waiting = new Map<string, { reason: string; message: string }>();
  for (const c of pod.spec?.containers ?? []) {
    if (!isMissingImage(c.image)) continue;
    const err = pullErrorMessage(c.image ?? '');
    waiting.set(c.name, { reason, message: reason === 'ErrImagePull' ? err : `Back-off pulling image ${JSON.stringify(c.image ?? '')}: ErrImagePull: ${err}` });
  }
  return waitingContainersStatus(pod, ctx, waiting);
}

/**
 * The status of a started pod (sandbox up, IP allocated) some of whose containers could not be
 * started and are waiting (`waiting`: container name → reason and message); the others run. Pending
 * (kubelet_pods.go `getPhase`: a container that never ran keeps the pod Pending), not Ready.
 */
export function waitingContainersStatus(pod: Pod, ctx: StageContext, waiting: ReadonlyMap<string, { reason: string; message: string }>): object {
  const now = formatTime(ctx.now);
  const previous = new Map((pod.status?.containerStatuses ?? []).map((s) => [s.name, s]));
  const containers = pod.spec?.containers ?? [];
  const statuses = containers.map((c): ContainerStatus => {
    const w = waiting.get(c.name);
    if (!w) return running(pod, c, previous.get(c.name)?.state?.running?.startedAt ?? now);
    return { name: c.name, image: c.image ?? '', imageID: '', ready: false, started: false, restartCount: 0, state: { waiting: { ...w } } };
  });
  const podIP = ctx.allocatePodIP(pod);
  return {
    phase: 'Pending',
    conditions: podConditions(pod, true, containers.filter((c) => waiting.has(c.name)).map((c) => c.name), now),
    podIP,
    podIPs: [{ ip: podIP }],
    containerStatuses: statuses,
  };
}

const firstMissingImage = (pod: Pod): string => (pod.spec?.containers ?? []).find((c) => isMissingImage(c.image))?.image ?? '';
const firstMissingImageField = (pod: Pod): string => `spec.containers{${(pod.spec?.containers ?? []).find((c) => isMissingImage(c.image))?.name ?? ''}}`;

/**
 * The image-pull failure stages of a started pod with a missing image:
 * - pod-image-pull-error: starting (or any state not below) ⇒ ErrImagePull, after the start delay;
 *   event Warning Failed `Failed to pull image "<image>": <error>`;
 * - pod-image-pull-backoff: ErrImagePull ⇒ ImagePullBackOff 1 s later; event Normal BackOff
 *   `Back-off pulling image "<image>"`;
 * - pod-image-pull-retry: ImagePullBackOff ⇒ pulled again (ErrImagePull) when the back-off ends.
 */
export function imagePullFailureStages(delayMs = 500, jitterMs = 500): PodStage[] {
  const candidate = (pod: Pod): boolean => !isBeingDeleted(pod) && phaseOf(pod) === 'Pending' && !!pod.status?.startTime && hasMissingImage(pod);
  const pullFailed: PodStage['next'] = (pod, ctx) => ({
    status: pullFailureStatus(pod, ctx, 'ErrImagePull'),
    events: [{ type: 'Warning', reason: 'Failed', message: `Failed to pull image ${JSON.stringify(firstMissingImage(pod))}: ${pullErrorMessage(firstMissingImage(pod))}`, fieldPath: firstMissingImageField(pod) }],
  });
  return [
    {
      name: 'pod-image-pull-backoff',
      resource: 'Pod',
      selector: (pod) => candidate(pod) && waitingReason(pod).has('ErrImagePull'),
      delayMs: RESYNC_MS,
      next: (pod, ctx) => ({
        status: pullFailureStatus(pod, ctx, 'ImagePullBackOff'),
        events: [{ type: 'Normal', reason: 'BackOff', message: `Back-off pulling image ${JSON.stringify(firstMissingImage(pod))}`, fieldPath: firstMissingImageField(pod) }],
      }),
    },
    {
      name: 'pod-image-pull-retry',
      resource: 'Pod',
      selector: (pod) => candidate(pod) && waitingReason(pod).has('ImagePullBackOff'),
      delayMs: pullRetryDelayMs,
      next: pullFailed,
    },
    {
      name: 'pod-image-pull-error',
      resource: 'Pod',
      selector: candidate,
      delayMs,
      jitterMs,
      next: pullFailed,
    },
  ];
}

// ---- crash loops ------------------------------------------------------------------------------

const isCrashLooping = (pod: Pod): boolean => pod.metadata?.annotations?.[SIMULATE_ANNOTATION] === 'CrashLoopBackOff';
const restartsAlways = (pod: Pod): boolean => pod.spec?.restartPolicy !== 'Never';
const statusOf = (pod: Pod, c: Container): ContainerStatus | undefined => pod.status?.containerStatuses?.find((s) => s.name === c.name);

/** A container that exited with code 1 at `now`, having started at `startedAt`. */
function exited(pod: Pod, c: Container, restartCount: number, startedAt: string, now: string, lastState?: ContainerStateTerminated): ContainerStatus {
  const terminated: ContainerStateTerminated = { exitCode: 1, reason: 'Error', startedAt, finishedAt: now, containerID: containerID(pod, c) };
  return {
    ...running(pod, c, startedAt),
    ready: false,
    started: false,
    restartCount,
    state: { terminated },
    ...(lastState ? { lastState: { terminated: lastState } } : {}),
  };
}

/** The pod status with `containerStatuses`; never Ready. Phase Running, or Failed under restartPolicy Never. */
function crashedStatus(pod: Pod, ctx: StageContext, containerStatuses: ContainerStatus[]): object {
  const now = formatTime(ctx.now);
  const podIP = ctx.allocatePodIP(pod);
  return {
    phase: restartsAlways(pod) ? 'Running' : 'Failed',
    conditions: podConditions(pod, true, containerStatuses.map((s) => s.name), now),
    podIP,
    podIPs: [{ ip: podIP }],
    containerStatuses,
  };
}

/**
 * The crash-loop stages of a pod annotated `kubeplane.io/simulate: CrashLoopBackOff`:
 * - pod-crash: started (or running) ⇒ every container terminated, exit code 1, reason Error, after
 *   the start delay; phase Running (Failed under restartPolicy Never);
 * - pod-crash-restart: terminated, restartCount 0 ⇒ restarted at once and exited again (restartCount
 *   1); restartCount n ≥ 1 ⇒ waiting CrashLoopBackOff "back-off <10 s·2^(n−1), ≤ 5m0s> restarting
 *   failed container=<c> pod=<pod>", event Warning BackOff; 1 s after the exit;
 * - pod-crash-backoff-expired: CrashLoopBackOff ⇒ restarted and exited again (restartCount + 1) once
 *   that back-off has passed.
 * The last termination is kept in `lastState`, as the kubelet reports it.
 */
export function crashLoopStages(delayMs = 500, jitterMs = 500): PodStage[] {
  const candidate = (pod: Pod): boolean => !isBeingDeleted(pod) && isCrashLooping(pod);
  const containers = (pod: Pod): Container[] => pod.spec?.containers ?? [];
  const restarts = (pod: Pod): number => pod.status?.containerStatuses?.[0]?.restartCount ?? 0;
  return [
    {
      name: 'pod-crash',
      resource: 'Pod',
      selector: (pod) =>
        candidate(pod) &&
        ((phaseOf(pod) === 'Pending' && !!pod.status?.startTime) ||
          (phaseOf(pod) === 'Running' && (pod.status?.containerStatuses ?? []).some((s) => s.state?.running))),
      delayMs,
      jitterMs,
      next: (pod, ctx) => {
        const now = formatTime(ctx.now);
        const statuses = containers(pod).map((c) => {
          const s = statusOf(pod, c);
          return exited(pod, c, s?.restartCount ?? 0, s?.state?.running?.startedAt ?? now, now, s?.lastState?.terminated);
        });
        // From Pending the containers were first started (then crashed): the kubelet's start events.
        const events = phaseOf(pod) === 'Pending' ? restartEvents(pod, containers(pod).map((c) => c.name)) : [];
        return { status: crashedStatus(pod, ctx, statuses), events };
      },
    },
    {
      name: 'pod-crash-restart',
      resource: 'Pod',
      selector: (pod) =>
        candidate(pod) && restartsAlways(pod) && phaseOf(pod) === 'Running' && (pod.status?.containerStatuses ?? []).some((s) => s.state?.terminated),
      delayMs: RESYNC_MS,
      next: (pod, ctx) => {
        const now = formatTime(ctx.now);
        const n = restarts(pod);
        if (n === 0) {
          const statuses = containers(pod).map((c) => exited(pod, c, 1, now, now, statusOf(pod, c)?.state?.terminated));
          return { status: crashedStatus(pod, ctx, statuses), events: restartEvents(pod, containers(pod).map((c) => c.name)) };
        }
        const backOff = goDuration(backOffMs(n));
        const statuses = containers(pod).map((c): ContainerStatus => {
          const s = statusOf(pod, c);
          const message = `back-off ${backOff} restarting failed container=${c.name} pod=${formatPod(pod)}`;
          return {
            ...exited(pod, c, s?.restartCount ?? n, now, now),
            state: { waiting: { reason: 'CrashLoopBackOff', message } },
            ...(s?.state?.terminated ? { lastState: { terminated: s.state.terminated } } : {}),
          };
        });
        const first = containers(pod)[0]?.name ?? '';
        return {
          status: crashedStatus(pod, ctx, statuses),
          events: [{ type: 'Warning', reason: 'BackOff', message: `Back-off restarting failed container ${first} in pod ${formatPod(pod)}`, fieldPath: `spec.containers{${first}}` }],
        };
      },
    },
    {
      name: 'pod-crash-backoff-expired',
      resource: 'Pod',
      selector: (pod) => candidate(pod) && phaseOf(pod) === 'Running' && waitingReason(pod).has('CrashLoopBackOff'),
      delayMs: (pod) => backOffMs(restarts(pod)),
      next: (pod, ctx) => {
        const now = formatTime(ctx.now);
        const statuses = containers(pod).map((c) => {
          const s = statusOf(pod, c);
          return exited(pod, c, (s?.restartCount ?? 0) + 1, now, now, s?.lastState?.terminated);
        });
        return { status: crashedStatus(pod, ctx, statuses), events: restartEvents(pod, containers(pod).map((c) => c.name)) };
      },
    },
  ];
}
