/**
 * Ingresses (networking.k8s.io/v1, with /status): HTTP routing rules to Services for an ingress
 * controller. v1 has no defaults (pathType is required). The DefaultIngressClass admission plugin
 * gives an Ingress that names no class (neither `spec.ingressClassName` nor the deprecated
 * `kubernetes.io/ingress.class` annotation) the IngressClass annotated
 * `ingressclass.kubernetes.io/is-default-class: "true"`, the newest one when several are.
 *
 * Followed (v1.33): pkg/apis/networking/validation/validation.go (ValidateIngressCreate,
 * ValidateIngressUpdate, ValidateIngressStatusUpdate and their helpers), pkg/registry/networking/
 * ingress/strategy.go, plugin/pkg/admission/network/defaultingressclass/admission.go,
 * pkg/printers/internalversion/printers.go (printIngress, formatHosts, formatPorts,
 * ingressLoadBalancerStatusStringer; the server prints wide, so addresses are not shortened).
 *
 * Not done here: the warning upstream gives for the deprecated annotation (strategies have no
 * warnings hook yet).
 */
import { INGRESS_CLASSES, INGRESSES } from '../../../api/catalogue/index.js';
import type { Ingress, IngressClass, KubeObject } from '../../../api/index.js';
import { field, GoSyntax, type FieldError } from '../../../machinery/errors/index.js';
import { parseIPSloppy } from '../../../machinery/netutils/index.js';
import { isDNS1035Label, isDNS1123Subdomain, isValidIPForLegacyField, isWildcardDNS1123Subdomain } from '../../../machinery/validation/index.js';
import { parseTime } from '../../../util/clock/index.js';
import type { StorageContext, StorageExtension } from '../extension.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { bumpGenerationIf, resetField, semanticDeepEqual, type ApiObject } from './helpers.js';
import { ANNOTATION_IS_DEFAULT_INGRESS_CLASS, validateTypedReference } from './ingressclasses.js';
import { isValidPortName, isValidPortNum } from './pod-template.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

type IngressObject = ApiObject<Ingress>;
type IngressSpec = NonNullable<Ingress['spec']>;
type IngressRule = NonNullable<IngressSpec['rules']>[number];
type IngressBackend = NonNullable<IngressSpec['defaultBackend']>;
type HTTPIngressPath = NonNullable<IngressRule['http']>['paths'][number];

/** `annotationIngressClass`: the deprecated way to name a class. */
export const ANNOTATION_INGRESS_CLASS = 'kubernetes.io/ingress.class';
const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];
const INVALID_PATH_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'];
const INVALID_PATH_SUFFIXES = ['/..', '/.'];

/** `IngressValidationOptions`: leniency for what an update finds already stored. */
interface IngressValidationOptions {
  allowInvalidSecretName: boolean;
  allowInvalidWildcardHostRule: boolean;
}

const STRICT: IngressValidationOptions = { allowInvalidSecretName: false, allowInvalidWildcardHostRule: false };

function invalidEach(path: string, value: unknown, msgs: readonly string[]): FieldError[] {
  return msgs.map((msg) => field.invalid(path, value, msg));
}

/** `validateIngressBackend`: exactly one of `resource` and `service`; a service needs a DNS-1035 name and a port name or number. */
function validateIngressBackend(backend: IngressBackend, path: string): FieldError[] {
  const { resource, service } = backend;
  if (resource && service) return [field.invalid(path, '', 'cannot set both resource and service backends')];
  if (resource) return validateTypedReference(resource, `${path}.resource`);
  if (!service) return [field.invalid(path, '', 'resource or service backend is required')];
  const errs: FieldError[] = [];
  if (!service.name) errs.push(field.required(`${path}.service.name`));
  else errs.push(...invalidEach(`${path}.service.name`, service.name, isDNS1035Label(service.name)));
  const name = service.port?.name ?? '';
  const number = service.port?.number ?? 0;
  if (name !== '' && number !== 0) errs.push(field.invalid(path, '', 'cannot set both port name & port number'));
  else if (name !== '') errs.push(...invalidEach(`${path}.service.port.name`, name, isValidPortName(name)));
  else if (number !== 0) errs.push(...invalidEach(`${path}.service.port.number`, number, isValidPortNum(number)));
  else errs.push(field.required(path, 'port name or number is required'));
  return errs;
}

/** `validateHTTPIngressPath`: a known pathType (required); Exact and Prefix paths absolute and without `//`, `/./`, `%2f`…; then the backend. */
function validateHTTPIngressPath(p: HTTPIngressPath, path: string): FieldError[] {
  if (p.pathType == null) return [field.required(`${path}.pathType`, 'pathType must be specified')];
  const errs: FieldError[] = [];
  const value = p.path ?? '';
  const absolute = (): void => {
    if (!value.startsWith('/')) errs.push(field.invalid(`${path}.path`, value, 'must be an absolute path'));
  };
  switch (p.pathType) {
    case 'Exact':
    case 'Prefix':
      absolute();
      for (const seq of INVALID_PATH_SEQUENCES) if (value.includes(seq)) errs.push(field.invalid(`${path}.path`, value, `must not contain '${seq}'`));
      for (const suffix of INVALID_PATH_SUFFIXES) if (value.endsWith(suffix)) errs.push(field.invalid(`${path}.path`, value, `cannot end with '${suffix}'`));
      break;
    case 'ImplementationSpecific':
      if (value !== '') absolute();
      break;
    default:
      errs.push(field.notSupported(`${path}.pathType`, p.pathType, PATH_TYPES));
  }
  return [...errs, ...validateIngressBackend(p.backend ?? {}, `${path}.backend`)];
}

/** `validateIngressRuleValue`: an `http` rule needs at least one path. */
function validateIngressRuleValue(rule: IngressRule, path: string): FieldError[] {
  if (!rule.http) return [];
  const paths = rule.http.paths ?? [];
  const errs: FieldError[] = paths.length === 0 ? [field.required(`${path}.http.paths`)] : [];
  paths.forEach((p, i) => errs.push(...validateHTTPIngressPath(p, `${path}.http.paths[${i}]`)));
  return errs;
}

/** A host of a rule or a TLS entry: `*.example.com` or a DNS subdomain. */
function validateHost(host: string, path: string): FieldError[] {
  return invalidEach(path, host, host.includes('*') ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host));
}

/** `validateIngressRules`: each host a DNS name (not an IP, wildcards allowed), each rule's paths. */
function validateIngressRules(rules: readonly IngressRule[], opts: IngressValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  rules.forEach((rule, i) => {
    const path = `spec.rules[${i}]`;
    const host = rule.host ?? '';
    if (host !== '') {
      if (parseIPSloppy(host)) errs.push(field.invalid(`${path}.host`, host, 'must be a DNS name, not an IP address'));
      errs.push(...validateHost(host, `${path}.host`));
    }
    if (!host.includes('*') || !opts.allowInvalidWildcardHostRule) errs.push(...validateIngressRuleValue(rule, path));
  });
  return errs;
}

/** `validateIngressTLS`: hosts are DNS names (wildcards allowed), secret names DNS subdomains. */
function validateIngressTLS(tls: IngressSpec['tls'], opts: IngressValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  (tls ?? []).forEach((t, i) => {
    (t.hosts ?? []).forEach((host, j) => errs.push(...validateHost(host, `spec.tls[${i}].hosts[${j}]`)));
    if (!opts.allowInvalidSecretName && t.secretName) errs.push(...invalidEach(`spec.tls[${i}].secretName`, t.secretName, isDNS1123Subdomain(t.secretName)));
  });
  return errs;
}

/** `ValidateIngressSpec`: rules or a default backend, both valid; TLS; the class name a DNS subdomain. */
function validateIngressSpec(spec: IngressSpec, opts: IngressValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const rules = spec.rules ?? [];
  if (rules.length === 0 && !spec.defaultBackend) {
    errs.push(field.invalid('spec', new GoSyntax(spec.rules == null ? '[]networking.IngressRule(nil)' : '[]networking.IngressRule{}'), 'either `defaultBackend` or `rules` must be specified'));
  }
  if (spec.defaultBackend) errs.push(...validateIngressBackend(spec.defaultBackend, 'spec.defaultBackend'));
  errs.push(...validateIngressRules(rules, opts), ...validateIngressTLS(spec.tls, opts));
  if (spec.ingressClassName != null) errs.push(...invalidEach('spec.ingressClassName', spec.ingressClassName, isDNS1123Subdomain(spec.ingressClassName)));
  return errs;
}

/**
 * `ValidateIngressCreate` without the generic ObjectMeta checks: the spec, and the deprecated class
 * annotation must agree with `ingressClassName` when both are set.
 */
export function validateIngressCreate(ing: Ingress): FieldError[] {
  const errs = validateIngressSpec(ing.spec ?? {}, STRICT);
  const annotation = ing.metadata?.annotations?.[ANNOTATION_INGRESS_CLASS];
  const className = ing.spec?.ingressClassName;
  if (annotation !== undefined && className != null && annotation !== className) {
    errs.push(field.invalid(`annotations.${ANNOTATION_INGRESS_CLASS}`, annotation, 'must match `ingressClassName` when both are specified'));
  }
  return errs;
}

/** `allowInvalidWildcardHostRule`: the stored Ingress already has a wildcard rule that would fail validation. */
function hasInvalidWildcardRule(old: Ingress): boolean {
  return (old.spec?.rules ?? []).some((r) => (r.host ?? '').includes('*') && validateIngressRuleValue(r, '').length > 0);
}

/** `ValidateIngressUpdate`: as create (without the annotation rule), tolerating invalid secret names and wildcard rules already stored. */
export function validateIngressUpdate(ing: Ingress, old: Ingress): FieldError[] {
  return validateIngressSpec(ing.spec ?? {}, {
    allowInvalidSecretName: (old.spec?.tls ?? []).some((t) => !!t.secretName && isDNS1123Subdomain(t.secretName).length > 0),
    allowInvalidWildcardHostRule: hasInvalidWildcardRule(old),
  });
}

/** `ValidateIngressStatusUpdate`: load balancer IPs parse (or were already stored); hostnames are DNS names, not IPs. */
export function validateIngressStatusUpdate(ing: Ingress, old: Ingress): FieldError[] {
  const oldIPs = (old.status?.loadBalancer?.ingress ?? []).map((i) => i.ip ?? '').filter((ip) => ip !== '');
  const errs: FieldError[] = [];
  (ing.status?.loadBalancer?.ingress ?? []).forEach((lb, i) => {
    const path = `status.loadBalancer.ingress[${i}]`;
    if (lb.ip) errs.push(...isValidIPForLegacyField(`${path}.ip`, lb.ip, oldIPs));
    if (lb.hostname) {
      errs.push(...invalidEach(`${path}.hostname`, lb.hostname, isDNS1123Subdomain(lb.hostname)));
      if (parseIPSloppy(lb.hostname)) errs.push(field.invalid(`${path}.hostname`, lb.hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}

/** `formatHosts`: the first three hosts, `*` when no rule has one, `a,b,c + 2 more...` beyond three rules. */
export function formatHosts(rules: readonly IngressRule[] | undefined): string {
  const list: string[] = [];
  let more = false;
  for (const rule of rules ?? []) {
    if (list.length === 3) more = true;
    if (!more && rule.host) list.push(rule.host);
  }
  if (list.length === 0) return '*';
  const joined = list.join(',');
  return more ? `${joined} + ${(rules ?? []).length - 3} more...` : joined;
}

/** `ingressLoadBalancerStatusStringer` (wide): the sorted, distinct IPs (or hostnames) of the load balancer. */
function addressCell(ing: Ingress): string {
  const set = new Set<string>();
  for (const lb of ing.status?.loadBalancer?.ingress ?? []) {
    if (lb.ip) set.add(lb.ip);
    else if (lb.hostname) set.add(lb.hostname);
  }
  return [...set].sort().join(',');
}

/** Go's `<` on strings (UTF-16 code units order the same for the ASCII of names). */
function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The DefaultIngressClass admission plugin: an Ingress naming no class gets the default IngressClass,
 * the newest when several are annotated default (ties by name), none when IngressClasses are not served.
 */
export function admitIngressClass(ing: Ingress, classes: readonly IngressClass[]): void {
  if (ing.spec?.ingressClassName != null) return;
  if (ing.metadata?.annotations?.[ANNOTATION_INGRESS_CLASS] !== undefined) return;
  const created = (ic: IngressClass): number => parseTime(ic.metadata?.creationTimestamp) ?? 0;
  const defaults = classes
    .filter((ic) => ic.metadata?.annotations?.[ANNOTATION_IS_DEFAULT_INGRESS_CLASS] === 'true')
    .sort((a, b) => created(b) - created(a) || byteOrder(a.metadata?.name ?? '', b.metadata?.name ?? ''));
  const chosen = defaults[0]?.metadata?.name;
  if (chosen !== undefined) ((ing as IngressObject).spec ??= {}).ingressClassName = chosen;
}

/** Ingress storage: the DefaultIngressClass admission, reading the served IngressClasses. */
function ingressStorage({ storeOf }: StorageContext): StorageExtension {
  return {
    mutateCreate: (obj: KubeObject) => {
      const classes = storeOf(INGRESS_CLASSES.group, INGRESS_CLASSES.resource)?.cachedObjects() ?? [];
      admitIngressClass(obj as Ingress, classes as IngressClass[]);
    },
  };
}

/**
 * `GetWarningsForIngress` (pkg/api/ingress/util.go): the deprecated class annotation, on create and
 * on every update that still carries it.
 */
export function ingressWarnings(ing: Ingress): string[] {
  return ing.metadata?.annotations?.[ANNOTATION_INGRESS_CLASS] === undefined ? [] : [`annotation "${ANNOTATION_INGRESS_CLASS}" is deprecated, please use 'spec.ingressClassName' instead`];
}

/** The Ingress strategy. */
export const ingressStrategy: ResourceStrategy<IngressObject> = {
  info: resourceInfo(INGRESSES),
  hasStatus: true,
  defaults() {},
  prepareForCreate(ing) {
    ing.status = { loadBalancer: {} };
    (ing.metadata ??= {}).generation = 1;
  },
  prepareForUpdate(ing, old) {
    resetField(ing, old, 'status');
    bumpGenerationIf(ing, old, !semanticDeepEqual(ing.spec, old.spec));
  },
  warningsOnCreate: ingressWarnings,
  warningsOnUpdate: ingressWarnings,
  prepareForStatusUpdate(ing, old) {
    resetField(ing, old, 'spec');
  },
  validate: validateIngressCreate,
  validateUpdate: validateIngressUpdate,
  validateStatusUpdate: validateIngressStatusUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  storage: ingressStorage,
  table: {
    columns: [
      NAME_COLUMN,
      column('Class', 'string', 'The name of the IngressClass resource that should be used for additional configuration'),
      column('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
      column('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
      column('Ports', 'string', 'Ports of TLS configurations that open'),
      AGE_COLUMN,
    ],
    row: (ing, now) => ({
      cells: [
        ing.metadata?.name ?? '',
        ing.spec?.ingressClassName ?? '<none>',
        formatHosts(ing.spec?.rules),
        addressCell(ing),
        (ing.spec?.tls ?? []).length > 0 ? '80, 443' : '80',
        translateTimestampSince(ing.metadata?.creationTimestamp, now),
      ],
    }),
  },
};
