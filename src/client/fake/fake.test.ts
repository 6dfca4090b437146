import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newInternalError } from '../../machinery/errors/index.js';
import { flushAsync } from '../../util/clock/index.js';
import type { RestRequest, Transport, WatchEvent } from '../index.js';
import { FakeTransport, type FakeServerHooks, type SeedObject } from './index.js';

/** One watch the stub server runs: the test sends events and ends it. */
interface StubWatch {
  req: RestRequest;
  onEvent: (ev: WatchEvent) => void;
  onClose: (err?: unknown) => void;
  stopped: boolean;
}

/** An inner transport that answers every request with `{served: verb resource}` and lets the test drive its watches. */
function stubServer(): { inner: Transport; served: string[]; watches: StubWatch[] } {
  const served: string[] = [];
  const watches: StubWatch[] = [];
  const inner: Transport = {
    request(req) {
      served.push(`${req.verb} ${req.resource}`);
      return Promise.resolve({ served: `${req.verb} ${req.resource}` });
    },
    watch(req, onEvent, onClose) {
      const w: StubWatch = { req, onEvent, onClose, stopped: false };
      watches.push(w);
      return {
        stop: () => {
          if (w.stopped) return;
          w.stopped = true;
          onClose();
        },
      };
    },
  };
  return { inner, served, watches };
}

const req = (verb: RestRequest['verb'], resource: string, subresource?: string): RestRequest => ({
  verb,
  group: '',
  version: 'v1',
  resource,
  namespace: 'ns',
  ...(subresource ? { name: 'p', subresource } : {}),
});

function collectWatch(fake: FakeTransport, r: RestRequest) {
  const events: WatchEvent[] = [];
  const closes: unknown[] = [];
  const stream = fake.watch(r, (ev) => events.push(ev), (err) => closes.push(err));
  return { events, closes, stream };
}

describe('FakeTransport requests', { timeout: 60_000 }, () => {
  test('passes requests to the inner transport and records every one, watches included', async () => {
    const { inner, served } = stubServer();
    const fake = new FakeTransport(inner);
    assert.deepEqual(await fake.request(req('get', 'pods')), { served: 'get pods' });
    await fake.request(req('create', 'configmaps'));
    fake.watch(req('watch', 'pods'), () => undefined, () => undefined);
    assert.deepEqual(served, ['get pods', 'create configmaps']);
    assert.deepEqual(
      fake.actions.map((a) => `${a.verb} ${a.resource}`),
      ['get pods', 'create configmaps', 'watch pods'],
    );
    fake.clearActions();
    assert.equal(fake.actions.length, 0);
  });

  test('reactors: newest first, by verb and resource or subresource; unhandled ones pass the request on', async () => {
    const { inner, served } = stubServer();
    const fake = new FakeTransport(inner);
    const seen: string[] = [];
    fake.prependReactor('create', 'pods', () => ({ handled: true, error: newInternalError('boom') }));
    fake.prependReactor('get', 'pods/status', () => ({ handled: true, result: { fake: true } }));
    fake.prependReactor('*', '*', (r) => {
      seen.push(r.verb);
      return { handled: false };
    });
    await assert.rejects(fake.request(req('create', 'pods')), /boom/);
    assert.deepEqual(await fake.request(req('get', 'pods', 'status')), { fake: true });
    assert.deepEqual(await fake.request(req('get', 'pods')), { served: 'get pods' }, 'a pods/status reactor does not match the main resource');
    await assert.rejects(fake.request(req('create', 'pods', 'binding')), /boom/, "a 'pods' reactor matches its subresources too");
    assert.deepEqual(served, ['get pods']);
    assert.deepEqual(seen, ['create', 'get', 'get', 'create'], 'the catch-all ran first every time');
    assert.equal(fake.actions.length, 4, 'requests answered by reactors are recorded too');
  });

  test('a reactor that throws rejects the request; reactors run when the request is made', async () => {
    const { inner } = stubServer();
    const fake = new FakeTransport(inner);
    let calls = 0;
    fake.prependReactor('list', 'pods', () => {
      calls++;
      throw new Error('reactor bug');
    });
    const p = fake.request(req('list', 'pods'));
    assert.equal(calls, 1);
    await assert.rejects(p, /reactor bug/);
  });

  test('without a server behind it, seed, compact and resourceVersion say what they need', () => {
    const fake = new FakeTransport(stubServer().inner);
    assert.throws(() => fake.resourceVersion(), /FakeTransport.resourceVersion needs a server/);
    assert.throws(() => fake.seed([]), /FakeTransport.seed needs a server/);
  });

  test('seed, compact and resourceVersion go to the server hooks', async () => {
    const calls: string[] = [];
    const hooks: FakeServerHooks = {
      seed: (objs: readonly SeedObject[]) => {
        calls.push(`seed ${objs.length}`);
        return Promise.resolve();
      },
      compact: () => {
        calls.push('compact');
        return Promise.resolve();
      },
      resourceVersion: () => '42',
    };
    const fake = new FakeTransport(stubServer().inner, hooks);
    await fake.seed([{ kind: 'Pod' }]);
    await fake.compact();
    assert.equal(fake.resourceVersion(), '42');
    assert.deepEqual(calls, ['seed 1', 'compact']);
  });
});

describe('FakeTransport watches', { timeout: 60_000 }, () => {
  test('events pass through until stop; stop ends the inner watch and calls onClose once', () => {
    const { inner, watches } = stubServer();
    const fake = new FakeTransport(inner);
    const w = collectWatch(fake, req('watch', 'pods'));
    const ev: WatchEvent = { type: 'ADDED', object: { metadata: { name: 'a' } } };
    watches[0]?.onEvent(ev);
    assert.equal(fake.activeWatches(), 1);
    w.stream.stop();
    w.stream.stop();
    watches[0]?.onEvent(ev);
    assert.deepEqual(w.events, [ev], 'nothing after stop');
    assert.deepEqual(w.closes, [undefined]);
    assert.equal(watches[0]?.stopped, true);
    assert.equal(fake.activeWatches(), 0);
  });

  test('a watch the server ends is no longer active; its error reaches onClose', () => {
    const { inner, watches } = stubServer();
    const fake = new FakeTransport(inner);
    const w = collectWatch(fake, req('watch', 'pods'));
    const expired = new Error('410');
    watches[0]?.onClose(expired);
    assert.deepEqual(w.closes, [expired]);
    assert.equal(fake.activeWatches(), 0);
    w.stream.stop();
    assert.deepEqual(w.closes, [expired], 'stop after the end calls nothing');
  });

  test('closeWatches drops every connection: no more events, then onClose(err) on a microtask', async () => {
    const { inner, watches } = stubServer();
    const fake = new FakeTransport(inner);
    const a = collectWatch(fake, req('watch', 'pods'));
    const b = collectWatch(fake, req('watch', 'nodes'));
    const reset = new Error('connection reset');
    fake.closeWatches(reset);
    assert.equal(fake.activeWatches(), 0);
    assert.deepEqual(a.closes, [], 'not inside the call');
    watches[0]?.onEvent({ type: 'ADDED', object: {} });
    await flushAsync();
    assert.deepEqual([a.closes, b.closes], [[reset], [reset]]);
    assert.deepEqual(a.events, []);
    assert.ok(watches.every((w) => w.stopped), 'the inner watches are stopped');
    fake.closeWatches();
    const c = collectWatch(fake, req('watch', 'pods'));
    fake.closeWatches();
    await flushAsync();
    assert.deepEqual(c.closes, [undefined], 'a normal end, as a server timeout');
  });

  test('a reactor that handles a watch ends it with its error before the server sees it', async () => {
    const { inner, watches } = stubServer();
    const fake = new FakeTransport(inner);
    fake.prependReactor('watch', 'pods', () => ({ handled: true, error: newInternalError('boom') }));
    fake.prependReactor('watch', 'nodes', () => ({ handled: true }));
    fake.prependReactor('watch', 'services', () => {
      throw new Error('reactor bug');
    });
    const failed = collectWatch(fake, req('watch', 'pods'));
    const answered = collectWatch(fake, req('watch', 'nodes'));
    const thrown = collectWatch(fake, req('watch', 'services'));
    await flushAsync();
    assert.match(String(failed.closes[0]), /boom/);
    assert.match(String(answered.closes[0]), /watch handled by a reactor without an error/);
    assert.match(String(thrown.closes[0]), /reactor bug/);
    assert.equal(watches.length, 0);
    assert.equal(fake.activeWatches(), 0);
    assert.equal(fake.actions.length, 3);
  });
});
