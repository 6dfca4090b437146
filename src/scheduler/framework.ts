/**
 * The extension points around filtering and scoring: PreFilter, Reserve/Unreserve and PreBind, run
 * over the plugins that implement them, with upstream's error wrapping (so a FailedScheduling event
 * names the plugin and phase as upstream's does).
 *
 * Follows upstream pkg/scheduler/framework/runtime/framework.go (`RunPreFilterPlugins`,
 * `RunReservePluginsReserve`, `RunReservePluginsUnreserve` — in reverse order —, `RunPreBindPlugins`).
 */
import { errorMessage } from '../machinery/errors/index.js';
import type { PodInfo } from './node-info.js';
import type { CycleState, FilterPlugin, FilterStatus, NodeInfoLister, Plugin, PreBindPlugin, PreFilterPlugin, ReservePlugin } from './plugins/index.js';

/** The plugins of one profile, split by extension point (each keeps the configured order). */
export interface Profile {
  preFilter: readonly PreFilterPlugin[];
  filter: readonly FilterPlugin[];
  reserve: readonly ReservePlugin[];
  preBind: readonly PreBindPlugin[];
}

/** Splits `plugins` by the extension points each implements. */
export function newProfile(plugins: readonly Plugin[]): Profile {
  return {
    preFilter: plugins.filter((p): p is PreFilterPlugin & Plugin => typeof p.preFilter === 'function'),
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
