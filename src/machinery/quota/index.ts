/**
 * Quota arithmetic and the core evaluators shared by the ResourceQuota admission plugin (API server)
 * and the resource quota controller: what one object uses of each quota-tracked resource, which
 * resources an evaluator tracks, and which scoped quotas an object falls under.
 *
 * Followed (v1.33): staging/src/k8s.io/apiserver/pkg/quota/v1/resources.go (Add, Subtract, Mask,
 * LessThanOrEqual, Equals), pkg/quota/v1/evaluator/core/pods.go (PodUsageFunc,
 * podComputeUsageHelper, Constraints, podMatchesScopeFunc, QuotaV1Pod), services.go,
 * persistent_volume_claims.go and staging/.../quota/v1/generic/evaluator.go (object counts
 * `count/<resource>.<group>`). Quantities are the API's strings; sums are exact (machinery/quantity).
 */
import type { PersistentVolumeClaim, Pod, ResourceQuota, Service } from '../../api/index.js';
import { parseQuantity, type Quantity } from '../quantity/index.js';
import { parseTime } from '../../util/clock/index.js';

/** A `v1.ResourceList`: resource name → quantity string. */
export type ResourceList = Record<string, string>;

/** A group and resource (`{group: '', resource: 'pods'}`). */
export interface QuotaGroupResource {
  group: string;
  resource: string;
}

function quantity(v: string | number | undefined): Quantity | undefined {
  if (v === undefined) return undefined;
  try {
    return parseQuantity(v);
  } catch {
    return undefined;
  }
}

/** `quota.Add`: the sum of `a` and `b`, per resource (a resource in only one list keeps its value). */
export function addResources(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const x = quantity(out[k]);
    const y = quantity(v);
    out[k] = x && y ? x.add(y).toString() : v;
  }
  return out;
}

/** `quota.Subtract`: `a - b` per resource of `a` (resources only in `b` are ignored, as upstream). */
export function subtractResources(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = {};
  for (const [k, v] of Object.entries(a)) {
    const x = quantity(v);
    const y = quantity(b[k]);
    out[k] = x && y ? x.sub(y).toString() : v;
  }
  return out;
}

/** `quota.Mask`: only the resources of `names`. */
export function maskResources(list: ResourceList, names: Iterable<string>): ResourceList {
  const out: ResourceList = {};
  for (const k of names) if (list[k] !== undefined) out[k] = list[k];
  return out;
}

/**
 * `quota.LessThanOrEqual(a, b)`: every resource of `b` that `a` also holds is no greater in `a`;
 * `exceeded` lists those that are, in name order.
 */
export function lessThanOrEqual(a: ResourceList, b: ResourceList): { allowed: boolean; exceeded: string[] } {
  const exceeded: string[] = [];
  for (const [k, v] of Object.entries(b)) {
    const x = quantity(a[k]);
    const y = quantity(v);
    if (x && y && x.cmp(y) > 0) exceeded.push(k);
  }
  exceeded.sort();
  return { allowed: exceeded.length === 0, exceeded };
}

/** `quota.Equals`: the same resources with equal quantities. */
export function resourceListsEqual(a: ResourceList | undefined, b: ResourceList | undefined): boolean {
  const ka = Object.keys(a ?? {});
  if (ka.length !== Object.keys(b ?? {}).length) return false;
  return ka.every((k) => {
    const x = quantity(a?.[k]);
    const y = quantity(b?.[k]);
    return x && y ? x.cmp(y) === 0 : a?.[k] === b?.[k];
  });
}

/** The admission plugin's `prettyPrint`: `name=quantity` in name order, joined by `,`. */
export function prettyPrint(list: ResourceList): string {
  return Object.keys(list)
    .sort()
    .map((k) => `${k}=${String(quantity(list[k]) ?? list[k])}`)
    .join(',');
}

// ---------------------------------------------------------------------------------------------
// Object counts.

/** The legacy count names of core resources (`pods` is a compute resource: see {@link podUsage}). */
const LEGACY_COUNT_NAMES: Readonly<Record<string, string>> = {
  services: 'services',
  configmaps: 'configmaps',
  secrets: 'secrets',
  replicationcontrollers: 'replicationcontrollers',
  resourcequotas: 'resourcequotas',
  persistentvolumeclaims: 'persistentvolumeclaims',
};

/** `ObjectCountQuotaResourceNameFor`: `count/<resource>` for the core group, else `count/<resource>.<group>`. */
export function objectCountQuotaResourceNameFor(gr: QuotaGroupResource): string {
  return gr.group === '' ? `count/${gr.resource}` : `count/${gr.resource}.${gr.group}`;
}

/** The group and resource a `count/<resource>[.<group>]` name counts, or undefined for another name. */
export function groupResourceOfCountName(name: string): QuotaGroupResource | undefined {
  if (!name.startsWith('count/')) return undefined;
  const rest = name.slice('count/'.length);
  const dot = rest.indexOf('.');
  return dot < 0 ? { group: '', resource: rest } : { group: rest.slice(dot + 1), resource: rest.slice(0, dot) };
}

/** The core group and resource a legacy name (`pods`, `services`, `cpu`, `requests.storage`…) is computed from, or undefined. */
export function groupResourceOfQuotaName(name: string): QuotaGroupResource | undefined {
  const counted = groupResourceOfCountName(name);
  if (counted) return counted;
  for (const resource of ['pods', 'services', 'persistentvolumeclaims']) {
    if (matchesResource({ group: '', resource }, name)) return { group: '', resource };
  }
  const legacy = Object.keys(LEGACY_COUNT_NAMES).find((r) => LEGACY_COUNT_NAMES[r] === name);
  return legacy ? { group: '', resource: legacy } : undefined;
}

// ---------------------------------------------------------------------------------------------
// Pods.

const POD_RESOURCES = new Set([
  'count/pods',
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
]);

/** pods.go `validationSet`: the compute resources every container must state when a quota tracks them. */
const VALIDATION_SET = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);

/** `helper.IsExtendedResourceName`: a domain-prefixed name outside `kubernetes.io/`, not `requests.`-prefixed. */
function isExtendedResourceName(name: string): boolean {
  if (!name.includes('/') || name.startsWith('requests.')) return false;
  const domain = name.slice(0, name.indexOf('/'));
  return domain !== 'kubernetes.io' && !domain.endsWith('.kubernetes.io');
}

/** `podComputeUsageHelper`: the quota names a set of requests and limits charges (`pods: 1` included). */
export function podComputeUsageHelper(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = { pods: '1' };
  for (const r of ['cpu', 'memory', 'ephemeral-storage']) {
    if (requests[r] !== undefined) {
      out[r] = requests[r];
      out[`requests.${r}`] = requests[r];
    }
    if (limits[r] !== undefined) out[`limits.${r}`] = limits[r];
  }
  for (const [k, v] of Object.entries(requests)) {
    if (k.startsWith('hugepages-') || isExtendedResourceName(k)) out[`requests.${k}`] = v;
  }
  return out;
}

type Resources = { requests?: Record<string, string | number>; limits?: Record<string, string | number> } | undefined;
type ContainerLike = { name?: string; resources?: Resources; restartPolicy?: string };

function listOf(r: Record<string, string | number> | undefined): ResourceList {
  const out: ResourceList = {};
  for (const [k, v] of Object.entries(r ?? {})) out[k] = String(v);
  return out;
}

/** Per resource, the larger of `a` and `b`. */
function maxResources(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const x = quantity(out[k]);
    const y = quantity(v);
    if (!x || (y && y.cmp(x) > 0)) out[k] = v;
  }
  return out;
}

/**
 * `resourcehelper.PodRequests` / `PodLimits`: the containers' sum, then the larger of that and what each
 * init container needs while it runs (restartable sidecars keep running beside later ones), plus
 * the pod's overhead.
 */
export function podResources(pod: Pod, which: 'requests' | 'limits'): ResourceList {
  const spec = pod.spec;
  let sum: ResourceList = {};
  for (const c of spec?.containers ?? []) sum = addResources(sum, listOf((c.resources as Resources)?.[which]));
  let sidecars: ResourceList = {};
  let initMax: ResourceList = {};
  for (const ic of (spec?.initContainers ?? []) as ContainerLike[]) {
    const r = listOf(ic.resources?.[which]);
    if (ic.restartPolicy === 'Always') {
      sidecars = addResources(sidecars, r);
      initMax = maxResources(initMax, sidecars);
    } else initMax = maxResources(initMax, addResources(r, sidecars));
  }
  let out = maxResources(addResources(sum, sidecars), initMax);
  if (spec?.overhead) out = addResources(out, listOf(spec.overhead));
  return out;
}

/** `QuotaV1Pod`: a pod counts against compute quota until it is terminal or its deletion grace period has run out. */
export function quotaV1Pod(pod: Pod, nowMs: number): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  const deletion = parseTime(pod.metadata?.deletionTimestamp);
  const grace = pod.metadata?.deletionGracePeriodSeconds;
  if (deletion !== undefined && typeof grace === 'number' && nowMs > deletion + grace * 1000) return false;
  return true;
}

/** `PodUsageFunc`: `count/pods` always; `pods` and compute resources while {@link quotaV1Pod}. `nowMs` is the clock's time. */
export function podUsage(pod: Pod, nowMs: number): ResourceList {
  const out: ResourceList = { 'count/pods': '1' };
  if (!quotaV1Pod(pod, nowMs)) return out;
  return { ...out, ...podComputeUsageHelper(podResources(pod, 'requests'), podResources(pod, 'limits')) };
}

/**
 * The pod evaluator's `Constraints`: every container and init container must request or limit each
 * compute resource of `required` the quota tracks (requests.cpu, limits.memory, cpu, …). Returns the
 * error text (`must specify limits.cpu,requests.cpu`), or undefined.
 */
export function podConstraints(required: Iterable<string>, pod: Pod): string | undefined {
  const requiredSet = [...required].filter((r) => VALIDATION_SET.has(r));
  const missing = new Set<string>();
  for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])] as ContainerLike[]) {
    const usage = podComputeUsageHelper(listOf(c.resources?.requests), listOf(c.resources?.limits));
    for (const r of requiredSet) if (usage[r] === undefined) missing.add(r);
  }
  return missing.size === 0 ? undefined : `must specify ${[...missing].sort().join(',')}`;
}

/** `qos.GetPodQOS(pod) == BestEffort`: no container requests or limits a positive cpu or memory. */
export function isBestEffort(pod: Pod): boolean {
  const zero = parseQuantity('0');
  for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])] as ContainerLike[]) {
    for (const list of [c.resources?.requests, c.resources?.limits]) {
      for (const r of ['cpu', 'memory']) {
        const q = quantity(list?.[r]);
        if (q && q.cmp(zero) > 0) return false;
      }
    }
  }
  return true;
}

/** A scope requirement: `spec.scopes` entries become `Exists` requirements. */
export interface ScopeRequirement {
  scopeName: string;
  operator: string;
  values?: string[];
}

/** `getScopeSelectorsFromQuota`: `spec.scopes` as Exists requirements, then `spec.scopeSelector.matchExpressions`. */
export function scopeSelectorsOf(rq: ResourceQuota): ScopeRequirement[] {
  const out: ScopeRequirement[] = (rq.spec?.scopes ?? []).map((s) => ({ scopeName: s, operator: 'Exists' }));
  for (const e of rq.spec?.scopeSelector?.matchExpressions ?? []) out.push({ scopeName: e.scopeName, operator: e.operator, ...(e.values ? { values: e.values } : {}) });
  return out;
}

/** `hasCrossNamespacePodAffinityTerm`: an affinity term naming namespaces or a namespace selector. */
function hasCrossNamespacePodAffinityTerm(pod: Pod): boolean {
  const a = pod.spec?.affinity;
  type Term = { namespaces?: string[]; namespaceSelector?: unknown };
  const terms: Term[] = [];
  for (const x of [a?.podAffinity, a?.podAntiAffinity]) {
    terms.push(...((x?.requiredDuringSchedulingIgnoredDuringExecution ?? []) as Term[]));
    terms.push(...(x?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((w) => w.podAffinityTerm as Term));
  }
  return terms.some((t) => (t.namespaces ?? []).length > 0 || (t.namespaceSelector !== undefined && t.namespaceSelector !== null));
}

/** `podMatchesScopeFunc`: whether `pod` is in the scope `sel` names. */
export function podMatchesScope(sel: ScopeRequirement, pod: Pod): boolean {
  switch (sel.scopeName) {
    case 'Terminating':
      return typeof pod.spec?.activeDeadlineSeconds === 'number' && pod.spec.activeDeadlineSeconds >= 0;
    case 'NotTerminating':
      return !(typeof pod.spec?.activeDeadlineSeconds === 'number' && pod.spec.activeDeadlineSeconds >= 0);
    case 'BestEffort':
      return isBestEffort(pod);
    case 'NotBestEffort':
      return !isBestEffort(pod);
    case 'CrossNamespacePodAffinity':
      return hasCrossNamespacePodAffinityTerm(pod);
    case 'PriorityClass': {
      // Upstream matches a label set {PriorityClass: <name>} (always holding the key) for all but Exists.
      const name = pod.spec?.priorityClassName ?? '';
      const values = sel.values ?? [];
      if (sel.operator === 'Exists') return name !== '';
      if (sel.operator === 'In') return values.includes(name);
      if (sel.operator === 'NotIn') return !values.includes(name);
      return false; // DoesNotExist: the key is always present
    }
    default:
      return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Services and claims.

/** services.go `ServiceUsageFunc`: services, count/services, services.loadbalancers, services.nodeports. */
export function serviceUsage(svc: Service): ResourceList {
  const out: ResourceList = { services: '1', 'count/services': '1' };
  const type = svc.spec?.type ?? 'ClusterIP';
  const ports = svc.spec?.ports ?? [];
  if (type === 'NodePort') out['services.nodeports'] = String(ports.length);
  if (type === 'LoadBalancer') {
    out['services.loadbalancers'] = '1';
    out['services.nodeports'] = String(svc.spec?.allocateLoadBalancerNodePorts === false ? ports.filter((p) => p.nodePort).length : ports.length);
  }
  return out;
}

const STORAGE_CLASS_SUFFIX = '.storageclass.storage.k8s.io/';

/** persistent_volume_claims.go usage: the count, `requests.storage` and the per-class names. */
export function persistentVolumeClaimUsage(pvc: PersistentVolumeClaim): ResourceList {
  const out: ResourceList = { persistentvolumeclaims: '1', 'count/persistentvolumeclaims': '1' };
  const cls = pvc.spec?.storageClassName ?? pvc.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? '';
  if (cls) out[`${cls}${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`] = '1';
  // The larger of the request and what the claim already has allocated (a resize in progress).
  let storage = quantity(pvc.spec?.resources?.requests?.['storage']);
  const allocated = quantity((pvc.status)?.allocatedResources?.['storage']);
  if (allocated && (!storage || allocated.cmp(storage) > 0)) storage = allocated;
  if (storage) {
    out['requests.storage'] = storage.toString();
    if (cls) out[`${cls}${STORAGE_CLASS_SUFFIX}requests.storage`] = storage.toString();
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The registry.

/**
 * The evaluator's `Matches` on resource names: whether quota resource `name` is charged by objects of
 * `gr` (a quota with any such hard resource applies to them).
 */
export function matchesResource(gr: QuotaGroupResource, name: string): boolean {
  if (name === objectCountQuotaResourceNameFor(gr)) return true;
  if (gr.group !== '') return false;
  switch (gr.resource) {
    case 'pods':
      return POD_RESOURCES.has(name) || name.startsWith('requests.hugepages-') || (name.startsWith('requests.') && isExtendedResourceName(name.slice('requests.'.length)));
    case 'services':
      return name === 'services' || name === 'services.loadbalancers' || name === 'services.nodeports';
    case 'persistentvolumeclaims':
      return name === 'persistentvolumeclaims' || name === 'requests.storage' || (name.includes(STORAGE_CLASS_SUFFIX) && (name.endsWith('/requests.storage') || name.endsWith('/persistentvolumeclaims')));
    default:
      return LEGACY_COUNT_NAMES[gr.resource] === name;
  }
}

/** What `obj` of `gr` uses: the evaluator's `Usage` (generic evaluators: `count/<resource>.<group>` and the legacy name). */
export function objectUsage(gr: QuotaGroupResource, obj: unknown, nowMs: number): ResourceList {
  if (gr.group === '') {
    if (gr.resource === 'pods') return podUsage(obj as Pod, nowMs);
    if (gr.resource === 'services') return serviceUsage(obj as Service);
    if (gr.resource === 'persistentvolumeclaims') return persistentVolumeClaimUsage(obj as PersistentVolumeClaim);
  }
  const out: ResourceList = { [objectCountQuotaResourceNameFor(gr)]: '1' };
  const legacy = gr.group === '' ? LEGACY_COUNT_NAMES[gr.resource] : undefined;
  if (legacy) out[legacy] = '1';
  return out;
}

/**
 * `Matches`: a quota applies to `obj` when one of its hard resources is charged by `gr` and `obj` is in
 * every scope of the quota (only pods have scopes: a scoped quota matches no other object).
 */
export function quotaMatches(rq: ResourceQuota, hard: ResourceList, gr: QuotaGroupResource, obj: unknown): boolean {
  if (!Object.keys(hard).some((name) => matchesResource(gr, name))) return false;
  const isPod = gr.group === '' && gr.resource === 'pods';
  return scopeSelectorsOf(rq).every((sel) => isPod && podMatchesScope(sel, obj as Pod));
}
