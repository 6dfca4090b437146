/**
 * CronJobs (batch/v1), served with their status subresource. Nothing schedules them yet: the
 * CronJob controller (Jobs named `<name>-<minutes since the epoch>`, history limits, status.active
 * and lastScheduleTime) is a later issue and only adds a controller; the schedule it will follow is
 * parsed by machinery/cron, as validated here.
 *
 * Followed (v1.33): pkg/apis/batch/v1/defaults.go (SetDefaults_CronJob; the job template gets only
 * the generated nested defaults, not SetDefaults_Job), pkg/registry/batch/cronjob/strategy.go (status
 * reset on create, kept on update, generation bumps on spec change, Background deletion in batch/v1,
 * the status strategy keeps spec and validates nothing), pkg/apis/batch/validation/validation.go
 * (ValidateCronJobCreate with the 52-character name limit, ValidateCronJobUpdate, validateCronJobSpec,
 * validateScheduleFormat, validateTimeZone, validateConcurrencyPolicy, ValidateJobTemplateSpec),
 * pkg/printers/internalversion/printers.go (printCronJob).
 *
 * Not done: the warnings upstream returns (a name that is not a DNS label, `TZ` in the schedule).
 */
import { CRON_JOBS } from '../../../api/catalogue/index.js';
import type { CronJob, CronJobSpec, JobSpec } from '../../../api/index.js';
import { scheduleError, loadLocationError } from '../../../machinery/cron/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { formatLabelSelector } from '../../../machinery/labels/index.js';
import { validateNonnegativeField } from '../../../machinery/validation/index.js';
import { resourceInfo, type ResourceStrategy, type TableRowData } from '../strategy.js';
import { specStatusPreparation, type ApiObject } from './helpers.js';
import { defaultJobSpecTemplate, validateJobSpecFields } from './job-validation.js';
import { JOB_SELECTOR_COLUMN } from './jobs.js';
import { AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN, NAME_COLUMN, column, layoutContainerCells, translateTimestampSince } from './table-helpers.js';

type CronJobObject = ApiObject<CronJob>;

/** Jobs of a CronJob are named `<name>-<11 characters>`, and a Job name is at most 63 characters. */
const MAX_CRON_JOB_NAME_LENGTH = 63 - 11;

/** `validTimeZoneCharacters`: each part of a zone name (IANA theory.html, plus digits and `+` for legacy names). */
const TIME_ZONE_PART = /^[A-Za-z.\-_0-9+]{1,14}$/;

/** `SetDefaults_CronJob`: concurrencyPolicy Allow, suspend false, history limits 3 and 1; the job template's nested defaults. */
export function defaultCronJob(cj: CronJob): void {
  const spec = (cj.spec ??= {} as CronJobSpec);
  spec.concurrencyPolicy ||= 'Allow';
  spec.suspend ??= false;
  spec.successfulJobsHistoryLimit ??= 3;
  spec.failedJobsHistoryLimit ??= 1;
  const template = (spec.jobTemplate ??= {});
  defaultJobSpecTemplate((template.spec ??= {} as JobSpec));
}

/**
 * `validateScheduleFormat`: robfig's ParseStandard error, and no `TZ` in the schedule — unless the
 * stored schedule already had one (then not together with timeZone).
 */
function validateSchedule(schedule: string, allowTZ: boolean, timeZone: string | undefined): FieldError[] {
  const path = 'spec.schedule';
  const errs: FieldError[] = [];
  const why = scheduleError(schedule);
  if (why !== undefined) errs.push(field.invalid(path, schedule, why));
  if (schedule.includes('TZ')) {
    if (!allowTZ) errs.push(field.invalid(path, schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
    else if (timeZone !== undefined) errs.push(field.invalid(path, schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
  }
  return errs;
}

/** `validateTimeZone`: non-empty, IANA-shaped parts, not `Local`, and a zone Go's LoadLocation knows. */
export function validateTimeZone(tz: string | undefined): FieldError[] {
  const path = 'spec.timeZone';
  if (tz === undefined) return [];
  if (tz === '') return [field.invalid(path, tz, 'timeZone must be nil or non-empty string')];
  for (const part of tz.split('/')) {
    if (part === '.' || part === '..' || part.startsWith('-') || !TIME_ZONE_PART.test(part)) return [field.invalid(path, tz, `unknown time zone ${tz}`)];
  }
  const errs: FieldError[] = [];
  if (tz.toLowerCase() === 'local') errs.push(field.invalid(path, tz, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'));
  const why = loadLocationError(tz);
  if (why !== undefined) errs.push(field.invalid(path, tz, why));
  return errs;
}

/**
 * `ValidateJobTemplateSpec`: the job template's spec as a Job's (at `spec.jobTemplate.spec`), with
 * no selector (`` `selector` will be auto-generated``) and no manualSelector.
 */
function validateJobTemplate(spec: JobSpec): FieldError[] {
  const path = 'spec.jobTemplate.spec';
  const errs = validateJobSpecFields(spec, path);
  if (spec.selector) errs.push(field.invalid(`${path}.selector`, spec.selector, '`selector` will be auto-generated'));
  if (spec.manualSelector === true) errs.push(field.notSupported(`${path}.manualSelector`, true, ['nil', 'false']));
  return errs;
}

/**
 * `validateCronJobSpec`, in upstream's order: schedule, startingDeadlineSeconds ≥ 0, timeZone (only
 * when new or changed), concurrencyPolicy, the job template, history limits ≥ 0.
 */
function validateCronJobSpec(cj: CronJob, old: CronJob | undefined): FieldError[] {
  const spec = cj.spec ?? ({} as Partial<CronJobSpec>);
  const errs: FieldError[] = [];
  const schedule = spec.schedule ?? '';
  if (schedule === '') errs.push(field.required('spec.schedule'));
  else errs.push(...validateSchedule(schedule, (old?.spec?.schedule ?? '').includes('TZ'), spec.timeZone ?? undefined));
  if (spec.startingDeadlineSeconds !== undefined && spec.startingDeadlineSeconds !== null) {
    errs.push(...validateNonnegativeField(spec.startingDeadlineSeconds, 'spec.startingDeadlineSeconds'));
  }
  if (!old || old.spec?.timeZone !== spec.timeZone) errs.push(...validateTimeZone(spec.timeZone ?? undefined));
  const policy = spec.concurrencyPolicy ?? '';
  if (policy === '') errs.push(field.required('spec.concurrencyPolicy'));
  else if (!['Allow', 'Forbid', 'Replace'].includes(policy)) errs.push(field.notSupported('spec.concurrencyPolicy', policy, ['Allow', 'Forbid', 'Replace']));
  errs.push(...validateJobTemplate(spec.jobTemplate?.spec ?? ({} as JobSpec)));
  for (const k of ['successfulJobsHistoryLimit', 'failedJobsHistoryLimit'] as const) {
    const v = spec[k];
    if (v !== undefined && v !== null) errs.push(...validateNonnegativeField(v, `spec.${k}`));
  }
  return errs;
}

/** `ValidateCronJobCreate` without the generic ObjectMeta checks: the spec, and a name of at most 52 characters. */
export function validateCronJob(cj: CronJob): FieldError[] {
  const errs = validateCronJobSpec(cj, undefined);
  const name = cj.metadata?.name ?? '';
  if (name.length > MAX_CRON_JOB_NAME_LENGTH) errs.push(field.invalid('metadata.name', name, `must be no more than ${MAX_CRON_JOB_NAME_LENGTH} characters`));
  return errs;
}

/** `printCronJob`: Name, Schedule, Timezone (`<none>`), Suspend (`True`/`False`), Active, Last Schedule (`<none>`), Age; wide: Containers, Images, Selector. */
export function printCronJob(cj: CronJob, now: number): TableRowData {
  const spec = cj.spec;
  const [names, images] = layoutContainerCells(spec?.jobTemplate?.spec?.template?.spec?.containers);
  const suspend = spec?.suspend;
  const last = cj.status?.lastScheduleTime;
  return {
    cells: [
      cj.metadata?.name ?? '',
      spec?.schedule ?? '',
      spec?.timeZone ?? '<none>',
      suspend === undefined || suspend === null ? '<unset>' : suspend ? 'True' : 'False',
      cj.status?.active?.length ?? 0,
      last ? translateTimestampSince(last, now) : '<none>',
      translateTimestampSince(cj.metadata?.creationTimestamp, now),
      names,
      images,
      formatLabelSelector(spec?.jobTemplate?.spec?.selector),
    ],
  };
}

/** The cronjobs strategy. */
export const cronJobStrategy: ResourceStrategy<CronJobObject> = {
  info: resourceInfo(CRON_JOBS),
  hasStatus: true,
  defaults: defaultCronJob,
  ...specStatusPreparation(() => ({})),
  validate: validateCronJob,
  // The 52-character limit is not checked on update, so that older CronJobs can still be changed and deleted.
  validateUpdate: (cj, old) => validateCronJobSpec(cj, old),
  validateStatusUpdate: () => [],
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  table: {
    columns: [
      NAME_COLUMN,
      column('Schedule', 'string', 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.'),
      column(
        'Timezone',
        'string',
        'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kube-controller-manager process. The set of valid time zone names and the time zone offset is loaded from the system-wide time zone database by the API server during CronJob validation and the controller manager during execution. If no system-wide time zone database can be found a bundled version of the database is used instead. If the time zone name becomes invalid during the lifetime of a CronJob or due to a change in host configuration, the controller will stop creating new new Jobs and will create a system event with the reason UnknownTimeZone. More information can be found in https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones',
      ),
      column('Suspend', 'boolean', 'This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.'),
      column('Active', 'integer', 'A list of pointers to currently running jobs.'),
      column('Last Schedule', 'string', 'Information when was the last time the job was successfully scheduled.'),
      AGE_COLUMN,
      CONTAINERS_COLUMN,
      IMAGES_COLUMN,
      JOB_SELECTOR_COLUMN,
    ],
    row: printCronJob,
  },
};
