/**
 * The side-effect port controllers use to create, delete and patch pods, with the real implementation
 * (API calls + events) and a recording fake for tests, plus `slowStartBatch`.
 *
 * Follows kubernetes/kubernetes pkg/controller/controller_utils.go: `PodControlInterface`,
 * `RealPodControl` (`CreatePods`, `GetPodFromTemplate`, `getPodsPrefix`, `DeletePod`, `PatchPod`),
 * `FakePodControl`, and replica_set.go `slowStartBatch`.
 */
import type { OwnerReference, Pod, PodTemplateSpec } from '../api/index.js';
import type { MetaObject } from '../informers/index.js';
import type { Clientset } from '../client/index.js';
import { errorMessage, isNotFound } from '../machinery/errors/index.js';
import { NAMESPACE_TERMINATING_CAUSE, hasStatusCause } from './controller-utils.js';
import type { EventRecorder } from '../client/record/index.js';

export const SUCCESSFUL_CREATE_POD_REASON = 'SuccessfulCreate';
export const FAILED_CREATE_POD_REASON = 'FailedCreate';
export const SUCCESSFUL_DELETE_POD_REASON = 'SuccessfulDelete';
export const FAILED_DELETE_POD_REASON = 'FailedDelete';

/** SlowStartInitialBatchSize: the first batch of a slow start creates this many objects. */
export const SLOW_START_INITIAL_BATCH_SIZE = 1;

/** Creates, deletes and patches pods on behalf of a controller object. */
export interface PodControl {
  /**
   * Creates one pod from `template` in `namespace`, owned through `controllerRef`, and records an
   * event on `controllerObject`. Throws the API error (StatusError) on failure.
   */
  createPods(namespace: string, template: PodTemplateSpec, controllerObject: MetaObject, controllerRef: OwnerReference): Promise<void>;
  /**
   * Deletes pod `podName`. Throws the API error as is for NotFound (callers ignore it), otherwise an
   * Error "unable to delete pods: <err>" whose `cause` is the API error.
   */
  deletePod(namespace: string, podName: string, controllerObject: MetaObject): Promise<void>;
  /** Strategic-merge-patches pod `name` with `patch` (an object). Throws the API error. */
  patchPod(namespace: string, name: string, patch: unknown): Promise<void>;
}

/**
 * `getPodsPrefix`: `<controller>-` so generated names read `web-7d4b5-x2f4k`, or the bare name when
 * the dash would make the prefix too long for a DNS subdomain (253 chars, with room for the suffix).
 */
export function getPodsPrefix(controllerName: string): string {
  const prefix = `${controllerName}-`;
  return prefix.length <= 252 ? prefix : controllerName;
}

/**
 * `GetPodFromTemplate`: a new pod object with `generateName` from the controller's name, the
 * template's labels, annotations and finalizers (copied), its spec (deep copy), and the owner ref.
 */
export function getPodFromTemplate(template: PodTemplateSpec, controllerObject: MetaObject, controllerRef: OwnerReference | undefined): Pod {
  const tm = template.metadata ?? {};
  const metadata: NonNullable<Pod['metadata']> = { generateName: getPodsPrefix(controllerObject.metadata?.name ?? '') };
  if (tm.labels) metadata.labels = { ...tm.labels };
  if (tm.annotations) metadata.annotations = { ...tm.annotations };
  if (tm.finalizers) metadata.finalizers = [...tm.finalizers];
  if (controllerRef) metadata.ownerReferences = [{ ...controllerRef }];
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec: structuredClone(template.spec ?? { containers: [] }) };
}

/** Pod control through the API, recording events with `recorder`. */
export class RealPodControl implements PodControl {
  constructor(
    private readonly client: Clientset,
    private readonly recorder: EventRecorder,
  ) {}

  async createPods(namespace: string, template: PodTemplateSpec, controllerObject: MetaObject, controllerRef: OwnerReference): Promise<void> {
    if (!controllerRef.apiVersion || !controllerRef.kind || !controllerRef.name || !controllerRef.uid || !controllerRef.controller) {
      throw new Error('controllerRef must have apiVersion, kind, name, uid and controller: true');
    }
    const pod = getPodFromTemplate(template, controllerObject, controllerRef);
    if (!pod.metadata?.labels || Object.keys(pod.metadata.labels).length === 0) {
      throw new Error('unable to create pods, no labels');
    }
    let created: Pod;
    try {
      created = await this.client.core.pods(namespace).create(pod);
    } catch (err) {
      // Every further create fails the same way while the namespace terminates: no event spam.
      if (!hasStatusCause(err, NAMESPACE_TERMINATING_CAUSE)) {
        this.recorder.event(controllerObject, 'Warning', FAILED_CREATE_POD_REASON, `Error creating: ${errorMessage(err)}`);
      }
      throw err;
    }
    this.recorder.event(controllerObject, 'Normal', SUCCESSFUL_CREATE_POD_REASON, `Created pod: ${created.metadata?.name ?? ''}`);
  }

  async deletePod(namespace: string, podName: string, controllerObject: MetaObject): Promise<void> {
    try {
      await this.client.core.pods(namespace).delete(podName);
    } catch (err) {
      if (isNotFound(err)) throw err;
      this.recorder.event(controllerObject, 'Warning', FAILED_DELETE_POD_REASON, `Error deleting: ${errorMessage(err)}`);
      throw new Error(`unable to delete pods: ${errorMessage(err)}`, { cause: err });
    }
    this.recorder.event(controllerObject, 'Normal', SUCCESSFUL_DELETE_POD_REASON, `Deleted pod: ${podName}`);
  }

  async patchPod(namespace: string, name: string, patch: unknown): Promise<void> {
    await this.client.core.pods(namespace).patch(name, 'application/strategic-merge-patch+json', patch);
  }
}

/**
 * A recording PodControl for tests (upstream `FakePodControl`): remembers every template, owner ref,
 * deleted name and patch; fails every call with `err` when set; fails creations beyond `createLimit`
 * (0 = no limit), counting calls in `createCallCount`.
 */
export class FakePodControl implements PodControl {
  templates: PodTemplateSpec[] = [];
  controllerRefs: OwnerReference[] = [];
  deletePodNames: string[] = [];
  patches: unknown[] = [];
  err: Error | undefined = undefined;
  createLimit = 0;
  createCallCount = 0;

  createPods(_namespace: string, template: PodTemplateSpec, _controllerObject: MetaObject, controllerRef: OwnerReference): Promise<void> {
    this.createCallCount++;
    if (this.createLimit !== 0 && this.createCallCount > this.createLimit) {
      return Promise.reject(new Error(`not creating pod, limit ${this.createLimit} already reached (create call ${this.createCallCount})`));
    }
    this.templates.push(template);
    this.controllerRefs.push(controllerRef);
    return this.err === undefined ? Promise.resolve() : Promise.reject(this.err);
  }

  deletePod(_namespace: string, podName: string): Promise<void> {
    this.deletePodNames.push(podName);
    return this.err === undefined ? Promise.resolve() : Promise.reject(this.err);
  }

  patchPod(_namespace: string, _name: string, patch: unknown): Promise<void> {
    this.patches.push(patch);
    return this.err === undefined ? Promise.resolve() : Promise.reject(this.err);
  }

  /** Forgets everything recorded (keeps `err` and `createLimit`). */
  clear(): void {
    this.templates = [];
    this.controllerRefs = [];
    this.deletePodNames = [];
    this.patches = [];
    this.createCallCount = 0;
  }
}

/** What {@link slowStartBatch} reports: how many calls succeeded, and the first error if any. */
export interface SlowStartResult {
  successes: number;
  error: unknown;
}

/**
 * Calls `fn` `count` times in concurrent batches of growing size: `initialBatchSize`, then double
 * (1, 2, 4, 8, …, capped at what remains), stopping after the first batch in which any call failed.
 * A namespace without quota for 500 pods thus fails after 1 call instead of 500. For count 10 and
 * initial size 1 the batches are 1, 2, 4, 3. `error` is one error of the failing batch. Batches never
 * exceed `maxBatchSize` (the StatefulSet controller's MaxBatchSize, 500; others have no cap).
 */
export async function slowStartBatch(count: number, initialBatchSize: number, fn: () => Promise<void>, maxBatchSize = Infinity): Promise<SlowStartResult> {
  let remaining = count;
  let successes = 0;
  for (let batch = Math.min(remaining, initialBatchSize, maxBatchSize); batch > 0; batch = Math.min(2 * batch, remaining, maxBatchSize)) {
    const results = await Promise.allSettled(Array.from({ length: batch }, async () => fn()));
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    successes += batch - failed.length;
    if (failed[0]) return { successes, error: failed[0].reason };
    remaining -= batch;
  }
  return { successes, error: undefined };
}
