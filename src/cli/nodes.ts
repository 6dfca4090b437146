/**
 * `kubeplane nodes add|remove|stop|start`: adds or removes a simulated node on a running cluster
 * through its kubeconfig. Adding creates a plain Node object (labels, taints, no status); the running
 * cluster's node simulator adopts every Node that appears without a Ready condition — exactly as when
 * a Node is created with `kubectl create -f node.yaml` — and makes it Ready. Removing deletes the Node
 * and its Lease. Stopping sets the annotation `kubeplane.io/simulate: Stopped`, on which the simulated
 * kubelet stops heartbeating (the node lifecycle controller then marks it Unknown and taints it);
 * starting removes it.
 */
import type { Node, Taint } from '../api/index.js';
import type { Clientset } from '../client/index.js';
import { isNotFound } from '../machinery/errors/index.js';
import { NODE_SIMULATE_ANNOTATION, NODE_STOPPED } from '../nodes/index.js';

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** Parses `key=value` (value may be empty) as `kubectl label` does. Throws Error on a missing `=`. */
export function parseLabel(s: string): [string, string] {
  const eq = s.indexOf('=');
  if (eq <= 0) throw new Error(`invalid label ${JSON.stringify(s)}: want key=value`);
  return [s.slice(0, eq), s.slice(eq + 1)];
}

/**
 * Parses a taint as `kubectl taint` writes it: `key=value:Effect` or `key:Effect`, the effect one of
 * NoSchedule, PreferNoSchedule, NoExecute. Throws Error otherwise.
 */
export function parseTaint(s: string): Taint {
  const colon = s.lastIndexOf(':');
  const effect = colon < 0 ? '' : s.slice(colon + 1);
  if (colon <= 0 || !TAINT_EFFECTS.includes(effect)) {
    throw new Error(`invalid taint ${JSON.stringify(s)}: want key[=value]:Effect with Effect one of ${TAINT_EFFECTS.join(', ')}`);
  }
  const kv = s.slice(0, colon);
  const eq = kv.indexOf('=');
  if (eq === 0) throw new Error(`invalid taint ${JSON.stringify(s)}: empty key`);
  return eq < 0 ? { key: kv, effect } : { key: kv.slice(0, eq), value: kv.slice(eq + 1), effect };
}

/** The Node object `nodes add` creates: name, labels, taints; status is left to the simulator. */
export function newNodeObject(name: string, labels: readonly string[], taints: readonly string[]): Node {
  const metadata: NonNullable<Node['metadata']> = { name };
  if (labels.length > 0) metadata.labels = Object.fromEntries(labels.map(parseLabel));
  const node: Node = { apiVersion: 'v1', kind: 'Node', metadata };
  if (taints.length > 0) node.spec = { taints: taints.map(parseTaint) };
  return node;
}

/** Creates the node. Throws the API error (AlreadyExists, Invalid…). */
export async function addNode(client: Clientset, node: Node): Promise<void> {
  await client.core.nodes().create(node);
}

/** Deletes the node and its Lease in kube-node-lease. Throws NotFound when the node does not exist. */
export async function removeNode(client: Clientset, name: string): Promise<void> {
  await client.core.nodes().delete(name);
  try {
    await client.coordination.leases('kube-node-lease').delete(name);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

/**
 * Stops (`stopped`) or starts the node's simulated kubelet: a merge patch setting or removing the
 * annotation `kubeplane.io/simulate: Stopped`. Throws NotFound when the node does not exist.
 */
export async function setNodeStopped(client: Clientset, name: string, stopped: boolean): Promise<void> {
  await client.core.nodes().patch(name, 'application/merge-patch+json', { metadata: { annotations: { [NODE_SIMULATE_ANNOTATION]: stopped ? NODE_STOPPED : null } } });
}
