/**
 * Containers that end: what a container prints, its exit code and run time come from its
 * `command`/`args`/`env` (src/machinery/simcontainer: `sh -c 'sleep 5; exit 3'` exits 3 five seconds
 * after it started; anything not understood runs 1 s and exits 0 in pods with `restartPolicy: Never`
 * or `OnFailure`, and never ends under `Always`, where it is taken for a server). Triggers, all
 * visible in the manifest:
 *
 * | pod                                   | what happens                                                             |
 * |---------------------------------------|--------------------------------------------------------------------------|
 * | a Running pod                         | each running container terminates when its program ends: exit code,     |
 * |                                       | reason Completed (0) or Error, startedAt/finishedAt, ready false         |
 * | all containers exited 0               | phase Succeeded; Ready/ContainersReady False reason PodCompleted          |
 * | Never, all exited, some non-zero      | phase Failed; Ready/ContainersReady False reason PodFailed                |
 * | OnFailure, a container exited ≠ 0;    | restarted 1 s later (restartCount 1), then each later exit waits in      |
 * | Always, a container exited (any code) | CrashLoopBackOff 10 s, 20 s … 5 min (lastState.terminated keeps the exit); |
 * |                                       | the pod stays Running, not Ready while a container is down               |
 * | `spec.activeDeadlineSeconds` (any pod) | that long after `status.startTime`: phase Failed, reason                |
 * |                                       | DeadlineExceeded, running containers killed (exit 137, Error)            |
 * | OnFailure, an init container exited ≠ 0 | Pending (Init:Error); the init container restarted as above  |
 * |                                       | (Init:CrashLoopBackOff), forever: a simulated program fails alike each run |
 * | being deleted with finalizers          | containers killed (137) at the end of the grace period; Failed (or       |
 * | (e.g. an evicted Job pod)              | Succeeded if all had exited 0); DisruptionTarget kept                    |
 *
 * A program that never ends (`sleep infinity`, a server) keeps its container running. Init containers
 * of Always pods are reported Completed when the pod starts (stages.ts pod-ready).
 *
 * Follows the kubelet: pkg/kubelet/kubelet_pods.go (`getPhase`: Succeeded when every container
 * exited 0, Failed under Never when one failed, Running while containers restart), pkg/kubelet/status/
 * generate.go (terminal-phase Ready/ContainersReady reasons PodCompleted/PodFailed), pkg/kubelet/
 * active_deadline.go (reason and message), pkg/kubelet/kuberuntime/kuberuntime_manager.go (back-off,
 * shared with failure-stages.ts).
 */
import type { Container, ContainerStatus, Pod } from '../api/index.js';
import { runPodContainer } from '../machinery/simcontainer/index.js';
import { formatTime, parseTime } from '../util/clock/index.js';
import { backOffMs, goDuration, SIMULATE_ANNOTATION } from './failure-stages.js';
import { killingEvents, restartEvents } from './kubelet-events.js';
import { containerID, isBeingDeleted, phaseOf, podConditions, setConditions, waitingContainer } from './pod-status.js';
import type { PodStage, StageContext, StageResult } from './stage-types.js';

type Terminated = NonNullable<NonNullable<ContainerStatus['state']>['terminated']>;

/** From a container's exit to the kubelet's next sync (restart or back-off report), ms. */
const RESYNC_MS = 1000;
/** Reason and message of a pod past its activeDeadlineSeconds (pkg/kubelet/active_deadline.go). */
export const DEADLINE_EXCEEDED_REASON = 'DeadlineExceeded';
export const DEADLINE_EXCEEDED_MESSAGE = 'Pod was active on the node longer than the specified deadline';
/** Exit code of a container killed by SIGKILL. */
const KILLED_EXIT_CODE = 137;

/** restartPolicy Never or OnFailure. */
export const runsToCompletion = (pod: Pod): boolean => pod.spec?.restartPolicy === 'Never' || pod.spec?.restartPolicy === 'OnFailure';

/** A Running pod whose containers' programs decide what happens (not crash-looping by annotation, not being deleted). */
const candidate = (pod: Pod): boolean => !isBeingDeleted(pod) && phaseOf(pod) === 'Running' && !pod.metadata?.annotations?.[SIMULATE_ANNOTATION];

/** What the container's program does: output, exit code, run time (ms) — with the pod's HOSTNAME and downward-API env. */
export function containerProgram(pod: Pod, c: Container): ReturnType<typeof runPodContainer> {
  return runPodContainer(pod, c);
}

/**
 * The containers one family of run/exit/restart stages works on: the regular containers of a Running
 * pod, or the init containers of an OnFailure pod whose initialisation failed (Pending, in its
 * init crash loop). Same kubelet rules, different lists and a different pod status around them.
 */
interface ContainerSet {
  /** Stage name prefix: `pod-container`, `pod-init-container`. */
  stage: string;
  /** The pods these stages run on. */
  applies: (pod: Pod) => boolean;
  specs: (pod: Pod) => readonly Container[];
  statuses: (pod: Pod) => readonly ContainerStatus[];
  /** Whether a running container of this set counts as ready (init containers never do). */
  readyWhileRunning: boolean;
  /** The pod status with this set's statuses replaced by `statuses`. */
  podStatus: (pod: Pod, statuses: ContainerStatus[], now: string) => StageResult['status'];
}

const REGULAR: ContainerSet = {
  stage: 'pod-container',
  applies: candidate,
  specs: (pod) => pod.spec?.containers ?? [],
  statuses: (pod) => pod.status?.containerStatuses ?? [],
  readyWhileRunning: true,
  podStatus: (pod, statuses, now) => podStatusFor(pod, statuses, now),
};

const INIT: ContainerSet = {
  stage: 'pod-init-container',
  applies: (pod) =>
    pod.spec?.restartPolicy === 'OnFailure' &&
    !isBeingDeleted(pod) &&
    phaseOf(pod) === 'Pending' &&
    !pod.metadata?.annotations?.[SIMULATE_ANNOTATION] &&
    (pod.status?.initContainerStatuses?.length ?? 0) > 0,
  specs: (pod) => (pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy !== 'Always'),
  statuses: (pod) => pod.status?.initContainerStatuses ?? [],
  readyWhileRunning: false,
  podStatus: (pod, statuses, now) => initCrashStatus(pod, statuses, now),
};

/** When (ms) the running container ends, or undefined if it never does. */
function endsAt(set: ContainerSet, pod: Pod, s: ContainerStatus): number | undefined {
  const c = set.specs(pod).find((x) => x.name === s.name);
  const started = parseTime(s.state?.running?.startedAt);
  if (!c || started === undefined) return undefined;
  const d = containerProgram(pod, c).durationMs;
  return Number.isFinite(d) ? started + d : undefined;
}

const runningEnds = (set: ContainerSet, pod: Pod): number[] =>
  set.statuses(pod).map((s) => endsAt(set, pod, s)).filter((t): t is number => t !== undefined);

const failedExit = (s: ContainerStatus): boolean => (s.state?.terminated?.exitCode ?? 0) !== 0;

/** The pod status for `statuses`: the phase the kubelet computes, and its conditions. */
function podStatusFor(pod: Pod, statuses: ContainerStatus[], now: string): StageResult['status'] {
  const allExited = statuses.every((s) => s.state?.terminated);
  const anyFailed = statuses.some(failedExit);
  let phase = 'Running';
  // Under restartPolicy Always every exited container is restarted: the pod stays Running.
  if (allExited && !anyFailed && runsToCompletion(pod)) phase = 'Succeeded';
  else if (allExited && pod.spec?.restartPolicy === 'Never') phase = 'Failed';
  if (phase === 'Running') {
    return { phase, conditions: podConditions(pod, true, statuses.filter((s) => !s.ready).map((s) => s.name), now), containerStatuses: statuses };
  }
  return { phase, conditions: terminalConditions(pod, phase, now), containerStatuses: statuses };
}

/** Conditions of a pod in a terminal phase (generate.go `…ForTerminalPhase`); the sandbox is gone. */
function terminalConditions(pod: Pod, phase: string, now: string): ReturnType<typeof setConditions> {
  const reason = phase === 'Succeeded' ? 'PodCompleted' : 'PodFailed';
  return setConditions(
    pod,
    [
      { type: 'PodReadyToStartContainers', status: 'False' },
      { type: 'Initialized', status: 'True', ...(phase === 'Succeeded' ? { reason: 'PodCompleted' } : {}) },
      { type: 'Ready', status: 'False', reason },
      { type: 'ContainersReady', status: 'False', reason },
      { type: 'PodScheduled', status: 'True' },
    ],
    now,
  );
}

const terminated = (pod: Pod, s: ContainerStatus, exitCode: number, now: string): Terminated => ({
  exitCode,
  reason: exitCode === 0 ? 'Completed' : 'Error',
  startedAt: s.state?.running?.startedAt ?? now,
  finishedAt: now,
  containerID: s.containerID ?? containerID(pod, { name: s.name }),
});

/**
 * pod-container-exit (and pod-init-container-exit): a Running run-to-completion pod ⇒ when the first
 * running container's program ends, every container whose program has ended by then terminates with
 * the program's exit code. The init variant ({@link initCrashLoopStages}) does the same for the init
 * container an OnFailure pod restarted in its init crash loop.
 */
export function podContainerExitStage(): PodStage {
  return containerExitStage(REGULAR);
}

function containerExitStage(set: ContainerSet): PodStage {
  return {
    name: `${set.stage}-exit`,
    resource: 'Pod',
    selector: (pod) => set.applies(pod) && runningEnds(set, pod).length > 0,
    delayMs: (pod, now) => Math.max(0, Math.min(...runningEnds(set, pod)) - now),
    next: (pod, ctx) => {
      const now = formatTime(ctx.now);
      const statuses = set.statuses(pod).map((s): ContainerStatus => {
        const end = endsAt(set, pod, s);
        const c = set.specs(pod).find((x) => x.name === s.name);
        if (end === undefined || end > ctx.now || !c) return s;
        const exitCode = containerProgram(pod, c).exitCode;
        return { ...s, ready: !set.readyWhileRunning && exitCode === 0, started: false, state: { terminated: terminated(pod, s, exitCode, now) } };
      });
      return { status: set.podStatus(pod, statuses, now) };
    },
  };
}

/**
 * The restart stages (the kubelet's container back-off, as crash loops in failure-stages.ts), for
 * restartPolicy OnFailure and Always:
 * - pod-container-restart: a container terminated — with a non-zero code under OnFailure, with any
 *   code under Always (a server that exits: Completed, then CrashLoopBackOff) ⇒ 1 s later restarted at once
 *   the first time (restartCount 1), afterwards waiting `CrashLoopBackOff` with message "back-off
 *   <d> restarting failed container=<c> pod=<name>_<ns>(<uid>)" and event Warning BackOff;
 * - pod-container-backoff-expired: CrashLoopBackOff ⇒ running again (restartCount + 1) once the
 *   back-off 10 s·2^(restartCount−1) (at most 5 min) has passed.
 * The last termination is kept in `lastState.terminated`. {@link initCrashLoopStages} runs the same
 * for a failed init container of an OnFailure pod (pod-init-container-restart, …-backoff-expired):
 * the pod stays Pending, `kubectl get pods` shows Init:Error, then Init:CrashLoopBackOff.
 */
export function restartStagesOfContainers(): PodStage[] {
  return restartStages(REGULAR);
}

function restartStages(set: ContainerSet): PodStage[] {
  const restarts = (pod: Pod): boolean => set.applies(pod) && pod.spec?.restartPolicy !== 'Never';
  // Under Always every exit is restarted (Completed too); under OnFailure only non-zero ones.
  const toRestart = (pod: Pod, s: ContainerStatus): boolean => !!s.state?.terminated && (!runsToCompletion(pod) || failedExit(s));
  const failed = (pod: Pod): ContainerStatus[] => set.statuses(pod).filter((s) => toRestart(pod, s));
  const backingOff = (pod: Pod): ContainerStatus[] => set.statuses(pod).filter((s) => s.state?.waiting?.reason === 'CrashLoopBackOff');
  const formatPod = (pod: Pod): string => `${pod.metadata?.name ?? ''}_${pod.metadata?.namespace ?? ''}(${pod.metadata?.uid ?? ''})`;
  const restarted = (s: ContainerStatus, restartCount: number, now: string, last: Terminated | undefined): ContainerStatus => ({
    ...s,
    ready: set.readyWhileRunning,
    started: true,
    restartCount,
    state: { running: { startedAt: now } },
    ...(last ? { lastState: { terminated: last } } : {}),
  });
  const write = (pod: Pod, ctx: StageContext, change: (s: ContainerStatus, now: string) => ContainerStatus): StageResult['status'] => {
    const now = formatTime(ctx.now);
    return set.podStatus(pod, set.statuses(pod).map((s) => change(s, now)), now);
  };
  return [
    {
      name: `${set.stage}-restart`,
      resource: 'Pod',
      selector: (pod) => restarts(pod) && failed(pod).length > 0,
      delayMs: RESYNC_MS,
      next: (pod, ctx) => {
        const status = write(pod, ctx, (s, now) => {
          if (!toRestart(pod, s)) return s;
          const n = s.restartCount ?? 0;
          if (n === 0) return restarted(s, 1, now, s.state?.terminated);
          const message = `back-off ${goDuration(backOffMs(n))} restarting failed container=${s.name} pod=${formatPod(pod)}`;
          return { ...s, ready: false, started: false, state: { waiting: { reason: 'CrashLoopBackOff', message } }, lastState: { terminated: s.state?.terminated as Terminated } };
        });
        const waiting = failed(pod).find((s) => (s.restartCount ?? 0) > 0);
        const restartedNow = failed(pod).filter((s) => (s.restartCount ?? 0) === 0).map((s) => s.name);
        return {
          status,
          events: [
            ...restartEvents(pod, restartedNow),
            ...(waiting
              ? [{ type: 'Warning' as const, reason: 'BackOff', message: `Back-off restarting failed container ${waiting.name} in pod ${formatPod(pod)}`, fieldPath: `spec.containers{${waiting.name}}` }]
              : []),
          ],
        };
      },
    },
    {
      name: `${set.stage}-backoff-expired`,
      resource: 'Pod',
      selector: (pod) => restarts(pod) && backingOff(pod).length > 0,
      delayMs: (pod) => Math.min(...backingOff(pod).map((s) => backOffMs(s.restartCount ?? 1))),
      next: (pod, ctx) => ({
        events: restartEvents(pod, backingOff(pod).map((s) => s.name)),
        status: write(pod, ctx, (s, now) =>
          s.state?.waiting?.reason === 'CrashLoopBackOff' ? restarted(s, (s.restartCount ?? 0) + 1, now, s.lastState?.terminated) : s,
        ),
      }),
    },
  ];
}

/**
 * The init crash loop of an OnFailure pod: its failed init container is restarted with the kubelet's
 * back-off, forever (a simulated program exits the same way every run), and the pod stays Pending.
 * Listed before pod-ready, which would otherwise take the Pending pod for a new one.
 */
export function initCrashLoopStages(): PodStage[] {
  return [containerExitStage(INIT), ...restartStages(INIT)];
}

// ---- deletion of pods that stay ----------------------------------------------------------------

/** The state the kubelet gives a container it cannot find once the pod is terminated (status_manager.go `TerminatePod`). */
const UNKNOWN_TERMINATED = { exitCode: KILLED_EXIT_CODE, reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated' };

/**
 * pod-kill: a pod being deleted that is not yet terminal and carries finalizers (the Job controller's
 * `batch.kubernetes.io/job-tracking`, a user's) ⇒ when its grace period is over, the kubelet kills
 * its containers and reports the terminal phase before it deletes the pod (pkg/kubelet/kubelet_pods.go
 * `getPhase` with podIsTerminal; pkg/kubelet/status/status_manager.go `TerminatePod`):
 * - running containers terminate with exit code 137, reason Error;
 * - containers that never ran (waiting) terminate as ContainerStatusUnknown, 137, "The container could
 *   not be located when the pod was terminated";
 * - phase Succeeded if every container had exited 0, else Failed, whatever the restartPolicy; the
 *   conditions of others (DisruptionTarget from an eviction) are kept.
 * So an evicted Job pod ends Failed with DisruptionTarget, which podFailurePolicy rules match.
 * Pods without finalizers go straight to pod-delete: the object disappears with the delete, and the
 * status write in between would cost a write per deleted pod for a state only a watcher could glimpse.
 */
export function podKillStage(delayMs = 500): PodStage {
  const killed = (pod: Pod, s: ContainerStatus, now: string): ContainerStatus => {
    if (s.state?.terminated) return { ...s, ready: false, started: false };
    const state = s.state?.running ? { terminated: terminated(pod, s, KILLED_EXIT_CODE, now) } : { terminated: UNKNOWN_TERMINATED };
    return { ...s, ready: false, started: false, state };
  };
  return {
    name: 'pod-kill',
    resource: 'Pod',
    selector: (pod) =>
      isBeingDeleted(pod) && (pod.metadata?.finalizers?.length ?? 0) > 0 && phaseOf(pod) !== 'Succeeded' && phaseOf(pod) !== 'Failed',
    delayMs,
    delayLimitMs: gracePeriodMs,
    next: (pod, ctx) => {
      const now = formatTime(ctx.now);
      const containerStatuses = (pod.status?.containerStatuses ?? []).map((s) => killed(pod, s, now));
      const phase = containerStatuses.length > 0 && containerStatuses.every((s) => s.state?.terminated?.exitCode === 0) ? 'Succeeded' : 'Failed';
      return { status: { phase, conditions: terminalConditions(pod, phase, now), containerStatuses }, events: killingEvents(pod) };
    },
  };
}

/** A deleted pod's grace period, ms: the upper bound for the kubelet's kill and delete (undefined = none set). */
export function gracePeriodMs(pod: Pod): number | undefined {
  const grace = pod.metadata?.deletionGracePeriodSeconds;
  return grace === undefined || grace === null ? undefined : Math.max(0, grace) * 1000;
}

// ---- init containers ---------------------------------------------------------------------------

/** The regular (non-sidecar) init containers of a run-to-completion pod and their programs, in order. */
function initPrograms(pod: Pod): Array<{ c: Container; exitCode: number; durationMs: number }> {
  if (!runsToCompletion(pod)) return [];
  return (pod.spec?.initContainers ?? [])
    .filter((c) => c.restartPolicy !== 'Always')
    .map((c) => {
      const p = containerProgram(pod, c);
      // A never-ending init container would hold the pod Pending forever; it counts as instant.
      return { c, exitCode: p.exitCode, durationMs: Number.isFinite(p.durationMs) ? p.durationMs : 0 };
    });
}

/**
 * How long the init containers of a run-to-completion pod run one after the other, ms, up to and
 * including the first that fails (the kubelet stops there). 0 for other pods.
 */
export function initContainersMs(pod: Pod): number {
  let total = 0;
  for (const p of initPrograms(pod)) {
    total += p.durationMs;
    if (p.exitCode !== 0) break;
  }
  return total;
}

/**
 * The init container statuses of a run-to-completion pod whose init containers just finished at
 * `now` (ms), run back to back; and, when one failed, its name (kubectl shows `Init:Error`): under
 * restartPolicy Never the pod then fails ({@link initFailedStatus}), under OnFailure it stays Pending
 * and the container is restarted ({@link initCrashStatus}, {@link initCrashLoopStages}). undefined for
 * pods not run to completion.
 */
export function finishedInitContainers(pod: Pod, now: number): { statuses: ContainerStatus[]; failed?: string } | undefined {
  if (!runsToCompletion(pod)) return undefined;
  let t = now - initContainersMs(pod);
  let failed: string | undefined;
  const statuses = (pod.spec?.initContainers ?? []).map((c): ContainerStatus => {
    const base = { name: c.name, image: c.image ?? '', imageID: '', containerID: containerID(pod, c), restartCount: 0 };
    if (c.restartPolicy === 'Always') return { ...base, ready: !failed, started: !failed, state: failed ? { waiting: { reason: 'PodInitializing' } } : { running: { startedAt: formatTime(t) } } };
    if (failed) return { ...base, ready: false, started: false, state: { waiting: { reason: 'PodInitializing' } } };
    const p = initPrograms(pod).find((x) => x.c.name === c.name) as { exitCode: number; durationMs: number };
    const startedAt = formatTime(t);
    t += p.durationMs;
    const exitCode = p.exitCode;
    if (exitCode !== 0) failed = c.name;
    const state = { terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt, finishedAt: formatTime(t), containerID: base.containerID } };
    return { ...base, ready: exitCode === 0, started: false, state };
  });
  return failed ? { statuses, failed } : { statuses };
}

/** The status of a Never pod whose init container `failed` exited non-zero: Failed, containers never started. */
export function initFailedStatus(pod: Pod, statuses: ContainerStatus[], now: string): StageResult['status'] {
  const containerStatuses = (pod.spec?.containers ?? []).map((c) => waitingContainer(c, 'PodInitializing'));
  return { phase: 'Failed', conditions: terminalConditions(pod, 'Failed', now), initContainerStatuses: statuses, containerStatuses };
}

/**
 * The status of an OnFailure pod whose init containers have not all completed: Pending, the regular
 * containers waiting PodInitializing, Initialized False (generate.go: reason ContainersNotInitialized,
 * "containers with incomplete status: [i2 i3]"), Ready/ContainersReady False.
 */
export function initCrashStatus(pod: Pod, statuses: ContainerStatus[], now: string): StageResult['status'] {
  const sidecars = new Set((pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always').map((c) => c.name));
  const complete = (s: ContainerStatus): boolean => s.state?.terminated?.exitCode === 0 || (sidecars.has(s.name) && s.started === true);
  const incomplete = statuses.filter((s) => !complete(s)).map((s) => s.name);
  const unready = (pod.spec?.containers ?? []).map((c) => c.name);
  const notReady = { status: 'False', reason: 'ContainersNotReady', message: `containers with unready status: [${unready.join(' ')}]` };
  const conditions = setConditions(
    pod,
    [
      { type: 'PodReadyToStartContainers', status: 'True' },
      { type: 'Initialized', status: 'False', reason: 'ContainersNotInitialized', message: `containers with incomplete status: [${incomplete.join(' ')}]` },
      { type: 'Ready', ...notReady },
      { type: 'ContainersReady', ...notReady },
      { type: 'PodScheduled', status: 'True' },
    ],
    now,
  );
  const containerStatuses = (pod.spec?.containers ?? []).map((c) => waitingContainer(c, 'PodInitializing'));
  return { phase: 'Pending', conditions, initContainerStatuses: statuses, containerStatuses };
}

// ---- activeDeadlineSeconds --------------------------------------------------------------------

/** When (ms) the pod's activeDeadlineSeconds runs out, or undefined (no deadline, not started, terminal, deleting). */
export function activeDeadlineAt(pod: Pod): number | undefined {
  const secs = pod.spec?.activeDeadlineSeconds;
  const start = parseTime(pod.status?.startTime);
  if (secs === undefined || secs === null || start === undefined || isBeingDeleted(pod)) return undefined;
  if (phaseOf(pod) === 'Succeeded' || phaseOf(pod) === 'Failed') return undefined;
  return start + secs * 1000;
}

/** The status of a pod killed for its deadline: Failed, DeadlineExceeded, running containers killed. */
function deadlineExceeded(pod: Pod, ctx: StageContext): StageResult {
  const now = formatTime(ctx.now);
  const killed = (s: ContainerStatus): ContainerStatus =>
    s.state?.running ? { ...s, ready: false, started: false, state: { terminated: terminated(pod, s, KILLED_EXIT_CODE, now) } } : { ...s, ready: false };
  return {
    status: {
      phase: 'Failed',
      reason: DEADLINE_EXCEEDED_REASON,
      message: DEADLINE_EXCEEDED_MESSAGE,
      conditions: terminalConditions(pod, 'Failed', now),
      containerStatuses: (pod.status?.containerStatuses ?? []).map(killed),
    },
    events: [{ type: 'Normal', reason: DEADLINE_EXCEEDED_REASON, message: DEADLINE_EXCEEDED_MESSAGE }],
  };
}

/**
 * Makes a pod stage respect activeDeadlineSeconds: its delay never goes past the deadline, and when
 * it fires at or after the deadline it fails the pod instead. (The engine runs one stage per object
 * at a time, so the deadline rides on whichever stage is pending.)
 */
export function withActiveDeadline(stage: PodStage): PodStage {
  return {
    ...stage,
    delayLimitMs: (pod, now) => {
      const own = stage.delayLimitMs?.(pod, now);
      const at = activeDeadlineAt(pod);
      const left = at === undefined ? undefined : Math.max(0, at - now);
      return own === undefined ? left : left === undefined ? own : Math.min(own, left);
    },
    next: (pod, ctx) => {
      const at = activeDeadlineAt(pod);
      return at !== undefined && ctx.now >= at ? deadlineExceeded(pod, ctx) : stage.next(pod, ctx);
    },
  };
}

/** pod-active-deadline: a started pod no other stage moves (e.g. Running forever) ⇒ Failed at its deadline. */
export function podActiveDeadlineStage(): PodStage {
  return {
    name: 'pod-active-deadline',
    resource: 'Pod',
    selector: (pod) => activeDeadlineAt(pod) !== undefined,
    delayMs: (pod, now) => Math.max(0, (activeDeadlineAt(pod) ?? now) - now),
    next: deadlineExceeded,
  };
}
