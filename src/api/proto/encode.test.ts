import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PROTOBUF_MAGIC, decodeKubernetesProtobuf, decodeMessage } from './decode.js';
import { durationNanos, encodeKubernetesProtobuf, encodeMessage, varintSize, wrapKubernetesProtobuf } from './encode.js';
import { RECORDED_BODIES } from './recorded-bodies.js';
import { decodeWatchFrames, watchEventFrame } from './watch.js';

const DEFAULTS = { apiVersion: 'v1', kind: 'ConfigMap' };

function roundTrip(obj: Record<string, unknown>): Record<string, unknown> {
  const bytes = encodeKubernetesProtobuf(obj);
  assert.ok(bytes, `${String(obj['kind'])} has a message`);
  return decodeKubernetesProtobuf(bytes, DEFAULTS);
}

const POD = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web-7d4b9c-x2x9q',
    namespace: 'default',
    uid: '0f2c1a4e-8b1d-4c55-9d7e-2f3a4b5c6d7e',
    resourceVersion: '12345',
    creationTimestamp: '2025-03-01T12:00:00Z',
    labels: { app: 'web', 'pod-template-hash': '7d4b9c' },
    annotations: { 'kubernetes.io/psp': 'x', z: '' },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d4b9c', uid: 'u-1', controller: true, blockOwnerDeletion: true }],
    managedFields: [
      {
        manager: 'kube-controller-manager',
        operation: 'Update',
        apiVersion: 'v1',
        time: '2025-03-01T12:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
      },
    ],
  },
  spec: {
    containers: [
      {
        name: 'nginx',
        image: 'nginx:1.27',
        ports: [{ containerPort: 80, protocol: 'TCP' }],
        env: [{ name: 'A', value: '1' }, { name: 'B', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } }],
        resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
        readinessProbe: { httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' }, periodSeconds: 10, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
        volumeMounts: [{ name: 'cfg', mountPath: '/etc/cfg', readOnly: true }],
        terminationMessagePath: '/dev/termination-log',
        imagePullPolicy: 'IfNotPresent',
      },
    ],
    volumes: [{ name: 'cfg', configMap: { name: 'cfg', defaultMode: 420 } }],
    nodeName: 'node-1',
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    securityContext: { runAsUser: 0, supplementalGroups: [1000, 2000] },
    tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
    priority: 0,
  },
  status: {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2025-03-01T12:00:05Z' }],
    podIP: '10.0.0.7',
    podIPs: [{ ip: '10.0.0.7' }],
    startTime: '2025-03-01T12:00:01Z',
    containerStatuses: [
      { name: 'nginx', ready: true, restartCount: 2, image: 'nginx:1.27', imageID: 'sha', started: true, lastState: {}, state: { running: { startedAt: '2025-03-01T12:00:03Z' } } },
    ],
  },
};

const DEPLOYMENT = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', generation: 4, creationTimestamp: '2025-03-01T12:00:00Z', labels: { app: 'web' } },
  spec: {
    replicas: 0,
    selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx', resources: {} }] } },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
    revisionHistoryLimit: 10,
    progressDeadlineSeconds: 600,
  },
  status: {
    observedGeneration: 4,
    replicas: 3,
    updatedReplicas: 3,
    availableReplicas: 3,
    conditions: [{ type: 'Available', status: 'True', lastUpdateTime: '2025-03-01T12:00:09Z', lastTransitionTime: '2025-03-01T12:00:09Z', reason: 'MinimumReplicasAvailable', message: 'ok' }],
  },
};

const NODE = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'node-1', labels: { 'kubernetes.io/hostname': 'node-1' } },
  spec: { podCIDR: '10.0.1.0/24', podCIDRs: ['10.0.1.0/24'], taints: [{ key: 'k', value: 'v', effect: 'NoSchedule', timeAdded: '2025-03-01T12:00:00Z' }], unschedulable: true },
  status: {
    capacity: { cpu: '4', memory: '16Gi', pods: '110' },
    allocatable: { cpu: '3800m', memory: '15Gi', pods: '110' },
    conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2025-03-01T12:01:00Z', lastTransitionTime: '2025-03-01T12:00:00Z', reason: 'KubeletReady', message: 'kubelet is posting ready status' }],
    addresses: [{ type: 'InternalIP', address: '192.168.0.10' }, { type: 'Hostname', address: 'node-1' }],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: { kubeletVersion: 'v1.33.0', architecture: 'amd64', operatingSystem: 'linux' },
    images: [{ names: ['nginx:1.27'], sizeBytes: 70000000 }],
  },
};

const SERVICE = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'svc', namespace: 'default' },
  spec: {
    ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 8080 }, { name: 'https', protocol: 'TCP', port: 443, targetPort: 'https', nodePort: 30443 }],
    selector: { app: 'web' },
    clusterIP: '10.96.0.10',
    clusterIPs: ['10.96.0.10'],
    type: 'NodePort',
    sessionAffinity: 'None',
    ipFamilies: ['IPv4'],
    ipFamilyPolicy: 'SingleStack',
    internalTrafficPolicy: 'Cluster',
    externalTrafficPolicy: 'Cluster',
  },
  status: { loadBalancer: {} },
};

// Non-pointer nested structs come back as `{}` (Go's JSON shows them so too: `lastState: {}`,
// `resources: {}`); the objects above carry them, as a Go server's JSON would.
describe('encoding', () => {
  test('recorded kubectl bodies: encoding the decoded object gives the same bytes back', () => {
    for (const rec of RECORDED_BODIES) {
      const body = Buffer.from(rec.hex, 'hex');
      const obj = decodeKubernetesProtobuf(body, DEFAULTS);
      assert.equal(encodeKubernetesProtobuf(obj)?.toString('hex'), rec.hex, rec.command);
    }
  });

  for (const obj of [POD, DEPLOYMENT, NODE, SERVICE]) {
    test(`${obj.kind} round-trips through our decoder`, () => {
      assert.deepEqual(roundTrip(obj), obj);
    });
  }

  test('a list round-trips, items in order', () => {
    const list = { apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '99', continue: 'abc', remainingItemCount: 5 }, items: [POD.metadata, { name: 'b' }].map((m) => ({ ...POD, metadata: m })) };
    const back = roundTrip(list);
    assert.deepEqual(back, { ...list, items: list.items.map(({ metadata, spec, status }) => ({ metadata, spec, status })) });
  });

  test('a Status round-trips (empty ListMeta kept as {})', () => {
    const status = {
      apiVersion: 'v1',
      kind: 'Status',
      metadata: {},
      status: 'Failure',
      message: 'pods "x" not found',
      reason: 'NotFound',
      details: { name: 'x', kind: 'pods', causes: [{ reason: 'FieldValueInvalid', message: 'bad', field: 'spec' }], retryAfterSeconds: 3 },
      code: 404,
    };
    assert.deepEqual(roundTrip(status), status);
  });

  test('zero values are written as gogo writes them: non-pointer always, pointer only when set', () => {
    // ContainerPort: name=1 hostPort=2 containerPort=3 protocol=4 hostIP=5, all non-pointer.
    assert.equal(encodeMessage('k8s.io.api.core.v1.ContainerPort', { containerPort: 80 }).toString('hex'), '0a00100018502200' + '2a00');
    // DeploymentSpec.replicas (1) is a pointer: absent → not written; 0 → written.
    const spec = (replicas?: number): string => encodeMessage('k8s.io.api.apps.v1.DeploymentSpec', replicas === undefined ? {} : { replicas }).toString('hex');
    assert.ok(!spec().startsWith('08'));
    assert.ok(spec(0).startsWith('0800'));
  });

  test('negative ints take ten bytes; maps are sorted by key; Time drops sub-seconds, MicroTime keeps microseconds', () => {
    const ct = encodeMessage('k8s.io.api.core.v1.ConfigMap', { data: { b: '2', a: '1' } });
    assert.deepEqual(decodeMessage('k8s.io.api.core.v1.ConfigMap', ct)['data'], { a: '1', b: '2' });
    assert.ok(ct.indexOf(Buffer.from('a')) < ct.indexOf(Buffer.from('b')));
    const probe = encodeMessage('k8s.io.api.core.v1.PodSecurityContext', { runAsUser: -1 });
    assert.equal(probe.toString('hex'), '10ffffffffffffffffff01');
    const ev = encodeMessage('k8s.io.api.events.v1.Event', { eventTime: '2025-01-01T00:00:00.123456Z', deprecatedFirstTimestamp: '2025-01-01T00:00:01.5Z' });
    const back = decodeMessage('k8s.io.api.events.v1.Event', ev);
    assert.equal(back['eventTime'], '2025-01-01T00:00:00.123456Z');
    assert.equal(back['deprecatedFirstTimestamp'], '2025-01-01T00:00:01Z');
  });

  test('Durations, bytes and Quantity defaults', () => {
    assert.equal(durationNanos('1m30s'), 90e9);
    assert.equal(durationNanos('-1.5h'), -5.4e12);
    assert.equal(durationNanos('nonsense'), 0);
    const secret = encodeMessage('k8s.io.api.core.v1.Secret', { data: { k: Buffer.from('s3cr3t').toString('base64') } });
    assert.ok(secret.includes(Buffer.from('s3cr3t')));
    assert.deepEqual(decodeMessage('k8s.io.api.core.v1.Secret', secret)['data'], { k: Buffer.from('s3cr3t').toString('base64') });
  });

  test('kinds without a message (custom resources) are not encoded; long strings get multi-byte lengths', () => {
    assert.equal(encodeKubernetesProtobuf({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }), undefined);
    assert.equal(encodeKubernetesProtobuf({ kind: 'Pod' }), undefined);
    const long = 'x'.repeat(300) + 'é'.repeat(50);
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { long } };
    assert.deepEqual(roundTrip(cm), cm);
    assert.equal(varintSize(127), 1);
    assert.equal(varintSize(128), 2);
    assert.equal(varintSize(2 ** 21), 4);
  });

  test('a large object (nested bodies over 16 KiB) round-trips', () => {
    const data = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`key-${i}`, `value-${i}`.repeat(5)]));
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big', annotations: data }, data };
    assert.deepEqual(roundTrip(cm), cm);
  });

  test('wrapKubernetesProtobuf starts with the magic and names the kind', () => {
    const raw = encodeMessage('k8s.io.api.core.v1.Pod', POD);
    const body = wrapKubernetesProtobuf('v1', 'Pod', raw);
    assert.deepEqual(body.subarray(0, 4), Buffer.from(PROTOBUF_MAGIC));
    assert.deepEqual(body, encodeKubernetesProtobuf(POD));
  });
});

describe('watch frames', () => {
  test('frames decode back to their events; a partial frame is left for the next chunk', () => {
    const raw = encodeMessage('k8s.io.api.core.v1.Pod', POD);
    const second = Buffer.concat(watchEventFrame('MODIFIED', 'v1', 'Pod', raw));
    const frames = Buffer.concat([...watchEventFrame('ADDED', 'v1', 'Pod', raw), second]);
    const { events, rest } = decodeWatchFrames(frames, DEFAULTS);
    assert.deepEqual(events, [
      { type: 'ADDED', object: POD },
      { type: 'MODIFIED', object: POD },
    ]);
    assert.equal(rest.length, 0);
    const cut = decodeWatchFrames(frames.subarray(0, frames.length - 3), DEFAULTS);
    assert.equal(cut.events.length, 1);
    assert.equal(cut.rest.length, second.length - 3);
  });

  test('the WatchEvent is meta/v1 WatchEvent: type, then object.raw holding a whole protobuf body', () => {
    const raw = encodeMessage('k8s.io.api.core.v1.Pod', POD);
    const frame = Buffer.concat(watchEventFrame('DELETED', 'v1', 'Pod', raw));
    assert.equal(frame.readUInt32BE(0), frame.length - 4);
    const ev = decodeMessage('k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent', frame.subarray(4).subarray(0, 2 + 'DELETED'.length));
    assert.equal(ev['type'], 'DELETED');
    assert.ok(frame.includes(Buffer.concat([Buffer.from(PROTOBUF_MAGIC), wrapKubernetesProtobuf('v1', 'Pod', raw).subarray(4)])));
  });
});
