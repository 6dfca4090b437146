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
  '/podtemplates': { apiVersion: 'v1', kind: 'PodTemplate', template: { metadata: { labels: { app: 'fz' } }, spec: podSpec } },
  '/replicationcontrollers': {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    spec: { replicas: 1, selector: { app: 'fz' }, template: { metadata: { labels: { app: 'fz' } }, spec: podSpec } },
  },
  '/resourcequotas': {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    spec: {
      hard: { pods: '10', cpu: '1', 'limits.memory': '1Gi' },
      scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] },
    },
  },
  '/limitranges': {
    apiVersion: 'v1',
    kind: 'LimitRange',
    spec: {
      limits: [
        { type: 'Container', max: { cpu: '2', memory: '1Gi' }, min: { cpu: '100m' }, default: { cpu: '500m' }, maxLimitRequestRatio: { cpu: '10' } },
        { type: 'PersistentVolumeClaim', max: { storage: '10Gi' } },
      ],
    },
  },
  'apiextensions.k8s.io/customresourcedefinitions': {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    spec: {
      group: 'fuzz.example.com',
      names: { plural: 'fz', singular: 'fz', kind: 'Fuzz', shortNames: ['fzz'] },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { size: { type: 'integer', minimum: 1, default: 1 }, tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' } } },
                status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
          },
          subresources: { status: {} },
          additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
        },
      ],
    },
  },
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    webhooks: [
      {
        name: 'fuzz.example.com',
        clientConfig: { service: { namespace: 'default', name: 'hook', path: '/mutate' } },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      },
    ],
  },
  'admissionregistration.k8s.io/validatingwebhookconfigurations': {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    webhooks: [
      {
        name: 'fuzz.example.com',
        clientConfig: { url: 'https://hook.example.com/validate' },
        rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments', 'deployments/scale'] }],
        matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }],
        sideEffects: 'NoneOnDryRun',
        admissionReviewVersions: ['v1', 'v1beta1'],
      },
    ],
  },
  'admissionregistration.k8s.io/validatingadmissionpolicies': {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    spec: {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }] },
      validations: [{ expression: 'object.spec.replicas <= 5', message: 'too many replicas', reason: 'Invalid' }],
      auditAnnotations: [{ key: 'replicas', valueExpression: 'string(object.spec.replicas)' }],
    },
  },
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    spec: {
      policyName: 'replica-limit',
      paramRef: { name: 'limits', namespace: 'default', parameterNotFoundAction: 'Deny' },
      validationActions: ['Deny', 'Audit'],
    },
  },
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations': {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'PriorityLevelConfiguration',
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 10, limitResponse: { type: 'Queue', queuing: { queues: 16, handSize: 4 } } } },
  },
  'flowcontrol.apiserver.k8s.io/flowschemas': {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'FlowSchema',
    spec: {
      priorityLevelConfiguration: { name: 'workload-low' },
      matchingPrecedence: 5000,
      distinguisherMethod: { type: 'ByUser' },
      rules: [
        {
          subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'default', name: '*' } }],
          resourceRules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'], namespaces: ['default'] }],
          nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }],
        },
      ],
    },
  },
  'node.k8s.io/runtimeclasses': {
    apiVersion: 'node.k8s.io/v1',
    kind: 'RuntimeClass',
    handler: 'runsc',
    overhead: { podFixed: { cpu: '250m' } },
    scheduling: { nodeSelector: { sandbox: 'true' }, tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }] },
  },
  'policy/poddisruptionbudgets': {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    spec: { minAvailable: '50%', selector: { matchLabels: { app: 'fz' } }, unhealthyPodEvictionPolicy: 'AlwaysAllow' },
  },
  'rbac.authorization.k8s.io/clusterroles': {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } },
    rules: [
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
      { nonResourceURLs: ['/healthz'], verbs: ['get'] },
    ],
  },
  'rbac.authorization.k8s.io/clusterrolebindings': {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [
      { kind: 'User', name: 'alice' },
      { kind: 'ServiceAccount', name: 'default', namespace: 'default' },
    ],
  },
  'rbac.authorization.k8s.io/roles': {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    rules: [{ apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'], verbs: ['get', 'patch'] }],
  },
  'rbac.authorization.k8s.io/rolebindings': {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
    subjects: [{ kind: 'Group', name: 'devs' }],
  },
  'apiregistration.k8s.io/apiservices': {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    spec: { group: 'fz', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10 },
  },
  'authentication.k8s.io/tokenreviews': { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'not-the-token', audiences: ['fz'] } },
  'authorization.k8s.io/subjectaccessreviews': {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: { user: 'someone', groups: ['system:authenticated'], resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default', labelSelector: { rawSelector: 'app=fz' } } },
  },
  'authorization.k8s.io/localsubjectaccessreviews': {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'LocalSubjectAccessReview',
    spec: { user: 'someone', resourceAttributes: { verb: 'list', resource: 'pods', namespace: 'default', fieldSelector: { requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['n1'] }] } } },
  },
  'authorization.k8s.io/selfsubjectrulesreviews': { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'default' } },
  'apps/statefulsets': {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    spec: {
      replicas: 2,
      serviceName: 'fz',
      ...workloadSpec,
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
    },
  },
  'batch/jobs': {
    apiVersion: 'batch/v1',
    kind: 'Job',
    spec: { completions: 2, parallelism: 1, backoffLimit: 3, template: { spec: { ...podSpec, restartPolicy: 'Never' } } },
  },
  'batch/cronjobs': {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    spec: { schedule: '*/5 * * * *', timeZone: 'Etc/UTC', jobTemplate: { spec: { template: { spec: { ...podSpec, restartPolicy: 'OnFailure' } } } } },
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
  // Read-only and computed (get and list): every write must be a 405.
  'metrics.k8s.io/nodes': { apiVersion: 'metrics.k8s.io/v1beta1', kind: 'NodeMetrics', timestamp: '2025-01-01T00:00:00Z', window: '15s', usage: { cpu: '50m', memory: '256Mi' } },
  'metrics.k8s.io/pods': {
    apiVersion: 'metrics.k8s.io/v1beta1',
    kind: 'PodMetrics',
    timestamp: '2025-01-01T00:00:00Z',
    window: '15s',
    containers: [{ name: 'c', usage: { cpu: '1m', memory: '4Mi' } }],
  },
};

/**
 * Namespaces of their own for the kinds that constrain the other objects of their namespace: a
 * fuzzed LimitRange (min/max, ratios) or ResourceQuota in `default` would refuse the seeds of pods
 * and claims there (LimitRanger and ResourceQuota admission), so later cases could not build on them.
 * The harness creates these namespaces at start; every other namespaced kind uses `default`.
 */
export const SEED_NAMESPACES: Record<string, string> = {
  '/limitranges': 'fuzz-limitranges',
  '/resourcequotas': 'fuzz-resourcequotas',
};

/**
 * Names of the n-th case for kinds whose names are not free-form (`fz<n>` otherwise). The harness
 * puts the name's `fz<n>` token in place of the seed's `"fz"` strings, so a CRD's plural and an
 * APIService's group follow their names; IPAddresses are named by their IP in canonical form.
 */
export const SEED_NAMES: Record<string, (n: number) => string> = {
  'apiextensions.k8s.io/customresourcedefinitions': (n) => `fz${n}.fuzz.example.com`,
  'apiregistration.k8s.io/apiservices': (n) => `v1.fz${n}`,
  'networking.k8s.io/ipaddresses': (n) => `fd00::1:${n.toString(16)}`,
};
