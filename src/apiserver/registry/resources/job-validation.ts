/**
 * JobSpec defaulting and validation, shared by Jobs and the job template of CronJobs.
 *
 * Followed (v1.33): pkg/apis/batch/v1/defaults.go (SetDefaults_Job's spec part,
 * SetDefaults_PodFailurePolicyOnPodConditionsPattern), pkg/apis/batch/validation/validation.go
 * (validateJobSpec, ValidateJobSpec, validatePodFailurePolicy(Rule|RuleOnExitCodes|RuleOnPodConditions),
 * validatePodReplacementPolicy, validateSuccessPolicy(Rule), validateIndexesFormat,
 * parseIndexInterval, ValidateJobSpecUpdate, validateCompletions, validatePodTemplateUpdate,
 * validateJobStatus, ValidateJobStatusUpdate), pkg/registry/batch/job/strategy.go
 * (getStatusValidationOptions with JobManagedBy on, as it is by default in 1.33; ElasticIndexedJob
 * is GA, so completions of an Indexed Job may change in tandem with parallelism),
 * staging/src/k8s.io/apimachinery/pkg/api/validation (IsDomainPrefixedPath).
 */
import type { Job, JobSpec, PodTemplateSpec } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { selectorFromLabelSelector } from '../../../machinery/labels/index.js';
import {
  isDNS1123Subdomain,
  isQualifiedName,
  regexError,
  validateLabelSelector,
  validateNonnegativeField,
} from '../../../machinery/validation/index.js';
import { parseTime } from '../../../util/clock/index.js';
import { semanticDeepEqual, validateImmutableField } from './helpers.js';
import { defaultPodTemplateSpec, validatePodTemplateSpec } from './pod-template.js';

type JobStatus = NonNullable<Job['status']>;
type PodFailurePolicyRule = NonNullable<JobSpec['podFailurePolicy']>['rules'][number];

const MAX_PARALLELISM_FOR_INDEXED_JOB = 100_000;
const MAX_FAILED_INDEXES_FOR_INDEXED_JOB = 100_000;
const COMPLETIONS_SOFT_LIMIT = 100_000;
const PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS = 10_000;
const MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS = 10_000;
const MAX_POD_FAILURE_POLICY_RULES = 20;
const MAX_ON_EXIT_CODES_VALUES = 255;
const MAX_ON_POD_CONDITIONS_PATTERNS = 20;
const MAX_MANAGED_BY_LENGTH = 63;
const MAX_SUCCEEDED_INDEXES_LENGTH = 64 * 1024;
const MAX_SUCCESS_POLICY_RULES = 20;

// Sorted, as upstream lists them with sets.List.
const POD_FAILURE_POLICY_ACTIONS = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
const ON_EXIT_CODES_OPERATORS = ['In', 'NotIn'];
const CONDITION_STATUSES = ['False', 'True', 'Unknown'];
const POD_REPLACEMENT_POLICIES = ['Failed', 'TerminatingOrFailed'];

/** Go's `%q` of a []string: `["a" "b"]`. */
const quotedList = (values: readonly string[]): string => `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;

/** A nil pointer or an absent field. */
const isSet = <T>(v: T | null | undefined): v is T => v !== undefined && v !== null;

/** `SetDefaults_PodFailurePolicyOnPodConditionsPattern` and the pod template defaults: what every JobSpec gets, in a Job or a job template. */
export function defaultJobSpecTemplate(spec: JobSpec): void {
  for (const rule of spec.podFailurePolicy?.rules ?? []) {
    for (const pattern of rule.onPodConditions ?? []) pattern.status ||= 'True';
  }
  defaultPodTemplateSpec((spec.template ??= {} as PodTemplateSpec));
}

/**
 * The spec part of `SetDefaults_Job`: completions and parallelism 1 when both are absent, parallelism 1;
 * backoffLimit 6 (MaxInt32 with backoffLimitPerIndex); completionMode NonIndexed; suspend false;
 * podReplacementPolicy Failed with a podFailurePolicy, else TerminatingOrFailed (JobPodReplacementPolicy
 * is on in 1.33); manualSelector false.
 */
export function defaultJobSpec(spec: JobSpec): void {
  if (!isSet(spec.completions) && !isSet(spec.parallelism)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  spec.parallelism ??= 1;
  spec.backoffLimit ??= isSet(spec.backoffLimitPerIndex) ? 2147483647 : 6;
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  spec.podReplacementPolicy ??= spec.podFailurePolicy ? 'Failed' : 'TerminatingOrFailed';
  spec.manualSelector ??= false;
  defaultJobSpecTemplate(spec);
}

/** `IsDomainPrefixedPath`: `acme.io/foo`, a DNS subdomain then a non-empty HTTP path. */
function validateDomainPrefixedPath(path: string, value: string): FieldError[] {
  if (value === '') return [field.required(path)];
  const slash = value.indexOf('/');
  const host = slash < 0 ? value : value.slice(0, slash);
  const rest = slash < 0 ? '' : value.slice(slash + 1);
  if (slash < 0 || host === '' || rest === '') return [field.invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errs = isDNS1123Subdomain(host).map((msg) => field.invalid(path, host, msg));
  const pathFmt = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
  if (!/^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/.test(rest)) errs.push(field.invalid(path, rest, regexError('Invalid path', pathFmt)));
  return errs;
}

/** The count fields of validateJobSpec that must be ≥ 0, with maxFailedIndexes needing backoffLimitPerIndex. */
function validateCounts(spec: JobSpec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished', 'backoffLimitPerIndex'] as const) {
    const v = spec[k];
    if (isSet(v)) errs.push(...validateNonnegativeField(v, `${path}.${k}`));
  }
  if (isSet(spec.maxFailedIndexes)) {
    errs.push(...validateNonnegativeField(spec.maxFailedIndexes, `${path}.maxFailedIndexes`));
    if (!isSet(spec.backoffLimitPerIndex)) errs.push(field.required(`${path}.backoffLimitPerIndex`, 'when maxFailedIndexes is specified'));
  }
  if (isSet(spec.managedBy)) {
    errs.push(...validateDomainPrefixedPath(`${path}.managedBy`, spec.managedBy));
    if (spec.managedBy.length > MAX_MANAGED_BY_LENGTH) errs.push(field.tooLong(`${path}.managedBy`, MAX_MANAGED_BY_LENGTH));
  }
  return errs;
}

/** The completionMode checks of validateJobSpec: the mode, and the limits of Indexed and NonIndexed Jobs. */
function validateCompletionMode(spec: JobSpec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const mode = spec.completionMode;
  const { completions, parallelism, maxFailedIndexes: maxFailed } = spec;
  if (isSet(mode)) {
    if (mode !== 'NonIndexed' && mode !== 'Indexed') errs.push(field.notSupported(`${path}.completionMode`, mode, ['NonIndexed', 'Indexed']));
    if (mode === 'Indexed') {
      if (!isSet(completions)) errs.push(field.required(`${path}.completions`, 'when completion mode is Indexed'));
      if (isSet(parallelism) && parallelism > MAX_PARALLELISM_FOR_INDEXED_JOB) {
        errs.push(field.invalid(`${path}.parallelism`, parallelism, `must be less than or equal to ${MAX_PARALLELISM_FOR_INDEXED_JOB} when completion mode is Indexed`));
      }
      if (isSet(completions) && isSet(maxFailed) && maxFailed > completions) {
        errs.push(field.invalid(`${path}.maxFailedIndexes`, maxFailed, 'must be less than or equal to completions'));
      }
      if (isSet(maxFailed) && maxFailed > MAX_FAILED_INDEXES_FOR_INDEXED_JOB) {
        errs.push(field.invalid(`${path}.maxFailedIndexes`, maxFailed, `must be less than or equal to ${MAX_FAILED_INDEXES_FOR_INDEXED_JOB}`));
      }
      if (isSet(completions) && completions > COMPLETIONS_SOFT_LIMIT && isSet(spec.backoffLimitPerIndex)) {
        const high = `when completions are above ${COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index`;
        if (!isSet(maxFailed)) errs.push(field.required(`${path}.maxFailedIndexes`, `must be specified when completions is above ${COMPLETIONS_SOFT_LIMIT}`));
        if (isSet(parallelism) && parallelism > PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS) {
          errs.push(field.invalid(`${path}.parallelism`, parallelism, `must be less than or equal to ${PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS} ${high}`));
        }
        if (isSet(maxFailed) && maxFailed > MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS) {
          errs.push(field.invalid(`${path}.maxFailedIndexes`, maxFailed, `must be less than or equal to ${MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS} ${high}`));
        }
      }
    }
  }
  if (!isSet(mode) || mode === 'NonIndexed') {
    if (isSet(spec.backoffLimitPerIndex)) errs.push(field.invalid(`${path}.backoffLimitPerIndex`, spec.backoffLimitPerIndex, 'requires indexed completion mode'));
    if (isSet(maxFailed)) errs.push(field.invalid(`${path}.maxFailedIndexes`, maxFailed, 'requires indexed completion mode'));
  }
  return errs;
}

/** `validatePodFailurePolicyRuleOnExitCodes`. */
function validateOnExitCodes(req: NonNullable<PodFailurePolicyRule['onExitCodes']>, path: string, containerNames: ReadonlySet<string>): FieldError[] {
  const errs: FieldError[] = [];
  const op = req.operator ?? '';
  if (op === '') errs.push(field.required(`${path}.operator`, `valid values: ${quotedList(ON_EXIT_CODES_OPERATORS)}`));
  else if (!ON_EXIT_CODES_OPERATORS.includes(op)) errs.push(field.notSupported(`${path}.operator`, op, ON_EXIT_CODES_OPERATORS));
  if (isSet(req.containerName) && !containerNames.has(req.containerName)) {
    errs.push(field.invalid(`${path}.containerName`, req.containerName, 'must be one of the container or initContainer names in the pod template'));
  }
  const values = req.values ?? [];
  if (values.length === 0) errs.push(field.invalid(`${path}.values`, values, 'at least one value is required'));
  else if (values.length > MAX_ON_EXIT_CODES_VALUES) errs.push(field.tooMany(`${path}.values`, values.length, MAX_ON_EXIT_CODES_VALUES));
  const seen = new Set<number>();
  let ordered = true;
  values.forEach((v, j) => {
    if (op === 'In' && v === 0) errs.push(field.invalid(`${path}.values[${j}]`, v, 'must not be 0 for the In operator'));
    if (seen.has(v)) errs.push(field.duplicate(`${path}.values[${j}]`, v));
    else seen.add(v);
    if (j > 0 && (values[j - 1] ?? 0) > v) ordered = false;
  });
  if (!ordered) errs.push(field.invalid(`${path}.values`, values, 'must be ordered'));
  return errs;
}

/** `validatePodFailurePolicyRule` with its onPodConditions checks. */
function validatePodFailurePolicyRule(spec: JobSpec, rule: PodFailurePolicyRule, path: string, containerNames: ReadonlySet<string>): FieldError[] {
  const errs: FieldError[] = [];
  const action = rule.action ?? '';
  if (action === '') errs.push(field.required(`${path}.action`, `valid values: ${quotedList(POD_FAILURE_POLICY_ACTIONS)}`));
  else if (action === 'FailIndex') {
    if (!isSet(spec.backoffLimitPerIndex)) errs.push(field.invalid(`${path}.action`, action, 'requires the backoffLimitPerIndex to be set'));
  } else if (!POD_FAILURE_POLICY_ACTIONS.includes(action)) errs.push(field.notSupported(`${path}.action`, action, POD_FAILURE_POLICY_ACTIONS));
  if (rule.onExitCodes) errs.push(...validateOnExitCodes(rule.onExitCodes, `${path}.onExitCodes`, containerNames));
  const patterns = rule.onPodConditions ?? [];
  if (patterns.length > MAX_ON_POD_CONDITIONS_PATTERNS) errs.push(field.tooMany(`${path}.onPodConditions`, patterns.length, MAX_ON_POD_CONDITIONS_PATTERNS));
  patterns.forEach((p, j) => {
    const pp = `${path}.onPodConditions[${j}]`;
    for (const msg of isQualifiedName(p.type ?? '')) errs.push(field.invalid(`${pp}.type`, p.type ?? '', msg));
    const status = p.status ?? '';
    if (status === '') errs.push(field.required(`${pp}.status`, `valid values: ${quotedList(CONDITION_STATUSES)}`));
    else if (!CONDITION_STATUSES.includes(status)) errs.push(field.notSupported(`${pp}.status`, status, CONDITION_STATUSES));
  });
  if (rule.onExitCodes && patterns.length > 0) errs.push(field.invalidOmitValue(path, 'specifying both OnExitCodes and OnPodConditions is not supported'));
  if (!rule.onExitCodes && patterns.length === 0) errs.push(field.invalidOmitValue(path, 'specifying one of OnExitCodes and OnPodConditions is required'));
  return errs;
}

/** `validatePodFailurePolicy`: at most 20 rules, each valid against the template's container names. */
function validatePodFailurePolicy(spec: JobSpec, path: string): FieldError[] {
  const rules = spec.podFailurePolicy?.rules ?? [];
  const errs = rules.length > MAX_POD_FAILURE_POLICY_RULES ? [field.tooMany(`${path}.rules`, rules.length, MAX_POD_FAILURE_POLICY_RULES)] : [];
  const podSpec = spec.template?.spec;
  const containerNames = new Set([...(podSpec?.containers ?? []), ...(podSpec?.initContainers ?? [])].map((c) => c.name));
  rules.forEach((rule, i) => errs.push(...validatePodFailurePolicyRule(spec, rule, `${path}.rules[${i}]`, containerNames)));
  return errs;
}

/** Go's `strconv.Atoi` on an index: a decimal integer with an optional sign, else undefined. */
function atoiIndex(s: string): number | undefined {
  return /^[+-]?\d+$/.test(s) ? Number(s) : undefined;
}

/** `parseIndexInterval`: `x` or `x-y` with x < y < completions. @throws Error with upstream's message */
function parseIndexInterval(interval: string, completions: number): [number, number] {
  const limits = interval.split('-');
  if (limits.length > 2) throw new Error(`the fragment ${JSON.stringify(interval)} violates the requirement that an index interval can have at most two parts separated by '-'`);
  const parse = (s: string): number => {
    const n = atoiIndex(s);
    if (n === undefined) throw new Error(`cannot convert string to integer for index: ${JSON.stringify(s)}`);
    if (n >= completions) throw new Error(`too large index: ${JSON.stringify(s)}`);
    return n;
  };
  const x = parse(limits[0] ?? '');
  if (limits.length === 1) return [x, x];
  const y = parse(limits[1] ?? '');
  if (x >= y) throw new Error(`non-increasing order, previous: ${x}, current: ${y}`);
  return [x, y];
}

/** `validateIndexesFormat`: comma-separated increasing intervals below completions; returns how many indexes they hold. @throws Error */
export function validateIndexesFormat(indexes: string, completions: number): number {
  if (indexes === '') return 0;
  let last: number | undefined;
  let total = 0;
  for (const interval of indexes.split(',')) {
    const [x, y] = parseIndexInterval(interval, completions);
    if (last !== undefined && last >= x) throw new Error(`non-increasing order, previous: ${last}, current: ${x}`);
    total += y - x + 1;
    last = y;
  }
  return total;
}

/** `validateSuccessPolicy` (Indexed Jobs only): 1–20 rules, each with succeededIndexes and/or succeededCount within completions. */
function validateSuccessPolicy(spec: JobSpec, path: string): FieldError[] {
  const rules = spec.successPolicy?.rules ?? [];
  const errs: FieldError[] = [];
  if (rules.length === 0) errs.push(field.required(`${path}.rules`, 'at least one rules must be specified when the successPolicy is specified'));
  if (rules.length > MAX_SUCCESS_POLICY_RULES) errs.push(field.tooMany(`${path}.rules`, rules.length, MAX_SUCCESS_POLICY_RULES));
  // Upstream dereferences completions here; without it (already reported as required) there is nothing to check against.
  const completions = spec.completions;
  rules.forEach((rule, i) => {
    const rp = `${path}.rules[${i}]`;
    if (!isSet(rule.succeededCount) && !isSet(rule.succeededIndexes)) errs.push(field.required(rp, 'at least one of succeededCount or succeededIndexes must be specified'));
    if (!isSet(completions)) return;
    let total = 0;
    if (isSet(rule.succeededIndexes)) {
      const ip = `${rp}.succeededIndexes`;
      if (rule.succeededIndexes.length > MAX_SUCCEEDED_INDEXES_LENGTH) errs.push(field.tooLong(ip, MAX_SUCCEEDED_INDEXES_LENGTH));
      try {
        total = validateIndexesFormat(rule.succeededIndexes, completions);
      } catch (e) {
        errs.push(field.invalid(ip, rule.succeededIndexes, `error parsing succeededIndexes: ${(e as Error).message}`));
      }
    }
    if (isSet(rule.succeededCount)) {
      const cp = `${rp}.succeededCount`;
      const count = rule.succeededCount;
      errs.push(...validateNonnegativeField(count, cp));
      if (count > completions) errs.push(field.invalid(cp, count, `must be less than or equal to ${completions} (the number of specified completions)`));
      if (isSet(rule.succeededIndexes) && count > total) {
        errs.push(field.invalid(cp, count, `must be less than or equal to ${total} (the number of indexes in the specified succeededIndexes field)`));
      }
    }
  });
  return errs;
}

/** The restartPolicy rules of validateJobSpec: OnFailure or Never (Never only, with a podFailurePolicy). */
function validateRestartPolicy(spec: JobSpec, path: string): FieldError[] {
  const p = `${path}.template.spec.restartPolicy`;
  const policy = spec.template?.spec?.restartPolicy ?? '';
  // An absent restartPolicy was defaulted to Always by the pod template defaults.
  if (policy === 'Always' || policy === '') return [field.required(p, 'valid values: "OnFailure", "Never"')];
  if (policy !== 'OnFailure' && policy !== 'Never') return [field.notSupported(p, policy, ['OnFailure', 'Never'])];
  if (spec.podFailurePolicy && policy !== 'Never') return [field.invalid(p, policy, 'only "Never" is supported when podFailurePolicy is specified')];
  return [];
}

/**
 * `validateJobSpec` (the part Jobs and job templates share), in upstream's order: counts ≥ 0,
 * managedBy, completionMode limits, podFailurePolicy, successPolicy, podReplacementPolicy, the pod
 * template, and its restartPolicy. `path` is `spec` for a Job, `spec.jobTemplate.spec` for a CronJob.
 */
export function validateJobSpecFields(spec: JobSpec, path: string): FieldError[] {
  const errs = validateCounts(spec, path);
  errs.push(...validateCompletionMode(spec, path));
  if (spec.podFailurePolicy) errs.push(...validatePodFailurePolicy(spec, `${path}.podFailurePolicy`));
  if (spec.successPolicy) {
    if ((spec.completionMode ?? 'NonIndexed') !== 'Indexed') errs.push(field.invalid(`${path}.successPolicy`, spec.successPolicy, 'requires indexed completion mode'));
    else errs.push(...validateSuccessPolicy(spec, `${path}.successPolicy`));
  }
  const replacement = spec.podReplacementPolicy;
  if (isSet(replacement)) {
    const supported = spec.podFailurePolicy ? ['Failed'] : POD_REPLACEMENT_POLICIES;
    if (!supported.includes(replacement)) errs.push(field.notSupported(`${path}.podReplacementPolicy`, replacement, supported));
  }
  errs.push(...validatePodTemplateSpec(spec.template ?? {}, `${path}.template`));
  errs.push(...validateRestartPolicy(spec, path));
  return errs;
}

/** `ValidateJobSpec`: the shared fields, a required, valid selector, and template labels it matches. */
export function validateJobSpec(spec: JobSpec, path: string): FieldError[] {
  const errs = validateJobSpecFields(spec, path);
  if (!spec.selector) errs.push(field.required(`${path}.selector`));
  else errs.push(...validateLabelSelector(spec.selector, `${path}.selector`));
  try {
    const labels = spec.template?.metadata?.labels ?? {};
    if (!selectorFromLabelSelector(spec.selector).matches(labels)) {
      errs.push(field.invalid(`${path}.template.metadata.labels`, labels, '`selector` does not match template `labels`'));
    }
  } catch {
    // An invalid selector was reported above.
  }
  return errs;
}

/**
 * `validatePodTemplateUpdate`: the template is immutable, except that a Job suspended and never
 * started may change its scheduling directives (node affinity, node selector, tolerations, labels,
 * annotations, scheduling gates).
 */
function validatePodTemplateUpdate(spec: JobSpec, oldSpec: JobSpec, oldJob: Job): FieldError[] {
  let oldTemplate = oldSpec.template;
  const mutable = oldSpec.suspend === true && !oldJob.status?.startTime;
  if (mutable && oldTemplate) {
    const t = spec.template ?? {};
    const o = structuredClone(oldTemplate);
    const oSpec = (o.spec ??= { containers: [] });
    const newAffinity = t.spec?.affinity;
    if (!newAffinity && oSpec.affinity) {
      delete oSpec.affinity.nodeAffinity;
      if (Object.keys(oSpec.affinity).length === 0) delete oSpec.affinity;
    } else if (newAffinity) {
      oSpec.affinity = { ...oSpec.affinity, nodeAffinity: newAffinity.nodeAffinity };
      if (!oSpec.affinity.nodeAffinity) delete oSpec.affinity.nodeAffinity;
    }
    oSpec.nodeSelector = t.spec?.nodeSelector;
    oSpec.tolerations = t.spec?.tolerations;
    oSpec.schedulingGates = t.spec?.schedulingGates;
    o.metadata = { ...o.metadata, annotations: t.metadata?.annotations, labels: t.metadata?.labels };
    oldTemplate = o;
  }
  return validateImmutableField(spec.template, oldTemplate, 'spec.template');
}

/** `validateCompletions`: immutable, except for Indexed Jobs changing it together with parallelism (ElasticIndexedJob, GA). */
function validateCompletions(spec: JobSpec, oldSpec: JobSpec): FieldError[] {
  if (spec.completionMode !== 'Indexed') return validateImmutableField(spec.completions, oldSpec.completions, 'spec.completions');
  if (semanticDeepEqual(spec.completions, oldSpec.completions) || !isSet(spec.completions)) return [];
  return spec.completions === spec.parallelism ? [] : [field.invalid('spec.completions', spec.completions, 'can only be modified in tandem with spec.parallelism')];
}

/** The immutability checks of `ValidateJobSpecUpdate` (the new spec itself is validated by ValidateJob). */
export function validateJobSpecUpdate(job: Job, oldJob: Job): FieldError[] {
  const spec = job.spec ?? ({} as JobSpec);
  const oldSpec = oldJob.spec ?? ({} as JobSpec);
  const errs = validateCompletions(spec, oldSpec);
  errs.push(...validateImmutableField(spec.selector, oldSpec.selector, 'spec.selector'));
  errs.push(...validatePodTemplateUpdate(spec, oldSpec, oldJob));
  for (const k of ['completionMode', 'podFailurePolicy', 'backoffLimitPerIndex', 'managedBy', 'successPolicy'] as const) {
    errs.push(...validateImmutableField(spec[k], oldSpec[k], `spec.${k}`));
  }
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Status.

const conditionTrue = (status: JobStatus | undefined, type: string): boolean => (status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
const isFinished = (s: JobStatus | undefined): boolean => conditionTrue(s, 'Complete') || conditionTrue(s, 'Failed');
const timeOf = (t: string | undefined): number | undefined => parseTime(t);

/** validateJobStatus's counts and uncountedTerminatedPods: ≥ 0, UIDs non-empty and unique. */
function validateStatusCounts(s: JobStatus): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of ['active', 'succeeded', 'failed', 'ready', 'terminating'] as const) errs.push(...validateNonnegativeField(s[k] ?? 0, `status.${k}`));
  const seen = new Set<string>();
  for (const k of ['succeeded', 'failed'] as const) {
    (s.uncountedTerminatedPods?.[k] ?? []).forEach((uid, i) => {
      const p = `status.uncountedTerminatedPods.${k}[${i}]`;
      if (uid === '') errs.push(field.invalid(p, uid, 'must not be empty'));
      else if (seen.has(uid)) errs.push(field.duplicate(p, uid));
      else seen.add(uid);
    });
  }
  return errs;
}

/** The Complete/Failed and completionTime rules of validateJobStatus, each checked only when a field it reads changed (getStatusValidationOptions). */
function validateStatusConditions(job: Job, old: Job): FieldError[] {
  const s = job.status ?? {};
  const o = old.status ?? {};
  const errs: FieldError[] = [];
  const changed = (type: string): boolean => conditionTrue(s, type) !== conditionTrue(o, type);
  const complete = conditionTrue(s, 'Complete');
  const failed = conditionTrue(s, 'Failed');
  const failureTarget = conditionTrue(s, 'FailureTarget');
  const completionChanged = s.completionTime !== o.completionTime;
  const c = (detail: string): FieldError => field.invalidOmitValue('status.conditions', detail);
  if ((changed('Complete') || changed('Failed')) && complete && failed) errs.push(c('cannot set Complete=True and Failed=true conditions'));
  if ((changed('Complete') || changed('FailureTarget')) && complete && failureTarget) errs.push(c('cannot set Complete=True and FailureTarget=true conditions'));
  if ((changed('Complete') || completionChanged) && s.completionTime && !complete) {
    errs.push(field.invalid('status.completionTime', s.completionTime, 'cannot set completionTime when there is no Complete=True condition'));
  }
  if ((changed('Complete') || completionChanged) && !s.completionTime && complete) {
    errs.push(field.required('status.completionTime', 'completionTime is required for Complete jobs'));
  }
  const start = timeOf(s.startTime);
  const end = timeOf(s.completionTime);
  if ((s.startTime !== o.startTime || completionChanged) && start !== undefined && end !== undefined && end < start) {
    errs.push(field.invalid('status.completionTime', s.completionTime, 'completionTime cannot be set before startTime'));
  }
  return errs;
}

/** The SuccessCriteriaMet rules of validateJobStatus (checked whatever changed). */
function validateSuccessCriteria(job: Job): FieldError[] {
  const s = job.status ?? {};
  const errs: FieldError[] = [];
  const c = (detail: string): FieldError => field.invalidOmitValue('status.conditions', detail);
  const successMet = conditionTrue(s, 'SuccessCriteriaMet');
  if (successMet && conditionTrue(s, 'Failed')) errs.push(c('cannot set SuccessCriteriaMet=True and Failed=true conditions'));
  if (successMet && conditionTrue(s, 'FailureTarget')) errs.push(c('cannot set SuccessCriteriaMet=True and FailureTarget=true conditions'));
  if (job.spec?.successPolicy && !successMet && conditionTrue(s, 'Complete')) errs.push(c('cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True'));
  return errs;
}

/** The finished-Job rules of validateJobStatus. */
function validateFinishedStatus(job: Job, old: Job): FieldError[] {
  const s = job.status ?? {};
  const o = old.status ?? {};
  const errs: FieldError[] = [];
  const finished = isFinished(s);
  const finishedChanged = finished !== isFinished(o);
  if ((finishedChanged || s.active !== o.active) && (s.active ?? 0) > 0 && finished) {
    errs.push(field.invalid('status.active', s.active ?? 0, 'active>0 is invalid for finished job'));
  }
  if ((finishedChanged || s.startTime !== o.startTime) && !s.startTime && finished) {
    errs.push(field.required('status.startTime', 'startTime is required for finished job'));
  }
  const uncounted = s.uncountedTerminatedPods;
  const uncountedChanged = !semanticDeepEqual(uncounted, o.uncountedTerminatedPods);
  if ((finishedChanged || uncountedChanged) && finished && (uncounted?.failed?.length ?? 0) + (uncounted?.succeeded?.length ?? 0) > 0) {
    errs.push(field.invalid('status.uncountedTerminatedPods', uncounted, 'uncountedTerminatedPods needs to be empty for finished job'));
  }
  return errs;
}

/** The index rules of validateJobStatus: well-formed, only for Indexed Jobs (failed ones only with backoffLimitPerIndex), not overlapping. */
function validateStatusIndexes(job: Job, old: Job): FieldError[] {
  const s = job.status ?? {};
  const o = old.status ?? {};
  const spec = job.spec ?? ({} as JobSpec);
  const errs: FieldError[] = [];
  const completedChanged = (s.completedIndexes ?? '') !== (o.completedIndexes ?? '');
  const failedChanged = s.failedIndexes !== o.failedIndexes;
  const completions = spec.completions;
  const parse = (what: 'completedIndexes' | 'failedIndexes', value: string): number[][] | undefined => {
    if (!isSet(completions)) return undefined;
    try {
      validateIndexesFormat(value, completions);
      return value === '' ? [] : value.split(',').map((i) => parseIndexInterval(i, completions));
    } catch (e) {
      errs.push(field.invalid(`status.${what}`, value, `error parsing ${what}: ${(e as Error).message}`));
      return undefined;
    }
  };
  const completed = completedChanged ? parse('completedIndexes', s.completedIndexes ?? '') : undefined;
  const failedIdx = failedChanged && isSet(s.failedIndexes) && isSet(spec.backoffLimitPerIndex) ? parse('failedIndexes', s.failedIndexes) : undefined;
  if (completedChanged && (s.completedIndexes ?? '') !== '' && spec.completionMode !== 'Indexed') {
    errs.push(field.invalid('status.completedIndexes', s.completedIndexes, 'cannot set non-empty completedIndexes when non-indexed completion mode'));
  }
  if (failedChanged && !isSet(spec.backoffLimitPerIndex) && isSet(s.failedIndexes)) {
    errs.push(field.invalid('status.failedIndexes', s.failedIndexes, 'cannot set non-null failedIndexes when backoffLimitPerIndex is null'));
  }
  if ((failedChanged || completedChanged) && isSet(s.failedIndexes) && isSet(completions)) {
    const done = completed ?? tryIntervals(s.completedIndexes ?? '', completions);
    const bad = failedIdx ?? tryIntervals(s.failedIndexes, completions);
    const overlap = done.flatMap(([cx = 0, cy = 0]) => bad.filter(([fx = 0, fy = 0]) => cx <= fy && fx <= cy).map(([fx = 0]) => Math.max(cx, fx)));
    if (overlap.length > 0) errs.push(field.invalid('status.failedIndexes', s.failedIndexes, `failedIndexes and completedIndexes overlap at index: ${Math.min(...overlap)}`));
  }
  return errs;
}

/** The parseable intervals of an index list (unparseable ones are skipped, as validateFailedIndexesNotOverlapCompleted does). */
function tryIntervals(value: string, completions: number): number[][] {
  if (value === '') return [];
  return value.split(',').flatMap((i) => {
    try {
      return [parseIndexInterval(i, completions)];
    } catch {
      return [];
    }
  });
}

/** The transition rules of ValidateJobStatusUpdate: terminal conditions stay, counters do not decrease, times do not move. */
function validateStatusTransitions(job: Job, old: Job): FieldError[] {
  const s = job.status ?? {};
  const o = old.status ?? {};
  const spec = job.spec ?? ({} as JobSpec);
  const errs: FieldError[] = [];
  for (const type of ['Failed', 'Complete', 'FailureTarget']) {
    if (conditionTrue(o, type) && !conditionTrue(s, type)) errs.push(field.invalidOmitValue('status.conditions', `cannot disable the terminal ${type}=True condition`));
  }
  if ((s.failed ?? 0) < (o.failed ?? 0)) errs.push(field.invalid('status.failed', s.failed ?? 0, 'cannot decrease the failed counter'));
  const elastic = spec.completionMode === 'Indexed' && spec.completions === spec.parallelism;
  if (!elastic && (s.succeeded ?? 0) < (o.succeeded ?? 0)) errs.push(field.invalid('status.succeeded', s.succeeded ?? 0, 'cannot decrease the succeeded counter'));
  if (s.completionTime && o.completionTime && s.completionTime !== o.completionTime) {
    errs.push(field.invalid('status.completionTime', s.completionTime, 'completionTime cannot be mutated'));
  }
  if (o.startTime && o.startTime !== s.startTime && spec.suspend !== true) {
    errs.push(field.required('status.startTime', 'startTime cannot be removed for unsuspended job'));
  }
  if (conditionTrue(o, 'SuccessCriteriaMet') && !conditionTrue(s, 'SuccessCriteriaMet')) {
    errs.push(field.invalidOmitValue('status.conditions', 'cannot disable the SuccessCriteriaMet=True condition'));
  }
  if (conditionTrue(o, 'Complete') && !conditionTrue(o, 'SuccessCriteriaMet') && conditionTrue(s, 'SuccessCriteriaMet')) {
    errs.push(field.invalidOmitValue('status.conditions', 'cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions'));
  }
  return errs;
}

/** `ValidateJobStatusUpdate` with the options JobManagedBy (beta, on) selects in getStatusValidationOptions. */
export function validateJobStatusUpdate(job: Job, old: Job): FieldError[] {
  return [
    ...validateStatusCounts(job.status ?? {}),
    ...validateStatusConditions(job, old),
    ...validateFinishedStatus(job, old),
    ...validateStatusIndexes(job, old),
    ...validateSuccessCriteria(job),
    ...validateStatusTransitions(job, old),
  ];
}
