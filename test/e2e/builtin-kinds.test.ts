/**
 * One `kubectl apply` of a manifest holding an object of every stored built-in kind, each read back
 * with `-o yaml` and compared with what upstream's defaulting makes of it. The expected objects are
 * written from upstream's defaulting code (v1.33), cited per kind below — not from kubeplane's output.
 *
 * Compared: everything but status and the server-owned metadata (uid, resourceVersion, generation,
 * creationTimestamp, managedFields, the last-applied annotation). Workloads are suspended or at zero
 * replicas so that only defaulting, not a controller, shapes what is compared.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parseAllDocuments, stringify } from 'yaml';
import { certificateRequest, startKubeplane, removeDataDir, type Kubeplane } from './harness.js';

type Json = Record<string, unknown>;
const NS = 'kinds';

/**
 * A zero-valued struct field that Go's encoding/json writes even under `omitempty` (`null` for a zero
 * metav1.Time or MicroTime, `{}` for an empty struct such as an EventSource). kubeplane stores Go's
 * decoding and leaves such fields out, so they are expected as upstream writes them and then left out
 * of the comparison; the closing note of issue 11 lists this gap.
 */
class GoZero {
  constructor(readonly value: null | Json) {}
}
const goZero = (value: null | Json = null): GoZero => new GoZero(value);

/** The expected object without its {@link GoZero} fields. */
function withoutGoZeros(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutGoZeros);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).filter(([, x]) => !(x instanceof GoZero)).map(([k, x]) => [k, withoutGoZeros(x)]));
}

/** Annotations controllers write (not defaulting): the Deployment controller's revision. */
const CONTROLLER_ANNOTATIONS = ['kubectl.kubernetes.io/last-applied-configuration', 'deployment.kubernetes.io/revision'];

/** A pod template as written in the manifests. */
const template = (app: string, restartPolicy?: string): Json => ({
  metadata: { labels: { app } },
  spec: { ...(restartPolicy ? { restartPolicy } : {}), containers: [{ name: 'c', image: 'nginx:1.27' }] },
});

/**
 * The same template after defaulting (pkg/apis/core/v1/defaults.go: SetDefaults_PodSpec,
 * SetDefaults_Container; a template's ObjectMeta encodes `creationTimestamp: null`).
 */
const defaultedTemplate = (app: string, restartPolicy = 'Always', extraLabels: Json = {}): Json => ({
  metadata: { creationTimestamp: goZero(), labels: { app, ...extraLabels } },
  spec: {
    containers: [
      {
        image: 'nginx:1.27',
        imagePullPolicy: 'IfNotPresent',
        name: 'c',
        resources: {},
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
      },
    ],
    dnsPolicy: 'ClusterFirst',
    restartPolicy,
    schedulerName: 'default-scheduler',
    securityContext: {},
    terminationGracePeriodSeconds: 30,
  },
});

const selector = (app: string): Json => ({ matchLabels: { app } });

/**
 * [resource to read back, manifest object, expected object (without apiVersion, kind and name) from
 * the object's uid and the object read back (for names the server makes up at random)].
 */
type Case = [string, Json, (uid: string, got: Json) => Json];

function cases(csrPem: string): Case[] {
  const obj = (apiVersion: string, kind: string, name: string, body: Json, namespaced = true): Json => ({
    apiVersion,
    kind,
    metadata: { name, ...(namespaced ? { namespace: NS } : {}), ...(body['metadata'] ?? {}) },
    ...Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'metadata')),
  });
  const same = (body: Json) => () => body;
  return [
    // SetDefaults_Namespace / the namespace strategy: the kubernetes finalizer and the name label.
    ['namespace', obj('v1', 'Namespace', NS, {}, false), () => ({ metadata: { labels: { 'kubernetes.io/metadata.name': NS } }, spec: { finalizers: ['kubernetes'] } })],
    // SetDefaults_Pod / SetDefaults_PodSpec, then admission (ServiceAccount: serviceAccountName and the
    // kube-api-access volume and mount, plugin/pkg/admission/serviceaccount/admission.go;
    // DefaultTolerationSeconds, Priority) and the scheduler's binding to the cluster's one node.
    [
      'pod',
      obj('v1', 'Pod', 'pod', template('pod')),
      (_uid, got) => {
        const t = defaultedTemplate('pod');
        const volume = String(((got['spec'] as { volumes?: { name?: string }[] }).volumes ?? [])[0]?.name);
        assert.match(volume, /^kube-api-access-[a-z0-9]{5}$/);
        const [container] = (t['spec'] as { containers: Json[] }).containers;
        return {
          metadata: { labels: { app: 'pod' } },
          spec: {
            ...(t['spec'] as Json),
            containers: [{ ...container, volumeMounts: [{ mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', name: volume, readOnly: true }] }],
            serviceAccount: 'default',
            serviceAccountName: 'default',
            volumes: [
              {
                name: volume,
                projected: {
                  defaultMode: 420,
                  sources: [
                    { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
                    { configMap: { items: [{ key: 'ca.crt', path: 'ca.crt' }], name: 'kube-root-ca.crt' } },
                    { downwardAPI: { items: [{ fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' }, path: 'namespace' }] } },
                  ],
                },
              },
            ],
            enableServiceLinks: true,
            nodeName: 'node-1',
            preemptionPolicy: 'PreemptLowerPriority',
            priority: 0,
            tolerations: [
              { effect: 'NoExecute', key: 'node.kubernetes.io/not-ready', operator: 'Exists', tolerationSeconds: 300 },
              { effect: 'NoExecute', key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: 300 },
            ],
          },
        };
      },
    ],
    ['configmap', obj('v1', 'ConfigMap', 'cm', { data: { a: '1' } }), same({ data: { a: '1' } })],
    // SetDefaults_Secret: type Opaque.
    ['secret', obj('v1', 'Secret', 'sec', { data: { a: 'MQ==' } }), same({ data: { a: 'MQ==' }, type: 'Opaque' })],
    ['serviceaccount', obj('v1', 'ServiceAccount', 'sa', {}), same({})],
    // SetDefaults_Service, SetDefaults_ServicePort (protocol TCP, targetPort = port), the service REST
    // storage's IP-family defaulting on a single-stack IPv4 cluster.
    [
      'service',
      obj('v1', 'Service', 'svc', { spec: { clusterIP: '10.96.100.100', selector: { app: 'web' }, ports: [{ port: 80 }] } }),
      same({
        spec: {
          clusterIP: '10.96.100.100',
          clusterIPs: ['10.96.100.100'],
          internalTrafficPolicy: 'Cluster',
          ipFamilies: ['IPv4'],
          ipFamilyPolicy: 'SingleStack',
          ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
          selector: { app: 'web' },
          sessionAffinity: 'None',
          type: 'ClusterIP',
        },
      }),
    ],
    // SetDefaults_EndpointPort: protocol TCP.
    ['endpoints', obj('v1', 'Endpoints', 'manual', { subsets: [{ addresses: [{ ip: '10.1.2.3' }], ports: [{ port: 80 }] }] }), same({ subsets: [{ addresses: [{ ip: '10.1.2.3' }], ports: [{ port: 80, protocol: 'TCP' }] }] })],
    // SetDefaults_PersistentVolume (Retain, Filesystem), SetDefaults_HostPathVolumeSource (type ""), and
    // the StorageObjectInUseProtection admission's finalizer.
    [
      'persistentvolume',
      obj('v1', 'PersistentVolume', 'pv-kinds', { spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/pv' } } }, false),
      same({ metadata: { finalizers: ['kubernetes.io/pv-protection'] }, spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, hostPath: { path: '/tmp/pv', type: '' }, persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem' } }),
    ],
    // SetDefaults_PersistentVolumeClaimSpec: volumeMode Filesystem; admission: the default class
    // (kind's `standard`, which the cluster starts with) and the pvc-protection finalizer.
    [
      'persistentvolumeclaim',
      obj('v1', 'PersistentVolumeClaim', 'pvc', { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }),
      same({ metadata: { finalizers: ['kubernetes.io/pvc-protection'] }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'standard', volumeMode: 'Filesystem' } }),
    ],
    ['podtemplate', obj('v1', 'PodTemplate', 'pt', { template: template('pt') }), same({ template: defaultedTemplate('pt') })],
    // SetDefaults_ReplicationController: selector and labels from the template's labels.
    [
      'replicationcontroller',
      obj('v1', 'ReplicationController', 'rc', { spec: { replicas: 0, template: template('rc') } }),
      same({ metadata: { labels: { app: 'rc' } }, spec: { replicas: 0, selector: { app: 'rc' }, template: defaultedTemplate('rc') } }),
    ],
    ['resourcequota', obj('v1', 'ResourceQuota', 'quota', { spec: { hard: { pods: '10' } } }), same({ spec: { hard: { pods: '10' } } })],
    // SetDefaults_LimitRangeItem: a Container item's default and defaultRequest come from max.
    [
      'limitrange',
      obj('v1', 'LimitRange', 'limits', { spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] } }),
      same({ spec: { limits: [{ default: { cpu: '1' }, defaultRequest: { cpu: '1' }, max: { cpu: '1' }, type: 'Container' }] } }),
    ],
    [
      'event',
      obj('v1', 'Event', 'ev', { involvedObject: { kind: 'Pod', name: 'p', namespace: NS }, reason: 'Tested', message: 'a test event', type: 'Normal' }),
      // Go encodes the non-omitempty event fields: null times and empty reporting strings.
      same({
        eventTime: goZero(),
        firstTimestamp: goZero(),
        involvedObject: { kind: 'Pod', name: 'p', namespace: NS },
        lastTimestamp: goZero(),
        message: 'a test event',
        reason: 'Tested',
        reportingComponent: '',
        reportingInstance: '',
        source: goZero({}),
        type: 'Normal',
      }),
    ],
    ['lease', obj('coordination.k8s.io/v1', 'Lease', 'lease', { spec: { holderIdentity: 'me' } }), same({ spec: { holderIdentity: 'me' } })],
    ['controllerrevision', obj('apps/v1', 'ControllerRevision', 'cr', { data: { a: 1 }, revision: 1 }), same({ data: { a: 1 }, revision: 1 })],
    // SetDefaults_Deployment (apps/v1).
    [
      'deployment',
      obj('apps/v1', 'Deployment', 'deploy', { spec: { replicas: 0, selector: selector('deploy'), template: template('deploy') } }),
      same({
        spec: {
          progressDeadlineSeconds: 600,
          replicas: 0,
          revisionHistoryLimit: 10,
          selector: selector('deploy'),
          strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' }, type: 'RollingUpdate' },
          template: defaultedTemplate('deploy'),
        },
      }),
    ],
    ['replicaset', obj('apps/v1', 'ReplicaSet', 'rs', { spec: { replicas: 0, selector: selector('rs'), template: template('rs') } }), same({ spec: { replicas: 0, selector: selector('rs'), template: defaultedTemplate('rs') } })],
    // SetDefaults_DaemonSet: RollingUpdate with maxUnavailable 1 and maxSurge 0, revisionHistoryLimit 10;
    // the DaemonSet strategy's PrepareForCreate sets the template generation annotation.
    [
      'daemonset',
      obj('apps/v1', 'DaemonSet', 'ds', { spec: { selector: selector('ds'), template: { ...template('ds'), spec: { nodeSelector: { none: 'none' }, containers: [{ name: 'c', image: 'nginx:1.27' }] } } } }),
      same({
        metadata: { annotations: { 'deprecated.daemonset.template.generation': '1' } },
        spec: {
          revisionHistoryLimit: 10,
          selector: selector('ds'),
          template: { ...defaultedTemplate('ds'), spec: { ...(defaultedTemplate('ds')['spec'] as Json), nodeSelector: { none: 'none' } } },
          updateStrategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: 1 }, type: 'RollingUpdate' },
        },
      }),
    ],
    // SetDefaults_StatefulSet; a claim template gets SetDefaults_PersistentVolumeClaim (Filesystem, Pending).
    [
      'statefulset',
      obj('apps/v1', 'StatefulSet', 'sts', {
        spec: {
          replicas: 0,
          serviceName: 'svc',
          selector: selector('sts'),
          template: template('sts'),
          volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
        },
      }),
      same({
        spec: {
          persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
          podManagementPolicy: 'OrderedReady',
          replicas: 0,
          revisionHistoryLimit: 10,
          selector: selector('sts'),
          serviceName: 'svc',
          template: defaultedTemplate('sts'),
          updateStrategy: { rollingUpdate: { partition: 0 }, type: 'RollingUpdate' },
          volumeClaimTemplates: [
            {
              apiVersion: 'v1',
              kind: 'PersistentVolumeClaim',
              metadata: { creationTimestamp: goZero(), name: 'data' },
              spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' },
              status: { phase: 'Pending' },
            },
          ],
        },
      }),
    ],
    // SetDefaults_Job (the Job's labels from its template's), then the job strategy's generated
    // selector and template labels (pkg/registry/batch/job/strategy.go).
    [
      'job',
      obj('batch/v1', 'Job', 'job', { spec: { suspend: true, template: template('job', 'Never') } }),
      (uid) => ({
        metadata: { labels: { app: 'job' } },
        spec: {
          backoffLimit: 6,
          completionMode: 'NonIndexed',
          completions: 1,
          manualSelector: false,
          parallelism: 1,
          podReplacementPolicy: 'TerminatingOrFailed',
          selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } },
          suspend: true,
          template: defaultedTemplate('job', 'Never', { 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': 'job', 'controller-uid': uid, 'job-name': 'job' }),
        },
      }),
    ],
    // SetDefaults_CronJob; the job template is not a Job, so only its pod template is defaulted.
    [
      'cronjob',
      obj('batch/v1', 'CronJob', 'cj', { spec: { schedule: '*/5 * * * *', suspend: true, jobTemplate: { spec: { template: template('cj', 'OnFailure') } } } }),
      same({
        spec: {
          concurrencyPolicy: 'Allow',
          failedJobsHistoryLimit: 1,
          jobTemplate: { metadata: goZero({ creationTimestamp: null }), spec: { template: defaultedTemplate('cj', 'OnFailure') } },
          schedule: '*/5 * * * *',
          successfulJobsHistoryLimit: 3,
          suspend: true,
        },
      }),
    ],
    // autoscaling/v2 SetDefaults_HorizontalPodAutoscaler: minReplicas 1.
    [
      'horizontalpodautoscaler.v2.autoscaling',
      obj('autoscaling/v2', 'HorizontalPodAutoscaler', 'hpa', {
        spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'deploy' }, maxReplicas: 3, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] },
      }),
      same({
        spec: { maxReplicas: 3, metrics: [{ resource: { name: 'cpu', target: { averageUtilization: 50, type: 'Utilization' } }, type: 'Resource' }], minReplicas: 1, scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'deploy' } },
      }),
    ],
    // discovery/v1 SetDefaults_EndpointPort: protocol TCP, name "".
    [
      'endpointslice',
      obj('discovery.k8s.io/v1', 'EndpointSlice', 'slice', { addressType: 'IPv4', endpoints: [{ addresses: ['10.1.2.3'] }], ports: [{ port: 80 }] }),
      same({ addressType: 'IPv4', endpoints: [{ addresses: ['10.1.2.3'], conditions: goZero({}) }], ports: [{ name: '', port: 80, protocol: 'TCP' }] }),
    ],
    // SetDefaults_PriorityClass.
    ['priorityclass', obj('scheduling.k8s.io/v1', 'PriorityClass', 'kinds-high', { value: 100 }, false), same({ preemptionPolicy: 'PreemptLowerPriority', value: 100 })],
    ['role', obj('rbac.authorization.k8s.io/v1', 'Role', 'reader', { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] }), same({ rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] })],
    // rbac/v1 SetDefaults_Subject: apiGroup rbac.authorization.k8s.io for User and Group, "" for ServiceAccount.
    [
      'rolebinding',
      obj('rbac.authorization.k8s.io/v1', 'RoleBinding', 'reader', { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' }, subjects: [{ kind: 'User', name: 'jane' }, { kind: 'ServiceAccount', name: 'sa' }] }),
      same({ roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'jane' }, { kind: 'ServiceAccount', name: 'sa' }] }),
    ],
    ['clusterrole', obj('rbac.authorization.k8s.io/v1', 'ClusterRole', 'kinds-reader', { rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }] }, false), same({ rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }] })],
    [
      'clusterrolebinding',
      obj('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', 'kinds-reader', { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'kinds-reader' }, subjects: [{ kind: 'Group', name: 'readers' }] }, false),
      same({ roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'kinds-reader' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'readers' }] }),
    ],
    ['poddisruptionbudget', obj('policy/v1', 'PodDisruptionBudget', 'pdb', { spec: { minAvailable: 1, selector: selector('deploy') } }), same({ spec: { minAvailable: 1, selector: selector('deploy') } })],
    [
      'ingress',
      obj('networking.k8s.io/v1', 'Ingress', 'ing', { spec: { rules: [{ host: 'foo.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'svc', port: { number: 80 } } } }] } }] } }),
      same({ spec: { rules: [{ host: 'foo.com', http: { paths: [{ backend: { service: { name: 'svc', port: { number: 80 } } }, path: '/', pathType: 'Prefix' }] } }] } }),
    ],
    ['ingressclass', obj('networking.k8s.io/v1', 'IngressClass', 'kinds-nginx', { spec: { controller: 'example.com/ingress' } }, false), same({ spec: { controller: 'example.com/ingress' } })],
    // networking/v1 SetDefaults_NetworkPolicy (policyTypes from the rules present), SetDefaults_NetworkPolicyPort (TCP).
    [
      'networkpolicy',
      obj('networking.k8s.io/v1', 'NetworkPolicy', 'np', { spec: { podSelector: {}, ingress: [{ ports: [{ port: 80 }] }] } }),
      same({ spec: { ingress: [{ ports: [{ port: 80, protocol: 'TCP' }] }], podSelector: {}, policyTypes: ['Ingress'] } }),
    ],
    [
      'ipaddress',
      obj('networking.k8s.io/v1', 'IPAddress', '10.96.200.200', { spec: { parentRef: { group: '', resource: 'services', namespace: NS, name: 'other' } } }, false),
      // ParentReference.group is omitempty: the core group's "" is not written.
      same({ spec: { parentRef: { name: 'other', namespace: NS, resource: 'services' } } }),
    ],
    ['servicecidr', obj('networking.k8s.io/v1', 'ServiceCIDR', 'kinds-extra', { spec: { cidrs: ['10.200.0.0/16'] } }, false), same({ spec: { cidrs: ['10.200.0.0/16'] } })],
    ['runtimeclass', obj('node.k8s.io/v1', 'RuntimeClass', 'kinds-runc', { handler: 'runc' }, false), same({ handler: 'runc' })],
    // storage/v1 SetDefaults_StorageClass: Delete, Immediate.
    ['storageclass', obj('storage.k8s.io/v1', 'StorageClass', 'kinds-fast', { provisioner: 'example.com/fast' }, false), same({ provisioner: 'example.com/fast', reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' })],
    // storage/v1 SetDefaults_CSIDriver.
    [
      'csidriver',
      obj('storage.k8s.io/v1', 'CSIDriver', 'kinds.example.com', { spec: {} }, false),
      same({ spec: { attachRequired: true, fsGroupPolicy: 'ReadWriteOnceWithFSType', podInfoOnMount: false, requiresRepublish: false, seLinuxMount: false, storageCapacity: false, volumeLifecycleModes: ['Persistent'] } }),
    ],
    ['csinode', obj('storage.k8s.io/v1', 'CSINode', 'kinds-node', { spec: { drivers: [{ name: 'kinds.example.com', nodeID: 'n1' }] } }, false), same({ spec: { drivers: [{ name: 'kinds.example.com', nodeID: 'n1' }] } })],
    ['csistoragecapacity', obj('storage.k8s.io/v1', 'CSIStorageCapacity', 'cap', { storageClassName: 'kinds-fast', capacity: '10Gi' }), same({ capacity: '10Gi', storageClassName: 'kinds-fast' })],
    [
      'volumeattachment',
      obj('storage.k8s.io/v1', 'VolumeAttachment', 'kinds-va', { spec: { attacher: 'kinds.example.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv-kinds' } } }, false),
      same({ spec: { attacher: 'kinds.example.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv-kinds' } } }),
    ],
    // admissionregistration/v1 SetDefaults_MutatingWebhook / SetDefaults_ValidatingWebhook.
    [
      'mutatingwebhookconfiguration',
      obj('admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration', 'kinds-mutate', { webhooks: [{ name: 'm.example.com', clientConfig: { url: 'https://example.com/m' }, admissionReviewVersions: ['v1'], sideEffects: 'None' }] }, false),
      same({
        webhooks: [
          { admissionReviewVersions: ['v1'], clientConfig: { url: 'https://example.com/m' }, failurePolicy: 'Fail', matchPolicy: 'Equivalent', name: 'm.example.com', namespaceSelector: {}, objectSelector: {}, reinvocationPolicy: 'Never', sideEffects: 'None', timeoutSeconds: 10 },
        ],
      }),
    ],
    [
      'validatingwebhookconfiguration',
      obj('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', 'kinds-validate', { webhooks: [{ name: 'v.example.com', clientConfig: { url: 'https://example.com/v' }, admissionReviewVersions: ['v1'], sideEffects: 'None' }] }, false),
      same({ webhooks: [{ admissionReviewVersions: ['v1'], clientConfig: { url: 'https://example.com/v' }, failurePolicy: 'Fail', matchPolicy: 'Equivalent', name: 'v.example.com', namespaceSelector: {}, objectSelector: {}, sideEffects: 'None', timeoutSeconds: 10 }] }),
    ],
    // SetDefaults_ValidatingAdmissionPolicySpec, SetDefaults_MatchResources, SetDefaults_NamedRuleWithOperations (scope "*").
    [
      'validatingadmissionpolicy',
      obj(
        'admissionregistration.k8s.io/v1',
        'ValidatingAdmissionPolicy',
        'kinds-max',
        { spec: { matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }] }, validations: [{ expression: 'object.spec.replicas <= 5' }] } },
        false,
      ),
      same({
        spec: {
          failurePolicy: 'Fail',
          matchConstraints: { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'], scope: '*' }] },
          validations: [{ expression: 'object.spec.replicas <= 5' }],
        },
      }),
    ],
    ['validatingadmissionpolicybinding', obj('admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicyBinding', 'kinds-max', { spec: { policyName: 'kinds-max', validationActions: ['Deny'] } }, false), same({ spec: { policyName: 'kinds-max', validationActions: ['Deny'] } })],
    // apiextensions/v1 SetDefaults_CustomResourceDefinitionSpec: conversion None, singular and listKind from kind.
    [
      'customresourcedefinition',
      obj(
        'apiextensions.k8s.io/v1',
        'CustomResourceDefinition',
        'widgets.kinds.example.com',
        { spec: { group: 'kinds.example.com', scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }] } },
        false,
      ),
      same({
        spec: {
          conversion: { strategy: 'None' },
          group: 'kinds.example.com',
          names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
          scope: 'Namespaced',
          versions: [{ name: 'v1', schema: { openAPIV3Schema: { type: 'object' } }, served: true, storage: true }],
        },
      }),
    ],
    // apiregistration/v1 SetDefaults_ServiceReference: port 443. Its own group: the CRD's group
    // version gets a local APIService of its own (upstream's crdregistration controller).
    [
      'apiservice',
      obj('apiregistration.k8s.io/v1', 'APIService', 'v1.aggregated.example.com', { spec: { group: 'aggregated.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10, service: { namespace: NS, name: 'svc' }, insecureSkipTLSVerify: true } }, false),
      same({ spec: { group: 'aggregated.example.com', groupPriorityMinimum: 100, insecureSkipTLSVerify: true, service: { name: 'svc', namespace: NS, port: 443 }, version: 'v1', versionPriority: 10 } }),
    ],
    // The CSR strategy records the requesting user (the admin kubeconfig's client certificate) at create.
    [
      'certificatesigningrequest',
      obj('certificates.k8s.io/v1', 'CertificateSigningRequest', 'kinds-csr', { spec: { request: csrPem, signerName: 'example.com/signer', usages: ['client auth'] } }, false),
      same({ spec: { groups: ['kubeadm:cluster-admins', 'system:authenticated'], request: csrPem, signerName: 'example.com/signer', usages: ['client auth'], username: 'kubernetes-admin' } }),
    ],
    // flowcontrol/v1 SetDefaults_FlowSchemaSpec (matchingPrecedence 1000), SetDefaults_LimitedPriorityLevelConfiguration.
    [
      'flowschema',
      obj('flowcontrol.apiserver.k8s.io/v1', 'FlowSchema', 'kinds-fs', { spec: { priorityLevelConfiguration: { name: 'kinds-plc' }, rules: [{ subjects: [{ kind: 'Group', group: { name: 'readers' } }], resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], namespaces: ['*'] }] }] } }, false),
      same({ spec: { matchingPrecedence: 1000, priorityLevelConfiguration: { name: 'kinds-plc' }, rules: [{ resourceRules: [{ apiGroups: [''], namespaces: ['*'], resources: ['pods'], verbs: ['get'] }], subjects: [{ group: { name: 'readers' }, kind: 'Group' }] }] } }),
    ],
    [
      'prioritylevelconfiguration',
      obj('flowcontrol.apiserver.k8s.io/v1', 'PriorityLevelConfiguration', 'kinds-plc', { spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } } }, false),
      same({ spec: { limited: { lendablePercent: 0, limitResponse: { type: 'Reject' }, nominalConcurrencyShares: 30 }, type: 'Limited' } }),
    ],
  ];
}

/** What is compared: the object without status and server-owned metadata. */
function comparable(o: Json): Json {
  const rest: Json = { ...o };
  for (const k of ['apiVersion', 'kind', 'status', 'metadata']) delete rest[k];
  const metadata = o['metadata'];
  const m = { ...(metadata as Json) };
  for (const k of ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields', 'name', 'namespace']) delete m[k];
  const annotations = { ...((m['annotations'] as Json | undefined) ?? {}) };
  for (const a of CONTROLLER_ANNOTATIONS) delete annotations[a];
  if (Object.keys(annotations).length) m['annotations'] = annotations;
  else delete m['annotations'];
  return Object.keys(m).length ? { metadata: m, ...rest } : rest;
}


describe('every stored built-in kind, applied and read back', { timeout: 240_000 }, () => {
  let kp: Kubeplane;
  let all: Case[];
  before(async () => {
    kp = await startKubeplane({ nodes: 1 });
    all = cases(await certificateRequest('CN=jane'));
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  test('one apply creates them all, and each reads back as upstream defaults it', async () => {
    assert.ok(all.length >= 40, `${all.length} objects`);
    const manifest = all.map(([, o]) => stringify(o)).join('---\n');
    const applied = await kp.kubectl(['apply', '-f', '-'], manifest);
    assert.equal(applied.code, 0, applied.stderr);
    assert.equal(applied.stdout.trim().split('\n').length, all.length, applied.stdout);
    assert.ok(applied.stdout.trim().split('\n').every((l) => l.endsWith(' created')), applied.stdout);
    // The scheduler binds the pod on its own time: wait for that, not for a clock.
    await kp.kubectlOk(['wait', '--for=condition=PodScheduled', 'pod/pod', '-n', NS, '--timeout=60s']);
    const problems: string[] = [];
    for (const [resource, o, expected] of all) {
      const meta = o['metadata'] as { name: string; namespace?: string };
      const yaml = await kp.kubectlOk(['get', resource, meta.name, ...(meta.namespace ? ['-n', meta.namespace] : []), '-o', 'yaml']);
      const [doc] = parseAllDocuments(yaml);
      const got = doc?.toJS() as Json;
      const uid = String((got['metadata'] as Json)['uid']);
      try {
        assert.deepStrictEqual(comparable(got), withoutGoZeros(expected(uid, got)));
      } catch (err) {
        problems.push(`${resource}/${meta.name}: ${(err as Error).message}`);
      }
    }
    assert.deepEqual(problems, []);
  });
});
