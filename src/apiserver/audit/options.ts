/**
 * The audit flags of kube-apiserver and what they build (k8s.io/apiserver pkg/server/options/audit.go,
 * v1.33): `--audit-policy-file`, `--audit-log-path`, `--audit-log-format`, and the rotation flags,
 * which are validated as upstream validates them but have no effect here (no rotation).
 *
 * Auditing is off unless both a policy file and a log path are given: upstream loads (and validates)
 * the policy whenever the file is named, but without a policy it records nothing ("No audit policy
 * file provided, no events will be recorded for log backend"), and without a backend it installs no
 * audit filter.
 */
import type { Clock } from '../../util/clock/index.js';
import { Auditor } from './context.js';
import { newPolicyRuleEvaluator } from './policy.js';
import { loadAuditPolicyFile } from './reader.js';
import type { PolicyRuleEvaluator } from './types.js';
import { AUDIT_LOG_FORMATS, fileAuditSink, type AuditLogFormat, type AuditSink } from './sink.js';

/** The flags, named as upstream's. */
export interface AuditOptions {
  /** `--audit-policy-file`. */
  policyFile?: string | undefined;
  /** `--audit-log-path`; `-` is standard output. */
  logPath?: string | undefined;
  /** `--audit-log-format`: `json` (default) or `legacy`. */
  logFormat?: string | undefined;
  /** `--audit-log-maxage`, `--audit-log-maxbackup`, `--audit-log-maxsize`: checked, not applied. */
  logMaxAge?: number | undefined;
  logMaxBackup?: number | undefined;
  logMaxSize?: number | undefined;
}

/** The flags' help texts, as upstream's `AddFlags` words them. */
export const AUDIT_FLAG_HELP = {
  'audit-policy-file': 'Path to the file that defines the audit policy configuration.',
  'audit-log-path': "If set, all requests coming to the apiserver will be logged to this file.  '-' means standard out.",
  'audit-log-format':
    'Format of saved audits. "legacy" indicates 1-line text format for each event. "json" indicates structured json format. Known formats are legacy,json.',
  'audit-log-maxage': 'The maximum number of days to retain old audit log files based on the timestamp encoded in their filename.',
  'audit-log-maxbackup': "The maximum number of old audit log files to retain. Setting a value of 0 will mean there's no restriction on the number of files.",
  'audit-log-maxsize': 'The maximum size in megabytes of the audit log file before it gets rotated.',
} as const;

/** `AuditLogOptions.Validate`: upstream's messages; nothing is checked when no log path is set. */
export function validateAuditOptions(o: AuditOptions): string[] {
  if (!o.logPath) return [];
  const errs: string[] = [];
  const format = o.logFormat ?? 'json';
  if (!(AUDIT_LOG_FORMATS as readonly string[]).includes(format)) {
    errs.push(`invalid audit log format ${format}, allowed formats are "${AUDIT_LOG_FORMATS.join(',')}"`);
  }
  if ((o.logMaxAge ?? 0) < 0) errs.push(`--audit-log-maxage ${o.logMaxAge ?? 0} can't be a negative number`);
  if ((o.logMaxBackup ?? 0) < 0) errs.push(`--audit-log-maxbackup ${o.logMaxBackup ?? 0} can't be a negative number`);
  if ((o.logMaxSize ?? 0) < 0) errs.push(`--audit-log-maxsize ${o.logMaxSize ?? 0} can't be a negative number`);
  return errs;
}

/** What {@link newAuditorFromOptions} needs besides the flags. */
export interface AuditDependencies {
  clock: Clock;
  /** Audit IDs for requests without an `Audit-Id` header; default random UUIDs. */
  newId?: (() => string) | undefined;
  /** The lenient-decoding warning of a policy file with unknown fields. */
  onWarning?: ((msg: string) => void) | undefined;
  /** Replaces the log backend (tests). */
  sink?: AuditSink | undefined;
}

/**
 * `AuditOptions.ApplyTo`: validates the flags, loads the policy (`loading audit policy file: …`
 * on failure) and opens the log; undefined when auditing is off. Throws an Error with upstream's
 * message for bad flags, a bad policy, or a log that cannot be created. The caller closes the
 * auditor's sink on shutdown (`auditor.close()`).
 */
export function newAuditorFromOptions(o: AuditOptions, deps: AuditDependencies): Auditor | undefined {
  const errs = validateAuditOptions(o);
  if (errs.length > 0) throw new Error(errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
  let policy: PolicyRuleEvaluator | undefined;
  if (o.policyFile) {
    try {
      const loaded = loadAuditPolicyFile(o.policyFile);
      for (const w of loaded.warnings) deps.onWarning?.(w);
      policy = newPolicyRuleEvaluator(loaded.policy);
    } catch (err) {
      throw new Error(`loading audit policy file: ${(err as Error).message}`);
    }
  }
  if (!o.logPath && !deps.sink) return undefined;
  const sink = deps.sink ?? fileAuditSink(o.logPath as string, { format: (o.logFormat ?? 'json') as AuditLogFormat });
  if (!policy) {
    // The log is opened (upstream creates the file) but no policy means no events.
    void sink.close();
    return undefined;
  }
  return new Auditor({ policy, sink, clock: deps.clock, newId: deps.newId });
}
