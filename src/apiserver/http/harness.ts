/**
 * Test harness: the HTTP server on 127.0.0.1 (port 0) over a {@link FakeCore}, with a fake clock, a
 * recording logger and fetch helpers that send the bearer token.
 */
import { FakeClock } from '../../util/clock/index.js';
import { FakeCore, fakeSchema } from './fake-core.js';
import { startHttpServer, type HttpServerOptions, type RunningHttpServer } from './server.js';

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
