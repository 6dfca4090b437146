/**
 * Schedule arithmetic and Job construction of the CronJob controller: kubernetes/kubernetes
 * pkg/controller/cronjob/utils.go (v1.33): `mostRecentScheduleTime`, `nextScheduleTime`,
 * `nextScheduleTimeDuration`, `getJobFromTemplate2`, `getTimeHashInMinutes`, `byJobStartTime`,
 * and `formatSchedule` of cronjob_controllerv2.go.
 *
 * Instants are milliseconds since the epoch; durations are milliseconds.
 */
import type { CronJob, Job, KubeObject, ObjectReference } from '../../api/index.js';
import { formatRFC3339In, loadLocationError, nextActivation, type CronSchedule } from '../../machinery/cron/index.js';
import { deepCopy, newControllerRef } from '../../machinery/meta/index.js';
import { formatTime, parseTime } from '../../util/clock/index.js';

/** The CronJob kind, for controllerRefs and events. */
export const CRONJOB_KIND = { apiVersion: 'batch/v1', kind: 'CronJob' } as const;

/** `batchv1.CronJobScheduledTimestampAnnotation`: the scheduled time, RFC 3339 in the CronJob's zone. */
export const CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION = 'batch.kubernetes.io/cronjob-scheduled-timestamp';

/** `nextScheduleDelta`: padding added to every requeue for clock skew, ms. */
export const NEXT_SCHEDULE_DELTA_MS = 100;

/** More missed start times than this since the last schedule is reported as TooManyMissedTimes. */
export const MAX_MISSED_SCHEDULES = 100;

/** `missedSchedulesType`. */
export type MissedSchedules = 'none' | 'few' | 'many';

/** What {@link mostRecentScheduleTime} found. */
export interface MostRecentSchedule {
  /** The last schedule time, or the creation time, raised to now − startingDeadlineSeconds if asked. */
  earliestTime: number;
  /** The most recent activation at or before now, if any. */
  mostRecentTime?: number;
  missedSchedules: MissedSchedules;
}

const earliestOf = (cj: CronJob): number => parseTime(cj.status?.lastScheduleTime) ?? parseTime(cj.metadata?.creationTimestamp) ?? 0;

/**
 * `mostRecentScheduleTime`: the most recent activation of `schedule` after the CronJob's last
 * schedule (or creation) time and at or before `now`, found without listing every missed one: the
 * number missed is estimated from the first two activations, and only the last few are walked.
 * @throws Error `time difference between two schedules is less than 1 second` for schedules whose
 *   activations do not exist (`59 23 31 2 *`).
 */
export function mostRecentScheduleTime(cj: CronJob, now: number, schedule: CronSchedule, includeStartingDeadlineSeconds: boolean, localZone?: string): MostRecentSchedule {
  let earliestTime = earliestOf(cj);
  const deadline = cj.spec?.startingDeadlineSeconds;
  if (includeStartingDeadlineSeconds && deadline !== undefined && deadline !== null) {
    // The controller is not going to schedule anything before this point.
    earliestTime = Math.max(earliestTime, now - deadline * 1000);
  }
  const invalid = (): never => {
    throw new Error('time difference between two schedules is less than 1 second');
  };
  const t1 = nextActivation(schedule, earliestTime, localZone);
  if (t1 === undefined) return invalid();
  if (now < t1) return { earliestTime, missedSchedules: 'none' };
  const t2 = nextActivation(schedule, t1, localZone);
  if (t2 !== undefined && now < t2) return { earliestTime, mostRecentTime: t1, missedSchedules: 'none' };
  if (t2 === undefined) return invalid();
  const between = Math.round((t2 - t1) / 1000);
  if (between < 1) return invalid();
  const elapsed = Math.trunc((now - t1) / 1000);
  const missed = Math.trunc(elapsed / between) + 1;
  // Start one interval before the estimate, and let the schedule find the real times (irregular
  // schedules such as `30 6-16/4 * * 1-5`, and @every, need it).
  const potentialEarliest = t1 + (missed - 2) * between * 1000;
  let mostRecentTime: number | undefined;
  for (let t = nextActivation(schedule, potentialEarliest, localZone); t !== undefined && t <= now; t = nextActivation(schedule, t, localZone)) mostRecentTime = t;
  const missedSchedules: MissedSchedules = missed > MAX_MISSED_SCHEDULES ? 'many' : missed > 0 ? 'few' : 'none';
  return mostRecentTime === undefined ? { earliestTime, missedSchedules } : { earliestTime, mostRecentTime, missedSchedules };
}

/**
 * `nextScheduleTimeDuration`: ms from `now` to the activation after the most recent one (or after
 * the earliest time when none was missed, or after now), plus {@link NEXT_SCHEDULE_DELTA_MS};
 * undefined when the schedule has no next activation.
 */
export function nextScheduleTimeDuration(cj: CronJob, now: number, schedule: CronSchedule, localZone?: string): number | undefined {
  let from: number;
  try {
    const r = mostRecentScheduleTime(cj, now, schedule, false, localZone);
    from = r.mostRecentTime ?? (r.missedSchedules === 'none' ? r.earliestTime : now);
  } catch {
    // Still requeue at some point: aim for the next slot from now.
    from = now;
  }
  const next = nextActivation(schedule, from, localZone);
  return next === undefined ? undefined : next + NEXT_SCHEDULE_DELTA_MS - now;
}

/**
 * `formatSchedule`: the schedule with `TZ=<timeZone> ` in front when the CronJob names a valid zone.
 * A schedule already mentioning TZ is used as is (after `onUnsupported`, upstream's
 * UnsupportedSchedule warning).
 */
export function formatSchedule(cj: CronJob, onUnsupported?: (message: string) => void): string {
  const schedule = cj.spec?.schedule ?? '';
  if (schedule.includes('TZ')) {
    onUnsupported?.(`CRON_TZ or TZ used in schedule ${JSON.stringify(schedule)} is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details`);
    return schedule;
  }
  const tz = cj.spec?.timeZone;
  if (tz !== undefined && tz !== null) {
    if (loadLocationError(tz) !== undefined) return schedule;
    return `TZ=${tz} ${schedule}`;
  }
  return schedule;
}

/** `getTimeHashInMinutes`: the scheduled time in whole minutes since the epoch. */
export function getTimeHashInMinutes(scheduledTime: number): number {
  return Math.floor(scheduledTime / 60_000);
}

/** `getJobName`: `<cronjob>-<scheduled time in minutes since the epoch>`. */
export function getJobName(cj: CronJob, scheduledTime: number): string {
  return `${cj.metadata?.name ?? ''}-${getTimeHashInMinutes(scheduledTime)}`;
}

/**
 * `getJobFromTemplate2`: the Job to create for `scheduledTime`: the template's labels and
 * annotations, plus the scheduled-timestamp annotation (RFC 3339 in the CronJob's `timeZone`, UTC
 * without one), the deterministic name, the scheduled time as creationTimestamp (the server replaces
 * it) and the CronJob as controller.
 * @throws Error when `timeZone` is not a zone (`unknown time zone X`).
 */
export function getJobFromTemplate2(cj: CronJob, scheduledTime: number): Job {
  const template = cj.spec?.jobTemplate;
  const labels = { ...(template?.metadata?.labels ?? {}) };
  const annotations: Record<string, string> = { ...(template?.metadata?.annotations ?? {}) };
  const zone = cj.spec?.timeZone ?? '';
  const why = loadLocationError(zone);
  if (why !== undefined) throw new Error(why);
  annotations[CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION] = formatRFC3339In(zone, scheduledTime);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      ...(Object.keys(labels).length > 0 ? { labels } : {}),
      annotations,
      name: getJobName(cj, scheduledTime),
      namespace: cj.metadata?.namespace ?? '',
      creationTimestamp: formatTime(scheduledTime),
      ownerReferences: [newControllerRef(cj as KubeObject, CRONJOB_KIND)],
    },
    spec: deepCopy(template?.spec ?? { template: {} }),
  };
}

/** `getRef`: an ObjectReference to a Job (as `ref.GetReference`). */
export function getRef(job: Job): ObjectReference {
  const m = job.metadata ?? {};
  return {
    kind: 'Job',
    namespace: m.namespace ?? '',
    name: m.name ?? '',
    uid: m.uid ?? '',
    apiVersion: 'batch/v1',
    ...(m.resourceVersion ? { resourceVersion: m.resourceVersion } : {}),
  };
}

/** `byJobStartTime`: by `status.startTime` (Jobs without one last), then by name. */
export function compareJobsByStartTime(a: Job, b: Job): number {
  const sa = parseTime(a.status?.startTime);
  const sb = parseTime(b.status?.startTime);
  if (sa === undefined && sb !== undefined) return 1;
  if (sa !== undefined && sb === undefined) return -1;
  if (sa === sb) return (a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : (a.metadata?.name ?? '') > (b.metadata?.name ?? '') ? 1 : 0;
  return (sa ?? 0) - (sb ?? 0);
}

/** `inActiveList`: the CronJob's status.active holds a Job with this UID. */
export function inActiveList(cj: CronJob, uid: string | undefined): boolean {
  return (cj.status?.active ?? []).some((r) => r.uid === uid);
}

/** `inActiveListByName`: the CronJob's status.active holds a Job of this namespace and name. */
export function inActiveListByName(cj: CronJob, namespace: string, name: string): boolean {
  return (cj.status?.active ?? []).some((r) => r.name === name && (r.namespace ?? '') === namespace);
}

/** `deleteFromActiveList`: drops the Job with this UID from status.active (of a copy). */
export function deleteFromActiveList(cj: CronJob, uid: string | undefined): void {
  cj.status ??= {};
  cj.status.active = (cj.status.active ?? []).filter((r) => r.uid !== uid);
}
