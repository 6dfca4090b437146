/**
 * ResourceQuotas (core/v1), with the status subresource. Nothing accounts usage yet: no quota
 * controller fills `status` and no admission enforces `hard`; status is what the status subresource
 * writes.
 *
 * Followed (v1.33): pkg/apis/core/validation/validation.go (ValidateResourceQuota,
 * ValidateResourceQuotaSpec, validateResourceQuotaScopes, validateScopeSelector,
 * validateScopedResourceSelectorRequirement, ValidateResourceQuotaUpdate,
 * ValidateResourceQuotaStatusUpdate), pkg/registry/core/resourcequota/strategy.go (status cleared on
 * create and kept on update; the status strategy keeps spec) and
 * pkg/printers/internalversion/printers.go (printResourceQuota; since v1.33 the columns are Name,
 * Request, Limit, Age).
 *
 * Not done: the warnings upstream gives on create when a `requests.*` hard limit exceeds its
 * `limits.*` one (strategies here give no warnings).
 */
import { ResourceQuotaAdmission } from '../../admission/resource-quota.js';
import { RESOURCE_QUOTAS } from '../../../api/catalogue/index.js';
import type { ResourceQuota } from '../../../api/index.js';
import type { ResourceQuotaSpec, ScopeSelector } from 'kubernetes-types/core/v1.js';
import { field, GoSyntax, goQuote, goStringSlice, type FieldError } from '../../../machinery/errors/index.js';
import { FIELD_IMMUTABLE_ERROR_MSG } from '../../../machinery/validation/index.js';
import { parseQuantity } from '../../../machinery/quantity/index.js';
import { resourceInfo, type ResourceStrategy, type TableRowData } from '../strategy.js';
import { resetField, type ApiObject } from './helpers.js';
import { isResourceQuotaScopeValidForResource, isStandardQuotaResourceName, isStandardResourceQuotaScope, validateResourceList, validateResourceQuotaResourceName } from './resource-names.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

type ResourceQuotaObject = ApiObject<ResourceQuota>;
type Quantities = Readonly<Record<string, string | number>>;

const CONFLICTING_SCOPE_PAIRS = [
  ['BestEffort', 'NotBestEffort'],
  ['Terminating', 'NotTerminating'],
] as const;
const EXISTS_ONLY_SCOPES = new Set(['BestEffort', 'NotBestEffort', 'Terminating', 'NotTerminating', 'CrossNamespacePodAffinity']);

/** `field.Invalid(path, spec.scopes, detail)`: the scopes as Go prints a `[]core.ResourceQuotaScope`. */
function invalidScopes(path: string, scopes: readonly string[] | undefined, detail: string): FieldError {
  return field.invalid(path, goStringSlice(scopes, '[]core.ResourceQuotaScope'), detail);
}

/** Go's `%#v` of a `core.ScopeSelector`. */
function goScopeSelector(sel: ScopeSelector): string {
  const reqs = (sel.matchExpressions ?? []).map(
    (r) => `core.ScopedResourceSelectorRequirement{ScopeName:${goQuote(r.scopeName ?? '')}, Operator:${goQuote(r.operator ?? '')}, Values:${goStringSlice(r.values).text}}`,
  );
  const list = sel.matchExpressions ? `[]core.ScopedResourceSelectorRequirement{${reqs.join(', ')}}` : '[]core.ScopedResourceSelectorRequirement(nil)';
  return `core.ScopeSelector{MatchExpressions:${list}}`;
}

/** The quota-tracked resources of `hard` a scope does not apply to, in name order. */
function resourcesOutsideScope(scope: string, hard: Quantities | undefined): string[] {
  return Object.keys(hard ?? {})
    .sort()
    .filter((k) => isStandardQuotaResourceName(k) && !isResourceQuotaScopeValidForResource(scope, k));
}

/** The conflicting pairs (BestEffort/NotBestEffort, Terminating/NotTerminating) all present in `scopes`. */
function conflictingPairs(scopes: ReadonlySet<string>): (typeof CONFLICTING_SCOPE_PAIRS)[number][] {
  return CONFLICTING_SCOPE_PAIRS.filter(([a, b]) => scopes.has(a) && scopes.has(b));
}

/** `validateResourceQuotaScopes`: known scopes, each applicable to every hard resource, no conflicting pair. */
function validateResourceQuotaScopes(spec: ResourceQuotaSpec): FieldError[] {
  const scopes = spec.scopes ?? [];
  const errs: FieldError[] = [];
  for (const scope of scopes) {
    if (!isStandardResourceQuotaScope(scope)) errs.push(invalidScopes('spec.scopes', scopes, 'unsupported scope'));
    errs.push(...resourcesOutsideScope(scope, spec.hard).map(() => invalidScopes('spec.scopes', scopes, 'unsupported scope applied to resource')));
  }
  errs.push(...conflictingPairs(new Set(scopes)).map(() => invalidScopes('spec.scopes', scopes, 'conflicting scopes')));
  return errs;
}

/** `validateScopedResourceSelectorRequirement`, at `spec.scopeSelector.matchExpressions` (upstream gives no index). */
function validateScopeSelector(spec: ResourceQuotaSpec): FieldError[] {
  const sel = spec.scopeSelector;
  if (!sel) return [];
  const path = 'spec.scopeSelector.matchExpressions';
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (const req of sel.matchExpressions ?? []) {
    const scopeName = req.scopeName ?? '';
    const operator = req.operator ?? '';
    if (!isStandardResourceQuotaScope(scopeName)) errs.push(field.invalid(`${path}.scopeName`, scopeName, 'unsupported scope'));
    errs.push(...resourcesOutsideScope(scopeName, spec.hard).map(() => field.invalid(path, new GoSyntax(goScopeSelector(sel)), 'unsupported scope applied to resource')));
    if (EXISTS_ONLY_SCOPES.has(scopeName) && operator !== 'Exists') {
      errs.push(
        field.invalid(
          `${path}.operator`,
          operator,
          "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
        ),
      );
    }
    const values = req.values ?? [];
    switch (operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(field.required(`${path}.values`, "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) {
          errs.push(field.invalid(`${path}.values`, goStringSlice(values), "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
        }
        break;
      default:
        errs.push(field.invalid(`${path}.operator`, operator, 'not a valid selector operator'));
    }
    seen.add(scopeName);
  }
  // Upstream reports the conflict with spec.scopes as the value, at the selector's path.
  errs.push(...conflictingPairs(seen).map(() => invalidScopes(path, spec.scopes, 'conflicting scopes')));
  return errs;
}

/** `ValidateResourceQuotaSpec`: hard resource names and quantities, scopes, scopeSelector. */
function validateResourceQuotaSpec(rq: ResourceQuota): FieldError[] {
  const spec = rq.spec ?? {};
  return [...validateResourceList(spec.hard, 'spec.hard', validateResourceQuotaResourceName), ...validateResourceQuotaScopes(spec), ...validateScopeSelector(spec)];
}

/** `ValidateResourceQuotaStatus`: the names and quantities of `status.hard` and `status.used`. */
function validateResourceQuotaStatus(rq: ResourceQuota): FieldError[] {
  return [
    ...validateResourceList(rq.status?.hard, 'status.hard', validateResourceQuotaResourceName),
    ...validateResourceList(rq.status?.used, 'status.used', validateResourceQuotaResourceName),
  ];
}

/** `ValidateResourceQuota` without the generic ObjectMeta checks. */
export function validateResourceQuota(rq: ResourceQuota): FieldError[] {
  return [...validateResourceQuotaSpec(rq), ...validateResourceQuotaStatus(rq)];
}

/** `ValidateResourceQuotaUpdate`: the spec, and scopes unchanged as a set (`spec.scopes: Invalid value: …: field is immutable`). */
export function validateResourceQuotaUpdate(rq: ResourceQuota, old: ResourceQuota): FieldError[] {
  const errs = validateResourceQuotaSpec(rq);
  const now = new Set(rq.spec?.scopes ?? []);
  const before = new Set(old.spec?.scopes ?? []);
  if (now.size !== before.size || [...now].some((s) => !before.has(s))) errs.push(invalidScopes('spec.scopes', rq.spec?.scopes, FIELD_IMMUTABLE_ERROR_MSG));
  return errs;
}

/** `ValidateResourceQuotaStatusUpdate`: a resourceVersion, and the status's names and quantities. */
function validateResourceQuotaStatusUpdate(rq: ResourceQuota): FieldError[] {
  const errs = rq.metadata?.resourceVersion ? [] : [field.required('resourceVersion')];
  return [...errs, ...validateResourceQuotaStatus(rq)];
}

/** A quantity's canonical form (`1000m` → `1`), or the stored text when it does not parse; `0` when absent. */
function canonicalQuantity(q: string | number | undefined): string {
  if (q === undefined) return '0';
  try {
    return parseQuantity(q).toString();
  } catch {
    return String(q);
  }
}

/**
 * `printResourceQuota`: Name; Request and Limit as `name: used/hard` pairs over `status.hard` in name
 * order, `limits.*` resources in Limit and every other in Request (`cpu: 0/1, pods: 2/10`); Age.
 */
export function printResourceQuota(rq: ResourceQuota, now: number): TableRowData {
  const hard = rq.status?.hard ?? {};
  const used = rq.status?.used ?? {};
  const requests: string[] = [];
  const limits: string[] = [];
  for (const name of Object.keys(hard).sort()) {
    const pair = `${name}: ${canonicalQuantity(used[name])}/${canonicalQuantity(hard[name])}`;
    (name.startsWith('limits.') ? limits : requests).push(pair);
  }
  return { cells: [rq.metadata?.name ?? '', requests.join(', '), limits.join(', '), translateTimestampSince(rq.metadata?.creationTimestamp, now)] };
}

/** The resourcequotas strategy. */
export const resourceQuotaStrategy: ResourceStrategy<ResourceQuotaObject> = {
  info: resourceInfo(RESOURCE_QUOTAS),
  hasStatus: true,
  defaults() {},
  prepareForCreate(rq) {
    rq.status = {};
  },
  prepareForUpdate(rq, old) {
    rq.status = old.status ?? {};
  },
  prepareForStatusUpdate(rq, old) {
    resetField(rq, old, 'spec');
  },
  validate: validateResourceQuota,
  validateUpdate: validateResourceQuotaUpdate,
  validateStatusUpdate: validateResourceQuotaStatusUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  // The ResourceQuota admission plugin checks and charges every create against the quotas stored here.
  storage: ({ store, clock }) => ({ admission: new ResourceQuotaAdmission(store, clock) }),
  table: {
    columns: [
      NAME_COLUMN,
      column('Request', 'string', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
      column('Limit', 'string', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.'),
      AGE_COLUMN,
    ],
    row: printResourceQuota,
  },
};
