/**
 * Validation of a CustomResourceDefinition's `openAPIV3Schema`, with upstream's field paths and messages.
 *
 * Followed (k8s.io/apiextensions-apiserver v0.33.9): pkg/apis/apiextensions/validation/validation.go
 * (validateCustomResourceDefinitionValidation, ValidateCustomResourceDefinitionOpenAPISchema,
 * specStandardValidatorV3.validate, validateMapListKeysMapSet, the static checks of
 * x-kubernetes-validations), pkg/apiserver/schema/validation.go (ValidateStructural: the invariants of
 * a structural schema, value validations under allOf/anyOf/oneOf/not) and pkg/apiserver/schema/
 * complete.go (validateStructuralCompleteness).
 *
 * Defaults are checked against their schema and pruning by structuraldefaulting.ValidateDefaults
 * (customresource/schema/default-validation.ts; CEL rules are not run on defaults). The
 * x-kubernetes-validations rules are compiled and their cost estimated (customresource/cel). Not
 * checked (yet): that `pattern` is a Go regular expression, and the final NewSchemaValidator build. Bad values that Go prints as a whole schema
 * struct (`%#v` with pointer addresses) are shown as `apiextensions.JSONSchemaProps{…}`.
 */
import { field, GoSyntax, fieldErrorString, goQuote, goStringSlice, type FieldError } from '../../../machinery/errors/index.js';
import {
  additionalPropertiesOf,
  flag,
  has,
  isObject,
  itemsOf,
  mapSize,
  schemaList,
  schemaMap,
  strings,
  structuralConversionError,
  text,
  validFieldPath,
  type JSONSchema,
} from './crd-schema.js';
import { compileRules } from '../customresource/cel/index.js';
import { validateDefaults } from '../customresource/schema/default-validation.js';
import { toStructural } from '../customresource/schema/structural.js';

type Level = 'root' | 'item' | 'field';

const OPENAPI_V3_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);
const SUPPORTED_VALIDATION_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
const PRESERVE = 'x-kubernetes-preserve-unknown-fields';
const EMBEDDED = 'x-kubernetes-embedded-resource';
const INT_OR_STRING = 'x-kubernetes-int-or-string';
const LIST_TYPE = 'x-kubernetes-list-type';
const LIST_MAP_KEYS = 'x-kubernetes-list-map-keys';
const MAP_TYPE = 'x-kubernetes-map-type';
const VALIDATIONS = 'x-kubernetes-validations';

/** How field errors print a `*string` bad value (apimachinery field.Error.ErrorBody): the quoted string, or `"null"` when nil. */
function goStringPtr(s: JSONSchema, key: string): GoSyntax {
  return new GoSyntax(goQuote(typeof s[key] === 'string' ? s[key] : 'null'));
}

// ---------------------------------------------------------------------------------------------
// Structural schema (pkg/apiserver/schema/validation.go, complete.go).

/** The int-or-string pattern `anyOf: [{type: integer}, {type: string}]`, nothing else in either clause. */
function isIntOrStringAnyOf(anyOf: unknown): boolean {
  const clauses = schemaList(anyOf);
  const only = (c: JSONSchema, type: string): boolean =>
    text(c, 'type') === type && Object.entries(c).every(([k, v]) => k === 'type' || k === 'externalDocs' || k === 'example' || isZero(k, v));
  return clauses.length === 2 && only(clauses[0] as JSONSchema, 'integer') && only(clauses[1] as JSONSchema, 'string');
}

/** A field's value equals its Go zero value (pointers: nil only; lists and maps: empty). */
function isZero(key: string, v: unknown): boolean {
  if (v === undefined || v === null || v === '') return true;
  if (v === false) return key !== PRESERVE;
  if (Array.isArray(v)) return v.length === 0;
  if (isObject(v)) return MAP_FIELDS.has(key) && Object.keys(v).length === 0;
  return false;
}
const MAP_FIELDS = new Set(['properties', 'patternProperties', 'definitions', 'dependencies']);

/** `validateValueValidation`: the clauses of allOf/anyOf/oneOf/not must not say what only the structural part may. */
function validateValueValidation(s: JSONSchema, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, lvl: Level, path: string, errs: FieldError[]): void {
  if (!skipAnyOf) schemaList(s['anyOf']).forEach((c, i) => validateNestedValueValidation(c, false, lvl, `${path}.anyOf[${i}]`, errs));
  schemaList(s['allOf']).forEach((c, i) => validateNestedValueValidation(c, skipFirstAllOfAnyOf && i === 0, lvl, `${path}.allOf[${i}]`, errs));
  schemaList(s['oneOf']).forEach((c, i) => validateNestedValueValidation(c, false, lvl, `${path}.oneOf[${i}]`, errs));
  if (isObject(s['not'])) validateNestedValueValidation(s['not'], false, lvl, `${path}.not`, errs);
}

/** What a value-validation clause may not set: `<path>.<field>: Forbidden: must be <rule> to be structural`. */
const FORBIDDEN_IN_CLAUSES: [key: string, rule: string, set: (v: JSONSchema) => boolean][] = [
  ['type', 'must be empty', (v) => text(v, 'type') !== ''],
  ['additionalProperties', 'must be undefined', (v) => additionalPropertiesOf(v)?.allows === true],
  ['default', 'must be undefined', (v) => has(v, 'default')],
  ['title', 'must be empty', (v) => text(v, 'title') !== ''],
  ['description', 'must be empty', (v) => text(v, 'description') !== ''],
  ['nullable', 'must be false', (v) => flag(v, 'nullable')],
  [PRESERVE, 'must be false', (v) => flag(v, PRESERVE)],
  [EMBEDDED, 'must be false', (v) => flag(v, EMBEDDED)],
  [INT_OR_STRING, 'must be false', (v) => flag(v, INT_OR_STRING)],
  [LIST_MAP_KEYS, 'must be empty', (v) => strings(v, LIST_MAP_KEYS).length > 0],
  [LIST_TYPE, 'must be undefined', (v) => has(v, LIST_TYPE)],
  [MAP_TYPE, 'must be undefined', (v) => has(v, MAP_TYPE)],
  [VALIDATIONS, 'must be empty', (v) => schemaList(v[VALIDATIONS]).length > 0],
];

/** `validateNestedValueValidation` of one allOf/anyOf/oneOf/not clause. */
function validateNestedValueValidation(v: JSONSchema, skipAnyOf: boolean, lvl: Level, path: string, errs: FieldError[]): void {
  validateValueValidation(v, skipAnyOf, false, lvl, path, errs);
  const items = itemsOf(v)?.schema;
  if (items) validateNestedValueValidation(items, false, lvl, `${path}.items`, errs);
  for (const [k, p] of schemaMap(v['properties'])) validateNestedValueValidation(p, false, 'field', `${path}.properties[${k}]`, errs);
  for (const [key, rule, set] of FORBIDDEN_IN_CLAUSES) if (set(v)) errs.push(field.forbidden(`${path}.${key}`, `${rule} to be structural`));
  if (schemaMap(v['properties']).some(([k]) => k === 'metadata')) errs.push(field.forbidden(`${path}.properties[metadata]`, 'must not be specified in a nested context'));
}

/** Keys a root `metadata` schema may set: its type, a default (checked elsewhere), and docs Structural drops. */
const METADATA_IGNORED = new Set(['type', 'default', 'externalDocs', 'example', 'properties']);

/** `validateStructuralMetadataInvariants`: metadata is an object, and at the root restricts name and generateName only. */
function validateMetadataInvariants(m: JSONSchema, checkMetadata: boolean, lvl: Level, path: string, errs: FieldError[]): void {
  const type = text(m, 'type');
  if (checkMetadata && type !== 'object') errs.push(field.invalid(`${path}.type`, type, 'must be object'));
  if (lvl !== 'root') return;
  const names = schemaMap(m['properties']).map(([k]) => k);
  const onlyNames = names.length <= 2 && names.every((k) => k === 'name' || k === 'generateName') && new Set(names).size === names.length;
  const other = Object.entries(m).some(([k, v]) => !METADATA_IGNORED.has(k) && !isZero(k, v)) || (names.length > 0 && !onlyNames);
  if (other) errs.push(field.forbidden(path, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
}

/** `validateStructuralInvariants` of one node and everything below it. */
function validateStructuralInvariants(s: JSONSchema, lvl: Level, path: string, errs: FieldError[]): void {
  const type = text(s, 'type');
  const items = itemsOf(s)?.schema;
  if (type === 'array' && !items) errs.push(field.required(`${path}.items`, 'must be specified'));
  if (items) validateStructuralInvariants(items, 'item', `${path}.items`, errs);
  const props = schemaMap(s['properties']);
  for (const [k, p] of props) validateStructuralInvariants(p, 'field', `${path}.properties[${k}]`, errs);
  const additional = additionalPropertiesOf(s);
  if (additional) {
    if (lvl === 'root') errs.push(field.forbidden(`${path}.additionalProperties`, 'must not be used at the root'));
    if (additional.schema) validateStructuralInvariants(additional.schema, 'field', `${path}.additionalProperties`, errs);
  }
  const intOrString = flag(s, INT_OR_STRING);
  const preserve = flag(s, PRESERVE);
  const embedded = flag(s, EMBEDDED);
  if (intOrString && preserve) errs.push(field.invalid(`${path}.${PRESERVE}`, true, 'must be false if x-kubernetes-int-or-string is true'));
  if (intOrString && embedded) errs.push(field.invalid(`${path}.${EMBEDDED}`, true, 'must be false if x-kubernetes-int-or-string is true'));
  const allOf = schemaList(s['allOf']);
  validateValueValidation(s, isIntOrStringAnyOf(s['anyOf']), allOf.length > 0 && isIntOrStringAnyOf(allOf[0]?.['anyOf']), lvl, path, errs);

  if (embedded && type !== 'object') {
    const msg = 'must be object if x-kubernetes-embedded-resource is true';
    errs.push(type ? field.invalid(`${path}.type`, type, msg) : field.required(`${path}.type`, msg));
  } else if (!type && !intOrString && !preserve) {
    const where = { root: 'at the root', item: 'for specified array items', field: 'for specified object fields' }[lvl];
    errs.push(field.required(`${path}.type`, `must not be empty ${where}`));
  }
  if (embedded && additional) errs.push(field.forbidden(`${path}.additionalProperties`, 'must not be used if x-kubernetes-embedded-resource is set'));
  if (lvl === 'root' && type && type !== 'object') errs.push(field.invalid(`${path}.type`, type, 'must be object at the root'));
  const checkMetadata = lvl === 'root' || embedded;
  for (const [k, p] of props) {
    if (checkMetadata && (k === 'kind' || k === 'apiVersion') && text(p, 'type') !== 'string') {
      errs.push(field.invalid(`${path}.properties[${k}].type`, text(p, 'type'), 'must be string'));
    }
    if (k === 'metadata') validateMetadataInvariants(p, checkMetadata, lvl, `${path}.properties[metadata]`, errs);
  }
  if (embedded && !preserve && props.length === 0) {
    errs.push(field.required(`${path}.properties`, 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
}

/** `validateNestedValueValidationCompleteness`: what a clause names must exist in the structural part. */
function validateCompleteness(v: JSONSchema | undefined, s: JSONSchema | undefined, sPath: string, vPath: string, nested: boolean, errs: FieldError[]): void {
  if (!v) return;
  if (!s) {
    errs.push(field.required(sPath, `because it is defined in ${vPath}`));
    return;
  }
  const clause = (c: JSONSchema, at: string): void => validateCompleteness(c, s, sPath, at, true, errs);
  if (isObject(v['not'])) clause(v['not'], `${vPath}.not`);
  schemaList(v['allOf']).forEach((c, i) => clause(c, `${vPath}.allOf[${i}]`));
  schemaList(v['anyOf']).forEach((c, i) => clause(c, `${vPath}.anyOf[${i}]`));
  schemaList(v['oneOf']).forEach((c, i) => clause(c, `${vPath}.oneOf[${i}]`));
  if (!nested) return;
  validateCompleteness(itemsOf(v)?.schema, itemsOf(s)?.schema, `${sPath}.items`, `${vPath}.items`, true, errs);
  const sProps = new Map(schemaMap(s['properties']));
  for (const [k, p] of schemaMap(v['properties'])) {
    const sp = sProps.get(k);
    if (sp) validateCompleteness(p, sp, `${sPath}.properties[${k}]`, `${vPath}.properties[${k}]`, true, errs);
    else errs.push(field.required(`${sPath}.properties[${k}]`, `because it is defined in ${vPath}.properties[${k}]`));
  }
}

/** `ValidateStructural`: invariants and completeness, sorted by their text as upstream sorts them. */
export function validateStructural(schema: JSONSchema, path: string): FieldError[] {
  const errs: FieldError[] = [];
  validateStructuralInvariants(schema, 'root', path, errs);
  validateCompleteness(schema, schema, path, path, false, errs);
  return errs.map((e) => [fieldErrorString(e), e] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, e]) => e);
}

// ---------------------------------------------------------------------------------------------
// OpenAPI v3 (ValidateCustomResourceDefinitionOpenAPISchema).

/** `specStandardValidatorV3`'s state. */
interface SchemaContext {
  allowDefaults: boolean;
  disallowDefaultsReason: string;
  insideResourceMeta: boolean;
}

const forbidDefaults = (ctx: SchemaContext, reason: string): SchemaContext => ({ ...ctx, allowDefaults: false, disallowDefaultsReason: reason });

/** `specStandardValidatorV3.validate`: what OpenAPI v3 has but CRD schemas do not support. */
function validateStandard(s: JSONSchema, path: string, ctx: SchemaContext, errs: FieldError[]): void {
  const type = text(s, 'type');
  if (type && !OPENAPI_V3_TYPES.includes(type)) errs.push(field.notSupported(`${path}.type`, type, OPENAPI_V3_TYPES));
  if (has(s, 'default') && !ctx.allowDefaults) {
    errs.push(field.forbidden(`${path}.default`, `must not be set${ctx.disallowDefaultsReason ? ` ${ctx.disallowDefaultsReason}` : ''}`));
  }
  if (text(s, 'id')) errs.push(field.forbidden(`${path}.id`, 'id is not supported'));
  if (has(s, 'additionalItems')) errs.push(field.forbidden(`${path}.additionalItems`, 'additionalItems is not supported'));
  if (mapSize(s['patternProperties']) > 0) errs.push(field.forbidden(`${path}.patternProperties`, 'patternProperties is not supported'));
  if (mapSize(s['definitions']) > 0) errs.push(field.forbidden(`${path}.definitions`, 'definitions is not supported'));
  if (has(s, 'dependencies')) errs.push(field.forbidden(`${path}.dependencies`, 'dependencies is not supported'));
  if (has(s, '$ref')) errs.push(field.forbidden(`${path}.$ref`, '$ref is not supported'));
  if (type === 'null') errs.push(field.forbidden(`${path}.type`, 'type cannot be set to null, use nullable as an alternative'));
  if ((itemsOf(s)?.array.length ?? 0) > 0) errs.push(field.forbidden(`${path}.items`, 'items must be a schema object and not an array'));
  if (ctx.insideResourceMeta && flag(s, EMBEDDED)) errs.push(field.forbidden(`${path}.${EMBEDDED}`, 'must not be used inside of resource meta'));
}

/** Checks of x-kubernetes-map-type, x-kubernetes-list-type and x-kubernetes-list-map-keys. */
function validateListAndMapTypes(s: JSONSchema, path: string, errs: FieldError[]): void {
  const type = text(s, 'type');
  const typeMust = (must: string, ext: string): FieldError =>
    type ? field.invalid(`${path}.type`, type, `must be ${must} if ${ext} is specified`) : field.required(`${path}.type`, `must be ${must} if ${ext} is specified`);
  const mapType = has(s, MAP_TYPE) ? text(s, MAP_TYPE) : undefined;
  if (mapType !== undefined && type !== 'object') errs.push(typeMust('object', MAP_TYPE));
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') errs.push(field.notSupported(`${path}.${MAP_TYPE}`, mapType, ['atomic', 'granular']));

  const listType = has(s, LIST_TYPE) ? text(s, LIST_TYPE) : undefined;
  const items = itemsOf(s);
  if (listType !== undefined && type !== 'array') errs.push(typeMust('array', LIST_TYPE));
  else if (listType === 'set' && items?.schema) {
    const is = items.schema;
    const atomic = 'must be atomic as item of a list with x-kubernetes-list-type=set';
    if (text(is, 'type') === 'array' && has(is, LIST_TYPE) && text(is, LIST_TYPE) !== 'atomic') {
      errs.push(field.invalid(`${path}.items.${LIST_TYPE}`, goStringPtr(is, LIST_TYPE), atomic));
    } else if (text(is, 'type') === 'object' && text(is, MAP_TYPE) !== 'atomic') {
      // Upstream reports the items' list type (not their map type) as the bad value.
      errs.push(field.invalid(`${path}.items.${MAP_TYPE}`, goStringPtr(is, LIST_TYPE), atomic));
    }
  }
  if (listType !== undefined && !['atomic', 'set', 'map'].includes(listType)) errs.push(field.notSupported(`${path}.${LIST_TYPE}`, listType, ['atomic', 'set', 'map']));

  const keys = strings(s, LIST_MAP_KEYS);
  if (keys.length > 0) {
    const msg = 'must be map if x-kubernetes-list-map-keys is non-empty';
    if (listType === undefined) errs.push(field.required(`${path}.${LIST_TYPE}`, msg));
    else if (listType !== 'map') errs.push(field.invalid(`${path}.${LIST_TYPE}`, listType, msg));
  }
  if (listType === 'map') validateListMap(s, keys, path, errs);
}

/** The checks of an `x-kubernetes-list-type: map` list: keys, a single object item schema, scalar keys. */
function validateListMap(s: JSONSchema, keys: string[], path: string, errs: FieldError[]): void {
  const items = itemsOf(s);
  if (keys.length === 0) errs.push(field.required(`${path}.${LIST_MAP_KEYS}`, 'must not be empty if x-kubernetes-list-type is map'));
  if (!items) errs.push(field.required(`${path}.items`, 'must have a schema if x-kubernetes-list-type is map'));
  else if (!items.schema) errs.push(field.invalid(`${path}.items`, new GoSyntax('apiextensions.JSONSchemaPropsOrArray{…}'), 'must only have a single schema if x-kubernetes-list-type is map'));
  const is = items?.schema;
  if (!is) return;
  const itemType = text(is, 'type');
  if (itemType !== 'object') {
    errs.push(field.invalid(`${path}.items.type`, itemType, "must be object if parent array's x-kubernetes-list-type is map"));
    return;
  }
  const props = new Map(schemaMap(is['properties']));
  const seen = new Set<string>();
  for (const k of keys) {
    const p = props.get(k);
    if (!p) errs.push(field.invalid(`${path}.${LIST_MAP_KEYS}`, goStringSlice(keys), 'entries must all be names of item properties'));
    else if (text(p, 'type') === 'array' || text(p, 'type') === 'object') {
      // Upstream reports the item's type (`object`) as the bad value.
      errs.push(field.invalid(`${path}.items.properties[${k}].type`, itemType, "must be a scalar type if parent array's x-kubernetes-list-type is map"));
    }
    if (seen.has(k)) errs.push(field.invalid(`${path}.${LIST_MAP_KEYS}`, goStringSlice(keys), 'must not contain duplicate entries'));
    seen.add(k);
  }
}

/** `validateMapListKeysMapSet`: set and map list items are not nullable; map keys are required or defaulted, not nullable. */
function validateMapListKeysMapSet(s: JSONSchema, path: string, errs: FieldError[]): void {
  const is = itemsOf(s)?.schema;
  const listType = text(s, LIST_TYPE);
  if (!is || (listType !== 'set' && listType !== 'map')) return;
  if (flag(is, 'nullable')) errs.push(field.forbidden(`${path}.items.nullable`, `cannot be nullable when x-kubernetes-list-type is ${listType}`));
  if (listType !== 'map') return;
  const required = new Set(strings(is, 'required'));
  const props = new Map(schemaMap(is['properties']));
  for (const k of strings(s, LIST_MAP_KEYS)) {
    const p = props.get(k);
    if (!p) continue;
    if (!required.has(k) && !has(p, 'default')) {
      errs.push(field.required(`${path}.items.properties[${k}].default`, 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
    }
    if (flag(p, 'nullable')) errs.push(field.forbidden(`${path}.items.properties[${k}].nullable`, 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
  }
}

const NEWLINES = /[\n\r]+/;

/** The static checks of `x-kubernetes-validations` rules (CEL compilation and cost are not done here). */
function validateValidationRules(s: JSONSchema, path: string, errs: FieldError[]): void {
  schemaList(s[VALIDATIONS]).forEach((rule, i) => {
    const p = `${path}.${VALIDATIONS}[${i}]`;
    const expr = text(rule, 'rule').trim();
    const message = text(rule, 'message');
    const messageExpression = text(rule, 'messageExpression');
    const fieldPath = text(rule, 'fieldPath');
    if (!expr) errs.push(field.required(`${p}.rule`, 'rule is not specified'));
    else if (message && !message.trim()) errs.push(field.invalid(`${p}.message`, message, 'message must be non-empty if specified'));
    else if (NEWLINES.test(message.trim())) errs.push(field.invalid(`${p}.message`, message, 'message must not contain line breaks'));
    else if (NEWLINES.test(expr) && !message.trim()) errs.push(field.required(`${p}.message`, 'message must be specified if rule contains line breaks'));
    if (messageExpression && !messageExpression.trim()) errs.push(field.required(`${p}.messageExpression`, 'messageExpression must be non-empty if specified'));
    if (has(rule, 'reason') && !SUPPORTED_VALIDATION_REASONS.includes(text(rule, 'reason'))) {
      errs.push(field.notSupported(`${p}.reason`, text(rule, 'reason'), SUPPORTED_VALIDATION_REASONS));
    }
    if (fieldPath && !fieldPath.trim()) errs.push(field.invalid(`${p}.fieldPath`, fieldPath, 'fieldPath must be non-empty if specified'));
    if (NEWLINES.test(fieldPath)) errs.push(field.invalid(`${p}.fieldPath`, fieldPath, 'fieldPath must not contain line breaks'));
    if (fieldPath && structuralConversionError(s) === undefined && validFieldPath(fieldPath, s) instanceof Error) {
      errs.push(field.invalid(`${p}.fieldPath`, fieldPath, 'fieldPath must be a valid path'));
    }
  });
}

/** `ValidateCustomResourceDefinitionOpenAPISchema`: one node, then its children in upstream's order. */
function validateOpenAPISchema(s: JSONSchema, path: string, ctx: SchemaContext, isRoot: boolean, errs: FieldError[]): void {
  validateStandard(s, path, ctx, errs);
  if (flag(s, 'uniqueItems')) errs.push(field.forbidden(`${path}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  const props = schemaMap(s['properties']);
  const additional = additionalPropertiesOf(s);
  if (additional) {
    if (props.length > 0 && (!additional.allows || additional.schema)) {
      errs.push(field.forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
    }
    const sub = ctx.insideResourceMeta ? forbidDefaults(ctx, 'inside additionalProperties applying to object metadata') : ctx;
    if (additional.schema) validateOpenAPISchema(additional.schema, `${path}.additionalProperties`, sub, false, errs);
  }
  for (const [k, p] of props) {
    let sub = ctx;
    if ((isRoot || flag(s, EMBEDDED)) && META_FIELDS.has(k)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = forbidDefaults(sub, `in top-level ${k}`);
    }
    validateOpenAPISchema(p, `${path}.properties[${k}]`, sub, false, errs);
  }
  if (isObject(s['not'])) validateOpenAPISchema(s['not'], `${path}.not`, ctx, false, errs);
  for (const key of ['allOf', 'oneOf', 'anyOf']) schemaList(s[key]).forEach((c, i) => validateOpenAPISchema(c, `${path}.${key}[${i}]`, ctx, false, errs));
  for (const [k, d] of schemaMap(s['definitions'])) validateOpenAPISchema(d, `${path}.definitions[${k}]`, ctx, false, errs);
  const items = itemsOf(s);
  if (items?.schema) validateOpenAPISchema(items.schema, `${path}.items`, ctx, false, errs);
  items?.array.forEach((c, i) => validateOpenAPISchema(c, `${path}.items[${i}]`, ctx, false, errs));
  if (isObject(s['dependencies'])) {
    for (const [k, d] of Object.entries(s['dependencies'])) if (isObject(d)) validateOpenAPISchema(d, `${path}.dependencies[${k}]`, ctx, false, errs);
  }
  if (s[PRESERVE] === false) errs.push(field.invalid(`${path}.${PRESERVE}`, false, 'must be true or undefined'));
  validateListAndMapTypes(s, path, errs);
  validateMapListKeysMapSet(s, path, errs);
  validateValidationRules(s, path, errs);
}

// ---------------------------------------------------------------------------------------------
// The schema of a version (validateCustomResourceDefinitionValidation).

/** Go field names of JSONSchemaProps with their JSON names, in declaration order. */
const GO_SCHEMA_FIELDS: [json: string, go: string][] = [
  ['id', 'ID'], ['$schema', 'Schema'], ['$ref', 'Ref'], ['description', 'Description'], ['type', 'Type'], ['nullable', 'Nullable'],
  ['format', 'Format'], ['title', 'Title'], ['default', 'Default'], ['maximum', 'Maximum'], ['exclusiveMaximum', 'ExclusiveMaximum'],
  ['minimum', 'Minimum'], ['exclusiveMinimum', 'ExclusiveMinimum'], ['maxLength', 'MaxLength'], ['minLength', 'MinLength'],
  ['pattern', 'Pattern'], ['maxItems', 'MaxItems'], ['minItems', 'MinItems'], ['uniqueItems', 'UniqueItems'], ['multipleOf', 'MultipleOf'],
  ['enum', 'Enum'], ['maxProperties', 'MaxProperties'], ['minProperties', 'MinProperties'], ['required', 'Required'], ['items', 'Items'],
  ['allOf', 'AllOf'], ['oneOf', 'OneOf'], ['anyOf', 'AnyOf'], ['not', 'Not'], ['properties', 'Properties'],
  ['additionalProperties', 'AdditionalProperties'], ['patternProperties', 'PatternProperties'], ['dependencies', 'Dependencies'],
  ['additionalItems', 'AdditionalItems'], ['definitions', 'Definitions'], ['externalDocs', 'ExternalDocs'], ['example', 'Example'],
  [PRESERVE, 'XPreserveUnknownFields'], [EMBEDDED, 'XEmbeddedResource'], [INT_OR_STRING, 'XIntOrString'], [LIST_MAP_KEYS, 'XListMapKeys'],
  [LIST_TYPE, 'XListType'], [MAP_TYPE, 'XMapType'], [VALIDATIONS, 'XValidations'],
];

/** `allowedFieldsAtRootSchema`: what a root schema may set when the status subresource is enabled. */
const ALLOWED_AT_ROOT_WITH_STATUS = [
  'Description', 'Type', 'Format', 'Title', 'Maximum', 'ExclusiveMaximum', 'Minimum', 'ExclusiveMinimum', 'MaxLength', 'MinLength', 'Pattern',
  'MaxItems', 'MinItems', 'UniqueItems', 'MultipleOf', 'Required', 'Items', 'Properties', 'ExternalDocs', 'Example', 'XPreserveUnknownFields', 'XValidations',
];

/** With the status subresource, only an object type and the fields status extraction keeps are allowed at the root. */
function validateRootWithStatus(schema: JSONSchema, path: string, errs: FieldError[]): void {
  for (const [json, go] of GO_SCHEMA_FIELDS) {
    if (isZero(json, schema[json])) continue;
    if (go === 'Type') {
      if (text(schema, 'type') === 'object') continue;
      errs.push(field.invalid(`${path}.openAPIV3Schema.type`, text(schema, 'type'), 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled'));
      return;
    }
    if (!ALLOWED_AT_ROOT_WITH_STATUS.includes(go)) {
      const detail = `only [${ALLOWED_AT_ROOT_WITH_STATUS.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`;
      errs.push(field.invalid(`${path}.openAPIV3Schema`, new GoSyntax('apiextensions.JSONSchemaProps{…}'), detail));
      return;
    }
  }
}

/**
 * `validateCustomResourceDefinitionValidation` of a CustomResourceValidation (`{openAPIV3Schema}`) at
 * `path` (`spec.validation` when every version has the same schema, else `spec.versions[i].schema`):
 * the root under the status subresource, root nullable, the structural checks (or, when the schema
 * cannot even be converted, NewStructural's error if nothing else is wrong), then the OpenAPI checks.
 */
export function validateCustomResourceValidation(validation: unknown, statusEnabled: boolean, path: string): FieldError[] {
  const schema = isObject(validation) ? validation['openAPIV3Schema'] : undefined;
  if (!isObject(schema)) return [];
  const errs: FieldError[] = [];
  if (statusEnabled) validateRootWithStatus(schema, path, errs);
  if (flag(schema, 'nullable')) errs.push(field.forbidden(`${path}.openAPIV3Schema.nullable`, 'nullable cannot be true at the root'));
  const root = `${path}.openAPIV3Schema`;
  const conversionError = structuralConversionError(schema);
  if (conversionError === undefined) {
    const structuralErrs = validateStructural(schema, root);
    errs.push(...structuralErrs);
    // Upstream validates defaults only once the schema is structural (requirePrunedDefaults: as on
    // create; an update of a CRD whose stored defaults are unpruned is not told apart here).
    if (structuralErrs.length === 0) errs.push(...validateDefaults(root, toStructural(schema), true, true));
  }
  validateOpenAPISchema(schema, root, { allowDefaults: true, disallowDefaultsReason: '', insideResourceMeta: false }, true, errs);
  if (errs.length === 0 && conversionError !== undefined) errs.push(field.invalid(root, '', conversionError));
  // The rules are compiled (and their cost estimated) only for an otherwise valid structural schema,
  // as upstream hides CEL errors behind the generic ones. CEL reads the schema in its JSON form: for a
  // structural schema that is the structural node plus value validations CEL ignores.
  if (errs.length === 0) errs.push(...compileRules(schema, root).errors);
  return errs;
}
