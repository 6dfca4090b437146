/** Test fixtures for the scheduler: pods and nodes with only the fields a test cares about. */
import type { Node, PersistentVolume, PersistentVolumeClaim, Pod, PodSpec, StorageClass, Taint } from '../../api/index.js';
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

/** A StorageClass (default provisioner: the simulated one; `kubernetes.io/no-provisioner` for static-only). */
export function makeStorageClass(name: string, mode: 'Immediate' | 'WaitForFirstConsumer', opts: { provisioner?: string; allowedTopologies?: StorageClass['allowedTopologies'] } = {}): StorageClass {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name, uid: `uid-sc-${name}` },
    provisioner: opts.provisioner ?? 'kubeplane.io/simulated',
    volumeBindingMode: mode,
    ...(opts.allowedTopologies ? { allowedTopologies: opts.allowedTopologies } : {}),
  };
}

/**
 * A claim in `default`, 1Gi ReadWriteOnce unless told. `boundTo` makes it fully bound to that PV (volumeName,
 * bind-completed annotation, phase Bound), as the PV controller leaves it.
 */
export function makePVC(name: string, opts: { cls?: string; size?: string; boundTo?: string; annotations?: Record<string, string>; uid?: string; rv?: string } = {}): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name,
      namespace: 'default',
      uid: opts.uid ?? `uid-pvc-${name}`,
      ...(opts.rv ? { resourceVersion: opts.rv } : {}),
      annotations: { ...(opts.boundTo ? { 'pv.kubernetes.io/bind-completed': 'yes' } : {}), ...opts.annotations },
    },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: opts.size ?? '1Gi' } },
      volumeMode: 'Filesystem',
      ...(opts.cls !== undefined ? { storageClassName: opts.cls } : {}),
      ...(opts.boundTo ? { volumeName: opts.boundTo } : {}),
    },
    status: { phase: opts.boundTo ? 'Bound' : 'Pending' },
  };
}

/**
 * A PV (`Available` unless `claim` binds it): local with `node` pinning it with required node affinity on
 * `kubernetes.io/hostname`.
 */
export function makePV(name: string, opts: { cls?: string; size?: string; node?: string; claim?: PersistentVolumeClaim; rv?: string } = {}): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, uid: `uid-pv-${name}`, ...(opts.rv ? { resourceVersion: opts.rv } : {}) },
    spec: {
      capacity: { storage: opts.size ?? '1Gi' },
      accessModes: ['ReadWriteOnce'],
      volumeMode: 'Filesystem',
      persistentVolumeReclaimPolicy: 'Delete',
      // Local volumes must carry node affinity; without a node, a hostPath volume.
      ...(opts.node ? { local: { path: `/mnt/${name}` } } : { hostPath: { path: `/mnt/${name}` } }),
      ...(opts.cls !== undefined ? { storageClassName: opts.cls } : {}),
      ...(opts.node
        ? { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [opts.node] }] }] } } }
        : {}),
      ...(opts.claim
        ? { claimRef: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: 'default', name: opts.claim.metadata?.name, uid: opts.claim.metadata?.uid } }
        : {}),
    },
    status: { phase: opts.claim ? 'Bound' : 'Available' },
  };
}

/** A pending pod mounting the named claims as volumes `v0`, `v1`… */
export function makePodWithClaims(name: string, ...claims: string[]): Pod {
  return makePod(name, { spec: { volumes: claims.map((claimName, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName } })) } });
}
