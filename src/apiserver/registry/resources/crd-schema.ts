/**
 * Reading a CustomResourceDefinition's `openAPIV3Schema` as decoded (apiextensions/v1 JSONSchemaProps,
 * whose `items`, `additionalProperties`, `default`, `enum` … the typed decoder lets through as any
 * JSON), and the walks both the schema validation and the selectable-field checks need: upstream's
 * `NewStructural` conversion errors (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/convert.go),
 * `SchemaHas` (pkg/apis/apiextensions/validation/validation.go) and `ValidFieldPath`
 * (pkg/apiserver/schema/cel/validation.go).
 */

/** A JSON schema node; any field may hold any JSON value. */
export type JSONSchema = Record<string, unknown>;

/** True for a JSON object (not an array, not null). */
export function isObject(v: unknown): v is JSONSchema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The string at `key`, or `''`. */
export function text(s: JSONSchema, key: string): string {
  const v = s[key];
  return typeof v === 'string' ? v : '';
}

/** True when `key` holds `true`. */
export function flag(s: JSONSchema, key: string): boolean {
  return s[key] === true;
}

/** True when `key` is set (a Go pointer that is not nil). */
export function has(s: JSONSchema, key: string): boolean {
  return s[key] !== undefined && s[key] !== null;
}

/** The strings of the list at `key`. */
export function strings(s: JSONSchema, key: string): string[] {
  const v = s[key];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** The schemas of a list such as `allOf` (a `null` member decodes as the empty schema). */
export function schemaList(v: unknown): JSONSchema[] {
  return Array.isArray(v) ? v.map((x) => (isObject(x) ? x : {})) : [];
}

/** The named schemas of a map such as `properties`, in the document's order. */
export function schemaMap(v: unknown): [string, JSONSchema][] {
  return isObject(v) ? Object.entries(v).map(([k, x]) => [k, isObject(x) ? x : {}]) : [];
}

/** Number of entries of a map field (`definitions`, `dependencies` …). */
export function mapSize(v: unknown): number {
  return isObject(v) ? Object.keys(v).length : 0;
}

/**
 * `items` (JSONSchemaPropsOrArray): a schema, a list of schemas, or neither — upstream decodes any other
 * value as an empty JSONSchemaPropsOrArray, which is set but holds nothing. Undefined when absent.
 */
export function itemsOf(s: JSONSchema): { schema?: JSONSchema; array: JSONSchema[] } | undefined {
  const v = s['items'];
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) return { array: schemaList(v) };
  return isObject(v) ? { schema: v, array: [] } : { array: [] };
}

/** `additionalProperties` (JSONSchemaPropsOrBool): `true`, `false` or a schema (which allows). Undefined when absent. */
export function additionalPropertiesOf(s: JSONSchema): { allows: boolean; schema?: JSONSchema } | undefined {
  const v = s['additionalProperties'];
  if (v === undefined || v === null) return undefined;
  if (isObject(v)) return { allows: true, schema: v };
  return { allows: v === true };
}

/** The first of `validateUnsupportedFields`' errors: fields NewStructural cannot represent. */
function unsupportedField(s: JSONSchema): string | undefined {
  if (text(s, 'id')) return "OpenAPIV3Schema 'id' is not supported";
  if (text(s, '$schema')) return "OpenAPIV3Schema 'schema' is not supported";
  if (text(s, '$ref')) return "OpenAPIV3Schema '$ref' is not supported";
  if (mapSize(s['patternProperties']) > 0) return "OpenAPIV3Schema 'patternProperties' is not supported";
  if (mapSize(s['dependencies']) > 0) return "OpenAPIV3Schema 'dependencies' is not supported";
  if (has(s, 'additionalItems')) return "OpenAPIV3Schema 'additionalItems' is not supported";
  if (mapSize(s['definitions']) > 0) return "OpenAPIV3Schema 'definitions' is not supported";
  return undefined;
}

/**
 * The error `NewStructural(s)` returns, or undefined when `s` converts to a structural schema:
 * unsupported fields, `x-kubernetes-preserve-unknown-fields: false`, `items` as a list, checked in
 * upstream's order (not, allOf, anyOf, oneOf, then items, properties, additionalProperties).
 */
export function structuralConversionError(s: JSONSchema): string | undefined {
  const unsupported = unsupportedField(s);
  if (unsupported) return unsupported;
  const junctors = [...(isObject(s['not']) ? [s['not']] : []), ...schemaList(s['allOf']), ...schemaList(s['anyOf']), ...schemaList(s['oneOf'])];
  for (const j of junctors) {
    const err = structuralConversionError(j);
    if (err) return err;
  }
  if (s['x-kubernetes-preserve-unknown-fields'] === false) return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined";
  const items = itemsOf(s);
  if (items && items.array.length > 0) return "OpenAPIV3Schema 'items' must be a schema, but is an array";
  const children = [...(items?.schema ? [items.schema] : []), ...schemaMap(s['properties']).map(([, p]) => p)];
  const additional = additionalPropertiesOf(s)?.schema;
  if (additional) children.push(additional);
  for (const c of children) {
    const err = structuralConversionError(c);
    if (err) return err;
  }
  return undefined;
}

/** `SchemaHas`: true when `pred` holds for `s` or any schema nested in it. */
export function schemaHas(s: JSONSchema, pred: (s: JSONSchema) => boolean): boolean {
  if (pred(s)) return true;
  const items = itemsOf(s);
  const nested = [
    ...(items?.schema ? [items.schema] : []),
    ...(items?.array ?? []),
    ...schemaList(s['allOf']),
    ...schemaList(s['anyOf']),
    ...schemaList(s['oneOf']),
    ...(isObject(s['not']) ? [s['not']] : []),
    ...schemaMap(s['properties']).map(([, p]) => p),
    ...[additionalPropertiesOf(s)?.schema, isObject(s['additionalItems']) ? s['additionalItems'] : undefined].filter(isObject),
    ...schemaMap(s['patternProperties']).map(([, p]) => p),
    ...schemaMap(s['definitions']).map(([, p]) => p),
    ...(isObject(s['dependencies']) ? Object.values(s['dependencies']).filter(isObject) : []),
  ];
  return nested.some((n) => schemaHas(n, pred));
}

/** One step of a field path: a field (`.spec`) or a map key (`[k]`). */
type PathStep = { child: string } | { key: string };

/** A resolved field path: its steps (for `Root()` and `String()`) and the schema it leads to. */
export interface FieldPathMatch {
  /** `field.Path.String()` of the path: `spec.color`, `spec.labels[a]`. */
  path: string;
  /** The first step's name (`field.Path.Root()`). */
  root: string;
  /** The schema found at the end (undefined past an `additionalProperties: true`). */
  schema: JSONSchema | undefined;
}

/** The tokens of a JSON path: `.`, `[`, `]` on their own, single-quoted strings, identifiers. */
function pathTokens(jsonPath: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < jsonPath.length) {
    const c = jsonPath[i] as string;
    if (c === '.' || c === '[' || c === ']') {
      out.push(c);
      i++;
      continue;
    }
    let j = i + 1;
    if (c === "'") {
      while (j < jsonPath.length && !(jsonPath[j] === "'" && jsonPath[j - 1] !== '\\')) j++;
      j = Math.min(j + 1, jsonPath.length);
    } else {
      while (j < jsonPath.length && !'.[]'.includes(jsonPath[j] as string)) j++;
    }
    out.push(jsonPath.slice(i, j));
    i = j;
  }
  return out;
}

const SINGLE_QUOTE_ESCAPES: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', "'": "'", '\\': '\\' };

/** `unescapeSingleQuote`: `\'`, `\\` and the C escapes; anything else is an error. */
function unescapeSingleQuote(s: string): string | Error {
  let bad: string | undefined;
  const out = s.replace(/\\[\s\S]/g, (m) => {
    const r = SINGLE_QUOTE_ESCAPES[m[1] as string];
    if (r === undefined) bad ??= m;
    return r ?? '';
  });
  return bad === undefined ? out : new Error(`invalid escape char ${bad}`);
}

/**
 * `ValidFieldPath`: resolves a JSON path such as `.spec.color` or `.spec.labels['a.b']` against a
 * structural schema; an Error with upstream's message (`does not refer to a valid field`, `array
 * notation is not allowed`, `expected [ or . but got: x` …) when it does not resolve.
 */
export function validFieldPath(jsonPath: string, root: JSONSchema, allowArrayNotation = true): FieldPathMatch | Error {
  const tokens = pathTokens(jsonPath);
  const steps: PathStep[] = [];
  let schema: JSONSchema | undefined = root;
  const append = (name: string): Error | undefined => {
    const props = schema ? schemaMap(schema['properties']) : [];
    const additional = schema ? additionalPropertiesOf(schema) : undefined;
    if (props.length > 0) {
      const found = props.find(([k]) => k === name);
      if (!found) return new Error('does not refer to a valid field');
      steps.push({ child: name });
      schema = found[1];
    } else if (additional) {
      steps.push({ key: name });
      schema = additional.schema;
    } else return new Error('does not refer to a valid field');
    return undefined;
  };
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i] as string;
    const next = tokens[i + 1];
    if (tok === '.') {
      if (next === undefined) return new Error('unexpected end of JSON path');
      const err = append(next);
      if (err) return err;
      i++;
    } else if (tok === '[') {
      if (!allowArrayNotation) return new Error('array notation is not allowed');
      if (next === undefined) return new Error('unexpected end of JSON path');
      if (next.length < 2 || !next.startsWith("'") || !next.endsWith("'")) return new Error(`expected single quoted string but got ${next}`);
      const name = unescapeSingleQuote(next.slice(1, -1));
      if (name instanceof Error) return new Error(`invalid string literal: ${name.message}`);
      const err = append(name);
      if (err) return err;
      const close = tokens[i + 2];
      if (close === undefined) return new Error('unexpected end of JSON path');
      if (close !== ']') return new Error(`expected ] but got ${close}`);
      i += 2;
    } else return new Error(`expected [ or . but got: ${tok}`);
  }
  const first = steps[0];
  return {
    path: steps.map((s, i) => ('child' in s ? `${i === 0 ? '' : '.'}${s.child}` : `[${s.key}]`)).join(''),
    root: first === undefined ? '<nil>' : 'child' in first ? first.child : `[${first.key}]`,
    schema,
  };
}
