/**
 * Run-to-completion pods: containers of pods with `restartPolicy: Never` or `OnFailure` finish. What
 * a container prints, its exit code and run time come from its `command`/`args`/`env`
 * (src/machinery/simcontainer: `sh -c 'sleep 5; exit 3'` exits 3 five seconds after it started;
 * anything not understood runs 1 s and exits 0). Triggers, all visible in the manifest:
 *
 * | pod                                   | what happens                                                             |
 * |---------------------------------------|--------------------------------------------------------------------------|
 * | restartPolicy Never/OnFailure, Running | each running container terminates when its program ends: exit code,     |
 * |                                       | reason Completed (0) or Error, startedAt/finishedAt, ready false         |
 * | all containers exited 0               | phase Succeeded; Ready/ContainersReady False reason PodCompleted          |
 * | Never, all exited, some non-zero      | phase Failed; Ready/ContainersReady False reason PodFailed                |
 * | OnFailure, a container exited ≠ 0     | restarted 1 s later (restartCount 1), then each later exit waits in      |
 * |                                       | CrashLoopBackOff 10 s, 20 s … 5 min (lastState.terminated keeps the exit) |
 * | `spec.activeDeadlineSeconds` (any pod) | that long after `status.startTime`: phase Failed, reason                |
 * |                                       | DeadlineExceeded, running containers killed (exit 137, Error)            |
 *
 * Pods with restartPolicy Always keep running. A program that never ends (`sleep infinity`) keeps its
 * container running. Init containers are reported Completed when the pod starts (stages.ts pod-ready).
 *
 * Follows the kubelet: pkg/kubelet/kubelet_pods.go (`getPhase`: Succeeded when every container
 * exited 0, Failed under Never when one failed, Running while OnFailure restarts), pkg/kubelet/status/
 * generate.go (terminal-phase Ready/ContainersReady reasons PodCompleted/PodFailed), pkg/kubelet/
 * active_deadline.go (reason and message), pkg/kubelet/kuberuntime/kuberuntime_manager.go (back-off,
 * shared with failure-stages.ts).
 */
import type { Container, ContainerStatus, Pod } from '../api/index.js';
import { runPodContainer } from '../machinery/simcontainer/index.js';
import { formatTime, parseTime } from '../util/clock/index.js';
import { backOffMs, goDuration, SIMULATE_ANNOTATION } from './failure-stages.js';
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

const candidate = (pod: Pod): boolean =>
  runsToCompletion(pod) && !isBeingDeleted(pod) && phaseOf(pod) === 'Running' && !pod.metadata?.annotations?.[SIMULATE_ANNOTATION];

/** What the container's program does: output, exit code, run time (ms) — with the pod's HOSTNAME and downward-API env. */
export function containerProgram(pod: Pod, c: Container): ReturnType<typeof runPodContainer> {
  return runPodContainer(pod, c);
}

/** When (ms) the running container ends, or undefined if it never does. */
function endsAt(pod: Pod, s: ContainerStatus): number | undefined {
  const c = pod.spec?.containers?.find((x) => x.name === s.name);
  const started = parseTime(s.state?.running?.startedAt);
  if (!c || started === undefined) return undefined;
  const d = containerProgram(pod, c).durationMs;
  return Number.isFinite(d) ? started + d : undefined;
}

const runningEnds = (pod: Pod): number[] =>
  (pod.status?.containerStatuses ?? []).map((s) => endsAt(pod, s)).filter((t): t is number => t !== undefined);

const failedExit = (s: ContainerStatus): boolean => (s.state?.terminated?.exitCode ?? 0) !== 0;

/** The pod status for `statuses`: the phase the kubelet computes, and its conditions. */
function podStatusFor(pod: Pod, statuses: ContainerStatus[], now: string): StageResult['status'] {
  const allExited = statuses.every((s) => s.state?.terminated);
  const anyFailed = statuses.some(failedExit);
  let phase = 'Running';
  if (allExited && !anyFailed) phase = 'Succeeded';
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
 * pod-container-exit: a Running run-to-completion pod ⇒ when the first running container's program
 * ends, every container whose program has ended by then terminates with the program's exit code.
 */
export function podContainerExitStage(): PodStage {
  return {
    name: 'pod-container-exit',
    resource: 'Pod',
    selector: (pod) => candidate(pod) && runningEnds(pod).length > 0,
    delayMs: (pod, now) => Math.max(0, Math.min(...runningEnds(pod)) - now),
    next: (pod, ctx) => {
      const now = formatTime(ctx.now);
      const statuses = (pod.status?.containerStatuses ?? []).map((s): ContainerStatus => {
        const end = endsAt(pod, s);
        const c = pod.spec?.containers?.find((x) => x.name === s.name);
        if (end === undefined || end > ctx.now || !c) return s;
        const t = terminated(pod, s, containerProgram(pod, c).exitCode, now);
        return { ...s, ready: false, started: false, state: { terminated: t } };
      });
      return { status: podStatusFor(pod, statuses, now) };
    },
  };
}

/**
 * The OnFailure restart stages (the kubelet's container back-off, as crash loops in failure-stages.ts):
 * - pod-container-restart: a container terminated with a non-zero code ⇒ 1 s later restarted at once
 *   the first time (restartCount 1), afterwards waiting `CrashLoopBackOff` with message "back-off
 *   <d> restarting failed container=<c> pod=<name>_<ns>(<uid>)" and event Warning BackOff;
 * - pod-container-backoff-expired: CrashLoopBackOff ⇒ running again (restartCount + 1) once the
 *   back-off 10 s·2^(restartCount−1) (at most 5 min) has passed.
 * The last termination is kept in `lastState.terminated`.
 */
export function onFailureRestartStages(): PodStage[] {
  const onFailure = (pod: Pod): boolean => candidate(pod) && pod.spec?.restartPolicy === 'OnFailure';
  const failed = (pod: Pod): ContainerStatus[] => (pod.status?.containerStatuses ?? []).filter(failedExit);
  const backingOff = (pod: Pod): ContainerStatus[] =>
    (pod.status?.containerStatuses ?? []).filter((s) => s.state?.waiting?.reason === 'CrashLoopBackOff');
  const formatPod = (pod: Pod): string => `${pod.metadata?.name ?? ''}_${pod.metadata?.namespace ?? ''}(${pod.metadata?.uid ?? ''})`;
  const restarted = (s: ContainerStatus, restartCount: number, now: string, last: Terminated | undefined): ContainerStatus => ({
    ...s,
    ready: true,
    started: true,
    restartCount,
    state: { running: { startedAt: now } },
    ...(last ? { lastState: { terminated: last } } : {}),
  });
  const write = (pod: Pod, ctx: StageContext, change: (s: ContainerStatus, now: string) => ContainerStatus): StageResult['status'] => {
    const now = formatTime(ctx.now);
    return podStatusFor(pod, (pod.status?.containerStatuses ?? []).map((s) => change(s, now)), now);
  };
  return [
    {
      name: 'pod-container-restart',
      resource: 'Pod',
      selector: (pod) => onFailure(pod) && failed(pod).length > 0,
      delayMs: RESYNC_MS,
      next: (pod, ctx) => {
        const status = write(pod, ctx, (s, now) => {
          if (!failedExit(s)) return s;
          const n = s.restartCount ?? 0;
          if (n === 0) return restarted(s, 1, now, s.state?.terminated);
          const message = `back-off ${goDuration(backOffMs(n))} restarting failed container=${s.name} pod=${formatPod(pod)}`;
          return { ...s, ready: false, started: false, state: { waiting: { reason: 'CrashLoopBackOff', message } }, lastState: { terminated: s.state?.terminated as Terminated } };
        });
        const waiting = failed(pod).find((s) => (s.restartCount ?? 0) > 0);
        return {
          status,
          ...(waiting
            ? { event: { type: 'Warning' as const, reason: 'BackOff', message: `Back-off restarting failed container ${waiting.name} in pod ${formatPod(pod)}` } }
            : {}),
        };
      },
    },
    {
      name: 'pod-container-backoff-expired',
      resource: 'Pod',
      selector: (pod) => onFailure(pod) && backingOff(pod).length > 0,
      delayMs: (pod) => Math.min(...backingOff(pod).map((s) => backOffMs(s.restartCount ?? 1))),
      next: (pod, ctx) => ({
        status: write(pod, ctx, (s, now) =>
          s.state?.waiting?.reason === 'CrashLoopBackOff' ? restarted(s, (s.restartCount ?? 0) + 1, now, s.lastState?.terminated) : s,
        ),
      }),
    },
  ];
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
 * including the first that fails under restartPolicy Never (the kubelet stops there). 0 for other pods.
 */
export function initContainersMs(pod: Pod): number {
  let total = 0;
  for (const p of initPrograms(pod)) {
    total += p.durationMs;
    if (p.exitCode !== 0 && pod.spec?.restartPolicy === 'Never') break;
  }
  return total;
}

/**
 * The init container statuses of a run-to-completion pod whose init containers just finished at
 * `now` (ms), run back to back; and, when one failed under restartPolicy Never, its name (the pod
 * then fails with it: kubectl shows `Init:Error`). Other exit codes are taken as success (OnFailure
 * init restarts are not simulated). undefined for pods not run to completion.
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
    const exitCode = pod.spec?.restartPolicy === 'Never' ? p.exitCode : 0;
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
    event: { type: 'Normal', reason: DEADLINE_EXCEEDED_REASON, message: DEADLINE_EXCEEDED_MESSAGE },
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
