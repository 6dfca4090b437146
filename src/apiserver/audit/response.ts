/**
 * Ties an {@link AuditContext} to a node:http response, as upstream's `auditResponseWriter`
 * (k8s.io/apiserver pkg/endpoints/filters/audit.go) wraps Go's ResponseWriter: the response head
 * going out (an explicit `writeHead`, or the implicit one of the first `write`/`end`) is
 * `responseStarted(statusCode)`, and the response's `close` (finished, or the client went away) is
 * `complete()`.
 */
import type { ServerResponse } from 'node:http';
import type { AuditContext } from './context.js';

/**
 * Instruments `res` for `ac`. Call it right after {@link Auditor.begin} (or `beginRefused`), before
 * anything is written. Node sends every response head through `res.writeHead` (its implicit header
 * calls it too), which is what is wrapped here.
 */
export function auditResponse(ac: AuditContext, res: ServerResponse): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = (...args: unknown[]): ServerResponse => {
    ac.responseStarted(typeof args[0] === 'number' ? args[0] : res.statusCode);
    return writeHead(...args);
  };
  res.once('close', () => ac.complete());
}
