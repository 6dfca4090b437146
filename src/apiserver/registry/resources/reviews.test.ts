/**
 * The review kinds: validation (cases ported from pkg/apis/authorization/validation/validation_test.go
 * TestValidateSARSpec, TestValidateSelfSAR, TestValidateLocalSAR), and the answers through the server.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../api/index.js';
import { fieldErrorString } from '../../../machinery/errors/index.js';
import { staticTokenAuthenticator } from '../../authn/index.js';
import { newTestServer, rejectsWithStatus } from '../../testing/fixtures.js';
import { servedStrategies } from './index.js';
import { localSubjectAccessReviewStrategy, selfSubjectAccessReviewStrategy, subjectAccessReviewStrategy } from './reviews.js';

const review = (kind: string, spec: KubeObject['spec'], metadata?: KubeObject['metadata']): KubeObject => ({
  apiVersion: 'authorization.k8s.io/v1',
  kind,
  ...(metadata ? { metadata } : {}),
  spec,
});
type Validated = typeof subjectAccessReviewStrategy;
const errorsOf = (strategy: Validated, obj: KubeObject): string[] => strategy.validate(obj).map(fieldErrorString);
const sar = (spec: unknown, metadata?: KubeObject['metadata']): string[] => errorsOf(subjectAccessReviewStrategy, review('SubjectAccessReview', spec, metadata));
const localSar = (spec: unknown, metadata?: KubeObject['metadata']): string[] => errorsOf(localSubjectAccessReviewStrategy, review('LocalSubjectAccessReview', spec, metadata));
const selfSar = (spec: unknown, metadata?: KubeObject['metadata']): string[] => errorsOf(selfSubjectAccessReviewStrategy, review('SelfSubjectAccessReview', spec, metadata));

const BOTH = 'may not specified at the same time as requirements';

describe('SubjectAccessReview validation (TestValidateSARSpec)', () => {
  test('success cases: a subject and exactly one kind of attributes; raw selectors and unknown operators pass', () => {
    const ok = [
      { resourceAttributes: {}, user: 'me' },
      { nonResourceAttributes: {}, groups: ['my-group'] },
      { user: 'me', resourceAttributes: { fieldSelector: { rawSelector: '***foo' } } },
      { user: 'me', resourceAttributes: { labelSelector: { rawSelector: '***foo' } } },
      { user: 'me', resourceAttributes: { fieldSelector: { requirements: [{ key: 'k', operator: 'fake', values: ['val'] }] } } },
      { user: 'me', resourceAttributes: { labelSelector: { requirements: [{ key: 'k', operator: 'fake', values: ['val'] }] } } },
    ];
    for (const spec of ok) assert.deepEqual(sar(spec), [], JSON.stringify(spec));
  });

  // [name, spec, the first error] — upstream checks that errs[0] contains msg; here it is the whole error.
  const cases: [string, unknown, string][] = [
    ['neither request', { user: 'me' }, 'spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified'],
    [
      'both requests',
      { resourceAttributes: {}, nonResourceAttributes: {}, user: 'me' },
      'spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"", Verb:""}: cannot be specified in combination with resourceAttributes',
    ],
    ['no subject', { resourceAttributes: {} }, 'spec.user: Invalid value: "": at least one of user or group must be specified'],
    ['field selector specify both', { user: 'me', resourceAttributes: { fieldSelector: { rawSelector: 'foo', requirements: [{}] } } }, `spec.resourceAttributes.fieldSelector.rawSelector: Invalid value: "foo": ${BOTH}`],
    [
      'field selector specify neither',
      { user: 'me', resourceAttributes: { fieldSelector: {} } },
      'spec.resourceAttributes.fieldSelector.requirements: Required value: when spec.resourceAttributes.fieldSelector is specified, requirements or rawSelector is required',
    ],
    ['field selector no key', { user: 'me', resourceAttributes: { fieldSelector: { requirements: [{ key: '' }] } } }, 'spec.resourceAttributes.fieldSelector.requirements[0].key: Required value: must be specified'],
    [
      'field selector no value for in',
      { user: 'me', resourceAttributes: { fieldSelector: { requirements: [{ key: 'k', operator: 'In', values: [] }] } } },
      "spec.resourceAttributes.fieldSelector.requirements[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    ],
    [
      'field selector no value for not in',
      { user: 'me', resourceAttributes: { fieldSelector: { requirements: [{ key: 'k', operator: 'NotIn', values: [] }] } } },
      "spec.resourceAttributes.fieldSelector.requirements[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    ],
    [
      'field selector values for exists',
      { user: 'me', resourceAttributes: { fieldSelector: { requirements: [{ key: 'k', operator: 'Exists', values: ['val'] }] } } },
      "spec.resourceAttributes.fieldSelector.requirements[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
    ],
    [
      'field selector values for not exists',
      { user: 'me', resourceAttributes: { fieldSelector: { requirements: [{ key: 'k', operator: 'DoesNotExist', values: ['val'] }] } } },
      "spec.resourceAttributes.fieldSelector.requirements[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
    ],
    ['label selector specify both', { user: 'me', resourceAttributes: { labelSelector: { rawSelector: 'foo', requirements: [{}] } } }, `spec.resourceAttributes.labelSelector.rawSelector: Invalid value: "foo": ${BOTH}`],
    [
      'label selector specify neither',
      { user: 'me', resourceAttributes: { labelSelector: {} } },
      'spec.resourceAttributes.labelSelector.requirements: Required value: when spec.resourceAttributes.labelSelector is specified, requirements or rawSelector is required',
    ],
    ['label selector no key', { user: 'me', resourceAttributes: { labelSelector: { requirements: [{ key: '' }] } } }, 'spec.resourceAttributes.labelSelector.requirements[0].key: Invalid value: "": name part must be non-empty'],
    [
      'label selector invalid label name',
      { user: 'me', resourceAttributes: { labelSelector: { requirements: [{ key: '()foo' }] } } },
      "spec.resourceAttributes.labelSelector.requirements[0].key: Invalid value: \"()foo\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ],
    [
      'label selector no value for in',
      { user: 'me', resourceAttributes: { labelSelector: { requirements: [{ key: 'k', operator: 'In', values: [] }] } } },
      "spec.resourceAttributes.labelSelector.requirements[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    ],
    [
      'label selector values for exists',
      { user: 'me', resourceAttributes: { labelSelector: { requirements: [{ key: 'k', operator: 'Exists', values: ['val'] }] } } },
      "spec.resourceAttributes.labelSelector.requirements[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
    ],
  ];
  for (const [name, spec, message] of cases) {
    test(`error: ${name} (SubjectAccessReview and LocalSubjectAccessReview)`, () => {
      assert.equal(sar(spec)[0], message);
      assert.equal(localSar(spec, { namespace: '' })[0], message);
    });
  }

  test('metadata must be empty (managedFields aside), printed as Go prints an ObjectMeta', () => {
    assert.deepEqual(sar({ user: 'me', resourceAttributes: {} }, { creationTimestamp: null as unknown as string, managedFields: [{ manager: 'x' }] }), []);
    assert.deepEqual(sar({ user: 'me', resourceAttributes: {} }, { name: 'x', labels: { a: 'b' } }), [
      'metadata: Invalid value: v1.ObjectMeta{Name:"x", GenerateName:"", Namespace:"", SelfLink:"", UID:"", ResourceVersion:"", Generation:0, ' +
        'CreationTimestamp:time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC), DeletionTimestamp:<nil>, DeletionGracePeriodSeconds:(*int64)(nil), ' +
        'Labels:map[string]string{"a":"b"}, Annotations:map[string]string(nil), OwnerReferences:[]v1.OwnerReference(nil), Finalizers:[]string(nil), ' +
        'ManagedFields:[]v1.ManagedFieldsEntry(nil)}: must be empty',
    ]);
  });
});

describe('SelfSubjectAccessReview validation (TestValidateSelfSAR)', () => {
  test('exactly one kind of attributes, the selectors, an empty metadata', () => {
    assert.deepEqual(selfSar({ resourceAttributes: {} }), []);
    assert.deepEqual(selfSar({}), ['spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified']);
    assert.match(selfSar({ resourceAttributes: {}, nonResourceAttributes: {} })[0] ?? '', /cannot be specified in combination with resourceAttributes$/);
    assert.equal(selfSar({ resourceAttributes: { labelSelector: { rawSelector: 'foo', requirements: [{}] } } })[0], `spec.resourceAttributes.labelSelector.rawSelector: Invalid value: "foo": ${BOTH}`);
    assert.match(selfSar({ resourceAttributes: {} }, { name: 'a' })[0] ?? '', /^metadata: Invalid value: v1\.ObjectMeta\{Name:"a", .*: must be empty$/);
  });
});

describe('LocalSubjectAccessReview validation (TestValidateLocalSAR)', () => {
  test('metadata empty but the namespace; resourceAttributes in that namespace; no nonResourceAttributes', () => {
    assert.deepEqual(localSar({ resourceAttributes: { namespace: 'a' }, user: 'user' }, { namespace: 'a' }), []);
    assert.match(localSar({ resourceAttributes: {}, user: 'user' }, { name: 'a' })[0] ?? '', /: must be empty except for namespace$/);
    assert.deepEqual(localSar({ resourceAttributes: {}, user: 'user' }, { namespace: 'a' }), ['spec.resourceAttributes.namespace: Invalid value: "": must match metadata.namespace']);
    assert.deepEqual(localSar({ nonResourceAttributes: { path: '/x', verb: 'get' }, user: 'user' }, { namespace: 'a' }), [
      'spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/x", Verb:"get"}: disallowed on this kind of request',
    ]);
  });
});

describe('review answers through the server', () => {
  const TOKEN = 'the-token';
  const start = () => newTestServer({ strategies: servedStrategies, authenticator: staticTokenAuthenticator(TOKEN) });
  const create = (t: Awaited<ReturnType<typeof start>>, group: string, resource: string, body: unknown, namespace?: string) =>
    t.server.handle({ group, version: 'v1', resource, verb: 'create', body, ...(namespace ? { namespace } : {}) });
  const status = (r: { body: unknown }): unknown => (r.body as KubeObject).status;

  test('TokenReview: the cluster token is the admin, for the API audiences; any other token is not authenticated; no token is 400', async () => {
    const t = await start();
    const tr = (spec: unknown) => create(t, 'authentication.k8s.io', 'tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec });
    const ok = await tr({ token: TOKEN });
    assert.equal(ok.code, 201);
    assert.deepEqual(ok.body, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      metadata: { creationTimestamp: null },
      spec: { token: TOKEN },
      status: {
        authenticated: true,
        user: { username: 'kubeplane-admin', groups: ['system:masters', 'system:authenticated'] },
        audiences: ['https://kubernetes.default.svc.cluster.local'],
      },
    });
    assert.deepEqual(status(await tr({ token: 'wrong' })), { user: {}, error: 'invalid bearer token' });
    // Audience-agnostic: valid for the API audiences asked for, not for others.
    assert.deepEqual((status(await tr({ token: TOKEN, audiences: ['other', 'https://kubernetes.default.svc.cluster.local'] })) as { audiences: string[] }).audiences, [
      'https://kubernetes.default.svc.cluster.local',
    ]);
    assert.deepEqual(status(await tr({ token: TOKEN, audiences: ['other'] })), { user: {}, error: 'invalid bearer token' });
    await rejectsWithStatus(tr({}), 400, 'token is required for TokenReview in authentication');
    assert.equal(t.backend.currentRevision(), t.server.currentRevision());
    await t.server.close();

    const anonymous = await newTestServer({ strategies: servedStrategies });
    const res = await anonymous.server.handle({ group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews', verb: 'create', body: { spec: { token: TOKEN } } });
    // Service-account tokens are always authenticated (kube-apiserver always has a signing key), so
    // a server without the static token still judges tokens, and this one is not its.
    assert.deepEqual(status(res), { user: {}, error: 'invalid bearer token' }, 'without the static token only service-account tokens are authenticated');
    await anonymous.server.close();
  });

  test('SubjectAccessReview: answered by the authorizer (system:masters, then RBAC) with its reason; invalid ones name no kind', async () => {
    const t = await start();
    const ra = { verb: 'get', resource: 'pods', namespace: 'default' };
    const body = (spec: unknown) => ({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec });
    const before = t.backend.currentRevision();
    // A user name alone grants nothing: the admin's power is its group.
    assert.deepEqual(status(await create(t, 'authorization.k8s.io', 'subjectaccessreviews', body({ user: 'kubeplane-admin', resourceAttributes: ra }))), { allowed: false });
    assert.deepEqual(status(await create(t, 'authorization.k8s.io', 'subjectaccessreviews', body({ user: 'x', groups: ['system:masters'], resourceAttributes: ra }))), { allowed: true });
    assert.deepEqual(status(await create(t, 'authorization.k8s.io', 'subjectaccessreviews', body({ user: 'x', groups: ['system:authenticated'], nonResourceAttributes: { path: '/healthz', verb: 'get' } }))), {
      allowed: true,
      // Bindings are visited in name order: system:discovery grants /healthz before system:public-info-viewer.
      reason: 'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"',
    });
    const denied = await create(t, 'authorization.k8s.io', 'subjectaccessreviews', body({ user: 'someone', nonResourceAttributes: { path: '/healthz', verb: 'get' } }));
    assert.deepEqual(denied.body, {
      ...body({ user: 'someone', nonResourceAttributes: { path: '/healthz', verb: 'get' } }),
      metadata: { creationTimestamp: null },
      status: { allowed: false },
    });
    assert.equal(t.backend.currentRevision(), before, 'nothing is stored');
    await rejectsWithStatus(
      create(t, 'authorization.k8s.io', 'subjectaccessreviews', body({ resourceAttributes: ra })),
      422,
      '.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified',
    );
    await t.server.close();
  });

  test('LocalSubjectAccessReview: takes the URL namespace; another one in the body is 400', async () => {
    const t = await start();
    const body = (metadata: unknown, namespace: string) => ({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'LocalSubjectAccessReview',
      metadata,
      spec: { groups: ['system:masters'], resourceAttributes: { verb: 'get', resource: 'pods', namespace } },
    });
    const res = await create(t, 'authorization.k8s.io', 'localsubjectaccessreviews', body({}, 'kube-system'), 'kube-system');
    assert.deepEqual((res.body as KubeObject).metadata, { namespace: 'kube-system', creationTimestamp: null });
    assert.deepEqual(status(res), { allowed: true });
    await rejectsWithStatus(
      create(t, 'authorization.k8s.io', 'localsubjectaccessreviews', body({}, 'default'), 'kube-system'),
      422,
      '.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "default": must match metadata.namespace',
    );
    await rejectsWithStatus(
      create(t, 'authorization.k8s.io', 'localsubjectaccessreviews', body({ namespace: 'default' }, 'default'), 'kube-system'),
      400,
      'the namespace of the provided object does not match the namespace sent on the request',
    );
    await t.server.close();
  });

  test("SelfSubjectRulesReview: the admin's rules, a fresh object; no namespace is 400", async () => {
    const t = await start();
    const res = await create(t, 'authorization.k8s.io', 'selfsubjectrulesreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'default' } });
    const body = res.body as { spec: unknown; metadata: unknown; status: { resourceRules: unknown[]; nonResourceRules: unknown[]; incomplete: boolean } };
    assert.deepEqual(body.spec, {});
    assert.deepEqual(body.metadata, { creationTimestamp: null });
    assert.equal(body.status.incomplete, false);
    assert.deepEqual(body.status.resourceRules[0], { verbs: ['*'], apiGroups: ['*'], resources: ['*'] });
    assert.deepEqual(body.status.nonResourceRules[0], { verbs: ['*'], nonResourceURLs: ['*'] });
    assert.deepEqual(body.status.resourceRules.length + body.status.nonResourceRules.length, 6);
    await rejectsWithStatus(
      create(t, 'authorization.k8s.io', 'selfsubjectrulesreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: {} }),
      400,
      'no namespace on request',
    );
    await t.server.close();
  });
});
