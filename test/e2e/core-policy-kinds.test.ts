/**
 * PodTemplates, ResourceQuotas and LimitRanges with the real kubectl: `kubectl create quota`,
 * `kubectl apply` of the other two, `kubectl get` with upstream's columns, `kubectl describe quota`
 * (usage counted by the quota controller and charged by admission) and `describe limits`, and a
 * LimitRange refused with upstream's message. (ReplicationControllers, which the replication manager
 * keeps: replication-controller.test.ts.)
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectlTable, startKubeplane, removeDataDir, type Kubeplane } from './harness.js';

const MANIFESTS = `
apiVersion: v1
kind: PodTemplate
metadata:
  name: tmpl
template:
  metadata:
    labels: {app: batch, tier: be}
  spec:
    containers:
    - {name: worker, image: busybox}
    - {name: sidecar, image: "envoy:1.30"}
---
apiVersion: v1
kind: LimitRange
metadata:
  name: limits
spec:
  limits:
  - type: Container
    max: {cpu: "1", memory: 1Gi}
    min: {cpu: 100m}
    defaultRequest: {cpu: 500m}
`;

const BAD_LIMIT_RANGE = `
apiVersion: v1
kind: LimitRange
metadata:
  name: bad
spec:
  limits:
  - type: Pod
    max: {cpu: "1"}
    min: {cpu: "2"}
`;

describe('PodTemplates, ResourceQuotas and LimitRanges with real kubectl', { timeout: 120_000 }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 1 });
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  test('create quota, apply podtemplate + limitrange, get, describe, and a refused LimitRange', async () => {
    assert.equal((await kp.kubectlOk(['create', 'quota', 'q', '--hard=pods=10,cpu=1'])).trim(), 'resourcequota/q created');
    assert.deepEqual((await kp.kubectlOk(['apply', '-f', '-'], MANIFESTS)).trim().split('\n'), [
      'podtemplate/tmpl created',
      'limitrange/limits created',
    ]);
    // The quota controller counts the namespace; then two pods of 100m cpu each are charged.
    await eventually('the quota counted', async () => ((await kp.kubectlOk(['get', 'quota', 'q', '-o', 'jsonpath={.status.used.pods}'])).trim() === '0' ? true : undefined));
    for (const name of ['a', 'b']) {
      await kp.kubectlOk(['run', name, '--image=nginx:1.27', `--overrides={"spec":{"containers":[{"name":"${name}","image":"nginx:1.27","resources":{"requests":{"cpu":"100m"}}}]}}`]);
    }

    const [quota, limits, templates] = (await kp.kubectlOk(['get', 'quota,limits,podtemplates'])).trim().split(/\n\s*\n/).map(kubectlTable);
    assert.deepEqual(quota?.[0], ['NAME', 'REQUEST', 'LIMIT', 'AGE']);
    assert.deepEqual(quota?.[1]?.slice(0, 2), ['resourcequota/q', 'cpu: 200m/1, pods: 2/10']);
    assert.deepEqual(limits?.[0], ['NAME', 'CREATED AT']);
    assert.equal(limits?.[1]?.[0], 'limitrange/limits');
    assert.match(limits?.[1]?.[1] ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.deepEqual(templates, [
      ['NAME', 'CONTAINERS', 'IMAGES', 'POD LABELS'],
      ['podtemplate/tmpl', 'worker,sidecar', 'busybox,envoy:1.30', 'app=batch,tier=be'],
    ]);

    // Defaults: the LimitRange's default from max.
    assert.equal((await kp.kubectlOk(['get', 'limits', 'limits', '-o', 'jsonpath={.spec.limits[0].default}'])).trim(), '{"cpu":"1","memory":"1Gi"}');

    const describedQuota = await kp.kubectlOk(['describe', 'quota', 'q']);
    assert.match(describedQuota, /^Resource\s+Used\s+Hard$/m);
    assert.match(describedQuota, /^cpu\s+200m\s+1$/m);
    assert.match(describedQuota, /^pods\s+2\s+10$/m);
    const describedLimits = await kp.kubectlOk(['describe', 'limits', 'limits']);
    assert.match(describedLimits, /^Type\s+Resource\s+Min\s+Max\s+Default Request\s+Default Limit\s+Max Limit\/Request Ratio$/m);
    assert.match(describedLimits, /^Container\s+cpu\s+100m\s+1\s+500m\s+1\s+-$/m);

    const refused = await kp.kubectl(['apply', '-f', '-'], BAD_LIMIT_RANGE);
    assert.notEqual(refused.code, 0);
    assert.ok(
      refused.stderr.includes(
        'The LimitRange "bad" is invalid: spec.limits[0].min[cpu]: Invalid value: resource.Quantity{i:resource.int64Amount{value:2, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"2", Format:"DecimalSI"}: min value 2 is greater than max value 1',
      ),
      refused.stderr,
    );
  });
});
