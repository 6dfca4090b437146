/**
 * The events a kubelet records, with upstream v1.33's reasons (pkg/kubelet/events/event.go) and
 * messages:
 *
 * | when                          | reason                  | message                                                              | source |
 * |-------------------------------|-------------------------|----------------------------------------------------------------------|--------|
 * | image pulled                  | Pulling, Pulled         | `Pulling image "nginx"`, `Successfully pulled image "nginx" in 812ms (812ms including waiting). Image size: 72219561 bytes.` | images/image_manager.go `pullImage` |
 * | image present, not pulled     | Pulled                  | `Container image "nginx:1.27" already present on machine`            | image_manager.go `EnsureImageExists` (KubeletEnsureSecretPulledImages off, the v1.33 default) |
 * | container created, started    | Created, Started        | `Created container: nginx`, `Started container nginx`                | kuberuntime/kuberuntime_container.go `startContainer` |
 * | container config error        | Failed (Warning)        | `Error: configmap "x" not found`                                     | kuberuntime_container.go `startContainer` |
 * | container stopped             | Killing                 | `Stopping container nginx`                                           | kuberuntime_container.go `killContainer` |
 * | volume cannot be set up       | FailedMount (Warning)   | `MountVolume.SetUp failed for volume "cfg" : configmap "x" not found` | volume/util/operationexecutor/operation_generator.go `GenerateMountVolumeFunc` |
 * | kubelet start                 | Starting                | `Starting kubelet.`                                                  | kubelet.go `initializeModules` |
 * | node conditions, first status | NodeHasSufficientMemory, NodeHasNoDiskPressure, NodeHasSufficientPID, NodeReady | `Node n1 status is now: NodeReady` | kubelet_node_status.go `recordNodeStatusEvent`, nodestatus/setters.go |
 * | allocatable enforced          | NodeAllocatableEnforced | `Updated Node Allocatable limit across pods`                         | cm/node_container_manager_linux.go |
 *
 * Container events carry `involvedObject.fieldPath` `spec.containers{<name>}` (`spec.initContainers{…}`
 * for init containers), as `GenerateContainerRef` makes them.
 */
import type { Container, Pod } from '../api/index.js';
import { sha256Hex } from './hash.js';
import type { StageEvent } from './stage-types.js';

export type { StageEvent } from './stage-types.js';

/** A duration as Go's `time.Duration.String()` after `Truncate(time.Millisecond)`: `0s`, `812ms`, `1.2s`, `1m2.5s`. */
export function goDurationMs(ms: number): string {
  const total = Math.max(0, Math.floor(ms));
  if (total === 0) return '0s';
  if (total < 1000) return `${total}ms`;
  const minutes = Math.floor(total / 60_000);
  const restMs = total - minutes * 60_000;
  const secs = Math.floor(restMs / 1000);
  const frac = String(restMs % 1000).padStart(3, '0').replace(/0+$/, '');
  const s = `${secs}${frac ? `.${frac}` : ''}s`;
  const hours = Math.floor(minutes / 60);
  if (hours > 0) return `${hours}h${minutes % 60}m${s}`;
  return minutes > 0 ? `${minutes}m${s}` : s;
}

/** The field path of a container in its pod: `spec.containers{c}` or `spec.initContainers{c}`. */
export function containerFieldPath(pod: Pod, c: Container): string {
  const init = (pod.spec?.initContainers ?? []).some((i) => i.name === c.name) && !(pod.spec?.containers ?? []).some((x) => x.name === c.name);
  return `spec.${init ? 'initContainers' : 'containers'}{${c.name}}`;
}

/**
 * The container's pull policy: its own, else the API server's default (pkg/apis/core/v1/defaults.go
 * `SetDefaults_Container`): Always for an untagged or `:latest` image, IfNotPresent otherwise.
 */
export function pullPolicyOf(c: Container): string {
  if (c.imagePullPolicy) return c.imagePullPolicy;
  const image = c.image ?? '';
  if (image.includes('@')) return 'IfNotPresent';
  const last = image.slice(image.lastIndexOf('/') + 1);
  const colon = last.lastIndexOf(':');
  return colon < 0 || last.slice(colon + 1) === 'latest' ? 'Always' : 'IfNotPresent';
}

/** A plausible, stable image size in bytes (10–200 MB), as the runtime reports it after a pull. */
export function imageSizeBytes(image: string): number {
  return 10_000_000 + (parseInt(sha256Hex(`size/${image}`).slice(0, 8), 16) % 190_000_000);
}

/** A stable pull time for an image not pulled while the pod started, ms (300–1300). */
export function imagePullMs(image: string): number {
  return 300 + (parseInt(sha256Hex(`pull/${image}`).slice(0, 4), 16) % 1000);
}

/**
 * The image manager's events for one container: Pulling + Pulled (pulled in `pullMs`) when the policy
 * asks for a pull (Always, or IfNotPresent with the image absent), else Pulled "already present".
 * (Never with the image absent is treated as present: simulated nodes have every image.)
 */
export function imageEvents(pod: Pod, c: Container, present: boolean, pullMs: number): StageEvent[] {
  const image = c.image ?? '';
  const fieldPath = containerFieldPath(pod, c);
  const policy = pullPolicyOf(c);
  const pull = policy === 'Always' || (policy === 'IfNotPresent' && !present);
  if (!pull) return [{ type: 'Normal', reason: 'Pulled', message: `Container image ${JSON.stringify(image)} already present on machine`, fieldPath }];
  const d = goDurationMs(pullMs);
  return [
    { type: 'Normal', reason: 'Pulling', message: `Pulling image ${JSON.stringify(image)}`, fieldPath },
    {
      type: 'Normal',
      reason: 'Pulled',
      message: `Successfully pulled image ${JSON.stringify(image)} in ${d} (${d} including waiting). Image size: ${imageSizeBytes(image)} bytes.`,
      fieldPath,
    },
  ];
}

/** Created and Started for a container. */
export function containerStartedEvents(pod: Pod, c: Container): StageEvent[] {
  const fieldPath = containerFieldPath(pod, c);
  return [
    { type: 'Normal', reason: 'Created', message: `Created container: ${c.name}`, fieldPath },
    { type: 'Normal', reason: 'Started', message: `Started container ${c.name}`, fieldPath },
  ];
}

/**
 * The events of restarting containers `names` of the pod (after an exit or a back-off): the image is
 * ensured again (already present, or pulled again under pull policy Always), then Created and Started.
 */
export function restartEvents(pod: Pod, names: readonly string[]): StageEvent[] {
  const specs = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  return names.flatMap((name) => {
    const c = specs.find((x) => x.name === name) ?? { name };
    return [...imageEvents(pod, c, true, imagePullMs(c.image ?? '')), ...containerStartedEvents(pod, c)];
  });
}

/** Warning Failed `Error: <message>` for a container whose config could not be generated. */
export function containerConfigErrorEvent(pod: Pod, c: Container, message: string): StageEvent {
  return { type: 'Warning', reason: 'Failed', message: `Error: ${message}`, fieldPath: containerFieldPath(pod, c) };
}

/** Killing `Stopping container <name>` for every container of the pod that is running. */
export function killingEvents(pod: Pod): StageEvent[] {
  const specs = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  return statuses
    .filter((s) => s.state?.running)
    .map((s) => {
      const c = specs.find((x) => x.name === s.name) ?? { name: s.name };
      return { type: 'Normal' as const, reason: 'Killing', message: `Stopping container ${s.name}`, fieldPath: containerFieldPath(pod, c) };
    });
}

/** Warning FailedMount for a volume that could not be set up. */
export function failedMountEvent(volume: string, message: string): StageEvent {
  return { type: 'Warning', reason: 'FailedMount', message: `MountVolume.SetUp failed for volume ${JSON.stringify(volume)} : ${message}` };
}

/**
 * The events of a kubelet starting on node `name`: `Starting kubelet.`, and on a first start (not a
 * `restart`, whose conditions were already reported) the condition events of its first status; then
 * NodeAllocatableEnforced; NodeReady when `ready`. In the order a real node shows them.
 */
export function nodeStartupEvents(name: string, opts: { restart?: boolean; ready?: boolean }): StageEvent[] {
  const status = (reason: string): StageEvent => ({ type: 'Normal', reason, message: `Node ${name} status is now: ${reason}` });
  return [
    { type: 'Normal', reason: 'Starting', message: 'Starting kubelet.' },
    ...(opts.restart ? [] : [status('NodeHasSufficientMemory'), status('NodeHasNoDiskPressure'), status('NodeHasSufficientPID')]),
    { type: 'Normal', reason: 'NodeAllocatableEnforced', message: 'Updated Node Allocatable limit across pods' },
    ...(opts.ready ? [status('NodeReady')] : []),
  ];
}

/**
 * The condition events of a status update that made a node healthy, from its `previous` conditions
 * (setters.go records one when a condition changes to the healthy value): NodeHasSufficientMemory,
 * NodeHasNoDiskPressure, NodeHasSufficientPID for pressure conditions that were not False, NodeReady
 * when Ready was not True.
 */
export function nodeHealthyEvents(name: string, previous: ReadonlyArray<{ type: string; status: string }>): StageEvent[] {
  const was = (type: string): string | undefined => previous.find((c) => c.type === type)?.status;
  const status = (reason: string): StageEvent => ({ type: 'Normal', reason, message: `Node ${name} status is now: ${reason}` });
  const out: StageEvent[] = [];
  if (was('MemoryPressure') !== 'False') out.push(status('NodeHasSufficientMemory'));
  if (was('DiskPressure') !== 'False') out.push(status('NodeHasNoDiskPressure'));
  if (was('PIDPressure') !== 'False') out.push(status('NodeHasSufficientPID'));
  if (was('Ready') !== 'True') out.push(status('NodeReady'));
  return out;
}
