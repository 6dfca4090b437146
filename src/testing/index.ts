/**
 * Test support at the top of the layers: builds the test fake (`client/fake`'s reactors) in front of
 * the REAL API server on memory storage, so unit tests of controllers, informers, the scheduler and
 * the simulated nodes run against the very defaulting, validation, admission, subresources, watch and
 * pagination that production runs (DESIGN.md: "the test fake must agree with the real server"; ADR 3:
 * the in-process transport runs the same path as HTTP). Only tests import this module (the lint rule
 * exempts `src/**\/testing/**`; nothing else may import it).
 *
 * **Time and randomness.** The server runs on the test's Clock and Rand: creationTimestamps,
 * deletionTimestamps, watch timeouts, bookmarks (every 60 s of clock time) and compaction (every
 * 5 minutes) follow the FakeClock; uids and generateName suffixes come from the Rand.
 *
 * **Namespaces.** The server's NamespaceLifecycle admission refuses creates in a namespace that does
 * not exist, as upstream's does. The server starts with upstream's default namespaces (`default`,
 * `kube-system`, `kube-public`, `kube-node-lease`) and the `kubernetes` service. Besides those, a
 * test names the namespaces it creates objects in with {@link FakeServerOptions.namespaces}; and
 * seeding an object also creates its namespace when it does not exist and the seed does not contain
 * it, because a stored namespaced object implies its namespace (a real cluster cannot hold one
 * without it). Creating into any other namespace fails with 404 as on a real cluster: a test of the
 * namespace lifecycle sees exactly the real admission. The namespaces the fake creates (the default
 * ones included) get their `default` ServiceAccount, as the serviceaccounts controller gives every
 * namespace of a real cluster: the server's ServiceAccount admission refuses pods without it.
 *
 * **Seeding.** {@link seedObjects} writes objects straight into storage, as a restore would, and the
 * watch caches pick them up from the storage watch: status, spec.nodeName, ownerReferences,
 * finalizers, deletionTimestamp… stay exactly as given (a create would reset status and deletion
 * fields). What every stored object has is filled in when missing: apiVersion (`v1`), kind,
 * metadata.uid, metadata.creationTimestamp (the clock's now), metadata.generation where the kind
 * keeps one (1), and the kind's defaults (which only fill absent fields). Seeded objects are not
 * validated or admitted.
 */
import type { KubeObject } from '../api/index.js';
import type { ObjectMeta } from '../api/index.js';
import { ApiServer, DEFAULT_NAMESPACES } from '../apiserver/index.js';
import { ensureDefaultServiceAccount } from '../apiserver/testing/fixtures.js';
import { servedStrategies } from '../apiserver/registry/resources/index.js';
import { clone, encodeForStorage, metaOf } from '../apiserver/registry/generic/objects.js';
import { resourcePrefix } from '../apiserver/registry/generic/store.js';
import type { ResourceStrategy } from '../apiserver/registry/strategy.js';
import { FakeTransport, type SeedObject } from '../client/fake/index.js';
import { isAlreadyExists } from '../machinery/errors/index.js';
import { MemoryBackend } from '../storage/memory/index.js';
import { FakeClock, formatTime, type Clock } from '../util/clock/index.js';
import { SeededRand, type Rand } from '../util/random/index.js';

/** Options of {@link newFakeTransport} and {@link newFakeServer}. */
export interface FakeServerOptions {
  /** The server's clock. Default: a FakeClock at 2025-01-01T00:00:00Z. */
  clock?: Clock;
  /** The server's randomness (uids, generateName suffixes, cluster IPs). Default: SeededRand(1). */
  rand?: Rand;
  /** Namespaces to create (Active) besides the default ones, for objects the test creates itself. */
  namespaces?: readonly string[];
  /** Objects to seed at start (see the module comment), after the namespaces. */
  objects?: readonly SeedObject[];
}

/** A real API server on memory storage, and the test fake in front of it. */
export interface FakeServer {
  server: ApiServer;
  backend: MemoryBackend;
  transport: FakeTransport;
}

/** Starts a real API server on memory storage with `opts` and puts a {@link FakeTransport} in front of it. */
export async function newFakeServer(opts: FakeServerOptions = {}): Promise<FakeServer> {
  const clock = opts.clock ?? new FakeClock();
  const rand = opts.rand ?? new SeededRand(1);
  const backend = new MemoryBackend();
  const server = await ApiServer.create({ backend, strategies: servedStrategies, clock, rand });
  const transport = new FakeTransport(server.inProcessTransport(), {
    seed: (objects) => seedObjects(server, backend, clock, rand, objects),
    compact: () => server.compact(server.currentRevision()),
    resourceVersion: () => String(server.currentRevision()),
  });
  for (const ns of DEFAULT_NAMESPACES) await ensureDefaultServiceAccount(server, ns);
  for (const ns of opts.namespaces ?? []) await ensureNamespace(server, ns);
  if (opts.objects) await transport.seed(opts.objects);
  // The first request sees everything above, even a list at resourceVersion 0 (served from the cache).
  await server.waitUntilFresh();
  return { server, backend, transport };
}

/** {@link newFakeServer}'s transport: what a controller's unit test hands to `newClientset`. */
export async function newFakeTransport(opts: FakeServerOptions = {}): Promise<FakeTransport> {
  return (await newFakeServer(opts)).transport;
}

/**
 * Writes `objects` into `backend` as described in the module comment (an existing object of the same
 * key is replaced), creates the namespaces they need, and resolves once the server's caches hold them.
 * @throws Error for a kind the server does not serve, or a namespaced object without a namespace
 */
export async function seedObjects(server: ApiServer, backend: MemoryBackend, clock: Clock, rand: Rand, objects: readonly SeedObject[]): Promise<void> {
  const seeded = objects.map((o) => inStoredVersion(server, o));
  const seededNamespaces = new Set(seeded.filter((s) => isNamespace(s.strategy)).map((s) => s.obj.metadata?.name));
  for (const { obj, strategy } of seeded) {
    const ns = obj.metadata?.namespace;
    if (strategy.info.namespaced && ns && !seededNamespaces.has(ns)) await ensureNamespace(server, ns);
  }
  for (const { obj, strategy } of seeded) {
    const stored = asStored(obj, strategy, clock, rand);
    const m = stored.metadata as ObjectMeta & { name: string };
    const key = resourcePrefix(strategy.info) + (strategy.info.namespaced ? `${m.namespace ?? ''}/` : '') + m.name;
    const existing = await backend.get(key);
    if (existing) await backend.update(key, encodeForStorage(stored), existing.modRevision);
    else await backend.create(key, encodeForStorage(stored));
  }
  await server.waitUntilFresh();
}

/**
 * `obj` as its resource stores it, with the strategy of that resource: an object of a version that is
 * a view of another (see `versionView`) is converted to the stored version, as the server converts
 * request bodies.
 */
function inStoredVersion(server: ApiServer, obj: SeedObject): { obj: KubeObject; strategy: ResourceStrategy } {
  const strategy = strategyOf(server, obj);
  if (!strategy.view) return { obj: obj as KubeObject, strategy };
  const { storage, conversion } = strategy.view;
  const base = server.resources().find((s) => !s.view && s.info.group === storage.group && s.info.resource === storage.resource);
  if (!base) throw new Error(`seed: ${storage.group}/${storage.resource}, which stores ${strategy.info.kind}, is not served`);
  return { obj: conversion.toStorage(clone(obj as KubeObject)), strategy: base };
}

/** The strategy serving `obj`'s apiVersion and kind. */
function strategyOf(server: ApiServer, obj: SeedObject): ResourceStrategy {
  const apiVersion = obj.apiVersion ?? 'v1';
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = apiVersion.slice(slash + 1);
  const strategy = server.resources().find((s) => s.info.group === group && s.info.version === version && s.info.kind === obj.kind && !s.review);
  if (!strategy) throw new Error(`seed: ${apiVersion} ${obj.kind ?? '(no kind)'} is not served by the API server`);
  return strategy;
}

function isNamespace(strategy: ResourceStrategy): boolean {
  return strategy.info.group === '' && strategy.info.resource === 'namespaces';
}

/** A private copy of `obj` with what storage would hold filled in (see the module comment). */
function asStored(obj: KubeObject, strategy: ResourceStrategy, clock: Clock, rand: Rand): KubeObject {
  const { info } = strategy;
  const stored = clone(obj);
  stored.apiVersion = info.group ? `${info.group}/${info.version}` : info.version;
  stored.kind = info.kind;
  const m = metaOf(stored);
  if (!m.name) throw new Error(`seed: a ${info.kind} without metadata.name`);
  if (!info.namespaced) delete m.namespace;
  else if (!m.namespace) throw new Error(`seed: ${info.kind} ${m.name} has no metadata.namespace`);
  delete m.resourceVersion;
  strategy.defaults(stored);
  m.uid ??= rand.uuid();
  m.creationTimestamp ??= formatTime(clock.now());
  if (m.generation === undefined) {
    // Kinds that track generation set it when they are created; seeded objects have "been created".
    const created = clone(stored);
    strategy.prepareForCreate(created, clock.now());
    const generation = created.metadata?.generation;
    if (generation !== undefined) m.generation = generation;
  }
  return stored;
}

/**
 * Creates namespace `name` through the server (an Active namespace, as `kubectl create namespace`)
 * unless it exists, and its `default` ServiceAccount.
 */
async function ensureNamespace(server: ApiServer, name: string): Promise<void> {
  try {
    await server.handle({ verb: 'create', group: '', version: 'v1', resource: 'namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  await ensureDefaultServiceAccount(server, name);
}
