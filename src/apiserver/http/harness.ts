/**
 * Test harness: the HTTP server on 127.0.0.1 (port 0) over a {@link FakeCore}, with a fake clock, a
 * recording logger and fetch helpers that send the bearer token.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { RestRequest } from '../../api/request.js';
import { FakeClock } from '../../util/clock/index.js';
import { FakeCore, fakeSchema } from './fake-core.js';
import { startHttpServer, type HttpServerOptions, type RunningHttpServer } from './server.js';
import type { HandleResult } from './types.js';

export const TOKEN = 'secret-token';

/** A started server and its fake core. */
export interface TestServer {
  core: FakeCore;
  clock: FakeClock;
  server: RunningHttpServer;
  base: string;
  logs: { level: string; o: object; msg?: string }[];
  /** fetch with `Authorization: Bearer <TOKEN>` (and Content-Type application/json for string bodies). */
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

/** Starts a server; `extra` overrides options. Close it with `t.server.close()`. */
export async function startTestServer(extra: Partial<HttpServerOptions> = {}): Promise<TestServer> {
  const core = new FakeCore();
  const clock = new FakeClock();
  const logs: TestServer['logs'] = [];
  const logger = {
    info: (o: object, msg?: string) => logs.push({ level: 'info', o, msg }),
    warn: (o: object, msg?: string) => logs.push({ level: 'warn', o, msg }),
  };
  const server = await startHttpServer(core, { host: '127.0.0.1', port: 0, token: TOKEN, clock, logger, schema: fakeSchema, ...extra });
  const base = `http://127.0.0.1:${server.port}`;
  return {
    core,
    clock,
    server,
    base,
    logs,
    fetch: (path, init = {}) => {
      const headers = new Headers(init.headers);
      if (!headers.has('authorization')) headers.set('authorization', `Bearer ${TOKEN}`);
      // fetch labels string bodies text/plain; kubectl sends JSON.
      if (typeof init.body === 'string' && !headers.has('content-type')) headers.set('content-type', 'application/json');
      return fetch(base + path, { ...init, headers });
    },
  };
}

/** Requests held at the core until released (see {@link holdRequests}). */
export interface HeldRequests {
  /** Every request that reached the core, in order. */
  readonly arrived: RestRequest[];
  /** Resolves once `n` requests have reached the core. */
  arrivals(n: number): Promise<void>;
  /** Lets every held request (and every later one) complete with `result`. */
  release(): void;
}

/**
 * Makes `core` hold each request it receives until {@link HeldRequests.release}, so a test can keep
 * requests in flight for as long as it needs without relying on timing. Released requests answer
 * `result` (default: 200 with an empty PodList).
 */
export function holdRequests(core: FakeCore, result: HandleResult = { code: 200, body: { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: [] }, warnings: [] }): HeldRequests {
  const arrived: RestRequest[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  core.onHandle = async (req) => {
    arrived.push(req);
    for (const w of waiters.filter((x) => arrived.length >= x.n)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
    await gate;
    return result;
  };
  return {
    arrived,
    arrivals: (n) => (arrived.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    release: () => open(),
  };
}

const OPENSSL = '/usr/bin/openssl';

/** A throwaway self-signed certificate for 127.0.0.1 made with openssl, or undefined when openssl is missing. */
export async function selfSignedCert(): Promise<{ cert: string; key: string } | undefined> {
  if (!existsSync(OPENSSL)) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'kubeplane-cert-'));
  try {
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    await promisify(execFile)(OPENSSL, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1']);
    return { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
