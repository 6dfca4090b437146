/** Test fixtures for the scheduler: pods and nodes with only the fields a test cares about. */
import type { Node, Pod, PodSpec, Taint } from '../../api/index.js';
import { NodeInfo, newPodInfo, type PodInfo } from '../node-info.js';

let uidSeq = 0;

/** A pending pod; `requests` applies to one container named `c`. */
export function makePod(
  name: string,
  opts: { ns?: string; requests?: Record<string, string>; spec?: Partial<PodSpec>; ownerUID?: string; uid?: string } = {},
): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: opts.ns ?? 'default',
      uid: opts.uid ?? `uid-${name}-${uidSeq++}`,
      ...(opts.ownerUID
        ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: opts.ownerUID, controller: true }] }
        : {}),
    },
    spec: {
      containers: [{ name: 'c', image: 'nginx', ...(opts.requests ? { resources: { requests: opts.requests } } : {}) }],
      schedulerName: 'default-scheduler',
      ...opts.spec,
    },
  };
}

export function makeNode(
  name: string,
  opts: { cpu?: string; memory?: string; pods?: string; labels?: Record<string, string>; taints?: Taint[]; unschedulable?: boolean } = {},
): Node {
  const allocatable = { cpu: opts.cpu ?? '4', memory: opts.memory ?? '8Gi', pods: opts.pods ?? '110' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, uid: `uid-node-${name}`, labels: { 'kubernetes.io/hostname': name, ...opts.labels } },
    spec: { ...(opts.taints ? { taints: opts.taints } : {}), ...(opts.unschedulable ? { unschedulable: true } : {}) },
    status: { capacity: allocatable, allocatable },
  };
}

export function nodeInfo(node: Node, ...pods: Pod[]): NodeInfo {
  const info = new NodeInfo(node.metadata?.name ?? '');
  info.setNode(node);
  for (const p of pods) info.addPod(newPodInfo(p));
  return info;
}

export function podInfo(pod: Pod): PodInfo {
  return newPodInfo(pod);
}
