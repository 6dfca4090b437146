/**
 * Where audit events go: the log backend of `--audit-log-path` (k8s.io/apiserver
 * plugin/pkg/audit/log/backend.go, with pkg/server/options/audit.go `getWriter`/`ensureLogFile`,
 * v1.33): one event per line, as JSON (`--audit-log-format=json`, the default:
 * `{"kind":"Event","apiVersion":"audit.k8s.io/v1",…}`) or as the legacy text line; `-` writes to
 * standard output; a file is appended to, created with mode 0600 in a directory created 0700.
 *
 * Upstream's log backend runs in `blocking` mode by default: each event is written before the
 * request goes on, and write errors are logged, not returned (`ignoreErrorsBackend`). Here lines go
 * to a node stream in order; the request does not wait for the disk. Left out, and named in issue
 * 20's closing note: rotation (`--audit-log-maxsize/maxbackup/maxage` are validated, not applied;
 * `--audit-log-compress`), batching, truncation and the webhook backend.
 */
import { mkdirSync, openSync, createWriteStream, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { handleError } from '../../util/runtime/index.js';
import { eventString } from './format.js';
import { goPathError } from './go-errors.js';
import type { AuditEvent } from './types.js';

/** The `--audit-log-format` values (backend.go `AllowedFormats`). */
export const AUDIT_LOG_FORMATS = ['legacy', 'json'] as const;
export type AuditLogFormat = (typeof AUDIT_LOG_FORMATS)[number];

/** audit.Sink: receives every event the policy lets through. */
export interface AuditSink {
  /** Takes one event; called in event order. Should not throw (the Auditor reports it if it does). */
  write(event: AuditEvent): void;
  /** Flushes and releases what the sink holds. */
  close(): Promise<void>;
}

/** backend.go `logEvent`: the line written for an event, newline included. */
export function encodeAuditEvent(event: AuditEvent, format: AuditLogFormat = 'json'): string {
  return format === 'json' ? `${JSON.stringify(event)}\n` : `${eventString(event)}\n`;
}

/** Options of {@link fileAuditSink}. */
export interface FileAuditSinkOptions {
  /** `--audit-log-format`; default `json`. */
  format?: AuditLogFormat | undefined;
  /** Called with a write error (default: logged and counted through util/runtime handleError). */
  onError?: ((err: unknown) => void) | undefined;
}

/**
 * The log backend writing to `path` (`--audit-log-path`); `-` is standard output. The file and its
 * directory are created at once, so a path that cannot be written fails here, with upstream's
 * `ensureLogFile: open <path>: permission denied`.
 */
export function fileAuditSink(path: string, options: FileAuditSinkOptions = {}): AuditSink {
  const format = options.format ?? 'json';
  const onError = options.onError ?? ((err: unknown) => handleError(err, { component: 'audit', msg: "Error in audit plugin 'log'" }));
  if (path === '-') {
    return {
      write(event) {
        process.stdout.write(encodeAuditEvent(event, format));
      },
      close: () => Promise.resolve(),
    };
  }
  let fd: number;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new Error(`ensureLogFile: ${goPathError('mkdir', dirname(path), err)}`);
  }
  try {
    fd = openSync(path, 'a', 0o600);
  } catch (err) {
    throw new Error(`ensureLogFile: ${goPathError('open', path, err)}`);
  }
  const stream: WriteStream = createWriteStream(path, { fd, flags: 'a' });
  stream.on('error', onError);
  let closed: Promise<void> | undefined;
  return {
    write(event) {
      if (closed) return;
      stream.write(encodeAuditEvent(event, format));
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        stream.end(() => resolve());
      });
      return closed;
    },
  };
}

/** A sink that keeps the events in memory (tests, and callers that want to look at events). */
export class MemoryAuditSink implements AuditSink {
  readonly events: AuditEvent[] = [];

  write(event: AuditEvent): void {
    this.events.push(event);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
