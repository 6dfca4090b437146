import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './harness.js';
import { fakeResources } from './fake-core.js';
import { WIRE_BYTES, WireReader } from '../../api/proto/index.js';

let t: TestServer;
before(async () => {
  t = await startTestServer();
});
after(() => t.server.close());

const AGGREGATED_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

describe('public endpoints', () => {
  test('/version reports 1.33 without authentication', async () => {
    const res = await fetch(`${t.base}/version?timeout=5s`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const body = (await res.json()) as Record<string, string>;
    assert.equal(body['major'], '1');
    assert.equal(body['minor'], '33');
    assert.equal(body['gitVersion'], 'v1.33.0');
    assert.equal(body['platform'], 'linux/amd64');
  });

  for (const path of ['/healthz', '/livez', '/readyz']) {
    test(`${path} answers ok without authentication`, async () => {
      const res = await fetch(t.base + path);
      assert.equal(res.status, 200);
      assert.equal(await res.text(), 'ok');
    });
  }

  test('/readyz?verbose lists the checks', async () => {
    const res = await fetch(`${t.base}/readyz?verbose`);
    assert.equal(await res.text(), '[+]ping ok\nreadyz check passed\n');
  });

  test('POST /version is 405; anonymously 403, as system:public-info-viewer only allows get', async () => {
    assert.equal((await t.fetch('/version', { method: 'POST' })).status, 405);
    const anonymous = await fetch(`${t.base}/version`, { method: 'POST' });
    assert.equal(anonymous.status, 403);
    assert.equal(((await anonymous.json()) as { message: string }).message, 'forbidden: User "system:anonymous" cannot post path "/version"');
  });
});

describe('authentication', () => {
  test('without a token: system:anonymous, whom the bootstrap policy does not let read discovery (403)', async () => {
    const res = await fetch(`${t.base}/api`);
    assert.equal(res.status, 403);
    const body = (await res.json()) as Record<string, unknown>;
    assert.deepEqual([body['kind'], body['reason'], body['code'], body['message']], ['Status', 'Forbidden', 403, 'forbidden: User "system:anonymous" cannot get path "/api"']);
  });

  test('401 Status with a wrong token', async () => {
    const res = await fetch(`${t.base}/api`, { headers: { authorization: 'Bearer nope' } });
    assert.equal(res.status, 401);
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(body['kind'], 'Status');
    assert.equal(body['reason'], 'Unauthorized');
    assert.equal(body['code'], 401);
  });

  test('401 with a wrong token, also on resource URLs', async () => {
    const res = await fetch(`${t.base}/api/v1/namespaces/default/pods`, { headers: { authorization: 'Bearer nope' } });
    assert.equal(res.status, 401);
    assert.equal(t.core.requests.length, 0);
  });

  test('200 with the token', async () => {
    const res = await t.fetch('/api');
    assert.equal(res.status, 200);
  });

  test('no token configured: everything is open', async () => {
    const open = await startTestServer({ token: undefined });
    try {
      const res = await fetch(`${open.base}/apis`);
      assert.equal(res.status, 200);
    } finally {
      await open.server.close();
    }
  });
});

describe('unknown paths and methods', () => {
  for (const path of ['/foo', '/api/v2', '/apis/nogroup', '/apis/apps/v9', '/openapi/v1', '/openapi/v3/apis/nogroup/v1', '/']) {
    test(`404 Status for ${path}`, async () => {
      const res = await t.fetch(path);
      assert.equal(res.status, 404);
      const body = (await res.json()) as Record<string, unknown>;
      assert.equal(body['reason'], 'NotFound');
      assert.equal(body['message'], 'the server could not find the requested resource');
    });
  }

  test('405 for POST on a discovery document', async () => {
    const res = await t.fetch('/apis/apps/v1', { method: 'POST', body: '{}' });
    assert.equal(res.status, 405);
    assert.equal(((await res.json()) as Record<string, unknown>)['reason'], 'MethodNotAllowed');
  });
});

describe('legacy discovery (apiserver.md §2.3)', () => {
  test('GET /api: APIVersions', async () => {
    const body = (await (await t.fetch('/api', { headers: { accept: 'application/json' } })).json()) as Record<string, unknown>;
    assert.deepEqual(body, {
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${t.server.port}` }],
    });
  });

  test('GET /apis: APIGroupList with the preferred version first (autoscaling v2)', async () => {
    const res = await t.fetch('/apis');
    assert.equal(res.headers.get('content-type'), 'application/json');
    const body = (await res.json()) as { kind: string; apiVersion: string; groups: unknown[] };
    assert.equal(body.kind, 'APIGroupList');
    assert.equal(body.apiVersion, 'v1');
    assert.deepEqual(body.groups, [
      { name: 'apps', versions: [{ groupVersion: 'apps/v1', version: 'v1' }], preferredVersion: { groupVersion: 'apps/v1', version: 'v1' } },
      {
        name: 'autoscaling',
        versions: [
          { groupVersion: 'autoscaling/v2', version: 'v2' },
          { groupVersion: 'autoscaling/v1', version: 'v1' },
        ],
        preferredVersion: { groupVersion: 'autoscaling/v2', version: 'v2' },
      },
    ]);
  });

  test('GET /apis/apps: APIGroup', async () => {
    const body = await (await t.fetch('/apis/apps')).json();
    assert.deepEqual(body, {
      kind: 'APIGroup',
      apiVersion: 'v1',
      name: 'apps',
      versions: [{ groupVersion: 'apps/v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
    });
  });

  test('GET /apis/apps/v1: APIResourceList with subresource entries, group/version only when different', async () => {
    const body = await (await t.fetch('/apis/apps/v1')).json();
    assert.deepEqual(body, {
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'apps/v1',
      resources: [
        {
          name: 'deployments',
          singularName: 'deployment',
          namespaced: true,
          kind: 'Deployment',
          verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
          shortNames: ['deploy'],
          categories: ['all'],
        },
        {
          name: 'deployments/scale',
          singularName: '',
          namespaced: true,
          group: 'autoscaling',
          version: 'v1',
          kind: 'Scale',
          verbs: ['get', 'patch', 'update'],
        },
        { name: 'deployments/status', singularName: '', namespaced: true, kind: 'Deployment', verbs: ['get', 'patch', 'update'] },
      ],
    });
  });

  test('GET /api/v1: core resources by name, no empty shortNames/categories, policy/v1 Eviction subresource', async () => {
    const body = (await (await t.fetch('/api/v1')).json()) as { groupVersion: string; resources: Record<string, unknown>[] };
    assert.equal(body.groupVersion, 'v1');
    const names = body.resources.map((r) => r['name']);
    // The fake serves pods before namespaces; discovery lists a version's resources by name, as upstream's installer sorts its paths.
    assert.deepEqual(names, ['namespaces', 'namespaces/finalize', 'namespaces/status', 'pods', 'pods/binding', 'pods/eviction', 'pods/log', 'pods/status']);
    const ns = body.resources.find((r) => r['name'] === 'namespaces');
    assert.equal(ns?.['namespaced'], false);
    assert.equal('categories' in (ns ?? {}), false);
    assert.deepEqual(
      body.resources.find((r) => r['name'] === 'pods/eviction'),
      { name: 'pods/eviction', singularName: '', namespaced: true, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] },
    );
  });
});

describe('aggregated discovery (apiserver.md §2.2)', () => {
  test('GET /apis with the kubectl Accept: apidiscovery.k8s.io/v2 and its Content-Type', async () => {
    const res = await t.fetch('/apis?timeout=32s', { headers: { accept: AGGREGATED_ACCEPT } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    const body = (await res.json()) as { kind: string; apiVersion: string; metadata: object; items: Record<string, unknown>[] };
    assert.equal(body.kind, 'APIGroupDiscoveryList');
    assert.equal(body.apiVersion, 'apidiscovery.k8s.io/v2');
    assert.deepEqual(body.metadata, {});
    assert.deepEqual(body.items[0], {
      metadata: { name: 'apps', creationTimestamp: null },
      versions: [
        {
          version: 'v1',
          resources: [
            {
              resource: 'deployments',
              responseKind: { group: 'apps', version: 'v1', kind: 'Deployment' },
              scope: 'Namespaced',
              singularResource: 'deployment',
              verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
              shortNames: ['deploy'],
              categories: ['all'],
              subresources: [
                { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] },
                { subresource: 'status', responseKind: { group: 'apps', version: 'v1', kind: 'Deployment' }, verbs: ['get', 'patch', 'update'] },
              ],
            },
          ],
          freshness: 'Current',
        },
      ],
    });
    const autoscaling = body.items[1] as { versions: { version: string }[] };
    assert.deepEqual(
      autoscaling.versions.map((v) => v.version),
      ['v2', 'v1'],
    );
  });

  test('GET /api aggregated: one item named "" with the core group; Cluster scope for namespaces', async () => {
    const res = await t.fetch('/api', { headers: { accept: AGGREGATED_ACCEPT } });
    const body = (await res.json()) as { items: { metadata: { name: string }; versions: { resources: Record<string, unknown>[] }[] }[] };
    assert.equal(body.items.length, 1);
    assert.equal(body.items[0]?.metadata.name, '');
    const ns = body.items[0]?.versions[0]?.resources.find((r) => r['resource'] === 'namespaces');
    assert.equal(ns?.['scope'], 'Cluster');
  });

  test('v2beta1 when only that is acceptable', async () => {
    const res = await t.fetch('/apis', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList' } });
    assert.equal(res.headers.get('content-type'), 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList');
    assert.equal(((await res.json()) as { apiVersion: string }).apiVersion, 'apidiscovery.k8s.io/v2beta1');
  });

  test('plain JSON first in the Accept: legacy shape', async () => {
    const res = await t.fetch('/apis', { headers: { accept: `application/json, ${AGGREGATED_ACCEPT}` } });
    assert.equal(((await res.json()) as { kind: string }).kind, 'APIGroupList');
  });
});

describe('OpenAPI v3 (apiserver.md §4)', () => {
  test('root lists every group/version with a hashed serverRelativeURL', async () => {
    const res = await t.fetch('/openapi/v3');
    assert.equal(res.status, 200);
    const body = (await res.json()) as { paths: Record<string, { serverRelativeURL: string }> };
    assert.deepEqual(Object.keys(body.paths), ['api/v1', 'apis/apps/v1', 'apis/autoscaling/v2', 'apis/autoscaling/v1']);
    assert.match(body.paths['apis/apps/v1']?.serverRelativeURL ?? '', /^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{128}$/);
  });

  test('a group/version document has patch operations with fieldValidation and the GVK', async () => {
    const root = (await (await t.fetch('/openapi/v3')).json()) as { paths: Record<string, { serverRelativeURL: string }> };
    const res = await t.fetch(root.paths['apis/apps/v1']?.serverRelativeURL ?? '');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('cache-control') ?? '', /immutable/);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, Record<string, unknown>>> };
    assert.equal(doc.openapi, '3.0.0');
    const patch = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']?.['patch'];
    assert.ok(patch);
    assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: 'apps', version: 'v1', kind: 'Deployment' });
    assert.equal(patch['x-kubernetes-action'], 'patch');
    assert.ok((patch['parameters'] as { name: string }[]).some((p) => p.name === 'fieldValidation'));
    const scalePatch = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale']?.['patch'];
    assert.deepEqual(scalePatch?.['x-kubernetes-group-version-kind'], { group: 'autoscaling', version: 'v1', kind: 'Scale' });
    assert.equal(doc.paths['/apis/apps/v1/deployments']?.['get']?.['x-kubernetes-action'], 'list');
    assert.equal(doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments']?.['post']?.['x-kubernetes-action'], 'post');
  });

  test('schemas: root GVK, allOf $refs, patch strategy and merge key, scalars (inline from a source that does not name them)', async () => {
    const doc = (await (await t.fetch('/openapi/v3/apis/apps/v1')).json()) as { components: { schemas: Record<string, Record<string, unknown>> } };
    const schemas = doc.components.schemas;
    const deployment = schemas['io.k8s.api.apps.v1.Deployment'];
    assert.deepEqual(deployment?.['x-kubernetes-group-version-kind'], [{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
    const props = deployment?.['properties'] as Record<string, unknown>;
    assert.deepEqual(props['spec'], { allOf: [{ $ref: '#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec' }], default: {} });
    const spec = schemas['io.k8s.api.apps.v1.DeploymentSpec']?.['properties'] as Record<string, unknown>;
    assert.deepEqual(spec['replicas'], { type: 'integer', format: 'int32' });
    const podSpec = schemas['io.k8s.api.core.v1.PodSpec']?.['properties'] as Record<string, unknown>;
    assert.deepEqual(podSpec['containers'], {
      type: 'array',
      items: { allOf: [{ $ref: '#/components/schemas/io.k8s.api.core.v1.Container' }], default: {} },
      'x-kubernetes-patch-strategy': 'merge',
      'x-kubernetes-patch-merge-key': 'name',
    });
    assert.deepEqual(podSpec['nodeSelector'], { type: 'object', additionalProperties: { type: 'string' } });
    const container = schemas['io.k8s.api.core.v1.Container']?.['properties'] as Record<string, unknown>;
    assert.deepEqual(container['resources'], { type: 'object', additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }] } });
    const meta = schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']?.['properties'] as Record<string, unknown>;
    assert.deepEqual(meta['creationTimestamp'], { type: 'string', format: 'date-time' });
    assert.equal(schemas['io.k8s.api.apps.v1.DeploymentSpec']?.['x-kubernetes-group-version-kind'], undefined);
  });

  test('a stale hash redirects to the current one; If-None-Match gives 304', async () => {
    const stale = await t.fetch('/openapi/v3/api/v1?hash=OLD', { redirect: 'manual' });
    assert.equal(stale.status, 301);
    const location = stale.headers.get('location') ?? '';
    assert.match(location, /^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]+$/);
    const fresh = await t.fetch(location);
    const etag = fresh.headers.get('etag') ?? '';
    assert.equal(etag, `"${location.split('=')[1]}"`);
    const again = await t.fetch(location, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
  });

  test('the hash changes when the served resources change, and only then', async () => {
    const urlOf = async (): Promise<string> =>
      ((await (await t.fetch('/openapi/v3')).json()) as { paths: Record<string, { serverRelativeURL: string }> }).paths['api/v1']?.serverRelativeURL ?? '';
    const first = await urlOf();
    t.core.setResources(fakeResources());
    assert.equal(await urlOf(), first);
    const changed = fakeResources();
    changed[0]?.info.verbs.splice(0, 1);
    t.core.setResources(changed);
    assert.notEqual(await urlOf(), first);
    t.core.setResources(fakeResources());
  });
});

describe('OpenAPI v3 with the built-in schema (src/api/schema)', () => {
  test('Deployment schema with its GVK, int-or-string and free-form fields', async () => {
    const real = await startTestServer({ schema: undefined });
    try {
      const doc = (await (await real.fetch('/openapi/v3/apis/apps/v1')).json()) as { components: { schemas: Record<string, { properties?: Record<string, unknown>; [k: string]: unknown }> } };
      const schemas = doc.components.schemas;
      const root = Object.values(schemas).find((s) =>
        (s['x-kubernetes-group-version-kind'] as { kind: string }[] | undefined)?.some((g) => g.kind === 'Deployment'),
      );
      assert.ok(root?.properties?.['spec']);
      // Upstream's descriptions come along (docs.json); the shapes are compared without them.
      const shape = (p: unknown): unknown => {
        const { description, ...rest } = p as { description?: string };
        assert.equal(typeof description, 'string');
        return rest;
      };
      const rolling = Object.entries(schemas).find(([name]) => name.endsWith('RollingUpdateDeployment'))?.[1];
      assert.deepEqual(shape(rolling?.properties?.['maxSurge']), { allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString' }] });
      // Self-encoding types are named definitions, as upstream's (kubectl explain shows `<IntOrString>`).
      assert.deepEqual(shape(schemas['io.k8s.apimachinery.pkg.util.intstr.IntOrString']), { oneOf: [{ type: 'integer' }, { type: 'string' }], format: 'int-or-string' });
      assert.match(String(schemas['io.k8s.apimachinery.pkg.api.resource.Quantity']?.['description']), /^Quantity is a fixed-point representation of a number\./);
      // A string that Go always encodes has the default kube-openapi enforces: its zero value.
      assert.equal((schemas['io.k8s.api.core.v1.Container']?.properties?.['name'] as Record<string, unknown>)['default'], '');
      const managed = Object.entries(schemas).find(([name]) => name.endsWith('ManagedFieldsEntry'))?.[1];
      assert.deepEqual(shape(managed?.properties?.['fieldsV1']), { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
      // What kubectl explain shows: descriptions, required fields, enums; and server-side apply's list types.
      assert.match(String(root?.['description']), /^Deployment enables declarative updates for Pods and ReplicaSets\.$/);
      const podSpec = schemas['io.k8s.api.core.v1.PodSpec'];
      assert.deepEqual(podSpec?.['required'], ['containers']);
      const restartPolicy = podSpec?.properties?.['restartPolicy'] as Record<string, unknown>;
      assert.deepEqual(restartPolicy['enum'], ['Always', 'Never', 'OnFailure']);
      assert.match(String(restartPolicy['description']), /Default to Always\. More info: .*\n\nPossible enum values:\n - `"Always"`/);
      const containers = podSpec?.properties?.['containers'] as Record<string, unknown>;
      assert.equal(containers['x-kubernetes-list-type'], 'map');
      assert.deepEqual(containers['x-kubernetes-list-map-keys'], ['name']);
      assert.equal(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector']?.['x-kubernetes-map-type'], 'atomic');
    } finally {
      await real.server.close();
    }
  });
});

describe('OpenAPI v2 (kube-openapi pkg/handler)', () => {
  /** The length-delimited fields of a protobuf message, by number, as text or bytes. */
  const fields = (buf: Uint8Array): Map<number, Uint8Array[]> => {
    const r = new WireReader(buf);
    const out = new Map<number, Uint8Array[]>();
    while (!r.eof()) {
      const [no, wt] = r.key();
      if (wt !== WIRE_BYTES) {
        r.skip(wt);
        continue;
      }
      out.set(no, [...(out.get(no) ?? []), r.bytes()]);
    }
    return out;
  };
  const text = (b: Uint8Array | undefined): string => Buffer.from(b ?? []).toString('utf8');
  let real: TestServer;
  before(async () => {
    real = await startTestServer({ schema: undefined });
  });
  after(() => real.server.close());

  test('JSON: every served path and the definitions, refs to #/definitions, upstream names and descriptions', async () => {
    const res = await real.fetch('/openapi/v2', { headers: { accept: 'application/json' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('vary'), 'Accept');
    const doc = (await res.json()) as { swagger: string; paths: Record<string, Record<string, Record<string, unknown>>>; definitions: Record<string, Record<string, unknown>> };
    assert.equal(doc.swagger, '2.0');
    const patch = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']?.['patch'];
    assert.deepEqual(patch?.['x-kubernetes-group-version-kind'], { group: 'apps', version: 'v1', kind: 'Deployment' });
    assert.ok((patch?.['consumes'] as string[]).includes('application/strategic-merge-patch+json'));
    const params = patch?.['parameters'] as Record<string, unknown>[];
    assert.deepEqual(params[0], { name: 'body', in: 'body', required: true, schema: { type: 'object' } });
    assert.ok(params.some((p) => p['name'] === 'fieldValidation' && p['type'] === 'string'));
    const get = doc.paths['/api/v1/namespaces/{namespace}/pods/{name}']?.['get'];
    assert.deepEqual((get?.['responses'] as Record<string, unknown>)['200'], { description: 'OK', schema: { $ref: '#/definitions/io.k8s.api.core.v1.Pod' } });
    const deployment = doc.definitions['io.k8s.api.apps.v1.Deployment'];
    assert.equal(deployment?.['description'], 'Deployment enables declarative updates for Pods and ReplicaSets.');
    assert.deepEqual((deployment?.['properties'] as Record<string, unknown>)['spec'], {
      $ref: '#/definitions/io.k8s.api.apps.v1.DeploymentSpec',
      description: 'Specification of the desired behavior of the Deployment.',
    });
    const containers = (doc.definitions['io.k8s.api.core.v1.PodSpec']?.['properties'] as Record<string, Record<string, unknown>>)['containers'];
    assert.deepEqual(containers?.['items'], { $ref: '#/definitions/io.k8s.api.core.v1.Container' });
    assert.equal(containers?.['x-kubernetes-patch-merge-key'], 'name');
    assert.equal(JSON.stringify(doc).includes('#/components/'), false);
    const intOrString = doc.definitions['io.k8s.apimachinery.pkg.util.intstr.IntOrString'];
    assert.deepEqual({ ...intOrString, description: undefined }, { type: 'string', format: 'int-or-string', description: undefined });
    assert.match(String(intOrString?.['description']), /^IntOrString is a type that can hold an int32 or a string\./);
    const etag = res.headers.get('etag') ?? '';
    assert.match(etag, /^"[0-9A-F]{128}"$/);
    assert.equal((await real.fetch('/openapi/v2', { headers: { 'if-none-match': etag } })).status, 304);
  });

  test('protobuf (what kubectl asks for): gnostic openapi_v2.Document; anything else is 406', async () => {
    const res = await real.fetch('/openapi/v2', { headers: { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    const doc = fields(new Uint8Array(await res.arrayBuffer()));
    assert.equal(text(doc.get(1)?.[0]), '2.0');
    // Document.definitions (9) → NamedSchema (1) {name 1, Schema value 2}; Schema description 4, vendor_extension 31.
    const named = [...(fields(doc.get(9)?.[0] ?? new Uint8Array()).get(1) ?? [])].map(fields);
    const deployment = named.find((n) => text(n.get(1)?.[0]) === 'io.k8s.api.apps.v1.Deployment')?.get(2)?.[0];
    assert.ok(deployment);
    const schema = fields(deployment);
    assert.equal(text(schema.get(4)?.[0]), 'Deployment enables declarative updates for Pods and ReplicaSets.');
    const gvk = (schema.get(31) ?? []).map(fields).find((e) => text(e.get(1)?.[0]) === 'x-kubernetes-group-version-kind');
    // Any {yaml 2}: JSON, which is YAML.
    assert.deepEqual(JSON.parse(text(fields(gvk?.get(2)?.[0] ?? new Uint8Array()).get(2)?.[0])), [{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
    assert.equal((await real.fetch('/openapi/v2', { headers: { accept: 'text/html' } })).status, 406);
  });
});

test('OpenAPI component names are upstream definition names', async () => {
  const real = await startTestServer({ schema: undefined });
  try {
    const doc = (await (await real.fetch('/openapi/v3/api/v1')).json()) as { components: { schemas: Record<string, unknown> } };
    const names = Object.keys(doc.components.schemas);
    assert.ok(names.includes('io.k8s.api.core.v1.Pod'));
    // The pods/eviction body, a policy/v1 kind in the core document.
    assert.ok(names.includes('io.k8s.api.policy.v1.Eviction'));
    assert.ok(names.includes('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'));
    assert.deepEqual(names.filter((n) => !n.startsWith('io.k8s.')), []);
  } finally {
    await real.server.close();
  }
});
