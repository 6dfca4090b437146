/**
 * The ServiceAccount admission plugin. The unit cases port plugin/pkg/admission/serviceaccount/
 * admission_test.go (v1.33): TestIgnoresMirrorPod, TestRejectsMirrorPodWith{ServiceAccount,
 * SecretVolumes,ServiceAccountTokenVolumeProjections}, TestAssignsDefaultServiceAccountAndBoundToken
 * WithNoSecretTokens, TestDeniesInvalidServiceAccount, TestAutomountsAPIToken (init containers
 * too), TestRespectsExistingMount, TestAutomountServiceAccountToken (pod and account preferences),
 * TestSetsDefaultImagePullSecrets / TestDoNotAddImagePullSecrets; then the plugin in the API server.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, ServiceAccount } from '../../api/index.js';
import { SeededRand } from '../../util/random/index.js';
import { FakeClock } from '../../util/clock/index.js';
import { newClientset } from '../../client/index.js';
import { newFakeServer } from '../../testing/index.js';
import { admitServiceAccount, DEFAULT_API_TOKEN_MOUNT_PATH, tokenVolume, type ServiceAccountLookup } from './service-account.js';

const VOLUME_NAME = /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/;

function lookupOf(...accounts: ServiceAccount[]): ServiceAccountLookup {
  return (namespace, name) => Promise.resolve(accounts.find((a) => a.metadata?.namespace === namespace && a.metadata?.name === name));
}

const sa = (name = 'default', extra: Partial<ServiceAccount> = {}): ServiceAccount => ({ metadata: { name, namespace: 'ns', uid: `uid-${name}` }, ...extra });

function pod(spec: Partial<Pod['spec']> = {}, annotations?: Record<string, string>): Pod {
  return { metadata: { name: 'p', namespace: 'ns', ...(annotations ? { annotations } : {}) }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } };
}

async function admit(p: Pod, lookup: ServiceAccountLookup = lookupOf(sa())): Promise<Pod> {
  await admitServiceAccount(p, 'ns', lookup, new SeededRand(1));
  return p;
}

describe('ServiceAccount admission (admission_test.go)', () => {
  test('a mirror pod is left alone; one naming a service account, a secret or a token projection is refused', async () => {
    const mirror = { 'kubernetes.io/config.mirror': 'x' };
    const admitted = await admit(pod({}, mirror), lookupOf());
    assert.equal(admitted.spec?.serviceAccountName, undefined);
    assert.equal(admitted.spec?.volumes, undefined);
    await assert.rejects(admit(pod({ serviceAccountName: 'default' }, mirror)), { message: 'pods "p" is forbidden: a mirror pod may not reference service accounts' });
    await assert.rejects(admit(pod({ volumes: [{ name: 's', secret: { secretName: 'x' } }] }, mirror)), { message: 'pods "p" is forbidden: a mirror pod may not reference secrets' });
    await assert.rejects(admit(pod({ containers: [{ name: 'c', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }] }, mirror)), {
      message: 'pods "p" is forbidden: a mirror pod may not reference secrets',
    });
    await assert.rejects(admit(pod({ volumes: [{ name: 't', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }] }, mirror)), {
      message: 'pods "p" is forbidden: a mirror pod may not use ServiceAccountToken volume projections',
    });
  });

  test('the default account is assigned and the kube-api-access volume mounted read-only in every container', async () => {
    const p = await admit(pod({ initContainers: [{ name: 'init', image: 'busybox' }], containers: [{ name: 'a', image: 'nginx' }, { name: 'b', image: 'nginx' }] }));
    assert.equal(p.spec?.serviceAccountName, 'default');
    assert.equal((p.spec as { serviceAccount?: string }).serviceAccount, 'default');
    const [volume] = p.spec?.volumes ?? [];
    assert.match(volume?.name ?? '', VOLUME_NAME);
    assert.deepEqual(volume, tokenVolume(volume?.name ?? ''));
    assert.deepEqual(volume?.projected, {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    });
    const mount = { name: volume?.name, readOnly: true, mountPath: DEFAULT_API_TOKEN_MOUNT_PATH };
    for (const c of [...(p.spec?.initContainers ?? []), ...(p.spec?.containers ?? [])]) assert.deepEqual(c.volumeMounts, [mount], c.name);
  });

  test('the deprecated serviceAccount field names the account when serviceAccountName is unset', async () => {
    const p = await admit(pod({ serviceAccount: 'builder' }), lookupOf(sa('builder')));
    assert.equal(p.spec?.serviceAccountName, 'builder');
  });

  test('a missing service account is refused with upstream text', async () => {
    await assert.rejects(admit(pod({ serviceAccountName: 'missing' })), (err: Error & { code?: number }) => {
      assert.equal(err.code, 403);
      assert.equal(err.message, 'pods "p" is forbidden: error looking up service account ns/missing: serviceaccount "missing" not found');
      return true;
    });
  });

  test('an existing mount at the token path keeps that container from the volume; no container needing it, no volume', async () => {
    const own = { name: 'mine', mountPath: DEFAULT_API_TOKEN_MOUNT_PATH };
    const p = await admit(pod({ volumes: [{ name: 'mine', emptyDir: {} }], containers: [{ name: 'a', volumeMounts: [own] }] }));
    assert.deepEqual(p.spec?.containers[0]?.volumeMounts, [own]);
    assert.deepEqual(p.spec?.volumes, [{ name: 'mine', emptyDir: {} }]);
    // One container with its own mount, one without: only the second gets the token volume.
    const mixed = await admit(pod({ containers: [{ name: 'a', volumeMounts: [own] }, { name: 'b' }] }));
    assert.deepEqual(mixed.spec?.containers[0]?.volumeMounts, [own]);
    assert.match(mixed.spec?.containers[1]?.volumeMounts?.[0]?.name ?? '', VOLUME_NAME);
  });

  test('an existing kube-api-access volume is reused; ephemeral containers get no mount', async () => {
    const p = await admit(pod({ volumes: [{ name: 'kube-api-access-abcde', projected: { sources: [] } }], ephemeralContainers: [{ name: 'debug', image: 'busybox' }] }));
    assert.equal(p.spec?.volumes?.length, 1);
    assert.equal(p.spec?.containers[0]?.volumeMounts?.[0]?.name, 'kube-api-access-abcde');
    assert.equal(p.spec?.ephemeralContainers?.[0]?.volumeMounts, undefined);
  });

  test('automountServiceAccountToken: the pod wins, then the account, else true', async () => {
    const noMount = sa('default', { automountServiceAccountToken: false });
    const cases: [string, boolean | undefined, ServiceAccount, boolean][] = [
      ['neither says', undefined, sa(), true],
      ['the account says no', undefined, noMount, false],
      ['the pod says no', false, sa(), false],
      ['the pod says yes over the account', true, noMount, true],
    ];
    for (const [name, podSays, account, mounted] of cases) {
      const p = await admit(pod(podSays === undefined ? {} : { automountServiceAccountToken: podSays }), lookupOf(account));
      assert.equal((p.spec?.volumes ?? []).length > 0, mounted, name);
      assert.equal((p.spec?.containers[0]?.volumeMounts ?? []).length > 0, mounted, name);
    }
  });

  test("the account's imagePullSecrets go to a pod that has none", async () => {
    const withSecrets = sa('default', { imagePullSecrets: [{ name: 'foo' }, { name: 'bar' }] });
    assert.deepEqual((await admit(pod(), lookupOf(withSecrets))).spec?.imagePullSecrets, [{ name: 'foo' }, { name: 'bar' }]);
    assert.deepEqual((await admit(pod({ imagePullSecrets: [{ name: 'mine' }] }), lookupOf(withSecrets))).spec?.imagePullSecrets, [{ name: 'mine' }]);
  });
});

describe('ServiceAccount admission in the API server', () => {
  test('a pod gets the default account and the volume; a missing account is 403; the default account is waited for', async () => {
    const clock = new FakeClock();
    const { transport } = await newFakeServer({ clock, namespaces: ['ns'] });
    const client = newClientset(transport);
    const created = await client.core.pods('ns').create(pod());
    assert.equal(created.spec?.serviceAccountName, 'default');
    assert.match(created.spec?.volumes?.[0]?.name ?? '', VOLUME_NAME);
    await assert.rejects(client.core.pods('ns').create({ ...pod({ serviceAccountName: 'nobody' }), metadata: { name: 'q' } }), {
      message: 'pods "q" is forbidden: error looking up service account ns/nobody: serviceaccount "nobody" not found',
    });
    // A namespace made a moment ago: the pod waits for the serviceaccounts controller's account.
    await client.core.namespaces().create({ metadata: { name: 'fresh' } });
    let done = false;
    const creating = client.core.pods('fresh').create({ ...pod(), metadata: { name: 'r', namespace: 'fresh' } }).finally(() => (done = true));
    await clock.stepAsync(150);
    assert.equal(done, false);
    await client.core.serviceAccounts('fresh').create({ metadata: { name: 'default' } });
    for (let i = 0; i < 3 && !done; i++) await clock.stepAsync(200);
    assert.equal((await creating).spec?.serviceAccountName, 'default');
    // Never created: refused after the last attempt (10 tries, 100–200 ms apart).
    await client.core.namespaces().create({ metadata: { name: 'empty' } });
    const refused = assert.rejects(client.core.pods('empty').create({ ...pod(), metadata: { name: 's', namespace: 'empty' } }), {
      message: 'pods "s" is forbidden: error looking up service account empty/default: serviceaccount "default" not found',
    });
    for (let i = 0; i < 10; i++) await clock.stepAsync(200);
    await refused;
  });
});
