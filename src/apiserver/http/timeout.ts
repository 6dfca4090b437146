/**
 * The request timeout of non-long-running requests, as upstream's `WithRequestDeadline`
 * (k8s.io/apiserver/pkg/endpoints/filters/request_deadline.go) and `WithTimeoutForNonLongRunningRequests`
 * (k8s.io/apiserver/pkg/server/filters/timeout.go) with `--request-timeout` (default 60 s,
 * k8s.io/apiserver/pkg/server/options/server_run_options.go): a request still unanswered when its
 * time is up gets 504 `Timeout: request did not complete within the allotted timeout`; one whose
 * answer has begun cannot be changed any more, so its connection is cut. Time is the injected Clock's.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { newBadRequest, newTimeoutError, type StatusError } from '../../machinery/errors/index.js';
import { parseDuration } from '../../machinery/duration/index.js';
import type { Clock } from '../../util/clock/index.js';
import { writeError } from './errors.js';
import { responseOpen } from './streaming.js';
import type { Logger } from './types.js';

/** `--request-timeout` default: 60 s, in ms. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** The 504 of a request out of time (timeout.go `WithTimeoutForNonLongRunningRequests`). */
export function newRequestTimedOut(): StatusError {
  return newTimeoutError('request did not complete within the allotted timeout', 0);
}

/**
 * The time a request may take, in ms: the `timeout` query parameter (a Go duration, e.g. `32s`,
 * which client-go sends when a client timeout is set) when it is positive and shorter than `maxMs`,
 * else `maxMs`. Throws 400 `invalid timeout specified in the request URL - time: invalid duration "x"`
 * for a malformed value (request_deadline.go `parseTimeout`).
 */
export function requestTimeoutMs(query: Record<string, string>, maxMs: number): number {
  const value = query['timeout'];
  if (value === undefined || value === '') return maxMs;
  let ms: number;
  try {
    ms = parseDuration(value);
  } catch (err) {
    throw newBadRequest(`invalid timeout specified in the request URL - ${(err as Error).message}`);
  }
  return ms > 0 && ms < maxMs ? ms : maxMs;
}

/**
 * Arms the timeout of one request: after `ms` of `clock` time, if the response is still open, an
 * unanswered request gets the 504 Status — with `Connection: close` when its body has not been
 * read to the end, so a client trickling a body cannot keep the connection — and a response already
 * begun has its connection destroyed (upstream panics with http.ErrAbortHandler). What the handler
 * writes afterwards is dropped (writers check `responseOpen`). The timer stops when the response
 * closes.
 */
export function armRequestTimeout(req: IncomingMessage, res: ServerResponse, clock: Clock, ms: number, logger: Logger | undefined): void {
  const timer = clock.setTimer(ms, () => {
    if (!responseOpen(res)) return;
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (!req.complete) res.setHeader('Connection', 'close');
    writeError(res, newRequestTimedOut(), logger, { method: req.method, url: req.url });
  });
  res.once('close', () => timer.stop());
}
