/**
 * PriorityClasses with the real kubectl: the two system classes exist, `kubectl create priorityclass`
 * works, `kubectl get pc` prints upstream's columns, a pod naming the class gets its priority, and a
 * second `--global-default` class is refused by the Priority admission.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startKubeplane, removeDataDir, type Kubeplane } from './harness.js';

describe('PriorityClasses with real kubectl', { timeout: 120_000 }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 1 });
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  test('system classes, kubectl create priorityclass, get pc, and a pod of the class', async () => {
    assert.equal(
      (await kp.kubectlOk(['create', 'priorityclass', 'high', '--value=1000', '--description=important', '--preemption-policy=Never'])).trim(),
      'priorityclass.scheduling.k8s.io/high created',
    );
    const lines = (await kp.kubectlOk(['get', 'pc'])).trim().split('\n');
    assert.match(lines[0] ?? '', /^NAME\s+VALUE\s+GLOBAL-DEFAULT\s+AGE\s+PREEMPTIONPOLICY$/);
    assert.deepEqual(
      lines.slice(1).map((l) => l.split(/\s+/).filter((c, i) => i !== 3)),
      [
        ['high', '1000', 'false', 'Never'],
        ['system-cluster-critical', '2000000000', 'false', 'PreemptLowerPriority'],
        ['system-node-critical', '2000001000', 'false', 'PreemptLowerPriority'],
      ],
    );
    await kp.kubectlOk(['run', 'vip', '--image=nginx:1.27', '--overrides={"spec":{"priorityClassName":"high"}}']);
    assert.equal((await kp.kubectlOk(['get', 'pod', 'vip', '-o', 'jsonpath={.spec.priority} {.spec.preemptionPolicy}'])).trim(), '1000 Never');
    const refused = await kp.kubectl(['create', 'priorityclass', 'system-mine', '--value=5']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /priority class names with 'system-' prefix are reserved for system use only\. error: system-mine is not a known system priority class/);
    await kp.kubectlOk(['create', 'priorityclass', 'default-one', '--value=10', '--global-default']);
    const second = await kp.kubectl(['create', 'priorityclass', 'default-two', '--value=20', '--global-default']);
    assert.notEqual(second.code, 0);
    assert.match(second.stderr, /priorityclasses\.scheduling\.k8s\.io "default-two" is forbidden: PriorityClass default-one is already marked as default\. Only one default can exist/);
  });
});
