import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap as CM, EndpointSlice as ES, Endpoints as EP, KubeObject, Secret as SE, Service as SV } from '../../../api/index.js';

type ConfigMap = ApiObject<CM>;
type Secret = ApiObject<SE>;
type Service = ApiObject<SV>;
type Endpoints = ApiObject<EP>;
type EndpointSlice = ApiObject<ES>;
import { fieldErrorString } from '../../../machinery/errors/index.js';
import { MemoryBackend } from '../../../storage/index.js';
import { SeededRand } from '../../../util/random/index.js';
import { newTestServer, obj, rejectsWithStatus, type TestServer } from '../../testing/fixtures.js';
import { configMapStrategy, validateConfigMap } from './configmaps.js';
import { endpointsStrategy, formatEndpoints } from './endpoints.js';
import { endpointSliceStrategy, validateEndpointSlice } from './endpointslices.js';
import { namespaceStrategy } from './namespaces.js';
import { base64ErrorOffset, defaultSecret, secretStrategy, validateSecret, validateSecretUpdate } from './secrets.js';
import { serviceAccountStrategy } from './serviceaccounts.js';
import { defaultService, serviceStrategy, validateService, validateServiceUpdate } from './services.js';
import { formatIPv4, parseIPv4 } from './service-allocator.js';
import type { ResourceStrategy } from '../strategy.js';
import type { ApiObject } from './helpers.js';

const T = Date.UTC(2025, 0, 1);
const msgs = (errs: Parameters<typeof fieldErrorString>[0][]): string[] => errs.map(fieldErrorString);

describe('configmaps', () => {
  test('keys, duplicates with binaryData and the 1 MiB limit', () => {
    const cm: ConfigMap = { metadata: { name: 'c' }, data: { ok: '1', 'bad key': 'x', '..x': 'y' }, binaryData: { ok: 'AA==' } };
    assert.deepEqual(msgs(validateConfigMap(cm)), [
      `data[..x]: Invalid value: "..x": must not start with '..'`,
      `data[bad key]: Invalid value: "bad key": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
      'data[ok]: Invalid value: "ok": duplicate of key present in binaryData',
    ]);
    assert.deepEqual(msgs(validateConfigMap({ data: { big: 'x'.repeat(1024 * 1024 + 1) } })), [': Too long: may not be more than 1048576 bytes']);
  });

  test('immutable configmaps keep their data and the flag', () => {
    const old: ConfigMap = { immutable: true, data: { a: '1' } };
    assert.deepEqual(msgs(configMapStrategy.validateUpdate({ immutable: true, data: { a: '2' } }, old)), ['data: Forbidden: field is immutable when `immutable` is set']);
    assert.deepEqual(msgs(configMapStrategy.validateUpdate({ data: { a: '1' } }, old)), ['immutable: Forbidden: field is immutable when `immutable` is set']);
    assert.deepEqual(configMapStrategy.validateUpdate({ data: { a: '2' } }, { data: { a: '1' } }), []);
  });

  test('table: DATA counts data and binaryData', () => {
    const row = configMapStrategy.table.row({ metadata: { name: 'c', creationTimestamp: '2025-01-01T00:00:00Z' }, data: { a: '' }, binaryData: { b: '' } }, T + 60_000);
    assert.deepEqual(row.cells, ['c', 2, '60s']);
  });
});

describe('secrets', () => {
  test('stringData is merged into data as base64 and dropped; type defaults to Opaque', () => {
    const s: Secret = { data: { a: 'YQ==', b: 'Yg==' }, stringData: { b: 'B', c: 'ç' } };
    defaultSecret(s);
    assert.deepEqual(s, { data: { a: 'YQ==', b: 'Qg==', c: 'w6c=' }, type: 'Opaque' });
  });

  test('invalid base64 is a 400 naming the offset', () => {
    assert.equal(base64ErrorOffset('a$=='), 1);
    assert.equal(base64ErrorOffset('abc'), 0);
    assert.equal(base64ErrorOffset('YWJj'), -1);
    assert.throws(() => defaultSecret({ data: { k: 'not base64!' } }), /illegal base64 data at input byte 3/);
  });

  test('each type requires its keys', () => {
    const v = (type: string, data: Record<string, string> = {}, annotations?: Record<string, string>): string[] =>
      msgs(validateSecret({ metadata: { name: 's', ...(annotations ? { annotations } : {}) }, type, data }));
    assert.deepEqual(v('kubernetes.io/tls', { 'tls.crt': '' }), ['data[tls.key]: Required value']);
    assert.deepEqual(v('kubernetes.io/basic-auth'), ['data[username]: Required value', 'data[password]: Required value']);
    assert.deepEqual(v('kubernetes.io/basic-auth', { password: '' }), []);
    assert.deepEqual(v('kubernetes.io/ssh-auth'), ['data[ssh-privatekey]: Required value']);
    assert.deepEqual(v('kubernetes.io/service-account-token'), ['metadata.annotations[kubernetes.io/service-account.name]: Required value']);
    assert.deepEqual(v('kubernetes.io/dockerconfigjson', { '.dockerconfigjson': Buffer.from('nope').toString('base64') }).length, 1);
    assert.deepEqual(v('kubernetes.io/dockerconfigjson', { '.dockerconfigjson': Buffer.from('{"auths":{}}').toString('base64') }), []);
    assert.deepEqual(v('Opaque', { 'a/b': '' }).length, 1);
  });

  test('the type is immutable, as is the data of an immutable secret', () => {
    assert.deepEqual(msgs(validateSecretUpdate({ type: 'kubernetes.io/tls', data: { 'tls.key': '', 'tls.crt': '' } }, { type: 'Opaque' })), [
      'type: Invalid value: "kubernetes.io/tls": field is immutable',
    ]);
    assert.deepEqual(msgs(validateSecretUpdate({ type: 'Opaque', immutable: true, data: { a: 'Yg==' } }, { type: 'Opaque', immutable: true, data: { a: 'YQ==' } })), [
      'data: Forbidden: field is immutable when `immutable` is set',
    ]);
  });

  test('table and the type field selector', () => {
    const s: Secret = { metadata: { name: 's', creationTimestamp: '2025-01-01T00:00:00Z' }, type: 'Opaque', data: { a: '', b: '' } };
    assert.deepEqual(secretStrategy.table.row(s, T).cells, ['s', 'Opaque', 2, '0s']);
    assert.equal(secretStrategy.fieldSelectors['type']?.(s), 'Opaque');
  });
});

describe('services', () => {
  test('defaults: type, sessionAffinity, protocol, targetPort, traffic policies', () => {
    const svc: Service = { spec: { type: 'NodePort', ports: [{ port: 80, targetPort: 0 }, { port: 81, targetPort: 'http', protocol: 'UDP' }] } };
    defaultService(svc);
    assert.deepEqual(svc.spec, {
      type: 'NodePort',
      sessionAffinity: 'None',
      ports: [
        { port: 80, targetPort: 80, protocol: 'TCP' },
        { port: 81, targetPort: 'http', protocol: 'UDP' },
      ],
      externalTrafficPolicy: 'Cluster',
      internalTrafficPolicy: 'Cluster',
    });
    const ext: Service = { spec: { type: 'ExternalName', externalName: 'example.com' } };
    defaultService(ext);
    assert.equal(ext.spec?.internalTrafficPolicy, undefined);
  });

  test('validation: ports, names, node ports on ClusterIP, ExternalName, headless types', () => {
    const v = (spec: Service['spec']): string[] => msgs(validateService({ metadata: { name: 's' }, spec }));
    assert.deepEqual(v({ type: 'ClusterIP' }), ['spec.ports: Required value']);
    assert.deepEqual(v({ type: 'ClusterIP', clusterIP: 'None' }), []);
    assert.deepEqual(v({ type: 'ClusterIP', ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }, { port: 0, protocol: 'TCP', targetPort: 80, nodePort: 30000 }] }), [
      'spec.ports[0].name: Required value',
      'spec.ports[1].name: Required value',
      'spec.ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive',
      "spec.ports[1].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'",
    ]);
    assert.deepEqual(v({ type: 'Weird', ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }] }), [
      'spec.type: Unsupported value: "Weird": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
    ]);
    assert.deepEqual(v({ type: 'ExternalName' }), ['spec.externalName: Required value']);
    assert.deepEqual(v({ type: 'NodePort', clusterIP: 'None', ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }] }), [
      `spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for NodePort services`,
    ]);
    assert.deepEqual(v({ type: 'ClusterIP', clusterIP: '1.2.3', ports: [{ port: 80, protocol: 'TCP', targetPort: 'Bad_Name' }] }), [
      `spec.clusterIPs[0]: Invalid value: "1.2.3": must be empty, 'None', or a valid IP address`,
      'spec.ports[0].targetPort: Invalid value: "Bad_Name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
    ]);
    assert.deepEqual(
      msgs(validateServiceUpdate({ spec: { type: 'ClusterIP', clusterIP: '10.96.0.9', ports: [{ port: 1, protocol: 'TCP', targetPort: 1 }] } }, { spec: { type: 'ClusterIP', clusterIP: '10.96.0.8' } })),
      ['spec.clusterIPs[0]: Invalid value: "10.96.0.9": may not change once set'],
    );
  });

  test('table: columns and cells for ClusterIP, NodePort, headless, LoadBalancer and ExternalName', () => {
    assert.deepEqual(
      serviceStrategy.table.columns.map((c) => `${c.name}:${c.priority}`),
      ['Name:0', 'Type:0', 'Cluster-IP:0', 'External-IP:0', 'Port(s):0', 'Age:0', 'Selector:1'],
    );
    const row = (spec: Service['spec'], status?: Service['status']): unknown[] =>
      serviceStrategy.table.row({ metadata: { name: 's', creationTimestamp: '2025-01-01T00:00:00Z' }, spec, ...(status ? { status } : {}) }, T).cells;
    assert.deepEqual(row({ type: 'NodePort', clusterIP: '10.96.0.5', ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }, { port: 53, protocol: 'UDP' }], selector: { app: 'a', tier: 'b' } }), [
      's', 'NodePort', '10.96.0.5', '<none>', '80:30080/TCP,53/UDP', '0s', 'app=a,tier=b',
    ]);
    assert.deepEqual(row({ type: 'ClusterIP', clusterIP: 'None' }), ['s', 'ClusterIP', 'None', '<none>', '<none>', '0s', '<none>']);
    assert.deepEqual(row({ type: 'LoadBalancer', clusterIP: '10.96.0.6', ports: [] }).slice(3, 4), ['<pending>']);
    assert.deepEqual(row({ type: 'LoadBalancer', clusterIP: '10.96.0.6' }, { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } }).slice(3, 4), ['1.2.3.4']);
    assert.deepEqual(row({ type: 'ExternalName', externalName: 'example.com' }).slice(2, 4), ['<none>', 'example.com']);
  });
});

describe('serviceaccounts, endpoints, endpointslices', () => {
  test('serviceaccount table counts secrets', () => {
    assert.deepEqual(serviceAccountStrategy.table.row({ metadata: { name: 'sa' }, secrets: [{ name: 'x' }] }, T).cells, ['sa', 1, '<unknown>']);
  });

  test('endpoints: defaults, validation and the ENDPOINTS cell (first 3, then + N more...)', () => {
    const ep: Endpoints = { subsets: [{ addresses: ['10.0.0.1', '10.0.0.2'].map((ip) => ({ ip })), ports: [{ port: 80 }, { port: 443, name: 'https' }] }] };
    endpointsStrategy.defaults(ep);
    assert.equal(ep.subsets?.[0]?.ports?.[0]?.protocol, 'TCP');
    assert.deepEqual(msgs(endpointsStrategy.validate(ep)), ['subsets[0].ports[0].name: Required value']);
    assert.equal(formatEndpoints(ep), '10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more...');
    assert.equal(formatEndpoints({ subsets: [{ addresses: [{ ip: '10.0.0.9' }] }] }), '10.0.0.9');
    assert.equal(formatEndpoints({}), '<none>');
    assert.deepEqual(msgs(endpointsStrategy.validate({ subsets: [{ addresses: [{ ip: 'x' }] }] })), ['subsets[0].addresses[0].ip: Invalid value: "x": must be a valid IP address']);
  });

  test('endpointslices: defaults, validation, immutable addressType and the table', () => {
    const slice: EndpointSlice = { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }, { addresses: [] }], ports: [{ port: 80 }] };
    endpointSliceStrategy.defaults(slice);
    assert.deepEqual(slice.ports, [{ port: 80, name: '', protocol: 'TCP' }]);
    assert.deepEqual(msgs(validateEndpointSlice(slice)), ['endpoints[1].addresses: Required value: must contain at least 1 address']);
    assert.deepEqual(msgs(endpointSliceStrategy.validateUpdate({ ...slice, addressType: 'FQDN', endpoints: [] }, slice)), ['addressType: Invalid value: "FQDN": field is immutable']);
    const many: EndpointSlice = { addressType: 'IPv4', endpoints: ['1', '2', '3', '4'].map((n) => ({ addresses: [`10.0.0.${n}`] })), ports: [{ port: 80 }, { name: 'x' }] };
    assert.deepEqual(endpointSliceStrategy.table.row({ ...many, metadata: { name: 'e' } }, T).cells, ['e', 'IPv4', '80,x', '10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...', '<unknown>']);
    assert.deepEqual(endpointSliceStrategy.table.row({ addressType: 'IPv4', endpoints: [], metadata: { name: 'e' } }, T).cells.slice(2, 4), ['<unset>', '<unset>']);
  });
});

/** A server with namespaces and services (the real strategies) on `backend`. */
function serviceServer(backend = new MemoryBackend(), seed = 7): Promise<TestServer> {
  const strategies = [namespaceStrategy, serviceStrategy].map((s) => s as unknown as ResourceStrategy);
  return newTestServer({ backend, strategies, rand: new SeededRand(seed) });
}

const svcReq = (t: TestServer, verb: 'create' | 'get' | 'update' | 'delete' | 'list', extra: { name?: string; body?: KubeObject; query?: Record<string, string> } = {}) =>
  t.server.handle({ group: '', version: 'v1', resource: 'services', namespace: 'default', verb, ...extra });

function svc(name: string, spec: Service['spec']): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec };
}

describe('service allocation (through the API server)', () => {
  test('the kubernetes service holds the first address; new services get distinct addresses from the upper band', async () => {
    const t = await serviceServer();
    const k8s = obj(await svcReq(t, 'get', { name: 'kubernetes' })) as Service;
    assert.equal(k8s.spec?.clusterIP, '10.96.0.1');
    assert.deepEqual(k8s.spec?.ports, [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }]);
    const ips = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const s = obj(await svcReq(t, 'create', { body: svc(`s${i}`, { ports: [{ port: 80 }], selector: { app: 'x' } }) })) as Service;
      assert.deepEqual(s.spec?.clusterIPs, [s.spec?.clusterIP]);
      assert.deepEqual([s.spec?.ipFamilies, s.spec?.ipFamilyPolicy], [['IPv4'], 'SingleStack']);
      const n = parseIPv4(s.spec?.clusterIP ?? '') as number;
      // 10.96.0.0/12, above the static band of 256 addresses: 10.96.1.1 … 10.111.255.254.
      assert.ok(n >= (parseIPv4('10.96.1.1') as number) && n <= (parseIPv4('10.111.255.254') as number), formatIPv4(n));
      ips.add(s.spec?.clusterIP ?? '');
    }
    assert.equal(ips.size, 20);
  });

  test('a requested address is taken once; out of range is refused; headless and ExternalName get none', async () => {
    const t = await serviceServer();
    await svcReq(t, 'create', { body: svc('a', { clusterIP: '10.96.0.10', ports: [{ port: 80 }] }) });
    await rejectsWithStatus(
      svcReq(t, 'create', { body: svc('b', { clusterIP: '10.96.0.10', ports: [{ port: 80 }] }) }),
      422,
      'Service "b" is invalid: spec.clusterIPs: Invalid value: ["10.96.0.10"]: failed to allocate IP 10.96.0.10: provided IP is already allocated',
    );
    await rejectsWithStatus(svcReq(t, 'create', { body: svc('c', { clusterIP: '192.168.0.1', ports: [{ port: 80 }] }) }), 422, /not in the valid range. The range of valid IPs is 10.96.0.0\/12/);
    const hl = obj(await svcReq(t, 'create', { body: svc('hl', { clusterIP: 'None' }) })) as Service;
    assert.deepEqual([hl.spec?.clusterIP, hl.spec?.clusterIPs, hl.spec?.ipFamilyPolicy], ['None', ['None'], 'RequireDualStack']);
    const ext = obj(await svcReq(t, 'create', { body: svc('ext', { type: 'ExternalName', externalName: 'example.com' }) })) as Service;
    assert.equal(ext.spec?.clusterIP, undefined);
    // The failed creates released nothing that stays taken: 10.96.0.10 is held by "a" only.
    await svcReq(t, 'delete', { name: 'a' });
    await svcReq(t, 'create', { body: svc('d', { clusterIP: '10.96.0.10', ports: [{ port: 80 }] }) });
  });

  test('node ports: allocated in range, requested ones checked, kept on update without them, freed on delete', async () => {
    const t = await serviceServer();
    const np = obj(await svcReq(t, 'create', { body: svc('np', { type: 'NodePort', ports: [{ port: 80, name: 'a' }, { port: 80, name: 'b', protocol: 'UDP' }] }) })) as Service;
    const [p0, p1] = np.spec?.ports ?? [];
    assert.ok(p0?.nodePort && p0.nodePort >= 30086 && p0.nodePort <= 32767, String(p0?.nodePort));
    assert.equal(p1?.nodePort, p0.nodePort, 'one node port for the same port over two protocols');
    await rejectsWithStatus(
      svcReq(t, 'create', { body: svc('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: p0.nodePort }] }) }),
      422,
      `Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: ${p0.nodePort}: provided port is already allocated`,
    );
    await rejectsWithStatus(svcReq(t, 'create', { body: svc('np3', { type: 'NodePort', ports: [{ port: 80, nodePort: 80 }] }) }), 422, /provided port is not in the valid range. The range of valid ports is 30000-32767/);
    // A replace without clusterIP and nodePorts keeps them (patchAllocatedValues).
    const replaced = obj(await svcReq(t, 'update', { name: 'np', body: svc('np', { type: 'NodePort', ports: [{ port: 80, name: 'a' }, { port: 80, name: 'b', protocol: 'UDP' }] }) })) as Service;
    assert.deepEqual([replaced.spec?.clusterIP, replaced.spec?.ports?.[0]?.nodePort], [np.spec?.clusterIP, p0.nodePort]);
    await svcReq(t, 'delete', { name: 'np' });
    await svcReq(t, 'create', { body: svc('np4', { type: 'NodePort', ports: [{ port: 80, nodePort: p0.nodePort }] }) });
  });

  test('a dry run allocates nothing that stays taken', async () => {
    const t = await serviceServer();
    await svcReq(t, 'create', { body: svc('a', { clusterIP: '10.96.0.20', ports: [{ port: 80 }] }), query: { dryRun: 'All' } });
    await svcReq(t, 'create', { body: svc('b', { clusterIP: '10.96.0.20', ports: [{ port: 80 }] }) });
  });

  test('allocations survive a restart: they are derived from the stored services', async () => {
    const backend = new MemoryBackend();
    const t1 = await serviceServer(backend);
    const a = obj(await svcReq(t1, 'create', { body: svc('a', { type: 'NodePort', ports: [{ port: 80 }] }) })) as Service;
    await t1.server.close();
    const t2 = await serviceServer(backend, 7);
    await rejectsWithStatus(svcReq(t2, 'create', { body: svc('b', { clusterIP: a.spec?.clusterIP ?? '', ports: [{ port: 80 }] }) }), 422, /provided IP is already allocated/);
    await rejectsWithStatus(svcReq(t2, 'create', { body: svc('c', { type: 'NodePort', ports: [{ port: 80, nodePort: a.spec?.ports?.[0]?.nodePort ?? 0 }] }) }), 422, /provided port is already allocated/);
    // Same seed as before the restart: without the stored state it would pick a's address again.
    const b = obj(await svcReq(t2, 'create', { body: svc('d', { type: 'NodePort', ports: [{ port: 80 }] }) })) as Service;
    assert.notEqual(b.spec?.clusterIP, a.spec?.clusterIP);
    assert.notEqual(b.spec?.ports?.[0]?.nodePort, a.spec?.ports?.[0]?.nodePort);
  });
});
