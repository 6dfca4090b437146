/**
 * The core/v1 `bindings` collection binds a pod as `pods/<name>/binding` does (the same code path):
 * spec.nodeName and PodScheduled set, 201 Success; a pod already bound is 409; a Binding without a
 * name is 400 `Name parameter required.`; other verbs are 405.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newTestServer, obj, pods, rejectsWithStatus, type TestServer } from '../../testing/fixtures.js';
import { servedStrategies } from './index.js';

const bind = (t: TestServer, body: unknown, namespace = 'default') =>
  t.server.handle({ verb: 'create', group: '', version: 'v1', resource: 'bindings', namespace, body });

test('POST bindings binds the pod the Binding names', async () => {
  const t = await newTestServer({ strategies: servedStrategies });
  await pods(t, { verb: 'create', body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } });
  const res = await bind(t, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'web', annotations: { via: 'bindings' } }, target: { apiVersion: 'v1', kind: 'Node', name: 'node-1' } });
  assert.equal(res.code, 201);
  assert.deepEqual(res.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
  const pod = obj(await pods(t, { verb: 'get', name: 'web' }));
  assert.equal((pod.spec as { nodeName?: string }).nodeName, 'node-1');
  assert.equal(pod.metadata?.annotations?.via, 'bindings');
  assert.equal((pod.status as { conditions?: { type: string; status: string }[] }).conditions?.find((c) => c.type === 'PodScheduled')?.status, 'True');
  await rejectsWithStatus(bind(t, { metadata: { name: 'web' }, target: { name: 'node-2' } }), 409, 'Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "node-1"');
  await rejectsWithStatus(bind(t, { metadata: { name: 'ghost' }, target: { name: 'node-1' } }), 404, 'pods "ghost" not found');
  await rejectsWithStatus(bind(t, { target: { name: 'node-1' } }), 400, 'Name parameter required.');
  await rejectsWithStatus(bind(t, { metadata: { name: 'web', namespace: 'other' }, target: { name: 'node-1' } }), 400, 'the namespace of the provided object does not match the namespace sent on the request');
  await rejectsWithStatus(t.server.handle({ verb: 'list', group: '', version: 'v1', resource: 'bindings', namespace: 'default' }), 405);
  await t.server.close();
});
