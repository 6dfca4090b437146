/**
 * Job defaulting (pkg/apis/batch/v1/defaults_test.go TestSetDefaultJob), selector generation
 * (pkg/registry/batch/job/strategy_test.go TestJobStrategy*), validation
 * (pkg/apis/batch/validation/validation_test.go TestValidateJob, TestValidateJobUpdate,
 * TestValidateJobUpdateStatus cases, with upstream's paths and messages) and the printer
 * (pkg/printers/internalversion/printers_test.go TestPrintJob).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Job as WireJob, JobSpec } from '../../../api/index.js';
import { fieldErrorString, type FieldError } from '../../../machinery/errors/index.js';
import { parseTime } from '../../../util/clock/index.js';
import type { ApiObject } from './helpers.js';
import { jobStrategy } from './jobs.js';

type Job = ApiObject<WireJob>;

const msgs = (errs: FieldError[]): string[] => errs.map(fieldErrorString);
const clone = <T>(v: T): T => structuredClone(v);
const NOW = parseTime('2025-01-01T00:10:00Z')!;
const UID = '1a2b3c4d-0000-4000-8000-000000000001';

/** What `kubectl create job pi --image=perl -- perl -e 1` sends. */
function raw(): Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'pi', namespace: 'default', uid: UID },
    spec: { template: { spec: { containers: [{ name: 'pi', image: 'perl:5.34', command: ['perl', '-e', '1'] }], restartPolicy: 'Never' } } },
  };
}

function created(mutate: (j: Job) => void = () => {}): Job {
  const j = raw();
  mutate(j);
  jobStrategy.defaults(j);
  jobStrategy.prepareForCreate(j, NOW);
  return j;
}

const validate = (mutate: (j: Job) => void): string[] => msgs(jobStrategy.validate(created(mutate)));
const spec = (j: Job): JobSpec => j.spec!;

describe('defaults and the generated selector', () => {
  test('a kubectl create job Job as upstream stores it', () => {
    const j = created();
    const generated = { 'batch.kubernetes.io/controller-uid': UID, 'batch.kubernetes.io/job-name': 'pi', 'controller-uid': UID, 'job-name': 'pi' };
    assert.deepEqual(j.metadata?.labels, generated, "the Job's labels are its template's (SetDefaults_Job, run again on read upstream)");
    const { template, ...rest } = spec(j);
    assert.deepEqual(rest, {
      completions: 1,
      parallelism: 1,
      backoffLimit: 6,
      completionMode: 'NonIndexed',
      suspend: false,
      podReplacementPolicy: 'TerminatingOrFailed',
      manualSelector: false,
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': UID } },
    });
    assert.deepEqual(template.metadata?.labels, generated);
    assert.equal(template.spec?.terminationGracePeriodSeconds, 30);
    assert.deepEqual(j.status, {});
    assert.equal(j.metadata?.generation, 1);
  });

  test('parallelism alone keeps completions unset; backoffLimit with backoffLimitPerIndex; Failed replacement with a podFailurePolicy', () => {
    const j = created((x) => {
      x.spec!.parallelism = 3;
      x.spec!.backoffLimitPerIndex = 1;
      x.spec!.podFailurePolicy = { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' } as { type: string; status: string }] }] };
    });
    assert.equal(spec(j).completions, undefined);
    assert.equal(spec(j).backoffLimit, 2147483647);
    assert.equal(spec(j).podReplacementPolicy, 'Failed');
    assert.equal(spec(j).podFailurePolicy?.rules[0]?.onPodConditions?.[0]?.status, 'True');
  });

  test('labels the user set are kept (and then rejected); the Job keeps its own labels', () => {
    const j = created((x) => {
      x.metadata!.labels = { team: 'a' };
      x.spec!.template.metadata = { labels: { 'job-name': 'other', app: 'pi' } };
    });
    assert.deepEqual(j.metadata?.labels, { team: 'a' });
    assert.equal(spec(j).template.metadata?.labels?.['job-name'], 'other');
    assert.deepEqual(msgs(jobStrategy.validate(j)), [
      `spec.template.metadata.labels[job-name]: Invalid value: {"job-name":"other","app":"pi","batch.kubernetes.io/job-name":"pi","controller-uid":"${UID}","batch.kubernetes.io/controller-uid":"${UID}"}: must be 'pi'`,
    ]);
    const foreign = created((x) => (x.spec!.selector = { matchLabels: { 'controller-uid': 'someone-else' } }));
    assert.deepEqual(msgs(jobStrategy.validate(foreign)), [
      `spec.selector: Invalid value: {"matchLabels":{"controller-uid":"someone-else","batch.kubernetes.io/controller-uid":"${UID}"}}: \`selector\` not auto-generated`,
      `spec.template.metadata.labels: Invalid value: {"job-name":"pi","batch.kubernetes.io/job-name":"pi","controller-uid":"${UID}","batch.kubernetes.io/controller-uid":"${UID}"}: \`selector\` does not match template \`labels\``,
    ]);
  });

  test('manualSelector: no generation, the selector is required', () => {
    const j = created((x) => (x.spec!.manualSelector = true));
    assert.equal(spec(j).selector, undefined);
    assert.deepEqual(msgs(jobStrategy.validate(j)), ['spec.selector: Required value', 'spec.template.metadata.labels: Invalid value: {}: `selector` does not match template `labels`']);
    const manual = created((x) => {
      x.spec!.manualSelector = true;
      x.spec!.selector = { matchLabels: { app: 'pi' } };
      x.spec!.template.metadata = { labels: { app: 'pi' } };
    });
    assert.deepEqual(msgs(jobStrategy.validate(manual)), []);
  });
});

describe('validate', () => {
  test('the kubectl create job Job is valid', () => assert.deepEqual(validate(() => {}), []));

  test('restartPolicy: OnFailure or Never (Always, the pod default, is reported as required)', () => {
    assert.deepEqual(validate((j) => delete j.spec!.template.spec!.restartPolicy), ['spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"']);
    assert.deepEqual(validate((j) => (j.spec!.template.spec!.restartPolicy = 'Always')), ['spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"']);
    assert.deepEqual(validate((j) => (j.spec!.template.spec!.restartPolicy = 'Sometimes')), [
      'spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
      'spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "OnFailure", "Never"',
    ]);
  });

  test('counts ≥ 0', () => {
    assert.deepEqual(
      validate((j) => Object.assign(j.spec!, { parallelism: -1, completions: -1, activeDeadlineSeconds: -1, backoffLimit: -1, ttlSecondsAfterFinished: -1 })),
      ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished'].map((k) => `spec.${k}: Invalid value: -1: must be greater than or equal to 0`),
    );
  });

  test('completionMode: NonIndexed or Indexed; Indexed needs completions and bounds parallelism', () => {
    assert.deepEqual(validate((j) => (j.spec!.completionMode = 'Sometimes')), [
      'spec.completionMode: Unsupported value: "Sometimes": supported values: "NonIndexed", "Indexed"',
    ]);
    assert.deepEqual(
      validate((j) => Object.assign(j.spec!, { completionMode: 'Indexed', completions: 2, parallelism: 100_001 })),
      ['spec.parallelism: Invalid value: 100001: must be less than or equal to 100000 when completion mode is Indexed'],
    );
    const noCompletions = raw();
    Object.assign(noCompletions.spec!, { completionMode: 'Indexed', parallelism: 2 });
    jobStrategy.defaults(noCompletions);
    jobStrategy.prepareForCreate(noCompletions, NOW);
    assert.deepEqual(msgs(jobStrategy.validate(noCompletions)), ['spec.completions: Required value: when completion mode is Indexed']);
    assert.deepEqual(
      validate((j) => {
        j.metadata!.name = 'a'.repeat(62);
        Object.assign(j.spec!, { completionMode: 'Indexed', completions: 10, parallelism: 1 });
      }),
      [`metadata.name: Invalid value: "${'a'.repeat(62)}": will not able to create pod with invalid DNS label: ${'a'.repeat(62)}-9`],
    );
  });

  test('backoffLimitPerIndex and maxFailedIndexes need Indexed', () => {
    assert.deepEqual(validate((j) => Object.assign(j.spec!, { backoffLimitPerIndex: 1, maxFailedIndexes: 1 })), [
      'spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode',
      'spec.maxFailedIndexes: Invalid value: 1: requires indexed completion mode',
    ]);
    assert.deepEqual(validate((j) => Object.assign(j.spec!, { completionMode: 'Indexed', completions: 2, maxFailedIndexes: 3 })), [
      'spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified',
      'spec.maxFailedIndexes: Invalid value: 3: must be less than or equal to completions',
    ]);
  });

  test('managedBy is a domain-prefixed path of at most 63 characters', () => {
    assert.deepEqual(validate((j) => (j.spec!.managedBy = 'kueue.x-k8s.io/manager')), []);
    assert.deepEqual(validate((j) => (j.spec!.managedBy = 'kueue')), ['spec.managedBy: Invalid value: "kueue": must be a domain-prefixed path (such as "acme.io/foo")']);
    assert.deepEqual(validate((j) => (j.spec!.managedBy = `example.com/${'a'.repeat(60)}`)), ['spec.managedBy: Too long: may not be more than 63 bytes']);
  });

  test('podFailurePolicy rules', () => {
    const withPolicy = (rules: unknown[]): string[] =>
      validate((j) => {
        j.spec!.podFailurePolicy = { rules } as JobSpec['podFailurePolicy'];
      });
    assert.deepEqual(withPolicy([{ action: 'FailJob', onExitCodes: { operator: 'In', values: [1, 2] } }]), []);
    assert.deepEqual(withPolicy([{ action: 'FailJob', onExitCodes: { operator: 'In', values: [0, 2, 2, 1] } }]), [
      'spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator',
      'spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Duplicate value: 2',
      'spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: [0,2,2,1]: must be ordered',
    ]);
    assert.deepEqual(withPolicy([{ action: 'Retry', onExitCodes: { operator: 'Between', values: [], containerName: 'x' } }]), [
      'spec.podFailurePolicy.rules[0].action: Unsupported value: "Retry": supported values: "Count", "FailIndex", "FailJob", "Ignore"',
      'spec.podFailurePolicy.rules[0].onExitCodes.operator: Unsupported value: "Between": supported values: "In", "NotIn"',
      'spec.podFailurePolicy.rules[0].onExitCodes.containerName: Invalid value: "x": must be one of the container or initContainer names in the pod template',
      'spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: []: at least one value is required',
    ]);
    assert.deepEqual(withPolicy([{ action: '' }]), [
      'spec.podFailurePolicy.rules[0].action: Required value: valid values: ["Count" "FailIndex" "FailJob" "Ignore"]',
      'spec.podFailurePolicy.rules[0]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required',
    ]);
    assert.deepEqual(withPolicy([{ action: 'FailIndex', onPodConditions: [{ type: 'DisruptionTarget', status: 'Maybe' }] }]), [
      'spec.podFailurePolicy.rules[0].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set',
      'spec.podFailurePolicy.rules[0].onPodConditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
    ]);
    assert.deepEqual(
      validate((j) => {
        j.spec!.podFailurePolicy = { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }] };
        j.spec!.template.spec!.restartPolicy = 'OnFailure';
      }),
      ['spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified'],
    );
  });

  test('podReplacementPolicy: Failed only with a podFailurePolicy', () => {
    assert.deepEqual(validate((j) => (j.spec!.podReplacementPolicy = 'Always')), [
      'spec.podReplacementPolicy: Unsupported value: "Always": supported values: "Failed", "TerminatingOrFailed"',
    ]);
  });

  test('successPolicy: Indexed only, indexes and counts within completions', () => {
    assert.deepEqual(validate((j) => (j.spec!.successPolicy = { rules: [{ succeededCount: 1 }] })), [
      'spec.successPolicy: Invalid value: {"rules":[{"succeededCount":1}]}: requires indexed completion mode',
    ]);
    const indexed = (rules: unknown[]): string[] =>
      validate((j) => Object.assign(j.spec!, { completionMode: 'Indexed', completions: 5, parallelism: 5, successPolicy: { rules } }));
    assert.deepEqual(indexed([{ succeededIndexes: '0,2-4', succeededCount: 4 }]), []);
    assert.deepEqual(indexed([]), ['spec.successPolicy.rules: Required value: at least one rules must be specified when the successPolicy is specified']);
    assert.deepEqual(indexed([{}]), ['spec.successPolicy.rules[0]: Required value: at least one of succeededCount or succeededIndexes must be specified']);
    assert.deepEqual(indexed([{ succeededIndexes: '3-1' }, { succeededIndexes: '9' }, { succeededIndexes: '1,1' }, { succeededIndexes: 'a' }]), [
      'spec.successPolicy.rules[0].succeededIndexes: Invalid value: "3-1": error parsing succeededIndexes: non-increasing order, previous: 3, current: 1',
      'spec.successPolicy.rules[1].succeededIndexes: Invalid value: "9": error parsing succeededIndexes: too large index: "9"',
      'spec.successPolicy.rules[2].succeededIndexes: Invalid value: "1,1": error parsing succeededIndexes: non-increasing order, previous: 1, current: 1',
      'spec.successPolicy.rules[3].succeededIndexes: Invalid value: "a": error parsing succeededIndexes: cannot convert string to integer for index: "a"',
    ]);
    assert.deepEqual(indexed([{ succeededIndexes: '0-1', succeededCount: 6 }]), [
      'spec.successPolicy.rules[0].succeededCount: Invalid value: 6: must be less than or equal to 5 (the number of specified completions)',
      'spec.successPolicy.rules[0].succeededCount: Invalid value: 6: must be less than or equal to 2 (the number of indexes in the specified succeededIndexes field)',
    ]);
  });

  test('the pod template is validated as a pod template', () => {
    assert.deepEqual(validate((j) => (j.spec!.template.spec!.containers = [])), ['spec.template.spec.containers: Required value']);
  });
});

describe('update', () => {
  const update = (mutate: (j: Job) => void, base: (j: Job) => void = () => {}): [Job, string[]] => {
    const old = created(base);
    const j = clone(old);
    mutate(j);
    jobStrategy.defaults(j);
    jobStrategy.prepareForUpdate(j, old);
    return [j, msgs(jobStrategy.validateUpdate(j, old))];
  };

  test('mutable fields bump the generation; status is kept', () => {
    const [j, errs] = update((x) => {
      x.spec!.parallelism = 4;
      x.spec!.activeDeadlineSeconds = 100;
      x.spec!.suspend = true;
      x.status = { active: 9 };
    });
    assert.deepEqual(errs, []);
    assert.equal(j.metadata?.generation, 2);
    assert.deepEqual(j.status, {});
  });

  test('completions, selector, template, completionMode are immutable', () => {
    assert.deepEqual(update((x) => (x.spec!.completions = 3))[1], ['spec.completions: Invalid value: 3: field is immutable']);
    assert.equal(update((x) => (x.spec!.template.spec!.containers[0]!.image = 'perl:5.36'))[1][0]?.startsWith('spec.template: Invalid value: '), true);
    assert.match(update((x) => (x.spec!.template.spec!.containers[0]!.image = 'perl:5.36'))[1][0] ?? '', /: field is immutable$/);
    assert.deepEqual(update((x) => (x.spec!.completionMode = 'Indexed'))[1], ['spec.completionMode: Invalid value: "Indexed": field is immutable']);
    const [, selectorErrs] = update((x) => (x.spec!.selector = { matchLabels: { ...x.spec!.selector!.matchLabels, extra: 'x' } }));
    assert.ok(selectorErrs.some((e) => e.startsWith('spec.selector: Invalid value: ') && e.endsWith('field is immutable')));
  });

  test('an Indexed Job scales completions together with parallelism (ElasticIndexedJob)', () => {
    const indexed = (x: Job): void => void Object.assign(x.spec!, { completionMode: 'Indexed', completions: 2, parallelism: 2 });
    assert.deepEqual(update((x) => Object.assign(x.spec!, { completions: 4, parallelism: 4 }), indexed)[1], []);
    assert.deepEqual(update((x) => Object.assign(x.spec!, { completions: 4 }), indexed)[1], ['spec.completions: Invalid value: 4: can only be modified in tandem with spec.parallelism']);
  });

  test('a suspended Job that never started may change its scheduling directives', () => {
    const suspended = (x: Job): void => void (x.spec!.suspend = true);
    assert.deepEqual(update((x) => (x.spec!.template.spec!.nodeSelector = { zone: 'a' }), suspended)[1], []);
    assert.equal(update((x) => (x.spec!.template.spec!.nodeSelector = { zone: 'a' }))[1].length, 1);
  });
});

describe('status update', () => {
  const statusUpdate = (mutate: (j: Job) => void, before: (j: Job) => void = () => {}): string[] => {
    const old = created();
    before(old);
    const j = clone(old);
    mutate(j);
    jobStrategy.prepareForStatusUpdate!(j, old);
    return msgs(jobStrategy.validateStatusUpdate!(j, old));
  };
  const cond = (type: string): { type: string; status: string } => ({ type, status: 'True' });

  test('a controller-like progression is accepted', () => {
    assert.deepEqual(statusUpdate((j) => (j.status = { active: 1, startTime: '2025-01-01T00:00:00Z', ready: 0 })), []);
    assert.deepEqual(
      statusUpdate(
        (j) =>
          (j.status = {
            succeeded: 1,
            startTime: '2025-01-01T00:00:00Z',
            completionTime: '2025-01-01T00:01:00Z',
            conditions: [cond('SuccessCriteriaMet'), cond('Complete')],
          }),
        (o) => (o.status = { active: 1, startTime: '2025-01-01T00:00:00Z' }),
      ),
      [],
    );
  });

  test('counts, finished Jobs and terminal conditions', () => {
    assert.deepEqual(statusUpdate((j) => (j.status = { active: -1, uncountedTerminatedPods: { succeeded: ['a', ''], failed: ['a'] } })), [
      'status.active: Invalid value: -1: must be greater than or equal to 0',
      'status.uncountedTerminatedPods.succeeded[1]: Invalid value: "": must not be empty',
      'status.uncountedTerminatedPods.failed[0]: Duplicate value: "a"',
    ]);
    assert.deepEqual(statusUpdate((j) => (j.status = { active: 1, conditions: [cond('Complete')] })), [
      'status.completionTime: Required value: completionTime is required for Complete jobs',
      'status.active: Invalid value: 1: active>0 is invalid for finished job',
      'status.startTime: Required value: startTime is required for finished job',
    ]);
    assert.deepEqual(
      statusUpdate(
        (j) => (j.status = { failed: 1 }),
        (o) => (o.status = { failed: 2, conditions: [cond('FailureTarget')] }),
      ),
      ['status.conditions: Invalid value: cannot disable the terminal FailureTarget=True condition', 'status.failed: Invalid value: 1: cannot decrease the failed counter'],
    );
  });

  test('completedIndexes: well-formed, Indexed only', () => {
    assert.deepEqual(statusUpdate((j) => (j.status = { completedIndexes: '0' })), [
      'status.completedIndexes: Invalid value: "0": cannot set non-empty completedIndexes when non-indexed completion mode',
    ]);
    assert.deepEqual(statusUpdate((j) => (j.status = { completedIndexes: '5' })), [
      'status.completedIndexes: Invalid value: "5": error parsing completedIndexes: too large index: "5"',
      'status.completedIndexes: Invalid value: "5": cannot set non-empty completedIndexes when non-indexed completion mode',
    ]);
  });

  test('keeps spec', () => {
    const old = created();
    const j = clone(old);
    j.spec!.parallelism = 9;
    jobStrategy.prepareForStatusUpdate!(j, old);
    assert.equal(j.spec?.parallelism, 1);
  });
});

describe('printer', () => {
  const row = (mutate: (j: Job) => void): unknown[] => {
    const j = created((x) => (x.metadata!.creationTimestamp = '2025-01-01T00:00:00Z'));
    mutate(j);
    return jobStrategy.table.row(j, NOW).cells;
  };
  const selector = `batch.kubernetes.io/controller-uid=${UID}`;

  test('a new Job: Running, 0/1, no duration', () => {
    assert.deepEqual(row(() => {}), ['pi', 'Running', '0/1', '', '10m', 'pi', 'perl:5.34', selector]);
  });

  test('status by condition, completions without completions, durations', () => {
    const status = (conditions: string[], deleting = false): unknown =>
      row((j) => {
        j.status = { conditions: conditions.map((type) => ({ type, status: 'True' })) };
        if (deleting) j.metadata!.deletionTimestamp = '2025-01-01T00:09:00Z';
      })[1];
    assert.equal(status(['Complete']), 'Complete');
    assert.equal(status(['FailureTarget', 'Failed']), 'Failed');
    assert.equal(status(['Suspended'], true), 'Terminating');
    assert.equal(status(['Suspended']), 'Suspended');
    assert.equal(status(['FailureTarget']), 'FailureTarget');
    assert.equal(status(['SuccessCriteriaMet']), 'Running', 'SuccessCriteriaMet is a STATUS only from 1.34');
    assert.equal(row((j) => Object.assign(j.spec!, { completions: undefined, parallelism: 3 }))[2], '0/1 of 3');
    assert.equal(row((j) => (j.status = { startTime: '2025-01-01T00:05:00Z' }))[3], '5m');
    assert.equal(row((j) => (j.status = { succeeded: 1, startTime: '2025-01-01T00:05:00Z', completionTime: '2025-01-01T00:05:42Z' }))[3], '42s');
  });

  test('columns and field selector', () => {
    assert.deepEqual(
      jobStrategy.table.columns.map((c) => `${c.name}:${c.priority}`),
      ['Name:0', 'Status:0', 'Completions:0', 'Duration:0', 'Age:0', 'Containers:1', 'Images:1', 'Selector:1'],
    );
    assert.equal(jobStrategy.fieldSelectors['status.successful']?.(created((j) => (j.status = { succeeded: 2 }))), '0');
    const done = created();
    done.status = { succeeded: 2 };
    assert.equal(jobStrategy.fieldSelectors['status.successful']?.(done), '2');
  });
});
