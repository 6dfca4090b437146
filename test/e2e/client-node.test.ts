/**
 * The official JavaScript client (@kubernetes/client-node) against the built CLI: list, watch and
 * patch with the kubeconfig kubeplane writes.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { startKubeplane, eventually, removeDataDir, type Kubeplane } from './harness.js';

describe('@kubernetes/client-node works unchanged', () => {
  let kp: Kubeplane;
  let kc: k8s.KubeConfig;
  before(async () => {
    kp = await startKubeplane({ nodes: 2 });
    kc = new k8s.KubeConfig();
    kc.loadFromFile(kp.kubeconfig);
  });
  after(async () => {
    const dir = kp.dataDir;
    await kp.stop();
    removeDataDir(dir);
  });

  test('list nodes and namespaces', async () => {
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const nodes = await eventually('2 nodes', async () => {
      const l = await core.listNode();
      return l.items.length === 2 ? l : undefined;
    });
    assert.deepEqual(nodes.items.map((n) => n.metadata?.name).sort(), ['node-1', 'node-2']);
    assert.ok(nodes.metadata?.resourceVersion);
    const ns = await core.listNamespace();
    assert.deepEqual(ns.items.map((n) => n.metadata?.name).sort(), ['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    assert.ok(ns.items[0]?.metadata?.creationTimestamp instanceof Date);
  });

  test('watch sees a Deployment created and patched (JSON patch, the client default)', async () => {
    const apps = kc.makeApiClient(k8s.AppsV1Api);
    const events: string[] = [];
    const watch = new k8s.Watch(kc);
    const req = await watch.watch(
      '/apis/apps/v1/namespaces/default/deployments',
      {},
      (type: string, obj: k8s.V1Deployment) => events.push(`${type} ${obj.metadata?.name} ${obj.spec?.replicas}`),
      () => undefined,
    );
    await apps.createNamespacedDeployment({
      namespace: 'default',
      body: {
        metadata: { name: 'js' },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'js' } },
          template: { metadata: { labels: { app: 'js' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
        },
      },
    });
    const patched = await apps.patchNamespacedDeployment({
      name: 'js',
      namespace: 'default',
      body: [{ op: 'replace', path: '/spec/replicas', value: 2 }],
    });
    assert.equal(patched.spec?.replicas, 2);
    await eventually('the watch events', () => Promise.resolve(events.includes('ADDED js 1') && events.includes('MODIFIED js 2') ? true : undefined));
    req.abort();

    const pods = await eventually('2 pods of js', async () => {
      const l = await kc.makeApiClient(k8s.CoreV1Api).listNamespacedPod({ namespace: 'default', labelSelector: 'app=js' });
      return l.items.length === 2 ? l : undefined;
    });
    assert.equal(pods.items.length, 2);
  });
});
