/**
 * Validation of a CustomResourceDefinition (apiextensions.k8s.io/v1), with upstream's field paths,
 * messages and order.
 *
 * Followed (k8s.io/apiextensions-apiserver v0.33.9): pkg/apis/apiextensions/validation/validation.go
 * (ValidateCustomResourceDefinition, ValidateCustomResourceDefinitionUpdate,
 * validateCustomResourceDefinitionSpec, ValidateCustomResourceDefinitionNames,
 * ValidateCustomResourceDefinitionStoredVersions, ValidateCustomResourceDefinitionSubresources,
 * ValidateCustomResourceColumnDefinition, ValidateCustomResourceSelectableFields,
 * validateCustomResourceConversion, validateAPIApproval, validatePreserveUnknownFields),
 * pkg/apihelpers/helpers.go (IsProtectedCommunityGroup, GetAPIApprovalState) and pkg/apis/apiextensions/
 * v1/conversion.go.
 *
 * Upstream validates the internal version, into which v1 converts by moving `schema`,
 * `subresources`, `additionalPrinterColumns` and `selectableFields` up to the spec when every version
 * has the same one, and `conversion.webhook.{clientConfig,conversionReviewVersions}` up to
 * `conversion.webhookClientConfig` and `conversion.conversionReviewVersions`; so do the field paths
 * here: one shared schema is reported at `spec.validation.openAPIV3Schema`, differing ones at
 * `spec.versions[i].schema.openAPIV3Schema`. `spec.version` is the first version's name.
 *
 * Upstream relaxes some checks on update when the stored object already broke them (requireOpenAPISchema,
 * requireStructuralSchema, requireValidPropertyType …); every object stored here passed the same checks
 * on create, so updates are validated as creates, plus the update rules.
 */
import type { CustomResourceColumnDefinition, CustomResourceDefinition, CustomResourceDefinitionNames, CustomResourceDefinitionVersion } from '../../../api/index.js';
import { field, GoSyntax, goPointer, goQuote, goStringSlice, type FieldError } from '../../../machinery/errors/index.js';
import { isDNS1035Label, isDNS1123Subdomain } from '../../../machinery/validation/index.js';
import { has, isObject, schemaHas, schemaList, strings, structuralConversionError, text, validFieldPath, type JSONSchema } from './crd-schema.js';
import { validateCustomResourceValidation } from './crd-schema-validation.js';
import { semanticDeepEqual, validateImmutableField } from './helpers.js';
import { validateWebhookService, validateWebhookURL } from './webhook-client.js';

type Version = Partial<CustomResourceDefinitionVersion> & Record<string, unknown>;

/** `MaxSelectableFields`. */
const MAX_SELECTABLE_FIELDS = 8;
const PRINTER_COLUMN_TYPES = 'boolean,date,integer,number,string';
const PRINTER_COLUMN_FORMATS = 'byte,date,date-time,double,float,int32,int64,password';
/** `acceptedConversionReviewVersions`. */
const ACCEPTED_CONVERSION_REVIEW_VERSIONS = ['v1', 'v1beta1'];
/** `v1.KubeAPIApprovedAnnotation`. */
export const API_APPROVED_ANNOTATION = 'api-approved.kubernetes.io';
/** `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** The versions of a spec, whatever the decoder let through. */
export function versionsOf(crd: CustomResourceDefinition): Version[] {
  const versions: unknown = crd.spec?.versions;
  return Array.isArray(versions) ? versions.map((v) => (isObject(v) ? (v as Version) : {})) : [];
}

/** Joined DNS-1035 errors of a non-empty value (upstream's `strings.Join(errs, ",")`). */
function dns1035(value: string): string | undefined {
  const errs = isDNS1035Label(value);
  return errs.length > 0 ? errs.join(',') : undefined;
}

// ---------------------------------------------------------------------------------------------
// The internal layout of versions (conversion.go).

/** Which per-version fields v1 → internal conversion moves up to the spec (all versions equal). */
interface Layout {
  versions: Version[];
  /** `spec.validation`, `spec.subresources` … hold the shared value. */
  shared: Record<'schema' | 'subresources' | 'additionalPrinterColumns' | 'selectableFields', boolean>;
}

function layoutOf(crd: CustomResourceDefinition): Layout {
  const versions = versionsOf(crd);
  const same = (key: string): boolean => versions.length > 0 && versions.every((v) => semanticDeepEqual(v[key], versions[0]?.[key]));
  return {
    versions,
    shared: { schema: same('schema'), subresources: same('subresources'), additionalPrinterColumns: same('additionalPrinterColumns'), selectableFields: same('selectableFields') },
  };
}

/** Go's `%#v` of a list of structs: `[]T(nil)` or `[]T{T{…}, …}`. */
function goList(type: string, items: unknown, render: (x: JSONSchema) => string): string {
  const list = schemaList(items);
  return list.length === 0 ? `[]${type}(nil)` : `[]${type}{${list.map((x) => `${type}{${render(x)}}`).join(', ')}}`;
}

/** Go's `%#v` of the internal `spec.Versions`, the bad value of the versions-wide errors. */
function goVersions(layout: Layout): GoSyntax {
  if (layout.versions.length === 0) return new GoSyntax('[]apiextensions.CustomResourceDefinitionVersion(nil)');
  const render = (v: Version): string => {
    const own = (key: keyof Layout['shared']): unknown => (layout.shared[key] ? undefined : v[key]);
    const columns = goList('apiextensions.CustomResourceColumnDefinition', own('additionalPrinterColumns'), (c) => {
      const priority = typeof c['priority'] === 'number' ? c['priority'] : 0;
      return `Name:${goQuote(text(c, 'name'))}, Type:${goQuote(text(c, 'type'))}, Format:${goQuote(text(c, 'format'))}, Description:${goQuote(text(c, 'description'))}, Priority:${priority}, JSONPath:${goQuote(text(c, 'jsonPath'))}`;
    });
    const selectable = goList('apiextensions.SelectableField', own('selectableFields'), (f) => `JSONPath:${goQuote(text(f, 'jsonPath'))}`);
    return (
      `apiextensions.CustomResourceDefinitionVersion{Name:${goQuote(v.name ?? '')}, Served:${v.served === true}, Storage:${v.storage === true}, ` +
      `Deprecated:${v.deprecated === true}, DeprecationWarning:${goPointer('string', typeof v.deprecationWarning === 'string')}, ` +
      `Schema:${goPointer('apiextensions.CustomResourceValidation', has(v, 'schema') && !layout.shared.schema)}, ` +
      `Subresources:${goPointer('apiextensions.CustomResourceSubresources', has(v, 'subresources') && !layout.shared.subresources)}, ` +
      `AdditionalPrinterColumns:${columns}, SelectableFields:${selectable}}`
    );
  };
  return new GoSyntax(`[]apiextensions.CustomResourceDefinitionVersion{${layout.versions.map(render).join(', ')}}`);
}

// ---------------------------------------------------------------------------------------------
// Parts of the spec.

/** `ValidateCustomResourceDefinitionNames` (for spec.names and status.acceptedNames). */
export function validateNames(names: Partial<CustomResourceDefinitionNames> | undefined, path: string): FieldError[] {
  const n = names ?? {};
  const errs: FieldError[] = [];
  const plural = n.plural ?? '';
  const singular = n.singular ?? '';
  const kind = n.kind ?? '';
  const listKind = n.listKind ?? '';
  const mixed = 'may have mixed case, but should otherwise match: ';
  let bad: string | undefined;
  if (plural && (bad = dns1035(plural))) errs.push(field.invalid(`${path}.plural`, plural, bad));
  if (singular && (bad = dns1035(singular))) errs.push(field.invalid(`${path}.singular`, singular, bad));
  if (kind && (bad = dns1035(kind.toLowerCase()))) errs.push(field.invalid(`${path}.kind`, kind, mixed + bad));
  if (listKind && (bad = dns1035(listKind.toLowerCase()))) errs.push(field.invalid(`${path}.listKind`, listKind, mixed + bad));
  (n.shortNames ?? []).forEach((s, i) => {
    const e = dns1035(s);
    if (e) errs.push(field.invalid(`${path}.shortNames[${i}]`, s, e));
  });
  if (kind && kind === listKind) errs.push(field.invalid(`${path}.listKind`, listKind, 'kind and listKind may not be the same'));
  (n.categories ?? []).forEach((c, i) => {
    const e = dns1035(c);
    if (e) errs.push(field.invalid(`${path}.categories[${i}]`, c, e));
  });
  return errs;
}

/** `validateSimpleJSONPath`: starts with a dot. */
function validateSimpleJSONPath(s: string, path: string): FieldError[] {
  if (!s) return [field.invalid(path, s, 'must not be empty')];
  return s.startsWith('.') ? [] : [field.invalid(path, s, 'must be a simple json path starting with .')];
}

/** `ValidateCustomResourceDefinitionSubresources`: the scale subresource's paths. */
function validateSubresources(subresources: unknown, path: string): FieldError[] {
  const scale = isObject(subresources) ? subresources['scale'] : undefined;
  if (!isObject(scale)) return [];
  const errs: FieldError[] = [];
  for (const [key, under] of [['specReplicasPath', '.spec'], ['statusReplicasPath', '.status']] as const) {
    const p = `${path}.scale.${key}`;
    const value = text(scale, key);
    if (!value) errs.push(field.required(p, ''));
    else {
      const pathErrs = validateSimpleJSONPath(value, p);
      if (pathErrs.length > 0) errs.push(...pathErrs);
      else if (!value.startsWith(`${under}.`)) errs.push(field.invalid(p, value, `should be a json path under ${under}`));
    }
  }
  const selector = text(scale, 'labelSelectorPath');
  if (selector) {
    const p = `${path}.scale.labelSelectorPath`;
    const pathErrs = validateSimpleJSONPath(selector, p);
    if (pathErrs.length > 0) errs.push(...pathErrs);
    else if (!selector.startsWith('.spec.') && !selector.startsWith('.status.')) errs.push(field.invalid(p, selector, 'should be a json path under either .spec or .status'));
  }
  return errs;
}

/** `ValidateCustomResourceColumnDefinition` of `additionalPrinterColumns[i]` (upstream's path says `JSONPath`). */
function validateColumns(columns: unknown, path: string): FieldError[] {
  return schemaList(columns).flatMap((c, i) => {
    const col = c as Partial<CustomResourceColumnDefinition>;
    const p = `${path}[${i}]`;
    const errs: FieldError[] = [];
    if (!col.name) errs.push(field.required(`${p}.name`, ''));
    const type = col.type ?? '';
    if (!type) errs.push(field.required(`${p}.type`, `must be one of ${PRINTER_COLUMN_TYPES}`));
    else if (!PRINTER_COLUMN_TYPES.split(',').includes(type)) errs.push(field.invalid(`${p}.type`, type, `must be one of ${PRINTER_COLUMN_TYPES}`));
    if (col.format && !PRINTER_COLUMN_FORMATS.split(',').includes(col.format)) errs.push(field.invalid(`${p}.format`, col.format, `must be one of ${PRINTER_COLUMN_FORMATS}`));
    if (!col.jsonPath) errs.push(field.required(`${p}.JSONPath`, ''));
    else errs.push(...validateSimpleJSONPath(col.jsonPath, `${p}.JSONPath`));
    return errs;
  });
}

/**
 * `selectableFields` with the schema they select in (`schema`, its `openAPIV3Schema` checked for
 * presence by the caller): each a valid dot path outside metadata to a string, boolean or integer
 * field, no duplicates, at most 8.
 */
function validateSelectableFields(fields: unknown, schema: JSONSchema, schemaPath: string, path: string): FieldError[] {
  const conversionError = structuralConversionError(schema);
  const errs: FieldError[] = conversionError ? [field.invalid(schemaPath, '', conversionError)] : [];
  const unique = new Set<string>();
  schemaList(fields).forEach((f, i) => {
    const p = `${path}[${i}].jsonPath`;
    const jsonPath = text(f, 'jsonPath');
    if (!jsonPath) {
      errs.push(field.required(p, ''));
      return;
    }
    const found = conversionError ? new Error('does not refer to a valid field') : validFieldPath(jsonPath, schema, false);
    if (found instanceof Error) {
      errs.push(field.invalid(p, jsonPath, `is an invalid path: ${found.message}`));
      return;
    }
    if (found.root === 'metadata') errs.push(field.invalid(p, jsonPath, 'must not point to fields in metadata'));
    if (!found.schema || !['string', 'boolean', 'integer'].includes(text(found.schema, 'type'))) {
      errs.push(field.invalid(p, jsonPath, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'));
    }
    if (unique.has(found.path)) errs.push(field.duplicate(p, jsonPath));
    else unique.add(found.path);
  });
  if (unique.size > MAX_SELECTABLE_FIELDS) errs.push(field.tooMany(path, unique.size, MAX_SELECTABLE_FIELDS));
  return errs;
}

/** `validateDeprecationWarning`: only on deprecated versions, 1–256 bytes, printable. */
function deprecationWarningErrors(deprecated: boolean, warning: string | undefined): string[] {
  if (!deprecated && warning !== undefined) return ['can only be set for deprecated versions'];
  if (warning === undefined) return [];
  const errs: string[] = [];
  if (Buffer.byteLength(warning) > 256) errs.push('must be <= 256 characters long');
  if (warning.length === 0) errs.push('must not be an empty string');
  let index = 0;
  for (const r of warning) {
    if (!PRINTABLE.test(r)) {
      errs.push(`must only contain printable UTF-8 characters; non-printable character found at index ${index}`);
      break;
    }
    index += Buffer.byteLength(r);
  }
  return errs;
}

/** The `schema.openAPIV3Schema` of a validation, when it has one. */
function openAPIV3SchemaOf(validation: unknown): JSONSchema | undefined {
  const s = isObject(validation) ? validation['openAPIV3Schema'] : undefined;
  return isObject(s) ? s : undefined;
}

/** `validateCustomResourceDefinitionVersion`: the per-version fields that conversion left in the version. */
function validateVersion(v: Version, i: number, statusEnabled: boolean, layout: Layout): FieldError[] {
  const path = `spec.versions[${i}]`;
  const warning = typeof v.deprecationWarning === 'string' ? v.deprecationWarning : undefined;
  const errs = deprecationWarningErrors(v.deprecated === true, warning).map((msg) => field.invalid(`${path}.deprecationWarning`, warning ?? null, msg));
  const own = (key: keyof Layout['shared']): unknown => (layout.shared[key] ? undefined : v[key]);
  errs.push(...validateCustomResourceValidation(own('schema'), statusEnabled, `${path}.schema`));
  errs.push(...validateSubresources(own('subresources'), `${path}.subresources`));
  errs.push(...validateColumns(own('additionalPrinterColumns'), `${path}.additionalPrinterColumns`));
  const selectable = own('selectableFields');
  if (schemaList(selectable).length > 0) {
    const schema = openAPIV3SchemaOf(own('schema'));
    if (!schema) errs.push(field.invalid(`${path}.selectableFields`, '', 'selectableFields may only be set when version.schema.openAPIV3Schema is not included'));
    else errs.push(...validateSelectableFields(selectable, schema, `${path}.schema.openAPIV3Schema`, `${path}.selectableFields`));
  }
  return errs;
}

/** `validateConversionReviewVersions`: non-empty, unique DNS-1035 labels, one of them understood. */
function validateConversionReviewVersions(versions: string[], path: string): FieldError[] {
  if (versions.length === 0) return [field.required(path, '')];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(field.invalid(`${path}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const msg of isDNS1035Label(v)) errs.push(field.invalid(`${path}[${i}]`, v, msg));
  });
  if (!versions.some((v) => ACCEPTED_CONVERSION_REVIEW_VERSIONS.includes(v))) {
    errs.push(field.invalid(path, goStringSlice(versions), `must include at least one of ${ACCEPTED_CONVERSION_REVIEW_VERSIONS.join(', ')}`));
  }
  return errs;
}

/**
 * `validateCustomResourceConversion` (in the internal layout: `spec.conversion.webhookClientConfig`,
 * `spec.conversion.conversionReviewVersions`). The caBundle is not parsed (upstream accepts an invalid
 * one until the CRD is Established).
 */
function validateConversion(conversion: unknown, path: string): FieldError[] {
  if (!isObject(conversion)) return [];
  const strategy = text(conversion, 'strategy');
  const webhook = isObject(conversion['webhook']) ? conversion['webhook'] : undefined;
  const clientConfig = webhook && isObject(webhook['clientConfig']) ? webhook['clientConfig'] : undefined;
  const reviewVersions = webhook ? strings(webhook, 'conversionReviewVersions') : [];
  const errs: FieldError[] = [];
  if (!strategy) errs.push(field.required(`${path}.strategy`, ''));
  else if (strategy !== 'None' && strategy !== 'Webhook') errs.push(field.notSupported(`${path}.strategy`, strategy, ['None', 'Webhook']));
  const configPath = `${path}.webhookClientConfig`;
  if (strategy !== 'Webhook') {
    if (clientConfig) errs.push(field.forbidden(configPath, 'should not be set when strategy is not set to Webhook'));
    if (reviewVersions.length > 0) errs.push(field.forbidden(`${path}.conversionReviewVersions`, 'should not be set when strategy is not set to Webhook'));
    return errs;
  }
  if (!clientConfig) errs.push(field.required(configPath, 'required when strategy is set to Webhook'));
  else {
    const url = typeof clientConfig['url'] === 'string' ? clientConfig['url'] : undefined;
    const service = isObject(clientConfig['service']) ? clientConfig['service'] : undefined;
    if ((url === undefined) === (service === undefined)) errs.push(field.required(configPath, 'exactly one of url or service is required'));
    else if (url !== undefined) errs.push(...validateWebhookURL(`${configPath}.url`, url, true));
    else if (service) {
      const port = typeof service['port'] === 'number' ? service['port'] : 443;
      const servicePath = typeof service['path'] === 'string' ? service['path'] : undefined;
      errs.push(...validateWebhookService(`${configPath}.service`, text(service, 'namespace'), text(service, 'name'), servicePath, port));
    }
  }
  errs.push(...validateConversionReviewVersions(reviewVersions, `${path}.conversionReviewVersions`));
  return errs;
}

/** True when a schema of any version sets a default somewhere. */
function specHasDefaults(versions: Version[]): boolean {
  return versions.some((v) => {
    const s = openAPIV3SchemaOf(v.schema);
    return s !== undefined && schemaHas(s, (x) => has(x, 'default'));
  });
}

/** `getSubresourcesForVersion`: the shared subresources, or the first version of that name's. */
function statusEnabledFor(v: Version, layout: Layout): boolean {
  const owner = layout.shared.subresources ? layout.versions[0] : layout.versions.find((x) => x.name === v.name);
  const sub = owner?.subresources;
  return isObject(sub) && has(sub, 'status');
}

/** The spec's group: required, a DNS subdomain, with at least one dot. */
function validateGroup(group: string): FieldError[] {
  if (!group) return [field.required('spec.group', '')];
  const errs = isDNS1123Subdomain(group);
  if (errs.length > 0) return [field.invalid('spec.group', group, errs.join(','))];
  return group.includes('.') ? [] : [field.invalid('spec.group', group, 'should be a domain with at least one dot')];
}

/** The shared (spec-level) validation, subresources, columns and selectable fields, when conversion moved them up. */
function validateShared(layout: Layout): FieldError[] {
  const first = layout.versions[0];
  if (!first) return [];
  const errs: FieldError[] = [];
  if (layout.shared.schema) {
    const anyStatus = layout.versions.some((v) => isObject(v.subresources) && has(v.subresources, 'status'));
    errs.push(...validateCustomResourceValidation(first.schema, anyStatus, 'spec.validation'));
  }
  if (layout.shared.subresources) errs.push(...validateSubresources(first.subresources, 'spec.subresources'));
  if (layout.shared.additionalPrinterColumns) errs.push(...validateColumns(first.additionalPrinterColumns, 'spec.additionalPrinterColumns'));
  if (layout.shared.selectableFields && schemaList(first.selectableFields).length > 0) {
    const shared = layout.shared.schema && isObject(first.schema);
    if (!shared) errs.push(field.invalid('spec.selectableFields', '', 'selectableFields may only be set when validations.schema is included'));
    else errs.push(...validateSelectableFields(first.selectableFields, openAPIV3SchemaOf(first.schema) ?? {}, 'spec.schema.openAPIV3Schema', 'spec.selectableFields'));
  }
  return errs;
}

/** `validateCustomResourceDefinitionSpec`, in upstream's order. */
function validateSpec(crd: CustomResourceDefinition): FieldError[] {
  const spec = crd.spec as Partial<CustomResourceDefinition['spec']> | undefined;
  const names = spec?.names;
  const layout = layoutOf(crd);
  const { versions } = layout;
  const errs = validateGroup(spec?.group ?? '');
  const scope = spec?.scope ?? '';
  if (!scope) errs.push(field.required('spec.scope', ''));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') errs.push(field.notSupported('spec.scope', scope, ['Cluster', 'Namespaced']));
  versions.forEach((v, i) => {
    if (!openAPIV3SchemaOf(v.schema)) errs.push(field.required(`spec.versions[${i}].schema.openAPIV3Schema`, 'schemas are required'));
  });
  const preserveUnknownFields = spec?.preserveUnknownFields === true;
  if (preserveUnknownFields && specHasDefaults(versions)) errs.push(field.invalid('spec.preserveUnknownFields', true, 'must be false in order to use defaults in the schema'));

  versions.forEach((v, i) => {
    const bad = dns1035(v.name ?? '');
    if (bad) errs.push(field.invalid(`spec.versions[${i}].name`, v.name ?? '', bad));
    errs.push(...validateVersion(v, i, statusEnabledFor(v, layout), layout));
  });
  if (new Set(versions.map((v) => v.name ?? '')).size !== versions.length) {
    errs.push(field.invalid('spec.versions', goVersions(layout), 'must contain unique version names'));
  }
  if (versions.filter((v) => v.storage === true).length !== 1) {
    errs.push(field.invalid('spec.versions', goVersions(layout), 'must have exactly one version marked as storage version'));
  }
  const firstName = versions[0]?.name ?? '';
  const badFirst = versions.length > 0 ? dns1035(firstName) : undefined;
  if (badFirst) errs.push(field.invalid('spec.version', firstName, badFirst));

  for (const key of ['plural', 'singular', 'kind', 'listKind'] as const) if (!names?.[key]) errs.push(field.required(`spec.names.${key}`, ''));
  errs.push(...validateNames(names, 'spec.names'));
  errs.push(...validateShared(layout));

  const conversion: unknown = spec?.conversion;
  const strategy = isObject(conversion) ? text(conversion, 'strategy') : 'None';
  if (strategy !== 'None' && preserveUnknownFields) errs.push(field.invalid('spec.conversion.strategy', strategy, 'must be None if spec.preserveUnknownFields is true'));
  errs.push(...validateConversion(conversion, 'spec.conversion'));
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Status, approval, preserveUnknownFields, name.

/**
 * `ValidateCustomResourceDefinitionStoredVersions`: at least one, the storage version among them, none
 * missing from spec.versions (`undefined` is Go's nil slice, printed `[]string(nil)`).
 */
export function validateStoredVersions(storedVersions: string[] | undefined, versions: Version[]): FieldError[] {
  const path = 'status.storedVersions';
  if (!storedVersions || storedVersions.length === 0) return [field.invalid(path, goStringSlice(storedVersions), 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const remaining = new Map(storedVersions.map((v, i) => [v, i]));
  for (const v of versions) {
    const name = v.name ?? '';
    const stored = remaining.has(name);
    if (v.storage === true && !stored) errs.push(field.invalid(path, goStringSlice(storedVersions), `must have the storage version ${name}`));
    remaining.delete(name);
  }
  for (const [v, i] of remaining) {
    errs.push(
      field.invalid(
        `${path}[${i}]`,
        v,
        `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`,
      ),
    );
  }
  return errs;
}

/** `IsProtectedCommunityGroup`: `k8s.io`, `kubernetes.io` and their subdomains. */
function isProtectedCommunityGroup(group: string): boolean {
  return ['k8s.io', 'kubernetes.io'].some((g) => group === g || group.endsWith(`.${g}`));
}

type ApprovalState = 'invalid' | 'approved' | 'bypassed' | 'missing';

/** `GetAPIApprovalState`: a URL approves, `unapproved…` bypasses, anything else is invalid. */
function approvalState(annotations: Record<string, string> | undefined): ApprovalState {
  const value = annotations?.[API_APPROVED_ANNOTATION] ?? '';
  if (!value) return 'missing';
  if (value.startsWith('unapproved')) return 'bypassed';
  // url.ParseRequestURI with a scheme and a host.
  return /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?]+/.test(value) ? 'approved' : 'invalid';
}

/** `validateAPIApproval`: groups under k8s.io and kubernetes.io need the approval annotation (unless unchanged on update). */
function validateAPIApproval(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined): FieldError[] {
  if (!isProtectedCommunityGroup(crd.spec?.group ?? '')) return [];
  const state = approvalState(crd.metadata?.annotations);
  if (old && approvalState(old.metadata?.annotations) === state) return [];
  const path = `metadata.annotations[${API_APPROVED_ANNOTATION}]`;
  const see = 'see https://github.com/kubernetes/enhancements/pull/1111';
  if (state === 'missing') return [field.required(path, `protected groups must have approval annotation ${JSON.stringify(API_APPROVED_ANNOTATION)}, ${see}`)];
  if (state === 'invalid') {
    const detail = `protected groups must have approval annotation ${JSON.stringify(API_APPROVED_ANNOTATION)} with either a URL or a reason starting with "unapproved", ${see}`;
    return [field.invalid(path, crd.metadata?.annotations?.[API_APPROVED_ANNOTATION] ?? '', detail)];
  }
  return [];
}

/** `validatePreserveUnknownFields`: may not become true (unless it was already). */
function validatePreserveUnknownFields(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined): FieldError[] {
  if (old?.spec?.preserveUnknownFields === true || crd.spec?.preserveUnknownFields !== true) return [];
  return [field.invalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead')];
}

/** The name rule of ValidateCustomResourceDefinition's name validator: `<plural>.<group>`, for name and generateName. */
function validateName(crd: CustomResourceDefinition): FieldError[] {
  const required = `${crd.spec?.names?.plural ?? ''}.${crd.spec?.group ?? ''}`;
  const msg = 'must be spec.names.plural+"."+spec.group';
  const errs: FieldError[] = [];
  const { name, generateName } = crd.metadata ?? {};
  if (generateName && generateName !== required) errs.push(field.invalid('metadata.generateName', generateName, msg));
  if (name && name !== required) errs.push(field.invalid('metadata.name', name, msg));
  return errs;
}

/** Status and the cross-object rules both create and update check after the spec. */
function validateStatusAndRules(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined): FieldError[] {
  return [
    ...validateNames(crd.status?.acceptedNames, 'status.acceptedNames'),
    ...validateStoredVersions(crd.status?.storedVersions, versionsOf(crd)),
    ...validateAPIApproval(crd, old),
    ...validatePreserveUnknownFields(crd, old),
  ];
}

/** `ValidateCustomResourceDefinition` without the generic ObjectMeta checks (the store's), but with the name rule. */
export function validateCustomResourceDefinition(crd: CustomResourceDefinition): FieldError[] {
  return [...validateName(crd), ...validateSpec(crd), ...validateStatusAndRules(crd, undefined)];
}

/** `IsCRDConditionTrue(crd, Established)`. */
function isEstablished(crd: CustomResourceDefinition): boolean {
  return (crd.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
}

/**
 * `ValidateCustomResourceDefinitionUpdate`: the spec as on create, then scope and names.kind immutable
 * once the stored CRD is Established, group and names.plural always; status and the rules.
 */
export function validateCustomResourceDefinitionUpdate(crd: CustomResourceDefinition, old: CustomResourceDefinition): FieldError[] {
  const errs = validateSpec(crd);
  if (isEstablished(old)) {
    errs.push(...validateImmutableField(crd.spec?.scope, old.spec?.scope, 'spec.scope'));
    errs.push(...validateImmutableField(crd.spec?.names?.kind, old.spec?.names?.kind, 'spec.names.kind'));
  }
  errs.push(...validateImmutableField(crd.spec?.group, old.spec?.group, 'spec.group'));
  errs.push(...validateImmutableField(crd.spec?.names?.plural, old.spec?.names?.plural, 'spec.names.plural'));
  return [...errs, ...validateStatusAndRules(crd, old)];
}

/** `ValidateUpdateCustomResourceDefinitionStatus` without ObjectMeta: the accepted names. */
export function validateCustomResourceDefinitionStatusUpdate(crd: CustomResourceDefinition): FieldError[] {
  return validateNames(crd.status?.acceptedNames, 'status.acceptedNames');
}
