/**
 * MutatingWebhookConfigurations and ValidatingWebhookConfigurations (admissionregistration.k8s.io/v1,
 * cluster-scoped). They are stored and validated only: kubeplane does not call the webhooks yet (the
 * MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins are a later issue).
 *
 * Followed (v1.33): pkg/apis/admissionregistration/v1/defaults.go and zz_generated.defaults.go
 * (SetDefaults_{Mutating,Validating}Webhook, SetDefaults_ServiceReference, SetDefaults_Rule),
 * pkg/apis/admissionregistration/validation/validation.go (validate{Mutating,Validating}Webhook
 * Configuration, validate{Mutating,Validating}Webhook, validateAdmissionReviewVersions and the update
 * options computed from the stored object), pkg/registry/admissionregistration/{mutating,validating}
 * webhookconfiguration/strategy.go (generation, no unconditional update), pkg/printers/internalversion/
 * printers.go (printMutatingWebhook, printValidatingWebhook).
 *
 * Not done: match condition expressions are not compiled (admission-rules.ts); the caBundle is not
 * parsed (upstream leaves that to the webhook client too).
 */
import { MUTATING_WEBHOOK_CONFIGURATIONS, VALIDATING_WEBHOOK_CONFIGURATIONS, type KindDescriptor } from '../../../api/catalogue/index.js';
import type { KubeObject, LabelSelector } from '../../../api/index.js';
import { field, goStringSlice, type FieldError } from '../../../machinery/errors/index.js';
import { isDNS1035Label, isFullyQualifiedName, validateLabelSelector } from '../../../machinery/validation/index.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import {
  ADMISSION_REGISTRATION_POLICY,
  FAILURE_POLICIES,
  MATCH_POLICIES,
  defaultRule,
  validateMatchConditions,
  validateRuleWithOperations,
  type AdmissionRule,
  type MatchCondition,
} from './admission-rules.js';
import { bumpGenerationIf, semanticDeepEqual, type ApiObject } from './helpers.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';
import { validateWebhookService, validateWebhookURL } from './webhook-client.js';

/** A mutating or validating webhook (`reinvocationPolicy` is the mutating one's only own field). */
export interface Webhook {
  name?: string;
  clientConfig?: { url?: string; service?: { namespace?: string; name?: string; path?: string; port?: number }; caBundle?: string };
  rules?: AdmissionRule[];
  failurePolicy?: string;
  matchPolicy?: string;
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  sideEffects?: string;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  reinvocationPolicy?: string;
  matchConditions?: MatchCondition[];
}

/** Either configuration, as the shared code reads it. */
type WebhookConfiguration = ApiObject<KubeObject> & { webhooks?: Webhook[] };

/** `AcceptedAdmissionReviewVersions`: what the previous API server version understands. */
const ACCEPTED_ADMISSION_REVIEW_VERSIONS = ['v1', 'v1beta1'];
const NO_SIDE_EFFECT_CLASSES = ['None', 'NoneOnDryRun'];
const SIDE_EFFECT_CLASSES = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];

/**
 * `SetDefaults_{Validating,Mutating}Webhook` (v1: failurePolicy Fail, matchPolicy Equivalent, empty
 * selectors, timeoutSeconds 10; reinvocationPolicy Never for mutating ones; sideEffects and
 * admissionReviewVersions have no default in v1), the service port 443 and every rule's scope `*`.
 */
export function defaultWebhook(hook: Webhook, mutating: boolean): void {
  hook.failurePolicy ??= 'Fail';
  hook.matchPolicy ??= 'Equivalent';
  hook.namespaceSelector ??= {};
  hook.objectSelector ??= {};
  hook.timeoutSeconds ??= 10;
  if (mutating) hook.reinvocationPolicy ??= 'Never';
  const service = hook.clientConfig?.service;
  if (service) service.port ??= 443;
  for (const rule of hook.rules ?? []) defaultRule(rule);
}

/** `validationOptions` of upstream: what a create requires, relaxed on update where the stored object already breaks it. */
interface WebhookValidationOptions {
  ignoreMatchConditions: boolean;
  requireNoSideEffects: boolean;
  requireRecognizedAdmissionReviewVersion: boolean;
  requireUniqueWebhookNames: boolean;
}

const CREATE_OPTIONS: WebhookValidationOptions = {
  ignoreMatchConditions: false,
  requireNoSideEffects: true,
  requireRecognizedAdmissionReviewVersion: true,
  requireUniqueWebhookNames: true,
};

/** `validateAdmissionReviewVersions`: at least one, unique, DNS-1035 labels, one of them known (when required). */
function validateAdmissionReviewVersions(versions: readonly string[] | undefined, requireRecognized: boolean, path: string): FieldError[] {
  const list = versions ?? [];
  if (list.length === 0) return [field.required(path, `must specify one of ${ACCEPTED_ADMISSION_REVIEW_VERSIONS.join(', ')}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  list.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(field.invalid(`${path}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const msg of isDNS1035Label(v)) errs.push(field.invalid(`${path}[${i}]`, v, msg));
  });
  if (requireRecognized && !list.some((v) => ACCEPTED_ADMISSION_REVIEW_VERSIONS.includes(v))) {
    errs.push(field.invalid(path, goStringSlice(list), `must include at least one of ${ACCEPTED_ADMISSION_REVIEW_VERSIONS.join(', ')}`));
  }
  return errs;
}

/** `clientConfig`: exactly one of url (https, a host, no user, query or fragment) and service. */
function validateClientConfig(cc: Webhook['clientConfig'], path: string): FieldError[] {
  const url = cc?.url;
  const service = cc?.service;
  if ((url == null) === (service == null)) return [field.required(path, 'exactly one of url or service is required')];
  if (url != null) return validateWebhookURL(`${path}.url`, url, true);
  return service ? validateWebhookService(`${path}.service`, service.namespace ?? '', service.name ?? '', service.path, service.port ?? 0) : [];
}

/** `validateMutatingWebhook` / `validateValidatingWebhook`, in upstream's order. */
function validateWebhook(hook: Webhook, opts: WebhookValidationOptions, path: string, mutating: boolean): FieldError[] {
  const errs: FieldError[] = [...isFullyQualifiedName(`${path}.name`, hook.name ?? '')];
  (hook.rules ?? []).forEach((rule, i) => errs.push(...validateRuleWithOperations(rule, `${path}.rules[${i}]`)));
  if (hook.failurePolicy != null && !FAILURE_POLICIES.includes(hook.failurePolicy)) {
    errs.push(field.notSupported(`${path}.failurePolicy`, hook.failurePolicy, FAILURE_POLICIES));
  }
  if (hook.matchPolicy != null && !MATCH_POLICIES.includes(hook.matchPolicy)) errs.push(field.notSupported(`${path}.matchPolicy`, hook.matchPolicy, MATCH_POLICIES));
  const allowedSideEffects = opts.requireNoSideEffects ? NO_SIDE_EFFECT_CLASSES : SIDE_EFFECT_CLASSES;
  if (hook.sideEffects == null) errs.push(field.required(`${path}.sideEffects`, `must specify one of ${allowedSideEffects.join(', ')}`));
  else if (!allowedSideEffects.includes(hook.sideEffects)) errs.push(field.notSupported(`${path}.sideEffects`, hook.sideEffects, allowedSideEffects));
  const timeout = hook.timeoutSeconds;
  if (timeout != null && (timeout > 30 || timeout < 1)) errs.push(field.invalid(`${path}.timeoutSeconds`, timeout, 'the timeout value must be between 1 and 30 seconds'));
  errs.push(...validateLabelSelector(hook.namespaceSelector, `${path}.namespaceSelector`));
  errs.push(...validateLabelSelector(hook.objectSelector, `${path}.objectSelector`));
  if (mutating && hook.reinvocationPolicy != null && !REINVOCATION_POLICIES.includes(hook.reinvocationPolicy)) {
    errs.push(field.notSupported(`${path}.reinvocationPolicy`, hook.reinvocationPolicy, REINVOCATION_POLICIES));
  }
  errs.push(...validateClientConfig(hook.clientConfig, `${path}.clientConfig`));
  if (!opts.ignoreMatchConditions) errs.push(...validateMatchConditions(hook.matchConditions, `${path}.matchConditions`));
  return errs;
}

/** `validate{Mutating,Validating}WebhookConfiguration` without the ObjectMeta checks (the store does those). */
function validateWebhookConfiguration(c: WebhookConfiguration, opts: WebhookValidationOptions, mutating: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (c.webhooks ?? []).forEach((hook, i) => {
    const path = `webhooks[${i}]`;
    errs.push(...validateWebhook(hook, opts, path, mutating));
    errs.push(...validateAdmissionReviewVersions(hook.admissionReviewVersions, opts.requireRecognizedAdmissionReviewVersion, `${path}.admissionReviewVersions`));
    const name = hook.name ?? '';
    if (opts.requireUniqueWebhookNames && name.length > 0) {
      if (names.has(name)) errs.push(field.duplicate(`${path}.name`, name));
      else names.add(name);
    }
  });
  return errs;
}

/**
 * The options of `Validate…WebhookConfigurationUpdate`: each requirement holds only when the stored
 * webhooks already meet it, and unchanged match conditions are not checked again.
 */
function updateOptions(c: WebhookConfiguration, old: WebhookConfiguration): WebhookValidationOptions {
  const hooks = c.webhooks ?? [];
  const oldHooks = old.webhooks ?? [];
  const oldNames = oldHooks.map((h) => h.name ?? '');
  return {
    ignoreMatchConditions: hooks.length === oldHooks.length && hooks.every((h, i) => semanticDeepEqual(h.matchConditions, oldHooks[i]?.matchConditions)),
    requireNoSideEffects: oldHooks.every((h) => h.sideEffects != null && NO_SIDE_EFFECT_CLASSES.includes(h.sideEffects)),
    requireRecognizedAdmissionReviewVersion: oldHooks.every((h) => {
      const versions = h.admissionReviewVersions ?? [];
      return versions.length === 0 || versions.some((v) => ACCEPTED_ADMISSION_REVIEW_VERSIONS.includes(v));
    }),
    requireUniqueWebhookNames: new Set(oldNames).size === oldNames.length,
  };
}

/** printMutatingWebhook / printValidatingWebhook: NAME WEBHOOKS AGE. */
const webhookTable = {
  columns: [NAME_COLUMN, column('Webhooks', 'integer', 'Webhooks indicates the number of webhooks registered in this configuration'), AGE_COLUMN],
  row: (c: WebhookConfiguration, now: number) => ({
    cells: [c.metadata?.name ?? '', (c.webhooks ?? []).length, translateTimestampSince(c.metadata?.creationTimestamp, now)],
  }),
};

/** The strategy of one of the two kinds; they differ only in `reinvocationPolicy`. */
function webhookConfigurationStrategy(row: KindDescriptor, mutating: boolean): ResourceStrategy<WebhookConfiguration> {
  return {
    info: resourceInfo(row),
    hasStatus: false,
    defaults(obj) {
      for (const hook of obj.webhooks ?? []) defaultWebhook(hook, mutating);
    },
    prepareForCreate(obj) {
      (obj.metadata ??= {}).generation = 1;
    },
    prepareForUpdate(obj, old) {
      bumpGenerationIf(obj, old, !semanticDeepEqual(obj.webhooks, old.webhooks));
    },
    validate: (obj) => validateWebhookConfiguration(obj, CREATE_OPTIONS, mutating),
    validateUpdate: (obj, old) => validateWebhookConfiguration(obj, updateOptions(obj, old), mutating),
    ...ADMISSION_REGISTRATION_POLICY,
    table: webhookTable,
  };
}

/** The MutatingWebhookConfiguration strategy. */
export const mutatingWebhookConfigurationStrategy = webhookConfigurationStrategy(MUTATING_WEBHOOK_CONFIGURATIONS, true);

/** The ValidatingWebhookConfiguration strategy. */
export const validatingWebhookConfigurationStrategy = webhookConfigurationStrategy(VALIDATING_WEBHOOK_CONFIGURATIONS, false);
