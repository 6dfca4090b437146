/**
 * OpenAPI v3 value validation of custom objects, with upstream's messages and field paths: the walk
 * of k8s.io/kube-openapi pkg/validation/validate (schema.go's validator chain: type, allOf/anyOf/oneOf/not,
 * string, format, number, slice, enum, object; messages of pkg/validation/errors/schema.go and
 * validate/schema_messages.go), turned into field errors as k8s.io/apiextensions-apiserver
 * pkg/apiserver/validation/validation.go (kubeOpenAPIResultToFieldErrors) does, with the ratcheting of
 * updates of pkg/apiserver/validation/ratcheting.go (an invalid value that did not change is let through).
 */
import { goQuote, NIL_PATH, type FieldError } from '../../../../machinery/errors/index.js';
import { checkFormat, isSupportedFormat } from './formats.js';
import { goBadValue, goJSONRepr } from './listtype.js';
import { isJSONObject, propertyOf, type NestedValueValidation, type Structural, type ValueValidation } from './structural.js';

/** The part of kube-openapi's spec.Schema the validators read. */
interface VSchema extends ValueValidation {
  type: string[];
  nullable: boolean;
  /** The format after StripUnsupportedFormatsPostProcess (`''` when upstream does not check it). */
  format: string;
  properties?: [string, VSchema][];
  items?: VSchema;
  additionalProperties?: { allows: boolean; schema?: VSchema };
  vAllOf?: VSchema[];
  vAnyOf?: VSchema[];
  vOneOf?: VSchema[];
  vNot?: VSchema;
}

const structuralCache = new WeakMap<Structural, VSchema>();

function fromValueValidation(vv: ValueValidation | undefined, type: string[], nullable: boolean): VSchema {
  const out: VSchema = { ...(vv ?? {}), type, nullable, format: vv?.format && isSupportedFormat(vv.format) ? vv.format : '' };
  if (vv?.allOf) out.vAllOf = vv.allOf.map(fromNested);
  if (vv?.anyOf) out.vAnyOf = vv.anyOf.map(fromNested);
  if (vv?.oneOf) out.vOneOf = vv.oneOf.map(fromNested);
  if (vv?.not) out.vNot = fromNested(vv.not);
  return out;
}

function fromNested(n: NestedValueValidation): VSchema {
  const out = fromValueValidation(n, n.type ? [n.type] : [], n.nullable ?? false);
  if (n.properties) out.properties = Object.entries(n.properties).map(([k, v]) => [k, fromNested(v)]);
  if (n.items) out.items = fromNested(n.items);
  if (n.additionalProperties) out.additionalProperties = { allows: true, schema: fromNested(n.additionalProperties) };
  return out;
}

/** ConvertJSONSchemaProps for a structural schema: int-or-string becomes the type `integer,string`. */
function fromStructural(s: Structural): VSchema {
  const cached = structuralCache.get(s);
  if (cached) return cached;
  const type = s.xIntOrString ? ['integer', 'string'] : s.type ? [s.type] : [];
  const out = fromValueValidation(s.valueValidation, type, s.nullable ?? false);
  if (s.properties) out.properties = Object.entries(s.properties).map(([k, v]) => [k, fromStructural(v)]);
  if (s.items) out.items = fromStructural(s.items);
  if (s.additionalProperties) {
    const ap = s.additionalProperties;
    out.additionalProperties = ap.structural ? { allows: true, schema: fromStructural(ap.structural) } : { allows: ap.bool ?? false };
  }
  structuralCache.set(s, out);
  return out;
}

// ---------------------------------------------------------------------------------------------
// kube-openapi's errors.

type Code = 'type' | 'required' | 'tooLong' | 'tooShort' | 'pattern' | 'enum' | 'multipleOf' | 'max' | 'min' | 'unique' | 'maxItems' | 'minItems' | 'tooFewProperties' | 'tooManyProperties' | 'unallowedProperty' | 'multipleOfMustBePositive';

/** An `*errors.Validation` (name = the value's path, value = what the field error echoes) or a plain composite message. */
type OAError = { code: Code; name: string; value?: unknown; values?: unknown[]; valid?: number; message: string } | { code: 'composite'; message: string };

interface Result {
  errors: OAError[];
  matchCount: number;
}

const newResult = (): Result => ({ errors: [], matchCount: 0 });

function merge(into: Result, r: Result | undefined): void {
  if (!r) return;
  into.errors.push(...r.errors);
  into.matchCount += r.matchCount;
}

const single = (e: OAError): Result => ({ errors: [e], matchCount: 0 });

/** `name in body …`: every message names the value's path and where it is. */
const IN = 'body';

/** Go's `%v` of a float64 (`10`, `1.5`, `1e-05`, `1e+21`). */
export function goFloat(n: number): string {
  if (n !== 0 && Number.isFinite(n) && (Math.abs(n) < 1e-4 || Math.abs(n) >= 1e21)) {
    const [m, e] = n.toExponential().split('e') as [string, string];
    const sign = e.startsWith('-') ? '-' : '+';
    const digits = e.replace(/^[-+]/, '');
    return `${m}e${sign}${digits.padStart(2, '0')}`;
  }
  return String(n);
}

/** How Go decodes a JSON number into `interface{}` in the apiserver: whole numbers as int64, others float64. */
const isInt = (n: number): boolean => Number.isInteger(n);

function invalidType(name: string, typeName: string, value: string): OAError {
  return { code: 'type', name, value, message: `${name} in ${IN} must be of type ${typeName}: ${goQuote(value)}` };
}

// ---------------------------------------------------------------------------------------------
// The validators, in kube-openapi's order.

type Kind = 'string' | 'number' | 'bool' | 'slice' | 'map';

function kindOf(v: unknown): Kind {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? 'slice' : 'map';
}

/** `schemaInfoForType`: the OpenAPI type and format of a decoded JSON value. */
function schemaInfo(v: unknown): [string, string] {
  switch (kindOf(v)) {
    case 'bool':
      return ['boolean', ''];
    case 'string':
      return ['string', ''];
    case 'number':
      return isInt(v as number) ? ['integer', 'int64'] : ['number', 'float64'];
    case 'slice':
      return ['array', ''];
    case 'map':
      return ['object', ''];
  }
}

function typeValidator(s: VSchema, path: string, data: unknown): Result {
  if (data === null) {
    if (s.type.length > 0 && !s.type.includes('null') && !s.nullable) return single(invalidType(path, s.type.join(','), 'null'));
    return { errors: [], matchCount: 1 };
  }
  const kind = kindOf(data);
  const [schType, format] = schemaInfo(data);
  const isFloatInt = schType === 'number' && isInt(data as number) && s.type.includes('integer');
  const isIntFloat = schType === 'integer' && s.type.includes('number');
  if (kind !== 'string' && kind !== 'slice' && s.format !== '' && !(s.type.includes(schType) || format === s.format || isFloatInt || isIntFloat)) {
    return single(invalidType(path, s.format, format));
  }
  if (!(s.type.includes('number') || s.type.includes('integer')) && s.format !== '' && (kind === 'string' || kind === 'slice')) {
    return { errors: [], matchCount: 1 };
  }
  if (!(s.type.includes(schType) || isFloatInt || isIntFloat)) return single(invalidType(path, s.type.join(','), schType));
  return { errors: [], matchCount: 1 };
}

function schemaPropsValidator(s: VSchema, path: string, data: unknown, ctx: Ctx): Result {
  const main = newResult();
  if (s.vAnyOf?.length) {
    let best: Result | undefined;
    let firstSuccess: Result | undefined;
    let succeeded = false;
    for (const sub of s.vAnyOf) {
      const r = validateNode(sub, path, data, undefined, ctx);
      if (r.errors.length === 0) {
        best = undefined;
        succeeded = true;
        firstSuccess ??= r;
        break;
      }
      if (!best || r.matchCount > best.matchCount) best = r;
    }
    if (!succeeded) main.errors.push({ code: 'composite', message: `${goQuote(path)} must validate at least one schema (anyOf)` });
    merge(main, best ?? firstSuccess);
  }
  if (s.vOneOf?.length) {
    let best: Result | undefined;
    let firstSuccess: Result | undefined;
    let validated = 0;
    for (const sub of s.vOneOf) {
      const r = validateNode(sub, path, data, undefined, ctx);
      if (r.errors.length === 0) {
        validated++;
        best = undefined;
        firstSuccess ??= r;
        continue;
      }
      if (validated === 0 && (!best || r.matchCount > best.matchCount)) best = r;
    }
    if (validated !== 1) {
      const more = validated === 0 ? 'Found none valid' : `Found ${validated} valid alternatives`;
      main.errors.push({ code: 'composite', message: `${goQuote(path)} must validate one and only one schema (oneOf). ${more}` });
      merge(main, best);
    } else {
      merge(main, firstSuccess);
    }
  }
  if (s.vAllOf?.length) {
    let validated = 0;
    for (const sub of s.vAllOf) {
      const r = validateNode(sub, path, data, undefined, ctx);
      if (r.errors.length === 0) validated++;
      merge(main, r);
    }
    if (validated !== s.vAllOf.length) {
      main.errors.push({ code: 'composite', message: `${goQuote(path)} must validate all the schemas (allOf)${validated === 0 ? '. None validated' : ''}` });
    }
  }
  if (s.vNot) {
    const r = validateNode(s.vNot, path, data, undefined, ctx);
    if (r.errors.length === 0) main.errors.push({ code: 'composite', message: `${goQuote(path)} must not validate the schema (not)` });
  }
  main.matchCount++;
  return main;
}

const regexCache = new Map<string, RegExp | Error>();

/** A Go (RE2) pattern as a JavaScript regular expression; the error when it does not compile. */
function compilePattern(pattern: string): RegExp | Error {
  let re = regexCache.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(pattern, 'u');
    } catch (e) {
      re = e instanceof Error ? e : new Error(String(e));
    }
    regexCache.set(pattern, re);
  }
  return re;
}

function stringValidator(s: VSchema, path: string, data: string): Result | undefined {
  // kube-openapi counts runes (utf8.RuneCount), i.e. code points.
  const len = Array.from(data).length;
  if (s.maxLength !== undefined && len > s.maxLength) {
    return single({ code: 'tooLong', name: path, value: data, valid: s.maxLength, message: `${path} in ${IN} should be at most ${s.maxLength} chars long` });
  }
  if (s.minLength !== undefined && len < s.minLength) {
    return single({ code: 'tooShort', name: path, value: data, valid: s.minLength, message: `${path} in ${IN} should be at least ${s.minLength} chars long` });
  }
  if (s.pattern) {
    const re = compilePattern(s.pattern);
    if (re instanceof Error) {
      return single({ code: 'pattern', name: path, value: data, message: `${path} in ${IN} should match '${s.pattern}, but pattern is invalid: ${re.message}'` });
    }
    if (!re.test(data)) return single({ code: 'pattern', name: path, value: data, message: `${path} in ${IN} should match '${s.pattern}'` });
  }
  return undefined;
}

function formatValidator(s: VSchema, path: string, data: string): Result | undefined {
  if (checkFormat(s.format, data)) return undefined;
  return single(invalidType(path, s.format, data));
}

/** swag.IsFloat64AJSONInteger: a whole number, up to a relative error of 1e-9. */
function isFloatAJSONInteger(f: number): boolean {
  if (!Number.isFinite(f)) return false;
  if (Number.isInteger(f)) return true;
  const g = Math.trunc(f);
  return Math.abs(f - g) / (Math.abs(f) + Math.abs(g)) < 1e-9;
}

function numberValidator(s: VSchema, path: string, data: number): Result {
  const res = newResult();
  const int = isInt(data);
  const multiple = newResult();
  const minimum = newResult();
  const maximum = newResult();
  if (s.multipleOf !== undefined) {
    const factor = int ? Math.trunc(s.multipleOf) : s.multipleOf;
    if (factor <= 0) {
      multiple.errors.push({ code: 'multipleOfMustBePositive', name: path, value: factor, message: `factor MultipleOf declared for ${path} must be positive: ${goFloat(factor)}` });
    } else {
      const ok = int ? data % factor === 0 : isFloatAJSONInteger(factor < 1 ? (1 / factor) * data : data / factor);
      if (!ok) multiple.errors.push({ code: 'multipleOf', name: path, value: data, message: `${path} in ${IN} should be a multiple of ${goFloat(factor)}` });
    }
  }
  if (s.maximum !== undefined) {
    const max = int ? Math.trunc(s.maximum) : s.maximum;
    const excl = s.exclusiveMaximum === true;
    if ((!excl && data > max) || (excl && data >= max)) {
      maximum.errors.push({ code: 'max', name: path, value: data, message: `${path} in ${IN} should be less than${excl ? '' : ' or equal to'} ${goFloat(max)}` });
    }
  }
  if (s.minimum !== undefined) {
    const min = int ? Math.trunc(s.minimum) : s.minimum;
    const excl = s.exclusiveMinimum === true;
    if ((!excl && data < min) || (excl && data <= min)) {
      minimum.errors.push({ code: 'min', name: path, value: data, message: `${path} in ${IN} should be greater than${excl ? '' : ' or equal to'} ${goFloat(min)}` });
    }
  }
  merge(res, multiple);
  merge(res, minimum);
  merge(res, maximum);
  res.matchCount++;
  return res;
}

/** reflect.DeepEqual of two decoded JSON values. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isJSONObject(a) && isJSONObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

function sliceValidator(s: VSchema, path: string, data: unknown[], corr: Corr | undefined, ctx: Ctx): Result {
  const res = newResult();
  if (s.items) {
    const items = s.items;
    data.forEach((v, i) => merge(res, validateNode(items, `${path}[${i}]`, v, corr?.index(i, v), ctx)));
  }
  if (s.minItems !== undefined && data.length < s.minItems) {
    res.errors.push({ code: 'minItems', name: path, value: data.length, valid: s.minItems, message: `${path} in ${IN} should have at least ${s.minItems} items` });
  }
  if (s.maxItems !== undefined && data.length > s.maxItems) {
    res.errors.push({ code: 'maxItems', name: path, value: data.length, valid: s.maxItems, message: `${path} in ${IN} should have at most ${s.maxItems} items` });
  }
  if (s.uniqueItems && data.some((v, i) => data.slice(0, i).some((u) => jsonEqual(u, v)))) {
    res.errors.push({ code: 'unique', name: path, message: `${path} in ${IN} shouldn't contain duplicates` });
  }
  res.matchCount++;
  return res;
}

/** Go's `%v` of the enum values (`[small large]`), for the message kube-openapi builds. */
function goValues(values: unknown[]): string {
  return `[${values.map((v) => (typeof v === 'string' ? v : typeof v === 'number' ? goFloat(v) : goJSONRepr(v))).join(' ')}]`;
}

function commonValidator(s: VSchema, path: string, data: unknown): Result | undefined {
  if (!s.enum?.length) return undefined;
  if (data !== null && s.enum.some((e) => e !== null && jsonEqual(data, e))) return undefined;
  return single({ code: 'enum', name: path, value: data, values: s.enum, message: `${path} in ${IN} should be one of ${goValues(s.enum)}` });
}

function objectValidator(s: VSchema, path: string, data: Record<string, unknown>, corr: Corr | undefined, ctx: Ctx): Result {
  const res = newResult();
  const keys = Object.keys(data);
  if (s.minProperties !== undefined && keys.length < s.minProperties) {
    res.errors.push({ code: 'tooFewProperties', name: path, value: keys.length, valid: s.minProperties, message: `${path} in ${IN} should have at least ${s.minProperties} properties` });
  }
  if (s.maxProperties !== undefined && keys.length > s.maxProperties) {
    res.errors.push({ code: 'tooManyProperties', name: path, value: keys.length, valid: s.maxProperties, message: `${path} in ${IN} should have at most ${s.maxProperties} properties` });
  }
  const props = new Map(s.properties ?? []);
  if (s.additionalProperties && !s.additionalProperties.allows) {
    for (const k of keys) {
      if (!props.has(k)) res.errors.push({ code: 'unallowedProperty', name: path, value: k, message: `${path}.${k} in ${IN} is a forbidden property` });
    }
  } else if (s.additionalProperties?.schema) {
    const ap = s.additionalProperties.schema;
    for (const k of keys) if (!props.has(k)) merge(res, validateNode(ap, `${path}.${k}`, data[k], corr?.key(k, data[k]), ctx));
  }
  for (const [name, sub] of props) {
    if (!Object.hasOwn(data, name)) continue;
    merge(res, validateNode(sub, path ? `${path}.${name}` : name, data[name], corr?.key(name, data[name]), ctx));
  }
  for (const k of s.required ?? []) {
    if (!Object.hasOwn(data, k)) res.errors.push({ code: 'required', name: `${path}.${k}`, message: `${path}.${k} in ${IN} is required` });
  }
  return res;
}

// ---------------------------------------------------------------------------------------------
// Ratcheting (pkg/apiserver/validation/ratcheting.go, apiserver's common.CorrelatedObject).

/** The old value correlated with a new one: through object fields and the keys of `map` lists. */
interface Corr {
  old: unknown;
  key(k: string, v: unknown): Corr | undefined;
  index(i: number, v: unknown): Corr | undefined;
}

function correlate(old: unknown, s: VSchemaLink | undefined): Corr {
  return {
    old,
    key: (k) => {
      if (!isJSONObject(old) || !Object.hasOwn(old, k)) return undefined;
      return correlate(old[k], s?.field(k));
    },
    index: (_i, v) => {
      // Only list-type map items correlate (by their keys); set and atomic lists do not.
      if (!Array.isArray(old) || s?.listType !== 'map' || !isJSONObject(v)) return undefined;
      const keys = s.listMapKeys;
      const match: unknown = old.find((o: unknown) => isJSONObject(o) && keys.every((k) => jsonEqual(o[k], v[k])));
      return match === undefined ? undefined : correlate(match, s.items());
    },
  };
}

/** The structural schema alongside the walk, for the list types correlation needs. */
interface VSchemaLink {
  listType?: string;
  listMapKeys: string[];
  field(k: string): VSchemaLink | undefined;
  items(): VSchemaLink | undefined;
}

function link(s: Structural | undefined): VSchemaLink | undefined {
  if (!s) return undefined;
  return {
    listType: s.xListType,
    listMapKeys: s.xListMapKeys ?? [],
    field: (k) => link(propertyOf(s, k) ?? s.additionalProperties?.structural),
    items: () => link(s.items),
  };
}

interface Ctx {
  ratcheting: boolean;
}

/** `SchemaValidator.Validate` of one value (and, when ratcheting, its correlated old value). */
function validateNode(s: VSchema, path: string, data: unknown, corr: Corr | undefined, ctx: Ctx): Result {
  const res = newResult();
  if (data === null || data === undefined) {
    if (s.type.length > 0 || s.format !== '') merge(res, typeValidator(s, path, null));
    merge(res, commonValidator(s, path, null));
  } else {
    const kind = kindOf(data);
    const run = (r: Result | undefined): void => {
      merge(res, r);
      res.matchCount++;
    };
    if (s.type.length > 0 || s.format !== '') run(typeValidator(s, path, data));
    run(schemaPropsValidator(s, path, data, ctx));
    if (kind === 'string') run(stringValidator(s, path, data as string));
    if (kind === 'string' && s.format !== '') run(formatValidator(s, path, data as string));
    if (kind === 'number') run(numberValidator(s, path, data as number));
    if (kind === 'slice') run(sliceValidator(s, path, data as unknown[], corr, ctx));
    run(commonValidator(s, path, data));
    if (kind === 'map') run(objectValidator(s, path, data as Record<string, unknown>, corr, ctx));
    res.matchCount++;
  }
  if (ctx.ratcheting && corr !== undefined && res.errors.length > 0 && jsonEqual(data, corr.old)) {
    return { errors: [], matchCount: res.matchCount };
  }
  return res;
}

// ---------------------------------------------------------------------------------------------
// kubeOpenAPIResultToFieldErrors.

function childPath(base: string | undefined, name: string): string {
  if (base === undefined) return name;
  return `${base}.${name}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function toFieldError(e: OAError, base: string | undefined): FieldError {
  const root = base ?? NIL_PATH;
  if (e.code === 'composite') return { type: 'FieldValueInvalid', field: root, badValue: '', detail: e.message };
  const name = e.name.startsWith('.') ? e.name.slice(1) : e.name;
  const path = name.length > 0 ? childPath(base, name) : root;
  const value = e.value === undefined || e.value === null ? '' : goBadValue(e.value);
  switch (e.code) {
    case 'required':
      return { type: 'FieldValueRequired', field: path, badValue: '', detail: '' };
    case 'enum': {
      const values = (e.values ?? []).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
      return { type: 'FieldValueNotSupported', field: path, badValue: value, detail: values.length ? `supported values: ${values.map(goQuote).join(', ')}` : '' };
    }
    case 'tooLong': {
      const max = e.valid ?? -1;
      return { type: 'FieldValueTooLong', field: path, badValue: '', detail: max >= 0 ? `may not be more than ${plural(max, 'byte')}` : 'value is too long' };
    }
    case 'maxItems':
    case 'tooManyProperties': {
      const max = e.valid ?? -1;
      return { type: 'FieldValueTooMany', field: path, badValue: e.value, detail: max >= 0 ? `must have at most ${plural(max, 'item')}` : 'has too many items' };
    }
    case 'type':
      return { type: 'FieldValueTypeInvalid', field: path, badValue: value, detail: e.message };
    case 'tooShort':
    case 'pattern':
    case 'multipleOf':
    case 'multipleOfMustBePositive':
    case 'max':
    case 'min':
    case 'unique':
    case 'minItems':
    case 'tooFewProperties':
    case 'unallowedProperty':
      return { type: 'FieldValueInvalid', field: path, badValue: value, detail: e.message };
  }
}

/** Options of {@link validateOpenAPI}. */
export interface OpenAPIValidationOptions {
  /** Field path the errors are under (upstream's fldPath); undefined for the whole object (`nil`). */
  basePath?: string;
  /** The old value, for ratcheting on update: errors of unchanged values are dropped. */
  old?: unknown;
}

/**
 * `ValidateCustomResource` / `ValidateCustomResourceUpdate` (with CRDValidationRatcheting, on by
 * default in 1.33): validates `value` against the schema and returns upstream's field errors, e.g.
 * `spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`,
 * `spec.size: Unsupported value: "huge": supported values: "small", "large"`, `spec: Required value`;
 * errors of `anyOf`/`oneOf`/`allOf`/`not` are reported at `<nil>` (upstream's nil field path).
 */
export function validateOpenAPI(value: unknown, s: Structural, opts: OpenAPIValidationOptions = {}): FieldError[] {
  const ratcheting = Object.hasOwn(opts, 'old');
  const corr = ratcheting ? correlate(opts.old, link(s)) : undefined;
  const r = validateNode(fromStructural(s), '', value, corr, { ratcheting });
  return r.errors.map((e) => toFieldError(e, opts.basePath));
}

