/**
 * Deletes everything in a terminating namespace, then removes the namespace controller's finalizer.
 * Follows upstream pkg/controller/namespace/deletion/namespaced_resources_deleter.go:
 *
 * `delete(name)`: read the namespace live; nothing to do unless it has a deletionTimestamp; make sure
 * status.phase is `Terminating`; nothing to do once `kubernetes` is gone from spec.finalizers;
 * otherwise `deleteAllContent`, and when that reports a non-zero estimate (pods still terminating, or
 * objects held by finalizers) throw {@link ResourcesRemainingError} so the controller looks again
 * after estimate/2 + 1 seconds; with nothing left, PUT `namespaces/{name}/finalize` without the
 * finalizer (the API server then removes the namespace once no other finalizer is left).
 *
 * `deleteAllContent`: for every namespaced resource that supports `delete`: estimate the graceful
 * termination (pods: the longest terminationGracePeriodSeconds of the non-terminal pods), delete the
 * collection (`deletecollection`, or list + delete each when unsupported) with
 * propagationPolicy=Background, and list what remains. Remaining objects without finalizers while no
 * grace period is pending are an error ("unexpected items still remain …"); with finalizers the
 * estimate is 15 s (`finalizerEstimateSeconds`). The pass's outcome is written as namespace
 * conditions (status-conditions.ts) with a status update when they changed.
 */
import type { KubeList, Namespace } from '../../api/index.js';
import type { Clientset, ResourceDescriptor } from '../../client/index.js';
import { errorMessage, isConflict, isNotFound, StatusError } from '../../machinery/errors/index.js';
import { formatTime, type Clock } from '../../util/clock/index.js';
import type { Logger } from '../../util/runtime/index.js';
import { NamespaceConditionUpdater, type ContentTotals } from './status-conditions.js';

/** A served resource with its verbs (from discovery). */
export type NamespacedResource = ResourceDescriptor & { verbs: readonly string[] };

/** `api.FinalizerKubernetes`: the spec.finalizers entry this controller owns. */
export const FINALIZER_KUBERNETES = 'kubernetes';
/** upstream `finalizerEstimateSeconds`: how long objects held by finalizers are expected to take. */
export const FINALIZER_ESTIMATE_SECONDS = 15;

/** Content is still being removed; look again in `estimate`/2 + 1 seconds (upstream `ResourcesRemainingError`). */
export class ResourcesRemainingError extends Error {
  constructor(readonly estimate: number) {
    super(`some content remains in the namespace, estimate ${estimate} seconds before it is removed`);
  }
}

/** What deleting one resource's content left behind. */
interface GVRDeletionMetadata {
  /** Seconds until the rest is expected to go. */
  finalizerEstimateSeconds: number;
  numRemaining: number;
  finalizersToNumRemaining: Map<string, number>;
}

const isMethodNotSupported = (err: unknown): boolean => err instanceof StatusError && err.code === 405;
const BACKGROUND = { propagationPolicy: 'Background' as const };

/** `{apps v1 deployments}`, as Go prints a GroupVersionResource with %v. */
function gvrString(r: ResourceDescriptor): string {
  return `{${r.group} ${r.version} ${r.resource}}`;
}

export interface NamespacedResourcesDeleterOptions {
  client: Clientset;
  clock: Clock;
  /** Discovery: the served resources (namespaced ones supporting delete are emptied). May reject. */
  discoverResources: () => Promise<readonly NamespacedResource[]>;
  logger?: Logger;
}

export class NamespacedResourcesDeleter {
  /** Resource + verb pairs the server answered 405 for (upstream `operationNotSupportedCache`). */
  private readonly unsupported = new Set<string>();

  constructor(private readonly opts: NamespacedResourcesDeleterOptions) {}

  /**
   * Deletes the namespace's content and finalizes it (see the module doc).
   * @throws ResourcesRemainingError while content remains; API errors and aggregated content errors
   */
  async delete(name: string): Promise<void> {
    const namespaces = this.opts.client.core.namespaces();
    let ns: Namespace;
    try {
      ns = await namespaces.get(name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (!ns.metadata?.deletionTimestamp) return;
    try {
      ns = await this.retryOnConflict(ns, (cur) => this.updateNamespaceStatus(cur));
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (!ns.metadata?.deletionTimestamp || finalized(ns)) return;
    const estimate = await this.deleteAllContent(ns);
    if (estimate > 0) throw new ResourcesRemainingError(estimate);
    try {
      await this.retryOnConflict(ns, (cur) => this.finalizeNamespace(cur));
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /** `retryOnConflictError`: re-reads the namespace after a Conflict and tries again (same uid only). */
  private async retryOnConflict(ns: Namespace, fn: (ns: Namespace) => Promise<Namespace>): Promise<Namespace> {
    let latest = ns;
    for (;;) {
      try {
        return await fn(latest);
      } catch (err) {
        if (!isConflict(err)) throw err;
      }
      const prev = latest;
      latest = await this.opts.client.core.namespaces().get(prev.metadata?.name ?? '');
      if (prev.metadata?.uid !== latest.metadata?.uid) throw new Error('namespace uid has changed across retries');
    }
  }

  /** `updateNamespaceStatusFunc`: phase Terminating once a deletionTimestamp is set. */
  private async updateNamespaceStatus(ns: Namespace): Promise<Namespace> {
    if (!ns.metadata?.deletionTimestamp || ns.status?.phase === 'Terminating') return ns;
    return this.opts.client.core.namespaces().updateStatus({ ...ns, status: { ...ns.status, phase: 'Terminating' } });
  }

  /** `finalizeNamespace`: PUT namespaces/{name}/finalize with spec.finalizers minus ours (sorted, deduplicated). */
  private async finalizeNamespace(ns: Namespace): Promise<Namespace> {
    const finalizers = [...new Set((ns.spec?.finalizers ?? []).filter((f) => f !== FINALIZER_KUBERNETES))].sort();
    const body: Namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: ns.metadata ?? {}, spec: { ...ns.spec, finalizers } };
    return (await this.opts.client.transport.request({
      verb: 'update',
      group: '',
      version: 'v1',
      resource: 'namespaces',
      name: ns.metadata?.name ?? '',
      subresource: 'finalize',
      body,
    })) as Namespace;
  }

  /**
   * `deleteAllContent`: one deletion pass over every resource; returns the largest estimate (s) of
   * what remains. Writes the conditions.
   * @throws Error aggregating the discovery and per-resource failures, after the conditions are written
   */
  private async deleteAllContent(ns: Namespace): Promise<number> {
    const name = ns.metadata?.name ?? '';
    const errs: string[] = [];
    const conditions = new NamespaceConditionUpdater(formatTime(this.opts.clock.now()));
    let resources: readonly NamespacedResource[] = [];
    try {
      resources = await this.opts.discoverResources();
    } catch (err) {
      errs.push(errorMessage(err));
      conditions.processDiscoverResourcesErr(errorMessage(err));
    }
    const totals: ContentTotals = { resourceToNumRemaining: new Map(), finalizersToNumRemaining: new Map() };
    let estimate = 0;
    for (const r of resources) {
      if (!r.namespaced || !r.verbs.includes('delete')) continue;
      const { meta, error } = await this.deleteAllContentForResource(r, name);
      if (error !== undefined) {
        errs.push(error);
        conditions.processDeleteContentErr(error);
      }
      estimate = Math.max(estimate, meta.finalizerEstimateSeconds);
      if (meta.numRemaining > 0) {
        totals.resourceToNumRemaining.set(`${r.resource}.${r.group}`, meta.numRemaining);
        for (const [f, n] of meta.finalizersToNumRemaining) {
          if (n > 0) totals.finalizersToNumRemaining.set(f, (totals.finalizersToNumRemaining.get(f) ?? 0) + n);
        }
      }
    }
    conditions.processContentTotals(totals);
    const status = structuredClone(ns.status ?? {});
    if (conditions.update(status)) {
      try {
        await this.opts.client.core.namespaces().updateStatus({ ...ns, status });
      } catch (err) {
        this.opts.logger?.error({ namespace: name, err: errorMessage(err) }, "Couldn't update status condition for namespace");
      }
    }
    if (errs.length > 0) throw new Error(errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
    return estimate;
  }

  /** `deleteAllContentForGroupVersionResource`: estimate, delete, then count what is left. */
  private async deleteAllContentForResource(r: NamespacedResource, ns: string): Promise<{ meta: GVRDeletionMetadata; error?: string }> {
    const meta: GVRDeletionMetadata = { finalizerEstimateSeconds: 0, numRemaining: 0, finalizersToNumRemaining: new Map() };
    try {
      meta.finalizerEstimateSeconds = await this.estimateGracefulTermination(r, ns);
      if (!(await this.deleteCollection(r, ns))) await this.deleteEachItem(r, ns);
      const remaining = await this.listCollection(r, ns);
      if (!remaining) return { meta };
      meta.numRemaining = remaining.items.length;
      for (const item of remaining.items) {
        for (const f of item.metadata?.finalizers ?? []) meta.finalizersToNumRemaining.set(f, (meta.finalizersToNumRemaining.get(f) ?? 0) + 1);
      }
      if (meta.numRemaining > 0 && meta.finalizerEstimateSeconds === 0) {
        // Objects held by finalizers are expected (the GC's, anyone's); anything else should be gone.
        if (meta.finalizersToNumRemaining.size > 0) {
          meta.finalizerEstimateSeconds = FINALIZER_ESTIMATE_SECONDS;
          return { meta };
        }
        return { meta, error: `unexpected items still remain in namespace: ${ns} for gvr: ${gvrString(r)}` };
      }
      return { meta };
    } catch (err) {
      return { meta, error: errorMessage(err) };
    }
  }

  /**
   * `estimateGracefulTermination`: seconds the resource's objects may still take to go; only pods have
   * a grace period (the largest terminationGracePeriodSeconds among pods not yet Succeeded/Failed).
   */
  private async estimateGracefulTermination(r: NamespacedResource, ns: string): Promise<number> {
    if (r.group !== '' || r.resource !== 'pods') return 0;
    let estimate = 0;
    for (const pod of (await this.opts.client.core.pods(ns).list()).items) {
      const phase = pod.status?.phase;
      if (phase === 'Succeeded' || phase === 'Failed') continue;
      estimate = Math.max(estimate, pod.spec?.terminationGracePeriodSeconds ?? 0);
    }
    return estimate;
  }

  /** DELETE on the collection; false when the resource does not support it. */
  private async deleteCollection(r: NamespacedResource, ns: string): Promise<boolean> {
    const key = `${r.group}/${r.resource}/deletecollection`;
    if (!r.verbs.includes('deletecollection') || this.unsupported.has(key)) return false;
    try {
      await this.opts.client.transport.request({ verb: 'deletecollection', group: r.group, version: r.version, resource: r.resource, namespace: ns, body: BACKGROUND });
      return true;
    } catch (err) {
      if (!isMethodNotSupported(err)) throw err;
      this.unsupported.add(key);
      return false;
    }
  }

  /** List, then DELETE each item (NotFound and 405 are fine). */
  private async deleteEachItem(r: NamespacedResource, ns: string): Promise<void> {
    const list = await this.listCollection(r, ns);
    if (!list) return;
    const client = this.opts.client.resource(r, ns);
    for (const item of list.items) {
      try {
        await client.delete(item.metadata?.name ?? '', BACKGROUND);
      } catch (err) {
        if (!isNotFound(err) && !isMethodNotSupported(err)) throw err;
      }
    }
  }

  /** LIST the namespace's objects of `r`; undefined when the resource does not support list. */
  private async listCollection(r: NamespacedResource, ns: string): Promise<KubeList | undefined> {
    const key = `${r.group}/${r.resource}/list`;
    if (!r.verbs.includes('list') || this.unsupported.has(key)) return undefined;
    try {
      return await this.opts.client.resource(r, ns).list();
    } catch (err) {
      if (!isMethodNotSupported(err)) throw err;
      this.unsupported.add(key);
      return undefined;
    }
  }
}

/** True once `kubernetes` is gone from spec.finalizers. */
function finalized(ns: Namespace): boolean {
  return !(ns.spec?.finalizers ?? []).includes(FINALIZER_KUBERNETES);
}
