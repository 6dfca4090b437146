/**
 * Node taints the node lifecycle controller owns, and how it writes them.
 *
 * Follows kubernetes/kubernetes pkg/controller/nodelifecycle/node_lifecycle_controller.go
 * (`UnreachableTaintTemplate`, `NotReadyTaintTemplate`, `nodeConditionToTaintKeyStatusMap`),
 * pkg/controller/util/node/controller_utils.go (`SwapNodeControllerTaint`) and
 * pkg/controller/controller_utils.go (`AddOrUpdateTaintOnNode`, `RemoveTaintOffNode`), plus
 * pkg/util/taints (`TaintExists`, `TaintSetDiff`).
 */
import type { Node, Taint } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import { isConflict, isNotFound } from '../../machinery/errors/index.js';
import { formatTime } from '../../util/clock/index.js';

export const TAINT_NODE_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_NODE_UNREACHABLE = 'node.kubernetes.io/unreachable';
export const TAINT_NODE_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';
export const TAINT_NODE_MEMORY_PRESSURE = 'node.kubernetes.io/memory-pressure';
export const TAINT_NODE_DISK_PRESSURE = 'node.kubernetes.io/disk-pressure';
export const TAINT_NODE_NETWORK_UNAVAILABLE = 'node.kubernetes.io/network-unavailable';
export const TAINT_NODE_PID_PRESSURE = 'node.kubernetes.io/pid-pressure';

/** `UnreachableTaintTemplate`: Ready is Unknown. */
export const UNREACHABLE_TAINT: Readonly<Taint> = Object.freeze({ key: TAINT_NODE_UNREACHABLE, effect: 'NoExecute' });
/** `NotReadyTaintTemplate`: Ready is False. */
export const NOT_READY_TAINT: Readonly<Taint> = Object.freeze({ key: TAINT_NODE_NOT_READY, effect: 'NoExecute' });

/** `nodeConditionToTaintKeyStatusMap`: condition type → status → the NoSchedule taint key it implies. */
export const NODE_CONDITION_TO_TAINT_KEY: Readonly<Record<string, Readonly<Record<string, string>>>> = Object.freeze({
  Ready: { False: TAINT_NODE_NOT_READY, Unknown: TAINT_NODE_UNREACHABLE },
  MemoryPressure: { True: TAINT_NODE_MEMORY_PRESSURE },
  DiskPressure: { True: TAINT_NODE_DISK_PRESSURE },
  NetworkUnavailable: { True: TAINT_NODE_NETWORK_UNAVAILABLE },
  PIDPressure: { True: TAINT_NODE_PID_PRESSURE },
});

/** The taint keys of {@link NODE_CONDITION_TO_TAINT_KEY} (`taintKeyToNodeConditionMap`). */
const CONDITION_TAINT_KEYS = new Set(Object.values(NODE_CONDITION_TO_TAINT_KEY).flatMap((m) => Object.values(m)));

/** `Taint.MatchTaint`: same key and effect. */
export function matchTaint(a: Taint, b: Taint): boolean {
  return a.key === b.key && a.effect === b.effect;
}

/** `TaintExists`: a taint of `taints` matches `taint` (key and effect). */
export function taintExists(taints: readonly Taint[] | undefined, taint: Taint): boolean {
  return (taints ?? []).some((t) => matchTaint(t, taint));
}

/**
 * The NoSchedule taints a node's conditions and `spec.unschedulable` call for, compared with the
 * controller-owned NoSchedule taints it has (`doNoScheduleTaintingPass`): `[toAdd, toRemove]`.
 */
export function noScheduleTaintDiff(node: Node): [Taint[], Taint[]] {
  const want: Taint[] = [];
  for (const c of node.status?.conditions ?? []) {
    const key = NODE_CONDITION_TO_TAINT_KEY[c.type]?.[c.status];
    if (key) want.push({ key, effect: 'NoSchedule' });
  }
  if (node.spec?.unschedulable) want.push({ key: TAINT_NODE_UNSCHEDULABLE, effect: 'NoSchedule' });
  const have = (node.spec?.taints ?? []).filter(
    (t) => t.effect === 'NoSchedule' && (t.key === TAINT_NODE_UNSCHEDULABLE || CONDITION_TAINT_KEYS.has(t.key)),
  );
  return [want.filter((w) => !taintExists(have, w)), have.filter((h) => !taintExists(want, h))];
}

const MAX_CONFLICT_RETRIES = 5;

/**
 * `SwapNodeControllerTaint`: adds `toAdd` (with `timeAdded` = `now`, ms) and removes `toRemove` from
 * the node in one update, re-reading it on conflict (up to 5 times). A taint already present with the
 * same key, effect and value is kept as it is (its timeAdded too). Resolves false when the node is
 * gone; throws other API errors.
 */
export async function swapNodeControllerTaint(client: Clientset, nodeName: string, toAdd: readonly Taint[], toRemove: readonly Taint[], now: number): Promise<boolean> {
  const timeAdded = formatTime(now);
  for (let attempt = 1; ; attempt++) {
    let node: Node;
    try {
      node = await client.core.nodes().get(nodeName);
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
    const old = node.spec?.taints ?? [];
    let taints = old.filter((t) => !toRemove.some((r) => matchTaint(t, r)));
    for (const add of toAdd) {
      const same = taints.find((t) => matchTaint(t, add));
      if (same && (same.value ?? '') === (add.value ?? '')) continue;
      taints = [...taints.filter((t) => !matchTaint(t, add)), { ...add, timeAdded }];
    }
    if (taints.length === old.length && taints.every((t, i) => t === old[i])) return true;
    try {
      await client.core.nodes().update({ ...node, spec: { ...node.spec, taints } });
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      if (!isConflict(err) || attempt >= MAX_CONFLICT_RETRIES) throw err;
    }
  }
}
