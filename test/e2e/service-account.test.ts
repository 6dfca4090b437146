/**
 * Service accounts with the real kubectl (issue 17): a pod gets `serviceAccountName: default` and the
 * kube-api-access projected volume and mounts as on a kubeadm cluster (and `kubectl describe pod`
 * prints them as upstream); a pod naming a missing account is refused with upstream's message;
 * `kubectl create token default` issues a token kubectl can use as its bearer token (`auth whoami`,
 * `get pods`), `--duration` sets its lifetime (at least 10 minutes), and deleting the account
 * revokes it (401).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../src/api/index.js';
import { eventually, removeDataDir, startKubeplane, tokenKubeconfig, type Kubeplane } from './harness.js';

/** The claims of a JWT, unverified. */
function claimsOf(token: string): { iat: number; exp: number; sub: string } {
  const payload = token.split('.')[1] ?? '';
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { iat: number; exp: number; sub: string };
}

describe('service accounts and tokens with real kubectl', { timeout: 180_000 }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 1 });
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  test('kubectl run: the pod runs as default with the kube-api-access volume mounted read-only', async () => {
    await kp.kubectlOk(['run', 'web', '--image=nginx']);
    const pod = await kp.kubectlJson<Pod>(['get', 'pod', 'web', '-o', 'json']);
    const spec = pod.spec as NonNullable<Pod['spec']> & { serviceAccount?: string };
    assert.equal(spec.serviceAccountName, 'default');
    assert.equal(spec.serviceAccount, 'default');
    const volume = spec.volumes?.find((v) => v.name.startsWith('kube-api-access-'));
    assert.match(volume?.name ?? '', /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.deepEqual(volume?.projected, {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    });
    assert.deepEqual(spec.containers[0]?.volumeMounts, [{ name: volume?.name, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }]);
    const described = await kp.kubectlOk(['describe', 'pod', 'web']);
    assert.match(described, new RegExp(`/var/run/secrets/kubernetes.io/serviceaccount from ${volume?.name ?? ''} \\(ro\\)`));
    assert.match(described, new RegExp(`  ${volume?.name ?? ''}:\\n    Type:\\s+Projected \\(a volume that contains injected data from multiple sources\\)\\n    TokenExpirationSeconds:\\s+3607\\n    ConfigMapName:\\s+kube-root-ca.crt\\n`));
    assert.match(described, /\n {4}DownwardAPI:\s+true\n/);
    assert.match(described, /\nService Account:\s+default\n/);
  });

  test('a pod naming a missing service account is refused with upstream text', async () => {
    const res = await kp.kubectl(['run', 'lost', '--image=nginx', '--overrides={"spec":{"serviceAccountName":"missing"}}']);
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /Error from server \(Forbidden\): pods "lost" is forbidden: error looking up service account default\/missing: serviceaccount "missing" not found/);
  });

  test('kubectl create token default is a bearer token kubectl can use, until the account is deleted', async () => {
    const token = (await kp.kubectlOk(['create', 'token', 'default'])).trim();
    const claims = claimsOf(token);
    assert.equal(claims.sub, 'system:serviceaccount:default:default');
    assert.equal(claims.exp - claims.iat, 3600);
    // A kubeconfig with the token alone: beside the admin's client certificate, the certificate is who authenticates.
    const asToken = tokenKubeconfig(kp, token);
    const whoami = await kp.kubectlOk(['--kubeconfig', asToken, 'auth', 'whoami']);
    assert.match(whoami, /\nUsername\s+system:serviceaccount:default:default\n/);
    assert.match(whoami, /\nGroups\s+\[system:serviceaccounts system:serviceaccounts:default system:authenticated\]\n/);
    assert.match(whoami, /\nExtra: authentication.kubernetes.io\/credential-id\s+\[JTI=[0-9a-f-]{36}\]/);
    const forbidden = await kp.kubectl(['--kubeconfig', asToken, 'get', 'pods']);
    assert.equal(forbidden.stderr.trim(), 'Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:default:default" cannot list resource "pods" in API group "" in the namespace "default"');
    await kp.kubectlOk(['create', 'rolebinding', 'default-view', '--clusterrole=view', '--serviceaccount=default:default']);
    const listed = await eventually('the binding in force', async () => {
      const r = await kp.kubectl(['--kubeconfig', asToken, 'get', 'pods']);
      return r.code === 0 ? r.stdout : undefined;
    });
    assert.match(listed, /^NAME\s+READY\s+STATUS/);

    const short = (await kp.kubectlOk(['create', 'token', 'default', '--duration=10m'])).trim();
    const shortClaims = claimsOf(short);
    assert.equal(shortClaims.exp - shortClaims.iat, 600);
    const tooShort = await kp.kubectl(['create', 'token', 'default', '--duration=1m']);
    assert.notEqual(tooShort.code, 0);
    assert.match(tooShort.stderr, /spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes/);
    const missing = await kp.kubectl(['create', 'token', 'nobody']);
    assert.match(missing.stderr, /serviceaccounts "nobody" not found/);

    const uid = (await kp.kubectlOk(['get', 'sa', 'default', '-o', 'jsonpath={.metadata.uid}'])).trim();
    await kp.kubectlOk(['delete', 'sa', 'default']);
    const refused = await kp.kubectl(['--kubeconfig', asToken, 'get', 'pods']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /error: You must be logged in to the server \(Unauthorized\)/);
    // The serviceaccounts controller makes a new default account; the old token stays refused.
    const recreated = await eventually('the default account to be recreated', async () => {
      const res = await kp.kubectl(['get', 'sa', 'default', '-o', 'jsonpath={.metadata.uid}']);
      return res.code === 0 && res.stdout.trim() !== '' ? res.stdout.trim() : undefined;
    });
    assert.notEqual(recreated, uid);
    assert.match((await kp.kubectl(['--kubeconfig', asToken, 'get', 'pods'])).stderr, /Unauthorized/);
    const fresh = (await kp.kubectlOk(['create', 'token', 'default'])).trim();
    assert.match(await kp.kubectlOk(['--kubeconfig', tokenKubeconfig(kp, fresh, 'fresh'), 'auth', 'whoami']), /system:serviceaccount:default:default/);
  });
});
