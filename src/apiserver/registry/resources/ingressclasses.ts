/**
 * IngressClasses (networking.k8s.io/v1, cluster-scoped): which controller serves the Ingresses of a
 * class, with optional parameters; the one annotated `ingressclass.kubernetes.io/is-default-class:
 * "true"` is given to Ingresses that name no class (see ingresses.ts).
 *
 * Followed (v1.33): pkg/apis/networking/v1/defaults.go (SetDefaults_IngressClass), pkg/apis/networking/
 * validation/validation.go (ValidateIngressClass, ValidateIngressClassUpdate,
 * validateIngressClassParametersReference), pkg/registry/networking/ingressclass/strategy.go,
 * pkg/printers/internalversion/printers.go (printIngressClass).
 */
import { INGRESS_CLASSES } from '../../../api/catalogue/index.js';
import type { IngressClass } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { isDNS1123Label, isDNS1123Subdomain, isDomainPrefixedPath, isValidPathSegmentName } from '../../../machinery/validation/index.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { bumpGenerationIf, semanticDeepEqual, validateImmutableField, type ApiObject } from './helpers.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

type IngressClassObject = ApiObject<IngressClass>;

/** `networking.AnnotationIsDefaultIngressClass`. */
export const ANNOTATION_IS_DEFAULT_INGRESS_CLASS = 'ingressclass.kubernetes.io/is-default-class';
/** `maxLenIngressClassController`. */
const MAX_LEN_CONTROLLER = 250;
const SCOPES = ['Cluster', 'Namespace'];

/**
 * An object reference by apiGroup (optional, a DNS subdomain), kind and name (required, URL path
 * segments): an Ingress `resource` backend (validateIngressTypedLocalObjectReference) and the part
 * IngressClass parameters share with it.
 */
export function validateTypedReference(ref: { apiGroup?: string | null; kind?: string; name?: string }, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (ref.apiGroup != null) errs.push(...isDNS1123Subdomain(ref.apiGroup).map((msg) => field.invalid(`${path}.apiGroup`, ref.apiGroup, msg)));
  for (const key of ['kind', 'name'] as const) {
    const value = ref[key] ?? '';
    if (value === '') errs.push(field.required(`${path}.${key}`));
    else errs.push(...isValidPathSegmentName(value).map((msg) => field.invalid(`${path}.${key}`, value, msg)));
  }
  return errs;
}

/** `validateIngressClassParametersReference`: the reference, a scope (Cluster or Namespace) and a namespace exactly for Namespace scope. */
function validateParameters(params: NonNullable<IngressClass['spec']>['parameters'], path: string): FieldError[] {
  if (!params) return [];
  const errs = validateTypedReference(params, path);
  if (params.scope == null) return [...errs, field.required(`${path}.scope`)];
  if (!SCOPES.includes(params.scope)) return [...errs, field.notSupported(`${path}.scope`, params.scope, SCOPES)];
  if (params.scope === 'Namespace') {
    if (params.namespace == null) errs.push(field.required(`${path}.namespace`, "`parameters.scope` is set to 'Namespace'"));
    else errs.push(...isDNS1123Label(params.namespace).map((msg) => field.invalid(`${path}.namespace`, params.namespace, msg)));
  } else if (params.namespace != null) {
    errs.push(field.forbidden(`${path}.namespace`, "`parameters.scope` is set to 'Cluster'"));
  }
  return errs;
}

/** `ValidateIngressClass` without the generic ObjectMeta checks: a domain-prefixed controller of at most 250 bytes, valid parameters. */
export function validateIngressClass(ic: IngressClass): FieldError[] {
  const controller = ic.spec?.controller ?? '';
  const errs: FieldError[] = [];
  if (controller.length > MAX_LEN_CONTROLLER) errs.push(field.tooLong('spec.controller', MAX_LEN_CONTROLLER));
  errs.push(...isDomainPrefixedPath('spec.controller', controller));
  return [...errs, ...validateParameters(ic.spec?.parameters, 'spec.parameters')];
}

/** `ValidateIngressClassUpdate`: the controller is immutable, then the new object's validation. */
function validateIngressClassUpdate(ic: IngressClass, old: IngressClass): FieldError[] {
  return [...validateImmutableField(ic.spec?.controller ?? '', old.spec?.controller ?? '', 'spec.controller'), ...validateIngressClass(ic)];
}

/** `printIngressClass`'s PARAMETERS cell: `Kind.apiGroup/name`, `Kind/name`, or `<none>`. */
function parametersCell(ic: IngressClass): string {
  const p = ic.spec?.parameters;
  if (!p) return '<none>';
  return `${p.kind}${p.apiGroup != null ? `.${p.apiGroup}` : ''}/${p.name}`;
}

/** The IngressClass strategy. */
export const ingressClassStrategy: ResourceStrategy<IngressClassObject> = {
  info: resourceInfo(INGRESS_CLASSES),
  hasStatus: false,
  /** `SetDefaults_IngressClass`: parameters without a scope are Cluster-scoped. */
  defaults(ic) {
    const params = ic.spec?.parameters;
    if (params && params.scope == null) params.scope = 'Cluster';
  },
  prepareForCreate(ic) {
    (ic.metadata ??= {}).generation = 1;
  },
  prepareForUpdate(ic, old) {
    bumpGenerationIf(ic, old, !semanticDeepEqual(ic.spec, old.spec));
  },
  validate: validateIngressClass,
  validateUpdate: validateIngressClassUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  table: {
    columns: [
      NAME_COLUMN,
      column('Controller', 'string', 'Controller that is responsible for handling this class'),
      column('Parameters', 'string', 'A reference to a resource with additional parameters'),
      AGE_COLUMN,
    ],
    row: (ic, now) => ({ cells: [ic.metadata?.name ?? '', ic.spec?.controller ?? '', parametersCell(ic), translateTimestampSince(ic.metadata?.creationTimestamp, now)] }),
  },
};
