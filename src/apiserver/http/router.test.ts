import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newNotFound, newInvalid, field } from '../../machinery/errors/index.js';
import type { RestRequest } from '../../api/request.js';
import { PROTOBUF_MAGIC, WireWriter } from '../../api/proto/index.js';
import { startTestServer, type TestServer } from './harness.js';

let t: TestServer;
before(async () => {
  t = await startTestServer();
});
after(() => t.server.close());
beforeEach(() => {
  t.core.requests.length = 0;
  t.core.onHandle = (req) => ({ code: 200, body: { echo: req }, warnings: [] });
  t.logs.length = 0;
});

const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

/** The RestRequest the core received for one HTTP request. */
async function sent(path: string, init: RequestInit = {}): Promise<RestRequest> {
  const res = await t.fetch(path, init);
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal(t.core.requests.length, 1);
  return t.core.requests[0] as RestRequest;
}

async function status(res: Response): Promise<Record<string, unknown>> {
  const body = (await res.json()) as Record<string, unknown>;
  assert.equal(body['kind'], 'Status');
  return body;
}

describe('resource URLs → RestRequest (apiserver.md §6.1)', () => {
  test('GET namespaced collection: list with the query copied and the User-Agent', async () => {
    const rr = await sent('/api/v1/namespaces/default/pods?limit=500&labelSelector=app%3Dweb', { headers: { 'user-agent': 'kubectl/v1.33.0' } });
    assert.deepEqual(rr, {
      verb: 'list',
      group: '',
      version: 'v1',
      resource: 'pods',
      namespace: 'default',
      query: { limit: '500', labelSelector: 'app=web' },
      userAgent: 'kubectl/v1.33.0',
      // The bearer token's user, as the server authenticated it.
      user: { username: 'kubeplane-admin', groups: ['system:masters', 'system:authenticated'] },
    });
  });

  test('GET all namespaces: list without namespace', async () => {
    const rr = await sent('/apis/apps/v1/deployments');
    assert.equal(rr.verb, 'list');
    assert.equal(rr.group, 'apps');
    assert.equal(rr.namespace, undefined);
  });

  test('GET named object: get', async () => {
    const rr = await sent('/apis/apps/v1/namespaces/ns1/deployments/web');
    assert.deepEqual([rr.verb, rr.namespace, rr.name, rr.subresource], ['get', 'ns1', 'web', undefined]);
  });

  test('namespaces/<name> is the Namespace; namespaces/<name>/status and /finalize its subresources', async () => {
    let rr = await sent('/api/v1/namespaces/kube-system');
    assert.deepEqual([rr.resource, rr.name, rr.namespace], ['namespaces', 'kube-system', undefined]);
    t.core.requests.length = 0;
    rr = await sent('/api/v1/namespaces/kube-system/status');
    assert.deepEqual([rr.resource, rr.name, rr.subresource, rr.verb], ['namespaces', 'kube-system', 'status', 'get']);
    t.core.requests.length = 0;
    rr = await sent('/api/v1/namespaces/x/finalize', { method: 'PUT', body: '{"kind":"Namespace"}' });
    assert.deepEqual([rr.subresource, rr.verb], ['finalize', 'update']);
  });

  test('POST creates with the decoded JSON body', async () => {
    const body = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } };
    const rr = await sent('/apis/apps/v1/namespaces/default/deployments?fieldManager=kubectl-create&fieldValidation=Strict', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(rr.verb, 'create');
    assert.deepEqual(rr.body, body);
    assert.deepEqual(rr.query, { fieldManager: 'kubectl-create', fieldValidation: 'Strict' });
  });

  test('POST accepts YAML; a missing Content-Type means JSON', async () => {
    let rr = await sent('/api/v1/namespaces/default/pods', {
      method: 'POST',
      headers: { 'content-type': 'application/yaml' },
      body: 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n',
    });
    assert.deepEqual(rr.body, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } });
    t.core.requests.length = 0;
    const res = await fetch(`${t.base}/api/v1/namespaces/default/pods`, {
      method: 'POST',
      headers: { authorization: 'Bearer secret-token' },
      body: new Uint8Array(Buffer.from('{"kind":"Pod"}')),
    });
    assert.equal(res.status, 200);
    rr = t.core.requests[0] as RestRequest;
    assert.deepEqual(rr.body, { kind: 'Pod' });
  });

  test('PUT updates', async () => {
    const rr = await sent('/api/v1/namespaces/default/pods/p', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"kind":"Pod"}' });
    assert.deepEqual([rr.verb, rr.name], ['update', 'p']);
  });

  for (const patchType of [
    'application/json-patch+json',
    'application/merge-patch+json',
    'application/strategic-merge-patch+json',
    'application/apply-patch+yaml',
  ]) {
    test(`PATCH with ${patchType} (charset ignored)`, async () => {
      const body = patchType === 'application/json-patch+json' ? '[{"op":"replace","path":"/spec/replicas","value":3}]' : '{"spec":{"replicas":3}}';
      const rr = await sent('/apis/apps/v1/namespaces/default/deployments/web', {
        method: 'PATCH',
        headers: { 'content-type': `${patchType}; charset=utf-8` },
        body,
      });
      assert.equal(rr.verb, 'patch');
      assert.equal(rr.patchType, patchType);
      assert.deepEqual(rr.body, JSON.parse(body));
    });
  }

  test('apply patch in YAML', async () => {
    const rr = await sent('/apis/apps/v1/namespaces/default/deployments/web?fieldManager=me&force=true', {
      method: 'PATCH',
      headers: { 'content-type': 'application/apply-patch+yaml' },
      body: 'spec:\n  replicas: 2\n',
    });
    assert.deepEqual(rr.body, { spec: { replicas: 2 } });
    assert.deepEqual(rr.query, { fieldManager: 'me', force: 'true' });
  });

  test('subresources: scale GET and PATCH, eviction POST', async () => {
    let rr = await sent('/apis/apps/v1/namespaces/default/deployments/web/scale');
    assert.deepEqual([rr.verb, rr.name, rr.subresource], ['get', 'web', 'scale']);
    t.core.requests.length = 0;
    rr = await sent('/apis/apps/v1/namespaces/default/deployments/web/scale', {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: '{"spec":{"replicas":5}}',
    });
    assert.deepEqual([rr.verb, rr.subresource, rr.patchType], ['patch', 'scale', 'application/merge-patch+json']);
    t.core.requests.length = 0;
    rr = await sent('/api/v1/namespaces/default/pods/p/eviction', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"kind":"Eviction","apiVersion":"policy/v1","metadata":{"name":"p"}}',
    });
    assert.deepEqual([rr.verb, rr.subresource], ['create', 'eviction']);
  });

  test('DELETE with a DeleteOptions body', async () => {
    const rr = await sent('/apis/apps/v1/namespaces/default/deployments/web', {
      method: 'DELETE',
      headers: { 'content-type': 'application/json' },
      body: '{"propagationPolicy":"Background"}',
    });
    assert.equal(rr.verb, 'delete');
    assert.deepEqual(rr.body, { propagationPolicy: 'Background' });
  });

  test('DELETE without a body: DeleteOptions from the query', async () => {
    const rr = await sent('/api/v1/namespaces/default/pods/p?gracePeriodSeconds=0&propagationPolicy=Foreground&dryRun=All');
    assert.equal(rr.verb, 'get');
    t.core.requests.length = 0;
    const del = await sent('/api/v1/namespaces/default/pods/p?gracePeriodSeconds=0&propagationPolicy=Foreground&dryRun=All', { method: 'DELETE' });
    assert.deepEqual(del.body, { gracePeriodSeconds: 0, propagationPolicy: 'Foreground', dryRun: ['All'] });
  });

  test('DELETE on a collection: deletecollection', async () => {
    const rr = await sent('/api/v1/namespaces/default/pods?labelSelector=app%3Dweb', { method: 'DELETE' });
    assert.equal(rr.verb, 'deletecollection');
    assert.deepEqual(rr.body, {});
  });

  test('URL-encoded names are decoded', async () => {
    const rr = await sent('/api/v1/namespaces/default/pods/a%3Ab');
    assert.equal(rr.name, 'a:b');
  });
});

describe('404 and 405 on resource URLs', () => {
  for (const path of [
    '/api/v1/widgets',
    '/apis/apps/v2/deployments',
    '/api/v1/pods/p', // namespaced resource named without a namespace
    '/api/v1/namespaces/default/namespaces', // cluster-scoped resource under a namespace
    '/api/v1/namespaces/default/pods/p/nosuchsub',
    '/api/v1/namespaces/default/pods/p/status/extra',
  ]) {
    test(`404 for ${path}`, async () => {
      const res = await t.fetch(path);
      assert.equal(res.status, 404);
      assert.equal((await status(res))['reason'], 'NotFound');
      assert.equal(t.core.requests.length, 0);
    });
  }

  for (const [method, path] of [
    ['PUT', '/api/v1/namespaces/default/pods'],
    ['POST', '/api/v1/namespaces/default/pods/p'],
    ['POST', '/api/v1/pods'],
    ['DELETE', '/api/v1/namespaces'], // namespaces have no deletecollection
    ['DELETE', '/apis/apps/v1/namespaces/default/deployments/web/scale'],
    ['OPTIONS', '/api/v1/namespaces/default/pods'],
  ] as const) {
    test(`405 for ${method} ${path}`, async () => {
      const res = await t.fetch(path, { method, body: method === 'PUT' || method === 'POST' ? '{}' : undefined });
      assert.equal(res.status, 405);
      const body = await status(res);
      assert.equal(body['reason'], 'MethodNotAllowed');
      assert.equal(body['code'], 405);
    });
  }
});

describe('request bodies', () => {
  test('415 for an undecodable type on create, listing the accepted types', async () => {
    const res = await t.fetch('/api/v1/namespaces', {
      method: 'POST',
      headers: { 'content-type': 'application/cbor' },
      body: new Uint8Array([0xa0]),
    });
    assert.equal(res.status, 415);
    const body = await status(res);
    assert.equal(body['reason'], 'UnsupportedMediaType');
    assert.equal(
      body['message'],
      'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    );
  });

  test('protobuf bodies are decoded to the JSON object (create, subresources, DeleteOptions)', async () => {
    const pb = (apiVersion: string, kind: string, raw: WireWriter): Uint8Array =>
      Uint8Array.from([...PROTOBUF_MAGIC, ...new WireWriter().bytes(1, new WireWriter().bytes(1, apiVersion).bytes(2, kind)).bytes(2, raw).finish()]);
    const headers = { 'content-type': 'application/vnd.kubernetes.protobuf', accept: 'application/vnd.kubernetes.protobuf,application/json' };
    const before = t.core.requests.length;
    const ns = await t.fetch('/api/v1/namespaces', { method: 'POST', headers, body: pb('v1', 'Namespace', new WireWriter().bytes(1, new WireWriter().bytes(1, 'team-a'))) });
    assert.equal(ns.status, 200); // the fake core answers 200 to everything
    assert.match(ns.headers.get('content-type') ?? '', /^application\/json/);
    const scale = await t.fetch('/apis/apps/v1/namespaces/default/deployments/web/scale', {
      method: 'PUT',
      headers,
      body: pb('autoscaling/v1', 'Scale', new WireWriter().bytes(1, new WireWriter().bytes(1, 'web')).bytes(2, new WireWriter().int(1, 0))),
    });
    assert.equal(scale.status, 200);
    const del = await t.fetch('/api/v1/namespaces/default/pods/p', { method: 'DELETE', headers, body: pb('v1', 'DeleteOptions', new WireWriter().int(1, 0)) });
    assert.equal(del.status, 200);
    const bodies = t.core.requests.slice(before).map((r) => r.body);
    assert.deepEqual(bodies, [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } },
      // ScaleSpec.replicas is a non-pointer int32 with omitempty: Go's JSON of 0 is `spec: {}` as well.
      { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web' }, spec: {} },
      { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 },
    ]);
  });

  for (const [name, body, message] of [
    ['a truncated body', Uint8Array.from([0x6b, 0x38, 0x73, 0x00, 0x0a, 0x0f, 0x0a, 0x02, 0x76, 0x31, 0x12, 0x09, 0x4e, 0x61]), 'the object provided is unrecognized (must be of type Namespace): unexpected EOF (6b3873000a0f0a02763112094e61)'],
    ['JSON sent as protobuf', new TextEncoder().encode('{"kind":"Namespace"}'), 'the object provided is unrecognized (must be of type Namespace): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] ({"kind":"Namespace"})'],
    ['an unknown kind', Uint8Array.from([...PROTOBUF_MAGIC, ...new WireWriter().bytes(1, new WireWriter().bytes(1, 'v1').bytes(2, 'Gizmo')).bytes(2, new Uint8Array()).finish()]), 'Gizmo in version "v1" cannot be handled as a Namespace: no kind "Gizmo" is registered for version "v1" in scheme "pkg/api/legacyscheme/scheme.go:30"'],
    ['a wrong wire type inside raw', Uint8Array.from([...PROTOBUF_MAGIC, ...new WireWriter().bytes(1, new WireWriter().bytes(1, 'v1').bytes(2, 'Namespace')).bytes(2, new WireWriter().int(1, 1)).finish()]), 'Namespace in version "v1" cannot be handled as a Namespace: proto: wrong wireType = 0 for field metadata in Namespace'],
  ] as const) {
    test(`400 for ${name}; nothing reaches the core`, async () => {
      const before = t.core.requests.length;
      const res = await t.fetch('/api/v1/namespaces', { method: 'POST', headers: { 'content-type': 'application/vnd.kubernetes.protobuf' }, body });
      assert.equal(res.status, 400);
      const st = await status(res);
      assert.equal(st['reason'], 'BadRequest');
      assert.equal(st['message'], message);
      assert.equal(t.core.requests.length, before);
    });
  }

  test('a protobuf-only Accept is served for built-in kinds (custom resources answer 406: protobuf.test.ts)', async () => {
    t.core.onHandle = () => ({ code: 200, body: { apiVersion: 'v1', kind: 'NamespaceList', metadata: {}, items: [] }, warnings: [] });
    const res = await t.fetch('/api/v1/namespaces', { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/vnd.kubernetes.protobuf');
    assert.deepEqual(Buffer.from(await res.arrayBuffer()).subarray(0, 4), Buffer.from(PROTOBUF_MAGIC));
  });

  test('415 for PATCH with a non-patch Content-Type', async () => {
    const res = await t.fetch('/api/v1/namespaces/default/pods/p', { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(res.status, 415);
    assert.equal(
      (await status(res))['message'],
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
    );
  });

  test('413 above the body limit (Content-Length declared)', async () => {
    const res = await t.fetch('/api/v1/namespaces/default/pods', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'Pod', data: 'x'.repeat(3 * 1024 * 1024) }),
    });
    assert.equal(res.status, 413);
    const body = await status(res);
    assert.equal(body['reason'], 'RequestEntityTooLarge');
    assert.equal(body['message'], 'Request entity too large: limit is 3145728');
    assert.equal(t.core.requests.length, 0);
  });

  test('413 for a chunked upload that grows past the limit', async () => {
    const small = await startTestServer({ maxRequestBodyBytes: 1024 });
    try {
      const chunks = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 8; i++) controller.enqueue(new Uint8Array(Buffer.from('x'.repeat(512))));
          controller.close();
        },
      });
      // A streamed body has no Content-Length, so only the byte count can trip the limit.
      const init: RequestInit & { duplex: 'half' } = { method: 'POST', headers: { 'content-type': 'application/json' }, body: chunks, duplex: 'half' };
      const res = await small.fetch('/api/v1/namespaces/default/pods', init);
      assert.equal(res.status, 413);
      assert.equal((await status(res))['message'], 'Request entity too large: limit is 1024');
    } finally {
      await small.server.close();
    }
  });

  test('malformed JSON on create: 400 BadRequest in upstream words', async () => {
    const res = await t.fetch('/apis/apps/v1/namespaces/default/deployments', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"kind": "Deployment", oops',
    });
    assert.equal(res.status, 400);
    const body = await status(res);
    assert.equal(body['reason'], 'BadRequest');
    assert.match(
      body['message'] as string,
      /^the object provided is unrecognized \(must be of type Deployment\): couldn't get version\/kind; json parse error: .+ \(\{"kind": "Deployment", oops\)$/,
    );
  });

  test('empty body on create: Go-like `unexpected end of JSON input (<empty>)`', async () => {
    const res = await t.fetch('/api/v1/namespaces/default/pods', { method: 'POST', headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 400);
    assert.equal(
      (await status(res))['message'],
      "the object provided is unrecognized (must be of type Pod): couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)",
    );
  });

  test('a JSON array on create is rejected, summarized as hex', async () => {
    const res = await t.fetch('/api/v1/namespaces/default/pods', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[]' });
    assert.equal(res.status, 400);
    assert.match((await status(res))['message'] as string, /cannot unmarshal array into an object \(5b5d\)$/);
  });

  test('patch bodies: json-patch must be an array, merge patch must be JSON', async () => {
    let res = await t.fetch('/api/v1/namespaces/default/pods/p', {
      method: 'PATCH',
      headers: { 'content-type': 'application/json-patch+json' },
      body: '{"op":"add"}',
    });
    assert.equal(res.status, 400);
    assert.equal((await status(res))['message'], 'json: cannot unmarshal object into Go value of type jsonpatch.Patch');
    res = await t.fetch('/api/v1/namespaces/default/pods/p', { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: '{bad' });
    assert.equal(res.status, 400);
    assert.equal((await status(res))['message'], 'Invalid JSON Patch');
    res = await t.fetch('/api/v1/namespaces/default/pods/p', { method: 'PATCH', headers: { 'content-type': 'application/strategic-merge-patch+json' }, body: '{bad' });
    assert.equal((await status(res))['message'], 'invalid JSON document');
    assert.equal(t.core.requests.length, 0);
  });
});

describe('responses', () => {
  test('the core code and body are written as JSON', async () => {
    t.core.onHandle = () => ({ code: 201, body: { kind: 'Pod', metadata: { name: 'p' } }, warnings: [] });
    const res = await t.fetch('/api/v1/namespaces/default/pods', { method: 'POST', body: '{}' });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.deepEqual(await res.json(), { kind: 'Pod', metadata: { name: 'p' } });
  });

  test('warnings become `Warning: 299 - "<text>"` headers, quotes escaped', async () => {
    t.core.onHandle = () => ({ code: 200, body: {}, warnings: ['unknown field "spec.foo"', 'second'] });
    const res = await t.fetch('/api/v1/namespaces/default/pods/p');
    assert.equal(res.headers.get('warning'), '299 - "unknown field \\"spec.foo\\"", 299 - "second"');
  });

  test('StatusErrors from the core keep their code and body', async () => {
    t.core.onHandle = () => {
      throw newNotFound({ group: 'apps', resource: 'deployments' }, 'web');
    };
    let res = await t.fetch('/apis/apps/v1/namespaces/default/deployments/web');
    assert.equal(res.status, 404);
    assert.equal((await status(res))['message'], 'deployments.apps "web" not found');
    t.core.onHandle = () => {
      throw newInvalid({ group: 'apps', kind: 'Deployment' }, 'web', [field.invalid('spec.replicas', -1, 'must be greater than or equal to 0')]);
    };
    res = await t.fetch('/apis/apps/v1/namespaces/default/deployments/web', { method: 'PUT', body: '{}' });
    assert.equal(res.status, 422);
    assert.equal((await status(res))['reason'], 'Invalid');
  });

  test('unexpected exceptions: 500 InternalError and a log line', async () => {
    t.core.onHandle = () => {
      throw new TypeError('boom');
    };
    const res = await t.fetch('/api/v1/namespaces/default/pods');
    assert.equal(res.status, 500);
    const body = await status(res);
    assert.equal(body['reason'], 'InternalError');
    assert.equal(body['message'], 'Internal error occurred: boom');
    assert.equal(t.logs.length, 1);
    assert.equal(t.logs[0]?.level, 'warn');
  });

  test('string bodies (logs) are text/plain', async () => {
    t.core.onHandle = () => ({ code: 200, body: 'line 1\nline 2\n', warnings: [] });
    const res = await t.fetch('/api/v1/namespaces/default/pods/p');
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    assert.equal(await res.text(), 'line 1\nline 2\n');
  });

  test('delete responses are passed through as the core returns them', async () => {
    const statusBody = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'web', group: 'apps', kind: 'deployments', uid: 'u' } };
    t.core.onHandle = () => ({ code: 200, body: statusBody, warnings: [] });
    const res = await t.fetch('/apis/apps/v1/namespaces/default/deployments/web', { method: 'DELETE', body: '{}', headers: { accept: TABLE_ACCEPT } });
    assert.deepEqual(await res.json(), statusBody);
  });
});

const pods = {
  kind: 'PodList',
  apiVersion: 'v1',
  metadata: { resourceVersion: '109', continue: 'tok', remainingItemCount: 3 },
  items: [
    { metadata: { name: 'a', namespace: 'default', labels: { app: 'web' }, resourceVersion: '100' }, spec: { nodeName: 'node-1' }, status: { phase: 'Running', podIP: '10.0.0.1' } },
    { metadata: { name: 'b', namespace: 'default', resourceVersion: '101' }, spec: {}, status: { phase: 'Succeeded' } },
  ],
};

describe('Table output (apiserver.md §5)', () => {
  test('a list becomes a Table with all columns (priority 1 kept for -o wide), cells, conditions and PartialObjectMetadata', async () => {
    t.core.onHandle = () => ({ code: 200, body: pods, warnings: [] });
    const res = await t.fetch('/api/v1/namespaces/default/pods?limit=500', { headers: { accept: TABLE_ACCEPT } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json;as=Table;v=v1;g=meta.k8s.io');
    const table = (await res.json()) as Record<string, unknown>;
    assert.equal(table['kind'], 'Table');
    assert.equal(table['apiVersion'], 'meta.k8s.io/v1');
    assert.deepEqual(table['metadata'], { resourceVersion: '109', continue: 'tok', remainingItemCount: 3 });
    assert.deepEqual(
      (table['columnDefinitions'] as { name: string; priority: number }[]).map((c) => [c.name, c.priority]),
      [
        ['Name', 0],
        ['Status', 0],
        ['IP', 1],
        ['Node', 1],
      ],
    );
    assert.deepEqual(table['rows'], [
      {
        cells: ['a', 'Running', '10.0.0.1', 'node-1'],
        object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: pods.items[0]?.metadata },
      },
      {
        cells: ['b', 'Succeeded', '<none>', '<none>'],
        conditions: [{ type: 'Completed', status: 'True', reason: 'Succeeded' }],
        object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: pods.items[1]?.metadata },
      },
    ]);
  });

  test('includeObject=Object carries full objects with kind/apiVersion; None carries none', async () => {
    t.core.onHandle = () => ({ code: 200, body: pods, warnings: [] });
    let table = (await (await t.fetch('/api/v1/pods?includeObject=Object', { headers: { accept: TABLE_ACCEPT } })).json()) as { rows: { object?: Record<string, unknown> }[] };
    assert.deepEqual(table.rows[0]?.object, { ...pods.items[0], kind: 'Pod', apiVersion: 'v1' });
    table = (await (await t.fetch('/api/v1/pods?includeObject=None', { headers: { accept: TABLE_ACCEPT } })).json()) as { rows: { object?: Record<string, unknown> }[] };
    assert.equal(table.rows[0]?.object, undefined);
    const bad = await t.fetch('/api/v1/pods?includeObject=All', { headers: { accept: TABLE_ACCEPT } });
    assert.equal(bad.status, 400);
    assert.equal(
      (await status(bad))['message'],
      'Unable to convert to Table as requested: includeObject: Unsupported value: "All": supported values: "Metadata", "None", "Object"',
    );
  });

  test('a single get is a one-row Table with the object resourceVersion; v1beta1 on request', async () => {
    t.core.onHandle = () => ({ code: 200, body: { kind: 'Pod', apiVersion: 'v1', ...pods.items[0] }, warnings: [] });
    const res = await t.fetch('/api/v1/namespaces/default/pods/a', { headers: { accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io' } });
    const table = (await res.json()) as { apiVersion: string; metadata: object; rows: { object: { apiVersion: string } }[] };
    assert.equal(table.apiVersion, 'meta.k8s.io/v1beta1');
    assert.deepEqual(table.metadata, { resourceVersion: '100' });
    assert.equal(table.rows.length, 1);
    assert.equal(table.rows[0]?.object.apiVersion, 'meta.k8s.io/v1beta1');
  });

  test('subresources other than status use the default Name / Created At table', async () => {
    t.core.onHandle = () => ({
      code: 200,
      body: { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'web', creationTimestamp: '2025-01-01T00:00:00Z' }, spec: { replicas: 2 } },
      warnings: [],
    });
    const table = (await (await t.fetch('/apis/apps/v1/namespaces/default/deployments/web/scale', { headers: { accept: TABLE_ACCEPT } })).json()) as {
      columnDefinitions: { name: string }[];
      rows: { cells: unknown[] }[];
    };
    assert.deepEqual(table.columnDefinitions.map((c) => c.name), ['Name', 'Created At']);
    assert.deepEqual(table.rows[0]?.cells, ['web', '2025-01-01T00:00:00Z']);
  });

  test('plain JSON when the Accept lists plain JSON first, or for -o json', async () => {
    t.core.onHandle = () => ({ code: 200, body: pods, warnings: [] });
    const res = await t.fetch('/api/v1/pods', { headers: { accept: 'application/json' } });
    assert.deepEqual(await res.json(), pods);
  });

  test('PartialObjectMetadataList for metadata-only lists', async () => {
    t.core.onHandle = () => ({ code: 200, body: pods, warnings: [] });
    const res = await t.fetch('/api/v1/pods', { headers: { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json' } });
    const list = (await res.json()) as { kind: string; metadata: object; items: { kind: string; metadata: { name: string } }[] };
    assert.equal(list.kind, 'PartialObjectMetadataList');
    assert.deepEqual(list.metadata, { resourceVersion: '109', continue: 'tok', remainingItemCount: 3 });
    assert.deepEqual(list.items.map((i) => [i.kind, i.metadata.name]), [
      ['PartialObjectMetadata', 'a'],
      ['PartialObjectMetadata', 'b'],
    ]);
  });

  test('a Table Accept on a write is ignored (JSON object back)', async () => {
    t.core.onHandle = () => ({ code: 201, body: { kind: 'Pod', metadata: { name: 'p' } }, warnings: [] });
    const res = await t.fetch('/api/v1/namespaces/default/pods', { method: 'POST', body: '{}', headers: { accept: TABLE_ACCEPT } });
    assert.deepEqual(await res.json(), { kind: 'Pod', metadata: { name: 'p' } });
  });
});
