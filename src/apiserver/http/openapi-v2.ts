/**
 * OpenAPI v2 (`GET /openapi/v2`): one Swagger 2.0 document of every served path and definition, as
 * kube-apiserver serves it (k8s.io/kube-openapi/pkg/handler/handler.go), in JSON or in the protobuf
 * form of github.com/google/gnostic-models openapiv2/OpenAPIv2.proto. kubectl asks for the protobuf
 * form only (`Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`): for `kubectl
 * explain --output=plaintext-openapiv2`, `explain` of kubectl 1.27 and client-side validation where a
 * server's v3 documents say nothing of `fieldValidation`.
 *
 * The document is derived from the v3 documents (openapi.ts), so both always say the same: v3's
 * `components.schemas` become `definitions`; a reference `{allOf: [{$ref}], default: {}}` becomes
 * `{$ref}` (v2 has no siblings of `$ref` but the description); a parameter's `schema` is flattened
 * into it; a `requestBody` becomes the `body` parameter and `consumes`; response contents become
 * `schema` and `produces`.
 */
import { WireWriter } from '../../api/proto/index.js';

type Json = Record<string, unknown>;

const V3_REF = '#/components/schemas/';
const V2_REF = '#/definitions/';
const OPERATIONS = ['get', 'put', 'post', 'delete', 'patch'] as const;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A v3 schema as v2 writes it (recursively): refs to `#/definitions/`, `allOf` of one ref unwrapped. */
function swaggerSchema(s: Json): Json {
  const out: Json = {};
  const allOf = s['allOf'];
  const single = Array.isArray(allOf) && allOf.length === 1 && isObject(allOf[0]) ? allOf[0] : undefined;
  for (const [k, v] of Object.entries(s)) {
    if (k === 'allOf' && single) {
      out['$ref'] = String(single['$ref']).replace(V3_REF, V2_REF);
    } else if (k === 'default' && single) {
      // `default: {}` beside a struct reference is v3's note that Go always has a value there.
    } else if (k === '$ref') {
      out[k] = String(v).replace(V3_REF, V2_REF);
    } else if (k === 'properties' && isObject(v)) {
      out[k] = Object.fromEntries(Object.entries(v).map(([name, p]) => [name, swaggerSchema(p as Json)]));
    } else if ((k === 'items' || k === 'additionalProperties') && isObject(v)) {
      out[k] = swaggerSchema(v);
    } else {
      out[k] = v;
    }
  }
  return out;
}

/** A v3 parameter as v2 writes it: the type facts of its `schema` on the parameter itself. */
function swaggerParameter(p: Json): Json {
  const { schema, ...rest } = p;
  return { ...rest, ...(isObject(schema) ? schema : {}) };
}

/** The first schema of a v3 `content` map (`{"application/json": {schema}}`). */
function contentSchema(content: unknown): Json | undefined {
  const first = isObject(content) ? Object.values(content)[0] : undefined;
  return isObject(first) && isObject(first['schema']) ? swaggerSchema(first['schema']) : undefined;
}

function swaggerOperation(op: Json): Json {
  const { requestBody, responses, parameters, ...rest } = op;
  const out: Json = { ...rest };
  const params = Array.isArray(parameters) ? parameters.map((p) => swaggerParameter(p as Json)) : [];
  if (isObject(requestBody)) {
    out['consumes'] = Object.keys(requestBody['content'] as Json);
    params.unshift({ name: 'body', in: 'body', required: true, schema: contentSchema(requestBody['content']) });
  }
  out['parameters'] = params;
  const produces = new Set<string>();
  const v2responses: Json = {};
  for (const [code, r] of Object.entries((responses ?? {}) as Record<string, Json>)) {
    const schema = contentSchema(r['content']);
    if (isObject(r['content'])) for (const t of Object.keys(r['content'])) produces.add(t);
    v2responses[code] = schema ? { description: r['description'], schema } : { description: r['description'] };
  }
  out['produces'] = [...produces];
  out['schemes'] = ['https'];
  out['responses'] = v2responses;
  return out;
}

/**
 * The Swagger 2.0 document of all `v3` group/version documents: their paths and schemas together
 * (a schema several documents share is written once). `v2Forms` are the definitions whose v2 form is
 * not their v3 form (kube-openapi's EmbedOpenAPIDefinitionIntoV2Extension: IntOrString's v3 `oneOf`
 * is a `type: string` in v2); they keep their v3 description.
 */
export function swaggerFromV3(v3: readonly Json[], v2Forms: Readonly<Record<string, Json>> = {}): Json {
  const paths: Json = {};
  const definitions: Json = {};
  for (const doc of v3) {
    for (const [path, item] of Object.entries(doc['paths'] as Record<string, Json>)) {
      const v2item: Json = {};
      for (const [k, v] of Object.entries(item)) {
        if ((OPERATIONS as readonly string[]).includes(k)) v2item[k] = swaggerOperation(v as Json);
        else if (k === 'parameters') v2item[k] = (v as Json[]).map(swaggerParameter);
        else v2item[k] = v;
      }
      paths[path] = v2item;
    }
    for (const [name, s] of Object.entries((doc['components'] as { schemas: Record<string, Json> }).schemas)) {
      const form = v2Forms[name];
      definitions[name] ??= form ? { ...form, ...(s['description'] === undefined ? {} : { description: s['description'] }) } : swaggerSchema(s);
    }
  }
  return { swagger: '2.0', info: { title: 'Kubernetes', version: 'v1.33.0' }, paths, definitions };
}

// ——— gnostic protobuf (openapiv2/OpenAPIv2.proto); field numbers as there ———

/** `Any {string yaml = 2}`: gnostic keeps free-form values as YAML text; JSON is YAML. */
function any(v: unknown): WireWriter {
  return new WireWriter().bytes(2, JSON.stringify(v));
}

/** The `x-…` members of `o` as `repeated NamedAny vendor_extension = <field>`. */
function vendorExtensions(w: WireWriter, field: number, o: Json): void {
  for (const [k, v] of Object.entries(o)) if (k.startsWith('x-')) w.bytes(field, new WireWriter().bytes(1, k).bytes(2, any(v)));
}

function str(w: WireWriter, field: number, v: unknown): void {
  if (typeof v === 'string' && v !== '') w.bytes(field, v);
}

function strings(w: WireWriter, field: number, v: unknown): void {
  if (Array.isArray(v)) for (const s of v) w.bytes(field, String(s));
}

/** `repeated Named<X> additional_properties = 1` of a JSON map (Properties, Definitions). */
function named(map: Json, each: (v: Json) => WireWriter): WireWriter {
  const w = new WireWriter();
  for (const [name, v] of Object.entries(map)) w.bytes(1, new WireWriter().bytes(1, name).bytes(2, each(v as Json)));
  return w;
}

/** Schema: _ref 1, format 2, description 4, default 5, unique_items 16, required 19, enum 20, additional_properties 21, type 22, items 23, properties 25, vendor_extension 31. */
function schemaMessage(s: Json): WireWriter {
  const w = new WireWriter();
  str(w, 1, s['$ref']);
  str(w, 2, s['format']);
  str(w, 4, s['description']);
  if (s['default'] !== undefined) w.bytes(5, any(s['default']));
  if (s['uniqueItems'] === true) w.int(16, true);
  strings(w, 19, s['required']);
  if (Array.isArray(s['enum'])) for (const e of s['enum']) w.bytes(20, any(e));
  const ap = s['additionalProperties'];
  // AdditionalPropertiesItem: schema 1 | boolean 2.
  if (isObject(ap)) w.bytes(21, new WireWriter().bytes(1, schemaMessage(ap)));
  else if (typeof ap === 'boolean') w.bytes(21, new WireWriter().int(2, ap));
  // TypeItem: repeated string value 1.
  if (typeof s['type'] === 'string') w.bytes(22, new WireWriter().bytes(1, s['type']));
  // ItemsItem: repeated Schema schema 1.
  if (isObject(s['items'])) w.bytes(23, new WireWriter().bytes(1, schemaMessage(s['items'])));
  if (isObject(s['properties'])) w.bytes(25, named(s['properties'], schemaMessage));
  vendorExtensions(w, 31, s);
  return w;
}

/**
 * ParametersItem {Parameter parameter = 1}: Parameter {BodyParameter body_parameter = 1 |
 * NonBodyParameter non_body_parameter = 2}; NonBodyParameter {query_parameter_sub_schema = 3 |
 * path_parameter_sub_schema = 4}. BodyParameter: description 1, name 2, in 3, required 4, schema 5.
 * Query: required 1, in 2, description 3, name 4, type 6, unique_items 20; Path: the same with type 5,
 * unique_items 19.
 */
function parameterItem(p: Json): WireWriter {
  let parameter: WireWriter;
  if (p['in'] === 'body') {
    const body = new WireWriter();
    str(body, 1, p['description']);
    str(body, 2, p['name']);
    str(body, 3, p['in']);
    if (p['required'] === true) body.int(4, true);
    if (isObject(p['schema'])) body.bytes(5, schemaMessage(p['schema']));
    parameter = new WireWriter().bytes(1, body);
  } else {
    const path = p['in'] === 'path';
    const sub = new WireWriter();
    if (p['required'] === true) sub.int(1, true);
    str(sub, 2, p['in']);
    str(sub, 3, p['description']);
    str(sub, 4, p['name']);
    str(sub, path ? 5 : 6, p['type']);
    if (p['uniqueItems'] === true) sub.int(path ? 19 : 20, true);
    parameter = new WireWriter().bytes(2, new WireWriter().bytes(path ? 4 : 3, sub));
  }
  return new WireWriter().bytes(1, parameter);
}

/**
 * Operation: tags 1, operation_id 5, produces 6, consumes 7, parameters 8, responses 9, schemes 10,
 * vendor_extension 13. Responses {repeated NamedResponseValue response_code = 1}; ResponseValue
 * {Response response = 1}; Response {description 1, SchemaItem schema 2}; SchemaItem {Schema schema = 1}.
 */
function operationMessage(op: Json): WireWriter {
  const w = new WireWriter();
  strings(w, 1, op['tags']);
  str(w, 5, op['operationId']);
  strings(w, 6, op['produces']);
  strings(w, 7, op['consumes']);
  for (const p of (op['parameters'] ?? []) as Json[]) w.bytes(8, parameterItem(p));
  const responses = new WireWriter();
  for (const [code, r] of Object.entries((op['responses'] ?? {}) as Record<string, Json>)) {
    const response = new WireWriter();
    str(response, 1, r['description']);
    if (isObject(r['schema'])) response.bytes(2, new WireWriter().bytes(1, schemaMessage(r['schema'])));
    responses.bytes(1, new WireWriter().bytes(1, code).bytes(2, new WireWriter().bytes(1, response)));
  }
  w.bytes(9, responses);
  strings(w, 10, op['schemes']);
  vendorExtensions(w, 13, op);
  return w;
}

/** PathItem: get 2, put 3, post 4, delete 5, patch 8, parameters 9. */
const PATH_ITEM_FIELDS: Record<(typeof OPERATIONS)[number], number> = { get: 2, put: 3, post: 4, delete: 5, patch: 8 };

function pathItemMessage(item: Json): WireWriter {
  const w = new WireWriter();
  for (const op of OPERATIONS) if (isObject(item[op])) w.bytes(PATH_ITEM_FIELDS[op], operationMessage(item[op]));
  for (const p of (item['parameters'] ?? []) as Json[]) w.bytes(9, parameterItem(p));
  return w;
}

/**
 * The gnostic protobuf encoding of a {@link swaggerFromV3} document (what kube-openapi's
 * `ToProtoBinary` makes of the JSON): Document {swagger 1, Info info 2 (title 1, version 2), Paths
 * paths 8 (repeated NamedPathItem path = 2), Definitions definitions 9}.
 */
export function swaggerProto(doc: Json): Uint8Array {
  const info = doc['info'] as Json;
  const paths = new WireWriter();
  for (const [path, item] of Object.entries(doc['paths'] as Record<string, Json>)) paths.bytes(2, new WireWriter().bytes(1, path).bytes(2, pathItemMessage(item)));
  return new WireWriter()
    .bytes(1, String(doc['swagger']))
    .bytes(2, new WireWriter().bytes(1, String(info['title'])).bytes(2, String(info['version'])))
    .bytes(8, paths)
    .bytes(9, named(doc['definitions'] as Json, schemaMessage))
    .finish();
}
