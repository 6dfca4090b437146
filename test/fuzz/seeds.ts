/**
 * One valid object per served resource: the starting points the fuzzer mutates. Keyed by
 * `<group>/<resource>` (core group `''`). The fuzz test fails when a served resource has no seed, so a
 * new kind cannot skip the fuzzer.
 */

const podSpec = { containers: [{ name: 'c', image: 'nginx:1.27', ports: [{ containerPort: 80 }], resources: { requests: { cpu: '10m' } } }] };
const workloadSpec = {
  selector: { matchLabels: { app: 'fz' } },
  template: { metadata: { labels: { app: 'fz' } }, spec: podSpec },
};

/** `<group>/<resource>` → the object's body without name and namespace (the fuzzer sets them). */
export const SEEDS: Record<string, Record<string, unknown>> = {
  '/namespaces': { apiVersion: 'v1', kind: 'Namespace', metadata: { labels: { team: 'a' } } },
  '/nodes': { apiVersion: 'v1', kind: 'Node', metadata: { labels: { disk: 'ssd' } }, spec: { taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }] } },
  '/pods': { apiVersion: 'v1', kind: 'Pod', metadata: { labels: { app: 'fz' } }, spec: podSpec },
  '/services': { apiVersion: 'v1', kind: 'Service', spec: { selector: { app: 'fz' }, ports: [{ port: 80, targetPort: 8080 }] } },
  '/endpoints': { apiVersion: 'v1', kind: 'Endpoints', subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }] },
  '/configmaps': { apiVersion: 'v1', kind: 'ConfigMap', data: { key: 'value' } },
  '/secrets': { apiVersion: 'v1', kind: 'Secret', type: 'Opaque', data: { key: 'dmFsdWU=' } },
  '/serviceaccounts': { apiVersion: 'v1', kind: 'ServiceAccount' },
  '/events': {
    apiVersion: 'v1',
    kind: 'Event',
    involvedObject: { kind: 'Pod', name: 'x', namespace: 'default' },
    reason: 'Fuzzed',
    message: 'a fuzzed event',
    type: 'Normal',
  },
  'scheduling.k8s.io/priorityclasses': { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', value: 100, description: 'fuzzed' },
  'coordination.k8s.io/leases': { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', spec: { holderIdentity: 'fz', leaseDurationSeconds: 40 } },
  'apps/controllerrevisions': { apiVersion: 'apps/v1', kind: 'ControllerRevision', revision: 1, data: { spec: { a: 1 } } },
  'apps/daemonsets': { apiVersion: 'apps/v1', kind: 'DaemonSet', spec: workloadSpec },
  'apps/deployments': { apiVersion: 'apps/v1', kind: 'Deployment', spec: { replicas: 1, ...workloadSpec } },
  'apps/replicasets': { apiVersion: 'apps/v1', kind: 'ReplicaSet', spec: { replicas: 1, ...workloadSpec } },
  'authentication.k8s.io/selfsubjectreviews': { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  'authorization.k8s.io/selfsubjectaccessreviews': {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    spec: { resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default' } },
  },
  'events.k8s.io/v1/events': {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    regarding: { kind: 'Pod', name: 'x', namespace: 'default' },
    reason: 'Fuzzed',
    note: 'a fuzzed event',
    type: 'Normal',
    action: 'Fuzzing',
    reportingController: 'kubeplane.io/fuzz',
    reportingInstance: 'fuzz-1',
    eventTime: '2025-01-01T00:00:00.000000Z',
  },
  'autoscaling/horizontalpodautoscalers': {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 1,
      maxReplicas: 5,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }],
      behavior: { scaleDown: { stabilizationWindowSeconds: 300, policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] } },
    },
  },
  'autoscaling/v1/horizontalpodautoscalers': {
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: { annotations: { 'autoscaling.alpha.kubernetes.io/metrics': '[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}}]' } },
    spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 3, targetCPUUtilizationPercentage: 60 },
  },
  'discovery.k8s.io/endpointslices': {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    addressType: 'IPv4',
    endpoints: [{ addresses: ['10.0.0.1'] }],
    ports: [{ port: 80 }],
  },
  '/persistentvolumes': {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data/fz' }, storageClassName: 'manual' },
  },
  '/persistentvolumeclaims': {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'manual' },
  },
  '/bindings': { apiVersion: 'v1', kind: 'Binding', target: { apiVersion: 'v1', kind: 'Node', name: 'node-1' } },
  '/componentstatuses': { apiVersion: 'v1', kind: 'ComponentStatus', conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }] },
  'storage.k8s.io/storageclasses': {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    provisioner: 'kubernetes.io/no-provisioner',
    parameters: { type: 'fz' },
    volumeBindingMode: 'WaitForFirstConsumer',
  },
  'storage.k8s.io/csidrivers': { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', spec: { attachRequired: false, tokenRequests: [{ audience: 'fz', expirationSeconds: 3600 }] } },
  'storage.k8s.io/csinodes': { apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', spec: { drivers: [{ name: 'fz.csi.example.com', nodeID: 'node-1', topologyKeys: ['topology.kubernetes.io/zone'] }] } },
  'storage.k8s.io/csistoragecapacities': {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSIStorageCapacity',
    storageClassName: 'fz',
    capacity: '10Gi',
    nodeTopology: { matchLabels: { 'topology.kubernetes.io/zone': 'fz' } },
  },
  'storage.k8s.io/volumeattachments': {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'VolumeAttachment',
    spec: { attacher: 'fz.csi.example.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv-fz' } },
  },
};
