/**
 * The contracts of the HTTP face of the API server: the subset of the core it calls
 * ({@link ApiServerCore}), the schema source for OpenAPI ({@link SchemaSource}) and the handler options.
 * Depending on these interfaces rather than on the `ApiServer` class keeps the HTTP layer testable
 * against a small fake core.
 */
import type { Clock } from '../../util/clock/index.js';
import type { RestRequest, WatchEvent, WatchStream } from '../../api/request.js';
import type { TokenAuthenticator } from '../authn/index.js';
import type { Authorizer } from '../authz/types.js';
import type { Auditor } from '../audit/index.js';
import type { ResourceStrategy } from '../registry/strategy.js';
import type { FieldSchema, SchemaDocs, TypeSchema } from '../../api/schema/index.js';

/** Result of a non-watch request, as `ApiServer.handle` returns it. */
export interface HandleResult {
  /** HTTP status code, e.g. 200, or 201 after a create. */
  code: number;
  /** Response body: object, list, `metav1.Status`, or a string (served as text/plain, e.g. pod logs). */
  body: unknown;
  /** Warning texts, sent as `Warning: 299 - "<text>"` headers. */
  warnings: string[];
}

/** What the HTTP layer needs from the API server core (`src/apiserver/index.ts` `ApiServer`). */
export interface ApiServerCore {
  /** Every served resource, one entry per group/version/resource, in discovery order. */
  resources(): readonly ResourceStrategy[];
  /** Runs a non-watch request. Throws StatusError. */
  handle(req: RestRequest): Promise<HandleResult>;
  /**
   * Starts a watch (`req.verb === 'watch'`). May throw StatusError synchronously (bad selector…);
   * `onClose` is called exactly once, with the error that ended the stream if any.
   */
  watch(req: RestRequest, onEvent: (ev: WatchEvent) => void, onClose: (err?: unknown) => void): WatchStream;
  /** Authenticates the service-account tokens the core issues; requests may bear them besides the static token. */
  readonly serviceAccountAuthenticator?: TokenAuthenticator;
  /** Decides what an authenticated user may do (`--authorization-mode`); without one every user may do everything. */
  readonly authorizer?: Authorizer;
  /** True when the authorizer allows everything (`--authorization-mode=AlwaysAllow`), which rules out anonymous requests. */
  readonly alwaysAllow?: boolean;
}

/**
 * The schema's field, type and description shapes (src/api/schema `FieldSchema`, `TypeSchema`,
 * `SchemaDocs`), under the names the OpenAPI builder uses.
 */
export type SchemaField = FieldSchema;
export type SchemaType = TypeSchema;
export type SchemaDescriptions = SchemaDocs;

/** The type schemas of the served kinds (`src/api/schema`), used to build OpenAPI `components.schemas`. */
export interface SchemaSource {
  /** The type with that name, or undefined. */
  lookupType(name: string): SchemaType | undefined;
  /** Name of the root type of a kind, e.g. (`apps`, `v1`, `Deployment`) → `io.k8s.api.apps.v1.Deployment`. */
  rootTypeName(group: string, version: string, kind: string): string | undefined;
  /** The definition name of a scalar upstream defines by name (`Quantity` → `io.k8s.apimachinery.pkg.api.resource.Quantity`). */
  scalarDefinitionName?(scalar: string): string | undefined;
  /** Loads the descriptions (once); a source without them gives documents without descriptions. */
  loadDocs?(): Promise<SchemaDescriptions>;
}

/** A pino-compatible logger. */
export interface Logger {
  info(o: object, msg?: string): void;
  warn(o: object, msg?: string): void;
}

/** Options of `createHttpHandler`. */
export interface HttpHandlerOptions {
  /**
   * When set, every request is authenticated (see server.ts): this bearer token is the cluster admin
   * (`system:masters`); without it nothing is authenticated nor authorized.
   */
  token?: string;
  /** Further bearer tokens (`--token-auth-file`). */
  tokenAuthenticator?: TokenAuthenticator;
  /** Whether TLS client certificates verified against the cluster CA authenticate as their CN and O (`--client-ca-file`). */
  clientCertificates?: boolean;
  /** `--anonymous-auth` (default true): requests without credentials are `system:anonymous`. */
  anonymousAuth?: boolean;
  /** The audit log (`--audit-policy-file`, `--audit-log-path`); without one nothing is audited. */
  auditor?: Auditor;
  /** Source of "now" for Table ages. */
  clock: Clock;
  logger?: Logger;
  /** Type schemas for the OpenAPI v3 documents (`kubectl explain`); default: `src/api/schema`. */
  schema?: SchemaSource;
  /** Maximum request body size in bytes (default 3 MiB, upstream's `MaxRequestBodyBytes`). */
  maxRequestBodyBytes?: number;
  /**
   * A watch whose unsent output exceeds this many bytes (a client not reading) is ended, as upstream's
   * watch cache ends a watcher whose buffer is full; the client re-establishes it. Default 64 MiB.
   */
  maxWatchBacklogBytes?: number;
  /**
   * Serializes an object out of the core — a list item, a watch event's object, a row's metadata —
   * (default JSON.stringify). A core whose objects are shared and frozen passes its serialize-once
   * cache here (`serializedJSON`), so each object is encoded once, not once per caller.
   */
  serializeObject?: (obj: unknown) => string;
  /**
   * `--max-requests-inflight`: read-only requests (get, list) served at once before 429; 0 = no limit.
   * Default 400. Long-running requests (watch, log, exec…) are not counted (maxinflight.ts).
   */
  maxRequestsInFlight?: number;
  /** `--max-mutating-requests-inflight`: the same for every other verb; 0 = no limit. Default 200. */
  maxMutatingRequestsInFlight?: number;
  /**
   * `--request-timeout`, in ms of the Clock: a non-long-running request not answered by then gets 504
   * (timeout.ts). Default 60 000.
   */
  requestTimeoutMs?: number;
}
