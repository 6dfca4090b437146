/**
 * Writing responses and errors: JSON bodies, `metav1.Status` errors with their HTTP code, and the
 * `Warning` header (k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/{writers,status}.go,
 * k8s.io/apiserver/pkg/warning).
 */
import type { ServerResponse } from 'node:http';
import { encodeKubernetesProtobuf } from '../../api/proto/index.js';
import { StatusError, errorMessage, newInternalError, type Status } from '../../machinery/errors/index.js';
import type { Logger } from './types.js';
import { warningHeaders } from './warning.js';

/** Content type of every JSON response. */
export const JSON_CONTENT_TYPE = 'application/json';

/** Content type of a Kubernetes protobuf response. */
export const PROTOBUF_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf';

/** Writes `body` as JSON with `code`. `contentType` defaults to application/json. */
export function writeJson(res: ServerResponse, code: number, body: unknown, contentType = JSON_CONTENT_TYPE): void {
  writeRaw(res, code, JSON.stringify(body), contentType);
}

/**
 * Writes an already-encoded body. Does nothing when the response has already ended or its connection
 * is gone (a request that timed out, whose handler answers late).
 */
export function writeRaw(res: ServerResponse, code: number, text: string, contentType: string): void {
  if (res.writableEnded || res.destroyed) return;
  res.statusCode = code;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/**
 * The Status for any thrown value: a StatusError's own Status, or 500 InternalError
 * (`Internal error occurred: <message>`) for anything else, which is also logged since it is a bug.
 */
export function statusOf(err: unknown, logger: Logger | undefined, context: object): Status {
  if (err instanceof StatusError) return err.status;
  logger?.warn({ ...context, err: errorMessage(err), stack: err instanceof Error ? err.stack : undefined }, 'unhandled error in request');
  return newInternalError(errorMessage(err)).status;
}

/**
 * Writes an error as its Status with the Status's code, and `Retry-After` when the Status carries
 * `details.retryAfterSeconds` (upstream's responsewriters.ErrorNegotiated): as JSON, or as Kubernetes
 * protobuf when the request negotiated it (`format`). A response that has begun cannot carry it any
 * more: its connection is ended. One already ended is left alone.
 */
export function writeError(res: ServerResponse, err: unknown, logger: Logger | undefined, context: object, format: 'json' | 'protobuf' = 'json'): void {
  const status = statusOf(err, logger, context);
  if (res.writableEnded || res.destroyed) return;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const retryAfterSeconds = status.details?.retryAfterSeconds ?? 0;
  if (retryAfterSeconds > 0) res.setHeader('Retry-After', String(retryAfterSeconds));
  const proto = format === 'protobuf' ? encodeKubernetesProtobuf(status as unknown as Record<string, unknown>) : undefined;
  if (proto) {
    res.writeHead(status.code, { 'Content-Type': PROTOBUF_CONTENT_TYPE, 'Content-Length': proto.length });
    res.end(proto);
    return;
  }
  writeJson(res, status.code, status);
}

/**
 * 405 for a URL that exists but not with this HTTP method, worded as go-restful's reply that
 * upstream returns (`the server does not allow this method on the requested resource`).
 */
export function newMethodNotAllowed(): StatusError {
  return new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'the server does not allow this method on the requested resource',
    reason: 'MethodNotAllowed',
    details: {},
    code: 405,
  });
}

/** 406 NotAcceptable with a free-text message (upstream's errNotAcceptable in handlers/response.go). */
export function newNotAcceptableMessage(message: string): StatusError {
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'NotAcceptable', code: 406 });
}

/** Sets the `Warning` headers of `warnings` (see warning.ts; no header when there are none). */
export function setWarnings(res: ServerResponse, warnings: readonly string[]): void {
  if (warnings.length && !res.headersSent) res.setHeader('Warning', warningHeaders(warnings));
}
