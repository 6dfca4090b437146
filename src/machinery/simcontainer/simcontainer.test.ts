/**
 * Simulated container programs: the shell subset (exit codes, durations, output lines with their
 * offsets), direct argv, `$(VAR)` expansion as the kubelet does it, and the unknown fallback.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { printf, runPodContainer, runProgram, UNKNOWN_COMMAND_MS, type OutputLine, type SimContainerSpec } from './index.js';

const sh = (script: string, env: Record<string, string> = {}): SimContainerSpec => ({
  command: ['sh', '-c', script],
  env: Object.entries(env).map(([name, value]) => ({ name, value })),
});

const lines = (...l: Array<[number, string]>): OutputLine[] => l.map(([offsetMs, text]) => ({ offsetMs, text }));

describe('runProgram: shell scripts', () => {
  const cases: Array<{ name: string; spec: SimContainerSpec; exitCode: number; durationMs: number; output: OutputLine[] }> = [
    { name: 'sleep then exit', spec: sh('sleep 5; exit 3'), exitCode: 3, durationMs: 5000, output: [] },
    { name: 'echo && false || echo', spec: sh('echo a && false || echo b'), exitCode: 0, durationMs: 0, output: lines([0, 'a'], [0, 'b']) },
    { name: '&& skipped after a failure', spec: sh('false && echo no; echo $?'), exitCode: 0, durationMs: 0, output: lines([0, '1']) },
    { name: 'false is the last status', spec: sh('echo x; false'), exitCode: 1, durationMs: 0, output: lines([0, 'x']) },
    { name: 'exit stops the script', spec: sh('echo hello; sleep 2; exit 3; echo never'), exitCode: 3, durationMs: 2000, output: lines([0, 'hello']) },
    { name: 'fractional sleep and offsets', spec: sh('echo a; sleep 0.5; echo b\nsleep 1.5\necho c'), exitCode: 0, durationMs: 2000, output: lines([0, 'a'], [500, 'b'], [2000, 'c']) },
    { name: 'sleep with a unit', spec: sh('sleep 1m'), exitCode: 0, durationMs: 60_000, output: [] },
    { name: 'quotes', spec: sh(`echo 'a  b' "c  d" e\\ f ""`), exitCode: 0, durationMs: 0, output: lines([0, 'a  b c  d e f ']) },
    { name: 'env expansion', spec: sh('echo "index $JOB_COMPLETION_INDEX of ${TOTAL}" $MISSING.', { JOB_COMPLETION_INDEX: '2', TOTAL: '5' }), exitCode: 0, durationMs: 0, output: lines([0, 'index 2 of 5 .']) },
    { name: 'single quotes do not expand', spec: sh(`echo '$HOME'`, { HOME: '/root' }), exitCode: 0, durationMs: 0, output: lines([0, '$HOME']) },
    { name: 'assignment', spec: sh('X=1; echo $X'), exitCode: 0, durationMs: 0, output: lines([0, '1']) },
    { name: 'echo -n joins lines', spec: sh('echo -n a; sleep 1; echo b; echo -n c'), exitCode: 0, durationMs: 1000, output: lines([0, 'ab'], [1000, 'c']) },
    { name: 'printf', spec: sh(`printf '%s=%d%%\\n' a 5 b 6`), exitCode: 0, durationMs: 0, output: lines([0, 'a=5%'], [0, 'b=6%']) },
    { name: 'comments', spec: sh('echo a # not printed\n# whole line\necho b#c'), exitCode: 0, durationMs: 0, output: lines([0, 'a'], [0, 'b#c']) },
    { name: 'exit code modulo 256', spec: sh('exit 257'), exitCode: 1, durationMs: 0, output: [] },
    { name: 'bare exit keeps the last status', spec: sh('false; exit'), exitCode: 1, durationMs: 0, output: [] },
    { name: 'unknown command in a script', spec: sh('date; echo done'), exitCode: 0, durationMs: UNKNOWN_COMMAND_MS, output: lines([UNKNOWN_COMMAND_MS, 'done']) },
    { name: 'pipe: unknown as a whole', spec: sh('echo a | grep a; exit 4'), exitCode: 0, durationMs: UNKNOWN_COMMAND_MS, output: [] },
    { name: 'for loop: unknown as a whole', spec: sh('for i in 1 2; do echo $i; done'), exitCode: 0, durationMs: UNKNOWN_COMMAND_MS, output: [] },
    { name: 'bash -c', spec: { command: ['/bin/bash', '-c', 'exit 7'] }, exitCode: 7, durationMs: 0, output: [] },
    { name: 'sh in command, script in args', spec: { command: ['/bin/sh'], args: ['-c', 'echo hi'] }, exitCode: 0, durationMs: 0, output: lines([0, 'hi']) },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const r = runProgram(c.spec);
      assert.deepEqual(r, { output: c.output, exitCode: c.exitCode, durationMs: c.durationMs });
    });
  }
});

describe('runProgram: direct argv', () => {
  test('echo with $(VAR) expanded by the kubelet, $$ escaped', () => {
    const r = runProgram({ command: ['echo'], args: ['$(GREETING)', '$$(GREETING)', '$(NOPE)'], env: [{ name: 'GREETING', value: 'hi' }] });
    assert.deepEqual(r.output, lines([0, 'hi $(GREETING) $(NOPE)']));
  });
  test('sleep', () => {
    assert.deepEqual(runProgram({ command: ['sleep', '3'] }), { output: [], exitCode: 0, durationMs: 3000 });
  });
  test('sleep infinity never ends and prints nothing', () => {
    assert.equal(runProgram({ command: ['sleep', 'infinity'] }).durationMs, Infinity);
    assert.equal(runProgram(sh('echo a; sleep infinity; exit 1')).durationMs, Infinity);
  });
  test('no quoting is interpreted in a direct argv', () => {
    assert.deepEqual(runProgram({ command: ['echo', "'a;b'"] }).output, lines([0, "'a;b'"]));
  });
  test('unknown programs (perl pi, the image entrypoint) run the default time and succeed', () => {
    for (const spec of [{ command: ['perl', '-Mbignum=bpi', '-wle', 'print bpi(20)'] }, {}]) {
      assert.deepEqual(runProgram(spec), { output: [], exitCode: 0, durationMs: UNKNOWN_COMMAND_MS });
    }
  });
  test('env values reference earlier entries; extra env is overridden by the container', () => {
    const r = runProgram(
      { command: ['sh', '-c', 'echo $B $HOSTNAME'], env: [{ name: 'A', value: 'x' }, { name: 'B', value: '$(A)y' }] },
      { env: { HOSTNAME: 'p' } },
    );
    assert.deepEqual(r.output, lines([0, 'xy p']));
  });
});

describe('printf', () => {
  test('no arguments: the format once, with escapes', () => {
    assert.equal(printf(['a\\tb\\n']), 'a\tb\n');
  });
  test('missing arguments are empty / zero', () => {
    assert.equal(printf(['%s-%d|']), '-0|');
  });
});

describe('runPodContainer', () => {
  test('JOB_COMPLETION_INDEX from the annotation by fieldRef (as the Job controller sets it); HOSTNAME is the pod name', () => {
    const pod = { metadata: { name: 'job-2-abcde', namespace: 'ns', annotations: { 'batch.kubernetes.io/job-completion-index': '2' } } };
    const c = {
      command: ['sh', '-c', 'echo $JOB_COMPLETION_INDEX $HOSTNAME $NS $NONE; exit $JOB_COMPLETION_INDEX'],
      env: [
        { name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } } },
        { name: 'NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
        { name: 'NONE', valueFrom: { fieldRef: { fieldPath: 'spec.unknown' } } },
      ],
    };
    assert.deepEqual(runPodContainer(pod, c), { output: lines([0, '2 job-2-abcde ns ']), exitCode: 2, durationMs: 0 });
  });
});
