import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ForwardingBackend } from '../forwarding.js';
import type { WatchEvent } from '../interface.js';
import { isStorageError } from '../interface.js';
import { runBackendConformance } from '../testing/conformance.js';
import { EtcdBackend } from './index.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backendOptions } from '../../cli/cluster.js';
import { realClock } from '../../util/clock/index.js';
import { openBackend } from '../index.js';
import { etcdSkipReason, startEtcdCluster } from './testing/members.js';
import { writeTestPKI } from './testing/pki.js';
import type { EtcdCluster } from './testing/members.js';

const skip = etcdSkipReason();

/** A backend on a member of its own, which closing also stops. */
class OwnMemberBackend extends ForwardingBackend {
  constructor(
    inner: EtcdBackend,
    private readonly cluster: EtcdCluster,
  ) {
    super(inner);
  }

  override async close(): Promise<void> {
    try {
      await super.close();
    } finally {
      await this.cluster.stop();
    }
  }
}

if (skip !== undefined) {
  void test('etcd backend', { skip }, () => undefined);
} else {
  // A new member per test: etcd's revisions cannot be reset, and each test starts from an empty store.
  runBackendConformance('etcd', async () => {
    const cluster = await startEtcdCluster();
    return new OwnMemberBackend(await EtcdBackend.open({ servers: cluster.clientUrls }), cluster);
  });

  void describe('etcd backend', () => {
    let cluster: EtcdCluster;
    before(async () => {
      cluster = await startEtcdCluster();
    });
    after(async () => {
      await cluster.stop();
    });

    void test('a second client sees the first one\'s writes through fetchCurrentRevision, not currentRevision', async () => {
      const a = await EtcdBackend.open({ servers: cluster.clientUrls, prefix: '/two-clients' });
      const b = await EtcdBackend.open({ servers: cluster.clientUrls, prefix: '/two-clients' });
      try {
        const before = b.currentRevision();
        const kv = await a.create('/registry/x', 'v');
        assert.equal(b.currentRevision(), before, 'b has not heard of the write');
        assert.equal(await b.fetchCurrentRevision(), kv.modRevision);
        assert.equal(b.currentRevision(), kv.modRevision);
        assert.deepEqual(await b.get('/registry/x'), kv);
      } finally {
        await a.close();
        await b.close();
      }
    });

    void test('the prefix keeps two backends on one etcd apart', async () => {
      const a = await EtcdBackend.open({ servers: cluster.clientUrls, prefix: '/cluster-a' });
      const b = await EtcdBackend.open({ servers: cluster.clientUrls, prefix: '/cluster-b' });
      try {
        await a.create('/registry/pods/default/web', 'a');
        await b.create('/registry/pods/default/web', 'b');
        assert.deepEqual((await a.list('/registry/')).kvs.map((kv) => [kv.key, kv.value]), [['/registry/pods/default/web', 'a']]);
        assert.equal(await b.count('/registry/'), 1);
      } finally {
        await a.close();
        await b.close();
      }
    });

    void test('a backend opened on a compacted store knows the compacted revision', async () => {
      const a = await EtcdBackend.open({ servers: cluster.clientUrls, prefix: '/compacted' });
      const first = await a.create('/k/1', 'v');
      await a.create('/k/2', 'v');
      await a.compact(first.modRevision);
      await a.close();
      const b = await EtcdBackend.open({ servers: cluster.clientUrls, prefix: '/compacted' });
      try {
        assert.ok(b.compactedRevision() >= first.modRevision);
        assert.throws(() => b.watch('/k/', first.modRevision - 1, () => undefined), (e: unknown) => isStorageError(e, 'Compacted'));
      } finally {
        await b.close();
      }
    });
  });

  void describe('etcd backend over TLS (--etcd-cafile, --etcd-certfile, --etcd-keyfile)', () => {
    void test('with the CA and a client certificate it reads and writes; without the certificate etcd refuses it', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'kubeplane-etcd-tls-'));
      const pki = await writeTestPKI(dir);
      const secure = await startEtcdCluster(1, pki);
      try {
        assert.match(secure.clientUrls[0] as string, /^https:/);
        const flags = { servers: secure.clientUrls, caFile: pki.ca, certFile: pki.clientCert, keyFile: pki.clientKey };
        const backend = await openBackend(backendOptions('etcd', dir, realClock, undefined, flags));
        try {
          const kv = await backend.create('/registry/core/configmaps/default/x', 'v');
          assert.deepEqual(await backend.get('/registry/core/configmaps/default/x'), kv);
        } finally {
          await backend.close();
        }
        await assert.rejects(
          openBackend(backendOptions('etcd', dir, realClock, undefined, { servers: secure.clientUrls, caFile: pki.ca })),
          (err: unknown) => isStorageError(err, 'Internal'),
        );
      } finally {
        await secure.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  void describe('etcd backend across a member restart', () => {
    void test('a watch resumes from the last revision it received: no event lost or duplicated', { timeout: 60_000 }, async () => {
      const three = await startEtcdCluster(3);
      const backend = await EtcdBackend.open({ servers: three.clientUrls });
      try {
        const events: WatchEvent[] = [];
        let expected = Infinity;
        let allArrived: () => void = () => undefined;
        const arrived = new Promise<void>((resolve) => (allArrived = resolve));
        const w = backend.watch('/r/', backend.currentRevision(), (batch) => {
          events.push(...batch);
          if (events.length >= expected) allArrived();
        });
        const first = await backend.create('/r/000', 'v');
        const written = [first.modRevision];
        // Kill and restart each member in turn while writing, so the watch stream breaks at least once
        // (it is on one of them) and reopens on another.
        for (let round = 0; round < 3; round++) {
          await (three.members[round] as { kill(): Promise<void> }).kill();
          for (let i = 0; i < 20; i++) written.push((await backend.create(`/r/${round}-${String(i).padStart(2, '0')}`, 'v')).modRevision);
          await (three.members[round] as { restart(): Promise<void> }).restart();
        }
        expected = written.length;
        if (events.length >= expected) allArrived();
        await arrived;
        assert.deepEqual(
          events.map((e) => e.kv.modRevision),
          written,
        );
        w.stop();
      } finally {
        await backend.close();
        await three.stop();
      }
    });
  });
}
