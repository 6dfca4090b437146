/**
 * End-to-end harness: starts the built CLI (`dist/src/cli/main.js up`) as a child process on a free
 * port with its own data directory, and runs the real `kubectl` against it. Waiting is done by
 * kubectl's own watches (`rollout status`, `wait`) or by polling an observable outcome; nothing asserts
 * on wall-clock time.
 */
import { spawn, execFile, execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { realClock } from '../../src/util/clock/index.js';

/** Repository root (this file compiles to dist/test/e2e/harness.js). */
export const repoRoot = resolve(fileURLToPath(import.meta.url), '../../../..');
const cliPath = join(repoRoot, 'dist/src/cli/main.js');

/** Result of one kubectl run. */
export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A kubeplane process under test. */
export interface Kubeplane {
  dataDir: string;
  kubeconfig: string;
  /** Output the process wrote so far (stdout + stderr), for failure messages. */
  output(): string;
  /** Runs kubectl with this cluster's kubeconfig; never throws on a non-zero exit. */
  kubectl(args: string[], input?: string): Promise<KubectlResult>;
  /** Runs kubectl and fails unless it exits 0; returns stdout. */
  kubectlOk(args: string[], input?: string): Promise<string>;
  /**
   * Runs one versioned kubectl (`minor` 27 … 33 runs `kubectl.1.<minor>`, see {@link versionedKubectl})
   * rather than the dispatcher, which picks one by the server's minor; never throws on a non-zero exit.
   */
  kubectlAt(minor: number, args: string[], input?: string): Promise<KubectlResult>;
  /** Starts kubectl with this cluster's kubeconfig and does not wait for it (watches); the caller ends it. */
  spawnKubectl(args: string[]): ChildProcess;
  /**
   * Runs a kubeplane subcommand that talks to this cluster (`kubeplane load …`) with the built CLI and
   * `--kubeconfig` of this cluster appended; never throws on a non-zero exit.
   */
  kubeplane(args: string[]): Promise<KubectlResult>;
  /** Runs `kubectl … -o json` and parses the output. */
  kubectlJson<T = Record<string, unknown>>(args: string[]): Promise<T>;
  /** Sends SIGINT and waits for a clean exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  /**
   * Sends `signal` (default SIGKILL: the process gets no chance to flush, commit or close anything, as
   * in a crash or an OOM kill) and waits for it to exit; resolves with the signal that ended it, or
   * null if it had exited by itself. Crash-safety tests then start a new process on the same `dataDir`.
   */
  kill(signal?: NodeJS.Signals): Promise<NodeJS.Signals | null>;
}

let kubectlChecked = false;

/** The exit code of a finished `execFile` child: 0 without an error, else its code (1 when it has none, e.g. killed). */
function exitCodeOf(err: Error | null): number {
  if (!err) return 0;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'number' ? code : 1;
}

/**
 * The path of kubectl 1.`minor` (27 … 33): the versioned binaries sit next to the `kubectl` dispatcher's
 * real file.
 * @throws Error when kubectl is not on PATH
 */
export function versionedKubectl(minor: number): string {
  const dispatcher = execFileSync('readlink', ['-f', execFileSync('which', ['kubectl']).toString().trim()]).toString().trim();
  return join(dirname(dispatcher), `kubectl.1.${minor}`);
}

/** Fails with a clear message when kubectl is not installed. */
export async function requireKubectl(): Promise<void> {
  if (kubectlChecked) return;
  await new Promise<void>((ok, fail) => {
    execFile('kubectl', ['version', '--client'], (err) => {
      if (err) fail(new Error('the e2e tests need the real `kubectl` on PATH (see README); it was not found: ' + err.message));
      else ok();
    });
  });
  kubectlChecked = true;
}

/** Starts `kubeplane up` with `nodes` simulated nodes; reuses `dataDir` when given (restart tests). */
export async function startKubeplane(opts: { nodes?: number; dataDir?: string; args?: string[] } = {}): Promise<Kubeplane> {
  await requireKubectl();
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'kubeplane-e2e-'));
  const cacheDir = mkdtempSync(join(tmpdir(), 'kubectl-cache-'));
  const child: ChildProcess = spawn(
    process.execPath,
    [cliPath, 'up', '--port', '0', '--data-dir', dataDir, '--nodes', String(opts.nodes ?? 3), ...(opts.args ?? [])],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // None outlives the test file, even one the runner ends at its timeout or kills.
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((ok) => child.on('exit', (code, signal) => ok({ code, signal })));

  await new Promise<void>((ok, fail) => {
    const check = (): void => {
      if (out.includes('kubeplane is ready')) ok();
    };
    child.stdout?.on('data', check);
    void exited.then(({ code }) => fail(new Error(`kubeplane exited with ${code} before it was ready:\n${out}`)));
    check();
  });
  const kubeconfig = join(dataDir, 'kubeconfig');

  const kubectlEnv = { ...process.env, KUBECONFIG: kubeconfig };
  const run = (binary: string, args: string[], input?: string): Promise<KubectlResult> =>
    new Promise((ok) => {
      const p = execFile(
        binary,
        ['--cache-dir', cacheDir, ...args],
        { env: kubectlEnv, maxBuffer: 64 * 1024 * 1024 },
        (err, stdout, stderr) => {
          ok({ code: exitCodeOf(err), stdout, stderr });
        },
      );
      if (input !== undefined) p.stdin?.end(input);
    });
  const kubectl = (args: string[], input?: string): Promise<KubectlResult> => run('kubectl', args, input);

  const kubectlOk = async (args: string[], input?: string): Promise<string> => {
    const r = await kubectl(args, input);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
    return r.stdout;
  };

  return {
    dataDir,
    kubeconfig,
    output: () => out,
    kubectl,
    kubectlOk,
    kubectlAt: (minor, args, input) => run(versionedKubectl(minor), args, input),
    kubeplane: (args) =>
      new Promise((ok) => {
        execFile(process.execPath, [cliPath, ...args, '--kubeconfig', kubeconfig], (err, stdout, stderr) => {
          ok({ code: exitCodeOf(err), stdout, stderr });
        });
      }),
    spawnKubectl: (args) => spawn('kubectl', ['--cache-dir', cacheDir, ...args], { env: kubectlEnv, stdio: ['ignore', 'pipe', 'pipe'] }),
    kubectlJson: async <T>(args: string[]): Promise<T> => JSON.parse(await kubectlOk([...args, '-o', 'json'])) as T,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGINT');
      const { code } = await exited;
      rmSync(cacheDir, { recursive: true, force: true });
      return code;
    },
    kill: async (signal = 'SIGKILL') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const ended = await exited;
      rmSync(cacheDir, { recursive: true, force: true });
      return ended.signal;
    },
  };
}

/** A kubeplane process started with {@link startProcess}. */
export interface Proc {
  name: string;
  /** The running process (a new one after a restart). */
  child: ChildProcess;
  /** Everything every incarnation wrote. */
  output(): string;
}

/**
 * Starts `kubeplane <args>` with the built CLI and resolves once its output matches `ready`. A process
 * that exits by itself while `restart()` says so (a controller manager or scheduler that lost its
 * Lease exits 1, as upstream's do) is started again, as the kubelet or systemd restarts them; one
 * killed by a signal is not. None outlives the test file, even one the runner ends at its timeout.
 */
export async function startProcess(name: string, args: string[], ready: RegExp, restart?: () => boolean): Promise<Proc> {
  let out = '';
  const spawnOne = (): ChildProcess => {
    const child = spawn(process.execPath, [cliPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const killOnExit = (): void => void child.kill('SIGKILL');
    process.once('exit', killOnExit);
    child.once('exit', () => process.off('exit', killOnExit));
    const append = (d: Buffer): void => void (out += d.toString());
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    child.once('exit', (code, signal) => {
      if (!restart || signal !== null || !restart()) return;
      out += `\n[exited ${code}; restarted]\n`;
      proc.child = spawnOne();
    });
    return child;
  };
  const proc: Proc = { name, child: spawnOne(), output: () => out };
  const first = proc.child;
  await new Promise<void>((resolve, reject) => {
    const check = (): void => {
      if (ready.test(out)) resolve();
    };
    first.stdout?.on('data', check);
    first.stderr?.on('data', check);
    first.once('exit', (code) => reject(new Error(`${name} exited (${code}) before it was ready:\n${out}`)));
  });
  return proc;
}

/**
 * Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs` with the
 * last observation. Used only for outcomes kubectl cannot wait for itself (e.g. objects removed by
 * the garbage collector).
 */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = realClock.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (realClock.now() > deadline) throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
    await realClock.sleep(100);
  }
}

/** Reads a file of the repository (examples). */
export function repoFile(path: string): string {
  return readFileSync(join(repoRoot, path), 'utf8');
}

/** Removes a data directory made by {@link startKubeplane}. */
export function removeDataDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * A fresh P-256 PKCS#10 certificate request for `subject` (`CN=alice,O=dev`), as the base64 of its PEM:
 * what a CertificateSigningRequest's `spec.request` holds.
 */
export async function certificateRequest(subject: string): Promise<string> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const request = await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: alg });
  return Buffer.from(request.toString('pem')).toString('base64');
}

/**
 * Points `$KUBE_EDITOR` (what `kubectl edit` runs on the object's YAML) at a script that sets the
 * object's top-level `spec.replicas` to `replicas`; returns the function that removes the script.
 */
export function replicasEditor(replicas: number): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'kubectl-editor-'));
  const editor = join(dir, 'editor.sh');
  writeFileSync(editor, `#!/bin/sh\nsed -i "s/^  replicas: .*/  replicas: ${replicas}/" "$1"\n`);
  chmodSync(editor, 0o755);
  process.env['KUBE_EDITOR'] = editor;
  return () => rmSync(dir, { recursive: true, force: true });
}

/** How to reach a kubeplane over HTTPS without kubectl: its port, CA and bearer token. */
export function endpointOf(kp: Kubeplane): { port: number; ca: string; token: string } {
  const server = /server: https:\/\/127\.0\.0\.1:(\d+)/.exec(readFileSync(kp.kubeconfig, 'utf8'));
  if (!server) throw new Error('no server in the kubeconfig');
  return { port: Number(server[1]), ca: readFileSync(join(kp.dataDir, 'ca.crt'), 'utf8'), token: readFileSync(join(kp.dataDir, 'token'), 'utf8').trim() };
}

/**
 * A kubeconfig (written in the data directory) for this cluster that authenticates with `token` alone:
 * beside the admin kubeconfig's client certificate a `--token` is not what authenticates (the
 * certificate is, as upstream's x509 authenticator runs first). Returns its path.
 */
export function tokenKubeconfig(kp: Kubeplane, token: string, name = 'token'): string {
  const ep = endpointOf(kp);
  const path = join(kp.dataDir, `kubeconfig-${name}`);
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: `https://127.0.0.1:${ep.port}`, 'certificate-authority-data': Buffer.from(ep.ca).toString('base64') } }],
      users: [{ name: 'u', user: { token } }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'c',
    }),
    { mode: 0o600 },
  );
  return path;
}

/** A raw answer: status code, headers and body text. */
export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * Sends one raw HTTPS request to a kubeplane, for what kubectl cannot send (a body byte for byte, as a
 * client that writes its own YAML does); resolves with the answer whatever its status.
 */
export function httpRequest(kp: Kubeplane, req: { method: string; path: string; contentType?: string; body?: string }): Promise<HttpResponse> {
  const ep = endpointOf(kp);
  return new Promise((resolve, reject) => {
    const r = https.request(
      {
        host: '127.0.0.1',
        port: ep.port,
        method: req.method,
        path: req.path,
        ca: ep.ca,
        agent: false,
        headers: { authorization: `Bearer ${ep.token}`, ...(req.contentType ? { 'content-type': req.contentType } : {}) },
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    r.on('error', reject);
    r.end(req.body);
  });
}

/**
 * A kubectl table as rows of cells: the non-empty lines, trimmed, split on runs of two or more spaces
 * (kubectl pads columns so; a cell may hold single spaces, e.g. `cpu: 200m/1, pods: 2/10`).
 */
export function kubectlTable(out: string): string[][] {
  return out
    .trim()
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => l.trim().split(/\s{2,}/));
}

/** A Deployment manifest of nginx:1.27 labelled `app: <name>`; the same name, selector and template give the same pod-template-hash. */
export function deploymentYaml(name: string, replicas: number, namespace = 'default'): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: ${namespace}
spec:
  replicas: ${replicas}
  selector:
    matchLabels:
      app: ${name}
  template:
    metadata:
      labels:
        app: ${name}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
`;
}
