import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Lease } from '../api/index.js';
import type { Clientset } from '../client/index.js';
import { newNotFound } from '../machinery/errors/index.js';
import { FakeClock, parseTime } from '../util/clock/index.js';
import { NodeLeaseController } from './node-lease.js';

/**
 * Each node renews on its own schedule, 10 s after its last renewal ended, whatever the number of
 * nodes: with a 1 s API latency, 200 nodes still renew every 11 s. (Renewed in rounds of 32, the
 * next round 10 s after the last ended, they renewed every 17 s; with 5,000 nodes on a busy server,
 * past the node monitor's 50 s grace.)
 */
test('200 leases, each write taking 1 s: every lease is renewed every 11 s', async () => {
  const clock = new FakeClock();
  const renewals = new Map<string, number[]>();
  const write = async (lease: Lease): Promise<Lease> => {
    await clock.sleep(1000);
    const name = lease.metadata?.name ?? '';
    renewals.set(name, [...(renewals.get(name) ?? []), parseTime(lease.spec?.renewTime) ?? NaN]);
    return lease;
  };
  const leases = { get: (name: string) => Promise.reject(newNotFound({ group: 'coordination.k8s.io', resource: 'leases' }, name)), create: write, update: write };
  const client = { coordination: { leases: () => leases } } as unknown as Clientset;
  const controller = new NodeLeaseController({ client, clock });
  for (let i = 0; i < 200; i++) controller.add(`n${i}`, `uid-${i}`);
  controller.start();
  for (let t = 0; t < 60_000; t += 500) await clock.stepAsync(500);
  controller.stop();
  assert.equal(renewals.size, 200);
  for (const [name, times] of renewals) {
    assert.ok(times.length >= 5, `${name} renewed ${times.length} times in 60 s`);
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    assert.ok(Math.max(...gaps) <= 11_000, `${name}: renewals ${Math.max(...gaps)} ms apart`);
  }
});
