/**
 * Simulated containers that finish, and `kubectl logs`, with the real kubectl: a `--restart=Never`
 * pod running `sh -c 'echo hello; sleep 2; exit 3'` ends Failed with exit code 3 (STATUS Error) and
 * its log says hello (also with --timestamps and --tail); a Never pod that succeeds shows Completed;
 * the upstream errors for a multi-container pod and a missing previous run; a program that is not
 * simulated (nginx's entrypoint, perl) logs its start-up line; `[ … ]` decides an exit code; a
 * Deployment whose command ends crash-loops.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startKubeplane, removeDataDir, eventually, type Kubeplane } from './harness.js';

describe('simulated containers and kubectl logs with real kubectl', { timeout: 120_000 }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 1 });
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  const status = async (pod: string): Promise<string> => {
    const line = (await kp.kubectlOk(['get', 'pod', pod, '--no-headers'])).trim();
    return line.split(/\s+/)[2] ?? '';
  };

  test("kubectl run --restart=Never -- sh -c 'echo hello; sleep 2; exit 3': Error, exit code 3, logs", async () => {
    await kp.kubectlOk(['run', 'x', '--image=busybox', '--restart=Never', '--', 'sh', '-c', 'echo hello; echo world; sleep 2; exit 3']);
    await eventually('pod x Error', async () => ((await status('x')) === 'Error' ? true : undefined), 30_000);
    assert.equal((await kp.kubectlOk(['get', 'pod', 'x', '-o', 'jsonpath={.status.phase} {.status.containerStatuses[0].state.terminated.exitCode}'])).trim(), 'Failed 3');
    assert.equal(await kp.kubectlOk(['logs', 'x']), 'hello\nworld\n');
    assert.equal(await kp.kubectlOk(['logs', 'x', '--tail=1']), 'world\n');
    assert.match(await kp.kubectlOk(['logs', 'x', '--timestamps']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z hello\n\S+ world\n$/);
    const prev = await kp.kubectl(['logs', 'x', '--previous']);
    assert.notEqual(prev.code, 0);
    assert.match(prev.stderr, /previous terminated container "x" in pod "x" not found/);
  });

  test('a Never pod that succeeds shows Completed; a pod of two containers needs -c', async () => {
    await kp.kubectlOk(['run', 'ok', '--image=busybox', '--restart=Never', '--', 'echo', 'done']);
    await eventually('pod ok Completed', async () => ((await status('ok')) === 'Completed' ? true : undefined), 30_000);
    assert.equal(await kp.kubectlOk(['logs', 'ok']), 'done\n');
    const manifest = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'two' },
      spec: {
        restartPolicy: 'Never',
        containers: [
          { name: 'a', image: 'busybox', command: ['sh', '-c', 'echo from-a'] },
          { name: 'b', image: 'busybox', command: ['sh', '-c', 'echo from-b; sleep 1'] },
        ],
      },
    });
    await kp.kubectlOk(['apply', '-f', '-'], manifest);
    await eventually('pod two Completed', async () => ((await status('two')) === 'Completed' ? true : undefined), 30_000);
    assert.equal(await kp.kubectlOk(['logs', 'two', '-c', 'b']), 'from-b\n');
    // kubectl picks the first container itself when none is named (and says so on stderr).
    assert.equal(await kp.kubectlOk(['logs', 'two']), 'from-a\n');
    const bad = await kp.kubectl(['logs', 'two', '-c', 'nope']);
    assert.match(bad.stderr, /container nope is not valid for pod two/);
  });

  test("an unknown command logs its start-up line; [ … ] in sh -c decides the exit code", async () => {
    await kp.kubectlOk(['run', 'pi', '--image=perl', '--restart=Never', '--', 'perl', '-Mbignum=bpi', '-wle', 'print bpi(20)']);
    await kp.kubectlOk(['run', 'idx', '--image=busybox', '--restart=Never', '--env=N=3', '--', 'sh', '-c', 'echo n=$N; [ "$N" -lt 2 ] || exit 4']);
    await eventually('pod pi Completed', async () => ((await status('pi')) === 'Completed' ? true : undefined), 30_000);
    assert.equal(await kp.kubectlOk(['logs', 'pi']), `kubeplane: simulated container "pi" (image perl) started; it runs "perl -Mbignum=bpi -wle 'print bpi(20)'", which is not simulated\n`);
    await eventually('pod idx Error', async () => ((await status('idx')) === 'Error' ? true : undefined), 30_000);
    assert.equal((await kp.kubectlOk(['get', 'pod', 'idx', '-o', 'jsonpath={.status.containerStatuses[0].state.terminated.exitCode}'])).trim(), '4');
    assert.equal(await kp.kubectlOk(['logs', 'idx']), 'n=3\n');
  });

  test('kubectl logs -f follows until the container ends', async () => {
    await kp.kubectlOk(['run', 'f', '--image=busybox', '--restart=Never', '--', 'sh', '-c', 'sleep 1; echo one; sleep 1; echo two']);
    await eventually('pod f running', async () => ((await status('f')) === 'Running' ? true : undefined), 30_000);
    assert.equal(await kp.kubectlOk(['logs', '-f', 'f']), 'one\ntwo\n');
  });

  test('kubectl exec and port-forward: a 400 saying containers are simulated', async () => {
    await kp.kubectlOk(['run', 'svc', '--image=nginx:1.27']);
    await eventually('pod svc running', async () => ((await status('svc')) === 'Running' ? true : undefined), 30_000);
    assert.equal(await kp.kubectlOk(['logs', 'svc']), `kubeplane: simulated container "svc" (image nginx:1.27) started; its image's entrypoint is not simulated\n`);
    const exec = await kp.kubectl(['exec', 'svc', '--', 'ls']);
    assert.notEqual(exec.code, 0);
    assert.match(exec.stderr, /exec is not available for pod svc: its containers are simulated by kubeplane/);
  });

  test("a Deployment whose command ends (sh -c 'echo hi'): Completed, restarted, CrashLoopBackOff; logs --previous shows the last run", async () => {
    assert.equal((await kp.kubectlOk(['create', 'deployment', 'oneshot', '--image=busybox', '--', 'sh', '-c', 'echo hi'])).trim(), 'deployment.apps/oneshot created');
    const row = await eventually('CrashLoopBackOff', async () => {
      const out = (await kp.kubectlOk(['get', 'pods', '-l', 'app=oneshot', '--no-headers'])).trim();
      return /\bCrashLoopBackOff\b/.test(out) ? out : undefined;
    }, 30_000);
    assert.match(row, /^oneshot-\w+-\w{5}\s+0\/1\s+CrashLoopBackOff\s+1 \(\d+s ago\)\s+\d+s$/);
    const pod = row.split(/\s+/)[0] ?? '';
    assert.equal(await kp.kubectlOk(['logs', pod, '--previous']), 'hi\n');
    const describe = await kp.kubectlOk(['describe', 'pod', pod]);
    assert.match(describe, /^\s+Last State:\s+Terminated\n\s+Reason:\s+Completed\n\s+Exit Code:\s+0$/m);
    const rollout = await kp.kubectl(['rollout', 'status', 'deployment/oneshot', '--timeout=2s']);
    assert.notEqual(rollout.code, 0, 'never available');
  });
});
