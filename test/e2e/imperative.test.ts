/**
 * kubectl's imperative commands, which since 1.32 send Kubernetes protobuf request bodies: each
 * `kubectl create …` succeeds, and the stored object contains everything `--dry-run=client -o json`
 * of the same command shows (kubectl is the oracle; the server only adds defaults and its own fields).
 * The same JSON sent with `kubectl create -f -` is stored identically, so the protobuf and JSON paths
 * agree. Services get cluster IPs and node ports; endpoints and endpoint slices list the ready pods;
 * every namespace gets its default service account; `kubectl cluster-info` prints the control plane.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startKubeplane, eventually, removeDataDir, type Kubeplane } from './harness.js';

type Json = Record<string, unknown>;

/**
 * Asserts that `actual` contains `expected`: every non-null field of `expected` is in `actual` with a
 * value that contains it in turn; lists have the same length. Returns nothing; fails with the path.
 */
function assertContains(actual: unknown, expected: unknown, path = ''): void {
  if (expected === null) return;
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${path}: expected a list, got ${JSON.stringify(actual)}`);
    assert.equal(actual.length, expected.length, `${path}: length`);
    expected.forEach((e, i) => assertContains(actual[i], e, `${path}[${i}]`));
    return;
  }
  if (typeof expected === 'object') {
    assert.ok(actual !== null && typeof actual === 'object', `${path}: expected an object, got ${JSON.stringify(actual)}`);
    for (const [k, v] of Object.entries(expected)) assertContains((actual as Json)[k], v, path ? `${path}.${k}` : k);
    return;
  }
  assert.equal(actual, expected, path);
}

/** The object without what the server sets per object (identity, times, versions, allocations, status). */
function withoutServerFields(o: Json): Json {
  const copy = JSON.parse(JSON.stringify(o)) as Json;
  const meta = copy['metadata'] as Json;
  for (const k of ['name', 'uid', 'resourceVersion', 'creationTimestamp', 'managedFields', 'generation']) delete meta[k];
  delete meta['labels'];
  delete copy['status'];
  const spec = copy['spec'] as Json | undefined;
  if (spec && 'clusterIP' in spec) {
    delete spec['clusterIP'];
    delete spec['clusterIPs'];
    for (const p of (spec['ports'] as Json[] | undefined) ?? []) {
      delete p['nodePort'];
      delete p['name'];
    }
    delete spec['selector'];
  }
  return copy;
}

describe('kubectl create … (protobuf request bodies) with real kubectl', () => {
  let kp: Kubeplane;
  let dataDir = '';

  before(async () => {
    kp = await startKubeplane({ nodes: 2 });
    dataDir = kp.dataDir;
  });
  after(async () => {
    await kp.stop();
    removeDataDir(dataDir);
  });

  /** Runs `create <args>` with --dry-run=client -o json, then for real; returns [oracle, stored]. */
  async function createAndGet(args: string[], get: string[]): Promise<[Json, Json]> {
    const sep = args.indexOf('--');
    const [flags, rest] = sep < 0 ? [args, []] : [args.slice(0, sep), args.slice(sep)];
    const oracle = JSON.parse(await kp.kubectlOk(['create', ...flags, '--dry-run=client', '-o', 'json', ...rest])) as Json;
    const out = await kp.kubectlOk(['create', ...args]);
    assert.match(out, / created\n$/);
    const stored = await kp.kubectlJson<Json>(['get', ...get]);
    assertContains(stored, { ...oracle, status: null });
    return [oracle, stored];
  }

  test('cluster-info prints the control plane line', async () => {
    const out = await kp.kubectlOk(['cluster-info']);
    assert.match(out, /^Kubernetes control plane is running at https:\/\/127\.0\.0\.1:\d+\n/);
  });

  test('create namespace, and its default service account appears', async () => {
    const [, ns] = await createAndGet(['namespace', 'team-a'], ['namespace', 'team-a']);
    assert.deepEqual((ns['status'] as Json)['phase'], 'Active');
    await eventually('default service account in team-a', async () => (await kp.kubectl(['get', 'serviceaccount', 'default', '-n', 'team-a'])).code === 0 || undefined);
  });

  test('create configmap --from-literal, identical to the same JSON sent with create -f', async () => {
    const [oracle, stored] = await createAndGet(['configmap', 'cfg', '--from-literal=a=1', '--from-literal=empty='], ['configmap', 'cfg']);
    assert.deepEqual(stored['data'], { a: '1', empty: '' });
    const viaJson = { ...oracle, metadata: { ...(oracle['metadata'] as Json), name: 'cfg-json' } };
    await kp.kubectlOk(['create', '-f', '-'], JSON.stringify(viaJson));
    assert.deepEqual(withoutServerFields(await kp.kubectlJson<Json>(['get', 'configmap', 'cfg-json'])), withoutServerFields(stored));
    assert.match(await kp.kubectlOk(['get', 'configmap', 'cfg']), /^NAME\s+DATA\s+AGE\ncfg\s+2\s+/);
  });

  test('create secret generic --from-literal stores base64 bytes, type Opaque', async () => {
    const [, stored] = await createAndGet(['secret', 'generic', 'sec', '--from-literal=password=s3cr3t', '--from-literal=empty='], ['secret', 'sec']);
    assert.deepEqual(stored['data'], { password: Buffer.from('s3cr3t').toString('base64'), empty: '' });
    assert.equal(stored['type'], 'Opaque');
    assert.match(await kp.kubectlOk(['get', 'secret', 'sec']), /^NAME\s+TYPE\s+DATA\s+AGE\nsec\s+Opaque\s+2\s+/);
    // stringData (JSON path) is merged into data and not stored.
    await kp.kubectlOk(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sd' }, stringData: { k: 'v' } }));
    const sd = await kp.kubectlJson<Json>(['get', 'secret', 'sd']);
    assert.deepEqual([sd['data'], sd['stringData']], [{ k: 'dg==' }, undefined]);
  });

  test('create serviceaccount', async () => {
    await createAndGet(['serviceaccount', 'sa1'], ['serviceaccount', 'sa1']);
    assert.match(await kp.kubectlOk(['get', 'serviceaccount', 'sa1']), /^NAME\s+SECRETS\s+AGE\nsa1\s+0\s+/);
  });

  test('create deployment --replicas=3 --port=80 rolls out; a ClusterIP service gets an address and endpoints of the ready pods', async () => {
    const [oracle, stored] = await createAndGet(['deployment', 'web', '--image=nginx', '--replicas=3', '--port=80'], ['deployment', 'web']);
    assert.deepEqual((oracle['spec'] as Json)['replicas'], 3);
    assert.equal(((stored['spec'] as Json)['strategy'] as Json)['type'], 'RollingUpdate');
    await kp.kubectlOk(['rollout', 'status', 'deployment/web', '--timeout=60s']);

    const [, svc] = await createAndGet(['service', 'clusterip', 'web', '--tcp=80:80'], ['service', 'web']);
    const spec = svc['spec'] as Json;
    assert.match(String(spec['clusterIP']), /^10\.(9[6-9]|10\d|11[01])\.\d+\.\d+$/);
    assert.deepEqual(spec['clusterIPs'], [spec['clusterIP']]);

    const podIPs = (await kp.kubectlJson<{ items: Json[] }>(['get', 'pods', '-l', 'app=web'])).items.map((p) => String((p['status'] as Json)['podIP'])).sort();
    assert.equal(podIPs.length, 3);
    const addresses = await eventually('endpoints of the 3 ready pods', async () => {
      const ep = await kp.kubectlJson<{ subsets?: { addresses?: { ip: string }[]; ports?: { port: number }[] }[] }>(['get', 'endpoints', 'web']);
      const ips = (ep.subsets?.[0]?.addresses ?? []).map((a) => a.ip).sort();
      return ips.length === 3 ? { ips, ports: ep.subsets?.[0]?.ports } : undefined;
    });
    assert.deepEqual(addresses.ips, podIPs);
    assert.deepEqual(addresses.ports, [{ name: '80-80', port: 80, protocol: 'TCP' }]);
    const slices = await kp.kubectlJson<{ items: { endpoints: { addresses: string[]; conditions: { ready: boolean } }[] }[] }>(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web']);
    assert.deepEqual(slices.items.flatMap((s) => s.endpoints.filter((e) => e.conditions.ready).flatMap((e) => e.addresses)).sort(), podIPs);
    assert.match(await kp.kubectlOk(['get', 'svc', 'web', '-o', 'wide']), /^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\s+SELECTOR\nweb\s+ClusterIP\s+10\.\S+\s+<none>\s+80\/TCP\s+\S+\s+app=web\n$/);
  });

  test('create service nodeport gets the requested node port, which no other service can take', async () => {
    const [, svc] = await createAndGet(['service', 'nodeport', 'np', '--tcp=8080:80', '--node-port=30080'], ['service', 'np']);
    assert.equal(((svc['spec'] as Json)['ports'] as Json[])[0]?.['nodePort'], 30080);
    const r = await kp.kubectl(['create', 'service', 'nodeport', 'np2', '--tcp=8080:80', '--node-port=30080']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /spec\.ports\[0\]\.nodePort: Invalid value: 30080: provided port is already allocated/);
    assert.match(await kp.kubectlOk(['get', 'svc', 'np']), /\snp\s+NodePort\s+10\.\S+\s+<none>\s+8080:30080\/TCP\s/);
  });

  test('kubectl 1.32 (protobuf too) creates a configmap', async () => {
    const out = await kp.kubectlAt(32, ['create', 'configmap', 'from-132', '--from-literal=x=y']);
    assert.equal(out.stdout, 'configmap/from-132 created\n', out.stderr);
    assert.deepEqual((await kp.kubectlJson<Json>(['get', 'configmap', 'from-132']))['data'], { x: 'y' });
  });

  test('kubectl auth can-i and auth whoami (SelfSubjectAccessReview, SelfSubjectReview)', async () => {
    assert.equal(await kp.kubectlOk(['auth', 'can-i', 'list', 'pods']), 'yes\n');
    assert.equal(await kp.kubectlOk(['auth', 'can-i', 'delete', 'deployments', '--all-namespaces']), 'yes\n');
    const whoami = await kp.kubectlOk(['auth', 'whoami']);
    assert.match(whoami, /Username\s+kubernetes-admin/);
    assert.match(whoami, /Groups\s+\[kubeadm:cluster-admins system:authenticated\]/);
  });
});
