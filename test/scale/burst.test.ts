/**
 * A 10,000-pod burst under the fake clock (issue 18): one Deployment of 10,000 replicas on 100
 * simulated nodes goes from nothing to every pod Ready, and on the way no event recorder drops an
 * event because its queue was full and no controller drops a key after its retries. Both are what
 * a busy real cluster loses first (client-go's broadcaster drops events when its 1000-event channel
 * is full; deployment_controller.go `handleErr` drops a key after 15 failed syncs).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { FakeClock } from '../../src/util/clock/index.js';
import { SeededRand } from '../../src/util/random/index.js';
import { MemoryBackend } from '../../src/storage/memory/index.js';
import { startControlPlane } from '../../src/cli/cluster.js';
import { deployment } from '../integration/cluster-helpers.js';

const REPLICAS = Number(process.env.BURST_REPLICAS ?? 10_000);

test('a 10,000-pod burst: every pod Ready, no event dropped, no key dropped after retries', { timeout: 600_000 }, async () => {
  const lines: { msg: string; component?: string; key?: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done): void {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as { msg: string });
      done();
    },
  });
  const clock = new FakeClock();
  const backend = new MemoryBackend();
  const starting = startControlPlane({ backend, nodes: 100, clock, rand: new SeededRand(7), logger: pino({ level: 'info' }, sink) });
  let started = false;
  void starting.then(() => (started = true));
  for (let i = 0; i < 200 && !started; i++) await clock.stepAsync(10);
  const cp = await starting;
  try {
    await cp.client.apps.deployments('default').create(deployment('burst', REPLICAS));
    let ready = 0;
    for (let step = 0; step < 3000 && ready < REPLICAS; step++) {
      await clock.stepAsync(100);
      if (step % 10 === 0) ready = (await cp.client.apps.deployments('default').get('burst')).status?.readyReplicas ?? 0;
    }
    assert.equal(ready, REPLICAS);
    const dropped = lines.filter((l) => /dropping|Dropping/.test(l.msg));
    assert.deepEqual(dropped, []);
  } finally {
    await cp.stop();
    await backend.close();
  }
});
