/**
 * Validation of an audit policy, with upstream's messages (k8s.io/apiserver
 * pkg/apis/audit/validation/validation.go `ValidatePolicy`, v1.33): each rule needs a known level;
 * non-resource URLs start with `/` (or are `*`) and have `*` only at the end; a rule does not mix
 * non-resource URLs with resources or namespaces; groups are DNS subdomains; resourceNames need
 * resources; omitted stages are known stages.
 */
import { field, goStringSlice, type FieldError } from '../../machinery/errors/index.js';
import { isDNS1123Subdomain } from '../../machinery/validation/index.js';
import { AUDIT_LEVELS, AUDIT_STAGES, type AuditPolicy, type GroupResources, type PolicyRule } from './types.js';

/** validation.go `ValidatePolicy`. */
export function validatePolicy(policy: AuditPolicy): FieldError[] {
  const errs = validateOmitStages(policy.omitStages, 'omitStages');
  policy.rules.forEach((rule, i) => errs.push(...validatePolicyRule(rule, `rules[${i}]`)));
  return errs;
}

function validatePolicyRule(rule: PolicyRule, path: string): FieldError[] {
  const errs = [
    // A decoded rule without a level has none at all.
    ...validateLevel(rule.level ?? '', `${path}.level`),
    ...validateNonResourceURLs(rule.nonResourceURLs ?? [], `${path}.nonResourceURLs`),
    ...validateResources(rule.resources ?? [], `${path}.resources`),
    ...validateOmitStages(rule.omitStages, `${path}.omitStages`),
  ];
  if ((rule.nonResourceURLs ?? []).length > 0 && ((rule.resources ?? []).length > 0 || (rule.namespaces ?? []).length > 0)) {
    errs.push(field.invalid(`${path}.nonResourceURLs`, goStringSlice(rule.nonResourceURLs), 'rules cannot apply to both regular resources and non-resource URLs'));
  }
  return errs;
}

function validateLevel(level: string, path: string): FieldError[] {
  if ((AUDIT_LEVELS as readonly string[]).includes(level)) return [];
  if (level === '') return [field.required(path)];
  return [field.notSupported(path, level, AUDIT_LEVELS)];
}

function validateNonResourceURLs(urls: readonly string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  urls.forEach((url, i) => {
    if (url === '*') return;
    if (!url.startsWith('/')) errs.push(field.invalid(`${path}[${i}]`, url, "non-resource URL rules must begin with a '/' character"));
    if (url !== '' && url.slice(0, -1).includes('*')) {
      errs.push(field.invalid(`${path}[${i}]`, url, "non-resource URL wildcards '*' must be the final character of the rule"));
    }
  });
  return errs;
}

/** Note upstream's paths here: `rules[0].resources.group`, without the entry's index. */
function validateResources(groupResources: readonly GroupResources[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const gr of groupResources) {
    // '' is the core group; others are lower-case DNS subdomains (`rbac.authorization.k8s.io`, not `…/v1`).
    const group = gr.group ?? '';
    if (group !== '') {
      const msgs = isDNS1123Subdomain(group);
      if (msgs.length > 0) errs.push(field.invalid(`${path}.group`, group, msgs.join(',')));
    }
    if ((gr.resourceNames ?? []).length > 0 && (gr.resources ?? []).length === 0) {
      errs.push(field.invalid(`${path}.resourceNames`, goStringSlice(gr.resourceNames), 'using resourceNames requires at least one resource'));
    }
  }
  return errs;
}

function validateOmitStages(stages: readonly string[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (stages ?? []).forEach((stage, i) => {
    if (!(AUDIT_STAGES as readonly string[]).includes(stage)) {
      errs.push(field.invalid(`${path}[${i}]`, stage, `allowed stages are ${AUDIT_STAGES.join(',')}`));
    }
  });
  return errs;
}
