/**
 * ResourceQuota and LimitRange with the real kubectl: a quota `pods: 3` refuses the fourth
 * `kubectl run` with upstream's message, `kubectl describe quota` shows Used/Hard, a LimitRange's
 * default requests and limits are set on a new pod, and a pod over the LimitRange's max is refused
 * with upstream's message.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startKubeplane, removeDataDir, eventually, type Kubeplane } from './harness.js';

describe('ResourceQuota and LimitRange with real kubectl', { timeout: 120_000 }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 1 });
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  test('a quota of 3 pods refuses the fourth; describe quota shows Used/Hard', async () => {
    await kp.kubectlOk(['create', 'namespace', 'team']);
    assert.equal((await kp.kubectlOk(['create', 'quota', 'pod-quota', '--hard=pods=3', '-n', 'team'])).trim(), 'resourcequota/pod-quota created');
    // The controller counts the namespace before admission enforces the quota.
    await eventually('the quota counted', async () => ((await kp.kubectlOk(['get', 'quota', 'pod-quota', '-n', 'team', '-o', 'jsonpath={.status.used.pods}'])).trim() === '0' ? true : undefined));
    for (const name of ['p1', 'p2', 'p3']) await kp.kubectlOk(['run', name, '--image=nginx:1.27', '-n', 'team']);
    const fourth = await kp.kubectl(['run', 'p4', '--image=nginx:1.27', '-n', 'team']);
    assert.notEqual(fourth.code, 0);
    assert.equal(fourth.stderr.trim(), 'Error from server (Forbidden): pods "p4" is forbidden: exceeded quota: pod-quota, requested: pods=1, used: pods=3, limited: pods=3');
    const described = await kp.kubectlOk(['describe', 'quota', 'pod-quota', '-n', 'team']);
    assert.match(described, /^Name:\s+pod-quota$/m);
    assert.match(described, /^Namespace:\s+team$/m);
    assert.match(described, /^Resource\s+Used\s+Hard$/m);
    assert.match(described, /^pods\s+3\s+3$/m);
    const ns = await kp.kubectlOk(['describe', 'namespace', 'team']);
    assert.match(ns, /^Resource Quotas$/m);
    assert.match(ns, /^\s+Name:\s+pod-quota$/m);
    assert.match(ns, /^\s+pods\s+3\s+3$/m);
    assert.match(ns, /^No LimitRange resource\.$/m);
    // A deleted pod gives its unit back.
    await kp.kubectlOk(['delete', 'pod', 'p1', '-n', 'team', '--grace-period=0', '--force']);
    await eventually('the quota replenished', async () => ((await kp.kubectlOk(['get', 'quota', 'pod-quota', '-n', 'team', '-o', 'jsonpath={.status.used.pods}'])).trim() === '2' ? true : undefined));
    await kp.kubectlOk(['run', 'p4', '--image=nginx:1.27', '-n', 'team']);
  });

  test('a LimitRange default is set on a new pod; a pod over its max is refused', async () => {
    await kp.kubectlOk(['create', 'namespace', 'limited']);
    const limitRange = {
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'defaults', namespace: 'limited' },
      spec: { limits: [{ type: 'Container', max: { cpu: '1' }, default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m', memory: '128Mi' } }] },
    };
    await kp.kubectlOk(['apply', '-f', '-'], JSON.stringify(limitRange));
    await kp.kubectlOk(['run', 'plain', '--image=nginx:1.27', '-n', 'limited']);
    const plain = await kp.kubectlJson<{ spec: { containers: { resources: unknown }[] } }>(['get', 'pod', 'plain', '-n', 'limited']);
    assert.deepEqual(plain.spec.containers[0]?.resources, { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } });
    assert.equal(
      (await kp.kubectlOk(['get', 'pod', 'plain', '-n', 'limited', '-o', 'jsonpath={.metadata.annotations.kubernetes\\.io/limit-ranger}'])).trim(),
      'LimitRanger plugin set: cpu, memory request for container plain; cpu, memory limit for container plain',
    );
    const ns = await kp.kubectlOk(['describe', 'namespace', 'limited']);
    assert.match(ns, /^Resource Limits$/m);
    assert.match(ns, /^\s+Container\s+cpu\s+-\s+1\s+100m\s+500m\s+-$/m);
    const big = await kp.kubectl(['run', 'big', '--image=nginx:1.27', '-n', 'limited', '--overrides={"spec":{"containers":[{"name":"big","image":"nginx:1.27","resources":{"limits":{"cpu":"2"}}}]}}']);
    assert.notEqual(big.code, 0);
    assert.equal(big.stderr.trim(), 'Error from server (Forbidden): pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
  });
});
