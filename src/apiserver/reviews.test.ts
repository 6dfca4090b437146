import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedStrategies } from './registry/resources/index.js';
import { newTestServer } from './testing/fixtures.js';
import type { StatusError } from '../machinery/errors/index.js';

test('self reviews: created, answered, never stored; other verbs 405; invalid specs 422', async () => {
  const { server, backend } = await newTestServer({ strategies: servedStrategies });
  const ssar = { group: 'authorization.k8s.io', version: 'v1', resource: 'selfsubjectaccessreviews' } as const;
  const before = backend.currentRevision();
  const res = await server.handle({
    ...ssar,
    verb: 'create',
    body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'list', resource: 'pods', namespace: 'default' } } },
  });
  assert.equal(res.code, 201);
  assert.deepEqual(res.body, {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    metadata: { creationTimestamp: null },
    spec: { resourceAttributes: { verb: 'list', resource: 'pods', namespace: 'default' } },
    status: { allowed: true },
  });
  assert.equal(backend.currentRevision(), before, 'nothing was written');

  const whoami = await server.handle({ group: 'authentication.k8s.io', version: 'v1', resource: 'selfsubjectreviews', verb: 'create', body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
  assert.deepEqual((whoami.body as { status: unknown }).status, { userInfo: { username: 'kubeplane-admin', groups: ['system:masters', 'system:authenticated'] } });

  await assert.rejects(server.handle({ ...ssar, verb: 'list' }), (err: StatusError) => err.code === 405);
  await assert.rejects(server.handle({ ...ssar, verb: 'get', name: 'x' }), (err: StatusError) => err.code === 405);
  await assert.rejects(server.handle({ ...ssar, verb: 'create', body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: {} } }), (err: StatusError) => {
    assert.equal(err.code, 422);
    assert.equal(
      err.message,
      '.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
    return true;
  });
  await server.close();
});
