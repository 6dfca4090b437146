/**
 * An in-memory {@link Transport} for controller unit tests, in the manner of client-go's
 * `testing.ObjectTracker` + `Fake` (k8s.io/client-go/testing/fixture.go, fake.go): it stores objects,
 * records every request in {@link FakeTransport.actions}, and lets tests inject faults with
 * {@link FakeTransport.prependReactor}.
 *
 * Server behaviour it imitates (enough for controllers, not a registry — no defaulting or validation):
 * - create: `generateName` + 5 random characters, `uid`, `creationTimestamp` (Clock), `generation: 1`,
 *   `resourceVersion` from one global counter; AlreadyExists.
 * - update: compare-and-swap on a set `metadata.resourceVersion` (Conflict); `generation` + 1 when the
 *   spec (for deployments also the annotations) changes; for resources with a status subresource the
 *   main resource keeps the stored status and `status` updates change only the status; an update that
 *   changes nothing writes nothing (no new resourceVersion, no event), as upstream's GuaranteedUpdate.
 * - patch: json-patch, merge-patch and strategic-merge-patch (machinery/patch), on the object, its
 *   `status` or its `scale`; a `metadata.resourceVersion` in the patch is a precondition.
 *   Server-side apply is not supported (400).
 * - delete: objects with finalizers get `deletionTimestamp` and stay until an update removes the last
 *   finalizer; others (pods too: no graceful deletion here) go at once. DeleteOptions preconditions
 *   (uid, resourceVersion) are checked. Pods return the pod, others a Success Status.
 * - subresources: `scale` (get/update/patch) for deployments, replicasets, statefulsets and
 *   replicationcontrollers; `pods/binding` (sets spec.nodeName and PodScheduled=True, Conflict if bound);
 *   `pods/eviction` (deletes the pod; no disruption budgets).
 * - list: namespace, labelSelector, fieldSelector (any dotted path, e.g. `spec.nodeName`), sorted by
 *   namespace/name, `limit`/`continue` pages (of the current state; the token keeps the list's
 *   resourceVersion).
 * - watch: resourceVersion `''`/`'0'` starts with ADDED for the current state; `N` replays every change
 *   after N from the history, or sends ERROR 410 Expired when N is older than {@link FakeTransport.compact}
 *   allows; label/field selectors turn changes into and out of the selection into ADDED/DELETED;
 *   `timeoutSeconds` ends the watch on the Clock; {@link FakeTransport.sendBookmarks} sends bookmarks. Events and server-side closes are delivered in order
 *   on microtasks (never inside the write that caused them).
 *
 * Every object it stores and returns is a frozen copy; request bodies are never mutated.
 */
import type { KubeObject, ObjectMeta } from '../../api/index.js';
import { rootTypeName } from '../../api/schema/index.js';
import {
  StatusError,
  newAlreadyExists,
  newBadRequest,
  newConflict,
  newInvalid,
  newNotFound,
  newNotFoundPath,
  newResourceExpired,
  newUnsupportedMediaType,
  statusErrorFromResponse,
  field,
  type GroupResource,
  type Status,
} from '../../machinery/errors/index.js';
import { parseFieldSelector } from '../../machinery/fields/index.js';
import { parseSelector, selectorFromLabelSelector } from '../../machinery/labels/index.js';
import { deepCopy, deepFreeze, semanticDeepEqual } from '../../machinery/meta/index.js';
import { PatchError, applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from '../../machinery/patch/index.js';
import { FakeClock, formatTime, type Clock, type Timer } from '../../util/clock/index.js';
import { SeededRand, randomString, type Rand } from '../../util/random/index.js';
import { CATALOGUE as KNOWN_RESOURCES, groupVersionString, parseGroupVersion } from '../../api/catalogue/index.js';
import type { RestRequest, Transport, Verb, WatchEvent, WatchStream } from '../../api/request.js';

/** What a reactor decides: `handled: false` passes the request on; otherwise `error` is thrown or `result` returned. */
export interface ReactionResult {
  handled: boolean;
  result?: unknown;
  error?: unknown;
}

/** A fault-injection hook (client-go testing.ReactionFunc). */
export type ReactionFunc = (req: RestRequest) => ReactionResult;

/** Options of {@link FakeTransport}. */
export interface FakeTransportOptions {
  /** For creationTimestamp, deletionTimestamp and watch timeouts. Default: a FakeClock at 2025-01-01. */
  clock?: Clock;
  /** For uids and generateName suffixes. Default: SeededRand(1). */
  rand?: Rand;
  /** Objects to {@link FakeTransport.seed} at construction. */
  objects?: readonly SeedObject[];
}

/** Any API object (typed ones such as Pod included): apiVersion and kind select the resource. */
export interface SeedObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/** Resources whose main endpoint ignores `.status` (they have a status subresource). */
const STATUS_RESOURCES = new Set([
  'pods',
  'nodes',
  'namespaces',
  'persistentvolumeclaims',
  'persistentvolumes',
  'services',
  'replicationcontrollers',
  'apps/deployments',
  'apps/replicasets',
  'apps/statefulsets',
  'apps/daemonsets',
  'batch/jobs',
  'batch/cronjobs',
  'autoscaling/horizontalpodautoscalers',
  'policy/poddisruptionbudgets',
]);

/** Resources with a `scale` subresource. */
const SCALE_RESOURCES = new Set(['replicationcontrollers', 'apps/deployments', 'apps/replicasets', 'apps/statefulsets']);

/** `group/resource`, or `resource` for core: the key of one resource's objects (any version). */
function grKey(group: string, resource: string): string {
  return group ? `${group}/${resource}` : resource;
}

/** One change, kept for watches that start from an older resourceVersion. */
interface Change {
  rv: number;
  gr: string;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  obj: KubeObject;
  /** The previous state, for MODIFIED. */
  prev?: KubeObject;
}

interface Watcher {
  gr: string;
  matches: (obj: KubeObject) => boolean;
  onEvent: (ev: WatchEvent) => void;
  onClose: (err?: unknown) => void;
  /** The watch asked for bookmarks (`allowWatchBookmarks=true`). */
  bookmarks: boolean;
  /** No more events are delivered. */
  closed: boolean;
  timer?: Timer;
}

/** ObjectMeta as the server sees it: writable (kubernetes-types marks server-set fields readonly). */
type Meta = { -readonly [K in keyof ObjectMeta]: ObjectMeta[K] } & { name: string };

/** The object's metadata, created if absent (for objects the fake owns and may still change). */
function meta(obj: KubeObject): Meta {
  return (obj.metadata ??= {}) as Meta;
}

/** The value at a dotted path, e.g. `spec.nodeName`; undefined when any step is missing. */
function fieldValue(obj: unknown, path: string): unknown {
  let v: unknown = obj;
  for (const p of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[p];
  }
  return v;
}

function success(details: Status['details'], code = 200): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details, code };
}

/** In-memory API server for tests. */
export class FakeTransport implements Transport {
  /** Every request, in order (watches included). */
  readonly actions: RestRequest[] = [];
  private readonly clock: Clock;
  private readonly rand: Rand;
  private readonly reactors: { verb: Verb | '*'; resource: string; fn: ReactionFunc }[] = [];
  /** gr → `namespace/name` → object (frozen). */
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private rv = 0;
  private readonly history: Change[] = [];
  /** Watches from a resourceVersion below this get 410 Expired. */
  private compactedRV = 0;
  private readonly watchers = new Set<Watcher>();

  constructor(opts: FakeTransportOptions = {}) {
    this.clock = opts.clock ?? new FakeClock();
    this.rand = opts.rand ?? new SeededRand(1);
    if (opts.objects) this.seed(opts.objects);
  }

  /**
   * Stores objects as they are (their apiVersion and kind pick the resource; unknown kinds are
   * pluralized as upstream's UnsafeGuessKindToResource), filling in uid and creationTimestamp when
   * missing and assigning resourceVersions. Watchers see them as ADDED (or MODIFIED when replacing).
   */
  seed(objs: readonly SeedObject[]): void {
    for (const o of objs as readonly KubeObject[]) {
      const { group } = parseGroupVersion(o.apiVersion ?? 'v1');
      const kind = o.kind ?? '';
      const desc = KNOWN_RESOURCES.find((d) => d.group === group && d.kind === kind);
      const gr = grKey(group, desc?.resource ?? guessResource(kind));
      const obj = deepCopy(o);
      const m = meta(obj);
      m.uid ??= this.rand.uuid();
      m.creationTimestamp ??= formatTime(this.clock.now());
      const prev = this.store(gr).get(objKey(m.namespace, m.name ?? ''));
      this.write(gr, obj, prev ? 'MODIFIED' : 'ADDED', prev);
    }
  }

  /**
   * Puts `fn` first in the reaction chain for `verb` on `resource` (`'*'` for any; `'pods/status'`
   * matches only that subresource, `'pods'` any request on pods).
   */
  prependReactor(verb: Verb | '*', resource: string, fn: ReactionFunc): void {
    this.reactors.unshift({ verb, resource, fn });
  }

  /** Empties {@link actions}. */
  clearActions(): void {
    this.actions.length = 0;
  }

  /** The current (latest) resourceVersion. */
  resourceVersion(): string {
    return String(this.rv);
  }

  /** Forgets the change history: watches from any resourceVersion before now get 410 Expired. */
  compact(): void {
    this.compactedRV = this.rv;
    this.history.length = 0;
  }

  /** Ends every running watch, normally or with `err` (simulates server timeouts and dropped connections). */
  closeWatches(err?: unknown): void {
    for (const w of [...this.watchers]) this.serverClose(w, err);
  }

  /**
   * Sends a BOOKMARK at the current resourceVersion to every watch that allows bookmarks (upstream's
   * watch cache sends them about once a minute): `{kind, apiVersion, metadata: {resourceVersion}}`.
   */
  sendBookmarks(): void {
    for (const w of this.watchers) {
      if (!w.bookmarks) continue;
      const desc = KNOWN_RESOURCES.find((d) => grKey(d.group, d.resource) === w.gr);
      const apiVersion = desc ? groupVersionString(desc) : '';
      this.deliver(w, { type: 'BOOKMARK', object: deepFreeze({ kind: desc?.kind, apiVersion, metadata: { resourceVersion: String(this.rv) } }) });
    }
  }

  /** Number of running watches. */
  activeWatches(): number {
    return this.watchers.size;
  }

  request(req: RestRequest): Promise<unknown> {
    this.actions.push(req);
    // The work happens now, synchronously; a throw rejects the promise.
    return new Promise((resolve) => {
      const reaction = this.react(req);
      if (!reaction) resolve(this.handle(req));
      else if (reaction.error !== undefined) throw reaction.error as Error;
      else resolve(reaction.result);
    });
  }

  watch(req: RestRequest, onEvent: (ev: WatchEvent) => void, onClose: (err?: unknown) => void): WatchStream {
    this.actions.push(req);
    const w: Watcher = {
      gr: grKey(req.group, req.resource),
      matches: () => true,
      onEvent,
      onClose,
      bookmarks: req.query?.allowWatchBookmarks === 'true',
      closed: false,
    };
    const stream: WatchStream = {
      stop: () => {
        if (w.closed) return;
        this.detach(w);
        onClose();
      },
    };
    let err: unknown;
    const reaction = this.react(req);
    if (reaction) err = reaction.error ?? new Error('watch handled by a reactor without an error');
    else {
      try {
        w.matches = this.matcher(req);
      } catch (e) {
        err = e;
      }
    }
    if (err !== undefined) {
      this.serverClose(w, err);
      return stream;
    }

    const q = req.query ?? {};
    const from = q.resourceVersion ?? '';
    if (from === '' || from === '0') {
      for (const obj of this.sorted(w.gr, req.namespace)) if (w.matches(obj)) this.deliver(w, { type: 'ADDED', object: obj });
    } else {
      const n = Number(from);
      if (!Number.isInteger(n)) {
        this.serverClose(w, newBadRequest(`invalid resource version: ${from}`));
        return stream;
      }
      if (n < this.compactedRV) {
        this.deliver(w, { type: 'ERROR', object: newResourceExpired(`too old resource version: ${from} (${this.compactedRV})`).status });
        this.serverClose(w);
        return stream;
      }
      for (const c of this.history) if (c.rv > n && c.gr === w.gr) this.send(w, c);
    }
    this.watchers.add(w);
    if (q.timeoutSeconds) w.timer = this.clock.setTimer(Number(q.timeoutSeconds) * 1000, () => this.serverClose(w));
    return stream;
  }

  // ---------------------------------------------------------------------------------------------
  // Dispatch.

  private react(req: RestRequest): ReactionResult | undefined {
    const withSub = req.subresource ? `${req.resource}/${req.subresource}` : req.resource;
    for (const r of this.reactors) {
      if (r.verb !== '*' && r.verb !== req.verb) continue;
      if (r.resource !== '*' && r.resource !== req.resource && r.resource !== withSub) continue;
      const result = r.fn(req);
      if (result.handled) return result;
    }
    return undefined;
  }

  private handle(req: RestRequest): unknown {
    const gr = grKey(req.group, req.resource);
    const ns = req.namespace ?? '';
    const name = req.name ?? '';
    const sub = req.subresource ?? '';
    const dryRun = req.query?.dryRun === 'All';
    switch (req.verb) {
      case 'get': {
        const obj = this.mustGet(req);
        return sub === 'scale' ? this.toScale(req, obj) : obj;
      }
      case 'list':
        return this.list(req);
      case 'create':
        if (sub) return this.createSubresource(req);
        return this.create(req, dryRun);
      case 'update': {
        const cur = this.mustGet(req);
        if (sub === 'scale') return this.updateScale(req, cur, req.body as KubeObject, dryRun);
        return this.update(req, cur, req.body as KubeObject, dryRun);
      }
      case 'patch':
        return this.patch(req, dryRun);
      case 'delete':
        return this.delete(req, this.mustGet(req), (req.body ?? {}) as Record<string, unknown>);
      case 'deletecollection': {
        const query = { ...req.query };
        delete query.limit;
        delete query.continue;
        const items = (this.list({ ...req, query }) as { items: KubeObject[] }).items;
        for (const obj of items) this.delete({ ...req, namespace: meta(obj).namespace, name: meta(obj).name }, obj, {});
        return success(undefined);
      }
      case 'watch':
        throw newBadRequest('use watch() for watches');
    }
    throw newBadRequest(`unknown verb in ${gr} ${ns}/${name}`);
  }

  // ---------------------------------------------------------------------------------------------
  // Verbs.

  private list(req: RestRequest): unknown {
    const gr = grKey(req.group, req.resource);
    const q = req.query ?? {};
    let matches: (obj: KubeObject) => boolean;
    try {
      matches = this.matcher(req);
    } catch (err) {
      throw err instanceof StatusError ? err : newBadRequest((err as Error).message);
    }
    let listRV = this.rv;
    let after: string | undefined;
    if (q.continue) {
      try {
        const token = JSON.parse(Buffer.from(q.continue, 'base64').toString('utf8')) as { rv: number; after: string };
        listRV = token.rv;
        after = token.after;
      } catch {
        throw newBadRequest('continue key is not valid: illegal base64 data');
      }
      if (listRV < this.compactedRV) throw newResourceExpired('The provided continue parameter is too old to display a consistent list result.');
    }
    const limit = q.limit ? Number(q.limit) : 0;
    const items: KubeObject[] = [];
    let next: string | undefined;
    for (const [key, obj] of this.sortedEntries(gr, req.namespace)) {
      if (after !== undefined && key <= after) continue;
      if (!matches(obj)) continue;
      if (limit > 0 && items.length === limit) {
        next = Buffer.from(JSON.stringify({ rv: listRV, after: objKey(meta(items[items.length - 1] as KubeObject).namespace, meta(items[items.length - 1] as KubeObject).name) })).toString('base64');
        break;
      }
      items.push(obj);
    }
    const desc = KNOWN_RESOURCES.find((d) => d.group === req.group && d.resource === req.resource);
    const listMeta: { resourceVersion: string; continue?: string } = { resourceVersion: String(listRV) };
    if (next) listMeta.continue = next;
    return {
      apiVersion: groupVersionString(req),
      kind: `${desc?.kind ?? items[0]?.kind ?? ''}List`,
      metadata: listMeta,
      items,
    };
  }

  private create(req: RestRequest, dryRun: boolean): KubeObject {
    const gr = grKey(req.group, req.resource);
    const obj = deepCopy(req.body as KubeObject);
    const m = meta(obj);
    const desc = KNOWN_RESOURCES.find((d) => d.group === req.group && d.resource === req.resource);
    obj.apiVersion ??= groupVersionString(req);
    if (desc) obj.kind ??= desc.kind;
    if (req.namespace) m.namespace = req.namespace;
    if (!m.name && m.generateName) m.name = m.generateName + randomString(this.rand, 5);
    if (!m.name) {
      throw newInvalid({ group: req.group, kind: obj.kind ?? '' }, '', [field.required('metadata.name', 'name or generateName is required')]);
    }
    if (this.store(gr).has(objKey(m.namespace, m.name))) throw newAlreadyExists(this.gr(req), m.name);
    m.uid = this.rand.uuid();
    m.creationTimestamp = formatTime(this.clock.now());
    m.generation = 1;
    delete m.deletionTimestamp;
    if (dryRun) return deepFreeze({ ...obj, metadata: { ...m, resourceVersion: '' } });
    return this.write(gr, obj, 'ADDED');
  }

  /** PUT on the object or its status (`req.subresource`), with CAS and no-op detection. */
  private update(req: RestRequest, cur: KubeObject, body: KubeObject, dryRun: boolean): KubeObject {
    const gr = grKey(req.group, req.resource);
    const curMeta = meta(cur);
    const wantRV = body.metadata?.resourceVersion;
    if (wantRV && wantRV !== curMeta.resourceVersion) throw newConflict(this.gr(req), curMeta.name);
    let next: KubeObject;
    if (req.subresource === 'status') {
      next = { ...deepCopy(cur), status: deepCopy(body.status) };
    } else {
      next = deepCopy(body);
      const m = meta(next);
      // Identity and server-owned fields cannot change through an update.
      m.name = curMeta.name;
      m.namespace = curMeta.namespace;
      m.uid = curMeta.uid;
      m.creationTimestamp = curMeta.creationTimestamp;
      m.generation = curMeta.generation;
      m.deletionTimestamp = curMeta.deletionTimestamp;
      m.deletionGracePeriodSeconds = curMeta.deletionGracePeriodSeconds;
      next.apiVersion ??= cur.apiVersion;
      next.kind ??= cur.kind;
      if (STATUS_RESOURCES.has(gr)) next.status = cur.status;
      const annotationsCount = gr === 'apps/deployments' && !semanticDeepEqual(m.annotations, curMeta.annotations);
      if (curMeta.generation !== undefined && (annotationsCount || !semanticDeepEqual(next.spec, cur.spec))) m.generation = curMeta.generation + 1;
    }
    const nextMeta = meta(next);
    nextMeta.resourceVersion = curMeta.resourceVersion;
    stripUndefined(nextMeta);
    if (semanticDeepEqual(next, cur)) return cur;
    if (dryRun) return deepFreeze(next);
    if (nextMeta.deletionTimestamp && !nextMeta.finalizers?.length) return this.remove(gr, next);
    return this.write(gr, next, 'MODIFIED', cur);
  }

  private patch(req: RestRequest, dryRun: boolean): unknown {
    const cur = this.mustGet(req);
    const target = req.subresource === 'scale' ? this.toScale(req, cur) : cur;
    let patched: KubeObject;
    try {
      patched = this.applyPatch(req, target);
    } catch (err) {
      if (err instanceof PatchError) throw statusErrorFromResponse(err.code, err.message);
      throw err;
    }
    // A resourceVersion in the patch is a precondition on the stored one.
    if (meta(patched).resourceVersion !== meta(target).resourceVersion) throw newConflict(this.gr(req), meta(cur).name);
    if (req.subresource === 'scale') return this.updateScale(req, cur, patched, dryRun);
    return this.update(req, cur, patched, dryRun);
  }

  /** The patched copy of `target` (the patch functions never mutate their input). */
  private applyPatch(req: RestRequest, target: KubeObject): KubeObject {
    switch (req.patchType) {
      case 'application/json-patch+json':
        return applyJsonPatch(target, req.body) as KubeObject;
      case 'application/merge-patch+json':
        return applyMergePatch(target, req.body) as KubeObject;
      case 'application/strategic-merge-patch+json': {
        const { group, version } = parseGroupVersion(target.apiVersion ?? groupVersionString(req));
        const rootType = rootTypeName(group, version, target.kind ?? '');
        // Upstream answers 415 for kinds without a Go struct (custom resources).
        if (rootType === undefined) throw newUnsupportedMediaType(req.patchType, ['application/json-patch+json', 'application/merge-patch+json']);
        return applyStrategicMergePatch(target, req.body, rootType) as KubeObject;
      }
      case 'application/apply-patch+yaml':
      case undefined:
        throw newBadRequest(`the fake transport does not support patch type ${String(req.patchType)}`);
    }
  }

  private delete(req: RestRequest, cur: KubeObject, opts: Record<string, unknown>): unknown {
    const gr = grKey(req.group, req.resource);
    const m = meta(cur);
    const pre = (opts.preconditions ?? {}) as { uid?: string; resourceVersion?: string };
    if (pre.uid && pre.uid !== m.uid) {
      throw newConflict(this.gr(req), m.name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${m.uid ?? ''}`);
    }
    if (pre.resourceVersion && pre.resourceVersion !== m.resourceVersion) {
      throw newConflict(
        this.gr(req),
        m.name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${m.resourceVersion ?? ''}`,
      );
    }
    if (Array.isArray(opts.dryRun) && opts.dryRun.includes('All')) return cur;
    if (m.finalizers?.length) {
      if (m.deletionTimestamp) return cur;
      const next = deepCopy(cur);
      meta(next).deletionTimestamp = formatTime(this.clock.now());
      meta(next).deletionGracePeriodSeconds = 0;
      return this.write(gr, next, 'MODIFIED', cur);
    }
    const gone = this.remove(gr, cur);
    if (gr === 'pods') return gone;
    return success({ name: m.name, group: req.group, kind: req.resource, uid: m.uid });
  }

  private createSubresource(req: RestRequest): unknown {
    const gr = grKey(req.group, req.resource);
    const cur = this.mustGet(req);
    if (gr === 'pods' && req.subresource === 'binding') {
      const nodeName = (req.body as { target?: { name?: string } } | undefined)?.target?.name ?? '';
      const spec = (cur.spec ?? {}) as { nodeName?: string };
      if (spec.nodeName) throw newConflict(this.gr(req), meta(cur).name, `pod ${meta(cur).name} is already assigned to node ${JSON.stringify(spec.nodeName)}`);
      const next = deepCopy(cur);
      next.spec = { ...(next.spec as object | undefined), nodeName };
      const status = (next.status ??= {}) as { conditions?: { type: string; status: string; lastTransitionTime?: string }[] };
      const conditions = (status.conditions ??= []).filter((c) => c.type !== 'PodScheduled');
      conditions.push({ type: 'PodScheduled', status: 'True', lastTransitionTime: formatTime(this.clock.now()) });
      status.conditions = conditions;
      this.write(gr, next, 'MODIFIED', cur);
      return success(undefined, 201);
    }
    if (gr === 'pods' && req.subresource === 'eviction') {
      this.delete(req, cur, {});
      return success(undefined, 201);
    }
    throw newNotFoundPath();
  }

  private toScale(req: RestRequest, obj: KubeObject): KubeObject {
    if (!SCALE_RESOURCES.has(grKey(req.group, req.resource))) throw newNotFoundPath();
    const m = meta(obj);
    const spec = (obj.spec ?? {}) as { replicas?: number; selector?: Parameters<typeof selectorFromLabelSelector>[0] };
    const status = (obj.status ?? {}) as { replicas?: number };
    return deepFreeze({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
      // Unset replicas are what the API server would have defaulted them to.
      spec: { replicas: spec.replicas ?? 1 },
      status: { replicas: status.replicas ?? 0, selector: selectorFromLabelSelector(spec.selector).toString() },
    });
  }

  private updateScale(req: RestRequest, cur: KubeObject, scale: KubeObject, dryRun: boolean): KubeObject {
    if (!SCALE_RESOURCES.has(grKey(req.group, req.resource))) throw newNotFoundPath();
    const wantRV = scale.metadata?.resourceVersion;
    if (wantRV && wantRV !== meta(cur).resourceVersion) throw newConflict(this.gr(req), meta(cur).name);
    const replicas = (scale.spec as { replicas?: number } | undefined)?.replicas ?? 0;
    const next = deepCopy(cur);
    next.spec = { ...(next.spec as object | undefined), replicas };
    const updated = this.update({ ...req, subresource: undefined }, cur, next, dryRun);
    return this.toScale(req, updated);
  }

  // ---------------------------------------------------------------------------------------------
  // Storage and watch delivery.

  private gr(req: RestRequest): GroupResource {
    return { group: req.group, resource: req.resource };
  }

  private store(gr: string): Map<string, KubeObject> {
    let m = this.objects.get(gr);
    if (!m) this.objects.set(gr, (m = new Map<string, KubeObject>()));
    return m;
  }

  private mustGet(req: RestRequest): KubeObject {
    const obj = this.store(grKey(req.group, req.resource)).get(objKey(req.namespace, req.name ?? ''));
    if (!obj) throw newNotFound(this.gr(req), req.name ?? '');
    return obj;
  }

  /** Stores `obj` (mutable, owned) at a new resourceVersion, records and broadcasts the change. */
  private write(gr: string, obj: KubeObject, type: 'ADDED' | 'MODIFIED', prev?: KubeObject): KubeObject {
    const m = meta(obj);
    m.resourceVersion = String(++this.rv);
    deepFreeze(obj);
    this.store(gr).set(objKey(m.namespace, m.name), obj);
    this.broadcast({ rv: this.rv, gr, type, obj, prev });
    return obj;
  }

  /** Removes the object; the DELETED event carries its last state at a new resourceVersion. */
  private remove(gr: string, cur: KubeObject): KubeObject {
    const gone = deepCopy(cur);
    const m = meta(gone);
    m.resourceVersion = String(++this.rv);
    deepFreeze(gone);
    this.store(gr).delete(objKey(m.namespace, m.name));
    this.broadcast({ rv: this.rv, gr, type: 'DELETED', obj: gone });
    return gone;
  }

  private broadcast(c: Change): void {
    this.history.push(c);
    for (const w of this.watchers) if (w.gr === c.gr) this.send(w, c);
  }

  /** Sends a change to a watcher, translated by its selection (upstream's cacheWatcher.convertToWatchEvent). */
  private send(w: Watcher, c: Change): void {
    const now = w.matches(c.obj);
    if (c.type !== 'MODIFIED' || !c.prev) {
      if (now) this.deliver(w, { type: c.type, object: c.obj });
      return;
    }
    const before = w.matches(c.prev);
    if (now) this.deliver(w, { type: before ? 'MODIFIED' : 'ADDED', object: c.obj });
    else if (before) this.deliver(w, { type: 'DELETED', object: deepFreeze({ ...c.prev, metadata: { ...c.prev.metadata, resourceVersion: String(c.rv) } }) });
  }

  private deliver(w: Watcher, ev: WatchEvent): void {
    queueMicrotask(() => {
      if (!w.closed) w.onEvent(ev);
    });
  }

  /** Ends a watch from the server side: after the events already queued, `onClose(err)`. */
  private serverClose(w: Watcher, err?: unknown): void {
    this.watchers.delete(w);
    w.timer?.stop();
    queueMicrotask(() => {
      if (w.closed) return;
      w.closed = true;
      w.onClose(err);
    });
  }

  private detach(w: Watcher): void {
    w.closed = true;
    this.watchers.delete(w);
    w.timer?.stop();
  }

  /** Namespace, label and field selection of a list or watch. Throws BadRequest for a bad selector. */
  private matcher(req: RestRequest): (obj: KubeObject) => boolean {
    const q = req.query ?? {};
    let labels: ReturnType<typeof parseSelector> | undefined;
    let fields: ReturnType<typeof parseFieldSelector> | undefined;
    try {
      if (q.labelSelector) labels = parseSelector(q.labelSelector);
      if (q.fieldSelector) fields = parseFieldSelector(q.fieldSelector);
    } catch (err) {
      throw newBadRequest((err as Error).message);
    }
    const ns = req.namespace;
    return (obj) => {
      const m = meta(obj);
      if (ns && m.namespace !== ns) return false;
      if (labels && !labels.matches(m.labels)) return false;
      if (fields) {
        const get = (path: string): string | undefined => {
          const v = fieldValue(obj, path);
          if (v === undefined || v === null) return undefined;
          return typeof v === 'string' ? v : JSON.stringify(v);
        };
        if (!fields.matches(get)) return false;
      }
      return true;
    };
  }

  private sortedEntries(gr: string, namespace: string | undefined): [string, KubeObject][] {
    const entries = [...this.store(gr)].filter(([, o]) => !namespace || meta(o).namespace === namespace);
    return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  private sorted(gr: string, namespace: string | undefined): KubeObject[] {
    return this.sortedEntries(gr, namespace).map(([, o]) => o);
  }
}

/** The store key: `namespace/name`, with an empty namespace for cluster-scoped objects. */
function objKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

/** Drops keys whose value is undefined (left by copying optional server-owned fields). */
function stripUndefined(m: object): void {
  const r = m as Record<string, unknown>;
  for (const k of Object.keys(r)) if (r[k] === undefined) delete r[k];
}

/** Upstream's meta.UnsafeGuessKindToResource: `Ingress` → `ingresses`, `NetworkPolicy` → `networkpolicies`. */
function guessResource(kind: string): string {
  const k = kind.toLowerCase();
  if (k.endsWith('s')) return `${k}es`;
  if (k.endsWith('y')) return `${k.slice(0, -1)}ies`;
  return `${k}s`;
}
