/**
 * Pods (core/v1).
 *
 * Followed (v1.33): pkg/registry/core/pod/strategy.go (PrepareForCreate/Update, status strategy,
 * ToSelectableFields), pkg/apis/core/v1/defaults.go (SetDefaults_Pod), pkg/apis/core/helper/qos/qos.go
 * (ComputePodQOS), pkg/apis/core/validation/validation.go (ValidatePodCreate, ValidatePodUpdate,
 * ValidatePodStatusUpdate, ValidatePodSpecificAnnotations), pkg/printers/internalversion/printers.go
 * (printPod).
 *
 * Not done here: fields upstream sets through admission plugins (priority/preemptionPolicy from
 * Priority, serviceAccountName and the token volume from ServiceAccount, the not-ready/unreachable
 * tolerations from DefaultTolerationSeconds), and the relaxed nodeSelector/nodeAffinity updates of
 * scheduling-gated pods.
 */
import { PODS } from '../../../api/catalogue/index.js';
import type { Container, ContainerStatus, Pod, PodCondition, PodSpec, PodStatus, Toleration } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { isDNS1123Subdomain, isQualifiedName, FIELD_IMMUTABLE_ERROR_MSG } from '../../../machinery/validation/index.js';
import { formatTime, parseTime } from '../../../util/clock/index.js';
import { resourceInfo, type ResourceStrategy, type TableRowData } from '../strategy.js';
import { bumpGenerationIf, resetField, semanticDeepEqual, type ApiObject } from './helpers.js';
import {
  defaultPodSpec,
  tryParseQuantity,
  validateContainersOnlyForPod,
  validatePodSpec,
  validateTolerations,
} from './pod-template.js';
import { podStorage } from './pod-storage.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

export type PodObject = ApiObject<Pod>;
/** `observedGeneration` of pod status and conditions (1.33, newer than the kubernetes-types release). */
type WithObservedGeneration<T> = T & { observedGeneration?: number };

const POD_DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';

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

/** `ValidatePodSpecificAnnotations` (the parts that apply here): a valid int32 pod-deletion-cost. */
function validatePodAnnotations(pod: Pod): FieldError[] {
  const cost = pod.metadata?.annotations?.[POD_DELETION_COST];
  if (cost === undefined) return [];
  const n = Number(cost);
  const ok = /^[+-]?[0-9]+$/.test(cost) && n >= -2147483648 && n <= 2147483647;
  return ok ? [] : [field.invalid(`metadata.annotations[${POD_DELETION_COST}]`, cost, 'must be a 32bit integer')];
}

/** `validatePodMetadataAndSpec` without the ObjectMeta part (done by the store). */
function validatePodMetadataAndSpec(pod: Pod): FieldError[] {
  const spec = pod.spec ?? { containers: [] };
  const errs = validatePodAnnotations(pod);
  errs.push(...validatePodSpec(spec, 'spec', { resourceIsPod: true }));
  errs.push(...validateContainersOnlyForPod(spec.containers, 'spec.containers'));
  errs.push(...validateContainersOnlyForPod(spec.initContainers, 'spec.initContainers'));
  return errs;
}

/** `ValidatePodCreate`. */
export function validatePodCreate(pod: Pod): FieldError[] {
  const errs = validatePodMetadataAndSpec(pod);
  if (pod.spec?.ephemeralContainers?.length) errs.push(field.forbidden('spec.ephemeralContainers', 'cannot be set on create'));
  if (pod.spec?.nodeName && pod.spec.schedulingGates?.length) {
    errs.push(field.forbidden('spec.nodeName', 'cannot be set until all schedulingGates have been cleared'));
  }
  return errs;
}

const UPDATABLE_POD_SPEC_FIELDS = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];

/** `ValidateContainerUpdates`: same number of containers, every image set and trimmed. Returns [errors, stop]. */
function validateContainerUpdates(newC: readonly Container[], oldC: readonly Container[], path: string): [FieldError[], boolean] {
  if (newC.length !== oldC.length) return [[field.forbidden(path, 'pod updates may not add or remove containers')], true];
  const errs: FieldError[] = [];
  newC.forEach((c, i) => {
    const image = c.image ?? '';
    if (!image) errs.push(field.required(`${path}[${i}].image`));
    if (image.trim().length !== image.length) errs.push(field.invalid(`${path}[${i}].image`, image, 'must not have leading or trailing whitespace'));
  });
  return [errs, false];
}

/** `validateOnlyAddedTolerations`: every old toleration is still there (tolerationSeconds may change). */
function validateOnlyAddedTolerations(newT: readonly Toleration[], oldT: readonly Toleration[], path: string): FieldError[] {
  for (const old of oldT) {
    const found = newT.some((t) => semanticDeepEqual({ ...old, tolerationSeconds: t.tolerationSeconds }, t));
    if (!found) return [field.forbidden(path, 'existing toleration can not be modified except its tolerationSeconds')];
  }
  return validateTolerations(newT, path);
}

/** A short stand-in for upstream's `cmp.Diff(oldSpec, mungedSpec)`: one `-`/`+` pair per changed field. */
function specDiff(oldSpec: PodSpec, newSpec: PodSpec): string {
  const lines = ['  core.PodSpec{'];
  const keys = [...new Set([...Object.keys(oldSpec), ...Object.keys(newSpec)])];
  for (const k of keys) {
    const o = (oldSpec as unknown as Record<string, unknown>)[k];
    const n = (newSpec as unknown as Record<string, unknown>)[k];
    if (semanticDeepEqual(o, n)) continue;
    lines.push(`- \t${k}: ${JSON.stringify(o ?? null)},`, `+ \t${k}: ${JSON.stringify(n ?? null)},`);
  }
  lines.push('  }');
  return lines.join('\n');
}

/**
 * `ValidatePodUpdate`: the new pod must be valid, and only images, activeDeadlineSeconds (nil → set, or
 * lowered), tolerations (additions), schedulingGates (removals) and a negative grace period raised to 1
 * may change; anything else is `spec: Forbidden: pod updates may not change fields other than …` with a
 * diff. Binding a pod (setting nodeName) goes through the binding subresource, not here.
 */
export function validatePodUpdate(pod: Pod, old: Pod): FieldError[] {
  const spec = pod.spec ?? { containers: [] };
  const oldSpec = old.spec ?? { containers: [] };
  const errs = validatePodMetadataAndSpec(pod);
  let [cErrs, stop] = validateContainerUpdates(spec.containers ?? [], oldSpec.containers ?? [], 'spec.containers');
  errs.push(...cErrs);
  if (stop) return errs;
  [cErrs, stop] = validateContainerUpdates(spec.initContainers ?? [], oldSpec.initContainers ?? [], 'spec.initContainers');
  errs.push(...cErrs);
  if (stop) return errs;

  const ads = spec.activeDeadlineSeconds;
  if (ads !== undefined && ads !== null) {
    if (ads < 0 || ads > 2147483647) {
      errs.push(field.invalid('spec.activeDeadlineSeconds', ads, 'must be between 0 and 2147483647, inclusive'));
      return errs;
    }
    if (oldSpec.activeDeadlineSeconds !== undefined && oldSpec.activeDeadlineSeconds !== null && oldSpec.activeDeadlineSeconds < ads) {
      errs.push(field.invalid('spec.activeDeadlineSeconds', ads, 'must be less than or equal to previous value'));
      return errs;
    }
  } else if (oldSpec.activeDeadlineSeconds !== undefined && oldSpec.activeDeadlineSeconds !== null) {
    errs.push(field.invalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'));
  }
  errs.push(...validateOnlyAddedTolerations(spec.tolerations ?? [], oldSpec.tolerations ?? [], 'spec.tolerations'));
  const oldGates = new Set((oldSpec.schedulingGates ?? []).map((g) => g.name));
  (spec.schedulingGates ?? []).forEach((g, i) => {
    if (!oldGates.has(g.name)) errs.push(field.forbidden(`spec.schedulingGates[${i}].name`, `only deletion is allowed, but found new scheduling gate '${g.name}'`));
  });
  if (semanticDeepEqual(spec, oldSpec)) return errs;

  const munged: PodSpec = {
    ...spec,
    containers: (spec.containers ?? []).map((c, i) => ({ ...c, image: oldSpec.containers?.[i]?.image ?? '' })),
    initContainers: (spec.initContainers ?? []).map((c, i) => ({ ...c, image: oldSpec.initContainers?.[i]?.image ?? '' })),
    activeDeadlineSeconds: oldSpec.activeDeadlineSeconds,
    schedulingGates: oldSpec.schedulingGates,
    tolerations: oldSpec.tolerations,
  };
  const oldGrace = oldSpec.terminationGracePeriodSeconds;
  if (oldGrace !== undefined && oldGrace !== null && oldGrace < 0 && munged.terminationGracePeriodSeconds === 1) {
    munged.terminationGracePeriodSeconds = oldGrace;
  }
  if (!semanticDeepEqual(munged, oldSpec)) {
    errs.push(field.forbidden('spec', `pod updates may not change fields other than ${UPDATABLE_POD_SPEC_FIELDS.join(',')}\n${specDiff(oldSpec, munged)}`));
  }
  return errs;
}

/** `ValidateContainerStateTransition`: unless restartPolicy is Always, a terminated container stays terminated. */
function validateContainerStateTransition(
  statuses: readonly ContainerStatus[],
  oldStatuses: readonly ContainerStatus[],
  path: string,
  restartPolicy: string,
): FieldError[] {
  if (restartPolicy === 'Always') return [];
  const errs: FieldError[] = [];
  oldStatuses.forEach((old, i) => {
    const term = old.state?.terminated;
    if (!term) return;
    if (term.exitCode !== 0 && restartPolicy === 'OnFailure') return;
    for (const s of statuses) {
      if (s.name === old.name && !s.state?.terminated) errs.push(field.forbidden(`${path}[${i}].state`, 'may not be transitioned to non-terminated state'));
    }
  });
  return errs;
}

/**
 * `ValidatePodStatusUpdate`: custom condition types are qualified names (reported at upstream's path
 * `metadata.conditions[i].Type`), nodeName cannot change here, nominatedNodeName is a DNS subdomain,
 * qosClass is immutable, terminated containers stay terminated unless restartPolicy is Always.
 */
export function validatePodStatusUpdate(pod: Pod, old: Pod): FieldError[] {
  const errs = validatePodAnnotations(pod);
  const system = new Set(['PodScheduled', 'Ready', 'Initialized']);
  (pod.status?.conditions ?? []).forEach((c, i) => {
    if (system.has(c.type)) return;
    for (const msg of isQualifiedName(c.type)) errs.push(field.invalid(`metadata.conditions[${i}].Type`, c.type, msg));
  });
  if ((pod.spec?.nodeName ?? '') !== (old.spec?.nodeName ?? '')) errs.push(field.forbidden('status.nodeName', 'may not be changed directly'));
  const nominated = pod.status?.nominatedNodeName ?? '';
  if (nominated && nominated !== (old.status?.nominatedNodeName ?? '')) {
    for (const msg of isDNS1123Subdomain(nominated)) errs.push(field.invalid('status.nominatedNodeName', nominated, msg));
  }
  if ((pod.status?.qosClass ?? '') !== (old.status?.qosClass ?? '')) {
    errs.push(field.invalid('status.qosClass', pod.status?.qosClass ?? '', FIELD_IMMUTABLE_ERROR_MSG));
  }
  const restartPolicy = old.spec?.restartPolicy ?? '';
  errs.push(...validateContainerStateTransition(pod.status?.containerStatuses ?? [], old.status?.containerStatuses ?? [], 'status.containerStatuses', restartPolicy));
  return errs;
}

// ---------------------------------------------------------------------------------------------
// printPod.

/** The primary pod IP: `status.podIPs[0].ip`, or the v1 `status.podIP` a client set alone (v1 conversion fills podIPs from it). */
function podIP(pod: Pod): string {
  return pod.status?.podIPs?.[0]?.ip || pod.status?.podIP || '';
}

function lastTerminationFinishedAt(s: ContainerStatus): number | undefined {
  return parseTime(s.lastState?.terminated?.finishedAt);
}

function hasCondition(conditions: readonly PodCondition[] | undefined, type: string): boolean {
  return (conditions ?? []).some((c) => c.type === type && c.status === 'True');
}

/**
 * `printPod`'s cells: name, `ready/total`, the status reason, restarts (`2 (5m ago)` when the last
 * termination time is known), age, IP, node, nominated node and readiness gates (`<none>` when empty).
 * The status reason is, in order: status.reason or the phase; `SchedulingGated`; the first unfinished
 * init container (`Init:<reason>`, `Init:Signal:N`, `Init:ExitCode:N`, `Init:i/n`); then containers from
 * last to first (waiting reason, terminated reason, `Signal:N`/`ExitCode:N`), with `Completed` turned
 * back into `Running`/`NotReady` while a container still runs; finally `Unknown` for a deleted pod on a
 * lost node or `Terminating` for a deleted non-terminal pod.
 */
export function printPod(pod: Pod, now: number): TableRowData {
  const spec = pod.spec ?? { containers: [] };
  const status = pod.status ?? {};
  let restarts = 0;
  let restartableInitRestarts = 0;
  let totalContainers = (spec.containers ?? []).length;
  let readyContainers = 0;
  let lastRestart = 0;
  let lastRestartableInitRestart = 0;
  let reason: string = status.reason || status.phase || '';
  if ((status.conditions ?? []).some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) reason = 'SchedulingGated';

  const row: TableRowData = { cells: [] };
  if (status.phase === 'Succeeded') {
    row.conditions = [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
  } else if (status.phase === 'Failed') {
    row.conditions = [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
  }

  const initContainers = spec.initContainers ?? [];
  const restartable = new Set(initContainers.filter((c) => c.restartPolicy === 'Always').map((c) => c.name));
  totalContainers += restartable.size;

  let initializing = false;
  const initStatuses = status.initContainerStatuses ?? [];
  for (let i = 0; i < initStatuses.length; i++) {
    const c = initStatuses[i] as ContainerStatus;
    restarts += c.restartCount ?? 0;
    const finished = lastTerminationFinishedAt(c);
    if (finished !== undefined && finished > lastRestart) lastRestart = finished;
    const isRestartable = restartable.has(c.name);
    if (isRestartable) {
      restartableInitRestarts += c.restartCount ?? 0;
      if (finished !== undefined && finished > lastRestartableInitRestart) lastRestartableInitRestart = finished;
    }
    const term = c.state?.terminated;
    const waiting = c.state?.waiting;
    if (term && term.exitCode === 0) continue;
    if (isRestartable && c.started) {
      if (c.ready) readyContainers++;
      continue;
    }
    if (term) {
      if (!term.reason) reason = term.signal ? `Init:Signal:${term.signal}` : `Init:ExitCode:${term.exitCode}`;
      else reason = `Init:${term.reason}`;
    } else if (waiting?.reason && waiting.reason !== 'PodInitializing') {
      reason = `Init:${waiting.reason}`;
    } else {
      reason = `Init:${i}/${initContainers.length}`;
    }
    initializing = true;
    break;
  }

  if (!initializing || hasCondition(status.conditions, 'Initialized')) {
    restarts = restartableInitRestarts;
    lastRestart = lastRestartableInitRestart;
    let hasRunning = false;
    const statuses = status.containerStatuses ?? [];
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i] as ContainerStatus;
      restarts += c.restartCount ?? 0;
      const finished = lastTerminationFinishedAt(c);
      if (finished !== undefined && finished > lastRestart) lastRestart = finished;
      const term = c.state?.terminated;
      if (c.state?.waiting?.reason) reason = c.state.waiting.reason;
      else if (term?.reason) reason = term.reason;
      else if (term) reason = term.signal ? `Signal:${term.signal}` : `ExitCode:${term.exitCode}`;
      else if (c.ready && c.state?.running) {
        hasRunning = true;
        readyContainers++;
      }
    }
    if (reason === 'Completed' && hasRunning) reason = hasCondition(status.conditions, 'Ready') ? 'Running' : 'NotReady';
  }

  if (pod.metadata?.deletionTimestamp && status.reason === 'NodeLost') reason = 'Unknown';
  else if (pod.metadata?.deletionTimestamp && status.phase !== 'Succeeded' && status.phase !== 'Failed') reason = 'Terminating';

  let restartsCell = String(restarts);
  if (restarts !== 0 && lastRestart !== 0) restartsCell = `${restarts} (${translateTimestampSince(formatTime(lastRestart), now)} ago)`;

  let readinessGates = '<none>';
  const gates = spec.readinessGates ?? [];
  if (gates.length > 0) {
    let trueConditions = 0;
    for (const g of gates) {
      const cond = (status.conditions ?? []).find((c) => c.type === g.conditionType);
      if (cond?.status === 'True') trueConditions++;
    }
    readinessGates = `${trueConditions}/${gates.length}`;
  }
  row.cells = [
    pod.metadata?.name ?? '',
    `${readyContainers}/${totalContainers}`,
    reason,
    restartsCell,
    translateTimestampSince(pod.metadata?.creationTimestamp, now),
    podIP(pod) || '<none>',
    spec.nodeName || '<none>',
    status.nominatedNodeName || '<none>',
    readinessGates,
  ];
  return row;
}

// ---------------------------------------------------------------------------------------------

function prepareForStatusUpdate(pod: PodObject, old: Pod): void {
  pod.spec = old.spec;
  const meta = (pod.metadata ??= {});
  resetField(meta, old.metadata, 'deletionTimestamp');
  // Old kubelets corrupt ownerReferences, so pods/status never changes them.
  resetField(meta, old.metadata, 'ownerReferences');
  const status: WithObservedGeneration<PodStatus> = (pod.status ??= {});
  const oldStatus: WithObservedGeneration<PodStatus> | undefined = old.status;
  if (!status.qosClass && oldStatus?.qosClass) status.qosClass = oldStatus.qosClass;
  // preserveOldObservedGeneration: a writer that does not know the field must not clear it.
  if (!status.observedGeneration && oldStatus?.observedGeneration) status.observedGeneration = oldStatus.observedGeneration;
  const oldByType = new Map<string, number[]>();
  for (const c of (oldStatus?.conditions ?? []) as WithObservedGeneration<PodCondition>[]) {
    const list = oldByType.get(c.type) ?? [];
    list.push(c.observedGeneration ?? 0);
    oldByType.set(c.type, list);
  }
  for (const c of (status.conditions ?? []) as WithObservedGeneration<PodCondition>[]) {
    const oldGeneration = oldByType.get(c.type)?.shift() ?? 0;
    if (!c.observedGeneration && oldGeneration) c.observedGeneration = oldGeneration;
  }
}

/** The pods strategy. */
export const podStrategy: ResourceStrategy<PodObject> = {
  info: resourceInfo(PODS),
  hasStatus: true,
  defaults: defaultPod,
  prepareForCreate(pod, now) {
    (pod.metadata ??= {}).generation = 1;
    pod.status = { phase: 'Pending', qosClass: computePodQOS(pod.spec) };
    // applySchedulingGatedCondition
    if (pod.spec?.schedulingGates?.length) {
      pod.status.conditions = [
        {
          type: 'PodScheduled',
          status: 'False',
          reason: 'SchedulingGated',
          message: 'Scheduling is blocked due to non-empty scheduling gates',
          lastTransitionTime: formatTime(now),
        },
      ];
    }
  },
  prepareForUpdate(pod, old) {
    resetField(pod, old, 'status');
    bumpGenerationIf(pod, old, !semanticDeepEqual(pod.spec, old.spec));
  },
  prepareForStatusUpdate,
  validate: validatePodCreate,
  validateUpdate: validatePodUpdate,
  validateStatusUpdate: validatePodStatusUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  /**
   * `CheckGracefulDelete`: the requested grace, else spec.terminationGracePeriodSeconds (30 when
   * unset, the defaulted value); 0 for pods not bound to a node or already Succeeded/Failed.
   */
  checkGracefulDelete(pod, requested) {
    const phase = pod.status?.phase;
    if (!pod.spec?.nodeName || phase === 'Failed' || phase === 'Succeeded') return 0;
    return requested ?? pod.spec.terminationGracePeriodSeconds ?? 30;
  },
  returnDeletedObject: true,
  storage: podStorage,
  fieldSelectors: {
    'spec.nodeName': (p) => p.spec?.nodeName ?? '',
    'spec.restartPolicy': (p) => p.spec?.restartPolicy ?? '',
    'spec.schedulerName': (p) => p.spec?.schedulerName ?? '',
    'spec.serviceAccountName': (p) => p.spec?.serviceAccountName ?? '',
    'spec.hostNetwork': (p) => String(p.spec?.hostNetwork ?? false),
    'status.phase': (p) => p.status?.phase ?? '',
    'status.podIP': podIP,
    'status.nominatedNodeName': (p) => p.status?.nominatedNodeName ?? '',
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
      column('Status', 'string', 'The aggregate status of the containers in this pod.'),
      column('Restarts', 'string', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
      AGE_COLUMN,
      column('IP', 'string', 'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', 1),
      column('Node', 'string', 'NodeName indicates in which node this pod is scheduled.', 1),
      column('Nominated Node', 'string', 'nominatedNodeName is set only when this pod preempts other pods on the node.', 1),
      column('Readiness Gates', 'string', 'If specified, all readiness gates will be evaluated for pod readiness.', 1),
    ],
    row: printPod,
  },
};
