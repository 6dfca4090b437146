/**
 * Unit tests of the Job controller's pure parts, ported from kubernetes/kubernetes v1.33
 * pkg/controller/job: indexed_job_utils_test.go (TestCalculateSucceededIndexes, TestIntervalsHaveIndex),
 * backoff_utils_test.go (TestGetRemainingBackoffTime, TestNewBackoffRecord), pod_failure_policy_test.go
 * (TestMatchPodFailurePolicy) and success_policy_test.go (TestMatchSuccessPolicy).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../api/index.js';
import type { PodFailurePolicy } from 'kubernetes-types/batch/v1.js';
import { formatTime } from '../../util/clock/index.js';
import { formatIndexes, getCompletionIndex, hasIndex, parseIndexes, totalIndexes, withIndexes } from './indexed.js';
import { newBackoffRecord, remainingBackoffMs } from './backoff.js';
import { matchPodFailurePolicy } from './pod-failure-policy.js';
import { matchSuccessPolicy } from './success-policy.js';

const T0 = Date.UTC(2025, 0, 1);

describe('indexed intervals', () => {
  test('parse, merge, format (1,3-5,7; neighbours listed)', () => {
    assert.deepEqual(parseIndexes('1,3-5,7', 10), [{ first: 1, last: 1 }, { first: 3, last: 5 }, { first: 7, last: 7 }]);
    assert.deepEqual(parseIndexes('1,3-5,7', 5), [{ first: 1, last: 1 }, { first: 3, last: 4 }], 'clipped to completions');
    assert.deepEqual(parseIndexes('x,2', 5), [{ first: 2, last: 2 }], 'malformed parts skipped');
    assert.equal(formatIndexes(withIndexes(parseIndexes('1,3-5', 10), [2, 7, 8])), '1-5,7,8');
    assert.equal(formatIndexes(withIndexes([], [0, 1, 2, 4])), '0-2,4');
    assert.equal(totalIndexes(parseIndexes('0-2,5', 10)), 4);
    assert.ok(hasIndex(parseIndexes('0-2,5', 10), 5));
    assert.ok(!hasIndex(parseIndexes('0-2,5', 10), 3));
  });

  test('getCompletionIndex: annotation, then label; invalid is -1', () => {
    const pod = (annotations?: Record<string, string>, labels?: Record<string, string>): Pod => ({ metadata: { annotations, labels } });
    assert.equal(getCompletionIndex(pod({ 'batch.kubernetes.io/job-completion-index': '3' })), 3);
    assert.equal(getCompletionIndex(pod(undefined, { 'batch.kubernetes.io/job-completion-index': '2' })), 2);
    assert.equal(getCompletionIndex(pod({ 'batch.kubernetes.io/job-completion-index': '-1' })), -1);
    assert.equal(getCompletionIndex(pod()), -1);
  });
});

describe('back-off', () => {
  test('10 s doubling per consecutive failure, capped at 10 min, minus the time elapsed', () => {
    assert.equal(remainingBackoffMs(0, T0, T0), 0);
    assert.equal(remainingBackoffMs(1, T0, T0), 10_000);
    assert.equal(remainingBackoffMs(1, T0, T0 + 4_000), 6_000);
    assert.equal(remainingBackoffMs(3, T0, T0), 40_000);
    assert.equal(remainingBackoffMs(20, T0, T0), 600_000);
    assert.equal(remainingBackoffMs(2, T0, T0 + 30_000), 0);
  });

  test('a success resets the count to the failures after it', () => {
    const finished = (phase: 'Succeeded' | 'Failed', at: number): Pod => ({
      metadata: { name: `${phase}-${at}` },
      status: { phase, containerStatuses: [{ name: 'c', image: 'i', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: phase === 'Failed' ? 1 : 0, finishedAt: formatTime(at) } } }] },
    });
    const zero = { failuresAfterLastSuccess: 0, lastFailureTime: undefined };
    const r1 = newBackoffRecord(zero, [], [finished('Failed', T0), finished('Failed', T0 + 1000)], T0 + 2000);
    assert.deepEqual(r1, { failuresAfterLastSuccess: 2, lastFailureTime: T0 + 1000 });
    assert.deepEqual(newBackoffRecord(r1, [finished('Succeeded', T0 + 5000)], [], T0 + 6000), { failuresAfterLastSuccess: 0, lastFailureTime: T0 + 1000 });
    assert.deepEqual(newBackoffRecord(r1, [finished('Succeeded', T0 + 5000)], [finished('Failed', T0 + 7000)], T0 + 8000), { failuresAfterLastSuccess: 1, lastFailureTime: T0 + 7000 });
  });
});

describe('matchPodFailurePolicy', () => {
  const failed = (exitCodes: Record<string, number>, conditions: { type: string; status: string }[] = [], init: Record<string, number> = {}): Pod => {
    const cs = (m: Record<string, number>) => Object.entries(m).map(([name, exitCode]) => ({ name, image: 'i', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode } } }));
    return { metadata: { name: 'p', namespace: 'ns' }, status: { phase: 'Failed', conditions, containerStatuses: cs(exitCodes), initContainerStatuses: cs(init) } };
  };
  const policy: PodFailurePolicy = {
    rules: [
      { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
      { action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [1, 2, 3] } },
      { action: 'Count', onExitCodes: { operator: 'In', values: [42] } },
      { action: 'FailIndex', onExitCodes: { operator: 'NotIn', values: [0, 1, 2, 3, 42] } },
    ],
  };
  const cases: [string, Pod, ReturnType<typeof matchPodFailurePolicy>][] = [
    ['no rule matches (FailJob names another container): counted', failed({ other: 2 }), { countFailed: true }],
    ['FailIndex on NotIn', failed({ other: 7 }), { countFailed: true, action: 'FailIndex' }],
    ['FailJob on exit code of the named container', failed({ main: 2 }), { countFailed: true, action: 'FailJob', failJobMessage: 'Container main for pod ns/p failed with exit code 2 matching FailJob rule at index 1' }],
    ['Ignore on DisruptionTarget, before any exit code rule', failed({ main: 2 }, [{ type: 'DisruptionTarget', status: 'True' }]), { countFailed: false, action: 'Ignore' }],
    ['DisruptionTarget False does not match', failed({ main: 42 }, [{ type: 'DisruptionTarget', status: 'False' }]), { countFailed: true, action: 'Count' }],
    ['Count', failed({ side: 42 }), { countFailed: true, action: 'Count' }],
    ['NotIn: exit 0 never matches', failed({ main: 0 }), { countFailed: true }],
    ['init container exit codes match too', failed({}, [], { main: 3 }), { countFailed: true, action: 'FailJob', failJobMessage: 'Container main for pod ns/p failed with exit code 3 matching FailJob rule at index 1' }],
  ];
  for (const [name, pod, want] of cases) {
    test(name, () => assert.deepEqual(matchPodFailurePolicy(policy, pod), want));
  }
  test('FailJob on a pod condition', () => {
    const p = failed({ main: 9 }, [{ type: 'ConfigIssue', status: 'True' }]);
    assert.deepEqual(matchPodFailurePolicy({ rules: [{ action: 'FailJob', onPodConditions: [{ type: 'ConfigIssue', status: 'True' }] }] }, p), {
      countFailed: true,
      action: 'FailJob',
      failJobMessage: 'Pod ns/p has condition ConfigIssue matching FailJob rule at index 0',
    });
  });
});

describe('matchSuccessPolicy', () => {
  const succeeded = parseIndexes('0-2,4', 6);
  test('succeededIndexes only: all of them', () => {
    assert.equal(matchSuccessPolicy({ rules: [{ succeededIndexes: '0,1' }] }, 6, succeeded), 'Matched rules at index 0');
    assert.equal(matchSuccessPolicy({ rules: [{ succeededIndexes: '3-4' }] }, 6, succeeded), undefined);
  });
  test('succeededCount only: that many indexes', () => {
    assert.equal(matchSuccessPolicy({ rules: [{ succeededCount: 5 }, { succeededCount: 4 }] }, 6, succeeded), 'Matched rules at index 1');
  });
  test('both: that many among the indexes', () => {
    assert.equal(matchSuccessPolicy({ rules: [{ succeededIndexes: '2-5', succeededCount: 2 }] }, 6, succeeded), 'Matched rules at index 0');
    assert.equal(matchSuccessPolicy({ rules: [{ succeededIndexes: '3-5', succeededCount: 2 }] }, 6, succeeded), undefined);
  });
});
