import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { StatusError } from '../machinery/errors/index.js';
import type { KubeList, KubeObject } from '../api/index.js';
import type { Rand } from '../util/random/index.js';
import { SeededRand, SAFE_ALPHABET } from '../util/random/index.js';
import { newTestServer, rejectsWithStatus, type Req, type TestServer } from './testing/fixtures.js';
import { COMPACTION_INTERVAL_MS, DEFAULT_NAMESPACES, type HandleResult } from './index.js';

function widgets(t: TestServer, req: Req): Promise<HandleResult> {
  return t.server.handle({ group: 'example.com', version: 'v1', resource: 'widgets', ...req });
}

function core(t: TestServer, resource: string, req: Req): Promise<HandleResult> {
  return t.server.handle({ group: '', version: 'v1', resource, ...req });
}

function widget(name: string, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec: { replicas: 2 }, ...extra };
}

/** {@link rejectsWithStatus}, also asserting the StatusError's reason. */
async function rejects(p: Promise<unknown>, code: number, reason: string, message?: string | RegExp): Promise<StatusError> {
  const err = await rejectsWithStatus(p, code, message);
  assert.equal(err.reason, reason, err.message);
  return err;
}

const obj = (r: HandleResult): KubeObject => r.body as KubeObject;
const list = (r: HandleResult): KubeList => r.body as KubeList;

describe('ApiServer startup', () => {
  test('creates the default namespaces, Active with the kubernetes finalizer', async () => {
    const t = await newTestServer();
    const names = list(await core(t, 'namespaces', { verb: 'list' })).items.map((n) => n.metadata?.name);
    assert.deepEqual(names.sort(), [...DEFAULT_NAMESPACES].sort());
    const ns = obj(await core(t, 'namespaces', { verb: 'get', name: 'kube-system' }));
    assert.equal((ns.status as { phase: string }).phase, 'Active');
    assert.deepEqual((ns.spec as { finalizers: string[] }).finalizers, ['kubernetes']);
  });

  test('primes the caches from storage on a second server over the same backend', async () => {
    const t = await newTestServer();
    await widgets(t, { verb: 'create', namespace: 'default', body: widget('a') });
    const again = await newTestServer({ backend: t.backend });
    const got = obj(await widgets(again, { verb: 'get', namespace: 'default', name: 'a' }));
    assert.equal(got.metadata?.name, 'a');
    assert.equal(list(await core(again, 'namespaces', { verb: 'list' })).items.length, 4);
  });

  test('unknown resources are 404, unserved verbs 405', async () => {
    const t = await newTestServer();
    await rejects(t.server.handle({ group: 'nope', version: 'v1', resource: 'things', verb: 'list' }), 404, 'NotFound', 'the server could not find the requested resource');
    await rejects(t.server.handle({ group: 'example.com', version: 'v2', resource: 'widgets', verb: 'list' }), 404, 'NotFound');
    await rejects(widgets(t, { verb: 'get', namespace: 'default', name: 'a', subresource: 'nope' }), 404, 'NotFound');
    await rejects(core(t, 'namespaces', { verb: 'deletecollection' }), 405, 'MethodNotAllowed');
    await rejects(core(t, 'configmaps', { verb: 'get', namespace: 'default', name: 'x', subresource: 'scale' }), 404, 'NotFound');
  });

  test('compacts every 5 minutes of clock time, keeping the last 1000 revisions', async () => {
    const t = await newTestServer();
    for (let i = 0; i < 1010; i++) await t.backend.create(`/registry/example.com/widgets/default/w${i}`, JSON.stringify(widget(`w${i}`)));
    await t.clock.stepAsync(COMPACTION_INTERVAL_MS - 1);
    assert.equal(t.backend.compactedRevision(), 0);
    await t.clock.stepAsync(1);
    assert.equal(t.backend.compactedRevision(), t.backend.currentRevision() - 1000);
    await t.server.close();
  });
});

describe('create', () => {
  test('fills uid, creationTimestamp, resourceVersion, generation, kind and namespace', async () => {
    const t = await newTestServer();
    const before = t.server.currentRevision();
    const res = await widgets(t, { verb: 'create', namespace: 'default', body: { metadata: { name: 'a' }, spec: {} } });
    assert.equal(res.code, 201);
    const w = obj(res);
    assert.equal(w.kind, 'Widget');
    assert.equal(w.apiVersion, 'example.com/v1');
    assert.equal(w.metadata?.namespace, 'default');
    assert.match(w.metadata?.uid ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(w.metadata?.creationTimestamp, '2025-01-01T00:00:00Z');
    assert.equal(w.metadata?.resourceVersion, String(before + 1));
    assert.equal(w.metadata?.generation, 1);
    assert.deepEqual(w.spec, { replicas: 1 }, 'defaults applied');
    assert.ok(Object.isFrozen(w) && Object.isFrozen(w.metadata));
    const stored = await t.backend.get('/registry/example.com/widgets/default/a');
    assert.ok(stored);
    assert.equal((JSON.parse(stored.value) as KubeObject).metadata?.resourceVersion, undefined, 'resourceVersion is not stored');
  });

  test('namespace mismatch is 400; existing name 409; resourceVersion set 400 (upstream leaks a 500, ADR 5); invalid 422', async () => {
    const t = await newTestServer();
    await rejects(
      widgets(t, { verb: 'create', namespace: 'default', body: widget('a', { metadata: { name: 'a', namespace: 'kube-system' } }) }),
      400,
      'BadRequest',
      'the namespace of the provided object does not match the namespace sent on the request',
    );
    await widgets(t, { verb: 'create', namespace: 'default', body: widget('a') });
    await rejects(widgets(t, { verb: 'create', namespace: 'default', body: widget('a') }), 409, 'AlreadyExists', 'widgets.example.com "a" already exists');
    await rejects(
      widgets(t, { verb: 'create', namespace: 'default', body: widget('b', { metadata: { name: 'b', resourceVersion: '5' } }) }),
      400,
      'BadRequest',
      'resourceVersion should not be set on objects to be created',
    );
    const err = await rejects(
      widgets(t, { verb: 'create', namespace: 'default', body: widget('Bad_Name', { spec: { replicas: -1 } }) }),
      422,
      'Invalid',
      /^Widget\.example\.com "Bad_Name" is invalid: \[metadata\.name: Invalid value: "Bad_Name": .*, spec\.replicas: Invalid value: -1: must be greater than or equal to 0\]$/,
    );
    assert.deepEqual(err.status.details?.causes?.map((c) => c.field), ['metadata.name', 'spec.replicas']);
  });

  test('the namespace must exist and not be terminating', async () => {
    const t = await newTestServer();
    await rejects(widgets(t, { verb: 'create', namespace: 'nope', body: widget('a') }), 404, 'NotFound', 'namespaces "nope" not found');
    await core(t, 'namespaces', { verb: 'create', body: { metadata: { name: 'doomed' } } });
    await widgets(t, { verb: 'create', namespace: 'doomed', body: widget('a') });
    await core(t, 'namespaces', { verb: 'delete', name: 'doomed' });
    const err = await rejects(
      widgets(t, { verb: 'create', namespace: 'doomed', body: widget('b') }),
      403,
      'Forbidden',
      'widgets.example.com "b" is forbidden: unable to create new content in namespace doomed because it is being terminated',
    );
    assert.deepEqual(err.status.details?.causes, [{ reason: 'NamespaceTerminating', message: 'namespace doomed is being terminated', field: 'metadata.namespace' }]);
  });

  test('a namespace created just before is found (live lookup behind the cache)', async () => {
    const t = await newTestServer();
    const created = core(t, 'namespaces', { verb: 'create', body: { metadata: { name: 'fresh' } } });
    await created;
    const w = await widgets(t, { verb: 'create', namespace: 'fresh', body: widget('a') });
    assert.equal(w.code, 201);
  });

  test('dryRun=All validates and answers but stores nothing', async () => {
    const t = await newTestServer();
    const before = t.server.currentRevision();
    const res = await widgets(t, { verb: 'create', namespace: 'default', body: widget('a'), query: { dryRun: 'All' } });
    assert.equal(obj(res).metadata?.name, 'a');
    assert.equal(obj(res).metadata?.resourceVersion, undefined);
    assert.equal(t.server.currentRevision(), before);
    await rejects(widgets(t, { verb: 'get', namespace: 'default', name: 'a' }), 404, 'NotFound');
    await rejects(widgets(t, { verb: 'create', namespace: 'default', body: widget('a', { spec: { replicas: -1 } }), query: { dryRun: 'All' } }), 422, 'Invalid');
  });

  test('generateName appends 5 random characters and retries on collisions', async () => {
    // A Rand whose int() draws follow a script: the first name collides, the second does not.
    const script = [0, 0, 0, 0, 0, 1, 1, 1, 1, 1];
    const base = new SeededRand(3);
    const rand: Rand = { float: () => base.float(), uuid: () => base.uuid(), int: (n) => (script.length ? (script.shift() as number) : base.int(n)) };
    const t = await newTestServer({ rand });
    const first = SAFE_ALPHABET[0]?.repeat(5) ?? '';
    const second = SAFE_ALPHABET[1]?.repeat(5) ?? '';
    await widgets(t, { verb: 'create', namespace: 'default', body: widget(`w-${first}`) });
    const res = await widgets(t, { verb: 'create', namespace: 'default', body: { metadata: { generateName: 'w-' } } });
    assert.equal(obj(res).metadata?.name, `w-${second}`);
  });

  test('generateName gives up after 8 collisions with 409 AlreadyExists', async () => {
    const rand: Rand = { float: () => 0, int: () => 0, uuid: () => '00000000-0000-4000-8000-000000000000' };
    const t = await newTestServer({ rand });
    await widgets(t, { verb: 'create', namespace: 'default', body: { metadata: { generateName: 'w-' } } });
    await rejects(
      widgets(t, { verb: 'create', namespace: 'default', body: { metadata: { generateName: 'w-' } } }),
      409,
      'AlreadyExists',
      'widgets.example.com "w-bbbbb" already exists, the server was not able to generate a unique name for the object',
    );
  });
});

describe('unknown fields', () => {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' }, spec: { foo: 1 }, bar: true };

  test('Strict rejects with 400 listing every unknown field', async () => {
    const t = await newTestServer();
    await rejects(
      core(t, 'configmaps', { verb: 'create', namespace: 'default', body: cm, query: { fieldValidation: 'Strict' } }),
      400,
      'BadRequest',
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec", unknown field "bar"',
    );
  });

  test('Warn (the default) succeeds with warnings and never stores the fields', async () => {
    const t = await newTestServer();
    const res = await core(t, 'configmaps', { verb: 'create', namespace: 'default', body: cm });
    assert.deepEqual(res.warnings, ['unknown field "spec"', 'unknown field "bar"']);
    assert.equal(obj(res).spec, undefined);
    const stored = await t.backend.get('/registry/core/configmaps/default/c');
    assert.deepEqual(Object.keys(JSON.parse(stored?.value ?? '{}') as object).sort(), ['apiVersion', 'data', 'kind', 'metadata']);
  });

  test('Ignore drops them silently', async () => {
    const t = await newTestServer();
    const res = await core(t, 'configmaps', { verb: 'create', namespace: 'default', body: cm, query: { fieldValidation: 'Ignore' } });
    assert.deepEqual(res.warnings, []);
    assert.equal(obj(res).bar, undefined);
  });

  test('unknown fields in an update are reported the same way', async () => {
    const t = await newTestServer();
    await core(t, 'configmaps', { verb: 'create', namespace: 'default', body: { metadata: { name: 'c' } } });
    const res = await core(t, 'configmaps', { verb: 'update', namespace: 'default', name: 'c', body: { metadata: { name: 'c' }, data: { x: 'y' }, extra: 1 } });
    assert.deepEqual(res.warnings, ['unknown field "extra"']);
    assert.deepEqual(obj(res).data, { x: 'y' });
  });
});

describe('get and list', () => {
  async function seeded(): Promise<TestServer> {
    const t = await newTestServer();
    await core(t, 'namespaces', { verb: 'create', body: { metadata: { name: 'other' } } });
    for (const [ns, name, color, app] of [
      ['default', 'a', 'red', 'web'],
      ['default', 'b', 'blue', 'web'],
      ['default', 'c', 'red', 'db'],
      ['other', 'd', 'red', 'web'],
    ] as const) {
      await widgets(t, { verb: 'create', namespace: ns, body: { metadata: { name, labels: { app } }, spec: { color } } });
    }
    return t;
  }

  test('get returns the shared frozen object; a missing one is 404', async () => {
    const t = await seeded();
    const a1 = obj(await widgets(t, { verb: 'get', namespace: 'default', name: 'a' }));
    const a2 = obj(await widgets(t, { verb: 'get', namespace: 'default', name: 'a', query: { resourceVersion: '0' } }));
    assert.equal(a1, a2);
    assert.ok(Object.isFrozen(a1.spec));
    await rejects(widgets(t, { verb: 'get', namespace: 'default', name: 'zz' }), 404, 'NotFound', 'widgets.example.com "zz" not found');
    await rejects(core(t, 'pods', { verb: 'get', namespace: 'default', name: 'zz' }), 404, 'NotFound', 'pods "zz" not found');
  });

  test('list by namespace and across namespaces, with kind, apiVersion and resourceVersion', async () => {
    const t = await seeded();
    const l = list(await widgets(t, { verb: 'list', namespace: 'default' }));
    assert.equal(l.kind, 'WidgetList');
    assert.equal(l.apiVersion, 'example.com/v1');
    assert.equal(l.metadata.resourceVersion, String(t.server.currentRevision()));
    assert.deepEqual(l.items.map((i) => i.metadata?.name), ['a', 'b', 'c']);
    const all = list(await widgets(t, { verb: 'list' }));
    assert.deepEqual(all.items.map((i) => `${i.metadata?.namespace}/${i.metadata?.name}`), ['default/a', 'default/b', 'default/c', 'other/d']);
  });

  test('label and field selectors; unsupported fields are 400', async () => {
    const t = await seeded();
    const names = async (query: Record<string, string>, namespace?: string): Promise<string[]> =>
      list(await widgets(t, { verb: 'list', query, ...(namespace ? { namespace } : {}) })).items.map((i) => i.metadata?.name ?? '');
    assert.deepEqual(await names({ labelSelector: 'app=web' }), ['a', 'b', 'd']);
    assert.deepEqual(await names({ labelSelector: 'app in (db)' }), ['c']);
    assert.deepEqual(await names({ fieldSelector: 'spec.color=red' }), ['a', 'c', 'd']);
    assert.deepEqual(await names({ fieldSelector: 'spec.color=red,metadata.namespace!=other', labelSelector: 'app' }), ['a', 'c']);
    assert.deepEqual(await names({ fieldSelector: 'metadata.name=b' }, 'default'), ['b']);
    assert.deepEqual(await names({ fieldSelector: 'metadata.name=b', labelSelector: 'app=db' }, 'default'), []);
    await rejects(widgets(t, { verb: 'list', query: { fieldSelector: 'spec.size=3' } }), 400, 'BadRequest', 'field label not supported: spec.size');
    await rejects(widgets(t, { verb: 'list', query: { labelSelector: 'a in (' } }), 400, 'BadRequest');
  });

  test('limit and continue page through one consistent snapshot, even across writes', async () => {
    const t = await seeded();
    const p1 = list(await widgets(t, { verb: 'list', query: { limit: '2' } }));
    assert.deepEqual(p1.items.map((i) => i.metadata?.name), ['a', 'b']);
    assert.equal(p1.metadata.remainingItemCount, 2);
    assert.ok(p1.metadata.continue);
    await widgets(t, { verb: 'delete', namespace: 'default', name: 'c' });
    await widgets(t, { verb: 'create', namespace: 'default', body: widget('bb') });
    const p2 = list(await widgets(t, { verb: 'list', query: { limit: '2', continue: p1.metadata.continue ?? '' } }));
    assert.deepEqual(p2.items.map((i) => i.metadata?.name), ['c', 'd'], 'the snapshot of page 1');
    assert.equal(p2.metadata.resourceVersion, p1.metadata.resourceVersion);
    assert.equal(p2.metadata.continue, undefined);
    const filtered = list(await widgets(t, { verb: 'list', query: { limit: '1', labelSelector: 'app=web' } }));
    assert.equal(filtered.metadata.remainingItemCount, undefined, 'unknown with a selector');
    const f2 = list(await widgets(t, { verb: 'list', query: { limit: '1', labelSelector: 'app=web', continue: filtered.metadata.continue ?? '' } }));
    assert.deepEqual(f2.items.map((i) => i.metadata?.name), ['b']);
  });

  test('a continue token older than compaction is 410 Expired with a fresh token', async () => {
    const t = await seeded();
    const p1 = list(await widgets(t, { verb: 'list', query: { limit: '1' } }));
    await widgets(t, { verb: 'create', namespace: 'default', body: widget('x') });
    await t.backend.compact(t.backend.currentRevision());
    const err = await rejects(widgets(t, { verb: 'list', query: { limit: '1', continue: p1.metadata.continue ?? '' } }), 410, 'Expired', /^The provided continue parameter is too old/);
    const again = list(await widgets(t, { verb: 'list', query: { limit: '10', continue: err.status.metadata.continue ?? '' } }));
    assert.deepEqual(again.items.map((i) => i.metadata?.name), ['b', 'c', 'x', 'd']);
    await rejects(widgets(t, { verb: 'list', query: { continue: 'garbage' } }), 400, 'BadRequest', /^invalid continue token/);
  });

  test('resourceVersion semantics: Exact reads history, too old is 410, future is 504', async () => {
    const t = await seeded();
    const rv = t.server.currentRevision();
    await widgets(t, { verb: 'delete', namespace: 'default', name: 'a' });
    const exact = list(await widgets(t, { verb: 'list', namespace: 'default', query: { resourceVersion: String(rv), resourceVersionMatch: 'Exact' } }));
    assert.deepEqual(exact.items.map((i) => i.metadata?.name), ['a', 'b', 'c']);
    assert.equal(exact.metadata.resourceVersion, String(rv));
    const now = list(await widgets(t, { verb: 'list', namespace: 'default', query: { resourceVersion: String(rv), resourceVersionMatch: 'NotOlderThan' } }));
    assert.deepEqual(now.items.map((i) => i.metadata?.name), ['b', 'c']);
    await t.backend.compact(t.backend.currentRevision());
    await rejects(widgets(t, { verb: 'list', query: { resourceVersion: String(rv), resourceVersionMatch: 'Exact' } }), 410, 'Expired', 'The resourceVersion for the provided list is too old.');
    await rejects(widgets(t, { verb: 'list', query: { resourceVersion: '99999' } }), 504, 'Timeout', /Too large resource version: 99999, current: /);
    await rejects(widgets(t, { verb: 'list', query: { resourceVersionMatch: 'Exact' } }), 422, 'Invalid', /resourceVersionMatch is forbidden unless resourceVersion is provided/);
    await rejects(widgets(t, { verb: 'list', query: { limit: 'x' } }), 400, 'BadRequest');
  });
});

describe('update', () => {
  async function withWidget(): Promise<{ t: TestServer; w: KubeObject }> {
    const t = await newTestServer();
    const w = obj(await widgets(t, { verb: 'create', namespace: 'default', body: widget('a') }));
    return { t, w };
  }

  test('bumps generation on spec changes and keeps status', async () => {
    const { t, w } = await withWidget();
    await widgets(t, { verb: 'update', namespace: 'default', name: 'a', subresource: 'status', body: { ...w, status: { replicas: 2 } } });
    const res = await widgets(t, { verb: 'update', namespace: 'default', name: 'a', body: { metadata: { name: 'a' }, spec: { replicas: 5 }, status: { replicas: 99 } } });
    const u = obj(res);
    assert.equal(res.code, 200);
    assert.equal(u.metadata?.generation, 2);
    assert.deepEqual(u.status, { replicas: 2 });
    assert.equal(u.metadata?.uid, w.metadata?.uid);
    assert.equal(u.metadata?.creationTimestamp, w.metadata?.creationTimestamp);
  });

  test('a stale resourceVersion is 409; the current one succeeds', async () => {
    const { t, w } = await withWidget();
    const u = obj(await widgets(t, { verb: 'update', namespace: 'default', name: 'a', body: { ...w, spec: { replicas: 3 } } }));
    await rejects(
      widgets(t, { verb: 'update', namespace: 'default', name: 'a', body: { ...w, spec: { replicas: 4 } } }),
      409,
      'Conflict',
      'Operation cannot be fulfilled on widgets.example.com "a": the object has been modified; please apply your changes to the latest version and try again',
    );
    const ok = obj(await widgets(t, { verb: 'update', namespace: 'default', name: 'a', body: { ...u, spec: { replicas: 4 } } }));
    assert.equal((ok.spec as { replicas: number }).replicas, 4);
  });

  test('a stale cache does not cause a false conflict', async () => {
    const { t, w } = await withWidget();
    // Write behind the cache's back, then update with the new resourceVersion at once.
    const kv = await t.backend.update('/registry/example.com/widgets/default/a', JSON.stringify({ ...w, metadata: { ...w.metadata, resourceVersion: undefined, labels: { x: 'y' } } }), Number(w.metadata?.resourceVersion));
    const res = await widgets(t, { verb: 'update', namespace: 'default', name: 'a', body: { ...w, metadata: { ...w.metadata, resourceVersion: String(kv.modRevision) }, spec: { replicas: 7 } } });
    assert.equal((obj(res).spec as { replicas: number }).replicas, 7);
  });

  test('name and namespace mismatches are 400, a missing object 404, a uid mismatch 409', async () => {
    const { t, w } = await withWidget();
    await rejects(widgets(t, { verb: 'update', namespace: 'default', name: 'a', body: widget('b') }), 400, 'BadRequest', 'the name of the object (b) does not match the name on the URL (a)');
    await rejects(
      widgets(t, { verb: 'update', namespace: 'default', name: 'a', body: { ...widget('a'), metadata: { name: 'a', namespace: 'other' } } }),
      400,
      'BadRequest',
      'the namespace of the object (other) does not match the namespace on the URL (default)',
    );
    await rejects(widgets(t, { verb: 'update', namespace: 'default', name: 'zz', body: widget('zz') }), 404, 'NotFound');
    await rejects(
      widgets(t, { verb: 'update', namespace: 'default', name: 'a', body: { ...w, metadata: { ...w.metadata, uid: 'other' } } }),
      409,
      'Conflict',
      /Precondition failed: UID in precondition: other, UID in object meta: /,
    );
  });

  test('an update that changes nothing writes nothing', async () => {
    const { t, w } = await withWidget();
    const before = t.server.currentRevision();
    const res = obj(await widgets(t, { verb: 'update', namespace: 'default', name: 'a', body: { ...w, metadata: { name: 'a' } } }));
    assert.equal(t.server.currentRevision(), before);
    assert.equal(res.metadata?.resourceVersion, w.metadata?.resourceVersion);
  });

  test('dryRun update answers with the result but keeps the stored object', async () => {
    const { t, w } = await withWidget();
    const res = obj(await widgets(t, { verb: 'update', namespace: 'default', name: 'a', body: { ...w, spec: { replicas: 9 } }, query: { dryRun: 'All' } }));
    assert.equal((res.spec as { replicas: number }).replicas, 9);
    const got = obj(await widgets(t, { verb: 'get', namespace: 'default', name: 'a' }));
    assert.equal((got.spec as { replicas: number }).replicas, 2);
  });

  test('create on update when allowed; resourceVersion required when unconditional updates are not', async () => {
    const t = await newTestServer();
    const gadgets = (req: Req): Promise<HandleResult> => t.server.handle({ group: 'example.com', version: 'v1', resource: 'gadgets', ...req });
    const created = await gadgets({ verb: 'update', name: 'g', body: { metadata: { name: 'g' }, spec: {} } });
    assert.equal(created.code, 201);
    assert.equal(obj(created).metadata?.generation, 1);
    await rejects(
      gadgets({ verb: 'update', name: 'g', body: { metadata: { name: 'g' }, spec: { replicas: 3 } } }),
      422,
      'Invalid',
      'gadgets.example.com "g" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update',
    );
  });

  test('metadata validation on update: immutable fields are 422', async () => {
    const { t, w } = await withWidget();
    await rejects(
      widgets(t, { verb: 'update', namespace: 'default', name: 'a', body: { ...w, metadata: { ...w.metadata, uid: undefined, labels: { 'bad key!': 'x' } } } }),
      422,
      'Invalid',
      /metadata\.labels/,
    );
  });
});
