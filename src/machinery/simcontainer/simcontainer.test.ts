/**
 * Simulated container programs: the shell subset (exit codes, durations, output lines with their
 * offsets), direct argv, `$(VAR)` expansion as the kubelet does it, the `test`/`[` builtin, and the
 * unknown fallback with its start-up line.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { printf, runPodContainer, runProgram, startupLine, UNKNOWN_COMMAND_MS, type OutputLine, type SimContainerSpec } from './index.js';
import { runTest } from './posix-test.js';

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
    { name: 'field splitting of unquoted expansions', spec: sh('echo $A. "$A" x$B; echo [$E] "$E"', { A: ' a  b ', B: 'c d', E: '' }), exitCode: 0, durationMs: 0, output: lines([0, 'a b .  a  b  xc d'], [0, '[] ']) },
    { name: 'assignments are not split', spec: sh('X=$A Y=$A; echo "$X|$Y"', { A: 'a  b' }), exitCode: 0, durationMs: 0, output: lines([0, 'a  b|a  b']) },
    { name: 'echo -n joins lines', spec: sh('echo -n a; sleep 1; echo b; echo -n c'), exitCode: 0, durationMs: 1000, output: lines([0, 'ab'], [1000, 'c']) },
    { name: 'printf', spec: sh(`printf '%s=%d%%\\n' a 5 b 6`), exitCode: 0, durationMs: 0, output: lines([0, 'a=5%'], [0, 'b=6%']) },
    { name: 'comments', spec: sh('echo a # not printed\n# whole line\necho b#c'), exitCode: 0, durationMs: 0, output: lines([0, 'a'], [0, 'b#c']) },
    { name: 'exit code modulo 256', spec: sh('exit 257'), exitCode: 1, durationMs: 0, output: [] },
    { name: 'bare exit keeps the last status', spec: sh('false; exit'), exitCode: 1, durationMs: 0, output: [] },
    { name: 'unknown command in a script', spec: sh('date; echo done'), exitCode: 0, durationMs: UNKNOWN_COMMAND_MS, output: lines([UNKNOWN_COMMAND_MS, 'done']) },
    { name: 'pipe: unknown as a whole', spec: sh('echo a | grep a; exit 4'), exitCode: 0, durationMs: UNKNOWN_COMMAND_MS, output: lines([0, `kubeplane: simulated container started; it runs "sh -c 'echo a | grep a; exit 4'", which is not simulated`]) },
    { name: 'for loop: unknown as a whole', spec: sh('for i in 1 2; do echo $i; done'), exitCode: 0, durationMs: UNKNOWN_COMMAND_MS, output: lines([0, `kubeplane: simulated container started; it runs "sh -c 'for i in 1 2; do echo $i; done'", which is not simulated`]) },
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
  test('unknown programs (perl pi, the image entrypoint) run the default time and succeed, printing the start-up line', () => {
    for (const spec of [{ command: ['perl', '-Mbignum=bpi', '-wle', 'print bpi(20)'] }, {}]) {
      const r = runProgram(spec);
      assert.deepEqual({ ...r, output: r.output.length }, { output: 1, exitCode: 0, durationMs: UNKNOWN_COMMAND_MS });
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
    assert.deepEqual(runPodContainer(pod, c), { output: lines([0, '2 job-2-abcde ns']), exitCode: 2, durationMs: 0 });
  });
});

describe('test / [', () => {
  // Cases after the POSIX test utility's description (XCU "test", the table by number of arguments:
  // https://pubs.opengroup.org/onlinepubs/9799919799/utilities/test.html); integer operands as dash's
  // getn reads them (src/bltin/test.c: strtoimax, then only whitespace may follow).
  const cases: Array<[string[], number]> = [
    // 0 and 1 arguments
    [[], 1],
    [[''], 1],
    [['x'], 0],
    [['-n'], 0], // one argument: a non-empty string, not an operator
    [['!'], 0],
    // 2 arguments
    [['!', ''], 0],
    [['!', 'x'], 1],
    [['-z', ''], 0],
    [['-z', 'x'], 1],
    [['-n', ''], 1],
    [['-n', 'x'], 0],
    [['-e', '/etc/passwd'], 1], // no files in a simulated container
    [['-f', '/tmp/x'], 1],
    [['-d', '/'], 1],
    [['a', 'b'], 2], // not a unary primary
    // 3 arguments: binary primaries
    [['a', '=', 'a'], 0],
    [['a', '=', 'b'], 1],
    [['a', '==', 'a'], 0],
    [['a', '!=', 'b'], 0],
    [['', '=', ''], 0],
    [['1', '-eq', '1'], 0],
    [['1', '-eq', '01'], 0],
    [['-1', '-lt', '0'], 0],
    [[' 2', '-le', '+2 '], 0], // leading/trailing whitespace and a sign
    [['3', '-gt', '2'], 0],
    [['2', '-ge', '3'], 1],
    [['2', '-ne', '3'], 0],
    [['99999999999999999999', '-gt', '99999999999999999998'], 0],
    [['abc', '-eq', '1'], 2], // bad number
    [['', '-eq', '0'], 2],
    [['1.5', '-lt', '2'], 2],
    [['a', '-a', 'b'], 0],
    [['a', '-a', ''], 1],
    [['', '-o', 'b'], 0],
    [['', '-o', ''], 1],
    // 3 arguments: negation and parentheses
    [['!', '-z', 'x'], 0],
    [['!', '-n', 'x'], 1],
    [['!', '=', 'x'], 1], // $2 is a binary primary: '!' = 'x' compares strings
    [['(', 'x', ')'], 0],
    [['(', '', ')'], 1],
    [['a', 'b', 'c'], 2],
    // 4 arguments
    [['!', 'a', '=', 'a'], 1],
    [['!', '1', '-lt', '0'], 0],
    [['(', '-z', '', ')'], 0],
    [['a', 'b', 'c', 'd'], 2],
    // more: -a/-o chains are not simulated
    [['a', '=', 'a', '-a', 'b', '=', 'b'], 2],
  ];
  for (const [args, want] of cases) {
    test(`test ${JSON.stringify(args)} → ${want}`, () => {
      assert.equal(runTest(args, false), want);
      assert.equal(runTest([...args, ']'], true), want);
    });
  }
  test('[ without its closing ] is a usage error', () => {
    assert.equal(runTest(['a', '=', 'a'], true), 2);
    assert.equal(runTest([], true), 2);
  });

  const scripts: Array<{ name: string; spec: SimContainerSpec; exitCode: number; output?: OutputLine[] }> = [
    { name: 'per-index success', spec: sh('[ "$JOB_COMPLETION_INDEX" = 1 ] && exit 0; exit 1', { JOB_COMPLETION_INDEX: '1' }), exitCode: 0 },
    { name: 'per-index failure', spec: sh('[ "$JOB_COMPLETION_INDEX" = 1 ] && exit 0; exit 1', { JOB_COMPLETION_INDEX: '0' }), exitCode: 1 },
    { name: 'test -lt || exit 3, low index', spec: sh('test $JOB_COMPLETION_INDEX -lt 2 || exit 3', { JOB_COMPLETION_INDEX: '1' }), exitCode: 0 },
    { name: 'test -lt || exit 3, high index', spec: sh('test $JOB_COMPLETION_INDEX -lt 2 || exit 3', { JOB_COMPLETION_INDEX: '4' }), exitCode: 3 },
    { name: 'usage error status is 2', spec: sh('[ x -eq 1 ]; echo $?'), exitCode: 0, output: lines([0, '2']) },
    { name: 'missing ] is 2', spec: sh('[ x = x; exit $?'), exitCode: 2 },
    { name: 'an unset unquoted operand drops out: [ = 1 ] is a usage error', spec: sh('[ $UNSET = 1 ]; echo $?; [ "$UNSET" = "" ]; echo $?'), exitCode: 0, output: lines([0, '2'], [0, '0']) },
    { name: '/usr/bin/[ and /usr/bin/test', spec: sh('/usr/bin/[ a != b ] && /usr/bin/test -n a && echo yes'), exitCode: 0, output: lines([0, 'yes']) },
    { name: 'direct argv', spec: { command: ['test', '1', '-gt', '2'] }, exitCode: 1, output: [] },
  ];
  for (const c of scripts) {
    test(`script: ${c.name}`, () => {
      const r = runProgram(c.spec);
      assert.equal(r.exitCode, c.exitCode);
      assert.deepEqual(r.output, c.output ?? []);
      assert.equal(r.durationMs, 0);
    });
  }
});

describe('start-up line of programs that are not simulated', () => {
  const web = { name: 'web', image: 'nginx:1.27' };
  test("the image's entrypoint (no command/args)", () => {
    assert.deepEqual(runProgram(web).output, lines([0, `kubeplane: simulated container "web" (image nginx:1.27) started; its image's entrypoint is not simulated`]));
  });
  test('an unknown command is named, shell-quoted', () => {
    const r = runProgram({ name: 'pi', image: 'perl', command: ['perl', '-Mbignum=bpi', '-wle', 'print bpi(20)'] });
    assert.deepEqual(r.output, lines([0, `kubeplane: simulated container "pi" (image perl) started; it runs "perl -Mbignum=bpi -wle 'print bpi(20)'", which is not simulated`]));
  });
  test('a script of unknown commands only, and one whose builtins did not run, print it', () => {
    assert.equal(runProgram({ ...web, ...sh('python app.py') }).output.length, 1);
    const r = runProgram({ ...web, ...sh('python app.py || echo failed') });
    assert.deepEqual(r.output.map((l) => l.offsetMs), [0]);
  });
  test('a script in which a builtin ran prints only its own output; so do empty scripts and assignments', () => {
    assert.deepEqual(runProgram({ ...web, ...sh('date; echo done') }).output, lines([UNKNOWN_COMMAND_MS, 'done']));
    assert.deepEqual(runProgram({ ...web, ...sh('') }).output, []);
    assert.deepEqual(runProgram({ ...web, ...sh('X=1') }).output, []);
    assert.deepEqual(runProgram({ ...web, command: ['sleep', 'infinity'] }).output, []);
  });
  test("multi-line scripts stay one line; quotes inside are escaped; long programs are cut", () => {
    const line = startupLine({}, ['sh', '-c', "cat <<EOF\nit's\nEOF"]);
    assert.equal(line, `kubeplane: simulated container started; it runs "sh -c 'cat <<EOF\\nit'\\\\''s\\nEOF'", which is not simulated`);
    const multi = runProgram(sh('cat /etc/hosts\nwc -l x | sort'));
    assert.equal(multi.output.length, 1);
    assert.ok(!multi.output[0]!.text.includes('\n'));
    assert.ok(startupLine({}, ['x'.repeat(500)]).includes(`${'x'.repeat(200)}…"`));
  });
  test('runPodContainer passes the container name and image', () => {
    const pod = { metadata: { name: 'web-abc' } };
    assert.deepEqual(runPodContainer(pod, { name: 'web', image: 'nginx:1.27' }).output, lines([0, `kubeplane: simulated container "web" (image nginx:1.27) started; its image's entrypoint is not simulated`]));
  });
});
