/**
 * The in-process transport acting as a user (`--use-service-account-credentials`): each request and
 * watch is authorized as the HTTP server's authorization filter would (k8s.io/apiserver
 * pkg/endpoints/filters/authorization.go: only Allow reaches the handler, anything else is the 403 of
 * responsewriters.Forbidden), with the attributes of requestinfo.go (a list or watch selecting
 * `metadata.name` is about that name). Without a user the transport is the server's loopback client
 * and nothing is checked. Run against a fake {@link InProcessServer} that records what reaches it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RequestUser, RestRequest, WatchEvent, WatchStream } from '../api/request.js';
import { StatusError } from '../machinery/errors/index.js';
import { FakeClock } from '../util/clock/index.js';
import { scrape, valueOf } from '../util/metrics/testing/index.js';
import { forbiddenError } from './authz/forbidden.js';
import type { Attributes, AuthorizationResult, Authorizer } from './authz/types.js';
import { newInProcessTransport, type InProcessServer } from './inprocess.js';

interface RecordedWatch {
  req: RestRequest;
  onEvent: (ev: WatchEvent) => void;
  onClose: (err?: unknown) => void;
  stops: number;
}

/** A server recording what reaches `handle` and `watch`; its authorizer decides by `decide`. */
class FakeServer implements InProcessServer {
  readonly handled: RestRequest[] = [];
  readonly watches: RecordedWatch[] = [];
  readonly asked: Attributes[] = [];
  readonly authorizer: Authorizer | undefined;

  constructor(decide: ((attrs: Attributes) => AuthorizationResult | Promise<AuthorizationResult>) | undefined) {
    this.authorizer = decide && {
      authorize: (attrs) => {
        this.asked.push(attrs);
        return decide(attrs);
      },
    };
  }

  handle(req: RestRequest): Promise<{ body: unknown; code: number }> {
    this.handled.push(req);
    return Promise.resolve({ body: { kind: 'PodList', items: [] }, code: 200 });
  }

  watch(req: RestRequest, onEvent: (ev: WatchEvent) => void, onClose: (err?: unknown) => void): WatchStream {
    const w: RecordedWatch = { req, onEvent, onClose, stops: 0 };
    this.watches.push(w);
    return {
      stop: () => {
        w.stops++;
        onClose();
      },
    };
  }
}

const sa: RequestUser = { username: 'system:serviceaccount:kube-system:replicaset-controller', uid: 'sa-uid', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'] };
const denyAll = (): AuthorizationResult => ({ decision: 'NoOpinion', reason: 'RBAC: no rule allows it' });
const allowAll = (): AuthorizationResult => ({ decision: 'Allow', reason: '' });

const listPods: RestRequest = { verb: 'list', group: '', version: 'v1', resource: 'pods', namespace: 'default' };
const watchPods: RestRequest = { verb: 'watch', group: '', version: 'v1', resource: 'pods', namespace: 'default', query: { resourceVersion: '5' } };

/** Lets pending promise callbacks run (the authorizer's answer, the transport's `.then`). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

/** A promise and its resolve. */
function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve: (v: T) => void = () => undefined;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** The onClose of a watch, recording its calls. */
function closes(): { onClose: (err?: unknown) => void; calls: unknown[][] } {
  const calls: unknown[][] = [];
  return {
    calls,
    onClose: (...args: unknown[]) => {
      calls.push(args);
    },
  };
}

const noEvents = (): void => undefined;

describe('newInProcessTransport without a user: the loopback client', () => {
  test('requests and watches reach the server unchecked, with no user; the userAgent is filled', async () => {
    const server = new FakeServer(denyAll);
    const t = newInProcessTransport(server, { userAgent: 'kube-controller-manager', clock: new FakeClock() });
    assert.deepEqual(await t.request(listPods), { kind: 'PodList', items: [] });
    assert.deepEqual(server.handled, [{ ...listPods, userAgent: 'kube-controller-manager' }]);
    assert.equal(server.handled[0]?.user, undefined);
    const c = closes();
    t.watch(watchPods, noEvents, c.onClose);
    // Started at once, not after an authorization.
    assert.equal(server.watches.length, 1);
    assert.equal(server.watches[0]?.req.user, undefined);
    assert.equal(server.asked.length, 0);
  });

  test("a request's own userAgent is kept", async () => {
    const server = new FakeServer(undefined);
    await newInProcessTransport(server, { userAgent: 'default-agent' }).request({ ...listPods, userAgent: 'mine' });
    assert.equal(server.handled[0]?.userAgent, 'mine');
  });
});

describe('newInProcessTransport acting as a user: requests', () => {
  test('refused: the 403 of forbiddenError, and the request never reaches handle', async () => {
    const server = new FakeServer(denyAll);
    const t = newInProcessTransport(server, { user: sa, clock: new FakeClock() });
    await assert.rejects(t.request(listPods), (err: unknown) => {
      assert.ok(err instanceof StatusError);
      assert.equal(err.code, 403);
      assert.deepEqual(err.status, forbiddenError(server.asked[0] as Attributes, 'RBAC: no rule allows it').status);
      assert.equal(err.message, 'pods is forbidden: User "system:serviceaccount:kube-system:replicaset-controller" cannot list resource "pods" in API group "" in the namespace "default": RBAC: no rule allows it');
      return true;
    });
    assert.equal(server.handled.length, 0);
  });

  test('allowed: the request reaches handle with req.user set; the authorizer was asked as the user', async () => {
    const server = new FakeServer(allowAll);
    const t = newInProcessTransport(server, { user: sa, userAgent: 'replicaset-controller' });
    const req: RestRequest = { verb: 'update', group: 'apps', version: 'v1', resource: 'replicasets', namespace: 'ns', name: 'web', subresource: 'status', body: {} };
    await t.request(req);
    assert.equal(server.handled.length, 1);
    assert.equal(server.handled[0]?.user, sa);
    assert.equal(server.handled[0]?.userAgent, 'replicaset-controller');
    assert.deepEqual(server.asked, [
      { user: sa, verb: 'update', resourceRequest: true, path: '', namespace: 'ns', apiGroup: 'apps', apiVersion: 'v1', resource: 'replicasets', subresource: 'status', name: 'web' },
    ]);
  });

  test('an asynchronous authorizer is awaited', async () => {
    const server = new FakeServer(() => Promise.resolve(allowAll()));
    await newInProcessTransport(server, { user: sa }).request(listPods);
    assert.equal(server.handled.length, 1);
  });

  test('a server without an authorizer: not checked, but the request still carries the user', async () => {
    const server = new FakeServer(undefined);
    await newInProcessTransport(server, { user: sa }).request(listPods);
    assert.equal(server.handled[0]?.user, sa);
  });

  test('the 403 carries the reason, not the evaluation error', async () => {
    const server = new FakeServer(() => ({ decision: 'NoOpinion', reason: '', error: 'clusterrole "edit" not found' }));
    await assert.rejects(newInProcessTransport(server, { user: sa }).request(listPods), { code: 403, message: /in the namespace "[^"]*"$/ });
  });

  test('a refused request is counted with code 403 in apiserver_request_total', async () => {
    const server = new FakeServer(denyAll);
    const req: RestRequest = { verb: 'get', group: 'inprocess.test', version: 'v1', resource: 'refusedthings', namespace: 'ns', name: 'x' };
    await assert.rejects(newInProcessTransport(server, { user: sa }).request(req), { code: 403 });
    const labels = { verb: 'GET', dry_run: '', group: 'inprocess.test', version: 'v1', resource: 'refusedthings', subresource: '', scope: 'resource', component: 'apiserver' };
    assert.equal(valueOf(await scrape(), 'apiserver_request_total', { ...labels, code: '403' }), 1);
  });
});

describe('newInProcessTransport acting as a user: the attributes of a list or watch', () => {
  const nameOf = async (req: RestRequest): Promise<string | undefined> => {
    const server = new FakeServer(allowAll);
    const t = newInProcessTransport(server, { user: sa });
    if (req.verb === 'watch') {
      t.watch(req, noEvents, () => undefined);
      await settle();
    } else {
      await t.request(req);
    }
    return server.asked[0]?.name;
  };

  test('fieldSelector=metadata.name=x names x (requestinfo.go)', async () => {
    assert.equal(await nameOf({ ...listPods, query: { fieldSelector: 'metadata.name=x' } }), 'x');
    assert.equal(await nameOf({ ...listPods, query: { fieldSelector: 'metadata.name==x' } }), 'x');
    assert.equal(await nameOf({ ...watchPods, query: { fieldSelector: 'metadata.name=x' } }), 'x');
  });

  test('another selector, or none, names nothing', async () => {
    assert.equal(await nameOf({ ...listPods, query: { fieldSelector: 'spec.nodeName=n1' } }), '');
    assert.equal(await nameOf({ ...listPods, query: { fieldSelector: 'metadata.name!=x' } }), '');
    assert.equal(await nameOf({ ...listPods, query: { labelSelector: 'app=web' } }), '');
    assert.equal(await nameOf(listPods), '');
  });

  test('a get keeps its own name; the field selector only names lists and watches', async () => {
    assert.equal(await nameOf({ verb: 'get', group: '', version: 'v1', resource: 'pods', namespace: 'default', name: 'web' }), 'web');
    assert.equal(await nameOf({ verb: 'deletecollection', group: '', version: 'v1', resource: 'pods', namespace: 'default', query: { fieldSelector: 'metadata.name=x' } }), '');
  });
});

describe('newInProcessTransport acting as a user: watches', () => {
  test('refused: onClose(err) once with the 403, and the watch never starts', async () => {
    const server = new FakeServer(denyAll);
    const c = closes();
    const events: WatchEvent[] = [];
    const w = newInProcessTransport(server, { user: sa }).watch(watchPods, (ev) => events.push(ev), c.onClose);
    await settle();
    assert.equal(server.watches.length, 0);
    assert.equal(c.calls.length, 1);
    const err = c.calls[0]?.[0];
    assert.ok(err instanceof StatusError);
    assert.equal(err.code, 403);
    assert.equal(err.message, 'pods is forbidden: User "system:serviceaccount:kube-system:replicaset-controller" cannot watch resource "pods" in API group "" in the namespace "default": RBAC: no rule allows it');
    // A stop after the refusal closes nothing more.
    w.stop();
    await settle();
    assert.equal(c.calls.length, 1);
    assert.deepEqual(events, []);
  });

  test('refused: onClose is not called synchronously (on a later microtask)', () => {
    const server = new FakeServer(denyAll);
    const c = closes();
    newInProcessTransport(server, { user: sa }).watch(watchPods, noEvents, c.onClose);
    assert.equal(c.calls.length, 0);
  });

  test('allowed: the watch starts with req.user set, its events pass, stop ends it with one onClose()', async () => {
    const server = new FakeServer(allowAll);
    const c = closes();
    const events: WatchEvent[] = [];
    const w = newInProcessTransport(server, { user: sa, userAgent: 'kcm' }).watch(watchPods, (ev) => events.push(ev), c.onClose);
    await settle();
    assert.equal(server.watches.length, 1);
    const started = server.watches[0] as RecordedWatch;
    assert.equal(started.req.user, sa);
    assert.equal(started.req.userAgent, 'kcm');
    assert.deepEqual(server.asked.map((a) => a.verb), ['watch']);
    started.onEvent({ type: 'ADDED', object: { metadata: { name: 'p' } } });
    assert.deepEqual(events, [{ type: 'ADDED', object: { metadata: { name: 'p' } } }]);
    w.stop();
    assert.equal(started.stops, 1);
    assert.deepEqual(c.calls, [[undefined]]);
  });

  test('stopped before authorization answers (Allow): onClose() once with no error, and the watch never starts', async () => {
    const answer = deferred<AuthorizationResult>();
    const server = new FakeServer(() => answer.promise);
    const c = closes();
    const w = newInProcessTransport(server, { user: sa }).watch(watchPods, noEvents, c.onClose);
    w.stop();
    assert.equal(c.calls.length, 1);
    assert.equal(c.calls[0]?.[0], undefined);
    answer.resolve(allowAll());
    await settle();
    assert.equal(server.watches.length, 0);
    w.stop();
    assert.equal(c.calls.length, 1);
  });

  test('stopped before authorization answers (refused): onClose() once with no error', async () => {
    const answer = deferred<AuthorizationResult>();
    const server = new FakeServer(() => answer.promise);
    const c = closes();
    const w = newInProcessTransport(server, { user: sa }).watch(watchPods, noEvents, c.onClose);
    w.stop();
    answer.resolve(denyAll());
    await settle();
    assert.equal(server.watches.length, 0);
    assert.equal(c.calls.length, 1);
    assert.equal(c.calls[0]?.[0], undefined);
  });

  test('a server that refuses the watch synchronously: onClose(err) once, on a microtask', async () => {
    const server = new FakeServer(allowAll);
    server.watch = () => {
      throw forbiddenError({ user: sa, verb: 'watch', resourceRequest: true, path: '', namespace: 'default', apiGroup: '', apiVersion: 'v1', resource: 'pods', subresource: '', name: '' }, 'no');
    };
    const c = closes();
    const w = newInProcessTransport(server, { user: sa }).watch(watchPods, noEvents, c.onClose);
    await settle();
    assert.equal(c.calls.length, 1);
    assert.ok(c.calls[0]?.[0] instanceof StatusError);
    w.stop();
    await settle();
    assert.equal(c.calls.length, 1);
  });
});
