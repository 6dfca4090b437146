/**
 * What happens to an error nobody above can handle: it is logged with its context, counted, and the
 * program carries on (k8s.io/apimachinery/pkg/util/runtime `HandleError`, and `HandleCrash` with
 * `ReallyCrash = false`). One bad object must never take the control plane down: a throw in a
 * controller's sync, an informer handler, the scheduler's cycle, a simulated kubelet or a timer ends
 * up here, and the caller requeues what it was working on where that makes sense.
 *
 * Every error is counted in the Prometheus counter `kubeplane_handled_errors_total{component}` of
 * prom-client's default registry (served at `/metrics`).
 */
import { Counter } from 'prom-client';

/** Minimal structured logger (pino's `info(obj, msg)` / `error(obj, msg)` shape), used by every component. */
export interface Logger {
  info(obj: Record<string, unknown>, msg: string): void;
  error(obj: Record<string, unknown>, msg: string): void;
}

/** The part of a {@link Logger} this module writes to. */
export type ErrorLogger = Pick<Logger, 'error'>;

/** A logger that writes error lines to stderr and drops info lines; the default when none is given. */
export const stderrLogger: Logger = {
  info() {},
  error(obj, msg) {
    process.stderr.write(`${msg} ${JSON.stringify(obj)}\n`);
  },
};

/** A logger that discards everything (tests that expect errors). */
export const silentLogger: Logger = { info() {}, error() {} };

/** `kubeplane_handled_errors_total{component}`: errors passed to {@link handleError}. */
export const handledErrorsTotal = new Counter({
  name: 'kubeplane_handled_errors_total',
  help: 'Errors caught and handled instead of crashing the process (a sync, handler, scheduling cycle, kubelet stage or timer that threw), by component.',
  labelNames: ['component'] as const,
});

/** The logger when a component has none: stderr, so that a crash never goes unseen. */
let fallbackLogger: ErrorLogger = stderrLogger;

/** Sets the logger {@link handleError} uses when its caller gives none (the CLI passes its root logger). */
export function setFallbackErrorLogger(logger: ErrorLogger): void {
  fallbackLogger = logger;
}

/** `err.message` for Errors, `String(err)` otherwise. */
function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Where an error happened: the component (a metric label), an optional logger, and context such as the object's key. */
export interface ErrorContext {
  /** e.g. `replicaset`, `scheduler`, `informer`, `kubelet`, `timer`. */
  component: string;
  /** Default: the fallback logger. */
  logger?: ErrorLogger;
  /** The log message (default `Observed a handled error`). */
  msg?: string;
  /** Extra fields for the log line, e.g. `{key: 'default/web'}`. */
  [field: string]: unknown;
}

/**
 * `utilruntime.HandleError`: logs `err` with its context (message, stack for Errors) and counts it
 * under `component`. Never throws.
 */
export function handleError(err: unknown, context: ErrorContext): void {
  const { component, logger, msg, ...fields } = context;
  handledErrorsTotal.inc({ component });
  try {
    (logger ?? fallbackLogger).error(
      { component, ...fields, err: messageOf(err), ...(err instanceof Error && !(err as { status?: unknown }).status ? { stack: err.stack } : {}) },
      msg ?? 'Observed a handled error',
    );
  } catch {
    // A broken logger must not turn a handled error into a crash.
  }
}

/**
 * `utilruntime.HandleCrash` around a synchronous function: returns what `fn` returns, or undefined
 * after passing what it threw to {@link handleError}.
 */
export function handleCrash<T>(fn: () => T, context: ErrorContext): T | undefined {
  try {
    return fn();
  } catch (err) {
    handleError(err, context);
    return undefined;
  }
}
