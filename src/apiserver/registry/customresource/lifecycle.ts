/**
 * What brings a CustomResourceDefinition to life and takes it down again, run inside the API server
 * on the CRD store as the apiextensions-apiserver's own controllers run inside it
 * (k8s.io/apiextensions-apiserver v0.33.9):
 * - pkg/controller/status/naming_controller.go: `status.acceptedNames` and the `NamesAccepted`
 *   condition (`NoConflicts` "no conflicts found", or `PluralConflict`, `SingularConflict`,
 *   `ShortNamesConflict`, `KindConflict`, `ListKindConflict` with `"<name>" is already in use`), names
 *   in use being the accepted names of every CRD of the group — and here also the built-in resources
 *   of that group, which upstream leaves to the delegate chain;
 * - pkg/controller/establish/establishing_controller.go: `Established` True `InitialNamesAccepted`
 *   "the initial names have been accepted" once the names are accepted (at once: one server);
 * - pkg/apiserver/customresource_handler.go: an Established CRD's served versions are served
 *   (ApiServer.addResource) and served again when anything they are built from changes;
 * - pkg/registry/customresourcedefinition/etcd.go `Delete`: the first DELETE sets deletionTimestamp,
 *   the `customresourcecleanup.apiextensions.k8s.io` finalizer and `Terminating` True
 *   `InstanceDeletionPending`;
 * - pkg/controller/finalizer/crd_finalizer.go: then `Terminating` True `InstanceDeletionInProgress`
 *   "CustomResource deletion is in progress", every custom resource deleted (creates are refused
 *   meanwhile), `Terminating` False `InstanceDeletionCompleted` "removed all instances", the finalizer
 *   removed, and the resource no longer served.
 *
 * Every CRD is handled on its own: a failure (a conflict, a CRD whose strategy cannot be built) is
 * retried later with backoff and never stops the others.
 */
import type { CustomResourceDefinition, CustomResourceDefinitionCondition, CustomResourceDefinitionNames } from '../../../api/index.js';
import type { KubeObject } from '../../../api/index.js';
import type { WatchStream } from '../../../api/request.js';
import { isNotFound, newConflict, newNotFound } from '../../../machinery/errors/index.js';
import { formatTime, type Timer } from '../../../util/clock/index.js';
import type { StorageContext, StorageExtension } from '../extension.js';
import { clone, metaOf } from '../generic/objects.js';
import type { DeleteOptions } from '../generic/options.js';
import type { DeleteResult } from '../generic/store.js';
import { customResourceStrategies } from './strategy.js';

/** upstream `apiextensions.CustomResourceCleanupFinalizer`. */
export const CUSTOM_RESOURCE_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

/** First and longest retry delay of a CRD whose sync failed (ms). */
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 60_000;
/** How often a terminating CRD looks again for custom resources that still have finalizers (ms). */
const INSTANCES_RECHECK_MS = 1_000;

type Crd = CustomResourceDefinition & KubeObject;
type Condition = CustomResourceDefinitionCondition;

/** The storage extension of CustomResourceDefinitions: the DELETE above and the lifecycle's start. */
export function customResourceDefinitionStorage(ctx: StorageContext): StorageExtension {
  const lifecycle = new CrdLifecycle(ctx);
  return {
    delete: (_namespace, name, opts) => lifecycle.markForDeletion(name, opts),
    bootstrap: () => lifecycle.start(),
    settled: () => lifecycle.settled(),
  };
}

/** The condition of `type`, if any. */
export function findCondition(crd: CustomResourceDefinition, type: string): Condition | undefined {
  return crd.status?.conditions?.find((c) => c.type === type);
}

function isConditionTrue(crd: CustomResourceDefinition, type: string): boolean {
  return findCondition(crd, type)?.status === 'True';
}

/**
 * `SetCRDCondition`: replaces the condition of the same type, keeping its lastTransitionTime when the
 * status did not change; `now` (ms) otherwise.
 */
export function setCondition(crd: CustomResourceDefinition, cond: Omit<Condition, 'lastTransitionTime'>, now: number): void {
  const status = (crd.status ??= {});
  const conditions = (status.conditions ??= []);
  const i = conditions.findIndex((c) => c.type === cond.type);
  const old = i >= 0 ? conditions[i] : undefined;
  const next: Condition = { type: cond.type, status: cond.status, lastTransitionTime: old && old.status === cond.status ? old.lastTransitionTime : formatTime(now) };
  if (cond.reason !== undefined) next.reason = cond.reason;
  if (cond.message !== undefined) next.message = cond.message;
  if (i >= 0) conditions[i] = next;
  else conditions.push(next);
}

/** What a served CRD was served as. */
interface Served {
  group: string;
  resource: string;
  /** What the strategies were built from; a change serves the CRD again. */
  signature: string;
}

/** Names in use in one group: resources (plural, singular, short names) and kinds (kind, listKind). */
interface NamesInUse {
  resources: Set<string>;
  kinds: Set<string>;
}

/**
 * `calculateNamesAndConditions`: the accepted names and the NamesAccepted condition of `crd` given the
 * names in use in its group (including its own accepted ones, as upstream counts them).
 */
export function calculateNames(crd: CustomResourceDefinition, used: NamesInUse): { names: CustomResourceDefinitionNames; condition: Omit<Condition, 'lastTransitionTime'> } {
  const requested = crd.spec.names;
  const accepted: CustomResourceDefinitionNames = crd.status?.acceptedNames ?? { plural: '', kind: '' };
  const names: CustomResourceDefinitionNames = structuredClone(accepted);
  let conflict: { reason: string; message: string } | undefined;
  const fresh = (want: string | undefined, have: string | undefined, inUse: Set<string>): string | undefined =>
    (want ?? '') === (have ?? '') || !inUse.has(want ?? '') ? undefined : `"${want ?? ''}" is already in use`;

  let err = fresh(requested.plural, accepted.plural, used.resources);
  if (err) conflict = { reason: 'PluralConflict', message: err };
  else names.plural = requested.plural;
  err = fresh(requested.singular, accepted.singular, used.resources);
  if (err) conflict = { reason: 'SingularConflict', message: err };
  else if (requested.singular !== undefined) names.singular = requested.singular;
  if (JSON.stringify(requested.shortNames ?? null) !== JSON.stringify(accepted.shortNames ?? null)) {
    const have = new Set(accepted.shortNames ?? []);
    const errs = (requested.shortNames ?? []).filter((s) => !have.has(s)).map((s) => fresh(s, '', used.resources)).filter((e): e is string => e !== undefined);
    // utilerrors.NewAggregate: one error as is, several as `[a, b]`.
    if (errs.length > 0) conflict = { reason: 'ShortNamesConflict', message: errs.length === 1 ? (errs[0] as string) : `[${errs.join(', ')}]` };
    else if (requested.shortNames !== undefined) names.shortNames = [...requested.shortNames];
    else delete names.shortNames;
  }
  err = fresh(requested.kind, accepted.kind, used.kinds);
  if (err) conflict = { reason: 'KindConflict', message: err };
  else names.kind = requested.kind;
  err = fresh(requested.listKind, accepted.listKind, used.kinds);
  if (err) conflict = { reason: 'ListKindConflict', message: err };
  else if (requested.listKind !== undefined) names.listKind = requested.listKind;
  if (requested.categories !== undefined) names.categories = [...requested.categories];
  else delete names.categories;
  const condition = conflict
    ? { type: 'NamesAccepted', status: 'False', ...conflict }
    : { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' };
  return { names, condition };
}

/** The lifecycle of every CRD in one store. */
class CrdLifecycle {
  private readonly served = new Map<string, Served>();
  private readonly dirty = new Set<string>();
  /** The pending delayed sync of each CRD. */
  private readonly timers = new Map<string, Timer>();
  /** The last retry delay of each CRD whose sync fails (ms), doubled on each failure. */
  private readonly failures = new Map<string, number>();
  private draining: Promise<void> | undefined;
  private watch: WatchStream | undefined;

  constructor(private readonly ctx: StorageContext) {}

  /** Syncs every stored CRD (so their resources are served when start-up ends), then follows changes. */
  async start(): Promise<void> {
    this.startWatch();
    for (const crd of this.ctx.store.cachedObjects()) this.enqueue(crd.metadata?.name ?? '');
    await this.draining;
  }

  private startWatch(): void {
    try {
      this.watch = this.ctx.store.watch(
        undefined,
        { resourceVersion: '0' },
        (ev) => {
          if (ev.type === 'BOOKMARK' || ev.type === 'ERROR') return;
          const crd = ev.object as Crd | undefined;
          const name = crd?.metadata?.name;
          if (!name) return;
          this.enqueue(name);
          // As the naming controller requeues a group on every change: a CRD whose names were taken may get them now.
          for (const other of this.ctx.store.cachedObjects() as Crd[]) {
            if (other.spec?.group === crd.spec?.group && !isConditionTrue(other, 'NamesAccepted')) this.enqueue(other.metadata?.name ?? '');
          }
        },
        () => {
          // The watch ends when the server stops; were it to end otherwise, follow again shortly.
          this.watch = undefined;
          this.ctx.clock.setTimer(RETRY_MIN_MS, () => this.startWatch());
        },
      );
    } catch {
      // The server is closing.
    }
  }

  /** Resolves once no sync is queued or running (delayed retries aside). */
  async settled(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private enqueue(name: string): void {
    this.dirty.add(name);
    this.draining ??= this.drain().finally(() => (this.draining = undefined));
  }

  private async drain(): Promise<void> {
    for (;;) {
      const name = this.dirty.values().next().value;
      if (name === undefined) return;
      this.dirty.delete(name);
      try {
        await this.sync(name);
        this.failures.delete(name);
      } catch {
        const delay = Math.min(RETRY_MAX_MS, (this.failures.get(name) ?? RETRY_MIN_MS / 2) * 2);
        this.failures.set(name, delay);
        this.syncLater(name, delay);
      }
    }
  }

  /** Syncs `name` again in `delay` ms (a failed sync; instances that are still going). */
  private syncLater(name: string, delay: number): void {
    this.timers.get(name)?.stop();
    this.timers.set(
      name,
      this.ctx.clock.setTimer(delay, () => {
        this.timers.delete(name);
        this.enqueue(name);
      }),
    );
  }

  private async sync(name: string): Promise<void> {
    const current = this.ctx.store.cached(undefined, name) as Crd | undefined;
    if (!current) {
      this.unserve(name);
      return;
    }
    if (current.metadata?.deletionTimestamp) {
      await this.finalize(current);
      return;
    }
    const crd = clone<Crd>(current);
    const now = this.ctx.clock.now();
    const { names, condition } = calculateNames(crd, this.namesInUse(crd.spec.group));
    (crd.status ??= {}).acceptedNames = names;
    setCondition(crd, condition, now);
    if (!isConditionTrue(crd, 'Established')) {
      if (condition.status === 'True') setCondition(crd, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }, now);
      else setCondition(crd, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }, now);
    }
    let latest: Crd = current;
    if (JSON.stringify(crd.status) !== JSON.stringify(current.status)) {
      latest = (await this.ctx.store.update(undefined, name, crd, {}, [], 'status')).obj as Crd;
    }
    if (isConditionTrue(latest, 'Established')) await this.serve(latest);
  }

  /** The names the CRDs of `group` accepted, and those of the built-in resources of the group. */
  private namesInUse(group: string): NamesInUse {
    const used: NamesInUse = { resources: new Set(), kinds: new Set() };
    for (const obj of this.ctx.store.cachedObjects()) {
      const other = obj as Crd;
      if (other.spec?.group !== group) continue;
      const a = other.status?.acceptedNames;
      if (!a) continue;
      for (const r of [a.plural, a.singular ?? '', ...(a.shortNames ?? [])]) used.resources.add(r);
      used.kinds.add(a.kind);
      used.kinds.add(a.listKind ?? '');
    }
    const ours = new Set([...this.served.values()].map((s) => `${s.group}/${s.resource}`));
    for (const info of this.ctx.servedResources()) {
      if (info.group !== group || ours.has(`${info.group}/${info.resource}`)) continue;
      for (const r of [info.resource, info.singular, ...info.shortNames]) used.resources.add(r);
      used.kinds.add(info.kind);
      used.kinds.add(info.listKind);
    }
    return used;
  }

  /** Serves the CRD's versions, again when what they are built from changed. */
  private async serve(crd: Crd): Promise<void> {
    const name = crd.metadata?.name ?? '';
    const signature = JSON.stringify([crd.metadata?.uid, crd.spec, crd.status?.acceptedNames]);
    const before = this.served.get(name);
    if (before?.signature === signature) return;
    if (before) this.unserve(name);
    const strategies = customResourceStrategies(crd, {
      terminating: () => isConditionTrue((this.ctx.store.cached(undefined, name) ?? {}) as Crd, 'Terminating'),
    });
    const first = strategies[0];
    if (!first) return;
    const served: Served = { group: first.info.group, resource: first.info.resource, signature };
    try {
      for (const s of strategies) await this.ctx.addResource(s);
    } catch (err) {
      this.ctx.removeResource(served.group, served.resource);
      throw err;
    }
    this.served.set(name, served);
  }

  private unserve(name: string): void {
    const served = this.served.get(name);
    if (!served) return;
    this.served.delete(name);
    this.ctx.removeResource(served.group, served.resource);
  }

  /** crd_finalizer.go `sync`: instances deleted, then the finalizer removed. */
  private async finalize(current: Crd): Promise<void> {
    const name = current.metadata?.name ?? '';
    if (!(current.metadata?.finalizers ?? []).includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) return;
    const served = this.served.get(name);
    const store = served ? this.ctx.storeOf(served.group, served.resource) : undefined;
    let latest = current;
    if (store) {
      latest = await this.setTerminating(latest, { status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' });
      for (const obj of (await store.list(undefined, {})).items) {
        if (obj.metadata?.deletionTimestamp) continue;
        try {
          await store.delete(obj.metadata?.namespace, obj.metadata?.name ?? '', undefined, {});
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
      const remaining = (await store.list(undefined, {})).items.length;
      if (remaining > 0) {
        // Instances with finalizers of their own: look again until their controllers let them go.
        this.syncLater(name, INSTANCES_RECHECK_MS);
        return;
      }
      latest = await this.setTerminating(latest, { status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' });
    }
    const next = clone<Crd>(latest);
    metaOf(next).finalizers = (next.metadata?.finalizers ?? []).filter((f) => f !== CUSTOM_RESOURCE_CLEANUP_FINALIZER);
    await this.ctx.store.update(undefined, name, next, {}, []);
    this.unserve(name);
  }

  private async setTerminating(crd: Crd, cond: Omit<Condition, 'lastTransitionTime' | 'type'>): Promise<Crd> {
    const existing = findCondition(crd, 'Terminating');
    if (existing?.status === cond.status && existing.reason === cond.reason && existing.message === cond.message) return crd;
    const next = clone<Crd>(crd);
    setCondition(next, { type: 'Terminating', ...cond }, this.ctx.clock.now());
    return (await this.ctx.store.update(undefined, crd.metadata?.name ?? '', next, {}, [], 'status')).obj as Crd;
  }

  /**
   * etcd.go `Delete`: preconditions as upstream words them; the first DELETE sets deletionTimestamp,
   * the cleanup finalizer and `Terminating` True `InstanceDeletionPending`, and answers the CRD (200);
   * later ones (undefined) run the generic delete, which waits for the finalizers.
   */
  async markForDeletion(name: string, opts: DeleteOptions): Promise<DeleteResult | undefined> {
    const store = this.ctx.store;
    const current = await store.storedObject(undefined, name);
    if (!current) throw newNotFound(store.gr, name);
    const meta = current.metadata ?? {};
    const uid = opts.preconditions.uid ?? meta.uid ?? '';
    if (uid !== meta.uid) throw newConflict(store.gr, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${meta.uid ?? ''}`);
    const rv = opts.preconditions.resourceVersion;
    if (rv !== undefined && rv !== meta.resourceVersion) {
      throw newConflict(store.gr, name, `Precondition failed: ResourceVersion in precondition: ${rv}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`);
    }
    if (meta.deletionTimestamp) return undefined;
    const now = this.ctx.clock.now();
    const preconditions = { uid, ...(rv === undefined ? {} : { resourceVersion: rv }) };
    const out = await store.guaranteedUpdate(store.keyFor(undefined, name), name, { dryRun: opts.dryRun, ignoreNotFound: false, preconditions }, (existing) => {
      const crd = clone(existing as KubeObject) as Crd;
      const m = metaOf(crd);
      m.deletionTimestamp ??= formatTime(now);
      if (!(m.finalizers ?? []).includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) m.finalizers = [...(m.finalizers ?? []), CUSTOM_RESOURCE_CLEANUP_FINALIZER];
      setCondition(crd, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionPending', message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon' }, now);
      return { action: 'write', obj: crd };
    });
    return { code: 200, body: out };
  }
}
