/**
 * APIServices and the review kinds with the real kubectl: `kubectl get apiservices` lists one Local,
 * Available APIService per group/version discovery serves; a user's APIService naming a service is
 * stored and listed (not proxied); `kubectl auth can-i --list` prints the admin's rules;
 * SubjectAccessReviews answer for the admin and for someone else; TokenReviews know the kubeconfig's
 * token and no other.
 *
 * The reviews are created with `--validate=false`: kubectl validates a kind that has no PATCH (every
 * create-only kind) by first asking whether it is a CustomResourceDefinition, and kubeplane does not
 * serve customresourcedefinitions yet (`failed to check CRD: … could not find the requested resource`).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { kubectlTable, startKubeplane, removeDataDir, type Kubeplane } from './harness.js';

describe('APIServices and reviews with real kubectl', { timeout: 120_000 }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 1 });
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  test('kubectl get apiservices: one Local, Available APIService per group/version of kubectl api-versions', async () => {
    const versions = (await kp.kubectlOk(['api-versions'])).trim().split('\n');
    const expected = versions
      .map((gv) => {
        const [group, version] = gv.includes('/') ? gv.split('/') : ['', gv];
        return `${version ?? ''}.${group ?? ''}`;
      })
      .sort();
    const [header, ...items] = kubectlTable(await kp.kubectlOk(['get', 'apiservices']));
    assert.deepEqual(header, ['NAME', 'SERVICE', 'AVAILABLE', 'AGE']);
    assert.deepEqual(
      items.map((r) => r[0]),
      expected,
    );
    assert.ok(items.every((r) => r[1] === 'Local' && r[2] === 'True'), JSON.stringify(items));
    assert.ok(expected.includes('v1.') && expected.includes('v2.autoscaling') && expected.includes('v1.apiregistration.k8s.io'));
    const apps = await kp.kubectlOk(['describe', 'apiservice', 'v1.apps']);
    assert.match(apps, /^Labels:\s+kube-aggregator\.kubernetes\.io\/automanaged=onstart$/m);
    assert.match(apps, /^\s+Group Priority Minimum:\s+17800$/m);
    assert.match(apps, /^\s+Message:\s+Local APIServices are always available$/m);
  });

  test('a user APIService naming a service is stored and listed; an invalid one is refused with upstream messages', async () => {
    // prometheus-adapter's custom metrics API (kubeplane serves metrics.k8s.io itself).
    const custom = [
      'apiVersion: apiregistration.k8s.io/v1',
      'kind: APIService',
      'metadata: {name: v1beta1.custom.metrics.k8s.io}',
      'spec:',
      '  group: custom.metrics.k8s.io',
      '  version: v1beta1',
      '  service: {namespace: monitoring, name: prometheus-adapter}',
      '  insecureSkipTLSVerify: true',
      '  groupPriorityMinimum: 100',
      '  versionPriority: 100',
    ].join('\n');
    assert.equal((await kp.kubectlOk(['apply', '-f', '-'], custom)).trim(), 'apiservice.apiregistration.k8s.io/v1beta1.custom.metrics.k8s.io created');
    const listed = kubectlTable(await kp.kubectlOk(['get', 'apiservice', 'v1beta1.custom.metrics.k8s.io']));
    assert.deepEqual(listed[1]?.slice(0, 3), ['v1beta1.custom.metrics.k8s.io', 'monitoring/prometheus-adapter', 'Unknown']);
    assert.equal((await kp.kubectlOk(['get', 'apiservice', 'v1beta1.custom.metrics.k8s.io', '-o', 'jsonpath={.spec.service.port}'])).trim(), '443');

    const invalid = ['apiVersion: apiregistration.k8s.io/v1', 'kind: APIService', 'metadata: {name: v1.wrong.example.com}', 'spec: {group: example.com, version: v1, groupPriorityMinimum: 0, versionPriority: 10}'].join('\n');
    const refused = await kp.kubectl(['apply', '-f', '-'], invalid);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /metadata\.name: Invalid value: "v1\.wrong\.example\.com": must be `spec\.version\+"\."\+spec\.group`: "v1\.example\.com"/);
    assert.match(refused.stderr, /spec\.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000/);
  });

  test('kubectl auth can-i --list prints the admin rules as upstream does for kubeadm:cluster-admins', async () => {
    const lines = (await kp.kubectlOk(['auth', 'can-i', '--list'])).trim().split('\n').map((l) => l.trim().split(/\s+/));
    assert.deepEqual(lines.slice(0, 6), [
      ['Resources', 'Non-Resource', 'URLs', 'Resource', 'Names', 'Verbs'],
      ['*.*', '[]', '[]', '[*]'],
      ['[*]', '[]', '[*]'],
      ['selfsubjectreviews.authentication.k8s.io', '[]', '[]', '[create]'],
      ['selfsubjectaccessreviews.authorization.k8s.io', '[]', '[]', '[create]'],
      ['selfsubjectrulesreviews.authorization.k8s.io', '[]', '[]', '[create]'],
    ]);
    assert.deepEqual(
      lines.slice(6).map((l) => l[0]),
      ['/api/*', '/api', '/apis/*', '/apis', '/healthz', '/healthz', '/livez', '/livez', '/openapi/*', '/openapi', '/readyz', '/readyz', '/version/', '/version/', '/version', '/version'].map((u) => `[${u}]`),
    );
    assert.equal((await kp.kubectlOk(['auth', 'can-i', 'create', 'pods'])).trim(), 'yes');
  });

  test('SubjectAccessReview: allowed for the kubeadm admins and system:masters, not for someone; one without a subject is refused', async () => {
    const sar = (subject: string): string =>
      ['apiVersion: authorization.k8s.io/v1', 'kind: SubjectAccessReview', 'spec:', subject, '  resourceAttributes: {verb: create, resource: pods, namespace: default}'].join('\n');
    const status = async (subject: string): Promise<unknown> =>
      (parseYaml(await kp.kubectlOk(['create', '--validate=false', '-f', '-', '-o', 'yaml'], sar(subject))) as { status: unknown }).status;
    assert.deepEqual(await status('  user: kubernetes-admin\n  groups: [kubeadm:cluster-admins]'), {
      allowed: true,
      reason: 'RBAC: allowed by ClusterRoleBinding "kubeadm:cluster-admins" of ClusterRole "cluster-admin" to Group "kubeadm:cluster-admins"',
    });
    assert.deepEqual(await status('  user: someone'), { allowed: false });
    assert.deepEqual(await status('  user: someone\n  groups: [system:masters]'), { allowed: true });
    assert.equal((await kp.kubectlOk(['create', '--validate=false', '-f', '-'], sar('  user: someone'))).trim(), 'subjectaccessreview.authorization.k8s.io/<unknown> created');
    const refused = await kp.kubectl(['create', '--validate=false', '-f', '-'], sar(''));
    assert.notEqual(refused.code, 0);
    assert.equal(refused.stderr.trim(), 'The request is invalid: spec.user: Invalid value: "": at least one of user or group must be specified');
  });

  test("TokenReview: the data directory's token is the admin; a wrong token is not authenticated", async () => {
    const token = readFileSync(join(kp.dataDir, 'token'), 'utf8').trim();
    const review = async (t: string): Promise<unknown> =>
      (parseYaml(await kp.kubectlOk(['create', '--validate=false', '-f', '-', '-o', 'yaml'], `apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec: {token: "${t}"}\n`)) as { status: unknown })
        .status;
    assert.deepEqual(await review(token), {
      authenticated: true,
      user: { username: 'kubeplane-admin', groups: ['system:masters', 'system:authenticated'] },
      audiences: ['https://kubernetes.default.svc.cluster.local'],
    });
    assert.deepEqual(await review('not-the-token'), { user: {}, error: 'invalid bearer token' });
  });
});
