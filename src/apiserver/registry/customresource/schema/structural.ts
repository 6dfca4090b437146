/**
 * The structural form of a CustomResourceDefinition version's `openAPIV3Schema`: upstream's
 * `schema.Structural` (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/structural.go) and its
 * conversion `NewStructural` (convert.go). Pruning, defaulting, value validation, list-type and
 * embedded-resource checks and the CEL helper all walk this form.
 */
import {
  additionalPropertiesOf,
  isObject,
  itemsOf,
  schemaList,
  schemaMap,
  strings,
  structuralConversionError,
  type JSONSchema,
} from '../../resources/crd-schema.js';

/** One `x-kubernetes-validations` rule, as written in the CRD (apiextensions/v1 ValidationRule). */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/**
 * The value validations of a schema node (upstream `ValueValidation`). Numbers are JSON numbers;
 * an absent bound is `undefined` (a Go nil pointer).
 */
export interface ValueValidation {
  format?: string;
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  multipleOf?: number;
  /** The allowed values (any JSON); `undefined` when there is no enum. */
  enum?: unknown[];
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  allOf?: NestedValueValidation[];
  oneOf?: NestedValueValidation[];
  anyOf?: NestedValueValidation[];
  not?: NestedValueValidation;
}

/**
 * A schema inside `allOf`/`anyOf`/`oneOf`/`not` (upstream `NestedValueValidation`): value validations
 * and the shape to reach nested ones. `type` and `nullable` are what upstream keeps as
 * `ForbiddenGenerics`; structural schemas allow them only in the int-or-string `anyOf` pattern, where
 * OpenAPI validation still checks them.
 */
export interface NestedValueValidation extends ValueValidation {
  type?: string;
  nullable?: boolean;
  items?: NestedValueValidation;
  properties?: Record<string, NestedValueValidation>;
  additionalProperties?: NestedValueValidation;
  xValidations?: ValidationRule[];
}

/** `additionalProperties` of a structural schema: a schema, or `true` (`bool`) without one. */
export interface StructuralOrBool {
  structural?: Structural;
  /** `additionalProperties: true|false` when there is no schema (upstream's zero value: false). */
  bool?: boolean;
}

/** The structural form of a CRD version's openAPIV3Schema (upstream pkg/apiserver/schema Structural). */
export interface Structural {
  type?: string;
  description?: string;
  title?: string;
  /** The `default` (any JSON); `undefined` when there is none (a `null` default counts as none, as upstream's JSON{nil}). */
  default?: unknown;
  nullable?: boolean;
  properties?: Record<string, Structural>;
  items?: Structural;
  additionalProperties?: StructuralOrBool;
  xPreserveUnknownFields?: boolean;
  xEmbeddedResource?: boolean;
  xIntOrString?: boolean;
  xListType?: string;
  xListMapKeys?: string[];
  xMapType?: string;
  /** `x-kubernetes-validations`, kept as written for the CEL helper. */
  xValidations?: ValidationRule[];
  valueValidation?: ValueValidation;
}

function num(s: JSONSchema, key: string): number | undefined {
  const v = s[key];
  return typeof v === 'number' ? v : undefined;
}

function str(s: JSONSchema, key: string): string | undefined {
  const v = s[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function rules(s: JSONSchema): ValidationRule[] | undefined {
  const v = s['x-kubernetes-validations'];
  if (!Array.isArray(v) || v.length === 0) return undefined;
  return v.filter(isObject).map((r) => {
    const out: ValidationRule = { rule: typeof r['rule'] === 'string' ? r['rule'] : '' };
    for (const k of ['message', 'messageExpression', 'reason', 'fieldPath'] as const) {
      if (typeof r[k] === 'string') out[k] = r[k];
    }
    if (typeof r['optionalOldSelf'] === 'boolean') out.optionalOldSelf = r['optionalOldSelf'];
    return out;
  });
}

/** Drops `undefined` members so that objects compare and print as upstream's zero values do. */
function compact<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}

function valueValidationOf(s: JSONSchema): ValueValidation {
  const nested = (k: string): NestedValueValidation[] | undefined => {
    const l = schemaList(s[k]);
    return l.length ? l.map(toNested) : undefined;
  };
  return compact<ValueValidation>({
    format: str(s, 'format'),
    maximum: num(s, 'maximum'),
    exclusiveMaximum: s['exclusiveMaximum'] === true ? true : undefined,
    minimum: num(s, 'minimum'),
    exclusiveMinimum: s['exclusiveMinimum'] === true ? true : undefined,
    maxLength: num(s, 'maxLength'),
    minLength: num(s, 'minLength'),
    pattern: str(s, 'pattern'),
    maxItems: num(s, 'maxItems'),
    minItems: num(s, 'minItems'),
    uniqueItems: s['uniqueItems'] === true ? true : undefined,
    multipleOf: num(s, 'multipleOf'),
    enum: Array.isArray(s['enum']) && s['enum'].length ? (s['enum'] as unknown[]) : undefined,
    maxProperties: num(s, 'maxProperties'),
    minProperties: num(s, 'minProperties'),
    required: Array.isArray(s['required']) && s['required'].length ? strings(s, 'required') : undefined,
    allOf: nested('allOf'),
    oneOf: nested('oneOf'),
    anyOf: nested('anyOf'),
    not: isObject(s['not']) ? toNested(s['not']) : undefined,
  });
}

function toNested(s: JSONSchema): NestedValueValidation {
  const out: NestedValueValidation = valueValidationOf(s);
  const t = str(s, 'type');
  if (t) out.type = t;
  if (s['nullable'] === true) out.nullable = true;
  const items = itemsOf(s);
  if (items?.schema) out.items = toNested(items.schema);
  const props = schemaMap(s['properties']);
  if (props.length) out.properties = Object.fromEntries(props.map(([k, v]) => [k, toNested(v)]));
  const ap = additionalPropertiesOf(s);
  if (ap?.schema) out.additionalProperties = toNested(ap.schema);
  const r = rules(s);
  if (r) out.xValidations = r;
  return out;
}

function convert(s: JSONSchema): Structural {
  const out: Structural = {};
  const t = str(s, 'type');
  if (t) out.type = t;
  const d = str(s, 'description');
  if (d) out.description = d;
  const title = str(s, 'title');
  if (title) out.title = title;
  if (s['default'] !== undefined && s['default'] !== null) out.default = s['default'];
  if (s['nullable'] === true) out.nullable = true;
  const props = schemaMap(s['properties']);
  if (props.length) out.properties = Object.fromEntries(props.map(([k, v]) => [k, convert(v)]));
  const items = itemsOf(s);
  if (items?.schema) out.items = convert(items.schema);
  const ap = additionalPropertiesOf(s);
  if (ap) out.additionalProperties = ap.schema ? { structural: convert(ap.schema) } : { bool: ap.allows };
  if (s['x-kubernetes-preserve-unknown-fields'] === true) out.xPreserveUnknownFields = true;
  if (s['x-kubernetes-embedded-resource'] === true) out.xEmbeddedResource = true;
  if (s['x-kubernetes-int-or-string'] === true) out.xIntOrString = true;
  const lt = str(s, 'x-kubernetes-list-type');
  if (lt) out.xListType = lt;
  const keys = strings(s, 'x-kubernetes-list-map-keys');
  if (keys.length) out.xListMapKeys = keys;
  const mt = str(s, 'x-kubernetes-map-type');
  if (mt) out.xMapType = mt;
  const r = rules(s);
  if (r) out.xValidations = r;
  const vv = valueValidationOf(s);
  if (Object.keys(vv).length) out.valueValidation = vv;
  return out;
}

/**
 * `NewStructural`: the structural form of an openAPIV3Schema (as decoded JSON). Unknown members are
 * ignored; `definitions`, `$ref` and the other constructs structural schemas forbid are errors.
 * @throws Error with upstream's conversion message when the schema cannot be represented (callers
 *   pass only the schemas of validated CRDs, which never fail).
 */
export function toStructural(openAPIV3Schema: unknown): Structural {
  if (openAPIV3Schema === undefined || openAPIV3Schema === null) return {};
  if (!isObject(openAPIV3Schema)) throw new Error('openAPIV3Schema must be an object');
  const err = structuralConversionError(openAPIV3Schema);
  if (err !== undefined) throw new Error(err);
  return convert(openAPIV3Schema);
}

/** The schema of a field of an object node: its property, else its `additionalProperties` schema. */
export function fieldSchema(s: Structural | undefined, key: string): Structural | undefined {
  if (!s) return undefined;
  return propertyOf(s, key) ?? s.additionalProperties?.structural;
}

/** The schema of property `key` (an own member only: `constructor` is a field name like any other). */
export function propertyOf<T>(s: { properties?: Record<string, T> }, key: string): T | undefined {
  return s.properties !== undefined && Object.hasOwn(s.properties, key) ? s.properties[key] : undefined;
}

/** True for a JSON object (a Go `map[string]interface{}`). */
export function isJSONObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `runtime.DeepCopyJSONValue`. */
export function deepCopyJSON<T>(v: T): T {
  return structuredClone(v);
}
