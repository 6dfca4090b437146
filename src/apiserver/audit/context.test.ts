/**
 * The events of a request. The stage sequences port k8s.io/apiserver pkg/endpoints/filters
 * audit_test.go `TestAudit` and authn_audit_test.go `TestFailedAuthnAudit*` (v1.33), with the
 * handler's writes replaced by the AuditContext calls the HTTP server makes; the event contents
 * follow pkg/audit/request.go (`LogRequestMetadata`, `LogRequestObject`, `LogResponseObject`).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock, type Clock, type Timer } from '../../util/clock/index.js';
import { requestInfoOf } from '../http/requestinfo.js';
import { Auditor, type AuditContext, type AuditRequest } from './context.js';
import { newFakePolicyRuleEvaluator, newPolicyRuleEvaluator } from './policy.js';
import { authenticationFailedMessage } from './request.js';
import { MemoryAuditSink } from './sink.js';
import type { AuditLevel, AuditStage, PolicyRuleEvaluator } from './types.js';

const START = Date.UTC(2024, 0, 1);

function setup(policy: PolicyRuleEvaluator, clock: Clock = new FakeClock(START)): { auditor: Auditor; sink: MemoryAuditSink } {
  const sink = new MemoryAuditSink();
  let n = 0;
  const auditor = new Auditor({ policy, sink, clock, newId: () => `id-${++n}` });
  return { auditor, sink };
}

/** A request as the HTTP server describes it to the auditor. */
function request(method: string, url: string, extra: Partial<AuditRequest> = {}): AuditRequest {
  const [path = '', query = ''] = url.split('?');
  const info = requestInfoOf(method, path, Object.fromEntries(new URLSearchParams(query)));
  return { requestURI: url, headers: {}, remoteAddress: '127.0.0.1', info, user: { username: 'admin', groups: [] }, ...extra };
}

describe('stages (upstream audit_test.go TestAudit)', () => {
  const shortRunningPath = '/api/v1/namespaces/default/pods/foo';
  const longRunningPath = '/api/v1/namespaces/default/pods?watch=true';
  type Handler = (ac: AuditContext) => void;
  const write = (code: number): Handler => (ac) => ac.responseStarted(code);
  const kaboom: Handler = (ac) => ac.panic(new Error('kaboom'));
  const seq =
    (...hs: Handler[]): Handler =>
    (ac) => {
      for (const h of hs) h(ac);
    };
  const none: Handler = () => {};
  // [desc, path, method, auditID header, omitStages, handler, expected [stage, verb, code]]
  const cases: [string, string, string, string, AuditStage[], Handler, [AuditStage, string, number | undefined][]][] = [
    // short running requests with read-only verb
    ['read-only empty', shortRunningPath, 'GET', '', [], none, [['RequestReceived', 'get', undefined], ['ResponseComplete', 'get', 200]]],
    ['short running with auditID', shortRunningPath, 'GET', 'e9c4c6ab-cf3f-4e0e-9c1c-0a6b0f1f1a0e', [], write(200), [['RequestReceived', 'get', undefined], ['ResponseComplete', 'get', 200]]],
    ['read-only panic', shortRunningPath, 'GET', '', [], kaboom, [['RequestReceived', 'get', undefined], ['Panic', 'get', 500]]],
    // short running request with non-read-only verb
    ['writing empty', shortRunningPath, 'PUT', '', [], none, [['RequestReceived', 'update', undefined], ['ResponseComplete', 'update', 200]]],
    ['writing sleep', shortRunningPath, 'PUT', '', [], write(200), [['RequestReceived', 'update', undefined], ['ResponseComplete', 'update', 200]]],
    ['writing 403+write', shortRunningPath, 'PUT', '', [], seq(write(403), write(200)), [['RequestReceived', 'update', undefined], ['ResponseComplete', 'update', 403]]],
    ['writing panic', shortRunningPath, 'PUT', '', [], kaboom, [['RequestReceived', 'update', undefined], ['Panic', 'update', 500]]],
    ['writing write+panic', shortRunningPath, 'PUT', '', [], seq(write(200), kaboom), [['RequestReceived', 'update', undefined], ['Panic', 'update', 500]]],
    // long running requests
    ['empty longrunning', longRunningPath, 'GET', '', [], none, [['RequestReceived', 'watch', undefined], ['ResponseStarted', 'watch', 200], ['ResponseComplete', 'watch', 200]]],
    ['empty longrunning with audit id', longRunningPath, 'GET', 'a1b2', [], write(200), [['RequestReceived', 'watch', undefined], ['ResponseStarted', 'watch', 200], ['ResponseComplete', 'watch', 200]]],
    ['sleep longrunning', longRunningPath, 'GET', '', [], none, [['RequestReceived', 'watch', undefined], ['ResponseStarted', 'watch', 200], ['ResponseComplete', 'watch', 200]]],
    ['sleep+403 longrunning', longRunningPath, 'GET', '', [], write(403), [['RequestReceived', 'watch', undefined], ['ResponseStarted', 'watch', 403], ['ResponseComplete', 'watch', 403]]],
    ['write longrunning', longRunningPath, 'GET', '', [], write(200), [['RequestReceived', 'watch', undefined], ['ResponseStarted', 'watch', 200], ['ResponseComplete', 'watch', 200]]],
    ['403+write longrunning', longRunningPath, 'GET', '', [], seq(write(403), write(200)), [['RequestReceived', 'watch', undefined], ['ResponseStarted', 'watch', 403], ['ResponseComplete', 'watch', 403]]],
    ['panic longrunning', longRunningPath, 'GET', '', [], kaboom, [['RequestReceived', 'watch', undefined], ['Panic', 'watch', 500]]],
    ['write+panic longrunning', longRunningPath, 'GET', '', [], seq(write(200), kaboom), [['RequestReceived', 'watch', undefined], ['ResponseStarted', 'watch', 200], ['Panic', 'watch', 500]]],
    ['omit RequestReceived', shortRunningPath, 'GET', '', ['RequestReceived'], write(200), [['ResponseComplete', 'get', 200]]],
    ['emit Panic only', longRunningPath, 'GET', '', ['RequestReceived', 'ResponseStarted', 'ResponseComplete'], seq(write(200), kaboom), [['Panic', 'watch', 500]]],
  ];
  for (const [desc, path, method, auditID, omitStages, handler, expected] of cases) {
    test(desc, () => {
      const { auditor, sink } = setup(newFakePolicyRuleEvaluator('RequestResponse', omitStages));
      const ac = auditor.begin(request(method, path, { headers: auditID ? { 'audit-id': auditID } : {} }));
      assert.ok(ac);
      handler(ac);
      // The response's close comes after a panic too; it must add nothing.
      ac.complete();
      assert.deepEqual(
        sink.events.map((e) => [e.stage, e.verb, e.responseStatus?.code]),
        expected,
      );
      const ids = new Set(sink.events.map((e) => e.auditID));
      assert.equal(ids.size, 1, 'audits for one request share the same AuditID');
      if (auditID) assert.equal(ac.auditID, auditID);
      for (const e of sink.events) {
        assert.equal(e.user.username, 'admin');
        assert.equal(e.requestURI, path);
        assert.equal(e.objectRef?.apiVersion, 'v1');
        assert.equal(e.objectRef.apiGroup, undefined);
      }
    });
  }

  test('a response that never started completes as `Connection closed early`', () => {
    const { auditor, sink } = setup(newFakePolicyRuleEvaluator('Metadata'));
    auditor.begin(request('GET', shortRunningPath))?.complete();
    assert.deepEqual(sink.events[1]?.responseStatus, { metadata: {}, status: 'Success', message: 'Connection closed early', code: 200 });
  });

  test("a panic is a 500 InternalError `APIServer panic'd: …`", () => {
    const { auditor, sink } = setup(newFakePolicyRuleEvaluator('Metadata'));
    auditor.begin(request('GET', shortRunningPath))?.panic('kaboom');
    assert.deepEqual(sink.events[1]?.responseStatus, { metadata: {}, status: 'Failure', message: "APIServer panic'd: kaboom", reason: 'InternalError', code: 500 });
  });

  test('level None: no context, no events', () => {
    const { auditor, sink } = setup(newFakePolicyRuleEvaluator('None'));
    assert.equal(auditor.begin(request('GET', shortRunningPath)), undefined);
    assert.deepEqual(sink.events, []);
  });

  test('a request without a user does not break (TestAuditNoPanicOnNilUser)', () => {
    const { auditor, sink } = setup(newFakePolicyRuleEvaluator('RequestResponse'));
    const ac = auditor.begin(request('GET', '/api/v1/namespaces/default/pods', { user: undefined }));
    ac?.responseStarted(200);
    ac?.complete();
    assert.deepEqual(sink.events.map((e) => e.user), [{}, {}]);
  });
});

describe('refused requests (upstream authn_audit_test.go)', () => {
  const path = '/api/v1/namespaces/default/pods';
  const refuse = (headers: Record<string, string>, clientCertificate: boolean, omit: AuditStage[] = []): MemoryAuditSink => {
    const { auditor, sink } = setup(newFakePolicyRuleEvaluator('RequestResponse', omit));
    const req = request('GET', path, { headers, user: undefined });
    const ac = auditor.beginRefused(req, authenticationFailedMessage({ headers, clientCertificate }));
    ac?.responseStarted(401);
    ac?.complete();
    return sink;
  };
  const basic = `Basic ${Buffer.from('username:password').toString('base64')}`;

  test('TestFailedAuthnAudit: one ResponseStarted event, 401, naming basic', () => {
    const sink = refuse({ authorization: basic }, false);
    assert.equal(sink.events.length, 1);
    const ev = sink.events[0];
    assert.equal(ev?.stage, 'ResponseStarted');
    assert.equal(ev.responseStatus?.code, 401);
    assert.equal(ev.responseStatus.message, 'Authentication failed, attempted: basic');
    assert.equal(ev.verb, 'list');
    assert.equal(ev.requestURI, path);
    assert.deepEqual(ev.user, {});
  });

  test('TestFailedMultipleAuthnAudit: basic and x509', () => {
    const sink = refuse({ authorization: basic }, true);
    assert.equal(sink.events[0]?.responseStatus?.message, 'Authentication failed, attempted: basic, x509');
  });

  test('TestFailedAuthnAuditWithoutAuthorization: no credentials provided', () => {
    const sink = refuse({}, false);
    assert.equal(sink.events[0]?.responseStatus?.message, 'Authentication failed, no credentials provided');
  });

  test('TestFailedAuthnAuditOmitted: no event when ResponseStarted is omitted', () => {
    assert.equal(refuse({}, false, ['ResponseStarted']).events.length, 0);
  });

  test('the Status the server writes replaces the message, as upstream LogResponseObject does', () => {
    const { auditor, sink } = setup(newFakePolicyRuleEvaluator('Metadata'));
    const ac = auditor.beginRefused(request('GET', path, { user: undefined }), authenticationFailedMessage({ headers: {} }));
    ac?.setResponseObject({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
    ac?.responseStarted(401);
    assert.deepEqual(sink.events[0]?.responseStatus, { metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
  });

  test('authentication methods (getAuthMethods)', () => {
    assert.equal(authenticationFailedMessage({ headers: { authorization: 'Bearer abc' } }), 'Authentication failed, attempted: bearer');
    assert.equal(authenticationFailedMessage({ headers: { authorization: 'bearer' } }), 'Authentication failed, no credentials provided');
    assert.equal(authenticationFailedMessage({ headers: { authorization: 'Basic !!!' } }), 'Authentication failed, no credentials provided');
    assert.equal(authenticationFailedMessage({ headers: {}, accessToken: ' t ' }), 'Authentication failed, attempted: access_token');
  });
});

describe('event contents by level (request.go)', () => {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', uid: 'u-1', resourceVersion: '7', managedFields: [{ manager: 'kubectl', operation: 'Update' }] },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  };
  const run = (level: AuditLevel, omitManagedFields = false): MemoryAuditSink => {
    const policy = newPolicyRuleEvaluator({ omitManagedFields, rules: [{ level }] });
    const clock = new FakeClock(START + 0.123);
    const { auditor, sink } = setup(policy, clock);
    const ac = auditor.begin(
      request('POST', '/api/v1/namespaces/default/pods?fieldManager=kubectl', {
        headers: { 'user-agent': 'kubectl/v1.33.0', 'x-forwarded-for': '10.0.0.9' },
        remoteAddress: '::ffff:127.0.0.1',
        user: { username: 'alice', uid: 'a-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['x'] } },
      }),
    );
    assert.ok(ac);
    ac.setImpersonatedUser({ username: 'bob', groups: ['ops'] });
    ac.setAuthorizationDecision('allow', 'RBAC: allowed by ClusterRoleBinding "x"');
    ac.addAnnotation('z.example/last', 'z');
    ac.setRequestObject(pod);
    clock.step(1.5);
    ac.setResponseObject(pod);
    ac.responseStarted(201);
    clock.step(1);
    ac.complete();
    return sink;
  };

  test('Metadata: who, what, where, the status and annotations; no bodies', () => {
    const events = run('Metadata').events;
    assert.deepEqual(events.map((e) => e.stage), ['RequestReceived', 'ResponseComplete']);
    const done = events[1];
    assert.deepEqual(done, {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'Metadata',
      auditID: 'id-1',
      stage: 'ResponseComplete',
      requestURI: '/api/v1/namespaces/default/pods?fieldManager=kubectl',
      verb: 'create',
      user: { username: 'alice', uid: 'a-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['x'] } },
      impersonatedUser: { username: 'bob', groups: ['ops'] },
      sourceIPs: ['10.0.0.9', '127.0.0.1'],
      userAgent: 'kubectl/v1.33.0',
      // The name, uid and resourceVersion come from the request object, as LogRequestObject fills them.
      objectRef: { resource: 'pods', namespace: 'default', name: 'web', uid: 'u-1', apiVersion: 'v1', resourceVersion: '7' },
      responseStatus: { metadata: {}, code: 201 },
      requestReceivedTimestamp: '2024-01-01T00:00:00.000123Z',
      stageTimestamp: '2024-01-01T00:00:00.002623Z',
      annotations: {
        'authorization.k8s.io/decision': 'allow',
        'authorization.k8s.io/reason': 'RBAC: allowed by ClusterRoleBinding "x"',
        'z.example/last': 'z',
      },
    });
    // JSON field order is upstream's.
    assert.deepEqual(Object.keys(done as object), [
      'kind', 'apiVersion', 'level', 'auditID', 'stage', 'requestURI', 'verb', 'user', 'impersonatedUser', 'sourceIPs',
      'userAgent', 'objectRef', 'responseStatus', 'requestReceivedTimestamp', 'stageTimestamp', 'annotations',
    ]);
    // RequestReceived is stamped with the arrival time and has no status yet.
    assert.equal(events[0]?.stageTimestamp, events[0]?.requestReceivedTimestamp);
    assert.equal(events[0]?.responseStatus, undefined);
  });

  test('Request adds the request object; RequestResponse the response object too', () => {
    const request = run('Request').events[1];
    assert.deepEqual(request?.requestObject, pod);
    assert.equal(request.responseObject, undefined);
    const both = run('RequestResponse').events[1];
    assert.deepEqual(both?.requestObject, pod);
    assert.deepEqual(both.responseObject, pod);
  });

  test('omitManagedFields drops metadata.managedFields from both bodies, leaving the objects unchanged', () => {
    const both = run('RequestResponse', true).events[1];
    const meta: Record<string, unknown> = { ...pod.metadata };
    delete meta['managedFields'];
    assert.deepEqual(both?.requestObject, { ...pod, metadata: meta });
    assert.deepEqual(both.responseObject, { ...pod, metadata: meta });
    assert.ok('managedFields' in pod.metadata);
  });

  test('a patch is recorded as sent; non-resource requests have no objectRef and the method as verb', () => {
    const { auditor, sink } = setup(newFakePolicyRuleEvaluator('Request'));
    const ac = auditor.begin(request('PATCH', '/apis/apps/v1/namespaces/ns/deployments/d/scale'));
    ac?.setRequestPatch({ spec: { replicas: 2 } });
    ac?.complete();
    assert.deepEqual(sink.events[1]?.requestObject, { spec: { replicas: 2 } });
    assert.deepEqual(sink.events[1].objectRef, { resource: 'deployments', namespace: 'ns', name: 'd', apiGroup: 'apps', apiVersion: 'v1', subresource: 'scale' });
    auditor.begin(request('GET', '/healthz'))?.complete();
    assert.equal(sink.events[3]?.verb, 'get');
    assert.equal(sink.events[3].objectRef, undefined);
  });

  test('an annotation keeps its first value; a Status response becomes the responseStatus', () => {
    const { auditor, sink } = setup(newFakePolicyRuleEvaluator('Metadata'));
    const ac = auditor.begin(request('GET', '/api/v1/namespaces/default/pods/x'));
    ac?.setAuthorizationDecision('forbid', 'no');
    ac?.setAuthorizationDecision('allow', 'yes');
    const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'pods "x" not found', reason: 'NotFound', details: { name: 'x', kind: 'pods' }, code: 404 };
    ac?.setResponseObject(status);
    ac?.responseStarted(404);
    ac?.complete();
    const ev = sink.events[1];
    assert.deepEqual(ev?.annotations, { 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': 'no' });
    assert.deepEqual(ev.responseStatus, { metadata: {}, status: 'Failure', message: 'pods "x" not found', reason: 'NotFound', details: { name: 'x', kind: 'pods' }, code: 404 });
    assert.equal(ev.responseObject, undefined);
  });

  test('the audit ID comes from the request, the Audit-Id header, or newId', () => {
    const { auditor } = setup(newFakePolicyRuleEvaluator('Metadata'));
    assert.equal(auditor.begin(request('GET', '/version', { auditID: 'given' }))?.auditID, 'given');
    assert.equal(auditor.begin(request('GET', '/version', { headers: { 'audit-id': 'from-header' } }))?.auditID, 'from-header');
    assert.equal(auditor.begin(request('GET', '/version'))?.auditID, 'id-1');
  });

  test('receivedAt, when given, is the RequestReceived timestamp', () => {
    const { auditor, sink } = setup(newFakePolicyRuleEvaluator('Metadata'));
    auditor.begin(request('GET', '/version', { receivedAt: START - 0.5 }));
    assert.equal(sink.events[0]?.requestReceivedTimestamp, '2023-12-31T23:59:59.999500Z');
  });

  test('a throwing sink does not throw into the request', () => {
    const throwing = { write: () => { throw new Error('disk full'); }, close: () => Promise.resolve() };
    const auditor = new Auditor({ policy: newFakePolicyRuleEvaluator('Metadata'), sink: throwing, clock: new FakeClock(START) });
    assert.doesNotThrow(() => auditor.begin(request('GET', '/version'))?.complete());
  });
});

describe('timestamps: microseconds from a millisecond wall clock (Auditor.now)', () => {
  /** A wall clock in whole milliseconds with a finer monotonic clock, as the real clock is. */
  class CoarseClock implements Clock {
    t = START + 0.4;
    now(): number {
      return Math.floor(this.t);
    }
    since(x: number): number {
      return this.now() - x;
    }
    monotonic(): number {
      return this.t - START + 5000;
    }
    setTimer(): Timer {
      return { stop: () => false };
    }
    sleep(): Promise<void> {
      return Promise.resolve();
    }
  }

  test('readings stay within the wall clock millisecond and carry sub-millisecond detail', () => {
    const clock = new CoarseClock();
    const { auditor } = setup(newFakePolicyRuleEvaluator('Metadata'), clock);
    for (const dt of [0.25, 0.25, 0.5, 0.123, 3.001, 0.9]) {
      clock.t += dt;
      const t = auditor.now();
      assert.ok(t >= clock.now() && t < clock.now() + 1, `${t} within [${clock.now()}, +1)`);
    }
    // Readings never go backwards while the clocks agree, and stay within a millisecond of the truth.
    let last = auditor.now();
    for (let i = 0; i < 20; i++) {
      clock.t += 0.37;
      const t = auditor.now();
      assert.ok(t >= last && Math.abs(t - clock.t) < 1);
      last = t;
    }
  });

  test('with a fake clock the reading is exactly now()', () => {
    const clock = new FakeClock(START);
    const { auditor } = setup(newFakePolicyRuleEvaluator('Metadata'), clock);
    clock.step(1.234567);
    assert.equal(auditor.now(), START + 1.234567);
  });
});
