/**
 * Custom resources through @kubernetes/client-node, as an operator written in JavaScript uses them:
 * the Prometheus Operator's ServiceMonitor CRD is created with ApiextensionsV1Api and becomes
 * Established; an informer on `servicemonitors` sees the CustomObjectsApi's create, merge patch and
 * delete; the cluster-wide list and a label-selected list agree with the informer's cache.
 *
 * Then the operator's real Prometheus CRD (13,927 lines of schema, test/fixtures/crds) takes 1,000
 * custom resources: each is defaulted by the schema (`spec.shards` 1 … `spec.portName` web) and pruned
 * (an unknown field is dropped), the list pages through them, and the scale subresource maps onto
 * `spec.shards` as the CRD declares.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { eventually, removeDataDir, repoFile, startKubeplane, type Kubeplane } from './harness.js';

const GROUP = 'monitoring.coreos.com';
const VERSION = 'v1';

/**
 * A CRD fixture of test/fixtures/crds, loaded as client-node's typed model (`loadYaml`), as an operator
 * loads its manifests: the client serializes typed models by their attribute maps, so a plain parsed
 * object would lose `x-kubernetes-*` keys on the way out.
 */
function crdFixture(name: string): k8s.V1CustomResourceDefinition {
  return k8s.loadYaml<k8s.V1CustomResourceDefinition>(repoFile(`test/fixtures/crds/monitoring.coreos.com_${name}.yaml`));
}

/** Creates `crd` and waits for its Established condition. */
async function establish(kc: k8s.KubeConfig, crd: k8s.V1CustomResourceDefinition): Promise<k8s.V1CustomResourceDefinition> {
  const api = kc.makeApiClient(k8s.ApiextensionsV1Api);
  await api.createCustomResourceDefinition({ body: crd });
  const name = crd.metadata?.name ?? '';
  return eventually(`${name} Established`, async () => {
    const got = await api.readCustomResourceDefinition({ name });
    return got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? got : undefined;
  });
}

/** Runs `work` over `items` with at most `limit` at once. */
async function inBatches<T>(items: T[], limit: number, work: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += limit) await Promise.all(items.slice(i, i + limit).map(work));
}

describe('custom resources with @kubernetes/client-node', { timeout: 300_000 }, () => {
  let kp: Kubeplane;
  let kc: k8s.KubeConfig;
  before(async () => {
    kp = await startKubeplane({ nodes: 1 });
    kc = new k8s.KubeConfig();
    kc.loadFromFile(kp.kubeconfig);
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  test('an informer sees a ServiceMonitor created, patched and deleted through CustomObjectsApi', async () => {
    const crd = await establish(kc, crdFixture('servicemonitors'));
    assert.deepEqual(crd.status?.acceptedNames?.shortNames, ['smon']);
    assert.deepEqual(crd.status?.storedVersions, ['v1']);

    const objects = kc.makeApiClient(k8s.CustomObjectsApi);
    const list = (): Promise<k8s.KubernetesListObject<k8s.KubernetesObject>> =>
      objects.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'default', plural: 'servicemonitors' }) as Promise<
        k8s.KubernetesListObject<k8s.KubernetesObject>
      >;
    const informer = k8s.makeInformer(kc, `/apis/${GROUP}/${VERSION}/namespaces/default/servicemonitors`, list);
    const seen: string[] = [];
    type ServiceMonitor = k8s.KubernetesObject & { spec?: { endpoints?: { port?: string; interval?: string }[] } };
    const describeEvent = (verb: string) => (obj: ServiceMonitor): void => void seen.push(`${verb} ${obj.metadata?.name} ${obj.spec?.endpoints?.[0]?.interval ?? '-'}`);
    informer.on('add', describeEvent('add'));
    informer.on('update', describeEvent('update'));
    informer.on('delete', describeEvent('delete'));
    await informer.start();
    try {
      const created = (await objects.createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: 'default',
        plural: 'servicemonitors',
        body: {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'ServiceMonitor',
          metadata: { name: 'web', labels: { team: 'frontend' } },
          spec: { selector: { matchLabels: { app: 'web' } }, endpoints: [{ port: 'http', interval: '30s' }] },
        },
      })) as ServiceMonitor;
      assert.equal(created.metadata?.generation, 1);
      assert.ok(created.metadata?.uid);

      const patched = (await objects.patchNamespacedCustomObject(
        { group: GROUP, version: VERSION, namespace: 'default', plural: 'servicemonitors', name: 'web', body: { spec: { endpoints: [{ port: 'http', interval: '10s' }] } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      )) as ServiceMonitor;
      assert.equal(patched.spec?.endpoints?.[0]?.interval, '10s');
      assert.equal(patched.metadata?.generation, 2, 'no status subresource: every spec change bumps the generation');

      await eventually('the informer saw the update', () => Promise.resolve(seen.includes('update web 10s') ? true : undefined));
      assert.deepEqual(informer.list('default').map((o) => o.metadata?.name), ['web']);
      const selected = (await objects.listClusterCustomObject({ group: GROUP, version: VERSION, plural: 'servicemonitors', labelSelector: 'team=frontend' })) as k8s.KubernetesListObject<k8s.KubernetesObject>;
      assert.deepEqual(selected.items.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`), ['default/web']);

      await objects.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'default', plural: 'servicemonitors', name: 'web' });
      await eventually('the informer saw the delete', () => Promise.resolve(seen.some((s) => s.startsWith('delete web')) ? true : undefined));
      assert.deepEqual(seen, ['add web 30s', 'update web 10s', 'delete web 10s']);
      assert.deepEqual(informer.list('default'), []);
    } finally {
      await informer.stop();
    }
  });

  test("the Prometheus Operator's 13,927-line Prometheus CRD: 1,000 custom resources defaulted, pruned, paged and scaled", async () => {
    const crd = await establish(kc, crdFixture('prometheuses'));
    assert.equal(crd.spec.versions[0]?.name, 'v1');
    const objects = kc.makeApiClient(k8s.CustomObjectsApi);
    const names = Array.from({ length: 1000 }, (_, i) => `prom-${String(i).padStart(4, '0')}`);
    await inBatches(names, 25, (name) =>
      objects.createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: 'default',
        plural: 'prometheuses',
        body: {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'Prometheus',
          metadata: { name, labels: { shard: String(Number(name.slice(5)) % 4) } },
          spec: { replicas: 2, serviceAccountName: 'prometheus', serviceMonitorSelector: {}, notAField: true },
        },
      }),
    );

    type Prometheus = k8s.KubernetesObject & { spec: Record<string, unknown> };
    const one = (await objects.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'default', plural: 'prometheuses', name: 'prom-0042' })) as Prometheus;
    assert.equal(one.spec['shards'], 1, 'the schema default of spec.shards');
    assert.equal(one.spec['portName'], 'web', 'the schema default of spec.portName');
    assert.equal('notAField' in one.spec, false, 'an unknown field is pruned');

    // Pages of 300: 300 + 300 + 300 + 100, every name once.
    const paged: string[] = [];
    let cont: string | undefined;
    let pages = 0;
    do {
      // Custom objects come back as plain JSON (no typed model), so the token is `metadata.continue`.
      const page = (await objects.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'default', plural: 'prometheuses', limit: 300, _continue: cont })) as {
        metadata: { continue?: string };
        items: Prometheus[];
      };
      paged.push(...page.items.map((o) => o.metadata?.name ?? ''));
      cont = page.metadata.continue || undefined;
      pages++;
    } while (cont);
    assert.equal(pages, 4);
    assert.deepEqual(paged, names);
    const shard3 = (await objects.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'default', plural: 'prometheuses', labelSelector: 'shard=3' })) as k8s.KubernetesListObject<Prometheus>;
    assert.equal(shard3.items.length, 250);

    // The scale subresource reads and writes spec.shards (specReplicasPath), not spec.replicas.
    const scale = await objects.getNamespacedCustomObjectScale({ group: GROUP, version: VERSION, namespace: 'default', plural: 'prometheuses', name: 'prom-0042' });
    assert.equal((scale as k8s.V1Scale).spec?.replicas, 1);
    await objects.patchNamespacedCustomObjectScale(
      { group: GROUP, version: VERSION, namespace: 'default', plural: 'prometheuses', name: 'prom-0042', body: { spec: { replicas: 3 } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    const scaled = (await objects.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: 'default', plural: 'prometheuses', name: 'prom-0042' })) as Prometheus;
    assert.deepEqual([scaled.spec['shards'], scaled.spec['replicas']], [3, 2]);
  });
});
