/**
 * FlowSchemas (flowcontrol.apiserver.k8s.io/v1, cluster-scoped, with status), with upstream's
 * mandatory and suggested schemas created at start-up (flowcontrol-bootstrap.ts). The objects are
 * served and validated only: kubeplane does not classify or queue requests by them (API Priority and
 * Fairness is not enforced; its `--max-requests-inflight` limit is http/maxinflight.ts).
 *
 * Followed (v1.33): pkg/apis/flowcontrol/v1/defaults.go (SetDefaults_FlowSchemaSpec),
 * pkg/apis/flowcontrol/validation/validation.go (ValidateFlowSchema, ValidateFlowSchemaSpec, the
 * subject and rule checks, ValidateNonResourceURLPath, ValidateFlowSchemaStatus), pkg/registry/
 * flowcontrol/flowschema/strategy.go, pkg/registry/flowcontrol/ensurer (the config producer: create
 * what is missing, keep the spec of auto-updated objects), k8s.io/apiserver pkg/util/flowcontrol/
 * apf_controller.go (the `Dangling` condition), pkg/printers/internalversion/printers.go
 * (printFlowSchema, printFlowSchemaList sorted by matchingPrecedence then name).
 *
 * Not done: the `Dangling` condition is written at start-up for the schemas that exist then; schemas
 * created later show `?` under MISSINGPL until a restart (upstream's APF controller keeps it current).
 * Upstream's producer also deletes auto-updated objects no longer in its lists; kubeplane's lists
 * have not changed yet, so nothing is dangling. The spec of a mandatory schema that fails its fixed
 * value is printed as JSON in the message, where upstream prints Go's `%#v` with pointer addresses.
 */
import { FLOW_SCHEMAS } from '../../../api/catalogue/index.js';
import type { KubeObject } from '../../../api/index.js';
import { field, goQuote, goStringSlice, GoSyntax, isConflict, type FieldError } from '../../../machinery/errors/index.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../../../machinery/validation/index.js';
import { formatTime } from '../../../util/clock/index.js';
import type { StorageContext, StorageExtension } from '../extension.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { MANDATORY_FLOW_SCHEMAS, SUGGESTED_FLOW_SCHEMAS } from './flowcontrol-bootstrap.js';
import { ensureBootstrapObjects } from './flowcontrol-ensurer.js';
import { validateFlowcontrolConditions } from './prioritylevelconfigurations.js';
import { semanticDeepEqual, specStatusPreparation, type ApiObject } from './helpers.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

/** A `Subject` of a policy rule: one of user, group, service account. */
interface Subject {
  kind?: string;
  user?: { name?: string };
  group?: { name?: string };
  serviceAccount?: { namespace?: string; name?: string };
}

interface ResourcePolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  clusterScope?: boolean;
  namespaces?: string[];
}

interface NonResourcePolicyRule {
  verbs?: string[];
  nonResourceURLs?: string[];
}

interface PolicyRulesWithSubjects {
  subjects?: Subject[];
  resourceRules?: ResourcePolicyRule[];
  nonResourceRules?: NonResourcePolicyRule[];
}

interface FlowSchemaSpec {
  priorityLevelConfiguration?: { name?: string };
  matchingPrecedence?: number;
  distinguisherMethod?: { type?: string };
  rules?: PolicyRulesWithSubjects[];
}

/** A `FlowSchemaCondition`. */
interface FlowSchemaCondition {
  type?: string;
  status?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

type FlowSchemaObject = ApiObject<KubeObject> & { spec?: FlowSchemaSpec; status?: { conditions?: FlowSchemaCondition[] } };

/** `FlowSchemaDefaultMatchingPrecedence`. */
const DEFAULT_MATCHING_PRECEDENCE = 1000;
/** `FlowSchemaMaxMatchingPrecedence`. */
const MAX_MATCHING_PRECEDENCE = 10000;
const DISTINGUISHER_METHODS = ['ByNamespace', 'ByUser'];
const SUBJECT_KINDS = ['Group', 'ServiceAccount', 'User'];
const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch'];
const NS_ERR_INTRO = "each member of this list must be '*' or a DNS-1123 label; ";
const MANDATORY = new Map(MANDATORY_FLOW_SCHEMAS.map((fs) => [fs.metadata?.name ?? '', fs]));

/** The three subject members and the kind each belongs to. */
const SUBJECT_MEMBERS = [
  { member: 'serviceAccount', kind: 'ServiceAccount' },
  { member: 'user', kind: 'User' },
  { member: 'group', kind: 'Group' },
] as const;

/** `ValidateFlowSchemaSubject`: the member of the subject's kind is set and valid, the others absent. */
function validateSubject(s: Subject, path: string): FieldError[] {
  const own = SUBJECT_MEMBERS.find((m) => m.kind === s.kind);
  if (!own) return [field.notSupported(`${path}.kind`, s.kind ?? '', SUBJECT_KINDS)];
  const errs: FieldError[] = [];
  for (const { member, kind } of SUBJECT_MEMBERS) {
    const p = `${path}.${member}`;
    if (member !== own.member) {
      if (s[member]) errs.push(field.forbidden(p, `${member} is forbidden when subject kind is not '${kind}'`));
      continue;
    }
    const value = s[member];
    if (!value) {
      errs.push(field.required(p, `${member} is required when subject kind is '${kind}'`));
      continue;
    }
    const name = value.name ?? '';
    if (name === '') errs.push(field.required(`${p}.name`));
    else if (member === 'serviceAccount' && name !== '*') for (const msg of isDNS1123Subdomain(name)) errs.push(field.invalid(`${p}.name`, name, msg));
    if (member === 'serviceAccount') {
      const ns = s.serviceAccount?.namespace ?? '';
      if (ns === '') errs.push(field.required(`${p}.namespace`, 'must specify namespace for service account'));
      else for (const msg of isDNS1123Label(ns)) errs.push(field.invalid(`${p}.namespace`, ns, msg));
    }
  }
  return errs;
}

/** The verbs of a rule: at least one, `*` alone, or only supported ones. */
function validateVerbs(verbs: readonly string[], path: string): FieldError[] {
  if (verbs.length === 0) return [field.required(path, 'verbs must contain at least one value')];
  if (verbs.includes('*')) return verbs.length > 1 ? [field.invalid(path, goStringSlice(verbs), "if '*' is present, must not specify other verbs")] : [];
  return verbs.every((v) => VERBS.includes(v)) ? [] : [field.notSupported(path, goStringSlice(verbs), VERBS)];
}

/** A list that must not be empty and may hold `*` only alone (api groups, resources): `one`/`many` name its members. */
function validateWildcardList(values: readonly string[], path: string, one: string, many: string): FieldError[] {
  if (values.length === 0) return [field.required(path, `resource rules must supply at least one ${one}`)];
  if (values.length > 1 && values.includes('*')) return [field.invalid(path, goStringSlice(values), `if '*' is present, must not specify other ${many}`)];
  return [];
}

/** `ValidateFlowSchemaResourcePolicyRule`. */
function validateResourceRule(r: ResourcePolicyRule, path: string): FieldError[] {
  const errs = [
    ...validateVerbs(r.verbs ?? [], `${path}.verbs`),
    ...validateWildcardList(r.apiGroups ?? [], `${path}.apiGroups`, 'api group', 'api groups'),
    ...validateWildcardList(r.resources ?? [], `${path}.resources`, 'resource', 'resources'),
  ];
  const namespaces = r.namespaces ?? [];
  const p = `${path}.namespaces`;
  if (namespaces.length === 0 && !r.clusterScope) {
    errs.push(field.required(p, 'resource rules that are not cluster scoped must supply at least one namespace'));
  } else if (namespaces.includes('*')) {
    if (namespaces.length > 1) errs.push(field.invalid(p, goStringSlice(namespaces), "if '*' is present, must not specify other namespaces"));
  } else {
    namespaces.forEach((ns, i) => {
      for (const msg of isDNS1123Label(ns)) errs.push(field.invalid(`${p}[${i}]`, ns, NS_ERR_INTRO + msg));
    });
  }
  return errs;
}

/** `ValidateNonResourceURLPath`: `/`-led, no spaces or `//`, a `*` only as a final `/*`. */
export function validateNonResourceURLPath(path: string, fieldPath: string): FieldError | undefined {
  if (path.length === 0) return field.invalid(fieldPath, path, 'must not be empty');
  if (path === '/') return undefined;
  if (!path.startsWith('/')) return field.invalid(fieldPath, path, 'must start with slash');
  if (path.includes(' ')) return field.invalid(fieldPath, path, 'must not contain white-space');
  if (path.includes('//')) return field.invalid(fieldPath, path, 'must not contain double slash');
  const wildcards = path.split('*').length - 1;
  if (wildcards > 1 || (wildcards === 1 && !path.endsWith('/*'))) return field.invalid(fieldPath, path, 'wildcard can only do suffix matching');
  return undefined;
}

/** `ValidateFlowSchemaNonResourcePolicyRule`. */
function validateNonResourceRule(r: NonResourcePolicyRule, path: string): FieldError[] {
  const errs = validateVerbs(r.verbs ?? [], `${path}.verbs`);
  const urls = r.nonResourceURLs ?? [];
  const p = `${path}.nonResourceURLs`;
  if (urls.length === 0) errs.push(field.required(p, 'nonResourceURLs must contain at least one value'));
  else if (urls.includes('*')) {
    if (urls.length > 1) errs.push(field.invalid(p, goStringSlice(urls), "if '*' is present, must not specify other non-resource URLs"));
  } else {
    urls.forEach((u, i) => {
      const err = validateNonResourceURLPath(u, `${p}[${i}]`);
      if (err) errs.push(err);
    });
  }
  return errs;
}

/** `ValidateFlowSchemaPolicyRulesWithSubjects`. */
function validateRules(rule: PolicyRulesWithSubjects, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const subjects = rule.subjects ?? [];
  if (subjects.length === 0) errs.push(field.required(`${path}.subjects`, 'subjects must contain at least one value'));
  subjects.forEach((s, i) => errs.push(...validateSubject(s, `${path}.subjects[${i}]`)));
  const resourceRules = rule.resourceRules ?? [];
  const nonResourceRules = rule.nonResourceRules ?? [];
  if (resourceRules.length === 0 && nonResourceRules.length === 0) errs.push(field.required(path, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
  resourceRules.forEach((r, i) => errs.push(...validateResourceRule(r, `${path}.resourceRules[${i}]`)));
  nonResourceRules.forEach((r, i) => errs.push(...validateNonResourceRule(r, `${path}.nonResourceRules[${i}]`)));
  return errs;
}

/** `ValidateFlowSchemaSpec`: precedence 1..10000 (1 only for `exempt`), a known distinguisher, a priority level, valid rules. */
function validateFlowSchemaSpec(name: string, spec: FlowSchemaSpec): FieldError[] {
  const errs: FieldError[] = [];
  const precedence = spec.matchingPrecedence ?? 0;
  if (precedence <= 0) errs.push(field.invalid('spec.matchingPrecedence', precedence, 'must be a positive value'));
  if (precedence > MAX_MATCHING_PRECEDENCE) errs.push(field.invalid('spec.matchingPrecedence', precedence, `must not be greater than ${MAX_MATCHING_PRECEDENCE}`));
  if (precedence === 1 && name !== 'exempt') errs.push(field.invalid('spec.matchingPrecedence', precedence, "only the schema named 'exempt' may have matchingPrecedence 1"));
  const dm = spec.distinguisherMethod;
  if (dm && !DISTINGUISHER_METHODS.includes(dm.type ?? '')) {
    errs.push(field.notSupported('spec.distinguisherMethod.type', new GoSyntax(`flowcontrol.FlowDistinguisherMethod{Type:${goQuote(dm.type ?? '')}}`), DISTINGUISHER_METHODS));
  }
  const plName = spec.priorityLevelConfiguration?.name ?? '';
  if (plName === '') errs.push(field.required('spec.priorityLevelConfiguration.name', 'must reference a priority level'));
  else for (const msg of isDNS1123Subdomain(plName)) errs.push(field.invalid('spec.priorityLevelConfiguration.name', plName, msg));
  (spec.rules ?? []).forEach((r, i) => errs.push(...validateRules(r, `spec.rules[${i}]`)));
  return errs;
}

/** `ValidateFlowSchema` without ObjectMeta: the spec, a mandatory schema's fixed spec, the status. */
export function validateFlowSchema(fs: FlowSchemaObject): FieldError[] {
  const name = fs.metadata?.name ?? '';
  const spec = fs.spec ?? {};
  const errs = validateFlowSchemaSpec(name, spec);
  const mandatory = MANDATORY.get(name);
  if (mandatory && !semanticDeepEqual(spec, mandatory.spec)) errs.push(field.invalid('spec', spec, `spec of '${name}' must equal the fixed value`));
  return [...errs, ...validateFlowcontrolConditions(fs.status?.conditions)];
}

const DANGLING = 'Dangling';

/**
 * The `Dangling` condition the APF controller gives a schema (presyncFlowSchemaStatus): `False`/`Found`
 * when its priority level exists, `True`/`NotFound` when not.
 */
export function danglingCondition(plName: string, exists: boolean, now: number): FlowSchemaCondition {
  return exists
    ? {
        type: DANGLING,
        status: 'False',
        lastTransitionTime: formatTime(now),
        reason: 'Found',
        message: `This FlowSchema references the PriorityLevelConfiguration object named ${goQuote(plName)} and it exists`,
      }
    : {
        type: DANGLING,
        status: 'True',
        lastTransitionTime: formatTime(now),
        reason: 'NotFound',
        message: `This FlowSchema references the PriorityLevelConfiguration object named ${goQuote(plName)} but there is no such object`,
      };
}

/** Writes the `Dangling` condition of every schema whose condition differs from what its priority level says. */
async function syncDanglingConditions({ store, storeOf, clock }: StorageContext): Promise<void> {
  const levels = storeOf(FLOW_SCHEMAS.group, 'prioritylevelconfigurations');
  // The caches must have seen the objects the producer just wrote.
  await store.waitForResourceVersion('');
  await levels?.waitForResourceVersion('');
  for (const fs of store.cachedObjects() as FlowSchemaObject[]) {
    const plName = fs.spec?.priorityLevelConfiguration?.name ?? '';
    const want = danglingCondition(plName, levels?.cached(undefined, plName) !== undefined, clock.now());
    const conditions = fs.status?.conditions ?? [];
    const have = conditions.find((c) => c.type === DANGLING);
    if (have && have.status === want.status && have.reason === want.reason && have.message === want.message) continue;
    const status = { ...fs.status, conditions: [...conditions.filter((c) => c.type !== DANGLING), want] };
    try {
      await store.update(undefined, fs.metadata?.name ?? '', { ...fs, status }, {}, [], 'status');
    } catch (err) {
      if (!isConflict(err)) throw err;
    }
  }
}

/** The config producer's part for schemas (suggested, then mandatory), then their `Dangling` conditions. */
function flowSchemaStorage(ctx: StorageContext): StorageExtension {
  return {
    bootstrap: async () => {
      await ensureBootstrapObjects(ctx.store, SUGGESTED_FLOW_SCHEMAS, false);
      await ensureBootstrapObjects(ctx.store, MANDATORY_FLOW_SCHEMAS, true);
      await syncDanglingConditions(ctx);
    },
  };
}

/** printFlowSchemaList's order (`FlowSchemaSequence`): matchingPrecedence, then name. */
export function compareFlowSchemas(a: FlowSchemaObject, b: FlowSchemaObject): number {
  const pa = a.spec?.matchingPrecedence ?? 0;
  const pb = b.spec?.matchingPrecedence ?? 0;
  if (pa !== pb) return pa - pb;
  const na = a.metadata?.name ?? '';
  const nb = b.metadata?.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** The FlowSchema strategy. */
export const flowSchemaStrategy: ResourceStrategy<FlowSchemaObject> = {
  info: resourceInfo(FLOW_SCHEMAS),
  hasStatus: true,
  /** `SetDefaults_FlowSchemaSpec`: matchingPrecedence 1000 when unset or 0. */
  defaults(fs) {
    const spec = (fs.spec ??= {});
    if (!spec.matchingPrecedence) spec.matchingPrecedence = DEFAULT_MATCHING_PRECEDENCE;
  },
  ...specStatusPreparation(() => ({})),
  validate: validateFlowSchema,
  validateUpdate: validateFlowSchema,
  validateStatusUpdate: (fs) => validateFlowcontrolConditions(fs.status?.conditions),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  storage: flowSchemaStorage,
  table: {
    columns: [
      NAME_COLUMN,
      column('PriorityLevel', 'string', '`name` is the name of the priority level configuration being referenced Required.'),
      column(
        'MatchingPrecedence',
        'string',
        '`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. The chosen FlowSchema is among those with the numerically lowest (which we take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000]. Note that if the precedence is not specified, it will be set to 1000 as default.',
      ),
      column(
        'DistinguisherMethod',
        'string',
        '`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema. `nil` specifies that the distinguisher is disabled and thus will always be the empty string.',
      ),
      AGE_COLUMN,
      column('MissingPL', 'string', 'references a broken or non-existent PriorityLevelConfiguration'),
    ],
    row: (fs, now) => ({
      cells: [
        fs.metadata?.name ?? '',
        fs.spec?.priorityLevelConfiguration?.name ?? '',
        fs.spec?.matchingPrecedence ?? 0,
        fs.spec?.distinguisherMethod?.type ?? '<none>',
        translateTimestampSince(fs.metadata?.creationTimestamp, now),
        fs.status?.conditions?.find((c) => c.type === DANGLING)?.status ?? '?',
      ],
    }),
    listOrder: compareFlowSchemas,
  },
};
