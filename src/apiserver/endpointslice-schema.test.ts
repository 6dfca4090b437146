/**
 * EndpointSlices (discovery.k8s.io/v1) have a field schema since it is generated from upstream's Go
 * types (ADR 8). Before, the schema had no discovery.k8s.io kinds: unknown fields were stored whatever
 * `fieldValidation` said, and a strategic merge patch was refused with 415 as for a custom resource.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedStrategies } from './registry/resources/index.js';
import { newTestServer, obj, rejectsWithStatus, type Req, type TestServer } from './testing/fixtures.js';
import type { HandleResult } from './index.js';

const slices = (t: TestServer, req: Req): Promise<HandleResult> =>
  t.server.handle({ group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', namespace: 'default', ...req });

const slice = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { name: 'web-abc', labels: { 'kubernetes.io/service-name': 'web' } },
  addressType: 'IPv4',
  endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }],
  ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
  ...extra,
});

test('fieldValidation=Strict rejects an unknown field of an EndpointSlice with 400, at any depth', async () => {
  const t = await newTestServer({ strategies: servedStrategies });
  await rejectsWithStatus(
    slices(t, { verb: 'create', body: slice({ endpoints: [{ addresses: ['10.0.0.1'], zones: ['a'] }], extra: 1 }), query: { fieldValidation: 'Strict' } }),
    400,
    'EndpointSlice in version "v1" cannot be handled as a EndpointSlice: strict decoding error: unknown field "endpoints[0].zones", unknown field "extra"',
  );
  const warned = await slices(t, { verb: 'create', body: slice({ extra: 1 }), query: { fieldValidation: 'Warn' } });
  assert.deepEqual(warned.warnings, ['unknown field "extra"']);
  assert.equal(obj(warned)['extra'], undefined);
});

test('a strategic merge patch of an EndpointSlice works: labels merge, the endpoints list (no patch strategy) is replaced', async () => {
  const t = await newTestServer({ strategies: servedStrategies });
  await slices(t, { verb: 'create', body: slice() });
  const patched = obj(
    await slices(t, {
      verb: 'patch',
      name: 'web-abc',
      patchType: 'application/strategic-merge-patch+json',
      body: { metadata: { labels: { tier: 'front' } }, endpoints: [{ addresses: ['10.0.0.2'] }] },
    }),
  );
  assert.deepEqual(patched.metadata?.labels, { 'kubernetes.io/service-name': 'web', tier: 'front' });
  // EndpointSlice.endpoints has no patchStrategy tag (it is +listType=atomic): the patch's list replaces it.
  assert.deepEqual(patched['endpoints'], [{ addresses: ['10.0.0.2'] }]);
  assert.deepEqual(patched['ports'], [{ name: 'http', port: 80, protocol: 'TCP' }]);
  await rejectsWithStatus(
    slices(t, { verb: 'patch', name: 'web-abc', patchType: 'application/strategic-merge-patch+json', body: { bogus: 1 }, query: { fieldValidation: 'Strict' } }),
    422,
    /strict decoding error: unknown field "bogus"$/,
  );
});
