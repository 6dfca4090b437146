/**
 * The extension points around filtering and scoring: PreFilter (and its AddPod/RemovePod extensions),
 * Filter with nominated pods, Reserve/Unreserve and PreBind, run over the plugins that implement them,
 * with upstream's error wrapping (so a FailedScheduling event names the plugin and phase as upstream's
 * does).
 *
 * Follows upstream pkg/scheduler/framework/runtime/framework.go (`RunPreFilterPlugins`,
 * `RunPreFilterExtensionAddPod`/`RemovePod`, `RunFilterPlugins`, `RunFilterPluginsWithNominatedPods`
 * and `addGENominatedPods`, `RunReservePluginsReserve`, `RunReservePluginsUnreserve` — in reverse
 * order —, `RunPreBindPlugins`).
 */
import { errorMessage } from '../machinery/errors/index.js';
import { NodeInfo, type PodInfo } from './node-info.js';
import type { CycleState, FilterPlugin, FilterStatus, NodeInfoLister, Plugin, PreBindPlugin, PreFilterPlugin, ReservePlugin } from './plugins/index.js';

/**
 * What a PreFilter plugin that keeps cross-node state in the CycleState (pods matching an affinity
 * term, counts per topology domain) implements so the state follows a pod added to or removed from
 * one node: the nominated-pods filter pass adds pods, preemption removes victims and adds them back
 * (upstream `PreFilterExtensions`). Both run on a cloned state and a cloned NodeInfo, which already
 * has `podInfo` added or removed; they throw on internal errors.
 */
export interface PreFilterExtensions {
  name: string;
  addPod(state: CycleState, podToSchedule: PodInfo, podInfoToAdd: PodInfo, nodeInfo: NodeInfo): void;
  removePod(state: CycleState, podToSchedule: PodInfo, podInfoToRemove: PodInfo, nodeInfo: NodeInfo): void;
}

/** The plugins of one profile, split by extension point (each keeps the configured order). */
export interface Profile {
  preFilter: readonly PreFilterPlugin[];
  /** PreFilter plugins that implement AddPod/RemovePod. */
  preFilterExtensions: readonly PreFilterExtensions[];
  filter: readonly FilterPlugin[];
  reserve: readonly ReservePlugin[];
  preBind: readonly PreBindPlugin[];
}

/** Splits `plugins` by the extension points each implements. */
export function newProfile(plugins: readonly Plugin[]): Profile {
  return {
    preFilter: plugins.filter((p): p is PreFilterPlugin & Plugin => typeof p.preFilter === 'function'),
    preFilterExtensions: plugins.filter(
      (p): p is PreFilterExtensions & Plugin =>
        typeof p.preFilter === 'function' &&
        typeof (p as Partial<PreFilterExtensions>).addPod === 'function' &&
        typeof (p as Partial<PreFilterExtensions>).removePod === 'function',
    ),
    filter: plugins.filter((p): p is FilterPlugin & Plugin => typeof p.filter === 'function'),
    reserve: plugins.filter((p): p is ReservePlugin & Plugin => typeof p.reserve === 'function' && typeof p.unreserve === 'function'),
    preBind: plugins.filter((p): p is PreBindPlugin & Plugin => typeof p.preBind === 'function' && typeof p.preBindPreFlight === 'function'),
  };
}

/**
 * Runs every PreFilter plugin. Returns undefined when the pod may go on to Filter, or the rejecting
 * status: an UnschedulableAndUnresolvable one at once; an Unschedulable one after the remaining plugins
 * ran (upstream: they may still prepare state for preemption). Plugins returning Skip have their Filter
 * skipped for this cycle. `nodes` is every node of the cache, for plugins that count across them.
 * @throws Error `running PreFilter plugin "<name>": <message>` when a plugin throws.
 */
export function runPreFilterPlugins(plugins: readonly PreFilterPlugin[], pod: PodInfo, state: CycleState, nodes: NodeInfoLister): FilterStatus | undefined {
  let rejected: FilterStatus | undefined;
  for (const pl of plugins) {
    let result;
    try {
      result = pl.preFilter(pod, state, nodes);
    } catch (err) {
      throw new Error(`running PreFilter plugin ${JSON.stringify(pl.name)}: ${errorMessage(err)}`, { cause: err });
    }
    if (result === undefined) continue;
    if (result === 'Skip') {
      state.skipFilter(pl.name);
      continue;
    }
    if (result.code === 'UnschedulableAndUnresolvable') return result;
    rejected ??= result;
  }
  return rejected;
}

/**
 * Runs AddPod (`add` true) or RemovePod of every PreFilter extension for `podInfo` on `nodeInfo`
 * (upstream `RunPreFilterExtensionAddPod`/`RunPreFilterExtensionRemovePod`; a plugin whose PreFilter
 * returned Skip is skipped too).
 * @throws Error `running AddPod on PreFilter plugin "<name>": <message>` (or RemovePod).
 */
export function runPreFilterExtension(
  extensions: readonly PreFilterExtensions[],
  add: boolean,
  state: CycleState,
  podToSchedule: PodInfo,
  podInfo: PodInfo,
  nodeInfo: NodeInfo,
): void {
  for (const pl of extensions) {
    if (state.skipFilterPlugins?.has(pl.name)) continue;
    try {
      if (add) pl.addPod(state, podToSchedule, podInfo, nodeInfo);
      else pl.removePod(state, podToSchedule, podInfo, nodeInfo);
    } catch (err) {
      throw new Error(`running ${add ? 'AddPod' : 'RemovePod'} on PreFilter plugin ${JSON.stringify(pl.name)}: ${errorMessage(err)}`, { cause: err });
    }
  }
}

/**
 * A copy of `info` that can take pods added and removed without touching the cache's (upstream
 * `NodeInfo.Snapshot`): the Node is re-parsed and the pods re-added, so the copy keeps every total
 * NodeInfo derives from them. O(pods on the node).
 */
export function snapshotNodeInfo(info: NodeInfo): NodeInfo {
  const c = new NodeInfo(info.name);
  if (info.node) c.setNode(info.node);
  for (const p of info.pods.values()) c.addPod(p);
  return c;
}

/**
 * Runs the Filter plugins (skipping those whose PreFilter returned Skip) on one node; the first
 * rejection is returned (upstream `RunFilterPlugins`).
 * @throws Error `running "<plugin>" filter plugin: <message>` when a filter throws.
 */
export function runFilterPlugins(filters: readonly FilterPlugin[], pod: PodInfo, node: NodeInfo, state: CycleState): FilterStatus | undefined {
  const skip = state.skipFilterPlugins;
  for (const f of filters) {
    if (skip?.has(f.name)) continue;
    let status;
    try {
      status = f.filter(pod, node, state);
    } catch (err) {
      throw new Error(`running ${JSON.stringify(f.name)} filter plugin: ${errorMessage(err)}`, { cause: err });
    }
    if (status) return status;
  }
  return undefined;
}

/** The pods nominated to run on a node (preemptors waiting for their victims to go). */
export type NominatedPodsForNode = (nodeName: string) => readonly PodInfo[];

/**
 * Filters `node` for `pod` counting the pods nominated to it with a priority at least the pod's: a
 * pod must not take room freed for a more important preemptor (lower-priority nominees' room it may
 * take). When such pods exist and the first pass succeeds, the filters run again without them, since
 * some filters (pod affinity) may only pass with them. Upstream `RunFilterPluginsWithNominatedPods`
 * and `addGENominatedPods` (framework/runtime/framework.go).
 * @throws Error from {@link runFilterPlugins} or {@link runPreFilterExtension}.
 */
export function runFilterPluginsWithNominatedPods(
  profile: Pick<Profile, 'filter' | 'preFilterExtensions'>,
  pod: PodInfo,
  node: NodeInfo,
  state: CycleState,
  nominated: NominatedPodsForNode | undefined,
): FilterStatus | undefined {
  const added = nominated ? addGENominatedPods(profile.preFilterExtensions, pod, node, state, nominated(node.name)) : undefined;
  if (!added) return runFilterPlugins(profile.filter, pod, node, state);
  const status = runFilterPlugins(profile.filter, pod, added.node, added.state);
  if (status) return status;
  return runFilterPlugins(profile.filter, pod, node, state);
}

/** `node` and `state` with the nominated pods of priority ≥ `pod`'s added, or undefined when there are none. */
function addGENominatedPods(
  extensions: readonly PreFilterExtensions[],
  pod: PodInfo,
  node: NodeInfo,
  state: CycleState,
  nominatedPods: readonly PodInfo[],
): { node: NodeInfo; state: CycleState } | undefined {
  if (nominatedPods.length === 0) return undefined;
  const priority = pod.pod.spec?.priority ?? 0;
  let out: { node: NodeInfo; state: CycleState } | undefined;
  for (const np of nominatedPods) {
    if ((np.pod.spec?.priority ?? 0) < priority || np.uid === pod.uid) continue;
    out ??= { node: snapshotNodeInfo(node), state: extensions.length > 0 ? state.clone() : state };
    out.node.addPod(np);
    runPreFilterExtension(extensions, true, out.state, pod, np, out.node);
  }
  return out;
}

/**
 * Runs every Reserve plugin; if one throws, the ones already run (and the failing one) are
 * unreserved and the error is rethrown as `running Reserve plugin "<name>": <message>`.
 */
export function runReservePluginsReserve(plugins: readonly ReservePlugin[], pod: PodInfo, state: CycleState, nodeName: string): void {
  for (const pl of plugins) {
    try {
      pl.reserve(pod, state, nodeName);
    } catch (err) {
      runReservePluginsUnreserve(plugins, pod, state, nodeName);
      throw new Error(`running Reserve plugin ${JSON.stringify(pl.name)}: ${errorMessage(err)}`, { cause: err });
    }
  }
}

/** Runs every plugin's Unreserve, in reverse order, as upstream. */
export function runReservePluginsUnreserve(plugins: readonly ReservePlugin[], pod: PodInfo, state: CycleState, nodeName: string): void {
  for (let i = plugins.length - 1; i >= 0; i--) plugins[i]?.unreserve(pod, state, nodeName);
}

/** True when some PreBind plugin has work for this pod (the binding cycle then takes the slow path). */
export function preBindPreFlight(plugins: readonly PreBindPlugin[], pod: PodInfo, state: CycleState, nodeName: string): boolean {
  return plugins.some((pl) => pl.preBindPreFlight(pod, state, nodeName));
}

/**
 * Runs the PreBind plugins one after the other.
 * @throws Error `running PreBind plugin "<name>": <message>` when one rejects.
 */
export async function runPreBindPlugins(plugins: readonly PreBindPlugin[], pod: PodInfo, state: CycleState, nodeName: string, signal: AbortSignal): Promise<void> {
  for (const pl of plugins) {
    try {
      await pl.preBind(pod, state, nodeName, signal);
    } catch (err) {
      throw new Error(`running PreBind plugin ${JSON.stringify(pl.name)}: ${errorMessage(err)}`, { cause: err });
    }
  }
}
