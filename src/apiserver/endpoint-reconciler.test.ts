/**
 * The lease endpoint reconciler (pkg/controlplane/reconcilers/lease.go's behaviour): the `kubernetes`
 * Endpoints list every API server whose lease key is fresh, one subset per port; an API server that
 * stops disappears at once, one that dies when its key is older than the TTL.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Endpoints } from '../api/index.js';
import { newFakeServer } from '../testing/index.js';
import { FakeClock } from '../util/clock/index.js';
import { silentLogger } from '../util/runtime/index.js';
import { LEASE_TTL_MS, LeaseEndpointReconciler, MASTER_LEASES_PREFIX, RECONCILE_INTERVAL_MS } from './endpoint-reconciler.js';

async function endpoints(transport: { request(req: object): Promise<unknown> }): Promise<Endpoints> {
  return (await transport.request({ verb: 'get', group: '', version: 'v1', resource: 'endpoints', namespace: 'default', name: 'kubernetes' })) as Endpoints;
}

describe('LeaseEndpointReconciler', () => {
  test('every live API server is listed; a stopped one is removed at once, a dead one after the TTL', async () => {
    const clock = new FakeClock(1_000_000);
    const { server, backend } = await newFakeServer({ clock });
    const transport = server.inProcessTransport();
    const make = (ip: string, port: number) => new LeaseEndpointReconciler({ backend, transport, clock, ip, port, logger: silentLogger });
    const a = make('127.0.0.1', 6443);
    const b = make('127.0.0.1', 6444);
    const c = make('10.0.0.2', 6443);
    await a.reconcile();
    await b.reconcile();
    await c.reconcile();
    await a.reconcile();
    const ep = await endpoints(transport);
    assert.equal(ep.metadata?.labels?.['endpointslice.kubernetes.io/skip-mirror'], 'true');
    assert.deepEqual(ep.subsets, [
      { addresses: [{ ip: '10.0.0.2' }, { ip: '127.0.0.1' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] },
      { addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: 6444, protocol: 'TCP' }] },
    ]);

    await b.stop();
    assert.deepEqual((await endpoints(transport)).subsets?.map((s) => s.ports?.[0]?.port), [6443], 'a stopped server is gone at once');

    // c dies without stopping: a keeps renewing, and after the TTL c's key is dropped.
    clock.step(LEASE_TTL_MS - 1);
    await a.reconcile();
    assert.deepEqual((await endpoints(transport)).subsets?.[0]?.addresses, [{ ip: '10.0.0.2' }, { ip: '127.0.0.1' }], 'still within the TTL');
    clock.step(1);
    await a.reconcile();
    assert.deepEqual((await endpoints(transport)).subsets, [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }]);
    assert.deepEqual((await backend.list(MASTER_LEASES_PREFIX)).kvs.map((kv) => kv.key), [`${MASTER_LEASES_PREFIX}127.0.0.1:6443`], 'the expired key was deleted');
  });

  test('start renews every interval, so a running server never expires; an unchanged list is not rewritten', async () => {
    const clock = new FakeClock(1_000_000);
    const { server, backend } = await newFakeServer({ clock });
    const transport = server.inProcessTransport();
    const a = new LeaseEndpointReconciler({ backend, transport, clock, ip: '127.0.0.1', port: 6443, logger: silentLogger });
    a.start();
    const settle = async () => {
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    await settle();
    const first = await endpoints(transport);
    for (let i = 0; i < 5; i++) {
      clock.step(RECONCILE_INTERVAL_MS);
      await settle();
    }
    const later = await endpoints(transport);
    assert.deepEqual(later.subsets, first.subsets);
    assert.equal(later.metadata?.resourceVersion, first.metadata?.resourceVersion, 'not rewritten');
    const key = (await backend.get(`${MASTER_LEASES_PREFIX}127.0.0.1:6443`))?.value ?? '{}';
    assert.equal((JSON.parse(key) as { renewTime: number }).renewTime, clock.now(), 'renewed at the last interval');
    await a.stop();
    assert.equal((await endpoints(transport)).subsets, undefined);
  });
});
