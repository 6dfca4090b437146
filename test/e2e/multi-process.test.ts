/**
 * kubeplane split as upstream splits the control plane, every part a process of its own: a
 * three-member etcd cluster, two `kubeplane apiserver`s on it sharing one data directory, two
 * `kubeplane controller-manager`s and two `kubeplane scheduler`s with `--leader-elect` (each pair
 * spread over both API servers), and one `kubeplane nodes run`. With the real kubectl:
 *
 * - a 1,000-replica Deployment created through one API server rolls out; the leading controller
 *   manager is SIGKILLed in the middle of it; the other takes the kube-system/kube-controller-manager
 *   Lease within 15 s (measured from the kill, printed), and the rollout completes with exactly 1,000
 *   pods, all of one ReplicaSet;
 * - with one etcd member SIGKILLed, a scale to 1,050 through the other API server completes;
 * - kubectl pointed at either API server sees the same pods and the same resourceVersions;
 * - the `kubernetes` Service's Endpoints list both API servers.
 *
 * The leader election knobs are shortened (lease 8 s, renew deadline 6 s, retry 1 s, upstream's flags)
 * so the takeover is quick; pods start at once (`--pod-start-delay 0`) and record no events. Controller managers and
 * schedulers that exit by themselves (a lost Lease, say while an etcd member is down) are started
 * again, as a supervisor would; the SIGKILLed leader is not. A failing test prints the last lines of
 * every process's output; the waits are bounded so that one fails before the file's 180 s do.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { etcdSkipReason, startEtcdCluster, type EtcdCluster } from '../../src/storage/etcd/testing/members.js';
import { realClock } from '../../src/util/clock/index.js';
import { deploymentYaml, eventually, requireKubectl, startProcess, type Proc } from './harness.js';

const LEADER_ELECTION = ['--leader-elect-lease-duration', '8s', '--leader-elect-renew-deadline', '6s', '--leader-elect-retry-period', '1s'];

/** Set once the suite is tearing down: nothing is restarted any more. */
let stopping = false;

/** Runs kubectl against the kubeconfig `kc`; resolves with stdout, rejects on a non-zero exit. */
function kubectl(kc: string, args: string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = execFile('kubectl', args, { env: { ...process.env, KUBECONFIG: kc }, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      err ? reject(new Error(`kubectl ${args.join(' ')}: ${stderr || err.message}`)) : resolve(stdout),
    );
    if (input !== undefined) p.stdin?.end(input);
  });
}

interface PodList {
  items: { metadata: { name: string; resourceVersion: string; ownerReferences?: { uid: string }[] } }[];
}

/** Runs `fn`; when it fails, the error carries the last lines of every process's output. */
function withOutputs(procs: readonly Proc[], fn: () => Promise<void>): () => Promise<void> {
  return async () => {
    try {
      await fn();
    } catch (err) {
      const outputs = procs.map((p) => {
        const state = p.child.exitCode !== null || p.child.signalCode !== null ? `exited (${p.child.exitCode ?? p.child.signalCode})` : 'running';
        return `--- ${p.name}: ${state}\n${p.output().split('\n').slice(-15).join('\n')}`;
      });
      throw new Error(`${err instanceof Error ? err.message : String(err)}\n${outputs.join('\n')}`, { cause: err });
    }
  };
}

const skip = etcdSkipReason();

void describe('the control plane as processes: two API servers, leader-elected controller managers and schedulers, on three etcd members', { skip }, () => {
  let etcd: EtcdCluster;
  let dataDir: string;
  const procs: Proc[] = [];
  let kcA: string;
  let kcB: string;

  before(async () => {
    await requireKubectl();
    etcd = await startEtcdCluster(3);
    dataDir = mkdtempSync(join(tmpdir(), 'kubeplane-mp-'));
    const store = ['--data-dir', dataDir, '--datastore', 'etcd', '--etcd-servers', etcd.clientUrls.join(',')];
    // Each API server writes <data-dir>/kubeconfig for itself: keep a copy of each.
    procs.push(await startProcess('apiserver-a', ['apiserver', '--secure-port', '0', ...store], /apiserver is ready/));
    kcA = join(dataDir, 'kubeconfig-a');
    copyFileSync(join(dataDir, 'kubeconfig'), kcA);
    procs.push(await startProcess('apiserver-b', ['apiserver', '--secure-port', '0', ...store], /apiserver is ready/));
    kcB = join(dataDir, 'kubeconfig-b');
    copyFileSync(join(dataDir, 'kubeconfig'), kcB);
    for (const [name, kc] of [
      ['controller-manager-1', kcA],
      ['controller-manager-2', kcB],
    ] as const) {
      procs.push(await startProcess(name, ['controller-manager', '--kubeconfig', kc, ...LEADER_ELECTION], /Attempting to acquire leader lease/, () => !stopping));
    }
    for (const [name, kc] of [
      ['scheduler-1', kcB],
      ['scheduler-2', kcA],
    ] as const) {
      procs.push(await startProcess(name, ['scheduler', '--kubeconfig', kc, ...LEADER_ELECTION], /Attempting to acquire leader lease/, () => !stopping));
    }
    procs.push(await startProcess('nodes', ['nodes', 'run', '--kubeconfig', kcA, '--count', '20', '--pod-start-delay', '0', '--kubelet-pod-events=false'], /nodes are ready/));
  });

  after(async () => {
    stopping = true;
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await etcd?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('the leading controller manager is SIGKILLed mid-rollout of 1,000 replicas: the other takes over within 15 s, exactly 1,000 pods', { timeout: 300_000 }, withOutputs(procs, async () => {
    const leader = await eventually('a leading controller manager', () =>
      Promise.resolve(procs.find((p) => p.name.startsWith('controller-manager') && p.output().includes('caches synced; running'))),
    );
    await kubectl(kcB, ['apply', '-f', '-'], deploymentYaml('web', 1000));
    await eventually('100 pods created', async () => {
      const n = (await kubectl(kcA, ['get', 'pods', '-l', 'app=web', '-o', 'name'])).split('\n').filter(Boolean).length;
      return n >= 100 ? n : undefined;
    });
    const holderBefore = (await kubectl(kcA, ['get', 'lease', '-n', 'kube-system', 'kube-controller-manager', '-o', 'jsonpath={.spec.holderIdentity}'])).trim();
    const killedAt = realClock.now();
    leader.child.kill('SIGKILL');
    const holderAfter = await eventually(
      'another holder of the kube-controller-manager Lease',
      async () => {
        const h = (await kubectl(kcB, ['get', 'lease', '-n', 'kube-system', 'kube-controller-manager', '-o', 'jsonpath={.spec.holderIdentity}'])).trim();
        return h !== holderBefore && h !== '' ? h : undefined;
      },
      60_000,
    );
    const takeoverSeconds = (realClock.now() - killedAt) / 1000;
    process.stdout.write(`# the standby controller manager took the Lease ${takeoverSeconds.toFixed(1)} s after the leader was SIGKILLed\n`);
    assert.ok(takeoverSeconds < 15, `took over after ${takeoverSeconds} s`);
    const other = procs.find((p) => p.name.startsWith('controller-manager') && p !== leader) as Proc;
    assert.match(other.output(), new RegExp(`became leader.*${holderAfter}|${holderAfter}.*became leader`));
    await kubectl(kcA, ['rollout', 'status', 'deployment/web', '--timeout=90s']);
    const pods = JSON.parse(await kubectl(kcB, ['get', 'pods', '-l', 'app=web', '-o', 'json'])) as PodList;
    assert.equal(pods.items.length, 1000);
    const owners = new Set(pods.items.map((p) => p.metadata.ownerReferences?.[0]?.uid));
    assert.equal(owners.size, 1, 'every pod belongs to the one ReplicaSet');
    const rs = JSON.parse(await kubectl(kcA, ['get', 'rs', '-l', 'app=web', '-o', 'json'])) as { items: { status: { replicas: number; readyReplicas: number } }[] };
    assert.deepEqual(
      rs.items.map((r) => [r.status.replicas, r.status.readyReplicas]),
      [[1000, 1000]],
    );
  }));

  test('with one etcd member SIGKILLed, a scale to 1,050 through the other API server completes', { timeout: 300_000 }, withOutputs(procs, async () => {
    await (etcd.members[0] as { kill(): Promise<void> }).kill();
    await kubectl(kcB, ['scale', 'deployment/web', '--replicas=1050']);
    await kubectl(kcB, ['rollout', 'status', 'deployment/web', '--timeout=60s']);
    const names = (await kubectl(kcB, ['get', 'pods', '-l', 'app=web', '-o', 'name'])).split('\n').filter(Boolean);
    assert.equal(names.length, 1050);
  }));

  test('kubectl pointed at either API server sees the same pods at the same resourceVersions', { timeout: 120_000 }, withOutputs(procs, async () => {
    const view = async (kc: string) => {
      const list = JSON.parse(await kubectl(kc, ['get', 'pods', '-l', 'app=web', '-o', 'json'])) as PodList;
      return list.items.map((p) => `${p.metadata.name}@${p.metadata.resourceVersion}`).sort();
    };
    // The simulated kubelets may still be writing the last statuses: wait until both views agree.
    const [a, b] = await eventually('the same view through both API servers', async () => {
      const pair = await Promise.all([view(kcA), view(kcB)]);
      return pair[0].join() === pair[1].join() ? pair : undefined;
    });
    assert.equal(a.length, 1050);
    assert.deepEqual(a, b);
  }));

  test('the kubernetes Service\'s Endpoints list both API servers', { timeout: 60_000 }, withOutputs(procs, async () => {
    const ports = procs.filter((p) => p.name.startsWith('apiserver')).map((p) => Number(/https:\/\/127\.0\.0\.1:(\d+)/.exec(p.output())?.[1]));
    const ep = JSON.parse(await kubectl(kcA, ['get', 'endpoints', 'kubernetes', '-o', 'json'])) as { subsets: { addresses: { ip: string }[]; ports: { name: string; port: number }[] }[] };
    assert.deepEqual(
      ep.subsets.map((s) => [s.addresses.map((a) => a.ip), s.ports.map((p) => `${p.name}:${p.port}`)]),
      [...ports].sort((x, y) => x - y).map((port) => [['127.0.0.1'], [`https:${port}`]]),
    );
  }));
});
