/**
 * Connection limits of the API server, as kube-apiserver's http.Server has them
 * (k8s.io/apiserver/pkg/server/secure_serving.go `Serve`), expressed as Node's server options: how
 * long a client may take to send its headers, its whole request and its TLS handshake, how long an
 * idle keep-alive connection is kept, and how many connections may be open. Node enforces them on
 * real time (they are server options, not timers of ours). Durations in ms.
 */
import type http from 'node:http';
import type https from 'node:https';
import { DEFAULT_REQUEST_TIMEOUT_MS } from './timeout.js';

/** Go's `ReadHeaderTimeout` of kube-apiserver (secure_serving.go: "just shy of requestTimeoutUpperBound"), in ms. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 32_000;
/** Go's `IdleTimeout` of kube-apiserver (secure_serving.go: "matches http.DefaultTransport keep-alive timeout"), in ms. */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 90_000;
/**
 * The TLS handshake limit, in ms: Go's http.Server bounds the handshake by the smallest of its read
 * timeouts, which for kube-apiserver is ReadHeaderTimeout (32 s). Node's own default is 120 s.
 */
export const DEFAULT_TLS_HANDSHAKE_TIMEOUT_MS = DEFAULT_HEADERS_TIMEOUT_MS;
/**
 * Connections open at once; more are dropped as they arrive. Upstream (Go) sets no cap, but it speaks
 * HTTP/2, where one connection carries up to 100 concurrent streams (secure_serving.go
 * MaxConcurrentStreams). Node's https server speaks HTTP/1.1, where every request or watch in progress
 * holds a connection of its own, so the cap must leave room for both in-flight budgets (400 + 200) plus
 * every watch: 4096 is about seven times the budgets, ~3,500 concurrent watches. Each TLS connection
 * costs some tens of KB of buffers, so the cap also keeps idle sockets from growing memory without
 * bound (a few hundred MB at worst) and stays far below the process's file-descriptor limit.
 */
export const DEFAULT_MAX_CONNECTIONS = 4096;
/** How often Node checks the header and request timeouts, in ms (Node's default is 30 s, too coarse for a 32 s limit). */
export const DEFAULT_CONNECTIONS_CHECKING_INTERVAL_MS = 1000;

/** The connection limits {@link nodeServerOptions} turns into Node's options; each defaults to kube-apiserver's. */
export interface ServingOptions {
  /** The request timeout (`--request-timeout`), the default of {@link ServingOptions.requestReceiveTimeoutMs}. */
  requestTimeoutMs?: number;
  /**
   * Time to receive a request's headers (Node `headersTimeout`), also counted from the moment a
   * connection opens (after the TLS handshake), so a connection that says nothing is closed. Default
   * {@link DEFAULT_HEADERS_TIMEOUT_MS}.
   */
  headersTimeoutMs?: number;
  /** Time an idle keep-alive connection is kept between requests (Node `keepAliveTimeout`). Default {@link DEFAULT_KEEP_ALIVE_TIMEOUT_MS}. */
  keepAliveTimeoutMs?: number;
  /**
   * Time to receive a whole request, headers and body (Node `requestTimeout`; 408 and the connection
   * closed after it), so a slow body cannot hold a connection (Node's default is 300 s). Default: the
   * request timeout, and never less than the headers timeout. A GET's request ends with its headers, so
   * watches are not affected.
   */
  requestReceiveTimeoutMs?: number;
  /** TLS handshake limit (Node `handshakeTimeout`). Default {@link DEFAULT_TLS_HANDSHAKE_TIMEOUT_MS}. */
  tlsHandshakeTimeoutMs?: number;
  /** Connections open at once (Node `maxConnections`); 0 = no cap. Default {@link DEFAULT_MAX_CONNECTIONS}. */
  maxConnections?: number;
  /** How often Node enforces the header and request timeouts. Default {@link DEFAULT_CONNECTIONS_CHECKING_INTERVAL_MS}. */
  connectionsCheckingIntervalMs?: number;
}

/**
 * Node's server options for `opts` (integers; the headers timeout never above the request timeout,
 * which Node requires). Node adds one second to the keep-alive timeout before it closes an idle
 * socket, so a client reusing it just in time is not cut off.
 */
export function nodeServerOptions(opts: ServingOptions): http.ServerOptions & https.ServerOptions {
  const headersTimeout = Math.ceil(opts.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS);
  const receive = Math.ceil(opts.requestReceiveTimeoutMs ?? opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS);
  return {
    headersTimeout,
    requestTimeout: Math.max(receive, headersTimeout),
    keepAliveTimeout: Math.ceil(opts.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS),
    connectionsCheckingInterval: Math.ceil(opts.connectionsCheckingIntervalMs ?? DEFAULT_CONNECTIONS_CHECKING_INTERVAL_MS),
    handshakeTimeout: Math.ceil(opts.tlsHandshakeTimeoutMs ?? DEFAULT_TLS_HANDSHAKE_TIMEOUT_MS),
  };
}

/** The connection cap of `opts` (0 = none). */
export function maxConnectionsOf(opts: ServingOptions): number {
  return opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
}
