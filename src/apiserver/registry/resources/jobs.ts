/**
 * Jobs (batch/v1), served with their status subresource. Nothing runs them yet: the Job controller
 * (pods, finalizer tracking, conditions, status) and the TTL-after-finished controller are a later
 * issue and only add controllers; this strategy is what they will write through.
 *
 * Followed (v1.33): pkg/apis/batch/v1/defaults.go (SetDefaults_Job), pkg/registry/batch/job/strategy.go
 * (PrepareForCreate: generateSelector — selector `batch.kubernetes.io/controller-uid=<uid>` and the
 * four labels on the template — unless manualSelector, status reset, generation 1; PrepareForUpdate:
 * status kept, generation bumps on spec change; validationOptionsForJob; DefaultGarbageCollectionPolicy
 * Orphan for batch/v1; JobToSelectableFields `status.successful`; the status strategy keeps spec),
 * pkg/apis/batch/validation/validation.go (validateGeneratedSelector, ValidateJob, ValidateJobUpdate;
 * the spec rules are in job-validation.ts), pkg/printers/internalversion/printers.go (printJob as of
 * 1.33: STATUS is Complete, Failed, Terminating, Suspended, FailureTarget or Running).
 *
 * The Job's own labels: SetDefaults_Job copies the template labels to a Job that has none. Upstream
 * decodes with defaults on every read from storage, so a created Job shows the labels generateSelector
 * put on its template; here that copy is made once more after generateSelector, with the same result.
 *
 * Not done: the warnings upstream returns on create and update (a name that is not a DNS label, pod
 * template warnings), and the one its DELETE adds when no propagationPolicy is given ("child pods are
 * preserved by default when jobs are deleted…"; kubectl always sends one).
 */
import { JOBS } from '../../../api/catalogue/index.js';
import type { Job, JobSpec } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { formatLabelSelector, selectorFromLabelSelector } from '../../../machinery/labels/index.js';
import { isDNS1123Label } from '../../../machinery/validation/index.js';
import { parseTime } from '../../../util/clock/index.js';
import { resourceInfo, type ResourceStrategy, type TableRowData } from '../strategy.js';
import { specStatusPreparation, type ApiObject } from './helpers.js';
import { defaultJobSpec, validateJobSpec, validateJobSpecUpdate, validateJobStatusUpdate } from './job-validation.js';
import { AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN, NAME_COLUMN, column, humanDuration, layoutContainerCells, translateTimestampSince } from './table-helpers.js';

type JobObject = ApiObject<Job>;

/** `batch.ControllerUidLabel`: the label the generated selector selects on. */
export const CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';
/** `batch.JobNameLabel`. */
export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
/** `batch.LegacyControllerUidLabel`. */
export const LEGACY_CONTROLLER_UID_LABEL = 'controller-uid';
/** `batch.LegacyJobNameLabel`. */
export const LEGACY_JOB_NAME_LABEL = 'job-name';

/** SetDefaults_Job's copy of the template labels to a Job that has none. */
function copyTemplateLabels(job: Job): void {
  const labels = job.spec?.template?.metadata?.labels;
  const meta = (job as JobObject).metadata ?? {};
  if (labels && Object.keys(meta.labels ?? {}).length === 0) (job as JobObject).metadata = { ...meta, labels: { ...labels } };
}

/** `SetDefaults_Job`: the spec defaults (job-validation.ts) and the template labels on a Job that has no labels. */
export function defaultJob(job: Job): void {
  defaultJobSpec((job.spec ??= {} as JobSpec));
  copyTemplateLabels(job);
}

/**
 * `generateSelector`: the template gets `job-name` and `batch.kubernetes.io/job-name` (the Job's
 * name) and `controller-uid` and `batch.kubernetes.io/controller-uid` (its uid) where absent, and the
 * selector `matchLabels[batch.kubernetes.io/controller-uid] = <uid>` where absent. Labels the user set
 * to other values are kept, and validation then rejects them.
 */
export function generateSelector(job: JobObject): void {
  const name = job.metadata?.name ?? '';
  const uid = job.metadata?.uid ?? '';
  const spec = (job.spec ??= {} as JobSpec);
  const tmeta = (spec.template.metadata ??= {});
  const labels = (tmeta.labels ??= {});
  for (const k of [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL]) labels[k] ??= name;
  for (const k of [LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL]) labels[k] ??= uid;
  const selector = (spec.selector ??= {});
  const matchLabels = (selector.matchLabels ??= {});
  matchLabels[CONTROLLER_UID_LABEL] ??= uid;
}

/** `ValidateHasLabel`: `<path>.labels[<key>]: Required value: <want>` when absent, `Invalid value: {…}: must be '<want>'` when different. */
function validateHasLabel(labels: Record<string, string> | undefined, path: string, key: string, want: string): FieldError[] {
  const have = labels?.[key];
  if (have === undefined) return [field.required(`${path}.labels[${key}]`, want)];
  return have === want ? [] : [field.invalid(`${path}.labels[${key}]`, labels, `must be '${want}'`)];
}

/**
 * `validateGeneratedSelector`: unless manualSelector, the template carries the generated labels (the
 * prefixed ones only when `requirePrefixedLabels`: always on create, on update only for Jobs that
 * already had both) and the selector matches them (`` `selector` not auto-generated``).
 */
function validateGeneratedSelector(job: Job, requirePrefixedLabels: boolean): FieldError[] {
  const spec = job.spec;
  if (spec?.manualSelector === true || !spec?.selector) return [];
  const uid = job.metadata?.uid ?? '';
  const name = job.metadata?.name ?? '';
  const errs: FieldError[] = uid === '' ? [field.required('metadata.uid')] : [];
  const labels = spec.template?.metadata?.labels;
  const expected: Record<string, string> = {};
  const want: [string, string][] = [
    [LEGACY_CONTROLLER_UID_LABEL, uid],
    [LEGACY_JOB_NAME_LABEL, name],
    ...(requirePrefixedLabels ? ([[CONTROLLER_UID_LABEL, uid], [JOB_NAME_LABEL, name]] as [string, string][]) : []),
  ];
  for (const [k, v] of want) {
    errs.push(...validateHasLabel(labels, 'spec.template.metadata', k, v));
    expected[k] = v;
  }
  try {
    if (!selectorFromLabelSelector(spec.selector).matches(expected)) errs.push(field.invalid('spec.selector', spec.selector, '`selector` not auto-generated'));
  } catch {
    // An invalid selector is reported by validateJobSpec.
  }
  return errs;
}

/**
 * `ValidateJob` without the generic ObjectMeta checks: the generated selector, the spec, and for an
 * Indexed Job the hostname of its last pod (`<name>-<completions-1>`) must be a DNS label.
 */
function validateJob(job: Job, requirePrefixedLabels: boolean): FieldError[] {
  const spec = job.spec ?? ({} as JobSpec);
  const errs = validateGeneratedSelector(job, requirePrefixedLabels);
  errs.push(...validateJobSpec(spec, 'spec'));
  const completions = spec.completions ?? 0;
  if (spec.completionMode === 'Indexed' && completions > 0) {
    const name = job.metadata?.name ?? '';
    const hostname = `${name}-${completions - 1}`;
    if (isDNS1123Label(hostname).length > 0) errs.push(field.invalid('metadata.name', name, `will not able to create pod with invalid DNS label: ${hostname}`));
  }
  return errs;
}

/** `ValidateUpdate`: the new Job as on create, then the immutable fields (the prefixed labels required only if the stored Job had both). */
function validateJobUpdate(job: Job, old: Job): FieldError[] {
  const oldLabels = old.spec?.template?.metadata?.labels ?? {};
  const requirePrefixed = JOB_NAME_LABEL in oldLabels && CONTROLLER_UID_LABEL in oldLabels;
  return [...validateJob(job, requirePrefixed), ...validateJobSpecUpdate(job, old)];
}

const hasCondition = (job: Job, type: string): boolean => (job.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');

/** printJob's STATUS cell. */
function jobStatus(job: Job): string {
  if (hasCondition(job, 'Complete')) return 'Complete';
  if (hasCondition(job, 'Failed')) return 'Failed';
  if (job.metadata?.deletionTimestamp) return 'Terminating';
  if (hasCondition(job, 'Suspended')) return 'Suspended';
  if (hasCondition(job, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

/** printJob's COMPLETIONS cell: `succeeded/completions`; without completions `n/1`, or `n/1 of P` when parallelism > 1. */
function jobCompletions(job: Job): string {
  const succeeded = job.status?.succeeded ?? 0;
  const completions = job.spec?.completions;
  if (completions !== undefined && completions !== null) return `${succeeded}/${completions}`;
  const parallelism = job.spec?.parallelism ?? 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

/** printJob's DURATION cell: empty before the start, then the time since it, then completion minus start. */
function jobDuration(job: Job, now: number): string {
  const start = parseTime(job.status?.startTime);
  if (start === undefined) return '';
  const end = parseTime(job.status?.completionTime);
  return end === undefined ? translateTimestampSince(job.status?.startTime, now) : humanDuration(end - start);
}

/** `printJob`: Name, Status, Completions, Duration, Age; wide: Containers, Images, Selector. */
export function printJob(job: Job, now: number): TableRowData {
  const [names, images] = layoutContainerCells(job.spec?.template?.spec?.containers);
  return {
    cells: [
      job.metadata?.name ?? '',
      jobStatus(job),
      jobCompletions(job),
      jobDuration(job, now),
      translateTimestampSince(job.metadata?.creationTimestamp, now),
      names,
      images,
      formatLabelSelector(job.spec?.selector),
    ],
  };
}

/** The wide-only Selector column of Jobs and CronJobs (`batchv1.JobSpec{}.SwaggerDoc()["selector"]`). */
export const JOB_SELECTOR_COLUMN = column(
  'Selector',
  'string',
  'A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
  1,
);

const preparation = specStatusPreparation<NonNullable<Job['status']>, JobObject>(() => ({}));

/** The jobs strategy. */
export const jobStrategy: ResourceStrategy<JobObject> = {
  info: resourceInfo(JOBS),
  hasStatus: true,
  defaults: defaultJob,
  ...preparation,
  prepareForCreate(job, now) {
    if (job.spec?.manualSelector !== true) generateSelector(job);
    copyTemplateLabels(job);
    preparation.prepareForCreate(job, now);
  },
  validate: (job) => validateJob(job, true),
  validateUpdate: validateJobUpdate,
  validateStatusUpdate: validateJobStatusUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  // batch/v1 keeps the pods of a deleted Job unless the request says otherwise, for backward compatibility.
  defaultGarbageCollectionPolicy: 'Orphan',
  fieldSelectors: {
    'status.successful': (job) => String(job.status?.succeeded ?? 0),
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('Status', 'string', 'Status of the job.'),
      column(
        'Completions',
        'string',
        'The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs.',
      ),
      column('Duration', 'string', 'Time required to complete the job.'),
      AGE_COLUMN,
      CONTAINERS_COLUMN,
      IMAGES_COLUMN,
      JOB_SELECTOR_COLUMN,
    ],
    row: printJob,
  },
};
