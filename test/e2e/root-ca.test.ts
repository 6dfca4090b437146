/**
 * The root CA in every namespace, as kube-controller-manager's root-ca-cert-publisher keeps it: the
 * ConfigMap `kube-root-ca.crt` holds the cluster CA (the `ca.crt` kubectl's kubeconfig trusts) with
 * upstream's description, in the bootstrap namespaces and every new one, and comes back when deleted.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, removeDataDir, startKubeplane, type Kubeplane } from './harness.js';

describe('kube-root-ca.crt in every namespace, with real kubectl', { timeout: 90_000 }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 0 });
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  const caOf = async (ns: string): Promise<string | undefined> => {
    const r = await kp.kubectl(['get', 'configmap', 'kube-root-ca.crt', '-n', ns, '-o', 'jsonpath={.data.ca\\.crt}']);
    return r.code === 0 && r.stdout !== '' ? r.stdout : undefined;
  };

  test('the bootstrap namespaces and a new one hold the cluster CA; a deleted one comes back', async () => {
    const ca = readFileSync(join(kp.dataDir, 'ca.crt'), 'utf8');
    for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) assert.equal(await eventually(`the CA in ${ns}`, () => caOf(ns)), ca);
    const described = await kp.kubectlOk(['describe', 'configmap', 'kube-root-ca.crt', '-n', 'default']);
    assert.match(described, /^Annotations:\s+kubernetes\.io\/description:\n\s+Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubern\.\.\.$/m);

    await kp.kubectlOk(['create', 'namespace', 'team-a']);
    assert.equal(await eventually('the CA in team-a', () => caOf('team-a')), ca);

    const before = await kp.kubectlOk(['get', 'configmap', 'kube-root-ca.crt', '-n', 'team-a', '-o', 'jsonpath={.metadata.uid}']);
    await kp.kubectlOk(['delete', 'configmap', 'kube-root-ca.crt', '-n', 'team-a']);
    const after = await eventually('kube-root-ca.crt recreated', async () => {
      const uid = (await kp.kubectl(['get', 'configmap', 'kube-root-ca.crt', '-n', 'team-a', '-o', 'jsonpath={.metadata.uid}'])).stdout;
      return uid !== '' && uid !== before ? uid : undefined;
    });
    assert.notEqual(after, before);
    assert.equal(await caOf('team-a'), ca);
  });
});
