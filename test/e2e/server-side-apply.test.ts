/**
 * Server-side apply and managedFields with the real kubectl, as on a 1.33 cluster.
 *
 * The expected `managedFields` follow upstream's rules (k8s.io/apimachinery
 * pkg/util/managedfields, sigs.k8s.io/structured-merge-diff v4.6.0):
 * - an Apply entry owns exactly the applied configuration's fields (typed/tofieldset.go: list-map
 *   items are `k:{…}` members with `.`; LabelSelector is `+structType=atomic`, one leaf `f:selector`),
 *   without apiVersion, kind, name and namespace (internal/stripmeta.go);
 * - an Update entry owns what its write changed (merge/update.go): kube-controller-manager's status
 *   writes own the status fields and the revision annotation (the Deployment controller sets it through
 *   UpdateStatus, sync.go), recorded as `subresource: status`;
 * - `kubectl scale` writes `/scale` with manager `kubectl` (its User-Agent's prefix, handlers/rest.go
 *   managerOrUserAgent), recorded on the parent as `subresource: scale` owning `.spec.replicas`
 *   (scalehandler.go), which then conflicts with the apply's replicas (internal/conflict.go);
 * - client-side apply's `kubectl-client-side-apply` Update entry becomes kubectl's Apply entry (kubectl's
 *   csaupgrade), the last-applied annotation is kept by `kubectl-last-applied`, and a server-side apply by
 *   `kubectl` keeps that annotation in step (internal/lastappliedupdater.go), so client-side apply works
 *   again afterwards.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, httpRequest, removeDataDir, startKubeplane, type HttpResponse, type Kubeplane } from './harness.js';

interface ManagedFieldsEntry {
  manager: string;
  operation: string;
  apiVersion: string;
  time?: string;
  fieldsType: string;
  fieldsV1: unknown;
  subresource?: string;
}

interface Obj {
  metadata: { managedFields?: ManagedFieldsEntry[]; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: { replicas?: number };
  status?: { availableReplicas?: number; conditions?: { type: string; reason?: string }[] };
  data?: Record<string, string>;
}

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

const deployment = (opts: { replicas?: number; labels?: Record<string, string>; image?: string } = {}): string => {
  const labels = Object.entries(opts.labels ?? { app: 'web' })
    .map(([k, v]) => `    ${k}: ${v}\n`)
    .join('');
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
${labels}spec:
${opts.replicas === undefined ? '' : `  replicas: ${opts.replicas}\n`}  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: ${opts.image ?? 'nginx:1.25'}
`;
};

/** What kubectl's Apply entry owns for {@link deployment} with replicas and labels `app` (+ `extra`). */
function appliedDeploymentFields(opts: { replicas: boolean; extraLabel?: string }): unknown {
  const labels: Record<string, unknown> = { 'f:app': {} };
  if (opts.extraLabel) labels[`f:${opts.extraLabel}`] = {};
  return {
    'f:metadata': { 'f:labels': labels },
    'f:spec': {
      ...(opts.replicas ? { 'f:replicas': {} } : {}),
      'f:selector': {},
      'f:template': {
        'f:metadata': { 'f:labels': { 'f:app': {} } },
        'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
      },
    },
  };
}

/** The entries without their times, and the times checked to be RFC 3339 where present. */
function entries(obj: Obj): Omit<ManagedFieldsEntry, 'time'>[] {
  return (obj.metadata.managedFields ?? []).map(({ time, ...rest }) => {
    if (time !== undefined) assert.match(time, RFC3339);
    return rest;
  });
}

function entry(manager: string, operation: 'Apply' | 'Update', fieldsV1: unknown, extra: { apiVersion?: string; subresource?: string } = {}): Omit<ManagedFieldsEntry, 'time'> {
  return { manager, operation, apiVersion: extra.apiVersion ?? 'apps/v1', fieldsType: 'FieldsV1', fieldsV1, ...(extra.subresource ? { subresource: extra.subresource } : {}) };
}

describe('server-side apply with real kubectl', { timeout: 240_000 }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 1 });
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  const getWithFields = (what: string): Promise<Obj> => kp.kubectlJson<Obj>(['get', what, '--show-managed-fields']);

  test('apply creates a Deployment; its managedFields are kubectl Apply and the controller status Update', async () => {
    assert.equal(await kp.kubectlOk(['apply', '--server-side', '-f', '-'], deployment({ replicas: 2 })), 'deployment.apps/web serverside-applied\n');
    // The controller's last status write: both pods available and the rollout complete.
    const d = await eventually('the rollout complete', async () => {
      const got = await getWithFields('deploy/web');
      const done = got.status?.availableReplicas === 2 && got.status.conditions?.some((c) => c.reason === 'NewReplicaSetAvailable');
      return done ? got : undefined;
    });
    assert.deepEqual(entries(d), [
      entry('kubectl', 'Apply', appliedDeploymentFields({ replicas: true })),
      entry(
        'kube-controller-manager',
        'Update',
        {
          'f:metadata': { 'f:annotations': { '.': {}, 'f:deployment.kubernetes.io/revision': {} } },
          'f:status': {
            'f:availableReplicas': {},
            'f:conditions': {
              '.': {},
              'k:{"type":"Available"}': { '.': {}, 'f:lastTransitionTime': {}, 'f:lastUpdateTime': {}, 'f:message': {}, 'f:reason': {}, 'f:status': {}, 'f:type': {} },
              'k:{"type":"Progressing"}': { '.': {}, 'f:lastTransitionTime': {}, 'f:lastUpdateTime': {}, 'f:message': {}, 'f:reason': {}, 'f:status': {}, 'f:type': {} },
            },
            'f:observedGeneration': {},
            'f:readyReplicas': {},
            'f:replicas': {},
            'f:updatedReplicas': {},
          },
        },
        { subresource: 'status' },
      ),
    ]);
    // Every entry has a time: each manager changed something.
    assert.ok(d.metadata.managedFields?.every((e) => e.time !== undefined));
    // Hidden by default, as kubectl strips them.
    assert.doesNotMatch(await kp.kubectlOk(['get', 'deploy/web', '-o', 'yaml']), /managedFields/);
    assert.match(await kp.kubectlOk(['get', 'deploy/web', '-o', 'yaml', '--show-managed-fields']), /^ {2}managedFields:\n {2}- apiVersion: apps\/v1\n {4}fieldsType: FieldsV1\n/m);
  });

  test('kubectl scale takes .spec.replicas; the next apply conflicts, --force-conflicts takes it back', async () => {
    assert.equal(await kp.kubectlOk(['scale', 'deploy/web', '--replicas=3']), 'deployment.apps/web scaled\n');
    let d = await getWithFields('deploy/web');
    assert.equal(d.spec?.replicas, 3);
    const scaled = entries(d).filter((e) => e.manager === 'kubectl');
    assert.deepEqual(scaled, [
      entry('kubectl', 'Apply', appliedDeploymentFields({ replicas: false })),
      entry('kubectl', 'Update', { 'f:spec': { 'f:replicas': {} } }, { subresource: 'scale' }),
    ]);

    const conflict = await kp.kubectl(['apply', '--server-side', '-f', '-'], deployment({ replicas: 2 }));
    assert.equal(conflict.code, 1);
    assert.equal(
      conflict.stderr.split('\n')[0],
      'error: Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps/v1: .spec.replicas',
    );
    assert.match(conflict.stderr, /re-run the apply\n {2}command with the `--force-conflicts` flag/);
    assert.equal((await getWithFields('deploy/web')).spec?.replicas, 3);

    assert.equal(await kp.kubectlOk(['apply', '--server-side', '--force-conflicts', '-f', '-'], deployment({ replicas: 2 })), 'deployment.apps/web serverside-applied\n');
    d = await getWithFields('deploy/web');
    assert.equal(d.spec?.replicas, 2);
    assert.deepEqual(
      entries(d).filter((e) => e.manager === 'kubectl'),
      [entry('kubectl', 'Apply', appliedDeploymentFields({ replicas: true }))],
    );
  });

  test('two managers applying the same value share it; a field one manager stops applying is removed', async () => {
    // Another manager applies the same replicas and image: no conflict, both own them.
    const other = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  template:
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
`;
    assert.equal(await kp.kubectlOk(['apply', '--server-side', '--field-manager=rollout-tool', '-f', '-'], other), 'deployment.apps/web serverside-applied\n');
    let d = await getWithFields('deploy/web');
    assert.deepEqual(
      entries(d).find((e) => e.manager === 'rollout-tool'),
      entry('rollout-tool', 'Apply', {
        'f:spec': { 'f:replicas': {}, 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } },
      }),
    );
    // A different value from either one conflicts with the other.
    const clash = await kp.kubectl(['apply', '--server-side', '--field-manager=rollout-tool', '-f', '-'], other.replace('replicas: 2', 'replicas: 4'));
    assert.equal(clash.stderr.split('\n')[0], 'error: Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas');

    // kubectl adds a label, then stops applying it and replicas: the label goes (kubectl alone owned
    // it), replicas stays (rollout-tool still applies it).
    await kp.kubectlOk(['apply', '--server-side', '-f', '-'], deployment({ replicas: 2, labels: { app: 'web', tier: 'frontend' } }));
    assert.deepEqual((await getWithFields('deploy/web')).metadata.labels, { app: 'web', tier: 'frontend' });
    await kp.kubectlOk(['apply', '--server-side', '-f', '-'], deployment({}));
    d = await getWithFields('deploy/web');
    assert.deepEqual(d.metadata.labels, { app: 'web' });
    assert.equal(d.spec?.replicas, 2);
    assert.deepEqual(
      entries(d).find((e) => e.manager === 'kubectl' && e.operation === 'Apply'),
      entry('kubectl', 'Apply', appliedDeploymentFields({ replicas: false })),
    );
  });

  test('--dry-run=server applies nothing; an unknown field is refused', async () => {
    const before = await getWithFields('deploy/web');
    assert.equal(
      await kp.kubectlOk(['apply', '--server-side', '--dry-run=server', '-f', '-'], deployment({ labels: { app: 'web', tier: 'dry-run' } })),
      'deployment.apps/web serverside-applied (server dry run)\n',
    );
    assert.deepEqual(await getWithFields('deploy/web'), before);
    const unknown = await kp.kubectl(['apply', '--server-side', '-f', '-'], deployment({}).replace('  selector:', '  paused2: true\n  selector:'));
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /failed to create typed patch object \(default\/web; apps\/v1, Kind=Deployment\): \.spec\.paused2: field not declared in schema/);
  });

  test('duplicate keys in an applied YAML: Strict refuses them with goyaml\'s lines, Warn warns and keeps the last value, Ignore is silent', async () => {
    // A client that writes its own YAML (kubectl decodes the file first and sends JSON without them).
    const yaml = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: dup
spec:
  replicas: 1
  paused: false
  paused: true
  selector:
    matchLabels: {app: dup}
  template:
    metadata:
      labels: {app: dup}
    spec:
      containers:
      - name: c
        image: nginx
        imagePullPolicy: Always
        imagePullPolicy: Never
`;
    const apply = (validation: string): Promise<HttpResponse> =>
      httpRequest(kp, { method: 'PATCH', path: `/apis/apps/v1/namespaces/default/deployments/dup?fieldManager=yaml-writer&fieldValidation=${validation}`, contentType: 'application/apply-patch+yaml', body: yaml });

    const strict = await apply('Strict');
    assert.equal(strict.status, 400);
    const status = JSON.parse(strict.body) as { reason: string; message: string };
    assert.equal(status.reason, 'BadRequest');
    assert.equal(
      status.message,
      'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 8: key "paused" already set in map\n  line 19: key "imagePullPolicy" already set in map',
    );
    assert.match((await kp.kubectl(['get', 'deploy/dup'])).stderr, /NotFound/, 'nothing was created');

    const warn = await apply('Warn');
    assert.equal(warn.status, 201, warn.body);
    assert.deepEqual(warn.headers['warning'], '299 - "line 8: key \\"paused\\" already set in map", 299 - "line 19: key \\"imagePullPolicy\\" already set in map"');
    const created = await kp.kubectlJson<{ spec: { paused: boolean; template: { spec: { containers: { imagePullPolicy: string }[] } } } }>(['get', 'deploy/dup']);
    assert.equal(created.spec.paused, true, 'the last value is kept');
    assert.equal(created.spec.template.spec.containers[0]?.imagePullPolicy, 'Never');

    const ignore = await apply('Ignore');
    assert.equal(ignore.status, 200, ignore.body);
    assert.equal(ignore.headers['warning'], undefined);
    // JSON is YAML to the strict decoder: a one-line body's duplicates are on line 1.
    const json = await httpRequest(kp, {
      method: 'PATCH',
      path: '/apis/apps/v1/namespaces/default/deployments/dup?fieldManager=yaml-writer&fieldValidation=Strict',
      contentType: 'application/apply-patch+yaml',
      body: '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"dup"},"spec":{"paused":true,"paused":false}}',
    });
    assert.equal(json.status, 400);
    assert.match(json.body, /yaml: unmarshal errors:\\n {2}line 1: key \\"paused\\" already set in map"/);
    await kp.kubectlOk(['delete', 'deploy/dup']);
  });

  test('custom resources merge by their CRD schema: map-list items per manager, atomic lists whole', async () => {
    await kp.kubectlOk(['apply', '--server-side', '-f', '-'], `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gateways.net.example.com}
spec:
  group: net.example.com
  scope: Namespaced
  names: {plural: gateways, singular: gateway, kind: Gateway}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              listeners:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    port: {type: integer}
              hosts:
                type: array
                items: {type: string}
`);
    await kp.kubectlOk(['wait', '--for=condition=Established', 'crd/gateways.net.example.com', '--timeout=30s']);
    const gateway = (spec: string): string => `apiVersion: net.example.com/v1\nkind: Gateway\nmetadata: {name: edge}\nspec:\n${spec}`;
    await kp.kubectlOk(['apply', '--server-side', '--field-manager=web-team', '-f', '-'], gateway('  listeners: [{name: http, port: 80}]\n  hosts: [a.example.com]\n'));
    await kp.kubectlOk(['apply', '--server-side', '--field-manager=ops', '-f', '-'], gateway('  listeners: [{name: metrics, port: 9090}]\n'));
    let gw = await kp.kubectlJson<{ spec: { listeners: { name: string; port: number }[]; hosts?: string[] } } & Obj>(['get', 'gateway/edge', '--show-managed-fields']);
    assert.deepEqual(gw.spec.listeners, [{ name: 'http', port: 80 }, { name: 'metrics', port: 9090 }]);
    // Entries are ordered by time in seconds, then manager (sortEncodedManagedFields): both may fall in one second.
    assert.deepEqual(
      entries(gw)
        .map((e) => [e.manager, e.fieldsV1])
        .sort((a, b) => String(b[0]).localeCompare(String(a[0]))),
      [
        ['web-team', { 'f:spec': { 'f:hosts': {}, 'f:listeners': { 'k:{"name":"http"}': { '.': {}, 'f:name': {}, 'f:port': {} } } } }],
        ['ops', { 'f:spec': { 'f:listeners': { 'k:{"name":"metrics"}': { '.': {}, 'f:name': {}, 'f:port': {} } } } }],
      ],
    );
    // hosts has no list type: atomic, one field, so another manager's different list conflicts.
    const clash = await kp.kubectl(['apply', '--server-side', '--field-manager=ops', '-f', '-'], gateway('  listeners: [{name: metrics, port: 9090}]\n  hosts: [b.example.com]\n'));
    assert.equal(clash.stderr.split('\n')[0], 'error: Apply failed with 1 conflict: conflict with "web-team": .spec.hosts');
    // web-team stops applying its listener: only that item goes.
    await kp.kubectlOk(['apply', '--server-side', '--field-manager=web-team', '-f', '-'], gateway('  hosts: [a.example.com]\n'));
    gw = await kp.kubectlJson(['get', 'gateway/edge']);
    assert.deepEqual(gw.spec.listeners, [{ name: 'metrics', port: 9090 }]);
  });

  test('client-side apply, then server-side apply, then client-side apply again', async () => {
    const cm = (data: Record<string, string>): string =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n${Object.entries(data)
        .map(([k, v]) => `  ${k}: "${v}"\n`)
        .join('')}`;
    assert.equal(await kp.kubectlOk(['apply', '-f', '-'], cm({ a: '1', b: '2' })), 'configmap/cfg created\n');
    let got = await getWithFields('cm/cfg');
    const csaFields = {
      'f:data': { '.': {}, 'f:a': {}, 'f:b': {} },
      'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} } },
    };
    assert.deepEqual(entries(got), [entry('kubectl-client-side-apply', 'Update', csaFields, { apiVersion: 'v1' })]);

    // kubectl moves the client-side apply ownership to its Apply entry (csaupgrade) and keeps the
    // annotation under kubectl-last-applied; nothing is left to kubectl-client-side-apply.
    assert.equal(await kp.kubectlOk(['apply', '--server-side', '-f', '-'], cm({ a: '1', b: '2' })), 'configmap/cfg serverside-applied\n');
    got = await getWithFields('cm/cfg');
    assert.deepEqual(entries(got), [
      entry('kubectl', 'Apply', csaFields, { apiVersion: 'v1' }),
      entry('kubectl-last-applied', 'Apply', { 'f:metadata': { 'f:annotations': { 'f:kubectl.kubernetes.io/last-applied-configuration': {} } } }, { apiVersion: 'v1' }),
    ]);

    // b is no longer applied: kubectl owned it since the migration, so it goes; the annotation follows.
    await kp.kubectlOk(['apply', '--server-side', '-f', '-'], cm({ a: '10' }));
    got = await getWithFields('cm/cfg');
    assert.deepEqual(got.data, { a: '10' });
    assert.deepEqual(JSON.parse(got.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'] ?? '{}').data, { a: '10' });

    // Client-side apply again: its three-way merge starts from that annotation, so adding c and
    // keeping a works, with a kubectl-client-side-apply Update entry for what it changed.
    assert.equal(await kp.kubectlOk(['apply', '-f', '-'], cm({ a: '10', c: '3' })), 'configmap/cfg configured\n');
    got = await getWithFields('cm/cfg');
    assert.deepEqual(got.data, { a: '10', c: '3' });
    assert.deepEqual(
      entries(got).find((e) => e.manager === 'kubectl-client-side-apply'),
      entry('kubectl-client-side-apply', 'Update', { 'f:data': { 'f:c': {} }, 'f:metadata': { 'f:annotations': { 'f:kubectl.kubernetes.io/last-applied-configuration': {} } } }, { apiVersion: 'v1' }),
    );
  });
});
