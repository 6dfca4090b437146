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
  'networking.k8s.io/ingressclasses': { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', spec: { controller: 'example.com/ingress-controller' } },
  'networking.k8s.io/ingresses': {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    spec: {
      rules: [{ host: 'fz.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }],
      tls: [{ hosts: ['fz.example.com'], secretName: 'tls' }],
    },
  },
  'networking.k8s.io/ipaddresses': { apiVersion: 'networking.k8s.io/v1', kind: 'IPAddress', spec: { parentRef: { group: '', resource: 'services', namespace: 'default', name: 'fz' } } },
  'networking.k8s.io/networkpolicies': {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    spec: {
      podSelector: { matchLabels: { app: 'fz' } },
      ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/16', except: ['10.0.1.0/24'] } }, { podSelector: {} }], ports: [{ port: 80, endPort: 90 }] }],
      egress: [{ to: [{ namespaceSelector: { matchLabels: { team: 'a' } } }], ports: [{ protocol: 'UDP', port: 'dns' }] }],
    },
  },
  'networking.k8s.io/servicecidrs': { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', spec: { cidrs: ['10.200.0.0/16'] } },
  'certificates.k8s.io/certificatesigningrequests': {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    // A P-256 request for CN=fuzz (openssl req -new -newkey ec), base64 of its PEM.
    spec: { request: 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlISU1IRUNBUUF3RHpFTk1Bc0dBMVVFQXd3RVpuVjZlakJaTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSApBMElBQlBGOHdKd0srczR4cXBRQm9GZ0RZSnVzZ2FFSGFUNWNSR0NqU3NIV096UmFoQjkrcWwwYjUrWk5ETXFSClBXVUc2b1QyQUhKRityTThCb2tkUHFhbEx5cWdBREFLQmdncWhrak9QUVFEQWdOSEFEQkVBaUFGTFQ0b3lteTQKb01rajZEYjhBcCsxRzdaOEVkc1pmQXdtZEVjZEkrN0JZZ0lnRW02SU8wd2FRWm9uSGQ0UVlsNGd2dFlzVE9qUQp5RkxGM2kycGhRa3RyRDg9Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo=', signerName: 'example.com/fuzz-signer', usages: ['client auth'], expirationSeconds: 3600 },
  },
};

/**
 * Names of the n-th case for kinds whose names are not free-form (`fz<n>` otherwise): IPAddresses are
 * named by their IP in canonical form.
 */
export const SEED_NAMES: Record<string, (n: number) => string> = {
  'networking.k8s.io/ipaddresses': (n) => `fd00::1:${n.toString(16)}`,
};
