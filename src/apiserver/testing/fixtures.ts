/**
 * Small strategies, a server factory and request helpers for the API server core's own tests (the
 * real per-kind strategies live in registry/resources). `widgets.example.com` is a namespaced kind
 * with spec, status and a scale subresource; `namespaces`, `pods` and `configmaps` are minimal core
 * kinds with upstream's names (and therefore schemas, for unknown-field pruning).
 */
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/index.js';
import type { RestRequest } from '../../api/request.js';
import { metaOf } from '../registry/generic/objects.js';
import { StatusError, field, type FieldError } from '../../machinery/errors/index.js';
import { MemoryBackend } from '../../storage/memory/index.js';
import { FakeClock } from '../../util/clock/index.js';
import { SeededRand, type Rand } from '../../util/random/index.js';
import { ApiServer, DEFAULT_NAMESPACES, type ApiServerOptions, type HandleResult } from '../index.js';
import { STANDARD_VERBS } from '../../api/catalogue/index.js';
import type { ResourceInfo, ResourceStrategy, TablePrinter } from '../registry/strategy.js';
import { namespaceStrategy as realNamespaceStrategy } from '../registry/resources/namespaces.js';
import { podStrategy as realPodStrategy, type PodObject } from '../registry/resources/pods.js';

const table: TablePrinter = {
  columns: [{ name: 'Name', type: 'string', format: 'name', description: '', priority: 0 }],
  row: (obj) => ({ cells: [obj.metadata?.name ?? ''] }),
};

/**
 * A ResourceInfo from its group, version, resource and kind: singular is the lower-case kind, listKind
 * `<Kind>List`, namespaced, every verb, no short names, categories or subresources unless given.
 */
export function resourceInfo(partial: Partial<ResourceInfo> & Pick<ResourceInfo, 'group' | 'version' | 'resource' | 'kind'>): ResourceInfo {
  return {
    singular: partial.kind.toLowerCase(),
    listKind: `${partial.kind}List`,
    namespaced: true,
    shortNames: [],
    categories: [],
    verbs: [...STANDARD_VERBS],
    subresources: [],
    ...partial,
  };
}

/**
 * A strategy that serves `info` with no status, no defaults, preparation or validation, unconditional
 * updates, background deletion, no field selectors and a Name-only table; `overrides` replace any of it.
 */
export function plainStrategy(info: ResourceInfo, overrides: Partial<ResourceStrategy> = {}): ResourceStrategy {
  return {
    info,
    hasStatus: false,
    defaults() {},
    prepareForCreate() {},
    prepareForUpdate() {},
    validate: () => [],
    validateUpdate: () => [],
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    defaultGarbageCollectionPolicy: 'Background',
    fieldSelectors: {},
    table,
    ...overrides,
  };
}

type Spec = { replicas?: number; selector?: string; color?: string; nodeName?: string; [k: string]: unknown };

function specOf(obj: KubeObject): Spec {
  return (obj.spec ??= {}) as Spec;
}

/** Generation 1 on create; +1 when spec changes; status kept on main updates. */
const specStatusHooks = {
  prepareForCreate(obj: KubeObject): void {
    obj.status = {};
    metaOf(obj).generation = 1;
  },
  prepareForUpdate(obj: KubeObject, old: KubeObject): void {
    obj.status = old.status;
    if (JSON.stringify(obj.spec) !== JSON.stringify(old.spec)) metaOf(obj).generation = (old.metadata?.generation ?? 0) + 1;
  },
};

/** `widgets.example.com/v1`: spec.replicas (≥ 0), status, scale subresource, field selector `spec.color`. */
export const widgetStrategy: ResourceStrategy = {
  info: resourceInfo({
    group: 'example.com',
    version: 'v1',
    resource: 'widgets',
    kind: 'Widget',
    shortNames: ['wd'],
    subresources: [
      { name: 'status', group: 'example.com', version: 'v1', kind: 'Widget', verbs: ['get', 'patch', 'update'] },
      { name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] },
    ],
  }),
  hasStatus: true,
  defaults(obj) {
    specOf(obj).replicas ??= 1;
  },
  ...specStatusHooks,
  validate(obj) {
    const errs: FieldError[] = [];
    const r = specOf(obj).replicas ?? 0;
    if (r < 0) errs.push(field.invalid('spec.replicas', r, 'must be greater than or equal to 0'));
    return errs;
  },
  validateUpdate(obj) {
    return widgetStrategy.validate(obj);
  },
  validateStatusUpdate() {
    return [];
  },
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: { 'spec.color': (obj) => specOf(obj).color ?? '' },
  table,
  scale: {
    specReplicas: (obj) => specOf(obj).replicas ?? 1,
    setSpecReplicas: (obj, n) => {
      specOf(obj).replicas = n;
    },
    statusReplicas: (obj) => ((obj.status ?? {}) as { replicas?: number }).replicas ?? 0,
    selector: (obj) => specOf(obj).selector ?? '',
  },
};

/** `gadgets.example.com/v1`: like widgets but cluster-scoped, PUT may create, and updates need a resourceVersion. */
export const gadgetStrategy: ResourceStrategy = {
  ...widgetStrategy,
  info: resourceInfo({ group: 'example.com', version: 'v1', resource: 'gadgets', kind: 'Gadget', namespaced: false }),
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: false,
  scale: undefined,
};

/** core/v1 namespaces: phase Active and the `kubernetes` finalizer on create; spec.finalizers and status kept on update. */
export const namespaceStrategy: ResourceStrategy = plainStrategy(
  resourceInfo({
    group: '',
    version: 'v1',
    resource: 'namespaces',
    kind: 'Namespace',
    namespaced: false,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [
      { name: 'status', group: '', version: 'v1', kind: 'Namespace', verbs: ['get', 'patch', 'update'] },
      { name: 'finalize', group: '', version: 'v1', kind: 'Namespace', verbs: ['update'] },
    ],
  }),
  {
    hasStatus: true,
    prepareForCreate(obj) {
      obj.status = { phase: 'Active' };
      const spec = (obj.spec ??= {}) as { finalizers?: string[] };
      if (!(spec.finalizers ?? []).includes('kubernetes')) spec.finalizers = [...(spec.finalizers ?? []), 'kubernetes'];
    },
    prepareForUpdate(obj, old) {
      obj.spec = old.spec;
      obj.status = old.status;
    },
    fieldSelectors: { 'status.phase': (obj) => (obj.status as { phase?: string } | undefined)?.phase ?? '' },
    // The real kind's lifecycle: Terminating first, /finalize, admission, the default namespaces.
    returnDeletedObject: true,
    storage: (ctx) => realNamespaceStrategy.storage?.(ctx) ?? {},
  },
);

/** core/v1 pods: graceful deletion and binding; field selector spec.nodeName. */
export const podStrategy: ResourceStrategy = plainStrategy(
  resourceInfo({
    group: '',
    version: 'v1',
    resource: 'pods',
    kind: 'Pod',
    subresources: [
      { name: 'status', group: '', version: 'v1', kind: 'Pod', verbs: ['get', 'patch', 'update'] },
      { name: 'binding', group: '', version: 'v1', kind: 'Binding', verbs: ['create'] },
    ],
  }),
  {
    hasStatus: true,
    defaults(obj) {
      (specOf(obj) as { terminationGracePeriodSeconds?: number }).terminationGracePeriodSeconds ??= 30;
    },
    prepareForCreate(obj) {
      obj.status = { phase: 'Pending' };
    },
    prepareForUpdate(obj, old) {
      obj.status = old.status;
    },
    fieldSelectors: { 'spec.nodeName': (obj) => specOf(obj).nodeName ?? '' },
    // The real kind's graceful deletion, binding and admission.
    checkGracefulDelete: (pod, requested) => realPodStrategy.checkGracefulDelete?.(pod as PodObject, requested) ?? 0,
    returnDeletedObject: true,
    storage: (ctx) => realPodStrategy.storage?.(ctx) ?? {},
  },
);

/** core/v1 configmaps: no status. */
export const configMapStrategy: ResourceStrategy = plainStrategy(resourceInfo({ group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap' }));

/** Every test strategy. */
export const testStrategies: ResourceStrategy[] = [namespaceStrategy, podStrategy, configMapStrategy, widgetStrategy, gadgetStrategy];

/** A server on a fresh MemoryBackend with a FakeClock and SeededRand. */
export interface TestServer {
  server: ApiServer;
  backend: MemoryBackend;
  clock: FakeClock;
  rand: Rand;
}

/**
 * Starts an {@link ApiServer} for tests. When it serves ServiceAccounts, the default namespaces get
 * their `default` account, as the serviceaccounts controller gives them on a real cluster (pods are
 * refused without it).
 */
export async function newTestServer(opts: Partial<ApiServerOptions> = {}): Promise<TestServer> {
  const backend = (opts.backend as MemoryBackend | undefined) ?? new MemoryBackend();
  const clock = (opts.clock as FakeClock | undefined) ?? new FakeClock();
  const rand = opts.rand ?? new SeededRand(7);
  const server = await ApiServer.create({ strategies: testStrategies, ...opts, backend, clock, rand });
  for (const ns of DEFAULT_NAMESPACES) await ensureDefaultServiceAccount(server, ns);
  return { server, backend, clock, rand };
}

/**
 * Creates the `default` ServiceAccount of `namespace` — what the serviceaccounts controller does on a
 * real cluster, for test servers that run no controllers — unless it exists, the server serves no
 * ServiceAccounts or the namespace is missing or terminating.
 */
export async function ensureDefaultServiceAccount(server: ApiServer, namespace: string): Promise<void> {
  if (!server.resources().some((s) => s.info.group === '' && s.info.resource === 'serviceaccounts')) return;
  try {
    await server.handle({ verb: 'create', group: '', version: 'v1', resource: 'serviceaccounts', namespace, body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
  } catch (err) {
    const code = (err as { code?: number }).code;
    if (code !== 409 && code !== 404 && code !== 403) throw err;
  }
}

/** A request without the fields a test leaves at their defaults. */
export type Req = Partial<RestRequest> & Pick<RestRequest, 'verb'>;

/** Sends `req` for `widgets.example.com/v1` in namespace `default` (unless `req` names another). */
export const widgets = (t: TestServer, req: Req): Promise<HandleResult> => t.server.handle({ group: 'example.com', version: 'v1', resource: 'widgets', namespace: 'default', ...req });

/** Sends `req` for core/v1 pods in namespace `default` (unless `req` names another). */
export const pods = (t: TestServer, req: Req): Promise<HandleResult> => t.server.handle({ group: '', version: 'v1', resource: 'pods', namespace: 'default', ...req });

/** The body of a result, as an object. */
export const obj = (r: HandleResult): KubeObject => r.body as KubeObject;

/**
 * Awaits `p` and asserts that it rejects with a {@link StatusError} of HTTP `code` whose message equals
 * `message` (a string) or matches it (a RegExp); returns the error. Fails when `p` resolves.
 */
export async function rejectsWithStatus(p: Promise<unknown>, code: number, message?: string | RegExp): Promise<StatusError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof StatusError, `expected StatusError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    if (typeof message === 'string') assert.equal(err.message, message);
    else if (message) assert.match(err.message, message);
    return err;
  }
  assert.fail('expected a rejection');
}
