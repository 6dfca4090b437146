/**
 * Helpers for whole-control-plane tests under a FakeClock: start (and restart) the control plane on
 * a memory backend, step the clock until something holds, and small object builders.
 */
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { FakeClock } from '../../src/util/clock/index.js';
import { SeededRand } from '../../src/util/random/index.js';
import { MemoryBackend } from '../../src/storage/memory/index.js';
import { startControlPlane, type ControlPlane } from '../../src/cli/cluster.js';
import type { Deployment, OwnerReference, Pod } from '../../src/api/index.js';
import type { ResourceDescriptor } from '../../src/api/catalogue/index.js';

/** What ownerRef and uids read of an object. */
export interface Named {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; uid?: string };
}

/** The sorted uids of `objs`. */
export function uids(objs: readonly Named[]): string[] {
  return objs.map((o) => o.metadata?.uid ?? '').sort();
}

const silent = pino({ level: 'silent' });

/** Starts a control plane with `nodes` nodes on `backend`, stepping the clock while it starts. */
export async function startPlane(backend: MemoryBackend, clock: FakeClock, seed = 42, nodes = 3): Promise<ControlPlane> {
  const starting = startControlPlane({ backend, nodes, clock, rand: new SeededRand(seed), logger: silent });
  let done = false;
  void starting.then(() => (done = true));
  for (let i = 0; i < 100 && !done; i++) await clock.stepAsync(10);
  return starting;
}

/** A fresh memory backend, clock and control plane. */
export async function newPlane(): Promise<{ cp: ControlPlane; clock: FakeClock; backend: MemoryBackend }> {
  const clock = new FakeClock();
  const backend = new MemoryBackend();
  return { cp: await startPlane(backend, clock), clock, backend };
}

/** Steps the clock 100 ms at a time until `probe` holds (at most `maxSteps` steps). */
export async function stepUntil(clock: FakeClock, what: string, probe: () => Promise<boolean>, maxSteps = 1200): Promise<void> {
  for (let i = 0; i < maxSteps; i++) {
    if (await probe()) return;
    await clock.stepAsync(100);
  }
  assert.fail(`${what} did not happen within ${maxSteps * 100} ms of clock time`);
}

/** Steps the clock by `ms` in 100 ms steps (lets every component run). */
export async function stepFor(clock: FakeClock, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 100) await clock.stepAsync(100);
}

/** A Deployment of `replicas` nginx pods labelled `app=<name>`. */
export function deployment(name: string, replicas: number, namespace = 'default'): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } },
    },
  };
}

/** A bare pod (no controller), optionally with owner references and finalizers. */
export function pod(name: string, opts: { namespace?: string; owners?: OwnerReference[]; finalizers?: string[]; labels?: Record<string, string> } = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: opts.namespace ?? 'default',
      labels: opts.labels ?? { bare: name },
      ...(opts.owners ? { ownerReferences: opts.owners } : {}),
      ...(opts.finalizers ? { finalizers: opts.finalizers } : {}),
    },
    spec: { containers: [{ name: 'c', image: 'busybox' }] },
  };
}

/** An owner reference to `obj` (non-controller unless told). */
export function ownerRef(obj: Named, opts: { controller?: boolean; blockOwnerDeletion?: boolean } = {}): OwnerReference {
  return {
    apiVersion: obj.apiVersion ?? '',
    kind: obj.kind ?? '',
    name: obj.metadata?.name ?? '',
    uid: obj.metadata?.uid ?? '',
    ...(opts.controller === undefined ? {} : { controller: opts.controller }),
    ...(opts.blockOwnerDeletion === undefined ? {} : { blockOwnerDeletion: opts.blockOwnerDeletion }),
  };
}

/** Resolves to true when `get` finds the object, false on any error (NotFound). */
export function exists(get: () => Promise<unknown>): Promise<boolean> {
  return get().then(
    () => true,
    () => false,
  );
}

/** The CustomResourceDefinitions resource, for the dynamic client. */
export const CRDS: ResourceDescriptor = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false };
/** The namespaced custom resource `gizmos.example.com/v1` that {@link gizmoCrd} defines. */
export const GIZMOS: ResourceDescriptor = { group: 'example.com', version: 'v1', resource: 'gizmos', kind: 'Gizmo', namespaced: true };

/** A CRD of namespaced `gizmos.example.com` (v1, any fields). */
export const gizmoCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gizmos.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'gizmos', kind: 'Gizmo' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};
