/**
 * Indexed Jobs: completion indexes of pods and the interval strings of `completedIndexes` /
 * `failedIndexes` (`1,3-5,7`).
 *
 * Follows kubernetes/kubernetes v1.33 pkg/controller/job/indexed_job_utils.go (`orderedIntervals`,
 * `parseIndexesFromString`, `withOrderedIndexes`, `getCompletionIndex`, `firstPendingIndexes`,
 * `addCompletionIndexEnvVariables`, `podGenerateNameWithIndex`).
 */
import type { Job, Pod, PodTemplateSpec } from '../../api/index.js';

/** Annotation (and label) naming a pod's completion index. */
export const JOB_COMPLETION_INDEX_ANNOTATION = 'batch.kubernetes.io/job-completion-index';
/** Annotation counting the counted failures of earlier pods of the same index (backoffLimitPerIndex). */
export const JOB_INDEX_FAILURE_COUNT_ANNOTATION = 'batch.kubernetes.io/job-index-failure-count';
/** Annotation counting the ignored failures (podFailurePolicy Ignore) of earlier pods of the same index. */
export const JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION = 'batch.kubernetes.io/job-index-ignored-failure-count';
/** Env variable carrying the index into the containers (downward API from the annotation). */
export const JOB_COMPLETION_INDEX_ENV = 'JOB_COMPLETION_INDEX';
/** A pod without a valid index. */
export const UNKNOWN_COMPLETION_INDEX = -1;

/** A closed interval of indexes, `first <= last`. */
export interface Interval {
  first: number;
  last: number;
}

/** `isIndexedJob`. */
export function isIndexedJob(job: Job): boolean {
  return job.spec?.completionMode === 'Indexed';
}

/**
 * `parseIndexesFromString`: the ordered intervals of a `1,3-5,7` string, keeping only indexes below
 * `completions`; malformed parts are skipped (the status is written by us, but never crash on it).
 */
export function parseIndexes(s: string | undefined, completions: number): Interval[] {
  const out: Interval[] = [];
  if (!s) return out;
  for (const part of s.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) continue;
    const first = Number(m[1]);
    let last = m[2] === undefined ? first : Number(m[2]);
    if (first >= completions || last < first) continue;
    last = Math.min(last, completions - 1);
    const prev = out[out.length - 1];
    if (prev && prev.last + 1 >= first) prev.last = Math.max(prev.last, last);
    else out.push({ first, last });
  }
  return out;
}

/** `orderedIntervals.String`: `1,3-5,7`; two neighbours are listed, not joined (`1,2`). */
export function formatIndexes(intervals: readonly Interval[]): string {
  return intervals.map((v) => (v.first === v.last ? `${v.first}` : v.first + 1 === v.last ? `${v.first},${v.last}` : `${v.first}-${v.last}`)).join(',');
}

/** `withOrderedIndexes`: the union of `intervals` and `indexes`, ordered and merged. */
export function withIndexes(intervals: readonly Interval[], indexes: Iterable<number>): Interval[] {
  const all = new Set<number>();
  for (const v of intervals) for (let i = v.first; i <= v.last; i++) all.add(i);
  for (const i of indexes) all.add(i);
  const sorted = [...all].sort((a, b) => a - b);
  const out: Interval[] = [];
  for (const i of sorted) {
    const prev = out[out.length - 1];
    if (prev && prev.last + 1 === i) prev.last = i;
    else out.push({ first: i, last: i });
  }
  return out;
}

/** `orderedIntervals.total`: how many indexes. */
export function totalIndexes(intervals: readonly Interval[]): number {
  return intervals.reduce((n, v) => n + v.last - v.first + 1, 0);
}

/** `orderedIntervals.has`. */
export function hasIndex(intervals: readonly Interval[], ix: number): boolean {
  return intervals.some((v) => v.first <= ix && ix <= v.last);
}

/**
 * `getCompletionIndex`: the pod's index from the annotation, else the label;
 * {@link UNKNOWN_COMPLETION_INDEX} when absent or not a non-negative integer.
 */
export function getCompletionIndex(pod: Pod): number {
  const v = pod.metadata?.annotations?.[JOB_COMPLETION_INDEX_ANNOTATION] ?? pod.metadata?.labels?.[JOB_COMPLETION_INDEX_ANNOTATION];
  if (v === undefined || !/^\d+$/.test(v)) return UNKNOWN_COMPLETION_INDEX;
  return Number(v);
}

/** A valid index of a job with `completions` completions. */
export function isValidIndex(ix: number, completions: number): boolean {
  return ix >= 0 && ix < completions;
}

/**
 * `firstPendingIndexes`: up to `count` lowest indexes below `completions` that are neither in
 * `excluded` (succeeded/failed indexes) nor held by an active pod (`activeIndexes`).
 */
export function firstPendingIndexes(count: number, completions: number, excluded: readonly Interval[][], activeIndexes: ReadonlySet<number>, skip: (ix: number) => boolean = () => false): number[] {
  const out: number[] = [];
  for (let ix = 0; ix < completions && out.length < count; ix++) {
    if (activeIndexes.has(ix) || excluded.some((iv) => hasIndex(iv, ix)) || skip(ix)) continue;
    out.push(ix);
  }
  return out;
}

/** Reads a non-negative integer annotation, 0 when absent or malformed. */
export function intAnnotation(pod: Pod | undefined, key: string): number {
  const v = pod?.metadata?.annotations?.[key];
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : 0;
}

/**
 * The template of the pod for index `ix` (upstream's `addCompletionIndexAnnotation`,
 * `addCompletionIndexLabel`, `addCompletionIndexEnvVariables`, hostname `<job>-<ix>`), with the
 * per-index failure counts when the job has backoffLimitPerIndex. `template` is not modified.
 */
export function templateForIndex(job: Job, template: PodTemplateSpec, ix: number, failureCounts?: { failed: number; ignored: number }): PodTemplateSpec {
  const t = structuredClone(template);
  const metadata = (t.metadata ??= {});
  metadata.annotations = { ...metadata.annotations, [JOB_COMPLETION_INDEX_ANNOTATION]: String(ix) };
  metadata.labels = { ...metadata.labels, [JOB_COMPLETION_INDEX_ANNOTATION]: String(ix) };
  if (failureCounts) {
    metadata.annotations[JOB_INDEX_FAILURE_COUNT_ANNOTATION] = String(failureCounts.failed);
    if (failureCounts.ignored > 0) metadata.annotations[JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION] = String(failureCounts.ignored);
  }
  const spec = (t.spec ??= { containers: [] });
  // `podGenerateNameWithIndex` + hostname: DNS-stable names for peers behind a headless service.
  spec.hostname ??= `${job.metadata?.name ?? ''}-${ix}`;
  const env = { name: JOB_COMPLETION_INDEX_ENV, valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${JOB_COMPLETION_INDEX_ANNOTATION}']` } } };
  for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
    if (c.env?.some((e) => e.name === JOB_COMPLETION_INDEX_ENV)) continue;
    c.env = [...(c.env ?? []), env];
  }
  return t;
}
