/**
 * Leader election under the FakeClock, against the real API server behind the test fake: the Lease
 * goes through the server's validation and resourceVersion checks. Cases after upstream
 * client-go tools/leaderelection/leaderelection_test.go (TestTryAcquireOrRenew: acquire an empty or
 * expired lock, wait out an unexpired one, renew; TestReleaseLeaseLeases) and the behaviour of `Run`
 * (losing the lease after the renew deadline, release on cancel, the 409 deciding a race).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Lease } from '../../api/index.js';
import { newClientset, type Clientset, type Transport } from '../../client/index.js';
import { FakeTransport } from '../../client/fake/index.js';
import { isAlreadyExists, isConflict, newInternalError } from '../../machinery/errors/index.js';
import { newFakeServer, type FakeServer } from '../../testing/index.js';
import { FakeClock, formatMicroTime, type Clock } from '../../util/clock/index.js';
import { SeededRand, type Rand } from '../../util/random/index.js';
import { silentLogger } from '../../util/runtime/index.js';
import { LeaderElector, type LeaderElectorOptions } from './index.js';

const T0 = Date.UTC(2025, 0, 1);
const NS = 'kube-system';
const NAME = 'kube-controller-manager';

/** One candidate: its elector, what its callbacks saw, and its run. */
interface Candidate {
  elector: LeaderElector;
  transport: FakeTransport;
  ac: AbortController;
  done: Promise<void>;
  /** The signal onStartedLeading got (undefined until it led). */
  leading?: AbortSignal;
  startedLeading: number;
  stoppedLeading: number;
  newLeaders: string[];
  finished: boolean;
  /** Runs inside onStoppedLeading, if set. */
  whenStopped?: () => void;
}

async function setup() {
  const clock = new FakeClock(T0);
  const fake: FakeServer = await newFakeServer({ clock, rand: new SeededRand(7) });
  const admin = newClientset(fake.server.inProcessTransport());
  const leases = admin.coordination.leases(NS);
  const candidates: Candidate[] = [];

  /** Starts candidate `identity` on its own fake transport (wrapped by `wrap`, if given). */
  const start = (identity: string, opts: Partial<LeaderElectorOptions> = {}, wrap?: (t: Transport) => Transport): Candidate => {
    const transport = new FakeTransport(fake.server.inProcessTransport());
    const client: Clientset = newClientset(wrap ? wrap(transport) : transport, { userAgent: identity });
    const c = { transport, ac: new AbortController(), startedLeading: 0, stoppedLeading: 0, newLeaders: [], finished: false } as unknown as Candidate;
    c.elector = new LeaderElector({
      client,
      clock,
      namespace: NS,
      name: NAME,
      identity,
      logger: silentLogger,
      onStartedLeading: (signal) => {
        c.startedLeading++;
        c.leading = signal;
      },
      onStoppedLeading: () => {
        c.stoppedLeading++;
        c.whenStopped?.();
      },
      onNewLeader: (id) => c.newLeaders.push(id),
      ...opts,
    });
    c.done = c.elector.run(c.ac.signal).then(() => {
      c.finished = true;
    });
    candidates.push(c);
    return c;
  };

  /** Advances the clock `ms` in 100 ms steps, letting requests finish after every timer. */
  const advance = async (ms: number): Promise<void> => {
    for (let left = ms; left > 0; left -= 100) await clock.stepAsync(Math.min(100, left));
  };

  const lease = (): Promise<Lease> => leases.get(NAME);
  const leaders = (): string[] => candidates.filter((c) => c.elector.isLeader()).map((c) => c.elector.getLeader());
  const stopAll = async (): Promise<void> => {
    for (const c of candidates) c.ac.abort();
    await clock.stepAsync(0);
    await Promise.all(candidates.map((c) => c.done));
  };
  return { clock, fake, leases, start, advance, lease, leaders, stopAll };
}

/** A clock that reads `skewMs` ahead of `clock` but runs at its rate (another machine's clock). */
function skewed(clock: FakeClock, skewMs: number): Clock {
  return {
    now: () => clock.now() + skewMs,
    since: (t) => clock.now() + skewMs - t,
    monotonic: () => clock.monotonic(),
    setTimer: (ms, fn) => clock.setTimer(ms, fn),
    sleep: (ms) => clock.sleep(ms),
  };
}

describe('LeaderElector', () => {
  test('a single candidate creates the Lease, leads, and renews every retry period', async () => {
    const s = await setup();
    const a = s.start('a', { releaseOnCancel: false });
    await s.clock.stepAsync(0);

    let lease = await s.lease();
    assert.deepEqual(lease.spec, {
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      acquireTime: formatMicroTime(T0),
      renewTime: formatMicroTime(T0),
      leaseTransitions: 0,
    });
    assert.equal(lease.spec?.renewTime, '2025-01-01T00:00:00.000000Z');
    assert.equal(a.startedLeading, 1);
    assert.equal(a.elector.isLeader(), true);
    assert.equal(a.elector.getLeader(), 'a');
    assert.deepEqual(a.newLeaders, ['a']);

    await s.advance(1900);
    assert.equal((await s.lease()).spec?.renewTime, formatMicroTime(T0), 'no renewal before the retry period');
    for (const at of [2000, 4000, 6000]) {
      await s.advance(at === 2000 ? 100 : 2000);
      lease = await s.lease();
      assert.equal(lease.spec?.renewTime, formatMicroTime(T0 + at));
      assert.equal(lease.spec?.acquireTime, formatMicroTime(T0), 'renewals keep acquireTime');
      assert.equal(lease.spec?.leaseTransitions, 0);
    }

    // releaseOnCancel: false leaves the Lease held.
    a.ac.abort();
    assert.equal(a.leading?.aborted, true, 'the leading signal aborts at once');
    await s.clock.stepAsync(0);
    await a.done;
    assert.equal(a.stoppedLeading, 1);
    assert.equal(a.elector.isLeader(), false);
    assert.equal((await s.lease()).spec?.holderIdentity, 'a');
  });

  test('a second candidate waits a full lease duration on its own clock after the leader stops renewing', async () => {
    const s = await setup();
    const a = s.start('a', { releaseOnCancel: false });
    await s.clock.stepAsync(0);
    // b's clock is an hour ahead: were it to trust a's renewTime, a's lease would look long expired.
    const bClock = skewed(s.clock, 3_600_000);
    const b = s.start('b', { clock: bClock });
    await s.clock.stepAsync(0);

    for (let i = 0; i < 5; i++) {
      assert.deepEqual(s.leaders(), ['a']);
      assert.equal(b.startedLeading, 0);
      await s.advance(1000);
    }
    assert.equal(b.elector.getLeader(), 'a');
    assert.deepEqual(b.newLeaders, ['a']);

    // a dies without releasing at T0+5s; its last renewal was at T0+4s.
    a.ac.abort();
    await a.done;
    let acquiredAt: number | undefined;
    while (acquiredAt === undefined && s.clock.now() < T0 + 30_000) {
      await s.advance(100);
      if (b.elector.isLeader()) acquiredAt = s.clock.now();
    }
    assert.ok(acquiredAt !== undefined, 'b acquires');
    assert.ok(acquiredAt >= T0 + 4000 + 15_000, `not before a lease duration without renewals (at +${acquiredAt - T0} ms)`);
    assert.ok(acquiredAt <= T0 + 4000 + 15_000 + 4000, `within two retry periods after (at +${acquiredAt - T0} ms)`);
    const lease = await s.lease();
    assert.equal(lease.spec?.holderIdentity, 'b');
    assert.equal(lease.spec?.leaseTransitions, 1);
    assert.equal(lease.spec?.acquireTime, formatMicroTime(bClock.now()), "acquireTime is the new holder's clock");
    assert.equal(b.startedLeading, 1);
    assert.deepEqual(b.newLeaders, ['a', 'b']);
    await s.stopAll();
  });

  test('releaseOnCancel: aborting the leader releases the Lease and the next candidate takes it at its next retry', async () => {
    const s = await setup();
    const a = s.start('a');
    await s.clock.stepAsync(0);
    s.start('b');
    await s.advance(5000);
    assert.deepEqual(s.leaders(), ['a']);

    let releasedBeforeStopped: boolean | undefined;
    const released = (): boolean => a.transport.actions.some((r) => r.verb === 'update' && (r.body as Lease).spec?.holderIdentity === '');
    a.whenStopped = () => (releasedBeforeStopped = released());
    a.ac.abort();
    assert.equal(a.leading?.aborted, true, 'the leading signal aborts before the release');
    await s.clock.stepAsync(0);
    await a.done;
    assert.equal(releasedBeforeStopped, true, 'the Lease is released before onStoppedLeading');
    assert.equal(a.stoppedLeading, 1);
    const lease = await s.lease();
    assert.equal(lease.spec?.holderIdentity, '');
    assert.equal(lease.spec?.leaseDurationSeconds, 1);
    assert.equal(lease.spec?.renewTime, formatMicroTime(s.clock.now()));
    assert.equal(lease.spec?.leaseTransitions, 0);

    await s.advance(2000);
    assert.deepEqual(s.leaders(), ['b'], 'b leads within one retry period, not a lease duration');
    assert.equal((await s.lease()).spec?.leaseTransitions, 1);
    await s.stopAll();
  });

  describe('a leader that cannot renew stops leading after the renew deadline', () => {
    /** a leads from T0 and renews at T0+2s and T0+4s; `breakAt3s` runs at T0+3s. */
    async function leaderBrokenAt3s(breakAt3s: (s: Awaited<ReturnType<typeof setup>>, a: Candidate) => Promise<void> | void) {
      const s = await setup();
      const a = s.start('a');
      await s.clock.stepAsync(0);
      await s.advance(3000);
      assert.deepEqual(s.leaders(), ['a']);
      await breakAt3s(s, a);
      // The failing round starts with the renewal at T0+4s: the deadline is T0+14s.
      await s.advance(10_900);
      assert.equal(a.leading?.aborted, false, 'still leading just before the deadline');
      await s.advance(100);
      assert.equal(a.leading?.aborted, true, 'the leading signal aborts at the deadline');
      assert.equal(a.elector.isLeader(), false);
      return { s, a };
    }

    test('when another identity overwrote the Lease', async () => {
      const { s, a } = await leaderBrokenAt3s(async (s) => {
        const lease = await s.lease();
        await s.leases.update({ ...lease, spec: { ...lease.spec, holderIdentity: 'x', renewTime: formatMicroTime(s.clock.now()) } });
      });
      await s.clock.stepAsync(0);
      assert.equal(a.finished, true, 'run resolves');
      assert.equal(a.stoppedLeading, 1);
      assert.equal(a.elector.getLeader(), 'x');
      assert.deepEqual(a.newLeaders, ['a', 'x']);
      assert.equal((await s.lease()).spec?.holderIdentity, 'x', "a does not release another's Lease");
    });

    test('when every API call fails', async () => {
      const { s, a } = await leaderBrokenAt3s((_s, a) => {
        a.transport.prependReactor('*', 'leases', () => ({ handled: true, error: newInternalError('etcd unavailable') }));
      });
      await s.clock.stepAsync(0);
      assert.equal(a.finished, true, 'run resolves');
      assert.equal(a.stoppedLeading, 1);
    });

    test('when API calls hang', async () => {
      const { s, a } = await leaderBrokenAt3s((_s, a) => {
        a.transport.prependReactor('*', 'leases', () => ({ handled: true, result: new Promise(() => {}) }));
      });
      // The release is attempted (a still believes it holds the Lease) and times out after the renew deadline.
      await s.advance(9900);
      assert.equal(a.finished, false);
      await s.advance(100);
      assert.equal(a.finished, true, 'run resolves once the release times out');
      assert.equal(a.stoppedLeading, 1);
    });
  });

  describe('a race between candidates leaves exactly one leader', () => {
    /** Holds each `verb` on leases until `n` candidates have sent one, then lets them all through; records errors. */
    function gate(verb: string, n: number) {
      const errors: unknown[] = [];
      const waiting: (() => void)[] = [];
      let open = false;
      const wrap = (inner: Transport): Transport => ({
        request: async (req) => {
          if (!open && req.resource === 'leases' && req.verb === verb) {
            await new Promise<void>((resolve) => {
              waiting.push(resolve);
              if (waiting.length >= n) {
                open = true;
                for (const w of waiting) w();
              }
            });
          }
          try {
            return await inner.request(req);
          } catch (err) {
            errors.push(err);
            throw err;
          }
        },
        watch: (req, onEvent, onClose) => inner.watch(req, onEvent, onClose),
      });
      return { wrap, errors };
    }

    test('two updates of a released Lease from the same resourceVersion: one gets 409 Conflict', async () => {
      const s = await setup();
      await s.fake.transport.seed([
        {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: NAME, namespace: NS },
          spec: { holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 3 },
        } as Lease,
      ]);
      const g = gate('update', 2);
      const a = s.start('a', {}, g.wrap);
      const b = s.start('b', {}, g.wrap);
      await s.clock.stepAsync(0);
      assert.equal(g.errors.filter(isConflict).length, 1, 'exactly one update lost on the resourceVersion');
      for (let i = 0; i < 30; i++) {
        assert.equal(s.leaders().length, 1);
        await s.advance(1000);
      }
      const lease = await s.lease();
      assert.deepEqual(s.leaders(), [lease.spec?.holderIdentity]);
      assert.equal(lease.spec?.leaseTransitions, 4);
      assert.equal(a.startedLeading + b.startedLeading, 1);
      await s.stopAll();
    });

    test('two creates of a missing Lease: one gets AlreadyExists', async () => {
      const s = await setup();
      const g = gate('create', 2);
      const a = s.start('a', {}, g.wrap);
      const b = s.start('b', {}, g.wrap);
      await s.clock.stepAsync(0);
      assert.equal(g.errors.filter(isAlreadyExists).length, 1);
      for (let i = 0; i < 30; i++) {
        assert.equal(s.leaders().length, 1);
        await s.advance(1000);
      }
      assert.deepEqual(s.leaders(), [(await s.lease()).spec?.holderIdentity]);
      assert.equal(a.startedLeading + b.startedLeading, 1);
      await s.stopAll();
    });
  });

  test('acquire retries wait retryPeriod plus up to JitterFactor × retryPeriod drawn from the Rand', async () => {
    const s = await setup();
    s.start('a');
    await s.clock.stepAsync(0);
    const half: Rand = { float: () => 0.5, int: () => 0, uuid: () => '' };
    const b = s.start('b', { rand: half });
    await s.advance(10_000);
    const gets = b.transport.actions.filter((r) => r.verb === 'get').length;
    // At T0, T0+3.2s, T0+6.4s, T0+9.6s: 2000 + 0.5 × 1.2 × 2000 ms apart.
    assert.equal(gets, 4);
    await s.stopAll();
  });

  test('inconsistent durations and an empty identity are refused', async () => {
    const s = await setup();
    const base = { client: newClientset(s.fake.transport), clock: s.clock, namespace: NS, name: NAME, identity: 'a', onStartedLeading: () => {}, onStoppedLeading: () => {} };
    assert.throws(() => new LeaderElector({ ...base, leaseDurationMs: 10_000 }), /leaseDuration must be greater than renewDeadline/);
    assert.throws(() => new LeaderElector({ ...base, retryPeriodMs: 9000 }), /renewDeadline must be greater than retryPeriod\*JitterFactor/);
    assert.throws(() => new LeaderElector({ ...base, identity: '' }), /identity is empty/);
  });
});
