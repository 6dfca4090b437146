/**
 * The LimitRanger admission plugin (plugin/pkg/admission/limitranger/admission.go, v1.33), enabled in
 * kube-apiserver by default, applied with every LimitRange of the object's namespace in turn:
 *
 * - Pods, on create only: each container and init container gets the `Container` items' `default`
 *   limits and `defaultRequest` requests it does not state (`mergeContainerResources`), recorded in
 *   the annotation `kubernetes.io/limit-ranger: LimitRanger plugin set: cpu request for container
 *   app; cpu limit for container app`; then `min`, `max` and `maxLimitRequestRatio` are checked per
 *   Container and, on the pod's summed requests and limits, per Pod (`PodValidateLimitFunc`).
 * - PersistentVolumeClaims, on create and update (a resize): `min`/`max` of `PersistentVolumeClaim`
 *   items against the claim's requests (`PersistentVolumeClaimValidateLimitFunc`).
 *
 * A violation is 403 Forbidden `pods "p" is forbidden: maximum cpu usage per Container is 1, but limit
 * is 2`; several are joined as a Go error aggregate (`[a, b]`).
 */
import type { KubeObject, LimitRange, PersistentVolumeClaim, Pod } from '../../api/index.js';
import { newForbidden } from '../../machinery/errors/index.js';
import { parseQuantity, type Quantity } from '../../machinery/quantity/index.js';
import { podResources, type ResourceList } from '../../machinery/quota/index.js';
import { LIMIT_RANGES } from '../../api/catalogue/index.js';
import type { StorageContext } from '../registry/extension.js';
import type { LiveLookup } from './live-lookup.js';

/** The annotation LimitRanger records its defaults in (`limitRangerAnnotation`). */
export const LIMIT_RANGER_ANNOTATION = 'kubernetes.io/limit-ranger';

type Quantities = Record<string, string | number>;
type MutableResources = { requests?: Quantities; limits?: Quantities };
type MutableContainer = { name: string; resources?: MutableResources };
type Item = NonNullable<LimitRange['spec']>['limits'][number];

function q(v: string | number): Quantity | undefined {
  try {
    return parseQuantity(v);
  } catch {
    return undefined;
  }
}

const str = (v: string | number): string => String(q(v) ?? v);

/** The LimitRanges of `namespace` as the cache holds them now (none when they are not served): for updates. */
export function limitRangesOf(storeOf: StorageContext['storeOf'], namespace: string): LimitRange[] {
  return (storeOf(LIMIT_RANGES.group, LIMIT_RANGES.resource)?.cachedObjects(namespace) ?? []) as unknown as LimitRange[];
}

/**
 * The LimitRanges of `namespace` for a create, through `lookup` (admission/live-lookup.ts: the cache,
 * caught up when it has none, as upstream's `GetLimitRanges` with its live lookup).
 */
export async function limitRangesFor(lookup: LiveLookup, storeOf: StorageContext['storeOf'], namespace: string): Promise<LimitRange[]> {
  return (await lookup.objectsIn(storeOf(LIMIT_RANGES.group, LIMIT_RANGES.resource), namespace)) as unknown as LimitRange[];
}

/** `utilerrors.NewAggregate(errs).Error()`: one message as it is, several as `[a, b]`. */
function aggregate(errs: string[]): string {
  return errs.length === 1 ? (errs[0] as string) : `[${errs.join(', ')}]`;
}

/** `defaultContainerResourceRequirements`: the defaults of every Container item, later items winning. */
function defaultContainerResourceRequirements(lr: LimitRange): { requests: Quantities; limits: Quantities } {
  const requests: Quantities = {};
  const limits: Quantities = {};
  for (const item of lr.spec?.limits ?? []) {
    if (item.type !== 'Container') continue;
    Object.assign(requests, item.defaultRequest ?? {});
    Object.assign(limits, item.default ?? {});
  }
  return { requests, limits };
}

/** `mergeContainerResources`: sets what the container lacks; returns the annotation's phrases for it. */
function mergeContainerResources(c: MutableContainer, defaults: { requests: Quantities; limits: Quantities }, prefix: string): string[] {
  const res = (c.resources ??= {});
  const setLimits: string[] = [];
  const setRequests: string[] = [];
  for (const [k, v] of Object.entries(defaults.limits)) {
    if ((res.limits ?? {})[k] !== undefined) continue;
    (res.limits ??= {})[k] = v;
    setLimits.push(k);
  }
  for (const [k, v] of Object.entries(defaults.requests)) {
    if ((res.requests ?? {})[k] !== undefined) continue;
    (res.requests ??= {})[k] = v;
    setRequests.push(k);
  }
  const out: string[] = [];
  if (setRequests.length) out.push(`${setRequests.sort().join(', ')} request for ${prefix} ${c.name}`);
  if (setLimits.length) out.push(`${setLimits.sort().join(', ')} limit for ${prefix} ${c.name}`);
  return out;
}

/** `minConstraint`. */
function minConstraint(type: string, name: string, enforced: string | number, requests: Quantities, limits: Quantities): string | undefined {
  const e = q(enforced);
  const req = requests[name];
  const lim = limits[name];
  if (req === undefined) return `minimum ${name} usage per ${type} is ${str(enforced)}.  No request is specified`;
  if (e && (q(req)?.cmp(e) ?? 0) < 0) return `minimum ${name} usage per ${type} is ${str(enforced)}, but request is ${str(req)}`;
  if (e && lim !== undefined && (q(lim)?.cmp(e) ?? 0) < 0) return `minimum ${name} usage per ${type} is ${str(enforced)}, but limit is ${str(lim)}`;
  return undefined;
}

/** `maxConstraint`. */
function maxConstraint(type: string, name: string, enforced: string | number, requests: Quantities, limits: Quantities): string | undefined {
  const e = q(enforced);
  const req = requests[name];
  const lim = limits[name];
  if (lim === undefined) return `maximum ${name} usage per ${type} is ${str(enforced)}.  No limit is specified`;
  if (e && (q(lim)?.cmp(e) ?? 0) > 0) return `maximum ${name} usage per ${type} is ${str(enforced)}, but limit is ${str(lim)}`;
  if (e && req !== undefined && (q(req)?.cmp(e) ?? 0) > 0) return `maximum ${name} usage per ${type} is ${str(enforced)}, but request is ${str(req)}`;
  return undefined;
}

/** `maxRequestConstraint` (claims: only the request is user input). */
function maxRequestConstraint(type: string, name: string, enforced: string | number, requests: Quantities): string | undefined {
  const e = q(enforced);
  const req = requests[name];
  if (req === undefined) return `maximum ${name} usage per ${type} is ${str(enforced)}.  No request is specified`;
  if (e && (q(req)?.cmp(e) ?? 0) > 0) return `maximum ${name} usage per ${type} is ${str(enforced)}, but request is ${str(req)}`;
  return undefined;
}

/** `limitRequestRatioConstraint`: limit / request at most the enforced ratio; the ratio printed as Go's `%f`. */
function limitRequestRatioConstraint(type: string, name: string, enforced: string | number, requests: Quantities, limits: Quantities): string | undefined {
  const req = requests[name] === undefined ? undefined : q(requests[name]);
  const lim = limits[name] === undefined ? undefined : q(limits[name]);
  const reqMilli = req?.milliValue() ?? 0;
  const limMilli = lim?.milliValue() ?? 0;
  if (reqMilli === 0) return `${name} max limit to request ratio per ${type} is ${str(enforced)}, but no request is specified or request is 0`;
  if (limMilli === 0) return `${name} max limit to request ratio per ${type} is ${str(enforced)}, but no limit is specified or limit is 0`;
  const ratio = limMilli / reqMilli;
  const max = q(enforced)?.milliValue() ?? 0;
  if (ratio * 1000 > max) return `${name} max limit to request ratio per ${type} is ${str(enforced)}, but provided ratio is ${ratio.toFixed(6)}`;
  return undefined;
}

/** The min, max and ratio checks of one item over one set of requests and limits, resources in name order. */
function checkItem(item: Item, requests: Quantities, limits: Quantities): string[] {
  const errs: (string | undefined)[] = [];
  const sorted = (m: Quantities | undefined): [string, string | number][] => Object.entries(m ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [k, v] of sorted(item.min)) errs.push(minConstraint(item.type, k, v, requests, limits));
  for (const [k, v] of sorted(item.max)) errs.push(maxConstraint(item.type, k, v, requests, limits));
  for (const [k, v] of sorted(item.maxLimitRequestRatio)) errs.push(limitRequestRatioConstraint(item.type, k, v, requests, limits));
  return errs.filter((e): e is string => e !== undefined);
}

/**
 * Applies LimitRanger to a new pod, in place, with the namespace's LimitRanges `ranges`.
 * @throws StatusError 403 when a container or the pod breaks a min, max or ratio
 */
export function admitLimitRangerPod(obj: KubeObject | Pod, ranges: readonly LimitRange[]): void {
  const pod = obj as Pod;
  const spec = pod.spec;
  if (!spec || ranges.length === 0) return;
  const containers = spec.containers as MutableContainer[];
  const initContainers = (spec.initContainers ?? []) as MutableContainer[];
  const errs: string[] = [];
  for (const lr of ranges) {
    const defaults = defaultContainerResourceRequirements(lr);
    const annotations = [...containers.flatMap((c) => mergeContainerResources(c, defaults, 'container')), ...initContainers.flatMap((c) => mergeContainerResources(c, defaults, 'init container'))];
    if (annotations.length) {
      const meta = (pod.metadata ??= {});
      meta.annotations = { ...meta.annotations, [LIMIT_RANGER_ANNOTATION]: `LimitRanger plugin set: ${annotations.join('; ')}` };
    }
  }
  for (const lr of ranges) {
    for (const item of lr.spec?.limits ?? []) {
      if (item.type === 'Container') {
        for (const c of [...containers, ...initContainers]) errs.push(...checkItem(item, c.resources?.requests ?? {}, c.resources?.limits ?? {}));
      } else if (item.type === 'Pod') {
        const requests: ResourceList = podResources(pod, 'requests');
        const limits: ResourceList = podResources(pod, 'limits');
        errs.push(...checkItem(item, requests, limits));
      }
    }
  }
  if (errs.length) throw newForbidden({ group: '', resource: 'pods' }, pod.metadata?.name ?? '', aggregate(errs));
}

/**
 * Checks a new claim against the `PersistentVolumeClaim` items of `ranges`.
 * @throws StatusError 403 when its storage request is under a min or over a max
 */
export function admitLimitRangerClaim(obj: KubeObject | PersistentVolumeClaim, ranges: readonly LimitRange[]): void {
  const pvc = obj as PersistentVolumeClaim;
  const requests = (pvc.spec?.resources?.requests ?? {}) as Quantities;
  const errs: string[] = [];
  for (const lr of ranges) {
    for (const item of lr.spec?.limits ?? []) {
      if (item.type !== 'PersistentVolumeClaim') continue;
      const sorted = (m: Quantities | undefined): [string, string | number][] => Object.entries(m ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
      for (const [k, v] of sorted(item.min)) {
        const e = minConstraint(item.type, k, v, requests, {});
        if (e) errs.push(e);
      }
      for (const [k, v] of sorted(item.max)) {
        const e = maxRequestConstraint(item.type, k, v, requests);
        if (e) errs.push(e);
      }
    }
  }
  if (errs.length) throw newForbidden({ group: '', resource: 'persistentvolumeclaims' }, pvc.metadata?.name ?? '', aggregate(errs));
}
