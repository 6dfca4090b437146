import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { holdRequests, startTestServer, type TestServer } from './harness.js';
import { MaxInFlightLimit } from './maxinflight.js';

describe('MaxInFlightLimit', { timeout: 20_000 }, () => {
  test('read-only and mutating budgets are counted apart', () => {
    const limit = new MaxInFlightLimit({ readOnly: 2, mutating: 1 });
    const r1 = limit.tryAcquire(false);
    const r2 = limit.tryAcquire(false);
    assert.ok(r1 && r2);
    assert.equal(limit.tryAcquire(false), undefined);
    const m1 = limit.tryAcquire(true);
    assert.ok(m1);
    assert.equal(limit.tryAcquire(true), undefined);
    assert.deepEqual(limit.inFlight(), { readOnly: 2, mutating: 1 });
    r1();
    r1(); // a second release gives nothing back twice
    assert.deepEqual(limit.inFlight(), { readOnly: 1, mutating: 1 });
    assert.ok(limit.tryAcquire(false));
    assert.equal(limit.tryAcquire(false), undefined);
  });

  test('0 means unlimited, and requests are still counted', () => {
    const limit = new MaxInFlightLimit({ readOnly: 0, mutating: 0 });
    for (let i = 0; i < 1000; i++) assert.ok(limit.tryAcquire(i % 2 === 0));
    assert.deepEqual(limit.inFlight(), { readOnly: 500, mutating: 500 });
  });

  test('negative limits are refused, as upstream validates them', () => {
    assert.throws(() => new MaxInFlightLimit({ readOnly: -1, mutating: 0 }), RangeError);
  });

  test('whenIdle resolves when the last slot is given back', async () => {
    const limit = new MaxInFlightLimit({ readOnly: 1, mutating: 1 });
    await limit.whenIdle();
    const r = limit.tryAcquire(false) as () => void;
    const m = limit.tryAcquire(true) as () => void;
    let idle = false;
    const waiting = limit.whenIdle().then(() => (idle = true));
    r();
    await Promise.resolve();
    assert.equal(idle, false);
    m();
    await waiting;
    assert.equal(idle, true);
  });
});

describe('max requests in flight over HTTP', { timeout: 20_000 }, () => {
  let t: TestServer;
  afterEach(() => t.server.close());

  const list = (path = '/api/v1/namespaces/default/pods'): Promise<Response> => t.fetch(path);
  const create = (): Promise<Response> => t.fetch('/api/v1/namespaces/default/pods', { method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } }) });

  test('a flood of LISTs beyond --max-requests-inflight gets 429 TooManyRequests with Retry-After: 1', async () => {
    t = await startTestServer({ maxRequestsInFlight: 3, maxMutatingRequestsInFlight: 1 });
    const held = holdRequests(t.core);
    const admitted = [list(), list(), list()];
    await held.arrivals(3);
    assert.deepEqual(t.server.inFlight.inFlight(), { readOnly: 3, mutating: 0 });

    const flood = await Promise.all(Array.from({ length: 50 }, () => list()));
    for (const res of flood) {
      assert.equal(res.status, 429);
      assert.equal(res.headers.get('retry-after'), '1');
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    }
    assert.deepEqual(await flood[0]?.json(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Too many requests, please try again later.',
      reason: 'TooManyRequests',
      details: { retryAfterSeconds: 1 },
      code: 429,
    });
    assert.equal(held.arrived.length, 3, 'rejected requests never reach the core');

    held.release();
    for (const res of await Promise.all(admitted)) assert.equal(res.status, 200);
    await t.server.inFlight.whenIdle();
    assert.equal((await list()).status, 200, 'the budget is free again');
  });

  test('mutating and read-only requests are counted separately', async () => {
    t = await startTestServer({ maxRequestsInFlight: 1, maxMutatingRequestsInFlight: 1 });
    const held = holdRequests(t.core);
    const get = list();
    await held.arrivals(1);
    const post = create(); // the read-only budget is spent, the mutating one is not
    await held.arrivals(2);
    assert.deepEqual(t.server.inFlight.inFlight(), { readOnly: 1, mutating: 1 });
    assert.equal((await create()).status, 429);
    assert.equal((await t.fetch('/api/v1/namespaces/default/pods/p', { method: 'DELETE' })).status, 429);
    assert.equal((await list('/api/v1/namespaces/default/pods/p')).status, 429);
    held.release();
    assert.equal((await get).status, 200);
    assert.equal((await post).status, 200);
  });

  test('watches are long-running and never counted', async () => {
    t = await startTestServer({ maxRequestsInFlight: 1, maxMutatingRequestsInFlight: 1 });
    const held = holdRequests(t.core);
    const get = list();
    await held.arrivals(1);
    const started = t.core.nextWatch();
    const watch = await list('/api/v1/namespaces/default/pods?watch=true');
    assert.equal(watch.status, 200);
    const w = await started;
    assert.deepEqual(t.server.inFlight.inFlight(), { readOnly: 1, mutating: 0 });
    w.close();
    await watch.text();
    held.release();
    await get;
  });

  test('requests that fail authentication are answered 401 before any budget is looked at', async () => {
    t = await startTestServer({ maxRequestsInFlight: 1 });
    const held = holdRequests(t.core);
    const get = list();
    await held.arrivals(1);
    const res = await fetch(`${t.base}/api/v1/namespaces/default/pods`, { headers: { authorization: 'Bearer wrong' } });
    assert.equal(res.status, 401);
    // An anonymous request is authenticated (as system:anonymous), so the budget turns it away first.
    assert.equal((await fetch(`${t.base}/api/v1/namespaces/default/pods`)).status, 429);
    held.release();
    await get;
  });

  test('0 disables a limit', async () => {
    t = await startTestServer({ maxRequestsInFlight: 0 });
    const held = holdRequests(t.core);
    const gets = Array.from({ length: 20 }, () => list());
    await held.arrivals(20);
    held.release();
    for (const res of await Promise.all(gets)) assert.equal(res.status, 200);
  });
});
