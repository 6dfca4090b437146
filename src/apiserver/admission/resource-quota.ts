/**
 * The ResourceQuota admission plugin (plugin/pkg/admission/resourcequota/admission.go, controller.go
 * `checkRequest`, v1.33), enabled in kube-apiserver by default. On every create of a namespaced
 * object, each ResourceQuota of the namespace whose `status.hard` names a resource the object is
 * charged for (and whose scopes take it in: machinery/quota `quotaMatches`) must have room for it:
 *
 * - a pod that does not state a compute resource the quota limits is refused with 403
 *   `failed quota: <quota>: must specify limits.cpu,requests.cpu` (the pod evaluator's Constraints);
 * - a quota whose `status.used` lacks one of the resources it tracks for the object (the controller
 *   has not counted yet) refuses it: `status unknown for quota: <quota>, resources: <all tracked>`;
 * - when `used + requested` exceeds `hard`: `exceeded quota: <quota>, requested: pods=1, used:
 *   pods=3, limited: pods=3` (each list only the exceeded resources, `prettyPrint`).
 *
 * Admitted requests are charged to `status.used` at once, through storage with a compare-and-swap on
 * the quota's resourceVersion (the conflict retries re-check against the fresh quota), so two racing
 * creates cannot both take the last unit. The quota controller later recomputes `used` from the
 * objects themselves, which also gives back charges of creates that failed after admission.
 * Dry runs are checked but not charged. Updates are not charged (upstream charges only the pod
 * evaluator's creates and PVC resizes; resizes are not covered here), nor creates through
 * server-side apply.
 */
import type { KubeObject, ResourceQuota } from '../../api/index.js';
import { isNotFound, newForbidden, type GroupResource } from '../../machinery/errors/index.js';
import {
  addResources,
  lessThanOrEqual,
  maskResources,
  matchesResource,
  objectUsage,
  podConstraints,
  prettyPrint,
  quotaMatches,
  type ResourceList,
} from '../../machinery/quota/index.js';
import type { Pod } from '../../api/index.js';
import type { Clock } from '../../util/clock/index.js';
import { LiveLookup } from './live-lookup.js';
import type { AdmissionPlugin } from '../registry/extension.js';
import type { Store } from '../registry/generic/store.js';
import { clone } from '../registry/generic/objects.js';

/** The plugin over the resourcequotas store (its cache lists the quotas; its CAS charges them). */
export class ResourceQuotaAdmission implements AdmissionPlugin {
  /** The namespaces' quotas, as upstream's `quotaAccessor` reads them (live-lookup.ts). */
  private readonly lookup: LiveLookup;

  constructor(
    private readonly quotas: Store,
    private readonly clock: Clock,
  ) {
    this.lookup = new LiveLookup(clock);
  }

  /**
   * Checks and charges the create of `obj` (of `gr`, already validated) against its namespace's quotas.
   * @throws StatusError 403 Forbidden as the module doc says
   */
  async validateCreate(obj: KubeObject, gr: GroupResource, dryRun: boolean): Promise<void> {
    const namespace = obj.metadata?.namespace;
    if (!namespace) return;
    const candidates = ((await this.lookup.objectsIn(this.quotas, namespace)) as unknown as ResourceQuota[])
      .filter((rq) => Object.keys(rq.status?.hard ?? {}).length > 0)
      .sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
    if (candidates.length === 0) return;
    const name = obj.metadata?.name ?? '';
    const usage = objectUsage(gr, obj, this.clock.now());
    const isPod = gr.group === '' && gr.resource === 'pods';
    const charges: { quota: string; requested: ResourceList }[] = [];
    for (const rq of candidates) {
      const hard = rq.status?.hard ?? {};
      if (!quotaMatches(rq, hard, gr, obj)) continue;
      const quotaName = rq.metadata?.name ?? '';
      const tracked = Object.keys(hard).filter((r) => matchesResource(gr, r));
      const failed = isPod ? podConstraints(tracked, obj as Pod) : undefined;
      if (failed) throw newForbidden(gr, name, `failed quota: ${quotaName}: ${failed}`);
      // `hasUsageStats`: every tracked resource must have been counted; the message names them all.
      if (tracked.some((r) => rq.status?.used?.[r] === undefined)) throw newForbidden(gr, name, `status unknown for quota: ${quotaName}, resources: ${tracked.sort().join(',')}`);
      const requested = maskResources(usage, tracked);
      if (Object.keys(requested).length > 0) charges.push({ quota: quotaName, requested });
    }
    for (const { quota, requested } of charges) await this.charge(namespace, quota, requested, gr, name, dryRun);
  }

  /** Adds `requested` to the quota's `status.used` if it stays within `status.hard`, under CAS. */
  private async charge(namespace: string, quota: string, requested: ResourceList, gr: GroupResource, name: string, dryRun: boolean): Promise<void> {
    try {
      await this.quotas.guaranteedUpdate(this.quotas.keyFor(namespace, quota), quota, { dryRun, ignoreNotFound: false }, (existing) => this.chargeOnce(existing as KubeObject, quota, requested, gr, name));
    } catch (err) {
      // A quota deleted meanwhile limits nothing.
      if (!isNotFound(err)) throw err;
    }
  }

  /** One attempt on the fresh quota: throws 403 when `used + requested` exceeds `hard`, else the charged quota. */
  private chargeOnce(existing: KubeObject, quota: string, requested: ResourceList, gr: GroupResource, name: string): { action: 'write'; obj: KubeObject } {
    const rq = clone(existing) as unknown as ResourceQuota;
    const status = (rq.status ??= {});
    const used = status.used ?? {};
    const hard = status.hard ?? {};
    const newUsage = maskResources(addResources(used, requested), Object.keys(requested));
    const { allowed, exceeded } = lessThanOrEqual(newUsage, hard);
    if (!allowed) {
      const masked = (list: ResourceList): string => prettyPrint(maskResources(list, exceeded));
      throw newForbidden(gr, name, `exceeded quota: ${quota}, requested: ${masked(requested)}, used: ${masked(used)}, limited: ${masked(hard)}`);
    }
    status.used = { ...used, ...newUsage };
    return { action: 'write', obj: rq as unknown as KubeObject };
  }
}
