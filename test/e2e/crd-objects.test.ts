/**
 * CustomResourceDefinition objects with the real kubectl: `kubectl apply` of the Kubernetes docs'
 * CronTab CRD, `kubectl get crd` with upstream's default columns, the defaults and accepted names in `-o yaml`, invalid
 * CRDs refused with upstream's messages, and an unknown kind in a known version answered with
 * `no matches for kind` by kubectl 1.31 and 1.33 (which first list CRDs to ask whether the kind is one).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { startKubeplane, removeDataDir, type Kubeplane, type KubectlResult } from './harness.js';

/** The CronTab CRD of https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/. */
const cronTabs = (name = 'crontabs.stable.example.com', versions: [name: string, storage: boolean][] = [['v1', true]]): string => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${name}
spec:
  group: stable.example.com
  versions:
${versions
  .map(
    ([v, storage]) => `    - name: ${v}
      served: true
      storage: ${storage}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                cronSpec:
                  type: string
                image:
                  type: string
                replicas:
                  type: integer
`,
  )
  .join('')}  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames:
    - ct
`;

/** The path of a versioned kubectl installed next to the default one (`kubectl.1.33`). */
function versionedKubectl(version: string): string {
  const kubectl = execFileSync('readlink', ['-f', execFileSync('which', ['kubectl']).toString().trim()]).toString().trim();
  return join(dirname(kubectl), `kubectl.${version}`);
}

describe('CustomResourceDefinition objects with real kubectl', { timeout: 120_000 }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 1 });
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  /** Runs a versioned kubectl against this cluster with `input` on stdin. */
  const runVersioned = (version: string, args: string[], input: string): Promise<KubectlResult> =>
    new Promise((ok) => {
      const p = execFile(versionedKubectl(version), args, { env: { ...process.env, KUBECONFIG: kp.kubeconfig } }, (err, stdout, stderr) =>
        ok({ code: err ? 1 : 0, stdout, stderr }),
      );
      p.stdin?.end(input);
    });

  test('kubectl apply, get crd, and the defaults in -o yaml', async () => {
    assert.equal((await kp.kubectlOk(['apply', '-f', '-'], cronTabs())).trim(), 'customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created');
    const lines = (await kp.kubectlOk(['get', 'crd'])).trim().split('\n');
    assert.match(lines[0] ?? '', /^NAME\s+CREATED AT$/);
    assert.match(lines[1] ?? '', /^crontabs\.stable\.example\.com\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(lines.length, 2);
    await kp.kubectlOk(['wait', '--for=condition=Established', 'crd/crontabs.stable.example.com', '--timeout=30s']);
    const yaml = await kp.kubectlOk(['get', 'crds', 'crontabs.stable.example.com', '-o', 'yaml']);
    assert.match(yaml, /\n {2}conversion:\n {4}strategy: None\n/);
    assert.match(yaml, /\n {4}listKind: CronTabList\n/);
    assert.match(yaml, /\n {4}singular: crontab\n/);
    assert.match(yaml, /\nstatus:\n {2}acceptedNames:\n {4}kind: CronTab\n {4}listKind: CronTabList\n {4}plural: crontabs\n/);
    assert.match(yaml, /\n {2}storedVersions:\n {2}- v1\n/);
    assert.match(yaml, /\n {2}generation: 1\n/);
    assert.match(await kp.kubectlOk(['api-resources', '--api-group=apiextensions.k8s.io']), /\ncustomresourcedefinitions\s+crd,crds\s+apiextensions\.k8s\.io\/v1\s+false\s+CustomResourceDefinition\n/);
  });

  test('invalid CRDs are refused with upstream messages', async () => {
    const misnamed = await kp.kubectl(['apply', '-f', '-'], cronTabs('crontab.stable.example.com'));
    assert.notEqual(misnamed.code, 0);
    assert.match(
      misnamed.stderr,
      /The CustomResourceDefinition "crontab\.stable\.example\.com" is invalid: metadata\.name: Invalid value: "crontab\.stable\.example\.com": must be spec\.names\.plural\+"\."\+spec\.group/,
    );
    const twoStorage = await kp.kubectl(['create', '-f', '-'], cronTabs('crontabs.stable.example.com', [['v1', true], ['v2', true]]));
    assert.notEqual(twoStorage.code, 0);
    assert.match(twoStorage.stderr, /\* spec\.versions: Invalid value: \[\]apiextensions\.CustomResourceDefinitionVersion\{apiextensions\.CustomResourceDefinitionVersion\{Name:"v1", Served:true, Storage:true, /);
    assert.match(twoStorage.stderr, /\}: must have exactly one version marked as storage version\n/);
    assert.match(twoStorage.stderr, /\* status\.storedVersions: Invalid value: \[\]string\{"v1"\}: must have the storage version v2/);
  });

  test('an unknown kind in a known version: no matches for kind, with kubectl 1.33 and 1.31', async () => {
    const foo = 'apiVersion: v1\nkind: Foo\nmetadata:\n  name: x\n';
    for (const version of ['1.33', '1.31']) {
      const r = await runVersioned(version, ['apply', '-f', '-'], foo);
      assert.notEqual(r.code, 0, version);
      assert.doesNotMatch(r.stderr, /failed to check CRD/, version);
      assert.match(r.stderr, /no matches for kind "Foo" in version "v1"/, version);
    }
  });
});
