/**
 * pods/log computed from the pod (pod-logs.ts): container selection and upstream's errors, the
 * run (current, previous, CrashLoopBackOff), lines up to the current time, and the options.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ContainerStatus, Pod } from '../../../api/index.js';
import { StatusError } from '../../../machinery/errors/index.js';
import { FakeClock, flushAsync } from '../../../util/clock/index.js';
import { podLog, type LogStream } from './pod-logs.js';

const T0 = Date.UTC(2025, 0, 1);
const at = (s: number): string => new Date(T0 + s * 1000).toISOString().replace(/\.000Z$/, 'Z');

function pod(script: string, state: ContainerStatus['state'], extra: Partial<ContainerStatus> = {}): Pod {
  return {
    metadata: { name: 'p', namespace: 'default', uid: 'u' },
    spec: { nodeName: 'n1', restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', script] }] },
    status: { phase: 'Running', containerStatuses: [{ name: 'c', image: 'busybox', imageID: '', ready: true, restartCount: 0, state, ...extra }] },
  };
}

const SCRIPT = 'echo one; sleep 2; echo two; sleep 2; echo three';
const clockAt = (s: number): FakeClock => new FakeClock(T0 + s * 1000);
const text = (v: string | LogStream): string => {
  assert.equal(typeof v, 'string');
  return v as string;
};
const badRequest = (fn: () => unknown, message: string): void => {
  assert.throws(fn, (err: unknown) => err instanceof StatusError && err.status.code === 400 && err.status.message === message);
};

describe('pods/log', () => {
  const running = pod(SCRIPT, { running: { startedAt: at(0) } });

  test('a running container: the lines printed by now', () => {
    assert.equal(text(podLog(running, {}, clockAt(3))), 'one\ntwo\n');
    assert.equal(text(podLog(running, {}, clockAt(10))), 'one\ntwo\nthree\n');
  });

  test('tailLines, sinceSeconds, timestamps, limitBytes', () => {
    const c = clockAt(10);
    assert.equal(text(podLog(running, { tailLines: '1' }, c)), 'three\n');
    assert.equal(text(podLog(running, { tailLines: '0' }, c)), '');
    assert.equal(text(podLog(running, { sinceSeconds: '7' }, c)), 'three\n');
    assert.equal(text(podLog(running, { timestamps: 'true', tailLines: '1' }, c)), '2025-01-01T00:00:04.000000000Z three\n');
    assert.equal(text(podLog(running, { limitBytes: '5' }, c)), 'one\nt');
    badRequest(() => podLog(running, { tailLines: '-1' }, c), 'tailLines: Invalid value: must be greater than or equal to 0');
  });

  test('a terminated container: its lines up to finishedAt', () => {
    const killed = pod(SCRIPT, { terminated: { exitCode: 137, reason: 'Error', startedAt: at(0), finishedAt: at(3) } });
    assert.equal(text(podLog(killed, {}, clockAt(60))), 'one\ntwo\n');
  });

  test('previous: the run in lastState; CrashLoopBackOff serves the exited run', () => {
    const backoff = pod('echo attempt $HOSTNAME; exit 1', { waiting: { reason: 'CrashLoopBackOff' } }, { lastState: { terminated: { exitCode: 1, startedAt: at(5), finishedAt: at(5) } }, restartCount: 1 });
    assert.equal(text(podLog(backoff, { previous: 'true' }, clockAt(9))), 'attempt p\n');
    assert.equal(text(podLog(backoff, {}, clockAt(9))), 'attempt p\n');
    badRequest(() => podLog(running, { previous: 'true' }, clockAt(1)), 'previous terminated container "c" in pod "p" not found');
  });

  test("upstream's errors: several containers, unknown container, waiting, no host", () => {
    const two: Pod = { ...running, spec: { ...running.spec!, containers: [...running.spec!.containers, { name: 'd', image: 'x' }], initContainers: [{ name: 'i', image: 'x' }] } };
    badRequest(() => podLog(two, {}, clockAt(1)), 'a container name must be specified for pod p, choose one of: [c d] or one of the init containers: [i]');
    badRequest(() => podLog(running, { container: 'zz' }, clockAt(1)), 'container zz is not valid for pod p');
    badRequest(() => podLog(pod(SCRIPT, { waiting: { reason: 'ContainerCreating' } }), {}, clockAt(1)), 'container "c" in pod "p" is waiting to start: ContainerCreating');
    badRequest(() => podLog({ ...running, spec: { ...running.spec!, nodeName: '' }, status: {} }, {}, clockAt(1)), 'pod p does not have a host assigned');
  });

  test('follow: the lines so far, then each at its time on the clock, ending with the program', async () => {
    const clock = clockAt(1);
    const stream = podLog(running, { follow: 'true' }, clock);
    assert.notEqual(typeof stream, 'string');
    const got: string[] = [];
    let ended = false;
    const done = (async () => {
      for await (const chunk of stream as LogStream) got.push(chunk);
      ended = true;
    })();
    await flushAsync();
    assert.deepEqual(got, ['one\n']);
    await clock.stepAsync(1000);
    await flushAsync();
    assert.deepEqual(got, ['one\n', 'two\n']);
    await clock.stepAsync(2000);
    await flushAsync();
    assert.deepEqual(got, ['one\n', 'two\n', 'three\n']);
    await done;
    assert.equal(ended, true);
  });

  test('a container whose program is not simulated: its start-up line at the start of each run (--previous, --timestamps)', () => {
    const nginx = (state: ContainerStatus['state'], extra: Partial<ContainerStatus> = {}): Pod => ({
      metadata: { name: 'web-1', namespace: 'default', uid: 'u' },
      spec: { nodeName: 'n1', containers: [{ name: 'web', image: 'nginx:1.27' }] },
      status: { phase: 'Running', containerStatuses: [{ name: 'web', image: 'nginx:1.27', imageID: '', ready: true, restartCount: 0, state, ...extra }] },
    });
    const LINE = `kubeplane: simulated container "web" (image nginx:1.27) started; its image's entrypoint is not simulated\n`;
    assert.equal(text(podLog(nginx({ running: { startedAt: at(0) } }), {}, clockAt(600))), LINE);
    const restarted = nginx({ running: { startedAt: at(30) } }, { restartCount: 1, lastState: { terminated: { exitCode: 137, reason: 'Error', startedAt: at(5), finishedAt: at(20) } } });
    assert.equal(text(podLog(restarted, { timestamps: 'true' }, clockAt(60))), `2025-01-01T00:00:30.000000000Z ${LINE}`);
    assert.equal(text(podLog(restarted, { previous: 'true', timestamps: 'true' }, clockAt(60))), `2025-01-01T00:00:05.000000000Z ${LINE}`);
    const perl = pod('perl -e 1', { terminated: { exitCode: 0, reason: 'Completed', startedAt: at(0), finishedAt: at(1) } });
    assert.equal(text(podLog(perl, {}, clockAt(60))), `kubeplane: simulated container "c" (image busybox) started; it runs "sh -c 'perl -e 1'", which is not simulated\n`);
  });

  test('follow under restartPolicy Always: a server (an unknown command) stays open; a program that ends closes the stream', async () => {
    const follow = async (p: Pod): Promise<{ got: string[]; ended: boolean }> => {
      const clock = clockAt(1);
      const out = { got: [] as string[], ended: false };
      void (async () => {
        for await (const chunk of podLog(p, { follow: 'true' }, clock) as LogStream) out.got.push(chunk);
        out.ended = true;
      })();
      await clock.stepAsync(3_600_000);
      await flushAsync();
      return out;
    };
    const server = pod('echo starting; exec my-server', { running: { startedAt: at(0) } });
    assert.deepEqual(await follow({ ...server, spec: { ...server.spec!, restartPolicy: 'Always' } }), { got: ['starting\n'], ended: false });
    assert.deepEqual(await follow({ ...running, spec: { ...running.spec!, restartPolicy: 'Always' } }), { got: ['one\n', 'two\n', 'three\n'], ended: true });
  });

  test('follow on a finished container returns the text at once', () => {
    assert.equal(text(podLog(running, { follow: 'true' }, clockAt(60))), 'one\ntwo\nthree\n');
  });
});
