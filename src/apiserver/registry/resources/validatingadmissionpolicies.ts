/**
 * ValidatingAdmissionPolicies (with status) and ValidatingAdmissionPolicyBindings
 * (admissionregistration.k8s.io/v1, cluster-scoped). They are stored and validated only: their CEL
 * expressions are neither compiled, type-checked nor enforced yet (the ValidatingAdmissionPolicy
 * plugin and its type-checking controller, which writes `status`, are a later issue).
 *
 * Followed (v1.33): pkg/apis/admissionregistration/v1/defaults.go and zz_generated.defaults.go
 * (SetDefaults_ValidatingAdmissionPolicySpec, SetDefaults_MatchResources, SetDefaults_Rule),
 * pkg/apis/admissionregistration/validation/validation.go (validateValidatingAdmissionPolicySpec,
 * validateParamKind, validateValidation, validateVariable, validateAuditAnnotation,
 * validateValidatingAdmissionPolicyBindingSpec — with upstream's `matchResouces` spelling —,
 * validateParamRef, validateValidationActions, validateValidatingAdmissionPolicyStatus),
 * pkg/registry/admissionregistration/validatingadmissionpolicy{,binding}/strategy.go (status reset on
 * create and kept on update, generation, no unconditional update), pkg/printers/internalversion/
 * printers.go (printValidatingAdmissionPolicy, printValidatingAdmissionPolicyBinding).
 *
 * Not done: upstream's strategies also ask the authorizer whether the user may read the paramKind /
 * paramRef resource; kubeplane authorizes every user for everything, so that check always passes.
 */
import { VALIDATING_ADMISSION_POLICIES, VALIDATING_ADMISSION_POLICY_BINDINGS } from '../../../api/catalogue/index.js';
import type { KubeObject, LabelSelector } from '../../../api/index.js';
import { field, goQuote, goStringSlice, GoSyntax, type FieldError } from '../../../machinery/errors/index.js';
import {
  isDNS1035Label,
  isDNS1123Subdomain,
  isValidPathSegmentName,
  validateConditions,
  validateLabelSelector,
  validateQualifiedName,
  type MetaCondition,
} from '../../../machinery/validation/index.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import {
  ADMISSION_REGISTRATION_POLICY,
  FAILURE_POLICIES,
  defaultMatchResources,
  validateMatchConditions,
  validateMatchResources,
  type MatchCondition,
  type MatchResources,
} from './admission-rules.js';
import { bumpGenerationIf, semanticDeepEqual, specStatusPreparation, type ApiObject } from './helpers.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

/** `ValidatingAdmissionPolicySpec` as validation reads it. */
interface PolicySpec {
  paramKind?: { apiVersion?: string; kind?: string };
  matchConstraints?: MatchResources;
  validations?: { expression?: string; message?: string; messageExpression?: string; reason?: string }[];
  failurePolicy?: string;
  auditAnnotations?: { key?: string; valueExpression?: string }[];
  matchConditions?: MatchCondition[];
  variables?: { name?: string; expression?: string }[];
}

/** `ValidatingAdmissionPolicyStatus`. */
interface PolicyStatus {
  observedGeneration?: number;
  typeChecking?: { expressionWarnings?: { fieldRef?: string; warning?: string }[] };
  conditions?: MetaCondition[];
}

type PolicyObject = ApiObject<KubeObject> & { spec?: PolicySpec; status?: PolicyStatus };

/** `ParamRef` of a binding. */
interface ParamRef {
  name?: string;
  namespace?: string;
  selector?: LabelSelector;
  parameterNotFoundAction?: string;
}

/** `ValidatingAdmissionPolicyBindingSpec`. */
interface BindingSpec {
  policyName?: string;
  paramRef?: ParamRef;
  matchResources?: MatchResources;
  validationActions?: string[];
}

type BindingObject = ApiObject<KubeObject> & { spec?: BindingSpec };

const MAX_AUDIT_ANNOTATIONS = 20;
const MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH = 5 * 1024;
const VALIDATION_REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const VALIDATION_ACTIONS = ['Audit', 'Deny', 'Warn'];
const PARAMETER_NOT_FOUND_ACTIONS = ['Deny', 'Allow'];
const CEL_RESERVED = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package',
  'namespace', 'return', 'var', 'void', 'while',
]);

/** `isCELIdentifier`: `[_a-zA-Z][_a-zA-Z0-9]*`, not a reserved word. */
function isCELIdentifier(name: string): boolean {
  return /^[_a-zA-Z][_a-zA-Z0-9]*$/.test(name) && !CEL_RESERVED.has(name);
}

/** `validateParamKind`: apiVersion `[group/]version` (group a DNS subdomain, version a DNS-1035 label) and a kind. */
function validateParamKind(pk: NonNullable<PolicySpec['paramKind']>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = pk.apiVersion ?? '';
  if (apiVersion === '') errs.push(field.required(`${path}.apiVersion`));
  else {
    const parts = apiVersion === '/' ? ['', ''] : apiVersion.split('/');
    if (parts.length > 2) errs.push(field.invalid(`${path}.apiVersion`, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
    else {
      const [group, version] = parts.length === 1 ? ['', parts[0] ?? ''] : [parts[0] ?? '', parts[1] ?? ''];
      const groupErrs = group === '' ? [] : isDNS1123Subdomain(group);
      if (groupErrs.length > 0) errs.push(field.invalid(`${path}.apiVersion`, group, groupErrs.join(',')));
      if (version === '') errs.push(field.invalid(`${path}.apiVersion`, apiVersion, 'version must be specified'));
      else {
        const versionErrs = isDNS1035Label(version);
        if (versionErrs.length > 0) errs.push(field.invalid(`${path}.apiVersion`, version, versionErrs.join(',')));
      }
    }
  }
  const kind = pk.kind ?? '';
  if (kind === '') errs.push(field.required(`${path}.kind`));
  else {
    const kindErrs = isDNS1035Label(kind.toLowerCase());
    if (kindErrs.length > 0) errs.push(field.invalid(`${path}.kind`, kind, `may have mixed case, but should otherwise match: ${kindErrs.join(',')}`));
  }
  return errs;
}

/** `validateValidation`: an expression; a messageExpression and message that are not blank when set; a message on one line; a known reason. */
function validateValidation(v: NonNullable<PolicySpec['validations']>[number], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if ((v.expression ?? '').trim() === '') errs.push(field.required(`${path}.expression`, 'expression is not specified'));
  const messageExpression = v.messageExpression ?? '';
  if (messageExpression.length > 0 && messageExpression.trim() === '') {
    errs.push(field.invalid(`${path}.messageExpression`, messageExpression, 'must be non-empty if specified'));
  }
  const message = v.message ?? '';
  if (message.length > 0 && message.trim() === '') errs.push(field.invalid(`${path}.message`, message, 'message must be non-empty if specified'));
  else if (/[\n\r]/.test(message.trim())) errs.push(field.invalid(`${path}.message`, message, 'message must not contain line breaks'));
  if (v.reason != null && !VALIDATION_REASONS.includes(v.reason)) errs.push(field.notSupported(`${path}.reason`, v.reason, VALIDATION_REASONS));
  return errs;
}

/** `validateVariable`: a CEL identifier as name and an expression. */
function validateVariable(v: NonNullable<PolicySpec['variables']>[number], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = v.name ?? '';
  if (name.trim() === '') errs.push(field.required(`${path}.name`, 'name is not specified'));
  else if (!isCELIdentifier(name)) errs.push(field.invalid(`${path}.name`, name, 'name is not a valid CEL identifier'));
  if ((v.expression ?? '').trim() === '') errs.push(field.required(`${path}.expression`, 'expression is not specified'));
  return errs;
}

/** `validateAuditAnnotation`: `<policy name>/<key>` a qualified name; a valueExpression of at most 5 KiB. */
function validateAuditAnnotation(policyName: string, a: NonNullable<PolicySpec['auditAnnotations']>[number], path: string): FieldError[] {
  const key = a.key ?? '';
  const errs: FieldError[] =
    policyName.length > 0 ? validateQualifiedName(`${policyName}/${key}`, `${path}.key`) : [field.invalid(`${path}.key`, key, 'requires metadata.name be non-empty')];
  const value = (a.valueExpression ?? '').trim();
  if (value.length === 0) errs.push(field.required(`${path}.valueExpression`, 'valueExpression is not specified'));
  else if (value.length > MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH) {
    errs.push(field.required(`${path}.valueExpression`, `must not exceed ${MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH} bytes in length`));
  }
  return errs;
}

/** Go's `%#v` of `[]admissionregistration.AuditAnnotation`. */
function goAuditAnnotations(list: NonNullable<PolicySpec['auditAnnotations']>): GoSyntax {
  const one = (a: (typeof list)[number]): string => `admissionregistration.AuditAnnotation{Key:${goQuote(a.key ?? '')}, ValueExpression:${goQuote(a.valueExpression ?? '')}}`;
  return new GoSyntax(`[]admissionregistration.AuditAnnotation{${list.map(one).join(', ')}}`);
}

/** The validations and audit annotations of a policy: at least one of them, each valid, audit keys unique. */
function validateValidationsAndAudits(policyName: string, spec: PolicySpec, path: string): FieldError[] {
  const validations = spec.validations ?? [];
  const audits = spec.auditAnnotations ?? [];
  if (validations.length === 0 && audits.length === 0) {
    const why = 'validations or auditAnnotations must contain at least one item';
    return [field.required(`${path}.validations`, why), field.required(`${path}.auditAnnotations`, why)];
  }
  const errs: FieldError[] = [];
  validations.forEach((v, i) => errs.push(...validateValidation(v, `${path}.validations[${i}]`)));
  if (audits.length > MAX_AUDIT_ANNOTATIONS) {
    errs.push(field.invalid(`${path}.auditAnnotations`, goAuditAnnotations(audits), `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`));
  }
  const keys = new Set<string>();
  audits.forEach((a, i) => {
    errs.push(...validateAuditAnnotation(policyName, a, `${path}.auditAnnotations[${i}]`));
    const key = a.key ?? '';
    if (keys.has(key)) errs.push(field.duplicate(`${path}.auditAnnotations[${i}].key`, key));
    keys.add(key);
  });
  return errs;
}

/**
 * `validateValidatingAdmissionPolicySpec` without ObjectMeta: failurePolicy, paramKind,
 * matchConstraints with at least one resourceRule, match conditions (skipped on an update that keeps
 * them and the paramKind), variables, validations and audit annotations.
 */
export function validateValidatingAdmissionPolicy(p: PolicyObject, ignoreMatchConditions = false): FieldError[] {
  const spec = p.spec ?? {};
  const errs: FieldError[] = [];
  if (spec.failurePolicy == null) errs.push(field.required('spec.failurePolicy'));
  else if (!FAILURE_POLICIES.includes(spec.failurePolicy)) errs.push(field.notSupported('spec.failurePolicy', spec.failurePolicy, FAILURE_POLICIES));
  if (spec.paramKind) errs.push(...validateParamKind(spec.paramKind, 'spec.paramKind'));
  if (!spec.matchConstraints) errs.push(field.required('spec.matchConstraints'));
  else {
    errs.push(...validateMatchResources(spec.matchConstraints, 'spec.matchConstraints'));
    if ((spec.matchConstraints.resourceRules ?? []).length === 0) errs.push(field.required('spec.matchConstraints.resourceRules'));
  }
  if (!ignoreMatchConditions) errs.push(...validateMatchConditions(spec.matchConditions, 'spec.matchConditions'));
  (spec.variables ?? []).forEach((v, i) => errs.push(...validateVariable(v, `spec.variables[${i}]`)));
  errs.push(...validateValidationsAndAudits(p.metadata?.name ?? '', spec, 'spec'));
  return errs;
}

/** `validateValidatingAdmissionPolicyStatus`: expression warnings with a warning and a fieldRef; valid conditions. */
function validatePolicyStatus(status: PolicyStatus | undefined): FieldError[] {
  const errs: FieldError[] = [];
  (status?.typeChecking?.expressionWarnings ?? []).forEach((w, i) => {
    const p = `status.typeChecking.expressionWarnings[${i}]`;
    if (!w.warning) errs.push(field.required(`${p}.warning`));
    if ((w.fieldRef ?? '').trim() === '') errs.push(field.required(`${p}.fieldRef`));
  });
  return [...errs, ...validateConditions(status?.conditions, 'status.conditions')];
}

/** `validateParamRef`: name or selector (not both), a parameterNotFoundAction of Deny or Allow. */
function validateParamRef(pr: ParamRef | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!pr) return errs;
  const name = pr.name ?? '';
  const exclusive = 'name and selector are mutually exclusive';
  if (name.length > 0) {
    for (const msg of isValidPathSegmentName(name)) errs.push(field.invalid(`${path}.name`, name, msg));
    if (pr.selector) errs.push(field.forbidden(`${path}.name`, exclusive));
  }
  if (pr.selector) {
    errs.push(...validateLabelSelector(pr.selector, `${path}.selector`));
    if (name.length > 0) errs.push(field.forbidden(`${path}.selector`, exclusive));
  }
  if (name.length === 0 && !pr.selector) errs.push(field.required(path, 'one of name or selector must be specified'));
  const action = pr.parameterNotFoundAction ?? '';
  if (action === '') errs.push(field.required(`${path}.parameterNotFoundAction`));
  else if (!PARAMETER_NOT_FOUND_ACTIONS.includes(action)) errs.push(field.notSupported(`${path}.parameterNotFoundAction`, action, PARAMETER_NOT_FOUND_ACTIONS));
  return errs;
}

/** `validateValidationActions`: each one of Deny/Warn/Audit, no duplicates, not Deny with Warn, at least one. */
function validateValidationActions(actions: readonly string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    if (!VALIDATION_ACTIONS.includes(a)) errs.push(field.notSupported(`${path}[${i}]`, a, VALIDATION_ACTIONS));
    if (seen.has(a)) errs.push(field.duplicate(`${path}[${i}]`, a));
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push(
      field.invalid(
        path,
        goStringSlice(actions, '[]admissionregistration.ValidationAction'),
        'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ),
    );
  }
  if (seen.size === 0) errs.push(field.required(path, 'at least one validation action is required'));
  return errs;
}

/** `validateValidatingAdmissionPolicyBindingSpec` (errors of matchResources at upstream's `spec.matchResouces`). */
export function validateValidatingAdmissionPolicyBinding(b: BindingObject): FieldError[] {
  const spec = b.spec ?? {};
  const errs: FieldError[] = [];
  const policyName = spec.policyName ?? '';
  if (policyName === '') errs.push(field.required('spec.policyName'));
  else for (const msg of isDNS1123Subdomain(policyName)) errs.push(field.invalid('spec.policyName', policyName, msg));
  errs.push(...validateParamRef(spec.paramRef, 'spec.paramRef'));
  errs.push(...validateMatchResources(spec.matchResources, 'spec.matchResouces'));
  errs.push(...validateValidationActions(spec.validationActions ?? [], 'spec.validationActions'));
  return errs;
}

/** Go's `(*metav1.LabelSelector).String()` (the generated protobuf one), which the binding printer shows. */
export function goLabelSelectorString(sel: LabelSelector): string {
  const labels = Object.keys(sel.matchLabels ?? {})
    .sort()
    .map((k) => `${k}: ${sel.matchLabels?.[k] ?? ''},`)
    .join('');
  const exprs = (sel.matchExpressions ?? []).map((e) => `LabelSelectorRequirement{Key:${e.key},Operator:${e.operator},Values:[${(e.values ?? []).join(' ')}],},`).join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}

/** printValidatingAdmissionPolicyBinding's PARAMREF cell: `ns/name`, `*\/name`, the selector, or `<unset>`. */
function paramRefCell(pr: ParamRef | undefined): string {
  if (!pr) return '<unset>';
  if (pr.name) return pr.namespace ? `${pr.namespace}/${pr.name}` : `*/${pr.name}`;
  return pr.selector ? goLabelSelectorString(pr.selector) : '<unset>';
}

/** The ValidatingAdmissionPolicy strategy. */
export const validatingAdmissionPolicyStrategy: ResourceStrategy<PolicyObject> = {
  info: resourceInfo(VALIDATING_ADMISSION_POLICIES),
  hasStatus: true,
  /** `SetObjectDefaults_ValidatingAdmissionPolicy`: failurePolicy Fail; the match constraints'. */
  defaults(p) {
    const spec = (p.spec ??= {});
    spec.failurePolicy ??= 'Fail';
    defaultMatchResources(spec.matchConstraints);
  },
  ...specStatusPreparation(() => ({})),
  validate: (p) => validateValidatingAdmissionPolicy(p),
  /** Match conditions are checked again only when they or the paramKind changed (`ignoreValidatingAdmissionPolicyMatchConditions`). */
  validateUpdate: (p, old) =>
    validateValidatingAdmissionPolicy(p, semanticDeepEqual(p.spec?.paramKind, old.spec?.paramKind) && semanticDeepEqual(p.spec?.matchConditions, old.spec?.matchConditions)),
  validateStatusUpdate: (p) => validatePolicyStatus(p.status),
  ...ADMISSION_REGISTRATION_POLICY,
  table: {
    columns: [
      NAME_COLUMN,
      column('Validations', 'integer', 'Validations indicates the number of validation rules defined in this configuration'),
      column('ParamKind', 'string', 'ParamKind specifies the kind of resources used to parameterize this policy'),
      AGE_COLUMN,
    ],
    row: (p, now) => {
      const pk = p.spec?.paramKind;
      const paramKind = pk ? `${pk.apiVersion ?? ''}/${pk.kind ?? ''}` : '<unset>';
      return { cells: [p.metadata?.name ?? '', (p.spec?.validations ?? []).length, paramKind, translateTimestampSince(p.metadata?.creationTimestamp, now)] };
    },
  },
};

/** The ValidatingAdmissionPolicyBinding strategy. */
export const validatingAdmissionPolicyBindingStrategy: ResourceStrategy<BindingObject> = {
  info: resourceInfo(VALIDATING_ADMISSION_POLICY_BINDINGS),
  hasStatus: false,
  /** `SetObjectDefaults_ValidatingAdmissionPolicyBinding`: the match resources' defaults. */
  defaults(b) {
    defaultMatchResources(b.spec?.matchResources);
  },
  prepareForCreate(b) {
    (b.metadata ??= {}).generation = 1;
  },
  prepareForUpdate(b, old) {
    bumpGenerationIf(b, old, !semanticDeepEqual(b.spec, old.spec));
  },
  validate: validateValidatingAdmissionPolicyBinding,
  validateUpdate: validateValidatingAdmissionPolicyBinding,
  ...ADMISSION_REGISTRATION_POLICY,
  table: {
    columns: [
      NAME_COLUMN,
      column('PolicyName', 'string', 'PolicyName indicates the policy definition which the policy binding binded to'),
      column('ParamRef', 'string', 'ParamRef indicates the param resource which sets the configration param'),
      AGE_COLUMN,
    ],
    row: (b, now) => ({
      cells: [b.metadata?.name ?? '', b.spec?.policyName ?? '', paramRefCell(b.spec?.paramRef), translateTimestampSince(b.metadata?.creationTimestamp, now)],
    }),
  },
};
