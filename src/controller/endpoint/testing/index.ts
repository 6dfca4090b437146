/**
 * Test fixtures shared by the endpoints, endpointslice and serviceaccounts controller tests: a fake
 * API (the test fake in front of the real API server, src/testing) with informers on a FakeClock, and
 * pods/services to put in it.
 */
import type { KubeObject, Pod, Service } from '../../../api/index.js';
import { newClientset, type Clientset } from '../../../client/index.js';
import type { FakeTransport } from '../../../client/fake/index.js';
import { newSharedInformerFactory, type SharedInformerFactory } from '../../../informers/index.js';
import { newFakeTransport } from '../../../testing/index.js';
import { FakeClock, flushAsync } from '../../../util/clock/index.js';

/** A fake cluster: transport, clientset, informers, the clock and an abort controller for the controller's run. */
export interface FakeCluster {
  clock: FakeClock;
  transport: FakeTransport;
  client: Clientset;
  informers: SharedInformerFactory;
  stop: AbortController;
  /** Lets informers and workers process everything pending. */
  settle(): Promise<void>;
}

/** A fake cluster seeded with `objects`. Start the informers after constructing the controller. */
export async function fakeCluster(objects: KubeObject[] = []): Promise<FakeCluster> {
  const clock = new FakeClock(Date.UTC(2025, 0, 1));
  const transport = await newFakeTransport({ clock, objects, namespaces: ['ns'] });
  const client = newClientset(transport);
  const informers = newSharedInformerFactory(client, { clock });
  return { clock, transport, client, informers, stop: new AbortController(), settle: () => flushAsync(30) };
}

/** A running pod of `ns` with `labels`, an IP when `ip` is given, Ready unless `ready` is false. */
export function testPod(name: string, o: { ip?: string; ready?: boolean; labels?: Record<string, string>; node?: string; ports?: { name: string; containerPort: number }[]; ns?: string } = {}): Pod {
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: o.ns ?? 'ns', uid: `${name}-uid`, labels: o.labels ?? { app: 'web' } },
    spec: { nodeName: o.node ?? 'n1', containers: [{ name: 'c', image: 'i', ...(o.ports ? { ports: o.ports } : {}) }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }] },
  };
  if (o.ip && pod.status) pod.status.podIP = o.ip;
  return pod;
}

/** A ClusterIP service of `ns` selecting `app=web` with the given ports. */
export function testService(name: string, spec: Service['spec'] = {}, labels?: Record<string, string>): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'ns', uid: `${name}-uid`, ...(labels ? { labels } : {}) },
    spec: { type: 'ClusterIP', clusterIP: '10.96.0.10', selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }], ...spec },
  };
}
