/**
 * List continue tokens (apiserver/pkg/storage/continue.go): base64url JSON
 * `{"v":"meta.k8s.io/v1","rv":<revision>,"start":"<last key, relative to the list prefix>"}`. The
 * token remembers the revision of the first page so every page reads the same snapshot; `rv` -1
 * means "continue at the current revision" (the token handed out with a 410 for an expired one).
 */
import { newBadRequest } from '../../../machinery/errors/index.js';

const TOKEN_VERSION = 'meta.k8s.io/v1';

/** A decoded continue token. */
export interface Continue {
  /** Snapshot revision; -1: the current revision. */
  rv: number;
  /** Full key to continue after. */
  startAfter: string;
}

/** Encodes a token continuing after `lastKey` (a key under `prefix`) at `rv`. */
export function encodeContinue(rv: number, lastKey: string, prefix: string): string {
  const start = lastKey.slice(prefix.length);
  return Buffer.from(JSON.stringify({ v: TOKEN_VERSION, rv, start })).toString('base64url');
}

/** Decodes `token` for a list of `prefix`. @throws StatusError 400 `invalid continue token: …` */
export function decodeContinue(token: string, prefix: string): Continue {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw newBadRequest('invalid continue token: continue key is not valid: illegal base64 data or JSON');
  }
  const t = parsed as { v?: unknown; rv?: unknown; start?: unknown };
  if (t.v !== TOKEN_VERSION) {
    throw newBadRequest(`invalid continue token: continue key is not valid: server does not recognize this encoded version "${String(t.v)}"`);
  }
  if (typeof t.rv !== 'number' || !Number.isInteger(t.rv) || t.rv === 0 || t.rv < -1) {
    throw newBadRequest('invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  if (typeof t.start !== 'string' || t.start === '' || t.start.startsWith('/') || t.start.split('/').includes('..')) {
    throw newBadRequest('invalid continue token: continue key is not valid: encoded start key is not valid');
  }
  return { rv: t.rv, startAfter: prefix + t.start };
}
