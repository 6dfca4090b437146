/**
 * POST pods/<name>/eviction: a delete that honours the pod's PodDisruptionBudget.
 *
 * Follows kubernetes/kubernetes v1.33 pkg/registry/core/pod/storage/eviction.go (`EvictionREST.Create`,
 * `canIgnorePDB`, `shouldEnforceResourceVersion`, `checkAndDecrement`, `createTooManyRequestsError`,
 * `getPodDisruptionBudgets`, `addConditionAndDeletePod`):
 * - a pod that is Succeeded, Failed, Pending or already being deleted is deleted without looking at
 *   budgets (with the pod's resourceVersion as precondition when it is not finished, so a pod that
 *   turned Running meanwhile is checked again);
 * - otherwise the budgets of the pod's namespace whose (non-empty) selector matches it are read: more
 *   than one → a 500 Failure Status `This pod has more than one PodDisruptionBudget, which the
 *   eviction subresource does not support.`; none → the pod is deleted;
 * - a pod that is not Ready is deleted without spending the budget when the budget's
 *   `unhealthyPodEvictionPolicy` is `AlwaysAllow`, or (`IfHealthyBudget`, the default) when the
 *   budget has its desired healthy pods (`currentHealthy >= desiredHealthy > 0`); the delete then
 *   carries the pod's resourceVersion, and a pod that changed meanwhile gets a 429;
 * - otherwise the budget is checked and decremented (`checkAndDecrement`): a status that has not
 *   observed the budget's generation → 429 (`The disruption budget <name> is still being processed
 *   by the server.`, retry after 10 s); no disruption allowed → 429 `Cannot evict pod as it would
 *   violate the pod's disruption budget.` with the DisruptionBudget cause `The disruption budget
 *   <name> needs <desired> healthy pods and has <current> currently`; else disruptionsAllowed − 1
 *   and the pod recorded in `status.disruptedPods` (the disruption controller then keeps it out of
 *   the healthy count until it is deleted), written with the budget's resourceVersion and retried
 *   on conflict (upstream's `EvictionsRetry`: 20 attempts; upstream waits 500 ms between them,
 *   here each attempt re-reads at once);
 * - the pod gets the condition DisruptionTarget (reason `EvictionByEvictionAPI`, message
 *   `Eviction API: evicting`) unless it is finished, then is deleted with the Eviction's
 *   deleteOptions (graceful, as any delete).
 * A dry run (query or deleteOptions) checks everything and writes nothing. The answer is the Status
 * Success (code 201) upstream's create handler returns.
 */
import type { KubeObject, Pod, PodDisruptionBudget } from '../../../api/index.js';
import { POD_DISRUPTION_BUDGETS } from '../../../api/catalogue/index.js';
import { deepFreeze } from '../../../machinery/meta/index.js';
import { StatusError, isConflict, newBadRequest, newForbidden, newInternalError, newTimeoutError, newTooManyRequests, statusDetails, type StatusCause } from '../../../machinery/errors/index.js';
import { DISRUPTION_BUDGET_CAUSE, pdbSelectsPod, updateDisruptionAllowedCondition } from '../../../machinery/poddisruptionbudget/index.js';
import { formatTime, type Clock } from '../../../util/clock/index.js';
import type { StorageContext } from '../extension.js';
import { clone } from '../generic/objects.js';
import { parseDryRun } from '../generic/options.js';
import type { Store } from '../generic/store.js';

type Query = Record<string, string>;

/** upstream `MaxDisruptedPodSize`: more recorded, unconfirmed evictions than this refuse new ones. */
export const MAX_DISRUPTED_POD_SIZE = 2000;

/** upstream `EvictionsRetry.Steps`: attempts of a write that conflicts. */
export const EVICTIONS_RETRY_STEPS = 20;

/** The text of the 429 an eviction refused by a budget gets. */
export const EVICTION_REFUSED_MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget.";

/** An Eviction's `deleteOptions`, as far as the eviction reads them. */
interface EvictionDeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string } | null;
  dryRun?: string[];
  [k: string]: unknown;
}

const SUCCESS = (): unknown => deepFreeze({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });

/** Ready=True (`podutil.IsPodReady`, the eviction's notion of a healthy pod). */
function isPodReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** `canIgnorePDB`: finished, Pending or already terminating pods are evicted without a budget. */
function canIgnorePDB(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || Boolean(pod.metadata?.deletionTimestamp);
}

/** `shouldEnforceResourceVersion`: not for finished or terminating pods. */
function shouldEnforceResourceVersion(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return !(phase === 'Succeeded' || phase === 'Failed' || pod.metadata?.deletionTimestamp);
}

function resourceVersionIsUnset(opts: EvictionDeleteOptions): boolean {
  return !opts.preconditions?.resourceVersion;
}

/** `opts` with `preconditions.resourceVersion` set (a copy). */
function withResourceVersion(opts: EvictionDeleteOptions, rv: string | undefined): EvictionDeleteOptions {
  return { ...opts, preconditions: { ...(opts.preconditions ?? {}), ...(rv ? { resourceVersion: rv } : {}) } };
}

/** A 429 TooManyRequests with one DisruptionBudget cause, `details` in Go's field order. */
function tooManyRequests(message: string, retryAfterSeconds: number, cause: string): StatusError {
  const base = newTooManyRequests(message, retryAfterSeconds);
  // metav1.StatusCause's Type is `reason` on the wire.
  const causes: StatusCause[] = [{ reason: DISRUPTION_BUDGET_CAUSE, message: cause }];
  return new StatusError({ ...base.status, details: statusDetails({ ...base.status.details, causes }) });
}

/** `createTooManyRequestsError`: the budget's status is behind (retry after 10 s). */
function createTooManyRequestsError(pdbName: string): StatusError {
  return tooManyRequests(EVICTION_REFUSED_MESSAGE, 10, `The disruption budget ${pdbName} is still being processed by the server.`);
}

/** Whether the Eviction asks for a dry run, in the query or its deleteOptions. @throws StatusError 500 for mismatching dry-run options */
function evictionDryRun(query: Query, opts: EvictionDeleteOptions): boolean {
  const fromQuery = parseDryRun(query, 'CreateOptions');
  const fromBody = Array.isArray(opts.dryRun) && opts.dryRun.includes('All');
  if (query.dryRun && Array.isArray(opts.dryRun) && opts.dryRun.length > 0 && opts.dryRun.join(',') !== query.dryRun) {
    // Upstream returns a plain error here, which the server answers as a 500.
    throw newInternalError(`Non-matching dry-run options in request and content: [${query.dryRun}] and [${opts.dryRun.join(' ')}]`);
  }
  return fromQuery || fromBody;
}

/**
 * The eviction of pod `name` (see the module documentation). Resolves the answer (code and body).
 * @throws StatusError: 400 for a malformed Eviction, 404 for a missing pod, 429 when the budget refuses,
 *   500 when more than one budget selects the pod,
 *   403 for a budget with a negative or overfull status, 504 after too many conflicts on the budget,
 *   409 when the pod changed under a resourceVersion precondition
 */
export async function evictPod(
  { store, clock, storeOf }: Pick<StorageContext, 'store' | 'clock' | 'storeOf'>,
  namespace: string | undefined,
  name: string,
  body: unknown,
  query: Query,
): Promise<{ code: number; body: unknown }> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw newBadRequest('the object provided is unrecognized (must be of type Eviction)');
  const eviction = body as { metadata?: { name?: string; namespace?: string }; deleteOptions?: EvictionDeleteOptions | null };
  if (eviction.metadata?.name !== name) throw newBadRequest('name in URL does not match name in Eviction object');
  const original: EvictionDeleteOptions = eviction.deleteOptions ?? {};
  const dryRun = evictionDryRun(query, original);
  const deleter = { store, clock, namespace, name, query, dryRun };

  // Pods that can be evicted without a budget; conflicts (the pod changed) are retried unless the
  // caller gave a resourceVersion of its own.
  let pod: Pod | undefined;
  for (let attempt = 1; ; attempt++) {
    pod = (await store.get(namespace, name, {})) as Pod;
    if (!canIgnorePDB(pod)) break;
    const opts = shouldEnforceResourceVersion(pod) && resourceVersionIsUnset(original) ? withResourceVersion(original, pod.metadata?.resourceVersion) : original;
    try {
      await addConditionAndDeletePod(deleter, opts);
      return { code: 201, body: SUCCESS() };
    } catch (err) {
      if (!isConflict(err) || !resourceVersionIsUnset(original) || attempt >= EVICTIONS_RETRY_STEPS) throw err;
    }
  }

  const pdbStore = storeOf(POD_DISRUPTION_BUDGETS.group, POD_DISRUPTION_BUDGETS.resource);
  const pdbs = pdbStore ? ((await pdbStore.list(namespace, {})).items as PodDisruptionBudget[]).filter((pdb) => pdbSelectsPod(pdb, pod)) : [];
  if (pdbs.length > 1) {
    // Upstream returns this Status as the result; its Failure and code make the response a 500.
    throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.', code: 500 });
  }
  const pdb = pdbs[0];
  let updateDeletionOptions = false;
  if (pdb && pdbStore) {
    const status = pdb.status;
    const unhealthyCanGo =
      !isPodReady(pod) &&
      (pdb.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow' || ((status?.currentHealthy ?? 0) >= (status?.desiredHealthy ?? 0) && (status?.desiredHealthy ?? 0) > 0));
    if (unhealthyCanGo) updateDeletionOptions = true;
    else await checkAndDecrementWithRetries(pdbStore, clock, pdb, name, dryRun);
  }

  // Not Ready pods go only if nothing changed since the budget was read (they may have become Ready).
  const opts = updateDeletionOptions ? withResourceVersion(original, pod.metadata?.resourceVersion) : original;
  try {
    await addConditionAndDeletePod(deleter, opts);
  } catch (err) {
    if (isConflict(err) && updateDeletionOptions && resourceVersionIsUnset(original)) throw createTooManyRequestsError(pdb?.metadata?.name ?? '');
    throw err;
  }
  return { code: 201, body: SUCCESS() };
}

/**
 * `checkAndDecrement` under `retry.RetryOnConflict`: the first attempt uses the listed budget, later
 * ones a fresh read. @throws the 429/403 of the check, 504 Timeout after {@link EVICTIONS_RETRY_STEPS} conflicts
 */
async function checkAndDecrementWithRetries(pdbStore: Store, clock: Clock, listed: PodDisruptionBudget, podName: string, dryRun: boolean): Promise<void> {
  const namespace = listed.metadata?.namespace;
  const pdbName = listed.metadata?.name ?? '';
  let pdb = listed;
  for (let attempt = 1; attempt <= EVICTIONS_RETRY_STEPS; attempt++) {
    if (attempt > 1) pdb = (await pdbStore.get(namespace, pdbName, {})) as PodDisruptionBudget;
    try {
      await checkAndDecrement(pdbStore, clock, pdb, podName, dryRun);
      return;
    } catch (err) {
      if (!isConflict(err)) throw err;
    }
  }
  throw newTimeoutError(`couldn't update PodDisruptionBudget ${JSON.stringify(pdbName)} due to conflicts`, 10);
}

/**
 * `checkAndDecrement`: refuses (429/403) or spends one disruption of `pdb` for `podName`, writing the
 * status with the budget's resourceVersion (409 Conflict when it changed). A dry run writes nothing.
 */
async function checkAndDecrement(pdbStore: Store, clock: Clock, pdb: PodDisruptionBudget, podName: string, dryRun: boolean): Promise<void> {
  const name = pdb.metadata?.name ?? '';
  const status = pdb.status ?? { currentHealthy: 0, desiredHealthy: 0, disruptionsAllowed: 0, expectedPods: 0 };
  if ((status.observedGeneration ?? 0) < (pdb.metadata?.generation ?? 0)) throw createTooManyRequestsError(name);
  const gr = { group: 'policy', resource: 'poddisruptionbudget' };
  if (status.disruptionsAllowed < 0) throw newForbidden(gr, name, 'pdb disruptions allowed is negative');
  if (Object.keys(status.disruptedPods ?? {}).length > MAX_DISRUPTED_POD_SIZE) {
    throw newForbidden(gr, name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  }
  if (status.disruptionsAllowed === 0) {
    throw tooManyRequests(EVICTION_REFUSED_MESSAGE, 0, `The disruption budget ${name} needs ${status.desiredHealthy} healthy pods and has ${status.currentHealthy} currently`);
  }
  if (dryRun) return;
  const updated = clone(pdb as KubeObject) as PodDisruptionBudget;
  const newStatus = (updated.status ??= { ...status });
  newStatus.disruptionsAllowed--;
  const now = formatTime(clock.now());
  if (newStatus.disruptionsAllowed === 0) updateDisruptionAllowedCondition(updated, now);
  // Tells the disruption controller the pod is about to go, so it does not count it as healthy.
  newStatus.disruptedPods = { ...newStatus.disruptedPods, [podName]: now };
  await pdbStore.update(pdb.metadata?.namespace, name, updated, {}, [], 'status');
}

/**
 * `addConditionAndDeletePod`: DisruptionTarget=True (reason `EvictionByEvictionAPI`) on a pod that is
 * not finished (skipped in a dry run), then the delete with `opts`. The condition write checks `opts`'
 * uid and resourceVersion preconditions, and the delete's resourceVersion precondition moves to the
 * condition write's revision.
 */
async function addConditionAndDeletePod(
  d: { store: Store; clock: Clock; namespace: string | undefined; name: string; query: Query; dryRun: boolean },
  opts: EvictionDeleteOptions,
): Promise<void> {
  let deleteOpts = opts;
  if (!d.dryRun) {
    const preconditions = {
      ...(opts.preconditions?.uid ? { uid: opts.preconditions.uid } : {}),
      ...(opts.preconditions?.resourceVersion ? { resourceVersion: opts.preconditions.resourceVersion } : {}),
    };
    const written = await d.store.guaranteedUpdate(d.store.keyFor(d.namespace, d.name), d.name, { dryRun: false, ignoreNotFound: false, preconditions }, (existing) => {
      const pod = clone(existing as KubeObject);
      const status = (pod.status ??= {}) as { phase?: string; conditions?: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }[] };
      if (status.phase === 'Succeeded' || status.phase === 'Failed') return { action: 'write', obj: existing as KubeObject };
      const old = status.conditions?.find((c) => c.type === 'DisruptionTarget');
      const lastTransitionTime = old?.status === 'True' && old.lastTransitionTime ? old.lastTransitionTime : formatTime(d.clock.now());
      const condition = { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting', lastTransitionTime };
      status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== 'DisruptionTarget'), condition];
      return { action: 'write', obj: pod };
    });
    if (!resourceVersionIsUnset(opts)) deleteOpts = withResourceVersion(opts, written.metadata?.resourceVersion);
  }
  await d.store.delete(d.namespace, d.name, deleteOpts, d.query);
}
