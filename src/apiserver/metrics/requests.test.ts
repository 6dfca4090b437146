import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RestRequest } from '../../api/request.js';
import { newNotFound } from '../../machinery/errors/index.js';
import { holdRequests, startTestServer, type TestServer as HttpTestServer } from '../http/harness.js';
import { newTestServer } from '../testing/fixtures.js';
import { scrape, valueOf } from '../../util/metrics/testing/index.js';
import { canonicalVerb, cleanDryRun, cleanScope, cleanVerb, type ScopeInfo, type VerbRequest } from './requests.js';

describe('cleanVerb (upstream TestCleanVerb)', () => {
  // [desc, initialVerb, suggestedVerb, request, requestInfo, expected]
  const log = { isResourceRequest: true, subresource: 'log' };
  const cases: [string, string, string, VerbRequest | undefined, { isResourceRequest: boolean; subresource: string } | undefined, string][] = [
    ['An empty string should be designated as unknown', '', '', undefined, undefined, 'other'],
    ['LIST should normally map to LIST', 'LIST', '', undefined, undefined, 'LIST'],
    ['LIST should be transformed to WATCH if we have the right query param on the request', 'LIST', '', { method: 'GET', watch: 'true' }, undefined, 'WATCH'],
    ["LIST isn't transformed to WATCH if we have query params that do not include watch", 'LIST', '', { method: 'GET' }, undefined, 'LIST'],
    ['GET is transformed to WATCH if we have the right query param on the request', 'GET', '', { method: 'GET', watch: 'true' }, undefined, 'WATCH'],
    ['LIST is transformed to WATCH for the old pattern watch', 'LIST', 'WATCH', { method: 'GET' }, undefined, 'WATCH'],
    ['LIST is transformed to WATCH for the old pattern watchlist', 'LIST', 'WATCHLIST', { method: 'GET' }, undefined, 'WATCH'],
    ['WATCHLIST should be transformed to WATCH', 'WATCHLIST', '', undefined, undefined, 'WATCH'],
    ['PATCH should be transformed to APPLY with the right content type', 'PATCH', '', { method: 'PATCH', contentType: 'application/apply-patch+yaml' }, undefined, 'APPLY'],
    ["PATCH shouldn't be transformed to APPLY without the right content type", 'PATCH', '', undefined, undefined, 'PATCH'],
    ['unexpected verbs should be designated as unknown', 'notValid', '', undefined, undefined, 'other'],
    ['Pod logs should be transformed to CONNECT', 'GET', '', { method: 'GET' }, log, 'CONNECT'],
    ['Pod exec should be transformed to CONNECT', 'POST', '', { method: 'POST' }, { isResourceRequest: true, subresource: 'exec' }, 'CONNECT'],
    ['Pod portforward should be transformed to CONNECT', 'POST', '', { method: 'POST' }, { isResourceRequest: true, subresource: 'portforward' }, 'CONNECT'],
    ['Deployment scale should not be transformed to CONNECT', 'PUT', '', { method: 'PUT' }, { isResourceRequest: true, subresource: 'scale' }, 'PUT'],
  ];
  for (const [desc, verb, suggested, req, info, want] of cases) {
    test(desc, () => assert.equal(cleanVerb(verb, suggested, req ?? { method: '' }, info), want));
  }

  test('watch=0 and watch=false (any case) are not watches; any other value is', () => {
    for (const v of ['0', 'false', 'FALSE', 'False']) assert.equal(cleanVerb('LIST', '', { method: 'GET', watch: v }), 'LIST');
    for (const v of ['1', 'true', 'yes', '']) assert.equal(cleanVerb('LIST', '', { method: 'GET', watch: v }), 'WATCH');
    assert.equal(cleanVerb('POST', '', { method: 'POST', watch: 'true' }), 'POST');
  });

  test('CanonicalVerb: GET and HEAD of a collection are LIST, of one object or a non-resource URL GET', () => {
    assert.equal(canonicalVerb('GET', 'namespace'), 'LIST');
    assert.equal(canonicalVerb('HEAD', 'cluster'), 'LIST');
    assert.equal(canonicalVerb('GET', 'resource'), 'GET');
    assert.equal(canonicalVerb('HEAD', ''), 'GET');
    assert.equal(canonicalVerb('DELETE', 'namespace'), 'DELETE');
  });
});

describe('cleanScope (upstream TestCleanScope)', () => {
  const info = (i: Partial<ScopeInfo>): ScopeInfo => ({ isResourceRequest: false, verb: '', namespace: '', name: '', ...i });
  const cases: [string, ScopeInfo, string][] = [
    ['empty scope', info({}), ''],
    ['resource scope', info({ name: 'my-resource', namespace: 'my-namespace' }), 'resource'],
    ['POST resource scope', info({ verb: 'create', namespace: 'my-namespace' }), 'resource'],
    ['namespace scope', info({ namespace: 'my-namespace' }), 'namespace'],
    ['cluster scope', info({ isResourceRequest: true }), 'cluster'],
  ];
  for (const [name, i, want] of cases) test(name, () => assert.equal(cleanScope(i), want));
});

describe('cleanDryRun', () => {
  test("'' without dryRun, the sorted distinct values, invalid for anything but All", () => {
    assert.equal(cleanDryRun(''), '');
    assert.equal(cleanDryRun('fieldManager=kubectl'), '');
    assert.equal(cleanDryRun('dryRun=All'), 'All');
    assert.equal(cleanDryRun('dryRun=All&dryRun=All'), 'All');
    assert.equal(cleanDryRun('dryRun=All&dryRun=Some'), 'invalid');
    assert.equal(cleanDryRun('dryRun='), 'invalid');
  });
});

/** The labels of one apiserver_request_total series (code aside). */
interface Labels {
  verb: string;
  dry_run?: string;
  group?: string;
  version?: string;
  resource: string;
  subresource?: string;
  scope: string;
  component?: string;
}

const full = (l: Labels): Record<string, string> => ({ dry_run: '', group: '', version: 'v1', subresource: '', component: 'apiserver', ...l });

async function requestCount(labels: Record<string, string>, code: string): Promise<number> {
  return valueOf(await scrape(), 'apiserver_request_total', { ...labels, code }) ?? 0;
}

/** Waits (a few event-loop turns at most) until `probe` holds: the server counts a request when its response closes. */
async function until(probe: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await probe()) return;
    await new Promise((r) => setImmediate(r));
  }
  assert.fail('condition never held');
}

describe('apiserver_request_total and apiserver_request_duration_seconds over HTTP', { timeout: 30_000 }, () => {
  let t: HttpTestServer;
  afterEach(() => t.server.close());

  // [method, path, headers, labels]: the verb and scope upstream's installer and cleanVerb give them.
  const cases: [string, string, Record<string, string>, Labels][] = [
    ['GET', '/api/v1/namespaces/default/pods', {}, { verb: 'LIST', resource: 'pods', scope: 'namespace' }],
    ['GET', '/api/v1/pods', {}, { verb: 'LIST', resource: 'pods', scope: 'cluster' }],
    ['GET', '/api/v1/namespaces/default/pods/p', {}, { verb: 'GET', resource: 'pods', scope: 'resource' }],
    ['POST', '/api/v1/namespaces/default/pods', { 'content-type': 'application/json' }, { verb: 'POST', resource: 'pods', scope: 'resource' }],
    ['POST', '/api/v1/namespaces/default/pods?dryRun=All', { 'content-type': 'application/json' }, { verb: 'POST', dry_run: 'All', resource: 'pods', scope: 'resource' }],
    ['PUT', '/api/v1/namespaces/default/pods/p', { 'content-type': 'application/json' }, { verb: 'PUT', resource: 'pods', scope: 'resource' }],
    ['PATCH', '/apis/apps/v1/namespaces/default/deployments/d', { 'content-type': 'application/merge-patch+json' }, { verb: 'PATCH', group: 'apps', resource: 'deployments', scope: 'resource' }],
    ['PATCH', '/apis/apps/v1/namespaces/default/deployments/d?fieldManager=kubectl', { 'content-type': 'application/apply-patch+yaml' }, { verb: 'APPLY', group: 'apps', resource: 'deployments', scope: 'resource' }],
    ['PUT', '/apis/apps/v1/namespaces/default/deployments/d/scale', { 'content-type': 'application/json' }, { verb: 'PUT', group: 'apps', resource: 'deployments', subresource: 'scale', scope: 'resource' }],
    ['DELETE', '/api/v1/namespaces/default/pods/p', {}, { verb: 'DELETE', resource: 'pods', scope: 'resource' }],
    ['DELETE', '/api/v1/namespaces/default/pods', {}, { verb: 'DELETE', resource: 'pods', scope: 'namespace' }],
    ['GET', '/api/v1/namespaces/default/pods/p/log', {}, { verb: 'CONNECT', resource: 'pods', subresource: 'log', scope: 'resource' }],
    ['GET', '/api/v1/namespaces', {}, { verb: 'LIST', resource: 'namespaces', scope: 'cluster' }],
    ['GET', '/api/v1/namespaces/default', {}, { verb: 'GET', resource: 'namespaces', scope: 'resource' }],
  ];
  for (const [method, path, headers, labels] of cases) {
    test(`${method} ${path} → ${labels.verb} ${labels.scope}${labels.subresource ? ` ${labels.subresource}` : ''}`, async () => {
      t = await startTestServer();
      const l = full(labels);
      const before = await requestCount(l, '200');
      const res = await t.fetch(path, { method, headers, ...(method === 'POST' || method === 'PUT' || method === 'PATCH' ? { body: '{}' } : {}) });
      await res.arrayBuffer();
      assert.equal(res.status, 200);
      await until(async () => (await requestCount(l, '200')) === before + 1);
      assert.ok((valueOf(await scrape(), 'apiserver_request_duration_seconds_count', l) ?? 0) >= 1);
    });
  }

  test('the answer code is the label: a 404 from the core counts as 404, a crash as 500', async () => {
    t = await startTestServer();
    const l = full({ verb: 'GET', resource: 'pods', scope: 'resource' });
    for (const [code, fail] of [
      ['404', () => newNotFound({ group: '', resource: 'pods' }, 'p')],
      ['500', () => new Error('boom')],
    ] as const) {
      t.core.onHandle = () => {
        throw fail();
      };
      const before = await requestCount(l, code);
      const res = await t.fetch('/api/v1/namespaces/default/pods/p');
      await res.arrayBuffer();
      assert.equal(String(res.status), code);
      await until(async () => (await requestCount(l, code)) === before + 1);
    }
  });

  test('a watch counts once, as WATCH, when it ends; a named watch is scope resource', async () => {
    t = await startTestServer();
    const l = full({ verb: 'WATCH', resource: 'pods', scope: 'namespace' });
    const named = full({ verb: 'WATCH', resource: 'pods', scope: 'resource' });
    const before = [await requestCount(l, '200'), await requestCount(named, '200')];
    for (const path of ['/api/v1/namespaces/default/pods?watch=true', '/api/v1/watch/namespaces/default/pods/p', '/api/v1/namespaces/default/pods/p?watch=1']) {
      const started = t.core.nextWatch();
      const res = await t.fetch(path);
      (await started).close();
      await res.arrayBuffer();
    }
    await until(async () => (await requestCount(l, '200')) === (before[0] as number) + 1);
    await until(async () => (await requestCount(named, '200')) === (before[1] as number) + 2);
  });

  test('paths that route nowhere are not counted; the health roots and aggregated discovery are, as upstream', async () => {
    t = await startTestServer();
    assert.equal((await t.fetch('/api/v1/namespaces/default/foos')).status, 404);
    assert.equal(valueOf(await scrape(), 'apiserver_request_total', { ...full({ verb: 'LIST', resource: 'foos', scope: 'namespace' }), code: '404' }), undefined);

    const healthz = { verb: 'GET', dry_run: '', group: '', version: '', resource: '', subresource: '/healthz', scope: '', component: '' };
    const before = await requestCount(healthz, '200');
    await (await fetch(`${t.base}/healthz`)).text();
    await (await fetch(`${t.base}/healthz/ping`)).text();
    await until(async () => (await requestCount(healthz, '200')) === before + 1);

    const apis = { verb: 'GET', dry_run: '', group: '', version: '', resource: '', subresource: '/apis', scope: '', component: 'apiserver' };
    const beforeApis = await requestCount(apis, '200');
    await (await t.fetch('/apis', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } })).text();
    await until(async () => (await requestCount(apis, '200')) === beforeApis + 1);
  });

  test('requests max-in-flight turns away count as 429 (upstream TestRecordDroppedRequests)', async () => {
    t = await startTestServer({ maxRequestsInFlight: 1, maxMutatingRequestsInFlight: 1 });
    const held = holdRequests(t.core);
    const get = t.fetch('/api/v1/namespaces/default/pods');
    const post = t.fetch('/api/v1/namespaces/default/pods', { method: 'POST', body: '{}' });
    await held.arrivals(2);
    const dropped: [string, string, Record<string, string>][] = [
      ['GET', '/api/v1/pods', { verb: 'LIST', dry_run: '', group: '', version: 'v1', resource: 'pods', subresource: '', scope: 'cluster', component: 'apiserver' }],
      ['POST', '/api/v1/namespaces/foo/pods', { verb: 'POST', dry_run: '', group: '', version: 'v1', resource: 'pods', subresource: '', scope: 'resource', component: 'apiserver' }],
      ['PATCH', '/apis/batch/v1/namespaces/foo/jobs/bar/status?dryRun=All', { verb: 'PATCH', dry_run: 'All', group: 'batch', version: 'v1', resource: 'jobs', subresource: 'status', scope: 'resource', component: 'apiserver' }],
    ];
    for (const [method, path, labels] of dropped) {
      const before = await requestCount(labels, '429');
      const res = await t.fetch(path, { method, ...(method === 'GET' ? {} : { body: '{}' }) });
      assert.equal(res.status, 429);
      await res.arrayBuffer();
      assert.equal(await requestCount(labels, '429'), before + 1, `${method} ${path}`);
    }
    held.release();
    await (await get).arrayBuffer();
    await (await post).arrayBuffer();
  });

  test('apiserver_current_inflight_requests: the most requests held in the last whole second of the clock', async () => {
    t = await startTestServer({ maxRequestsInFlight: 5, maxMutatingRequestsInFlight: 5 });
    const held = holdRequests(t.core);
    const gets = [t.fetch('/api/v1/pods'), t.fetch('/api/v1/pods'), t.fetch('/api/v1/pods')];
    const post = t.fetch('/api/v1/namespaces/default/pods', { method: 'POST', body: '{}' });
    await held.arrivals(4);
    held.release();
    for (const r of [...(await Promise.all(gets)), await post]) await r.arrayBuffer();
    await t.server.inFlight.whenIdle();
    // Still the same second: the gauge shows the second before (nothing held then).
    let exp = await scrape();
    assert.equal(valueOf(exp, 'apiserver_current_inflight_requests', { request_kind: 'readOnly' }), 0);
    t.clock.step(1000);
    exp = await scrape();
    assert.equal(valueOf(exp, 'apiserver_current_inflight_requests', { request_kind: 'readOnly' }), 3);
    assert.equal(valueOf(exp, 'apiserver_current_inflight_requests', { request_kind: 'mutating' }), 1);
    t.clock.step(1000);
    exp = await scrape();
    assert.equal(valueOf(exp, 'apiserver_current_inflight_requests', { request_kind: 'readOnly' }), 0);
  });
});

describe('in-process requests are counted with the labels of the same request over HTTP', () => {
  test('create, get, list, patch (apply), update, delete, deletecollection, and a failed get', async () => {
    const t = await newTestServer();
    const transport = t.server.inProcessTransport({ userAgent: 'test' });
    const base = { group: '', version: 'v1', resource: 'configmaps' } as const;
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, data: { a: '1' } };
    const steps: [Omit<RestRequest, 'group' | 'version' | 'resource'>, Labels, string][] = [
      [{ verb: 'create', namespace: 'default', body: cm }, { verb: 'POST', resource: 'configmaps', scope: 'resource' }, '201'],
      [{ verb: 'create', namespace: 'default', body: { ...cm, metadata: { name: 'd' } }, query: { dryRun: 'All' } }, { verb: 'POST', dry_run: 'All', resource: 'configmaps', scope: 'resource' }, '201'],
      [{ verb: 'get', namespace: 'default', name: 'c' }, { verb: 'GET', resource: 'configmaps', scope: 'resource' }, '200'],
      [{ verb: 'get', namespace: 'default', name: 'nope' }, { verb: 'GET', resource: 'configmaps', scope: 'resource' }, '404'],
      [{ verb: 'list', namespace: 'default' }, { verb: 'LIST', resource: 'configmaps', scope: 'namespace' }, '200'],
      [{ verb: 'list' }, { verb: 'LIST', resource: 'configmaps', scope: 'cluster' }, '200'],
      [
        { verb: 'patch', namespace: 'default', name: 'c', patchType: 'application/apply-patch+yaml', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { b: '2' } }, query: { fieldManager: 'test' } },
        { verb: 'APPLY', resource: 'configmaps', scope: 'resource' },
        '200',
      ],
      [{ verb: 'patch', namespace: 'default', name: 'c', patchType: 'application/merge-patch+json', body: { data: { c: '3' } } }, { verb: 'PATCH', resource: 'configmaps', scope: 'resource' }, '200'],
      [{ verb: 'update', namespace: 'default', name: 'c', body: cm }, { verb: 'PUT', resource: 'configmaps', scope: 'resource' }, '200'],
      [{ verb: 'delete', namespace: 'default', name: 'c' }, { verb: 'DELETE', resource: 'configmaps', scope: 'resource' }, '200'],
      [{ verb: 'deletecollection', namespace: 'default' }, { verb: 'DELETE', resource: 'configmaps', scope: 'namespace' }, '200'],
    ];
    for (const [req, labels, code] of steps) {
      const l = full(labels);
      const before = await requestCount(l, code);
      await transport.request({ ...base, ...req }).catch(() => undefined);
      assert.equal(await requestCount(l, code), before + 1, `${req.verb} ${JSON.stringify(labels)} ${code}`);
    }

    const watch = full({ verb: 'WATCH', resource: 'configmaps', scope: 'namespace' });
    const before = await requestCount(watch, '200');
    const closed = new Promise<void>((resolve) => {
      const w = transport.watch({ ...base, verb: 'watch', namespace: 'default' }, () => undefined, () => resolve());
      w.stop();
    });
    await closed;
    assert.equal(await requestCount(watch, '200'), before + 1);
    await t.server.close();
  });
});
