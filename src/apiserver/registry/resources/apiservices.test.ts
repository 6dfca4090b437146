import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { APIService, KubeList, KubeObject } from '../../../api/index.js';
import { fieldErrorString } from '../../../machinery/errors/index.js';
import { rejectsWithStatus, newTestServer, plainStrategy, resourceInfo } from '../../testing/fixtures.js';
import { startHttpServer } from '../../http/index.js';
import { AUTO_REGISTER_MANAGED_LABEL, apiServiceStrategy, desiredAPIServices, validateAPIService } from './apiservices.js';
import { servedStrategies } from './index.js';

type APIServiceObject = Parameters<typeof validateAPIService>[0];

const NOW = Date.parse('2025-01-01T00:00:00Z');

function apiService(name: string, spec: Partial<NonNullable<APIService['spec']>>): APIServiceObject {
  return { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name }, spec: { groupPriorityMinimum: 100, versionPriority: 10, ...spec } };
}

const errors = (svc: APIServiceObject): string[] => validateAPIService(svc).map(fieldErrorString);
const nameErrors = (svc: APIServiceObject): string[] => apiServiceStrategy.nameValidator?.(svc.metadata?.name ?? '', svc) ?? [];

describe('APIService strategy', () => {
  test('defaults: a service reference gets port 443', () => {
    const svc = apiService('v1.example.com', { group: 'example.com', version: 'v1', service: { namespace: 'ns', name: 'api' } });
    apiServiceStrategy.defaults(svc);
    assert.equal(svc.spec?.service?.port, 443);
    const local = apiService('v1.example.com', { group: 'example.com', version: 'v1' });
    apiServiceStrategy.defaults(local);
    assert.equal(local.spec?.service, undefined);
  });

  test('name: a path segment, and exactly <spec.version>.<spec.group> (the core group: `v1.`)', () => {
    assert.deepEqual(nameErrors(apiService('v1.example.com', { group: 'example.com', version: 'v1' })), []);
    assert.deepEqual(nameErrors(apiService('v1.', { version: 'v1' })), []);
    assert.deepEqual(nameErrors(apiService('v1', { version: 'v1' })), ['must be `spec.version+"."+spec.group`: "v1."']);
    assert.deepEqual(nameErrors(apiService('a/b', { group: 'b', version: 'a' })), ["may not contain '/'"]);
  });

  test('name errors reach the client under metadata.name', async () => {
    const t = await newTestServer({ strategies: servedStrategies });
    await rejectsWithStatus(
      t.server.handle({ group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices', verb: 'create', body: apiService('v2.example.com', { group: 'example.com', version: 'v1' }) }),
      422,
      'APIService.apiregistration.k8s.io "v2.example.com" is invalid: metadata.name: Invalid value: "v2.example.com": must be `spec.version+"."+spec.group`: "v1.example.com"',
    );
    await t.server.close();
  });

  test('validation: group, version, priorities, with upstream paths and messages', () => {
    assert.deepEqual(errors(apiService('v1.example.com', { group: 'example.com', version: 'v1' })), []);
    assert.deepEqual(errors(apiService('v2.', { version: 'v2' })), ['spec.group: Required value: only v1 may have an empty group and it better be legacy kube']);
    assert.deepEqual(errors(apiService('v1.Bad_Group', { group: 'Bad_Group', version: 'v1' })), [
      "spec.group: Invalid value: \"Bad_Group\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ]);
    assert.deepEqual(errors(apiService('1v.example.com', { group: 'example.com', version: '1v' })), [
      "spec.version: Invalid value: \"1v\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
    assert.deepEqual(errors(apiService('v1.example.com', { group: 'example.com', version: 'v1', groupPriorityMinimum: 0, versionPriority: 1001 })), [
      'spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000',
      'spec.versionPriority: Invalid value: 1001: must be positive and less than 1000',
    ]);
    assert.deepEqual(errors(apiService('v1.example.com', { group: 'example.com', version: 'v1', groupPriorityMinimum: 20000, versionPriority: 1000 })), []);
    assert.deepEqual(errors(apiService('v1.example.com', { group: 'example.com', version: 'v1', groupPriorityMinimum: 20001, versionPriority: -1 })), [
      'spec.groupPriorityMinimum: Invalid value: 20001: must be positive and less than 20000',
      'spec.versionPriority: Invalid value: -1: must be positive and less than 1000',
    ]);
  });

  test('validation: local APIServices have no caBundle nor insecureSkipTLSVerify; a service needs namespace, name, a valid port', () => {
    const local = { group: 'example.com', version: 'v1' };
    assert.deepEqual(errors(apiService('v1.example.com', { ...local, caBundle: 'YWJj', insecureSkipTLSVerify: true })), [
      'spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle',
      'spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify',
    ]);
    assert.deepEqual(errors(apiService('v1.example.com', { ...local, service: { port: 0 } })), [
      'spec.service.namespace: Required value',
      'spec.service.name: Required value',
      'spec.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive',
    ]);
    const remote = { ...local, service: { namespace: 'ns', name: 'api', port: 443 } };
    assert.deepEqual(errors(apiService('v1.example.com', { ...remote, caBundle: 'YWJj' })), []);
    assert.deepEqual(errors(apiService('v1.example.com', { ...remote, insecureSkipTLSVerify: true })), []);
    assert.deepEqual(errors(apiService('v1.example.com', { ...remote, caBundle: 'YWJj', insecureSkipTLSVerify: true })), [
      'spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present',
    ]);
  });

  test('status validation: condition statuses are True, False or Unknown', () => {
    const svc = apiService('v1.example.com', { group: 'example.com', version: 'v1' });
    svc.status = { conditions: [{ type: 'Available', status: 'True' }, { type: 'Available', status: 'Maybe' }] };
    assert.deepEqual(apiServiceStrategy.validateStatusUpdate?.(svc, svc).map(fieldErrorString), [
      'status.conditions[1].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown"',
    ]);
  });

  test('create: status reset, a local APIService is Available at once; a remote one has no condition', () => {
    const local = apiService('v1.example.com', { group: 'example.com', version: 'v1' });
    local.status = { conditions: [{ type: 'Available', status: 'False', reason: 'Mine' }] };
    apiServiceStrategy.prepareForCreate(local, NOW);
    assert.deepEqual(local.status, {
      conditions: [{ type: 'Available', status: 'True', lastTransitionTime: '2025-01-01T00:00:00Z', reason: 'Local', message: 'Local APIServices are always available' }],
    });
    const remote = apiService('v1.example.com', { group: 'example.com', version: 'v1', service: { namespace: 'ns', name: 'api' } });
    remote.status = { conditions: [{ type: 'Available', status: 'True' }] };
    apiServiceStrategy.prepareForCreate(remote, NOW);
    assert.deepEqual(remote.status, {});
  });

  test('update: status kept; a local one stays Available (transition time unchanged), a remote one loses the Local condition', () => {
    const old = apiService('v1.example.com', { group: 'example.com', version: 'v1' });
    apiServiceStrategy.prepareForCreate(old, NOW);
    const same = apiService('v1.example.com', { group: 'example.com', version: 'v1', versionPriority: 20 });
    apiServiceStrategy.prepareForUpdate(same, old, NOW + 60_000);
    assert.deepEqual(same.status, old.status);
    const remote = apiService('v1.example.com', { group: 'example.com', version: 'v1', service: { namespace: 'ns', name: 'api' } });
    apiServiceStrategy.prepareForUpdate(remote, old, NOW + 60_000);
    assert.deepEqual(remote.status, { conditions: [] });
    const back = apiService('v1.example.com', { group: 'example.com', version: 'v1' });
    apiServiceStrategy.prepareForUpdate(back, remote, NOW + 120_000);
    assert.equal(back.status?.conditions?.[0]?.lastTransitionTime, '2025-01-01T00:02:00Z');
  });

  test('printer: NAME SERVICE AVAILABLE AGE; Local or namespace/name; True, False (Reason), Unknown', () => {
    assert.deepEqual(
      apiServiceStrategy.table.columns.map((c) => c.name),
      ['Name', 'Service', 'Available', 'Age'],
    );
    const svc = apiService('v1.example.com', { group: 'example.com', version: 'v1' });
    svc.metadata = { ...svc.metadata, creationTimestamp: '2025-01-01T00:00:00Z' };
    apiServiceStrategy.prepareForCreate(svc, NOW);
    assert.deepEqual(apiServiceStrategy.table.row(svc, NOW + 3_600_000).cells, ['v1.example.com', 'Local', 'True', '60m']);
    const remote = { ...svc, spec: { ...svc.spec, service: { namespace: 'ns', name: 'api' } } } as APIServiceObject;
    remote.status = { conditions: [{ type: 'Available', status: 'False', reason: 'ServiceNotFound' }] };
    assert.deepEqual(apiServiceStrategy.table.row(remote, NOW).cells.slice(1, 3), ['ns/api', 'False (ServiceNotFound)']);
    remote.status = { conditions: [{ type: 'Available', status: 'False' }] };
    assert.equal(apiServiceStrategy.table.row(remote, NOW).cells[2], 'False');
    remote.status = {};
    assert.equal(apiServiceStrategy.table.row(remote, NOW).cells[2], 'Unknown');
  });
});

describe('APIService autoregistration', () => {
  const apiservices = { group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices' } as const;
  const list = async (t: Awaited<ReturnType<typeof newTestServer>>): Promise<APIService[]> =>
    ((await t.server.handle({ ...apiservices, verb: 'list' })).body as KubeList<APIService>).items;
  const gizmos = plainStrategy(resourceInfo({ group: 'example.com', version: 'v1', resource: 'gizmos', kind: 'Gizmo' }));

  test('desired: one per served group/version, kube-apiserver priorities (onstart), others 1000/100 (true)', () => {
    const desired = desiredAPIServices([...servedStrategies.map((s) => s.info), gizmos.info]);
    assert.deepEqual(desired.get('v1.'), {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.', labels: { [AUTO_REGISTER_MANAGED_LABEL]: 'onstart' } },
      spec: { version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 },
    });
    assert.deepEqual(desired.get('v2.autoscaling')?.spec, { group: 'autoscaling', version: 'v2', groupPriorityMinimum: 17500, versionPriority: 30 });
    assert.deepEqual(desired.get('v1.example.com'), {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.example.com', labels: { [AUTO_REGISTER_MANAGED_LABEL]: 'true' } },
      spec: { group: 'example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 },
    });
  });

  test('start-up registers exactly the served group/versions, Local and Available', async () => {
    const t = await newTestServer({ strategies: servedStrategies });
    const items = await list(t);
    const served = [...new Set(servedStrategies.map((s) => `${s.info.version}.${s.info.group}`))].sort();
    assert.deepEqual(items.map((s) => s.metadata?.name), served);
    assert.ok(items.every((s) => !s.spec?.service && s.status?.conditions?.[0]?.status === 'True' && s.metadata?.labels?.[AUTO_REGISTER_MANAGED_LABEL] === 'onstart'));
    await t.server.close();
  });

  test('follows resources added and removed at run time; leaves users\' APIServices alone; restores automanaged specs', async () => {
    const t = await newTestServer({ strategies: servedStrategies });
    // A user's APIService (no label) and a stale automanaged one from an earlier run.
    const mine = apiService('v1beta1.custom.metrics.k8s.io', { group: 'custom.metrics.k8s.io', version: 'v1beta1', service: { namespace: 'monitoring', name: 'prometheus-adapter' } });
    await t.server.handle({ ...apiservices, verb: 'create', body: mine });
    const stale = { ...apiService('v1.gone.example.com', { group: 'gone.example.com', version: 'v1' }), metadata: { name: 'v1.gone.example.com', labels: { [AUTO_REGISTER_MANAGED_LABEL]: 'true' } } };
    await t.server.handle({ ...apiservices, verb: 'create', body: stale });
    // Someone edits an automanaged spec.
    const apps = (await t.server.handle({ ...apiservices, verb: 'get', name: 'v1.apps' })).body as KubeObject;
    await t.server.handle({ ...apiservices, verb: 'update', name: 'v1.apps', body: { ...apps, spec: { ...(apps.spec as object), versionPriority: 1 } } });

    await t.server.addResource(gizmos);
    const names = (await list(t)).map((s) => s.metadata?.name);
    assert.ok(names.includes('v1.example.com'));
    assert.ok(names.includes('v1beta1.custom.metrics.k8s.io'), 'a user APIService stays');
    assert.ok(!names.includes('v1.gone.example.com'), 'an automanaged APIService nothing serves is deleted');
    const gizmoService = (await list(t)).find((s) => s.metadata?.name === 'v1.example.com');
    assert.equal(gizmoService?.metadata?.labels?.[AUTO_REGISTER_MANAGED_LABEL], 'true');
    const restored = (await t.server.handle({ ...apiservices, verb: 'get', name: 'v1.apps' })).body as APIService;
    assert.equal(restored.spec?.versionPriority, 15);

    assert.equal(t.server.removeResource('example.com', 'gizmos'), true);
    await t.server.resourcesSynced();
    assert.ok(!(await list(t)).some((s) => s.metadata?.name === 'v1.example.com'));
    assert.ok((await list(t)).some((s) => s.metadata?.name === 'v1beta1.custom.metrics.k8s.io'));
    await t.server.close();
  });

  test('over HTTP: a protobuf Accept falls back to JSON (no protobuf message for APIService); a protobuf body is a 400', async () => {
    const t = await newTestServer({ strategies: servedStrategies });
    const http = await startHttpServer(t.server, { host: '127.0.0.1', port: 0, clock: t.clock, logger: { info() {}, warn() {} } });
    const url = `http://127.0.0.1:${http.port}/apis/apiregistration.k8s.io/v1/apiservices/v1.apps`;
    const res = await fetch(url, { headers: { accept: 'application/vnd.kubernetes.protobuf, application/json' } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(((await res.json()) as KubeObject).metadata?.name, 'v1.apps');
    const only = await fetch(url, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    assert.equal(only.status, 406);
    const posted = await fetch(url.replace('/v1.apps', ''), {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.kubernetes.protobuf' },
      body: Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x0a, 0x00]),
    });
    assert.equal(posted.status, 400);
    await http.close();
    await t.server.close();
  });
});
