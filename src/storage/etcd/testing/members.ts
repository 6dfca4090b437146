/**
 * Real etcd members for tests, the bench and e2e: each an `etcd` process (Debian's `etcd-server`) on
 * free loopback ports with a temporary data directory, stopped and removed afterwards. Readiness is
 * read from the member's own log line ("serving client traffic"), not polled. A member is killed when
 * the process that started it exits, so none outlives a test run.
 *
 * Tests that need etcd call {@link etcdSkipReason}: it names why they cannot run when etcd is not
 * installed, and throws instead when `KUBEPLANE_REQUIRE_ETCD=1` (set by `.ci/run`, which installs
 * etcd), so CI fails rather than skips.
 */

import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestPKI } from './pki.js';

/** The etcd binary, if one is installed: `$KUBEPLANE_ETCD_BINARY` or `etcd` on the PATH. */
export function etcdBinary(): string | undefined {
  const candidate = process.env['KUBEPLANE_ETCD_BINARY'] ?? 'etcd';
  const res = spawnSync(candidate, ['--version'], { encoding: 'utf8' });
  return res.status === 0 ? candidate : undefined;
}

/**
 * Why etcd tests must be skipped (undefined: etcd is installed, run them).
 * @throws Error when etcd is missing and `KUBEPLANE_REQUIRE_ETCD=1`
 */
export function etcdSkipReason(): string | undefined {
  if (etcdBinary() !== undefined) return undefined;
  const reason = 'etcd is not installed (apt-get install etcd-server, or set KUBEPLANE_ETCD_BINARY)';
  if (process.env['KUBEPLANE_REQUIRE_ETCD'] === '1') throw new Error(`KUBEPLANE_REQUIRE_ETCD=1 but ${reason}`);
  return reason;
}

/** One member of an {@link EtcdCluster}. */
export interface EtcdMember {
  name: string;
  clientUrl: string;
  peerUrl: string;
  /** True while its process runs. */
  readonly running: boolean;
  /** SIGKILLs the member (its data directory stays, for {@link restart}); resolves once it has exited. */
  kill(): Promise<void>;
  /** Starts the member again on the same ports and data; resolves once it serves. */
  restart(): Promise<void>;
}

/** A running etcd cluster of one or more members. */
export interface EtcdCluster {
  members: EtcdMember[];
  /** Every member's client URL, for `--etcd-servers`. */
  clientUrls: string[];
  /** Stops every member and removes the data directories. */
  stop(): Promise<void>;
}

/** A free loopback TCP port (bound, read and released; the caller binds it soon after). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Starts `size` etcd members (default 1) forming one cluster, serving clients over TLS with client
 * certificates required when `tls` is given (peers stay on plain HTTP), with raft timings short enough for tests
 * (heartbeat 10 ms and election timeout 50 ms for one member, which elects itself; etcd's defaults of
 * 100 ms and 1 s for several, since shorter ones made members of a loaded two-core machine call
 * elections over and over; etcd wants the timeout ≥ 5 heartbeats). Resolves once every member serves clients.
 * @throws Error when etcd is not installed or a member exits before it serves
 */
export async function startEtcdCluster(size = 1, tls?: TestPKI): Promise<EtcdCluster> {
  const binary = etcdBinary();
  if (binary === undefined) throw new Error('etcd is not installed');
  const root = mkdtempSync(join(tmpdir(), 'kubeplane-etcd-'));
  const specs: { name: string; clientPort: number; peerPort: number }[] = [];
  for (let i = 0; i < size; i++) specs.push({ name: `m${i}`, clientPort: await freePort(), peerPort: await freePort() });
  const initialCluster = specs.map((s) => `${s.name}=http://127.0.0.1:${s.peerPort}`).join(',');
  const [heartbeat, electionTimeout] = size === 1 ? [10, 50] : [100, 1000];
  const members = specs.map((spec) => {
    const clientUrl = `${tls ? 'https' : 'http'}://127.0.0.1:${spec.clientPort}`;
    const peerUrl = `http://127.0.0.1:${spec.peerPort}`;
    const args = [
      `--name=${spec.name}`,
      `--data-dir=${join(root, spec.name)}`,
      `--listen-client-urls=${clientUrl}`,
      `--advertise-client-urls=${clientUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=${initialCluster}`,
      '--initial-cluster-state=new',
      `--heartbeat-interval=${heartbeat}`,
      `--election-timeout=${electionTimeout}`,
      // Etcd 3.4.23 (Debian's) answers progress requests out of order, so watches rely on its periodic
      // progress notices (see ../watch.ts); every 100 ms here rather than every 10 minutes.
      '--experimental-watch-progress-notify-interval=100ms',
      ...(tls ? ['--client-cert-auth', `--trusted-ca-file=${tls.ca}`, `--cert-file=${tls.serverCert}`, `--key-file=${tls.serverKey}`] : []),
      '--logger=zap',
      '--log-outputs=stderr',
    ];
    return new Member(binary, spec.name, clientUrl, peerUrl, args);
  });
  try {
    await Promise.all(members.map((m) => m.restart()));
  } catch (err) {
    await Promise.all(members.map((m) => m.kill()));
    rmSync(root, { recursive: true, force: true });
    throw err;
  }
  return {
    members,
    clientUrls: members.map((m) => m.clientUrl),
    stop: async () => {
      await Promise.all(members.map((m) => m.kill()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * What etcd 3.4's zap logger says once the member has joined through raft (so a leader exists) and
 * serves clients: "serving client traffic insecurely; …" or "… securely".
 */
const READY = 'serving client traffic';

class Member implements EtcdMember {
  private child: ChildProcess | undefined;

  constructor(
    private readonly binary: string,
    readonly name: string,
    readonly clientUrl: string,
    readonly peerUrl: string,
    private readonly args: string[],
  ) {}

  get running(): boolean {
    return this.child !== undefined;
  }

  restart(): Promise<void> {
    if (this.child) return Promise.resolve();
    const child = spawn(this.binary, this.args, { stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    const killOnExit = () => child.kill('SIGKILL');
    process.once('exit', killOnExit);
    child.once('exit', () => {
      process.off('exit', killOnExit);
      if (this.child === child) this.child = undefined;
    });
    return new Promise((resolve, reject) => {
      let log = '';
      const onData = (chunk: Buffer) => {
        log = (log + chunk.toString('utf8')).slice(-4096);
        if (!log.includes(READY)) return;
        child.stderr?.off('data', onData);
        // Keep draining its log, so a full pipe never stalls the member.
        child.stderr?.resume();
        resolve();
      };
      child.stderr?.on('data', onData);
      child.once('exit', (code) => reject(new Error(`etcd member ${this.name} exited (${code}) before serving: ${log.slice(-1000)}`)));
      child.once('error', reject);
    });
  }

  kill(): Promise<void> {
    const child = this.child;
    if (!child) return Promise.resolve();
    return new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }
}
