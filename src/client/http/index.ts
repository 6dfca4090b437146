/**
 * {@link Transport} over HTTP(S)/JSON, for any Kubernetes API server: builds upstream's URL space
 * (`/api/v1/...`, `/apis/<group>/<version>/...`, `namespaces/<ns>/` prefix, `/<name>/<subresource>`),
 * sends JSON, and rebuilds failures as StatusError from the `metav1.Status` body, as client-go's
 * `rest.Request` does (k8s.io/client-go/rest/request.go `transformResponse`).
 *
 * Watches are `GET ...?watch=true` whose chunked body is one JSON event per line
 * (apimachinery/pkg/watch/streamwatcher.go with the newline-delimited JSON framer).
 */
import http from 'node:http';
import https from 'node:https';
import { statusErrorFromResponse } from '../../machinery/errors/index.js';
import type { RestRequest, Transport, WatchEvent, WatchStream } from '../../api/request.js';

/** Connection settings (normally from a kubeconfig, see `client/kubeconfig.ts`). */
export interface HttpTransportOptions {
  /** Base URL, e.g. `https://127.0.0.1:6443`; a path prefix is kept (`https://host/k8s/clusters/c1`). */
  server: string;
  /** Bearer token, sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** PEM certificate(s) of the CA that signed the server's certificate. */
  caData?: string;
  /** Accept any server certificate. */
  insecureSkipTLSVerify?: boolean;
  /** PEM client certificate and key, for a user that authenticates with one. */
  cert?: string;
  key?: string;
  /**
   * Headers to add to every request (an Authorization header from an exec credential plugin, say),
   * asked for before each request; rejects to fail the request.
   */
  headers?: () => Promise<Record<string, string>>;
  /** Default `User-Agent`; a request's own `userAgent` wins. */
  userAgent?: string;
}

const DEFAULT_USER_AGENT = 'kubeplane';

/** Talks to one API server over a keep-alive connection pool. */
export class HttpTransport implements Transport {
  private readonly base: URL;
  private readonly agent: http.Agent;
  private readonly opts: HttpTransportOptions;

  constructor(opts: HttpTransportOptions) {
    this.opts = opts;
    this.base = new URL(opts.server);
    if (this.base.protocol === 'https:') {
      const tls: https.AgentOptions = { keepAlive: true, rejectUnauthorized: !opts.insecureSkipTLSVerify };
      if (opts.caData) tls.ca = opts.caData;
      if (opts.cert) tls.cert = opts.cert;
      if (opts.key) tls.key = opts.key;
      this.agent = new https.Agent(tls);
    } else if (this.base.protocol === 'http:') {
      this.agent = new http.Agent({ keepAlive: true });
    } else {
      throw new Error(`unsupported server URL ${JSON.stringify(opts.server)}: want http:// or https://`);
    }
  }

  /** Closes idle pooled connections (running watches keep theirs until stopped). */
  close(): void {
    this.agent.destroy();
  }

  /** The request URL: path from {@link requestPath} under the server's base path, plus the query. */
  url(req: RestRequest, extraQuery?: Record<string, string>): URL {
    const url = new URL(this.base.href);
    url.pathname = url.pathname.replace(/\/+$/, '') + requestPath(req);
    for (const [k, v] of Object.entries({ ...extraQuery, ...req.query })) url.searchParams.set(k, v);
    return url;
  }

  async request(req: RestRequest): Promise<unknown> {
    const extra = this.opts.headers ? await this.opts.headers() : {};
    return this.exchange((onResponse) => this.send(req, METHODS[req.verb], this.url(req), extra, onResponse));
  }

  /**
   * GETs a path outside the resource URL space (`/api`, `/apis/apps/v1`: discovery), under the
   * server's base path; returns the decoded JSON body.
   * @throws StatusError for a non-2xx answer, Error when the connection fails
   */
  async getPath(path: string): Promise<unknown> {
    const url = new URL(this.base.href);
    url.pathname = url.pathname.replace(/\/+$/, '') + path;
    const extra = this.opts.headers ? await this.opts.headers() : {};
    return this.exchange((onResponse) => this.send({ verb: 'get' }, 'GET', url, extra, onResponse));
  }

  /** Sends what `open` opens, reads the whole answer, and decodes it; a non-2xx answer throws its StatusError. */
  private async exchange(open: (onResponse: (res: http.IncomingMessage) => void) => http.ClientRequest): Promise<unknown> {
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const r = open((res) => {
        res.setEncoding('utf8');
        let text = '';
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      });
      r.on('error', reject);
    });
    const body = parseBody(text);
    if (status < 200 || status > 299) throw statusErrorFromResponse(status, body);
    return body;
  }

  watch(req: RestRequest, onEvent: (ev: WatchEvent) => void, onClose: (err?: unknown) => void): WatchStream {
    let closed = false;
    let r: http.ClientRequest | undefined;
    const close = (err?: unknown): void => {
      if (closed) return;
      closed = true;
      r?.destroy();
      onClose(err);
    };
    const start = (extra: Record<string, string>): void => {
      if (closed) return;
      r = this.openWatch(req, extra, onEvent, close, () => closed);
    };
    if (this.opts.headers) this.opts.headers().then(start, close);
    else start({});
    return { stop: () => close() };
  }

  /** Sends a watch request and feeds its newline-delimited events to `onEvent` until `close`. */
  private openWatch(
    req: RestRequest,
    extra: Record<string, string>,
    onEvent: (ev: WatchEvent) => void,
    close: (err?: unknown) => void,
    isClosed: () => boolean,
  ): http.ClientRequest {
    const r = this.send(req, 'GET', this.url(req, { watch: 'true' }), extra, (res) => {
      res.setEncoding('utf8'); // decodes multi-byte characters split across chunks
      if (res.statusCode !== 200) {
        let text = '';
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => close(statusErrorFromResponse(res.statusCode ?? 0, parseBody(text))));
        return;
      }
      let pending = '';
      const deliver = (line: string): boolean => {
        if (line.trim() === '') return true;
        let ev: WatchEvent;
        try {
          ev = JSON.parse(line) as WatchEvent;
        } catch (err) {
          close(new Error(`unable to decode watch event: ${(err as Error).message}`));
          return false;
        }
        onEvent(ev);
        return !isClosed();
      };
      res.on('data', (chunk: string) => {
        pending += chunk;
        let nl: number;
        while ((nl = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, nl);
          pending = pending.slice(nl + 1);
          if (!deliver(line)) return;
        }
      });
      res.on('end', () => {
        if (deliver(pending)) close();
      });
      res.on('error', (err) => close(err));
    });
    r.on('error', (err) => close(err));
    return r;
  }

  private send(req: Pick<RestRequest, 'verb' | 'body' | 'patchType' | 'userAgent'>, method: string, url: URL, extra: Record<string, string>, onResponse: (res: http.IncomingMessage) => void): http.ClientRequest {
    const headers: Record<string, string> = {
      Accept: 'application/json',
      'User-Agent': req.userAgent ?? this.opts.userAgent ?? DEFAULT_USER_AGENT,
      ...extra,
    };
    if (this.opts.token) headers.Authorization = `Bearer ${this.opts.token}`;
    let payload: string | undefined;
    if (req.body !== undefined && req.verb !== 'get' && req.verb !== 'list' && req.verb !== 'watch') {
      payload = typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
      headers['Content-Type'] = req.verb === 'patch' ? (req.patchType ?? 'application/merge-patch+json') : 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(payload));
    }
    const lib = url.protocol === 'https:' ? https : http;
    const r = lib.request(url, { method, headers, agent: this.agent }, onResponse);
    r.end(payload);
    return r;
  }
}

const METHODS: Record<RestRequest['verb'], string> = {
  get: 'GET',
  list: 'GET',
  watch: 'GET',
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  deletecollection: 'DELETE',
};

/**
 * The URL path of a request: `/api/v1[/namespaces/<ns>]/<resource>[/<name>[/<subresource>]]` for the
 * core group, `/apis/<group>/<version>/...` otherwise. Segments are percent-encoded.
 */
export function requestPath(req: RestRequest): string {
  const parts = req.group ? ['apis', req.group, req.version] : ['api', req.version];
  if (req.namespace) parts.push('namespaces', req.namespace);
  parts.push(req.resource);
  if (req.name !== undefined) parts.push(req.name);
  if (req.subresource) parts.push(req.subresource);
  return '/' + parts.map(encodeURIComponent).join('/');
}

/** JSON when it parses, else the raw text (e.g. a proxy's HTML error page); undefined when empty. */
function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
