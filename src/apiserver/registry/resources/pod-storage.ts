/**
 * The pod's own REST storage around the generic store (pkg/registry/core/pod/storage/storage.go
 * `BindingREST`, eviction.go `EvictionREST`) and the pod admission plugins that mutate new pods.
 */
import type { KubeObject } from '../../../api/index.js';
import { deepFreeze } from '../../../machinery/meta/index.js';
import { field, fieldErrorString, newBadRequest, newConflict, type FieldError } from '../../../machinery/errors/index.js';
import { formatTime, type Clock } from '../../../util/clock/index.js';
import { PRIORITY_CLASSES, SERVICE_ACCOUNTS } from '../../../api/catalogue/index.js';
import type { Pod, PriorityClass, ServiceAccount } from '../../../api/index.js';
import { podLog } from './pod-logs.js';
import { evictPod } from './eviction.js';
import { admitPodCreate, type PriorityClassLookup } from '../../admission/pod-admission.js';
import { admitLimitRangerPod, limitRangesFor } from '../../admission/limit-ranger.js';
import { LiveLookup } from '../../admission/live-lookup.js';
import { admitServiceAccount, DEFAULT_SERVICE_ACCOUNT_NAME, type ServiceAccountLookup } from '../../admission/service-account.js';
import type { Rand } from '../../../util/random/index.js';
import type { WatchEvent, WatchStream } from '../../../api/request.js';
import { SYSTEM_PRIORITY_CLASSES } from './priorityclasses.js';
import type { StorageContext, StorageExtension } from '../extension.js';
import { clone, metaOf } from '../generic/objects.js';
import { parseDryRun } from '../generic/options.js';
import type { Store } from '../generic/store.js';

type Query = Record<string, string>;

/**
 * The PriorityClasses the Priority plugin sees: the served ones (the watch cache), or the two system
 * classes when PriorityClasses are not served (servers built with a subset of the kinds).
 */
function priorityClasses(storeOf: StorageContext['storeOf']): PriorityClassLookup {
  const served = storeOf(PRIORITY_CLASSES.group, PRIORITY_CLASSES.resource);
  if (!served) return { get: (name) => SYSTEM_PRIORITY_CLASSES.find((pc) => pc.metadata?.name === name), list: () => SYSTEM_PRIORITY_CLASSES };
  return { get: (name) => served.cached(undefined, name) as unknown as PriorityClass | undefined, list: () => served.cachedObjects() as unknown as PriorityClass[] };
}

/** admission.go's `getServiceAccount` looks for the `default` account 10 times, 100–200 ms apart. */
export const DEFAULT_SERVICE_ACCOUNT_ATTEMPTS = 10;
const RETRY_INTERVAL_MS = { min: 100, jitter: 100 };

/**
 * The ServiceAccount plugin's lookup (admission.go `getServiceAccount`): the watch cache, else
 * storage (upstream's live GET). The `default` account, which the serviceaccounts controller creates
 * just after its namespace, is waited for as long as upstream's retries take (9 pauses of 100–200 ms
 * of clock time), and found as soon as it is written rather than at the next retry. Without served
 * ServiceAccounts (servers built with a subset of the kinds) every pod's account is taken to exist.
 */
function serviceAccounts(storeOf: StorageContext['storeOf'], clock: Clock, rand: Rand): ServiceAccountLookup {
  return async (namespace, name) => {
    const served = storeOf(SERVICE_ACCOUNTS.group, SERVICE_ACCOUNTS.resource);
    if (!served) return { metadata: { name, namespace } };
    const find = async () => (served.cached(namespace, name) ?? (await served.storedObject(namespace, name))) as ServiceAccount | undefined;
    const sa = await find();
    if (sa || name !== DEFAULT_SERVICE_ACCOUNT_NAME) return sa;
    const waitMs = (DEFAULT_SERVICE_ACCOUNT_ATTEMPTS - 1) * (RETRY_INTERVAL_MS.min + rand.int(RETRY_INTERVAL_MS.jitter));
    return awaitServiceAccount(served, namespace, name, clock, waitMs, find);
  };
}

/** The account `name` once a write of it reaches the watch cache, or undefined after `waitMs` of clock time. */
function awaitServiceAccount(served: Store, namespace: string, name: string, clock: Clock, waitMs: number, find: () => Promise<ServiceAccount | undefined>): Promise<ServiceAccount | undefined> {
  return new Promise((resolve) => {
    let done = false;
    // Set once the watch has started: events may arrive while it starts, before it is returned.
    const started: { stream?: WatchStream } = {};
    const finish = (sa: ServiceAccount | undefined): void => {
      if (done) return;
      done = true;
      timer.stop();
      started.stream?.stop();
      resolve(sa);
    };
    const timer = clock.setTimer(waitMs, () => finish(undefined));
    const onEvent = (ev: WatchEvent): void => {
      const obj = ev.object as ServiceAccount;
      if ((ev.type === 'ADDED' || ev.type === 'MODIFIED') && obj.metadata?.name === name) finish(obj);
    };
    // A watch that ends early (410) leaves the wait to the timer.
    started.stream = served.watch(namespace, {}, onEvent, () => undefined);
    if (done) started.stream.stop();
    // Written between the first look and the watch's start.
    void find().then((sa) => sa && finish(sa), () => undefined);
  });
}

/**
 * The storage extension of pods: admission of new pods (LimitRanger, ServiceAccount, Priority,
 * DefaultTolerationSeconds), `/binding` and `/eviction` (eviction.ts: it honours
 * PodDisruptionBudgets; both answer 201), `/log` (text computed from the simulated container: pod-logs.ts).
 */
export function podStorage({ store, clock, rand, storeOf }: StorageContext): StorageExtension {
  const limitRanges = new LiveLookup(clock);
  const lookupServiceAccount = serviceAccounts(storeOf, clock, rand);
  return {
    mutateCreate: async (pod, namespace) => {
      // kube-apiserver's plugin order: LimitRanger, ServiceAccount, Priority, DefaultTolerationSeconds.
      admitLimitRangerPod(pod, await limitRangesFor(limitRanges, storeOf, namespace));
      await admitServiceAccount(pod, namespace, lookupServiceAccount, rand);
      admitPodCreate(pod, priorityClasses(storeOf));
    },
    subresources: {
      binding: { create: async (req) => ({ code: 201, body: await bindPod(store, clock, req.namespace, req.name, req.body, req.query) }) },
      eviction: { create: (req) => evictPod({ store, clock, storeOf }, req.namespace, req.name, req.body, req.query) },
      log: { get: async (req) => ({ code: 200, body: podLog((await store.get(req.namespace, req.name, {})) as Pod, req.query, clock) }) },
    },
  };
}

/**
 * POST pods/<name>/binding with a Binding `{metadata: {name}, target: {kind: 'Node', name}}`: sets
 * spec.nodeName, merges the Binding's annotations and sets condition PodScheduled=True. A pod already
 * bound, being deleted or still gated → 409 on `pods/binding`, e.g.
 * `Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "n1"`.
 * Returns the `metav1.Status` Success (code 201) upstream's create handler answers with. Serves both
 * `pods/binding` and the core/v1 `bindings` collection (bindings.ts), as upstream's BindingREST does.
 */
export async function bindPod(store: Store, clock: Clock, namespace: string | undefined, name: string, body: unknown, query: Query): Promise<unknown> {
  const dryRun = parseDryRun(query, 'CreateOptions');
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw newBadRequest('the object provided is unrecognized (must be of type Binding)');
  const binding = body as { metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string; annotations?: Record<string, string> }; target?: { kind?: string; name?: string } };
  const meta = binding.metadata ?? {};
  if (meta.name !== name) throw newBadRequest('name in URL does not match name in Binding object');
  if (meta.namespace && meta.namespace !== namespace) {
    throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  // ValidatePodBinding errors are a plain aggregate error, which upstream leaks as a 500; 400 here (ADR 5).
  const errs: FieldError[] = [];
  const kind = binding.target?.kind ?? '';
  if (kind !== '' && kind !== 'Node') errs.push(field.notSupported('target.kind', kind, ['Node', '<empty>']));
  if (!binding.target?.name) errs.push(field.required('target.name'));
  if (errs.length > 0) throw newBadRequest(errs.length === 1 ? fieldErrorString(errs[0] as FieldError) : `[${errs.map(fieldErrorString).join(', ')}]`);
  const node = binding.target?.name as string;
  const bindingGR = { group: '', resource: 'pods/binding' };
  const preconditions = { ...(meta.uid ? { uid: meta.uid } : {}), ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}) };
  await store.guaranteedUpdate(store.keyFor(namespace, name), name, { dryRun, ignoreNotFound: false, preconditions }, (existing) => {
    const pod = clone(existing as KubeObject);
    const spec = (pod.spec ??= {}) as { nodeName?: string; schedulingGates?: unknown[] };
    if (pod.metadata?.deletionTimestamp) throw newConflict(bindingGR, name, `pod ${name} is being deleted, cannot be assigned to a host`);
    if (spec.nodeName) throw newConflict(bindingGR, name, `pod ${name} is already assigned to node ${JSON.stringify(spec.nodeName)}`);
    if ((spec.schedulingGates ?? []).length > 0) throw newConflict(bindingGR, name, `pod ${name} has non-empty .spec.schedulingGates`);
    spec.nodeName = node;
    if (meta.annotations) {
      const m = metaOf(pod);
      m.annotations = { ...m.annotations, ...meta.annotations };
    }
    setPodScheduled(pod, formatTime(clock.now()));
    return { action: 'write', obj: pod };
  });
  return deepFreeze({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
}

/** `podutil.UpdatePodCondition` for PodScheduled=True: replaces the condition, keeping its transition time if it was already True. */
function setPodScheduled(pod: KubeObject, now: string): void {
  const status = (pod.status ??= {}) as { conditions?: { type: string; status: string; lastProbeTime?: string | null; lastTransitionTime?: string }[] };
  const conditions = (status.conditions ??= []);
  const i = conditions.findIndex((c) => c.type === 'PodScheduled');
  const old = i >= 0 ? conditions[i] : undefined;
  const next = { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: old?.status === 'True' && old.lastTransitionTime ? old.lastTransitionTime : now };
  if (i >= 0) conditions[i] = next;
  else conditions.push(next);
}

