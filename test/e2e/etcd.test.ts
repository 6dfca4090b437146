/**
 * `kubeplane up --datastore etcd` on a real three-member etcd cluster (three `etcd` processes on
 * loopback), driven by the real kubectl: a Deployment rolls out with resourceVersions that are etcd's
 * own revisions, writes go on after one member is SIGKILLed, and a second kubeplane with a data
 * directory of its own finds the same state in etcd.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Etcd3 } from 'etcd3';
import { etcdSkipReason, startEtcdCluster } from '../../src/storage/etcd/testing/members.js';
import type { EtcdCluster } from '../../src/storage/etcd/testing/members.js';
import { deploymentYaml, eventually, removeDataDir, startKubeplane, type Kubeplane } from './harness.js';

interface Obj {
  metadata: { name: string; resourceVersion: string; uid: string };
  status?: { readyReplicas?: number; replicas?: number };
}

const skip = etcdSkipReason();

void describe('kubeplane on a three-member etcd cluster', { skip }, () => {
  let etcd: EtcdCluster;
  let kp: Kubeplane;
  const dataDirs: string[] = [];
  const up = async () => {
    const started = await startKubeplane({ nodes: 3, args: ['--datastore', 'etcd', '--etcd-servers', etcd.clientUrls.join(',')] });
    dataDirs.push(started.dataDir);
    return started;
  };

  before(async () => {
    etcd = await startEtcdCluster(3);
    kp = await up();
  });
  after(async () => {
    await kp?.stop();
    await etcd?.stop();
    for (const dir of dataDirs) removeDataDir(dir);
  });

  test('a Deployment rolls out, and its resourceVersion is the mod revision of its key in etcd', async () => {
    await kp.kubectlOk(['apply', '-f', '-'], deploymentYaml('web', 6));
    await kp.kubectlOk(['rollout', 'status', 'deployment/web', '--timeout=120s']);
    const pods = await kp.kubectlJson<{ items: Obj[] }>(['get', 'pods', '-l', 'app=web']);
    assert.equal(pods.items.length, 6);
    const deploy = await kp.kubectlJson<Obj>(['get', 'deployment', 'web']);
    assert.equal(deploy.status?.readyReplicas, 6);
    const client = new Etcd3({ hosts: etcd.clientUrls });
    try {
      const res = await client.kv.range({ key: Buffer.from('/registry/apps/deployments/default/web') });
      assert.equal(res.kvs.length, 1);
      assert.equal(deploy.metadata.resourceVersion, res.kvs[0]?.mod_revision);
      const stored = JSON.parse(res.kvs[0]?.value.toString() ?? '{}') as Obj;
      assert.equal(stored.metadata.uid, deploy.metadata.uid);
    } finally {
      client.close();
    }
  });

  test('with one member SIGKILLed, writes go on: a scale to 9 completes', async () => {
    await (etcd.members[0] as { kill(): Promise<void> }).kill();
    await kp.kubectlOk(['scale', 'deployment/web', '--replicas=9']);
    await kp.kubectlOk(['rollout', 'status', 'deployment/web', '--timeout=120s']);
    const pods = await kp.kubectlJson<{ items: Obj[] }>(['get', 'pods', '-l', 'app=web']);
    assert.equal(pods.items.length, 9);
    await (etcd.members[0] as { restart(): Promise<void> }).restart();
  });

  test('a second kubeplane with a new data directory finds the same state in etcd', async () => {
    const before = await kp.kubectlJson<{ items: Obj[] }>(['get', 'pods', '-l', 'app=web']);
    const names = before.items.map((p) => p.metadata.name).sort();
    await kp.stop();
    kp = await up();
    assert.notEqual(kp.dataDir, dataDirs[0]);
    const deploy = await kp.kubectlJson<Obj>(['get', 'deployment', 'web']);
    assert.equal(deploy.status?.replicas, 9);
    const after = await eventually('the same 9 pods, Running', async () => {
      const l = await kp.kubectlJson<{ items: (Obj & { status?: { phase?: string } })[] }>(['get', 'pods', '-l', 'app=web']);
      return l.items.length === 9 && l.items.every((p) => p.status?.phase === 'Running') ? l : undefined;
    });
    assert.deepEqual(after.items.map((p) => p.metadata.name).sort(), names, 'no pod was created again');
  });
});
