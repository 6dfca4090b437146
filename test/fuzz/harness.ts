/**
 * Runs fuzz cases against a real API server over HTTP and checks the invariants of issue 9:
 *
 * 1. no response is a 5xx — but upstream's 504 for a resourceVersion the server has not reached yet
 *    (cause `ResourceVersionTooLarge`), which is protocol: client-go's reflector relists on it;
 * 2. every error is a `metav1.Status` whose `code` is the response's 4xx status;
 * 3. a rejected write stores nothing (API-only mode: the storage revision does not move);
 * 4. `/readyz` keeps answering `ok`.
 *
 * Two modes: `api` (the API server alone on memory storage, where invariant 3 is exact) and `cluster`
 * (the whole control plane on a FakeClock, stepped as cases run, so that accepted objects reach the
 * controllers, scheduler and simulated kubelets, which must survive them).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { stringify as toYaml } from 'yaml';
import { pino } from 'pino';
import { ApiServer, DEFAULT_NAMESPACES } from '../../src/apiserver/index.js';
import { startHttpServer, type RunningHttpServer } from '../../src/apiserver/http/index.js';
import { servedStrategies } from '../../src/apiserver/registry/resources/index.js';
import type { ResourceStrategy } from '../../src/apiserver/registry/strategy.js';
import { rootTypeName } from '../../src/api/schema/index.js';
import { startControlPlane, type ControlPlane } from '../../src/cli/cluster.js';
import { MemoryBackend } from '../../src/storage/memory/index.js';
import { FakeClock, realClock } from '../../src/util/clock/index.js';
import { ensureDefaultServiceAccount } from '../../src/apiserver/testing/fixtures.js';
import { SeededRand } from '../../src/util/random/index.js';
import { deleteAt, fieldPaths, jsonPointer, mergePatchFor, setAt, type FieldPath } from './model.js';
import type { FuzzCase, Mutation } from './arbitraries.js';
import { SEED_NAMES, SEED_NAMESPACES, SEEDS } from './seeds.js';
import { newClientset } from '../../src/client/index.js';

const silent = pino({ level: 'silent' });

/** Real time a request may take before the case fails as a hang (nothing in a case waits on the FakeClock). */
const ANSWER_TIMEOUT_MS = 20_000;

/** A response as the fuzzer sees it: status and, for errors, the body. */
interface Response {
  status: number;
  body: string;
}

/** Counters of one run. */
export interface FuzzStats {
  cases: number;
  /** Requests sent (a case may first create the object it then updates, patches or deletes). */
  requests: number;
  /** Fuzzed requests answered 4xx. */
  rejected: number;
  accepted: number;
  byStatus: Record<number, number>;
}

/** A served resource with its seed and schema paths. */
interface Target {
  strategy: ResourceStrategy;
  key: string;
  seed: Record<string, unknown>;
  paths: FieldPath[];
  apiPrefix: string;
}

/**
 * The key of a strategy's seed in {@link SEEDS}: `<group>/<resource>`, or `<group>/<version>/<resource>`
 * for a version served as a view of another (its objects have that version's shape).
 */
export function resourceKey(s: ResourceStrategy): string {
  return s.view ? `${s.info.group}/${s.info.version}/${s.info.resource}` : `${s.info.group}/${s.info.resource}`;
}

/** A running fuzz target: a server, its revision, and the case runner. */
export class FuzzServer {
  readonly stats: FuzzStats = { cases: 0, requests: 0, rejected: 0, accepted: 0, byStatus: {} };
  private readonly targets: Target[];
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  private seq = 0;

  private constructor(
    readonly mode: 'api' | 'cluster',
    private readonly api: ApiServer,
    private readonly http: RunningHttpServer,
    readonly clock: FakeClock,
    private readonly plane: ControlPlane | undefined,
    private readonly backend: MemoryBackend,
  ) {
    this.targets = api.resources().map((strategy) => {
      const { group, version, kind } = strategy.info;
      return {
        strategy,
        key: resourceKey(strategy),
        seed: SEEDS[resourceKey(strategy)] ?? {},
        paths: fieldPaths(rootTypeName(group, version, kind) ?? ''),
        apiPrefix: group ? `/apis/${group}/${version}` : `/api/${version}`,
      };
    });
  }

  /** Starts the API server alone (`api`) or the whole control plane with 3 nodes (`cluster`). */
  static async start(mode: 'api' | 'cluster', seed = 1): Promise<FuzzServer> {
    const clock = new FakeClock();
    const backend = new MemoryBackend();
    const rand = new SeededRand(seed);
    let plane: ControlPlane | undefined;
    let api: ApiServer;
    if (mode === 'cluster') {
      const starting = startControlPlane({ backend, nodes: 3, clock, rand, logger: silent });
      let done = false;
      void starting.then(() => (done = true));
      for (let i = 0; i < 100 && !done; i++) await clock.stepAsync(10);
      plane = await starting;
      api = plane.api;
    } else {
      api = await ApiServer.create({ backend, strategies: servedStrategies, clock, rand });
    }
    const server = await startHttpServer(api, { host: '127.0.0.1', port: 0, clock, logger: silent });
    const client = newClientset(api.inProcessTransport());
    for (const name of new Set(Object.values(SEED_NAMESPACES))) await client.core.namespaces().create({ metadata: { name } });
    // The API server alone has no serviceaccounts controller: give its namespaces the `default`
    // account the controller would (the ServiceAccount admission refuses pods without one).
    if (mode === 'api') for (const ns of [...DEFAULT_NAMESPACES, ...new Set(Object.values(SEED_NAMESPACES))]) await ensureDefaultServiceAccount(api, ns);
    return new FuzzServer(mode, api, server, clock, plane, backend);
  }

  /** The control plane (cluster mode). */
  get controlPlane(): ControlPlane | undefined {
    return this.plane;
  }

  /** Stops everything. */
  async stop(): Promise<void> {
    this.agent.destroy();
    await this.http.close();
    if (this.plane) await this.plane.stop();
    else await this.api.close();
    await this.backend.close();
  }

  /** Served resources without a seed (the fuzz test requires none). */
  unseeded(): string[] {
    return this.targets.filter((t) => SEEDS[t.key] === undefined).map((t) => t.key);
  }

  /**
   * Runs one case and checks invariants 1–3; throws an Error describing the case and the response
   * when one fails.
   */
  async run(c: FuzzCase): Promise<void> {
    this.stats.cases++;
    const t = this.targets[c.resource % this.targets.length] as Target;
    const seq = this.seq++;
    const name = SEED_NAMES[t.key]?.(seq) ?? `fz${seq}`;
    const ns = t.strategy.info.namespaced ? (SEED_NAMESPACES[t.key] ?? 'default') : undefined;
    const collection = `${t.apiPrefix}${ns ? `/namespaces/${ns}` : ''}/${t.strategy.info.resource}`;
    const item = `${collection}/${name}`;
    // Kinds whose objects cannot be created and then changed (reviews, bindings, component statuses)
    // get every write as it comes, without a stored base object.
    const review = t.strategy.review !== undefined || !t.strategy.info.verbs.includes('update');
    switch (c.type) {
      case 'create':
      case 'update': {
        const obj = this.mutated(t, this.seedObject(t, name, ns), c.mutations);
        const body = c.yaml ? toYaml(obj) : JSON.stringify(obj);
        const contentType = c.yaml ? 'application/yaml' : 'application/json';
        if (c.type === 'create' || review) return this.fuzzed('POST', collection + qs(c.query), contentType, body);
        const base = await this.createBase(t, collection, name, ns);
        if (!base) return;
        const updated = this.mutated(t, base, c.mutations);
        return this.fuzzed('PUT', item + qs(c.query), contentType, c.yaml ? toYaml(updated) : JSON.stringify(updated));
      }
      case 'merge':
      case 'strategic': {
        if (review || !(await this.createBase(t, collection, name, ns))) return;
        const patch: Record<string, unknown> = {};
        for (const m of c.mutations) {
          const p = t.paths[m.path % Math.max(1, t.paths.length)];
          if (p) Object.assign(patch, deepMerge(patch, mergePatchFor(p.steps, m.action === 'delete' ? null : own(m.value))));
        }
        const type = c.type === 'merge' ? 'application/merge-patch+json' : 'application/strategic-merge-patch+json';
        return this.fuzzed('PATCH', item + qs(c.query), type, JSON.stringify(patch));
      }
      case 'apply': {
        // A server-side apply of a mutated seed: onto a stored object (merged with its owners), or creating it.
        if (review || (c.existing && !(await this.createBase(t, collection, name, ns)))) return;
        const config = this.mutated(t, this.seedObject(t, name, ns), c.mutations);
        const query = { fieldManager: 'fuzz', ...c.query };
        return this.fuzzed('PATCH', item + qs(query), 'application/apply-patch+yaml', c.yaml ? toYaml(config) : JSON.stringify(config));
      }
      case 'json': {
        if (review || !(await this.createBase(t, collection, name, ns))) return;
        const pointer = (i: number): string => jsonPointer(t.paths[i % Math.max(1, t.paths.length)]?.steps ?? []);
        const ops = c.ops.map((o) => ({ op: o.op, path: o.rawPath ?? pointer(o.path), from: pointer(o.from), value: o.value }));
        return this.fuzzed('PATCH', item + qs(c.query), 'application/json-patch+json', JSON.stringify(ops));
      }
      case 'delete': {
        if (!review && !(await this.createBase(t, collection, name, ns))) return;
        return this.fuzzed('DELETE', item + qs(c.query), 'application/json', c.body === undefined ? '' : JSON.stringify(c.body));
      }
      case 'read':
        return this.fuzzed('GET', (c.item ? item : collection) + qs(c.query), '', '');
      case 'raw':
        return this.fuzzed(c.method, collection + c.suffix, c.contentType, c.body);
    }
  }

  /** `GET /readyz` → 200 `ok` (invariant 4). */
  async checkReady(): Promise<void> {
    const res = await this.request('GET', '/readyz', '', '', true);
    if (res?.status !== 200 || res.body !== 'ok') throw new Error(`/readyz answered ${res?.status ?? 'nothing'}: ${res?.body ?? ''}`);
  }

  /**
   * The seed with the case's name. Its `fz` labels and selectors become the name (its first segment) too, so that each
   * Service selects its own pods: with one shared label, every pod change would resync every
   * Service's endpoints (O(services × pods)), which is upstream's algorithm, but not what is tested.
   */
  private seedObject(t: Target, name: string, ns: string | undefined): Record<string, unknown> {
    const token = /fz\d+/.exec(name)?.[0] ?? name;
    const obj = JSON.parse(JSON.stringify(t.seed).replaceAll('"fz"', JSON.stringify(token))) as Record<string, unknown>;
    // A review's metadata must be empty (SubjectAccessReview validation): it gets no name.
    const named = t.strategy.review ? {} : { name };
    obj.metadata = { ...(obj.metadata as object | undefined), ...named, ...(ns ? { namespace: ns } : {}) };
    return obj;
  }

  /** A copy of `obj` with the mutations applied at the kind's schema paths (or an unknown field). */
  private mutated(t: Target, obj: Record<string, unknown>, mutations: Mutation[]): Record<string, unknown> {
    const out = structuredClone(obj);
    for (const m of mutations) {
      const p = t.paths[m.path % Math.max(1, t.paths.length)];
      if (!p) continue;
      if (m.action === 'delete') deleteAt(out, p.steps);
      else if (m.action === 'unknown') setAt(out, [...p.steps.slice(0, -1), { field: m.unknownName }], own(m.value));
      else setAt(out, p.steps, own(m.value));
    }
    return out;
  }

  /** Creates the valid seed object a case then updates, patches or deletes; undefined if refused. */
  private async createBase(t: Target, collection: string, name: string, ns: string | undefined): Promise<Record<string, unknown> | undefined> {
    const res = await this.request('POST', collection, 'application/json', JSON.stringify(this.seedObject(t, name, ns)), true);
    if (res === undefined) return undefined;
    if (res.status !== 201) throw new Error(`the seed of ${t.key} was refused (${res.status}): ${res.body}`);
    return JSON.parse(res.body) as Record<string, unknown>;
  }

  /** Sends a fuzzed request and checks invariants 1–3. */
  private async fuzzed(method: string, path: string, contentType: string, body: string): Promise<void> {
    // The server's own writes (a CRD's status after its create) must not be taken for the request's.
    if (this.mode === 'api') await this.api.settled();
    const revision = this.api.currentRevision();
    const res = await this.request(method, path, contentType, body);
    if (res === undefined) return;
    const where = `${method} ${path} (${contentType}) ${body.length > 600 ? `${body.slice(0, 600)}…` : body}`;
    this.stats.byStatus[res.status] = (this.stats.byStatus[res.status] ?? 0) + 1;
    if (res.status >= 500 && !isTooLargeResourceVersion(res)) throw new Error(`5xx: ${res.status} for ${where}\n→ ${res.body}`);
    if (res.status < 400) {
      this.stats.accepted++;
      return;
    }
    this.stats.rejected++;
    if (method !== 'HEAD') {
      let status: { kind?: unknown; code?: unknown; status?: unknown };
      try {
        status = JSON.parse(res.body) as typeof status;
      } catch {
        throw new Error(`a ${res.status} whose body is not JSON for ${where}\n→ ${res.body}`);
      }
      if (status.kind !== 'Status' || status.code !== res.status || status.status !== 'Failure') {
        throw new Error(`a ${res.status} whose body is not its Status for ${where}\n→ ${res.body}`);
      }
    }
    if (this.mode === 'api' && method !== 'GET' && method !== 'HEAD' && this.api.currentRevision() !== revision) {
      throw new Error(`a rejected ${method} (${res.status}) wrote to storage: ${where}\n→ ${res.body}`);
    }
  }

  /**
   * One HTTP request. Success bodies are not read (a watch never ends); error bodies are. Undefined
   * when Node's client itself refuses the request (e.g. a path with characters HTTP cannot carry).
   */
  private request(method: string, path: string, contentType: string, body: string, readAlways = false): Promise<Response | undefined> {
    this.stats.requests++;
    const { port } = this.http.server.address() as AddressInfo;
    return new Promise((resolve, reject) => {
      let req: http.ClientRequest;
      try {
        // Content-Length always: Node's client frames no body of a DELETE without it.
        const headers: Record<string, string | number> = { 'content-length': Buffer.byteLength(body) };
        if (contentType) headers['content-type'] = contentType;
        req = http.request({ host: '127.0.0.1', port, method, path, agent: this.agent, headers });
      } catch {
        resolve(undefined);
        return;
      }
      // A request the server never answers is a liveness bug: fail the case instead of hanging.
      const watchdog = realClock.setTimer(ANSWER_TIMEOUT_MS, () => {
        req.destroy();
        reject(new Error(`no answer within ${ANSWER_TIMEOUT_MS / 1000} s: ${method} ${path} (${contentType}) ${body.slice(0, 300)}`));
      });
      req.on('close', () => watchdog.stop());
      req.on('error', (err) => reject(new Error(`${method} ${path}: ${err.message}`)));
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        if (status < 400 && !readAlways) {
          res.destroy();
          resolve({ status, body: '' });
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (err) => reject(err));
      });
      req.end(body);
    });
  }
}

/**
 * A private copy of a generated value. fast-check's `constantFrom` hands out the same instance every
 * time: inserted by reference, a later mutation could change it for every case, or make a cycle.
 */
function own(value: unknown): unknown {
  return value === null || typeof value !== 'object' ? value : structuredClone(value);
}

/** Upstream's 504 `Too large resource version` (storage.NewTooLargeResourceVersionError). */
function isTooLargeResourceVersion(res: Response): boolean {
  if (res.status !== 504) return false;
  try {
    const status = JSON.parse(res.body) as { details?: { causes?: { reason?: string }[] } };
    return (status.details?.causes ?? []).some((c) => c.reason === 'ResourceVersionTooLarge');
  } catch {
    return false;
  }
}

/** `?a=b&…` from query parameters ('' when none). */
function qs(query: Record<string, string>): string {
  const s = new URLSearchParams(query).toString();
  return s ? `?${s}` : '';
}

/** Merges two JSON objects (the later wins on scalars). */
function deepMerge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const cur = out[k];
    out[k] = cur && typeof cur === 'object' && !Array.isArray(cur) && v && typeof v === 'object' && !Array.isArray(v) ? deepMerge(cur as Record<string, unknown>, v as Record<string, unknown>) : v;
  }
  return out;
}
