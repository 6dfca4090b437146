/**
 * Pure DaemonSet helpers: which nodes should run a daemon pod, the tolerations every daemon pod gets,
 * the pod template the controller creates from, node pinning through node affinity, and the
 * update-strategy arithmetic.
 *
 * Follows kubernetes/kubernetes pkg/controller/daemon/util/daemonset_util.go (`CreatePodTemplate`,
 * `AddOrUpdateDaemonPodTolerations`, `ReplaceDaemonSetPodNodeNameNodeAffinity`, `GetTargetNodeName`,
 * `IsPodUpdated`, `SurgeCount`, `UnavailableCount`, `AllowsSurge`, `GetTemplateGeneration`) and
 * pkg/controller/daemon/daemon_controller.go (`NodeShouldRunDaemonPod`, `predicates`, `NewPod`,
 * `podByCreationTimestampAndPhase`). Node affinity and taint matching reuse the scheduler's
 * implementations of component-helpers' nodeaffinity and v1helper.
 */
import type { Affinity, DaemonSet, Node, Pod, PodTemplateSpec, Taint, Toleration } from '../../api/index.js';
import { getScaledValueFromIntOrPercent } from '../../machinery/intstr/index.js';
import { deepCopy } from '../../machinery/meta/index.js';
import { parseTime } from '../../util/clock/index.js';
import { matchNodeSelectorTerms, tolerationsTolerateTaint } from '../../machinery/scheduling/index.js';

/** Pod label with the ControllerRevision hash of the template the pod was made from (`DefaultDaemonSetUniqueLabelKey`). */
export const CONTROLLER_REVISION_HASH_LABEL = 'controller-revision-hash';
/** Pod label with the template generation the pod was made from (`DaemonSetTemplateGenerationKey`). */
export const POD_TEMPLATE_GENERATION_LABEL = 'pod-template-generation';
/** DaemonSet annotation holding the template generation (apps/v1 `DeprecatedTemplateGeneration`). */
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

/** The node field daemon pods are pinned with (`metav1.ObjectNameField`). */
const OBJECT_NAME_FIELD = 'metadata.name';

/**
 * The tolerations `AddOrUpdateDaemonPodTolerations` adds (operator Exists, no tolerationSeconds):
 * daemon pods survive not-ready/unreachable nodes and schedule onto nodes under pressure or cordoned.
 */
const DAEMON_TOLERATIONS: readonly Toleration[] = Object.freeze([
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
]);
/** Added only for `hostNetwork: true` pods. */
const NETWORK_UNAVAILABLE_TOLERATION: Toleration = { key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' };

/** `Toleration.MatchToleration`: tolerations are unique by key, operator, value and effect. */
function sameToleration(a: Toleration, b: Toleration): boolean {
  return (a.key ?? '') === (b.key ?? '') && (a.operator ?? '') === (b.operator ?? '') && (a.value ?? '') === (b.value ?? '') && (a.effect ?? '') === (b.effect ?? '');
}

/**
 * `AddOrUpdateDaemonPodTolerations`: `tolerations` plus the daemon tolerations not already present
 * (an equal toleration is replaced in place, so a template listing one keeps its position), plus
 * network-unavailable when `hostNetwork`. Returns a new array.
 */
export function daemonPodTolerations(tolerations: readonly Toleration[] | undefined, hostNetwork: boolean | undefined): Toleration[] {
  const result = (tolerations ?? []).map((t) => ({ ...t }));
  const extra = hostNetwork ? [...DAEMON_TOLERATIONS, NETWORK_UNAVAILABLE_TOLERATION] : DAEMON_TOLERATIONS;
  for (const t of extra) {
    const i = result.findIndex((r) => sameToleration(r, t));
    if (i >= 0) result[i] = { ...t };
    else result.push({ ...t });
  }
  return result;
}

/** What `NodeShouldRunDaemonPod` reads of a DaemonSet, computed once per (frozen) object. */
interface DaemonPodPredicates {
  nodeName: string;
  nodeSelector: Readonly<Record<string, string>>;
  requiredTerms: NonNullable<NonNullable<NonNullable<Affinity['nodeAffinity']>['requiredDuringSchedulingIgnoredDuringExecution']>['nodeSelectorTerms']> | undefined;
  tolerations: readonly Toleration[];
}

const predicatesCache = new WeakMap<DaemonSet, DaemonPodPredicates>();

function daemonPodPredicates(ds: DaemonSet): DaemonPodPredicates {
  let p = predicatesCache.get(ds);
  if (p) return p;
  const spec = ds.spec?.template?.spec;
  p = {
    nodeName: spec?.nodeName ?? '',
    nodeSelector: spec?.nodeSelector ?? {},
    requiredTerms: spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms,
    tolerations: daemonPodTolerations(spec?.tolerations, spec?.hostNetwork),
  };
  // Informer objects are frozen: their answers never change. Mutable ones (tests) are not cached.
  if (Object.isFrozen(ds)) predicatesCache.set(ds, p);
  return p;
}

/** The first taint with one of `effects` that `tolerations` do not tolerate (`FindMatchingUntoleratedTaint`). */
function hasUntoleratedTaint(taints: readonly Taint[], tolerations: readonly Toleration[], effects: readonly string[]): boolean {
  return taints.some((t) => effects.includes(t.effect) && !tolerationsTolerateTaint(tolerations, t));
}

/** Whether a node should run the daemon pod, and whether a pod already there may stay. */
export interface NodeShouldRun {
  shouldRun: boolean;
  shouldContinueRunning: boolean;
}

const RUN: NodeShouldRun = Object.freeze({ shouldRun: true, shouldContinueRunning: true });
const NEVER: NodeShouldRun = Object.freeze({ shouldRun: false, shouldContinueRunning: false });
const KEEP_ONLY: NodeShouldRun = Object.freeze({ shouldRun: false, shouldContinueRunning: true });

/**
 * `NodeShouldRunDaemonPod(node, ds)`, simulating the daemon pod on `node` (template + daemon
 * tolerations):
 * - template `spec.nodeName` set to another node, or `nodeSelector` / required node affinity not
 *   matching the node's labels (and `metadata.name` field) ⇒ neither run nor keep;
 * - an untolerated NoSchedule/NoExecute taint ⇒ do not run; keep an existing pod unless a NoExecute
 *   taint is untolerated;
 * - otherwise run. Resources are not checked (the scheduler decides; the pod may stay Pending), nor
 *   `spec.unschedulable` (daemon pods tolerate the cordon taint).
 */
export function nodeShouldRunDaemonPod(node: Node, ds: DaemonSet): NodeShouldRun {
  const p = daemonPodPredicates(ds);
  const name = node.metadata?.name ?? '';
  if (p.nodeName && p.nodeName !== name) return NEVER;
  const labels = node.metadata?.labels ?? {};
  for (const k in p.nodeSelector) if (labels[k] !== p.nodeSelector[k]) return NEVER;
  if (p.requiredTerms !== undefined && !matchNodeSelectorTerms(p.requiredTerms, labels, name)) return NEVER;
  const taints = node.spec?.taints ?? [];
  if (taints.length === 0 || !hasUntoleratedTaint(taints, p.tolerations, ['NoSchedule', 'NoExecute'])) return RUN;
  return hasUntoleratedTaint(taints, p.tolerations, ['NoExecute']) ? NEVER : KEEP_ONLY;
}

/** `GetTemplateGeneration`: the annotation's integer, or undefined when absent or unparsable. */
export function getTemplateGeneration(ds: DaemonSet): number | undefined {
  const v = ds.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  return v !== undefined && /^[+-]?\d+$/.test(v) ? Number(v) : undefined;
}

/**
 * `CreatePodTemplate`: a copy of the DaemonSet's template with the daemon tolerations and the labels
 * `pod-template-generation` (when known) and `controller-revision-hash` (when non-empty).
 */
export function createPodTemplate(template: PodTemplateSpec, generation: number | undefined, hash: string): PodTemplateSpec {
  const t = deepCopy(template);
  const spec = (t.spec ??= { containers: [] });
  spec.tolerations = daemonPodTolerations(spec.tolerations, spec.hostNetwork);
  const labels = ((t.metadata ??= {}).labels ??= {});
  if (generation !== undefined) labels[POD_TEMPLATE_GENERATION_LABEL] = String(generation);
  if (hash) labels[CONTROLLER_REVISION_HASH_LABEL] = hash;
  return t;
}

/**
 * `ReplaceDaemonSetPodNodeNameNodeAffinity`: `affinity` (mutated, or a new one) whose required node
 * affinity is exactly one term `matchFields: [{key: metadata.name, operator: In, values: [nodeName]}]`,
 * replacing any required terms the template had (they were already checked against the node).
 */
export function replaceDaemonSetPodNodeNameNodeAffinity(affinity: Affinity | undefined, nodeName: string): Affinity {
  const required = { nodeSelectorTerms: [{ matchFields: [{ key: OBJECT_NAME_FIELD, operator: 'In', values: [nodeName] }] }] };
  const a = affinity ?? {};
  const na = (a.nodeAffinity ??= {});
  na.requiredDuringSchedulingIgnoredDuringExecution = required;
  return a;
}

/**
 * `GetTargetNodeName`: the pod's `spec.nodeName`, or for an unscheduled pod the node its
 * `metadata.name In [node]` matchFields requirement names. Undefined when there is none or it names
 * several nodes (upstream logs and skips such pods).
 */
export function getTargetNodeName(pod: Pod): string | undefined {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  for (const term of terms) {
    for (const r of term.matchFields ?? []) {
      if (r.key === OBJECT_NAME_FIELD && r.operator === 'In') return r.values?.length === 1 ? r.values[0] : undefined;
    }
  }
  return undefined;
}

/** `IsPodUpdated`: the pod's hash label is the current hash, or its generation label the template generation. */
export function isPodUpdated(pod: Pod, hash: string, generation: number | undefined): boolean {
  const labels = pod.metadata?.labels ?? {};
  const templateMatches = generation !== undefined && labels[POD_TEMPLATE_GENERATION_LABEL] === String(generation);
  const hashMatches = hash.length > 0 && labels[CONTROLLER_REVISION_HASH_LABEL] === hash;
  return hashMatches || templateMatches;
}

/**
 * `SurgeCount`: maxSurge scaled to `numberToSchedule` nodes, percentages rounded **up** (10% of 25
 * nodes = 2.5 ⇒ 3); 0 for OnDelete. Throws on a malformed int-or-percent.
 */
export function surgeCount(ds: DaemonSet, numberToSchedule: number): number {
  const s = ds.spec?.updateStrategy;
  if (s?.type !== 'RollingUpdate' || !s.rollingUpdate || s.rollingUpdate.maxSurge === undefined) return 0;
  return getScaledValueFromIntOrPercent(s.rollingUpdate.maxSurge, numberToSchedule, true);
}

/** `UnavailableCount`: maxUnavailable scaled the same way (also rounded up: 10% of 5 nodes ⇒ 1); 0 for OnDelete. */
export function unavailableCount(ds: DaemonSet, numberToSchedule: number): number {
  const s = ds.spec?.updateStrategy;
  if (s?.type !== 'RollingUpdate' || !s.rollingUpdate) return 0;
  return getScaledValueFromIntOrPercent(s.rollingUpdate.maxUnavailable ?? 0, numberToSchedule, true);
}

/** `AllowsSurge`: a RollingUpdate whose maxSurge is positive (checked as if for one node). */
export function allowsSurge(ds: DaemonSet): boolean {
  try {
    return surgeCount(ds, 1) > 0;
  } catch {
    return false;
  }
}

/**
 * `podByCreationTimestampAndPhase`: scheduled pods first, then older first (creationTimestamp has
 * second resolution), then by name. Negative when `a` goes first.
 */
export function comparePodsByCreationTimestampAndPhase(a: Pod, b: Pod): number {
  const sa = !!a.spec?.nodeName;
  const sb = !!b.spec?.nodeName;
  if (sa !== sb) return sa ? -1 : 1;
  const ta = parseTime(a.metadata?.creationTimestamp) ?? 0;
  const tb = parseTime(b.metadata?.creationTimestamp) ?? 0;
  if (ta !== tb) return ta - tb;
  const na = a.metadata?.name ?? '';
  const nb = b.metadata?.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}
