/**
 * CronJob defaulting (pkg/apis/batch/v1/defaults_test.go TestSetDefaultCronJob), validation
 * (pkg/apis/batch/validation/validation_test.go TestValidateCronJob, TestValidateCronJobScheduleTZ,
 * TestValidateCronJobSpec time zone cases, with upstream's paths and messages), update and status
 * rules, and the printer (pkg/printers/internalversion/printers_test.go TestPrintCronJob).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CronJob as WireCronJob, CronJobSpec } from '../../../api/index.js';
import { fieldErrorString, type FieldError } from '../../../machinery/errors/index.js';
import { parseTime } from '../../../util/clock/index.js';
import { cronJobStrategy } from './cronjobs.js';
import type { ApiObject } from './helpers.js';

type CronJob = ApiObject<WireCronJob>;

const msgs = (errs: FieldError[]): string[] => errs.map(fieldErrorString);
const clone = <T>(v: T): T => structuredClone(v);
const NOW = parseTime('2025-01-01T00:10:00Z')!;

/** What `kubectl create cronjob hello --image=busybox --schedule="*\/1 * * * *" -- date` sends. */
function raw(): CronJob {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'hello', namespace: 'default' },
    spec: {
      schedule: '*/1 * * * *',
      jobTemplate: {
        metadata: { name: 'hello' },
        spec: { template: { spec: { containers: [{ name: 'hello', image: 'busybox', command: ['date'] }], restartPolicy: 'OnFailure' } } },
      },
    },
  };
}

function created(mutate: (c: CronJob) => void = () => {}): CronJob {
  const c = raw();
  mutate(c);
  cronJobStrategy.defaults(c);
  cronJobStrategy.prepareForCreate(c, NOW);
  return c;
}

const validate = (mutate: (c: CronJob) => void): string[] => msgs(cronJobStrategy.validate(created(mutate)));
const spec = (c: CronJob): CronJobSpec => c.spec!;

describe('defaults', () => {
  test('SetDefaults_CronJob; the job template gets nested defaults only', () => {
    const c = created();
    const { jobTemplate, ...rest } = spec(c);
    assert.deepEqual(rest, { schedule: '*/1 * * * *', concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
    const { template, ...jobRest } = jobTemplate.spec!;
    assert.deepEqual(jobRest, {}, 'no completions, parallelism, backoffLimit or selector: those come when the controller creates the Job');
    assert.equal(template.spec?.dnsPolicy, 'ClusterFirst');
    assert.deepEqual(c.status, {});
    assert.equal(c.metadata?.generation, 1);
  });
});

describe('validate', () => {
  test('the kubectl create cronjob CronJob is valid; descriptors too', () => {
    assert.deepEqual(validate(() => {}), []);
    assert.deepEqual(validate((c) => (c.spec!.schedule = '@hourly')), []);
    assert.deepEqual(validate((c) => (c.spec!.schedule = '0 9 * * MON-FRI')), []);
  });

  test('schedule: required, and robfig/cron errors as upstream reports them', () => {
    assert.deepEqual(validate((c) => (c.spec!.schedule = '')), ['spec.schedule: Required value']);
    assert.deepEqual(validate((c) => (c.spec!.schedule = 'error')), ['spec.schedule: Invalid value: "error": expected exactly 5 fields, found 1: [error]']);
    assert.deepEqual(validate((c) => (c.spec!.schedule = '61 * * * *')), ['spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61']);
    assert.deepEqual(validate((c) => (c.spec!.schedule = '@every 5m')), []);
  });

  test('TZ in the schedule: rejected on create, allowed on update when the stored schedule had it, never with timeZone', () => {
    assert.deepEqual(validate((c) => (c.spec!.schedule = 'TZ=UTC 0 * * * *')), [
      'spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
    ]);
    assert.deepEqual(validate((c) => (c.spec!.schedule = 'CRON_TZ=Mars/Base 0 * * * *')), [
      'spec.schedule: Invalid value: "CRON_TZ=Mars/Base 0 * * * *": provided bad location Mars/Base: unknown time zone Mars/Base',
      'spec.schedule: Invalid value: "CRON_TZ=Mars/Base 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
    ]);
    const old = created();
    old.spec!.schedule = 'TZ=UTC 0 * * * *';
    const next = clone(old);
    next.spec!.schedule = 'TZ=UTC 5 * * * *';
    assert.deepEqual(msgs(cronJobStrategy.validateUpdate(next, old)), []);
    next.spec!.timeZone = 'Europe/Paris';
    assert.deepEqual(msgs(cronJobStrategy.validateUpdate(next, old)), [
      'spec.schedule: Invalid value: "TZ=UTC 5 * * * *": cannot use both timeZone field and TZ or CRON_TZ in schedule',
    ]);
  });

  test('timeZone', () => {
    assert.deepEqual(validate((c) => (c.spec!.timeZone = 'America/New_York')), []);
    assert.deepEqual(validate((c) => (c.spec!.timeZone = 'Etc/GMT+5')), []);
    assert.deepEqual(validate((c) => (c.spec!.timeZone = '')), ['spec.timeZone: Invalid value: "": timeZone must be nil or non-empty string']);
    assert.deepEqual(validate((c) => (c.spec!.timeZone = 'Local')), [
      'spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones',
    ]);
    assert.deepEqual(validate((c) => (c.spec!.timeZone = 'America/New York')), ['spec.timeZone: Invalid value: "America/New York": unknown time zone America/New York']);
    assert.deepEqual(validate((c) => (c.spec!.timeZone = 'Continent/Zone')), ['spec.timeZone: Invalid value: "Continent/Zone": unknown time zone Continent/Zone']);
    assert.deepEqual(validate((c) => (c.spec!.timeZone = '../etc/passwd')), ['spec.timeZone: Invalid value: "../etc/passwd": unknown time zone ../etc/passwd']);
  });

  test('an unchanged invalid timeZone is not re-checked on update', () => {
    const old = created();
    old.spec!.timeZone = 'Continent/Zone';
    const next = clone(old);
    next.spec!.suspend = true;
    assert.deepEqual(msgs(cronJobStrategy.validateUpdate(next, old)), []);
  });

  test('concurrencyPolicy, startingDeadlineSeconds and history limits', () => {
    assert.deepEqual(
      validate((c) => Object.assign(c.spec!, { concurrencyPolicy: 'Sometimes', startingDeadlineSeconds: -1, successfulJobsHistoryLimit: -1, failedJobsHistoryLimit: -1 })),
      [
        'spec.startingDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0',
        'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
        'spec.successfulJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0',
        'spec.failedJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0',
      ],
    );
  });

  test('the job template is validated as a Job spec, without a selector', () => {
    assert.deepEqual(validate((c) => (c.spec!.jobTemplate.spec!.template.spec!.restartPolicy = 'Always')), [
      'spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    ]);
    assert.deepEqual(
      validate((c) => {
        c.spec!.jobTemplate.spec!.selector = { matchLabels: { a: 'b' } };
        c.spec!.jobTemplate.spec!.manualSelector = true;
        c.spec!.jobTemplate.spec!.parallelism = -1;
      }),
      [
        'spec.jobTemplate.spec.parallelism: Invalid value: -1: must be greater than or equal to 0',
        'spec.jobTemplate.spec.selector: Invalid value: {"matchLabels":{"a":"b"}}: `selector` will be auto-generated',
        'spec.jobTemplate.spec.manualSelector: Unsupported value: true: supported values: "nil", "false"',
      ],
    );
  });

  test('names longer than 52 characters are rejected on create only', () => {
    const long = 'a'.repeat(53);
    assert.deepEqual(validate((c) => (c.metadata!.name = long)), [`metadata.name: Invalid value: "${long}": must be no more than 52 characters`]);
    assert.deepEqual(validate((c) => (c.metadata!.name = 'a'.repeat(52))), []);
    const old = created((c) => (c.metadata!.name = long));
    assert.deepEqual(msgs(cronJobStrategy.validateUpdate(clone(old), old)), []);
  });
});

describe('update and status', () => {
  test('spec changes bump the generation; status is kept; the status strategy keeps spec and checks nothing', () => {
    const old = created();
    const c = clone(old);
    c.spec!.suspend = true;
    c.status = { active: [{ name: 'x' }] };
    cronJobStrategy.prepareForUpdate(c, old);
    assert.equal(c.metadata?.generation, 2);
    assert.deepEqual(c.status, {});
    const s = clone(old);
    s.spec!.schedule = 'nonsense';
    s.status = { lastScheduleTime: '2025-01-01T00:00:00Z' };
    cronJobStrategy.prepareForStatusUpdate!(s, old);
    assert.equal(s.spec?.schedule, '*/1 * * * *');
    assert.deepEqual(cronJobStrategy.validateStatusUpdate!(s, old), []);
  });
});

describe('printer', () => {
  test('NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE, wide CONTAINERS IMAGES SELECTOR', () => {
    const c = created((x) => (x.metadata!.creationTimestamp = '2025-01-01T00:00:00Z'));
    assert.deepEqual(cronJobStrategy.table.row(c, NOW).cells, ['hello', '*/1 * * * *', '<none>', 'False', 0, '<none>', '10m', 'hello', 'busybox', '<none>']);
    c.spec!.timeZone = 'Etc/UTC';
    c.spec!.suspend = true;
    c.status = { active: [{ name: 'hello-1' }, { name: 'hello-2' }], lastScheduleTime: '2025-01-01T00:09:00Z' };
    assert.deepEqual(cronJobStrategy.table.row(c, NOW).cells.slice(0, 7), ['hello', '*/1 * * * *', 'Etc/UTC', 'True', 2, '60s', '10m']);
    assert.deepEqual(
      cronJobStrategy.table.columns.map((col) => `${col.name}:${col.type}:${col.priority}`),
      ['Name:string:0', 'Schedule:string:0', 'Timezone:string:0', 'Suspend:boolean:0', 'Active:integer:0', 'Last Schedule:string:0', 'Age:string:0', 'Containers:string:1', 'Images:string:1', 'Selector:string:1'],
    );
  });
});
