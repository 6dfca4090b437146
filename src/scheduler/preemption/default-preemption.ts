/**
 * DefaultPreemption, the scheduler's PostFilter: when a pod fits no node, find a node where evicting
 * pods of lower priority makes it fit, evict them (graceful deletion) and nominate the pod to that
 * node, where it waits until the victims are gone.
 *
 * Follows upstream v1.33 pkg/scheduler/framework/preemption/preemption.go (`Evaluator.Preempt`,
 * `findCandidates`, `DryRunPreemption`, `SelectCandidate`, `pickOneNodeForPreemption`,
 * `prepareCandidate`, `getLowerPriorityNominatedPods`) and
 * pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go (`PostFilter`,
 * `calculateNumCandidates`, `GetOffsetAndNumCandidates`, `PodEligibleToPreemptOthers`,
 * `SelectVictimsOnNode`, `filterPodsWithPDBViolation`), and pkg/scheduler/util/utils.go
 * (`MoreImportantPod`, `GetPodStartTime`, `GetEarliestPodStartTime`).
 *
 * The pure steps are exported functions, tested against upstream's tables
 * (default_preemption_test.go, preemption_test.go); {@link DefaultPreemption} runs them against the
 * scheduler's cache and does the API calls.
 */
import type { KubeObject, Pod, PodCondition, PodDisruptionBudget } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import { withTypeMeta, type EventRecorder } from '../../client/record/index.js';
import type { Lister } from '../../informers/index.js';
import { errorMessage, isNotFound } from '../../machinery/errors/index.js';
import { selectorFromLabelSelector } from '../../machinery/labels/index.js';
import { formatTime, parseTime, type Clock } from '../../util/clock/index.js';
import type { Rand } from '../../util/random/index.js';
import { handleError } from '../../util/runtime/index.js';
import {
  runFilterPluginsWithNominatedPods,
  runPreFilterExtension,
  snapshotNodeInfo,
  type NominatedPodsForNode,
  type Profile,
} from '../framework.js';
import type { NodeInfo, PodInfo } from '../node-info.js';
import type { NominatingInfo } from '../nominator.js';
import { unresolvable, type CycleState, type FilterStatus } from '../plugins/index.js';
import { fitErrorMessage, reasonsHistogram } from '../schedule-one.js';

/** The plugin's name, as upstream's (`names.DefaultPreemption`). */
export const DEFAULT_PREEMPTION = 'DefaultPreemption';

/** Upstream DefaultPreemptionArgs defaults: try at least 10 % of the nodes… */
export const MIN_CANDIDATE_NODES_PERCENTAGE = 10;
/** …and at least 100 nodes (both capped at the number of nodes). */
export const MIN_CANDIDATE_NODES_ABSOLUTE = 100;

/** Go's math.MaxInt32 + 1: added to every priority when summing, so negative priorities stay ordered. */
const PRIORITY_OFFSET = 2 ** 31;

const NOT_HELPFUL = 'Preemption is not helpful for scheduling';
const NO_VICTIMS = 'No preemption victims found for incoming pod';

/** `spec.priority`, 0 when unset (upstream corev1helpers `PodPriority`). */
export function podPriority(pod: Pod): number {
  return pod.spec?.priority ?? 0;
}

/** `status.startTime` in ms, or `now` for a pod not started yet (upstream `GetPodStartTime`). */
export function podStartTime(pod: Pod, now: number): number {
  return parseTime(pod.status?.startTime) ?? now;
}

/** True when `a` is more important than `b`: higher priority, then started earlier (upstream `MoreImportantPod`). */
export function moreImportantPod(a: Pod, b: Pod, now: number): boolean {
  const pa = podPriority(a);
  const pb = podPriority(b);
  if (pa !== pb) return pa > pb;
  return podStartTime(a, now) < podStartTime(b, now);
}

/** Sorts pods most important first (in place). */
function sortByImportance<T>(items: T[], pod: (t: T) => Pod, now: number): T[] {
  return items.sort((x, y) => (moreImportantPod(pod(x), pod(y), now) ? -1 : moreImportantPod(pod(y), pod(x), now) ? 1 : 0));
}

/**
 * Whether the pod being deleted was preempted: deletionTimestamp set and the DisruptionTarget
 * condition True with reason PreemptionByScheduler (upstream `podTerminatingByPreemption`).
 */
function podTerminatingByPreemption(pod: Pod): boolean {
  if (!pod.metadata?.deletionTimestamp) return false;
  const c = pod.status?.conditions?.find((cond) => cond.type === 'DisruptionTarget');
  return c?.status === 'True' && c.reason === 'PreemptionByScheduler';
}

/**
 * Whether `pod` may preempt (upstream `PodEligibleToPreemptOthers`): not with `preemptionPolicy:
 * Never`; and not while a lower-priority pod preempted for it is still terminating on its nominated
 * node — unless the filters now reject that node as UnschedulableAndUnresolvable, when a new node is
 * looked for. `reason` is upstream's message when not eligible.
 */
export function podEligibleToPreemptOthers(
  pod: Pod,
  getNodeInfo: (name: string) => NodeInfo | undefined,
  nominatedNodeStatus: FilterStatus | undefined,
): { eligible: boolean; reason: string } {
  if (pod.spec?.preemptionPolicy === 'Never') return { eligible: false, reason: 'not eligible due to preemptionPolicy=Never.' };
  const nominated = pod.status?.nominatedNodeName;
  if (nominated) {
    if (nominatedNodeStatus?.code === 'UnschedulableAndUnresolvable') return { eligible: true, reason: '' };
    const info = getNodeInfo(nominated);
    if (info) {
      const priority = podPriority(pod);
      for (const p of info.pods.values()) {
        if (podPriority(p.pod) < priority && podTerminatingByPreemption(p.pod)) {
          return { eligible: false, reason: 'not eligible due to a terminating pod on the nominated node.' };
        }
      }
    }
  }
  return { eligible: true, reason: '' };
}

/**
 * Splits pods into those whose eviction would violate a PodDisruptionBudget and the others (upstream
 * `filterPodsWithPDBViolation`): each matching budget (same namespace, non-empty selector matching the
 * pod's labels, pod not already in `status.disruptedPods`) loses one allowed disruption per pod, in
 * order; a pod that takes some budget below zero violates it. Order within each part is kept.
 */
export function filterPodsWithPDBViolation(
  podInfos: readonly PodInfo[],
  pdbs: readonly PodDisruptionBudget[],
): { violating: PodInfo[]; nonViolating: PodInfo[] } {
  const allowed = pdbs.map((pdb) => pdb.status?.disruptionsAllowed ?? 0);
  const selectors = pdbs.map((pdb) => {
    try {
      const sel = selectorFromLabelSelector(pdb.spec?.selector);
      // A nil or empty selector matches nothing here (upstream).
      return sel.empty() ? undefined : sel;
    } catch {
      // An invalid selector matches no pod.
      return undefined;
    }
  });
  const violating: PodInfo[] = [];
  const nonViolating: PodInfo[] = [];
  for (const pi of podInfos) {
    const labels = pi.pod.metadata?.labels;
    let violated = false;
    // A pod without labels matches no budget.
    if (labels && Object.keys(labels).length > 0) {
      pdbs.forEach((pdb, i) => {
        const sel = selectors[i];
        if (pdb.metadata?.namespace !== pi.pod.metadata?.namespace || !sel || !sel.matches(labels)) return;
        // Already counted by the API server (an eviction in flight): not a new disruption.
        if (Object.prototype.hasOwnProperty.call(pdb.status?.disruptedPods ?? {}, pi.pod.metadata?.name ?? '')) return;
        allowed[i] = (allowed[i] ?? 0) - 1;
        if ((allowed[i] ?? 0) < 0) violated = true;
      });
    }
    (violated ? violating : nonViolating).push(pi);
  }
  return { violating, nonViolating };
}

/** What must be evicted from one node, most important first (upstream extenderv1.Victims). */
export interface Victims {
  pods: Pod[];
  numPDBViolations: number;
}

/** A node where preemption makes the pod fit. */
export interface Candidate {
  name: string;
  victims: Victims;
}

/** The filters the dry run re-runs, and the nominated pods they count. */
export interface PreemptionFramework {
  profile: Pick<Profile, 'filter' | 'preFilterExtensions'>;
  nominated?: NominatedPodsForNode;
}

/**
 * Finds the fewest, least important pods to evict from `nodeInfo` so `pod` fits (upstream
 * `SelectVictimsOnNode`). `nodeInfo` and `state` must be copies: every pod of lower priority is
 * removed, the filters re-run (with nominated pods); if the pod fits, victims are reprieved one by
 * one, most important first — those whose eviction would violate a PDB before the others — keeping
 * each whose return still lets the pod fit. Returns the victims (most important first) and how many
 * of them violate a PDB, or the status why preemption cannot help on this node.
 * @throws Error when a filter or PreFilter extension throws.
 */
export function selectVictimsOnNode(
  fw: PreemptionFramework,
  state: CycleState,
  pod: PodInfo,
  nodeInfo: NodeInfo,
  pdbs: readonly PodDisruptionBudget[],
  now: number,
): Victims | FilterStatus {
  const extensions = fw.profile.preFilterExtensions;
  const remove = (pi: PodInfo): void => {
    nodeInfo.removePod(pi.uid);
    runPreFilterExtension(extensions, false, state, pod, pi, nodeInfo);
  };
  const add = (pi: PodInfo): void => {
    nodeInfo.addPod(pi);
    runPreFilterExtension(extensions, true, state, pod, pi, nodeInfo);
  };
  const priority = podPriority(pod.pod);
  const potential = [...nodeInfo.pods.values()].filter((pi) => podPriority(pi.pod) < priority);
  if (potential.length === 0) return unresolvable(DEFAULT_PREEMPTION, NO_VICTIMS);
  for (const pi of potential) remove(pi);
  const fits = (): FilterStatus | undefined => runFilterPluginsWithNominatedPods(fw.profile, pod, nodeInfo, state, fw.nominated);
  // Not even with every lower-priority pod gone (inter-pod affinity to a victim is not considered, as upstream).
  const status = fits();
  if (status) return status;
  sortByImportance(potential, (pi) => pi.pod, now);
  const { violating, nonViolating } = filterPodsWithPDBViolation(potential, pdbs);
  const victims: Pod[] = [];
  let numPDBViolations = 0;
  const reprieve = (pi: PodInfo): boolean => {
    add(pi);
    if (fits() === undefined) return true;
    remove(pi);
    victims.push(pi.pod);
    return false;
  };
  for (const pi of violating) if (!reprieve(pi)) numPDBViolations++;
  for (const pi of nonViolating) reprieve(pi);
  if (violating.length > 0 && nonViolating.length > 0) sortByImportance(victims, (p) => p, now);
  return { pods: victims, numPDBViolations };
}

/**
 * The earliest start time among the highest-priority victims, ms (upstream `GetEarliestPodStartTime`),
 * or undefined when there are none.
 */
export function earliestPodStartTime(victims: Victims, now: number): number | undefined {
  const first = victims.pods[0];
  if (!first) return undefined;
  let maxPriority = podPriority(first);
  let earliest = podStartTime(first, now);
  for (const p of victims.pods) {
    const pr = podPriority(p);
    if (pr === maxPriority) earliest = Math.min(earliest, podStartTime(p, now));
    else if (pr > maxPriority) {
      maxPriority = pr;
      earliest = podStartTime(p, now);
    }
  }
  return earliest;
}

/**
 * Picks the node to preempt on (upstream `pickOneNodeForPreemption`): each criterion in turn keeps
 * the best-scoring nodes, until one remains — fewest PDB violations; lowest highest-victim priority;
 * smallest sum of victim priorities; fewest victims; latest earliest start time among the
 * highest-priority victims (evict what started most recently); then the first node. Victims are most
 * important first. Returns '' for no candidates.
 */
export function pickOneNodeForPreemption(nodesToVictims: ReadonlyMap<string, Victims>, now: number): string {
  let candidates = [...nodesToVictims.keys()];
  if (candidates.length === 0) return '';
  const v = (node: string): Victims => nodesToVictims.get(node) as Victims;
  const scoreFuncs: Array<(node: string) => number> = [
    (node) => -v(node).numPDBViolations,
    (node) => {
      const first = v(node).pods[0];
      return first ? -podPriority(first) : 0;
    },
    (node) => -v(node).pods.reduce((sum, p) => sum + podPriority(p) + PRIORITY_OFFSET, 0),
    (node) => -v(node).pods.length,
    (node) => earliestPodStartTime(v(node), now) ?? Number.MIN_SAFE_INTEGER,
  ];
  for (const score of scoreFuncs) {
    let best = -Infinity;
    let selected: string[] = [];
    for (const node of candidates) {
      const s = score(node);
      if (s > best) {
        best = s;
        selected = [];
      }
      if (s === best) selected.push(node);
    }
    if (selected.length === 1) return selected[0] as string;
    candidates = selected;
  }
  return candidates[0] as string;
}

/**
 * How many candidate nodes the dry run looks for (upstream `calculateNumCandidates`):
 * `numNodes × percentage / 100`, at least `absolute`, at most `numNodes`.
 */
export function calculateNumCandidates(numNodes: number, percentage = MIN_CANDIDATE_NODES_PERCENTAGE, absolute = MIN_CANDIDATE_NODES_ABSOLUTE): number {
  const n = Math.max(Math.floor((numNodes * percentage) / 100), absolute);
  return Math.min(n, numNodes);
}

/**
 * Runs {@link selectVictimsOnNode} on copies of the potential nodes from `offset` (wrapping) until
 * `numCandidates` candidates are found with at least one that violates no PDB (upstream
 * `DryRunPreemption`). Returns the candidates (PDB-respecting ones first) and, for nodes where
 * preemption cannot help, why.
 * @throws Error when a filter throws.
 */
export function dryRunPreemption(
  fw: PreemptionFramework,
  state: CycleState,
  pod: PodInfo,
  potentialNodes: readonly NodeInfo[],
  pdbs: readonly PodDisruptionBudget[],
  offset: number,
  numCandidates: number,
  now: number,
): { candidates: Candidate[]; statuses: Map<string, FilterStatus> } {
  const nonViolating: Candidate[] = [];
  const violating: Candidate[] = [];
  const statuses = new Map<string, FilterStatus>();
  const n = potentialNodes.length;
  for (let i = 0; i < n; i++) {
    const node = potentialNodes[(offset + i) % n] as NodeInfo;
    const result = selectVictimsOnNode(fw, state.clone(), pod, snapshotNodeInfo(node), pdbs, now);
    if ('code' in result) {
      statuses.set(node.name, result);
      continue;
    }
    (result.numPDBViolations === 0 ? nonViolating : violating).push({ name: node.name, victims: result });
    if (nonViolating.length > 0 && nonViolating.length + violating.length >= numCandidates) break;
  }
  return { candidates: [...nonViolating, ...violating], statuses };
}

/**
 * The candidate to preempt on (upstream `SelectCandidate`): the only one, or
 * {@link pickOneNodeForPreemption}'s choice.
 */
export function selectCandidate(candidates: readonly Candidate[], now: number): Candidate | undefined {
  if (candidates.length <= 1) return candidates[0];
  const byNode = new Map(candidates.map((c) => [c.name, c.victims] as const));
  const name = pickOneNodeForPreemption(byNode, now);
  return candidates.find((c) => c.name === name) ?? candidates[0];
}

/**
 * What PostFilter decided: the nomination change for the pod (see {@link NominatingInfo}), the
 * message appended to the FailedScheduling text ('' when preemption succeeded), and — when it did —
 * the victims evicted on `nominatingInfo.nodeName`.
 */
export interface PostFilterResult {
  nominatingInfo: NominatingInfo;
  message: string;
  victims?: Pod[];
}

export interface DefaultPreemptionOptions {
  client: Clientset;
  recorder: EventRecorder;
  clock: Clock;
  rand: Rand;
  pdbLister: Lister<PodDisruptionBudget>;
  /** The pods nominated to a node (the scheduling queue's nominator). */
  nominated: NominatedPodsForNode;
  getNodeInfo: (name: string) => NodeInfo | undefined;
  /** Who preempts, for the DisruptionTarget condition message (default `default-scheduler`). */
  schedulerName?: string;
}

/** The pod as an event's involved object (informer objects may lack kind). */
const podRef = (pod: Pod): KubeObject => withTypeMeta(pod as KubeObject, 'v1', 'Pod');

/**
 * The DefaultPreemption PostFilter plugin with its API side effects (upstream `Evaluator` plus
 * `DefaultPreemption`).
 */
export class DefaultPreemption {
  readonly name = DEFAULT_PREEMPTION;
  private readonly opts: DefaultPreemptionOptions;
  /** Victim evictions in flight (awaited by {@link flush}). */
  private readonly inFlight = new Set<Promise<void>>();

  constructor(opts: DefaultPreemptionOptions) {
    this.opts = opts;
  }

  /**
   * Tries to make room for `pod` (upstream `PostFilter` → `Preempt`). `statuses` says why each node
   * rejected it; `allNodes` are the cluster's nodes. When a candidate is found its victims are evicted
   * (asynchronously: see {@link flush}) and the pod is to be nominated there; otherwise the message
   * explains why (prefixed `preemption: `, as upstream's PostFilter does).
   * @throws Error when a filter throws during the dry run.
   */
  postFilter(
    profile: Pick<Profile, 'filter' | 'preFilterExtensions'>,
    state: CycleState,
    pod: PodInfo,
    statuses: ReadonlyMap<string, FilterStatus>,
    allNodes: readonly NodeInfo[],
  ): PostFilterResult {
    const { eligible, reason } = podEligibleToPreemptOthers(
      pod.pod,
      this.opts.getNodeInfo,
      statuses.get(pod.pod.status?.nominatedNodeName ?? ''),
    );
    if (!eligible) return { nominatingInfo: undefined, message: `preemption: ${reason}` };
    // Nodes where removing pods could help: those rejected as Unschedulable (resources, say), not
    // UnschedulableAndUnresolvable (taints, affinity, cordon); unlisted nodes count as the latter.
    const potential = allNodes.filter((n) => statuses.get(n.name)?.code === 'Unschedulable');
    const now = this.opts.clock.now();
    let candidates: Candidate[] = [];
    let nodeStatuses = new Map<string, FilterStatus>();
    if (potential.length > 0) {
      const pdbs = this.opts.pdbLister.list();
      const offset = this.opts.rand.int(potential.length);
      const fw: PreemptionFramework = { profile, nominated: this.opts.nominated };
      ({ candidates, statuses: nodeStatuses } = dryRunPreemption(fw, state, pod, potential, pdbs, offset, calculateNumCandidates(potential.length), now));
    }
    const best = selectCandidate(candidates, now);
    if (!best) {
      // Nodes not examined count as "not helpful" (upstream SetAbsentNodesStatus); the pod's old
      // nomination, if any, is cleared.
      const absent = allNodes.length - nodeStatuses.size;
      const summary =
        allNodes.length === 0
          ? fitErrorMessage(0, nodeStatuses)
          : `0/${allNodes.length} nodes are available: ${reasonsHistogram([...nodeStatuses.values()].map((s) => s.reasons), absent, NOT_HELPFUL)}.`;
      return { nominatingInfo: { nodeName: '' }, message: `preemption: ${summary}` };
    }
    this.prepareCandidate(best, pod.pod);
    return { nominatingInfo: { nodeName: best.name }, message: '', victims: best.victims.pods };
  }

  /** Resolves once every eviction started so far has finished. */
  async flush(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  /**
   * Evicts the victims and clears the nomination of lower-priority pods nominated to the node, which
   * may no longer fit there (upstream `prepareCandidate`, `PreemptPod`). Runs in the background: the
   * scheduling cycle does not wait for the API.
   */
  private prepareCandidate(c: Candidate, preemptor: Pod): void {
    const p = Promise.all(c.victims.pods.map((v) => this.preemptPod(c.name, preemptor, v)))
      .then(() => this.clearLowerPriorityNominations(c.name, preemptor))
      .catch((err: unknown) => handleError(err, { component: 'scheduler', msg: 'Preemption failed', node: c.name }))
      .finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  /**
   * Marks the victim DisruptionTarget=True (reason PreemptionByScheduler) — so its controller and
   * {@link podEligibleToPreemptOthers} know why it goes —, deletes it with its grace period, and
   * records `Preempted` on it. A victim already gone is fine.
   */
  private async preemptPod(nodeName: string, preemptor: Pod, victim: Pod): Promise<void> {
    const ns = victim.metadata?.namespace ?? '';
    const name = victim.metadata?.name ?? '';
    const pods = this.opts.client.core.pods(ns);
    const condition: PodCondition = {
      type: 'DisruptionTarget',
      status: 'True',
      reason: 'PreemptionByScheduler',
      message: `${preemptor.spec?.schedulerName ?? this.opts.schedulerName ?? 'default-scheduler'}: preempting to accommodate a higher priority pod`,
      lastTransitionTime: formatTime(this.opts.clock.now()),
    };
    const current = victim.status?.conditions?.find((cond) => cond.type === 'DisruptionTarget');
    try {
      if (current?.status !== condition.status || current.reason !== condition.reason || current.message !== condition.message) {
        await pods.patch(name, 'application/strategic-merge-patch+json', { status: { conditions: [condition] } }, { subresource: 'status' });
      }
      await pods.delete(name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw new Error(`preempting pod ${ns}/${name}: ${errorMessage(err)}`, { cause: err });
    }
    this.opts.recorder.event(podRef(victim), 'Normal', 'Preempted', `Preempted by pod ${preemptor.metadata?.uid ?? ''} on node ${nodeName}`);
  }

  /** Clears `status.nominatedNodeName` of the pods of lower priority nominated to `nodeName`. */
  private async clearLowerPriorityNominations(nodeName: string, preemptor: Pod): Promise<void> {
    const priority = podPriority(preemptor);
    const lower = this.opts.nominated(nodeName).filter((pi) => podPriority(pi.pod) < priority);
    await Promise.all(lower.map((pi) => clearNominatedNodeName(this.opts.client, pi.pod)));
  }
}

/**
 * Clears a pending pod's `status.nominatedNodeName` (upstream util `ClearNominatedNodeName`); a pod
 * already gone or without a nomination is left alone. Errors are logged, not thrown (not critical).
 */
export async function clearNominatedNodeName(client: Clientset, pod: Pod): Promise<void> {
  if (!pod.status?.nominatedNodeName) return;
  try {
    await client.core
      .pods(pod.metadata?.namespace ?? '')
      .patch(pod.metadata?.name ?? '', 'application/merge-patch+json', { status: { nominatedNodeName: null } }, { subresource: 'status' });
  } catch (err) {
    if (!isNotFound(err)) handleError(err, { component: 'scheduler', msg: 'Cannot clear nominatedNodeName', pod: `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}` });
  }
}
