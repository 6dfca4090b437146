/**
 * Stages: the lifecycle of simulated pods and nodes as data, kwok-style (kubernetes-sigs/kwok
 * `kustomize/stage/pod/fast`, `stage/node/heartbeat-with-lease`). A stage says which objects it applies
 * to (`selector`), how long after the object got into that state it fires (`delayMs` + up to
 * `jitterMs`, optionally capped per object by `delayLimitMs`), and what it does (`next`: a status to
 * write, a delete, an event). The write produces a watch event, which selects the next stage: a chain.
 *
 * For every object the engine (stage-engine.ts) uses the first stage, in list order, whose selector
 * matches.
 */
import type { Container, ContainerStatus, Node, NodeCondition, NodeStatus, Pod } from '../api/index.js';
import { formatTime, parseTime } from '../util/clock/index.js';
import {
  finishedInitContainers,
  gracePeriodMs,
  initContainersMs,
  initCrashLoopStages,
  initCrashStatus,
  initFailedStatus,
  restartStagesOfContainers,
  podActiveDeadlineStage,
  podContainerExitStage,
  podKillStage,
  withActiveDeadline,
} from './completion-stages.js';
import { crashLoopStages, imagePullFailureStages } from './failure-stages.js';
import { sha256Hex } from './hash.js';
import { containerStartedEvents, imageEvents, imagePullMs, killingEvents, nodeHealthyEvents, nodeStartupEvents, type StageEvent } from './kubelet-events.js';
import { containerConfigStages, volumeMountStage } from './reference-stages.js';
import { containerID, isBeingDeleted, phaseOf, podConditions, running, waitingContainer } from './pod-status.js';
import type { NodeStage, PodStage, AnyStage, SimulatedNodeInfo, StageContext } from './stage-types.js';

export type { AnyStage, NodeStage, PodStage, SimulatedNodeInfo, Stage, StageContext, StageResult } from './stage-types.js';

/** Tunables of {@link defaultStages}, all in ms. */
export interface DefaultStageOptions {
  /** Bound pod → Running/Ready, or to its first failure (default 500, jitter 500). */
  podReadyDelayMs?: number;
  podReadyJitterMs?: number;
  /** Terminating pod → gone, capped by its deletionGracePeriodSeconds (default 500). */
  podDeleteDelayMs?: number;
  /**
   * Node conditions' lastHeartbeatTime refresh (default 5 min: kubelet `nodeStatusReportFrequency`,
   * pkg/kubelet/apis/config/v1beta1/defaults.go; with node leases the kubelet reports status only on
   * change or every 5 min, and the Lease carries the liveness).
   */
  nodeStatusReportFrequencyMs?: number;
}

// ---- pods -------------------------------------------------------------------------------------

/**
 * pod-create: a pod just bound to a simulated node ⇒ what the kubelet reports while it creates the
 * sandbox and pulls images (kwok's general `pod-create` stage): still Pending, PodScheduled and
 * Initialized True, PodReadyToStartContainers False, Ready and ContainersReady False with reason
 * `ContainersNotReady`, every container waiting with reason `ContainerCreating` (so `kubectl get pods`
 * shows ContainerCreating, as on a real cluster), hostIP(s) and startTime set. Marked by `startTime`:
 * pod-ready takes over from there.
 */
export function podCreateStage(delayMs = 0): PodStage {
  return {
    name: 'pod-create',
    resource: 'Pod',
    selector: (pod) => !isBeingDeleted(pod) && phaseOf(pod) === 'Pending' && !pod.status?.startTime,
    delayMs,
    next: (pod, ctx) => {
      const now = formatTime(ctx.now);
      const containers = pod.spec?.containers ?? [];
      return {
        status: {
          phase: 'Pending',
          conditions: podConditions(pod, false, containers.map((c) => c.name), now),
          hostIP: ctx.node.internalIP,
          hostIPs: [{ ip: ctx.node.internalIP }],
          startTime: now,
          containerStatuses: containers.map((c) => waitingContainer(c, 'ContainerCreating')),
        },
      };
    },
  };
}

/**
 * pod-ready: a pod bound to a simulated node, Pending, not being deleted ⇒ Running and Ready, as the
 * kubelet reports it (kwok `pod-ready`): conditions PodReadyToStartContainers, Initialized,
 * ContainersReady, Ready and PodScheduled True; containers running; completed init containers
 * terminated with exit code 0 (sidecars running); hostIP(s) from the node, podIP(s) from its CIDR;
 * startTime kept if set. For run-to-completion pods the init containers first run their programs one
 * after the other (the delay grows by their run times; completion-stages.ts); one failing fails the
 * pod under restartPolicy Never, and under OnFailure leaves it Pending in an init crash loop.
 */
export function podReadyStage(delayMs = 500, jitterMs = 500): PodStage {
  return {
    name: 'pod-ready',
    resource: 'Pod',
    selector: (pod) => !isBeingDeleted(pod) && phaseOf(pod) === 'Pending' && !!pod.status?.startTime,
    delayMs: (pod) => delayMs + initContainersMs(pod),
    jitterMs,
    next: (pod, ctx) => {
      const now = formatTime(ctx.now);
      const podIP = ctx.allocatePodIP(pod);
      const ran = finishedInitContainers(pod, ctx.now);
      const network = { hostIP: ctx.node.internalIP, hostIPs: [{ ip: ctx.node.internalIP }], podIP, podIPs: [{ ip: podIP }], startTime: pod.status?.startTime ?? now };
      if (ran?.failed) {
        const status = pod.spec?.restartPolicy === 'Never' ? initFailedStatus(pod, ran.statuses, now) : initCrashStatus(pod, ran.statuses, now);
        const upToFailed = (pod.spec?.initContainers ?? []).slice(0, (pod.spec?.initContainers ?? []).findIndex((c) => c.name === ran.failed) + 1);
        return { status: { ...status, ...network }, events: startEvents(pod, upToFailed, ctx) };
      }
      const initContainerStatuses = ran?.statuses ?? (pod.spec?.initContainers ?? []).map((c): ContainerStatus =>
        c.restartPolicy === 'Always'
          ? running(pod, c, now)
          : {
              ...running(pod, c, now),
              started: false,
              state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: now, finishedAt: now, containerID: containerID(pod, c) } },
            },
      );
      return {
        status: {
          phase: 'Running',
          conditions: podConditions(pod, true, [], now),
          hostIP: ctx.node.internalIP,
          hostIPs: [{ ip: ctx.node.internalIP }],
          podIP,
          podIPs: [{ ip: podIP }],
          startTime: pod.status?.startTime ?? now,
          containerStatuses: (pod.spec?.containers ?? []).map((c) => running(pod, c, now)),
          ...(initContainerStatuses.length > 0 ? { initContainerStatuses } : {}),
        },
        events: startEvents(pod, [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])], ctx),
      };
    },
  };
}

/** upstream `syncPeriod` of the kubelet's status manager (pkg/kubelet/status/status_manager.go), in ms. */
export const STATUS_SYNC_PERIOD_MS = 10_000;

const conditionStatus = (pod: Pod, type: string): string | undefined => pod.status?.conditions?.find((c) => c.type === type)?.status;

/**
 * pod-ready-again: a Running pod whose containers all run ready but whose Ready condition is False —
 * written by someone other than its kubelet, as the node lifecycle controller's `MarkPodsNotReady`
 * does while the node's heartbeats are late — ⇒ Ready again after the status manager's sync period
 * (10 s): the kubelet derives the conditions from its containers and writes them whenever they differ
 * from the API server's (status_manager.go `syncBatch`/`needsReconcile`). Without it such a pod stayed
 * not Ready for good once its node had been late, and its ReplicaSet never counted it again.
 */
export function podReadyAgainStage(delayMs = STATUS_SYNC_PERIOD_MS): PodStage {
  return {
    name: 'pod-ready-again',
    resource: 'Pod',
    selector: (pod) =>
      !isBeingDeleted(pod) &&
      phaseOf(pod) === 'Running' &&
      conditionStatus(pod, 'Ready') === 'False' &&
      conditionStatus(pod, 'ContainersReady') === 'True' &&
      (pod.status?.containerStatuses ?? []).every((c) => c.ready),
    delayMs,
    next: (pod, ctx) => ({ status: { ...pod.status, conditions: podConditions(pod, true, [], formatTime(ctx.now)) } }),
  };
}

/**
 * The kubelet's events for starting `containers` in order (init containers first): image events, then
 * Created and Started. The first pulled image took the time since the pod started (the start delay);
 * later ones a stable time of their own. Images pulled are remembered on the node (`ctx.node.images`),
 * so the next pod with pull policy IfNotPresent finds them present.
 */
export function startEvents(pod: Pod, containers: readonly Container[], ctx: StageContext): StageEvent[] {
  const events: StageEvent[] = [];
  let first = true;
  for (const c of containers) {
    const image = c.image ?? '';
    const sinceStart = ctx.now - (parseTime(pod.status?.startTime) ?? ctx.now);
    const pulls = imageEvents(pod, c, ctx.node.images?.has(image) ?? false, first ? sinceStart : imagePullMs(image));
    if (pulls.length > 1) first = false;
    ctx.node.images?.add(image);
    events.push(...pulls, ...containerStartedEvents(pod, c));
  }
  return events;
}

/**
 * pod-delete: a pod with a deletionTimestamp ⇒ deleted for good (`gracePeriodSeconds: 0`, uid
 * precondition), after `delayMs` but never later than its `deletionGracePeriodSeconds` (kwok
 * `pod-delete`; apiserver.md §6.8: the kubelet kills the containers, then sends the final DELETE).
 */
export function podDeleteStage(delayMs = 500): PodStage {
  return {
    name: 'pod-delete',
    resource: 'Pod',
    selector: isBeingDeleted,
    delayMs,
    delayLimitMs: gracePeriodMs,
    next: (pod) => ({ delete: true, events: killingEvents(pod) }),
  };
}

// ---- nodes ------------------------------------------------------------------------------------

const readyCondition = (node: Node): NodeCondition | undefined => node.status?.conditions?.find((c) => c.type === 'Ready');

/** The conditions a healthy kubelet reports, with upstream's reasons and messages (pkg/kubelet/nodestatus/setters.go). */
export function healthyNodeConditions(now: string, previous: readonly NodeCondition[] = []): NodeCondition[] {
  const keep = (type: string, status: string): string => {
    const old = previous.find((c) => c.type === type);
    return old && old.status === status && old.lastTransitionTime ? old.lastTransitionTime : now;
  };
  const cond = (type: string, status: string, reason: string, message: string): NodeCondition => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: now,
    lastTransitionTime: keep(type, status),
  });
  return [
    cond('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
    cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
    cond('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
    cond('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
  ];
}

/** Default capacity of a simulated node. */
export const DEFAULT_NODE_CAPACITY = { cpu: '32', memory: '256Gi', pods: '110', 'ephemeral-storage': '100Gi' } as const;

/** The kubelet version simulated nodes report. */
export const KUBELET_VERSION = 'v1.33.0';

/**
 * A complete NodeStatus for a simulated node: capacity/allocatable (the node's own if set, else
 * {@link DEFAULT_NODE_CAPACITY}; allocatable = capacity, nothing reserved), healthy conditions,
 * addresses (InternalIP, Hostname), nodeInfo and the kubelet endpoint.
 */
export function simulatedNodeStatus(node: Node, info: SimulatedNodeInfo, now: number): NodeStatus {
  const capacity = node.status?.capacity ?? { ...DEFAULT_NODE_CAPACITY };
  const systemUUID = sha256Hex(`system/${info.name}`).slice(0, 32);
  return {
    capacity,
    allocatable: node.status?.allocatable ?? { ...capacity },
    conditions: healthyNodeConditions(formatTime(now), node.status?.conditions),
    addresses: [
      { type: 'InternalIP', address: info.internalIP },
      { type: 'Hostname', address: info.name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: systemUUID,
      systemUUID,
      bootID: sha256Hex(`boot/${info.name}`).slice(0, 32),
      kernelVersion: '6.8.0-kubeplane',
      osImage: 'kubeplane simulated node',
      containerRuntimeVersion: 'kubeplane://0.1.0',
      kubeletVersion: KUBELET_VERSION,
      kubeProxyVersion: '',
      operatingSystem: 'linux',
      architecture: 'amd64',
    },
  };
}

/** node-initialize: a simulated node without Ready=True gets the full status of a healthy kubelet. */
export function nodeInitializeStage(): NodeStage {
  return {
    name: 'node-initialize',
    resource: 'Node',
    selector: (node) => readyCondition(node)?.status !== 'True',
    delayMs: 0,
    next: (node, ctx) => {
      const previous = node.status?.conditions ?? [];
      // A node without any condition: its kubelet is starting and registers it (an adopted node).
      const events = previous.length === 0 ? nodeStartupEvents(ctx.node.name, { ready: true }) : nodeHealthyEvents(ctx.node.name, previous);
      return { status: simulatedNodeStatus(node, ctx.node, ctx.now), events };
    },
  };
}

/** node-heartbeat: refreshes every condition's lastHeartbeatTime every `delayMs`. */
export function nodeHeartbeatStage(delayMs = 5 * 60_000): NodeStage {
  return {
    name: 'node-heartbeat',
    resource: 'Node',
    selector: (node) => readyCondition(node)?.status === 'True',
    delayMs,
    next: (node, ctx) => {
      const now = formatTime(ctx.now);
      return { status: { conditions: (node.status?.conditions ?? []).map((c) => ({ ...c, lastHeartbeatTime: now })) } };
    },
  };
}

/**
 * The default stage set: pods (delete first, so a terminating pod is never made Ready; a volume that
 * cannot be mounted before anything starts, then image pulls, then container config errors
 * (reference-stages.ts: missing ConfigMaps/Secrets), the failure stages before pod-ready, so a pod
 * meant to fail never turns Ready; then run-to-completion pods'
 * containers finishing (completion-stages.ts), every stage bounded by the pod's
 * activeDeadlineSeconds, with pod-active-deadline last for pods nothing else moves) and nodes.
 */
export function defaultStages(opts: DefaultStageOptions = {}): AnyStage[] {
  const pods = [
    podCreateStage(),
    volumeMountStage(),
    ...imagePullFailureStages(opts.podReadyDelayMs, opts.podReadyJitterMs),
    ...containerConfigStages(opts.podReadyDelayMs, opts.podReadyJitterMs),
    ...crashLoopStages(opts.podReadyDelayMs, opts.podReadyJitterMs),
    ...initCrashLoopStages(),
    podReadyStage(opts.podReadyDelayMs, opts.podReadyJitterMs),
    podContainerExitStage(),
    ...restartStagesOfContainers(),
    podReadyAgainStage(),
  ].map(withActiveDeadline);
  return [
    podKillStage(opts.podDeleteDelayMs),
    podDeleteStage(opts.podDeleteDelayMs),
    ...pods,
    podActiveDeadlineStage(),
    nodeInitializeStage(),
    nodeHeartbeatStage(opts.nodeStatusReportFrequencyMs),
  ];
}
