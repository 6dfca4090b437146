/**
 * OpenAPI v3 (k8s.io/kube-openapi/pkg/handler3, k8s.io/apiserver/pkg/endpoints/openapi):
 * - `GET /openapi/v3`: `{"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=<HASH>"},…}}`,
 *   the hash being the SHA-512 of the document (uppercase hex), so it changes whenever the document
 *   does (kubectl's HTTP cache keys on it);
 * - `GET /openapi/v3/api/v1`, `/openapi/v3/apis/<g>/<v>`: one document per group/version whose paths
 *   carry every served operation with `x-kubernetes-action` and `x-kubernetes-group-version-kind`.
 *   The `fieldValidation` query parameter on PATCH operations is what kubectl's
 *   cli-runtime/pkg/resource/query_param_verifier_v3.go looks for before sending `fieldValidation=Strict`
 *   (otherwise `apply`/`create` fail under the default `--validate=strict`). `components.schemas`
 *   come from the {@link SchemaSource}, named as upstream names them (`io.k8s.api.apps.v1.Deployment`;
 *   kubectl explain shows the last dot-separated part), with upstream's descriptions, `required`,
 *   `enum` and `default` (`kubectl explain`), strategic-merge metadata for `kubectl apply`
 *   (`x-kubernetes-patch-strategy` / `x-kubernetes-patch-merge-key`) and server-side apply's
 *   `x-kubernetes-list-type`, `x-kubernetes-list-map-keys` and `x-kubernetes-map-type`, as
 *   kube-openapi's generator emits them (pkg/generators/openapi.go).
 * Documents are built once per set of served resources and cached as serialized text. The one
 * `/openapi/v2` document is derived from them (openapi-v2.ts) when first asked for.
 */
import { createHash } from 'node:crypto';
import type { ResourceStrategy, SubresourceInfo } from '../registry/strategy.js';
import { swaggerFromV3, swaggerProto } from './openapi-v2.js';
import type { GroupVersionEntry, ResourceIndex } from './resource-index.js';
import type { SchemaDescriptions, SchemaField, SchemaSource } from './types.js';

/** The request media types of a built-in kind's PATCH, as kube-apiserver's OpenAPI lists them. */
const PATCH_REQUEST_TYPES: readonly string[] = ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'];

/** A serialized document and its hash. */
export interface OpenApiDocument {
  text: string;
  hash: string;
}

/** The OpenAPI v2 document (openapi-v2.ts) in both of its encodings, and their ETag. */
export interface OpenApiV2Document {
  json: string;
  /** gnostic's protobuf encoding. */
  proto: Uint8Array;
  /** SHA-512 of the JSON (uppercase hex), as kube-openapi's handler computes it for both encodings. */
  etag: string;
}

/** The served OpenAPI v3 documents, keyed by path (`api/v1`, `apis/apps/v1`), and the v2 document. */
export interface OpenApiDocuments {
  /** Serialized `/openapi/v3` root. */
  rootText: string;
  documents: Map<string, OpenApiDocument>;
  /** The `/openapi/v2` document, derived from the v3 documents on first use. */
  v2(): OpenApiV2Document;
}

type Json = Record<string, unknown>;
type GVK = { group: string; version: string; kind: string };

const REF_PREFIX = '#/components/schemas/';

/**
 * The schemas of api/schema's scalars, as kube-openapi writes their Go types (openapi.go
 * `OpenAPITypeFormat`): `float64` is a double, `[]byte` a base64 string.
 */
const SCALARS: Record<string, Json> = {
  string: { type: 'string' },
  boolean: { type: 'boolean' },
  int32: { type: 'integer', format: 'int32' },
  int64: { type: 'integer', format: 'int64' },
  number: { type: 'number', format: 'double' },
  bytes: { type: 'string', format: 'byte' },
  // Free-form values (RawExtension, FieldsV1, apiextensions' JSON).
  any: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
};

/**
 * The definitions of the scalars upstream names (SchemaSource.scalarDefinitionName), as kube-openapi's
 * generator writes their Go types (openapi.go, the `hasV2DefinitionTypeAndFormat` cases): in v2 the
 * type and format of their OpenAPISchemaType/OpenAPISchemaFormat methods; in v3 the `oneOf` of their
 * OpenAPIV3OneOfTypes instead of the type, where they have one (k8s.io/apimachinery
 * pkg/api/resource/quantity.go, pkg/util/intstr/intstr.go, pkg/apis/meta/v1/time.go, micro_time.go).
 * kubectl explain names a referenced definition only when it has no type other than object:
 * `maxSurge <IntOrString>`, `limits <map[string]Quantity>`, but `creationTimestamp <string>`.
 */
const NAMED_SCALARS: Record<string, { v3: Json; v2: Json }> = {
  Quantity: { v3: { oneOf: [{ type: 'string' }, { type: 'number' }] }, v2: { type: 'string' } },
  IntOrString: { v3: { oneOf: [{ type: 'integer' }, { type: 'string' }], format: 'int-or-string' }, v2: { type: 'string', format: 'int-or-string' } },
  Time: { v3: { type: 'string', format: 'date-time' }, v2: { type: 'string', format: 'date-time' } },
  MicroTime: { v3: { type: 'string', format: 'date-time' }, v2: { type: 'string', format: 'date-time' } },
};

/**
 * Go zero values of the scalars kube-openapi gives as `default` to a field that is neither a pointer
 * nor `omitempty` (openapi.go `mustEnforceDefault`, `OpenAPIZeroValue`).
 */
const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const LIST_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';
/** The descriptions upstream's CRD OpenAPI builder gives the fields it adds. */
const API_VERSION_DESCRIPTION =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const KIND_DESCRIPTION =
  'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const METADATA_DESCRIPTION = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

function gvkKey(gvk: GVK): string {
  return `${gvk.group}/${gvk.version}/${gvk.kind}`;
}

const ZERO_DEFAULTS: Record<string, unknown> = { string: '', boolean: false, int32: 0, int64: 0, number: 0 };

/** Builds `components.schemas` from the roots, following field types transitively. */
class SchemaCollector {
  readonly schemas: Record<string, Json> = {};
  private readonly gvks = new Map<string, GVK[]>();
  /** The `$ref`s of kinds whose schema came with their strategy (custom resources), by group/version/kind. */
  private readonly custom = new Map<string, Json>();

  constructor(
    private readonly source: SchemaSource | undefined,
    private readonly docs: SchemaDescriptions | undefined,
  ) {}

  /** Adds the root type of a kind; returns a `$ref` schema to it, or undefined when unknown. */
  addRoot(gvk: GVK): Json | undefined {
    const custom = this.custom.get(gvkKey(gvk));
    if (custom) return custom;
    const name = this.source?.rootTypeName(gvk.group, gvk.version, gvk.kind);
    if (!name || !this.source?.lookupType(name)) return undefined;
    const list = this.gvks.get(name) ?? [];
    if (!list.some((g) => g.group === gvk.group && g.version === gvk.version && g.kind === gvk.kind)) list.push(gvk);
    this.gvks.set(name, list);
    this.add(name);
    const schema = this.schemas[name] as Json;
    schema['x-kubernetes-group-version-kind'] = list.map((g) => ({ group: g.group, kind: g.kind, version: g.version }));
    return { $ref: REF_PREFIX + name };
  }

  /**
   * Adds a kind whose schema is data (a CRD version's, see ResourceStrategy.openApiSchema) and its list,
   * as upstream's CRD OpenAPI builder does (apiextensions-apiserver pkg/controller/openapi/builder):
   * named by the REST-friendly `com.example.stable.v1.CronTab`, with apiVersion, kind and metadata
   * (ObjectMeta) added when the schema does not declare them; the list has items and ListMeta.
   * Returns the `$ref`s of the object and of the list.
   */
  addCustom(gvk: GVK, listKind: string, schema: Readonly<Record<string, unknown>>): { object: Json; list: Json } {
    const base = `${gvk.group.split('.').reverse().join('.')}.${gvk.version}`;
    const name = `${base}.${gvk.kind}`;
    const listName = `${base}.${listKind}`;
    const gvkExt = (kind: string): Json[] => [{ group: gvk.group, kind, version: gvk.version }];
    const object = structuredClone(schema) as Json;
    const properties = { ...((object['properties'] as Json | undefined) ?? {}) };
    properties['apiVersion'] ??= { type: 'string', description: API_VERSION_DESCRIPTION };
    properties['kind'] ??= { type: 'string', description: KIND_DESCRIPTION };
    this.add(OBJECT_META);
    this.add(LIST_META);
    properties['metadata'] = { allOf: [{ $ref: REF_PREFIX + OBJECT_META }], description: METADATA_DESCRIPTION };
    object['type'] ??= 'object';
    object['properties'] = properties;
    object['x-kubernetes-group-version-kind'] = gvkExt(gvk.kind);
    this.schemas[name] = object;
    this.schemas[listName] = {
      description: `${listKind} is a list of ${gvk.kind}`,
      type: 'object',
      required: ['items'],
      properties: {
        apiVersion: { type: 'string', description: API_VERSION_DESCRIPTION },
        items: { type: 'array', description: `List of ${gvk.kind.toLowerCase()}s. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`, items: { $ref: REF_PREFIX + name } },
        kind: { type: 'string', description: KIND_DESCRIPTION },
        metadata: { allOf: [{ $ref: REF_PREFIX + LIST_META }], description: 'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds' },
      },
      'x-kubernetes-group-version-kind': gvkExt(listKind),
    };
    const refs = { object: { $ref: REF_PREFIX + name }, list: { $ref: REF_PREFIX + listName } };
    this.custom.set(gvkKey(gvk), refs.object);
    this.custom.set(gvkKey({ ...gvk, kind: listKind }), refs.list);
    return refs;
  }

  private add(name: string): void {
    if (this.schemas[name]) return;
    const type = this.source?.lookupType(name);
    if (!type) return;
    const schema = this.described({ type: 'object' }, name);
    // Registered before the fields so that recursive types (JSONSchemaProps) terminate.
    this.schemas[name] = schema;
    const properties: Record<string, Json> = {};
    const required: string[] = [];
    for (const [fieldName, f] of Object.entries(type.fields)) {
      properties[fieldName] = this.fieldSchema(f, this.docs?.describeField(name, fieldName));
      if (f.required) required.push(fieldName);
    }
    schema['properties'] = properties;
    if (required.length > 0) schema['required'] = required.sort();
    if (type.structType) schema['x-kubernetes-map-type'] = type.structType;
  }

  /** `schema` with the description of type `name`, when there is one. */
  private described(schema: Json, name: string): Json {
    const description = this.docs?.describeType(name);
    if (description !== undefined) schema['description'] = description;
    return schema;
  }

  /**
   * Schema of one value of type `t`: a scalar, or `allOf: [$ref]` as upstream's v3 documents write
   * refs, with `default: {}` where Go always has a struct (not behind a pointer; the named scalars
   * decode themselves, and kube-openapi gives them no default).
   */
  private typeSchema(t: string, pointer: boolean): Json {
    const scalar = SCALARS[t];
    if (scalar) return { ...scalar };
    const forms = NAMED_SCALARS[t];
    const named = forms ? this.source?.scalarDefinitionName?.(t) : undefined;
    if (forms && named !== undefined) {
      this.schemas[named] ??= this.described({ ...forms.v3 }, named);
      return { allOf: [{ $ref: REF_PREFIX + named }] };
    }
    if (!this.source?.lookupType(t)) return { ...(forms?.v3 ?? { type: 'object' }) };
    this.add(t);
    return pointer ? { allOf: [{ $ref: REF_PREFIX + t }] } : { allOf: [{ $ref: REF_PREFIX + t }], default: {} };
  }

  private fieldSchema(f: SchemaField, description: string | undefined): Json {
    // List elements and map values are values, never pointers, in the API types.
    const item = this.typeSchema(f.type, f.pointer === true && !f.list && !f.map);
    if (f.enum) item['enum'] = [...f.enum];
    let schema: Json;
    if (f.list) schema = { type: 'array', items: item };
    else if (f.map) schema = { type: 'object', additionalProperties: item };
    else schema = item;
    if (description !== undefined) schema['description'] = description;
    const zero = f.pointer || f.omitempty || f.list || f.map ? undefined : ZERO_DEFAULTS[f.type];
    if (f.default !== undefined || zero !== undefined) schema['default'] = f.default ?? zero;
    if (f.patchStrategy) schema['x-kubernetes-patch-strategy'] = f.patchStrategy;
    if (f.patchMergeKey) schema['x-kubernetes-patch-merge-key'] = f.patchMergeKey;
    if (f.listType) schema['x-kubernetes-list-type'] = f.listType;
    if (f.listMapKeys) schema['x-kubernetes-list-map-keys'] = [...f.listMapKeys];
    const mapType = f.mapType ?? f.structType;
    if (mapType) schema['x-kubernetes-map-type'] = mapType;
    return schema;
  }
}

const stringParam = (name: string, description: string, where: 'query' | 'path' = 'query'): Json => {
  const p: Json = { name, in: where, description, schema: { type: 'string', uniqueItems: true } };
  if (where === 'path') p['required'] = true;
  return p;
};
const intParam = (name: string, description: string): Json => ({ name, in: 'query', description, schema: { type: 'integer', uniqueItems: true } });
const boolParam = (name: string, description: string): Json => ({ name, in: 'query', description, schema: { type: 'boolean', uniqueItems: true } });

const dryRun = stringParam('dryRun', 'When present, indicates that modifications should not be persisted. Valid value: All.');
const fieldManager = stringParam('fieldManager', 'A name associated with the actor or entity that is making these changes.');
const fieldValidation = stringParam(
  'fieldValidation',
  'How the server handles unknown or duplicate fields in the request body: Ignore, Warn or Strict (the default).',
);
const listParams: Json[] = [
  boolParam('allowWatchBookmarks', 'Requests watch events of type BOOKMARK.'),
  stringParam('continue', 'The continue token of a previous, paginated list.'),
  stringParam('fieldSelector', 'A selector restricting the returned objects by their fields.'),
  stringParam('labelSelector', 'A selector restricting the returned objects by their labels.'),
  intParam('limit', 'The maximum number of items to return.'),
  stringParam('resourceVersion', 'Constrains which resource versions the request may be served from.'),
  stringParam('resourceVersionMatch', 'How resourceVersion is applied to list calls.'),
  boolParam('sendInitialEvents', 'With watch=true, starts the stream with synthetic events of the current state.'),
  intParam('timeoutSeconds', 'Timeout for the list/watch call.'),
  boolParam('watch', 'Watch for changes to the described resources and return them as a stream.'),
];
const deleteParams: Json[] = [
  dryRun,
  intParam('gracePeriodSeconds', 'The duration in seconds before the object should be deleted.'),
  boolParam('orphanDependents', 'Deprecated: use propagationPolicy.'),
  stringParam('propagationPolicy', 'Whether and how garbage collection is performed: Orphan, Background or Foreground.'),
];

/** Upstream's operationId words per action. */
const operationWords: Record<string, string> = {
  list: 'list',
  post: 'create',
  get: 'read',
  put: 'replace',
  patch: 'patch',
  delete: 'delete',
  deletecollection: 'deleteCollection',
};

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Builds the paths of one group/version document. */
class PathBuilder {
  readonly paths: Record<string, Json> = {};

  constructor(
    private readonly group: string,
    private readonly version: string,
    private readonly schemas: SchemaCollector,
  ) {}

  private get prefix(): string {
    return this.group ? `/apis/${this.group}/${this.version}` : `/api/${this.version}`;
  }

  /** `apps_v1`, `core_v1`, `coordination_v1`. */
  private get tag(): string {
    return `${this.groupWord}_${this.version}`;
  }

  /** `AppsV1`, `CoreV1`: the group/version part of operationIds. */
  private get gvWord(): string {
    return capitalize(this.groupWord) + capitalize(this.version);
  }

  private get groupWord(): string {
    return this.group ? (this.group.split('.')[0] as string) : 'core';
  }

  addResource(s: ResourceStrategy): void {
    const info = s.info;
    const gvk: GVK = { group: info.group, version: info.version, kind: info.kind };
    const custom = s.openApiSchema ? this.schemas.addCustom(gvk, info.listKind, s.openApiSchema) : undefined;
    const objectRef = custom ? custom.object : this.schemas.addRoot(gvk);
    const listRef = custom ? custom.list : this.schemas.addRoot({ ...gvk, kind: info.listKind });
    const has = (verb: string): boolean => info.verbs.includes(verb);
    const nsPrefix = info.namespaced ? `${this.prefix}/namespaces/{namespace}` : this.prefix;
    const collection = `${nsPrefix}/${info.resource}`;
    const item = `${collection}/{name}`;
    const nsParams = info.namespaced ? [stringParam('namespace', 'object name and auth scope, such as for teams and projects', 'path')] : [];
    const nameParam = stringParam('name', `name of the ${info.kind}`, 'path');
    const scope = info.namespaced ? 'Namespaced' : '';
    const id = (action: string, suffix = ''): string => `${operationWords[action] ?? action}${this.gvWord}${scope}${info.kind}${suffix}`;

    const collectionOps: Json = {};
    if (has('list')) collectionOps['get'] = this.operation('list', id('list'), gvk, listParams, listRef);
    if (has('create')) collectionOps['post'] = this.operation('post', id('post'), gvk, [dryRun, fieldManager, fieldValidation], objectRef, true);
    if (has('deletecollection')) {
      collectionOps['delete'] = this.operation('deletecollection', id('deletecollection'), gvk, [...deleteParams, ...listParams], undefined, true);
    }
    this.addPath(collection, nsParams, collectionOps);

    const itemOps: Json = {};
    if (has('get')) itemOps['get'] = this.operation('get', id('get'), gvk, [], objectRef);
    if (has('update')) itemOps['put'] = this.operation('put', id('put'), gvk, [dryRun, fieldManager, fieldValidation], objectRef, true);
    if (has('patch')) {
      // The media types a PATCH accepts: kubectl apply and diff send a strategic merge patch only to a
      // kind whose PATCH lists it (kubectl apply/patcher.go gvkSupportsPatchOpenAPIV3), so custom
      // resources, which refuse it, must not list it.
      const patchTypes = s.patchTypes ? [...s.patchTypes].sort() : PATCH_REQUEST_TYPES;
      itemOps['patch'] = this.operation('patch', id('patch'), gvk, [dryRun, fieldManager, fieldValidation, boolParam('force', 'Force is going to "force" Apply requests.')], objectRef, true, patchTypes);
    }
    if (has('delete')) itemOps['delete'] = this.operation('delete', id('delete'), gvk, deleteParams, objectRef, true);
    this.addPath(item, [nameParam, ...nsParams], itemOps);

    if (info.namespaced && has('list')) {
      this.addPath(`${this.prefix}/${info.resource}`, [], {
        get: this.operation('list', `list${this.gvWord}${info.kind}ForAllNamespaces`, gvk, listParams, listRef),
      });
    }

    for (const sub of info.subresources) this.addSubresource(sub, item, [nameParam, ...nsParams], id);
  }

  private addSubresource(
    sub: SubresourceInfo,
    item: string,
    params: Json[],
    id: (action: string, suffix?: string) => string,
  ): void {
    const gvk: GVK = { group: sub.group, version: sub.version, kind: sub.kind };
    const ref = this.schemas.addRoot(gvk);
    const suffix = capitalize(sub.name);
    const ops: Json = {};
    const writeParams = [dryRun, fieldManager, fieldValidation];
    if (sub.verbs.includes('get')) ops['get'] = this.operation('get', id('get', suffix), gvk, [], ref);
    if (sub.verbs.includes('create')) ops['post'] = this.operation('post', id('post', suffix), gvk, writeParams, ref, true);
    if (sub.verbs.includes('update')) ops['put'] = this.operation('put', id('put', suffix), gvk, writeParams, ref, true);
    if (sub.verbs.includes('patch')) {
      ops['patch'] = this.operation('patch', id('patch', suffix), gvk, [...writeParams, boolParam('force', 'Force is going to "force" Apply requests.')], ref, true);
    }
    if (sub.verbs.includes('delete')) ops['delete'] = this.operation('delete', id('delete', suffix), gvk, deleteParams, ref, true);
    this.addPath(`${item}/${sub.name}`, params, ops);
  }

  private addPath(path: string, parameters: Json[], ops: Json): void {
    if (Object.keys(ops).length === 0) return;
    this.paths[path] = { ...ops, parameters: [...parameters, stringParam('pretty', "If 'true', then the output is pretty printed.")] };
  }

  private operation(action: string, operationId: string, gvk: GVK, parameters: Json[], responseRef: Json | undefined, hasBody = false, patchTypes = PATCH_REQUEST_TYPES): Json {
    const schema = responseRef ?? { type: 'object' };
    const op: Json = {
      tags: [this.tag],
      operationId,
      parameters,
      responses: {
        '200': { description: 'OK', content: { 'application/json': { schema } } },
        '401': { description: 'Unauthorized' },
      },
      'x-kubernetes-action': action,
      'x-kubernetes-group-version-kind': { group: gvk.group, version: gvk.version, kind: gvk.kind },
    };
    if (hasBody && action !== 'delete' && action !== 'deletecollection') {
      const types = action === 'patch' ? patchTypes : ['application/json', 'application/yaml'];
      op['requestBody'] = { content: Object.fromEntries(types.map((t) => [t, { schema: action === 'patch' ? { type: 'object' } : schema }])), required: true };
    }
    return op;
  }
}

/** The `/openapi/v3` path of a group/version: `api/v1` or `apis/apps/v1`. */
export function openApiPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

function buildDocument(group: string, gv: GroupVersionEntry, source: SchemaSource | undefined, docs: SchemaDescriptions | undefined): Json {
  const schemas = new SchemaCollector(source, docs);
  const paths = new PathBuilder(group, gv.version, schemas);
  for (const s of gv.resources) paths.addResource(s);
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.33.0' },
    paths: paths.paths,
    components: { schemas: schemas.schemas },
  };
}

/** kube-openapi's `computeETag`: the SHA-512 of a document, uppercase hex. */
function sha512(text: string): string {
  return createHash('sha512').update(text).digest('hex').toUpperCase();
}

/** Every document and the root, for the current set of served resources; `docs` adds the descriptions. */
export function buildOpenApiDocuments(index: ResourceIndex, source: SchemaSource | undefined, docs?: SchemaDescriptions): OpenApiDocuments {
  const documents = new Map<string, OpenApiDocument>();
  const rootPaths: Record<string, { serverRelativeURL: string }> = {};
  for (const g of index.groups) {
    for (const gv of g.versions) {
      const path = openApiPath(g.name, gv.version);
      const text = JSON.stringify(buildDocument(g.name, gv, source, docs));
      const hash = sha512(text);
      documents.set(path, { text, hash });
      rootPaths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${hash}` };
    }
  }
  let v2: OpenApiV2Document | undefined;
  const buildV2 = (): OpenApiV2Document => {
    const v2Forms: Record<string, Json> = {};
    for (const [scalar, { v2 }] of Object.entries(NAMED_SCALARS)) {
      const name = source?.scalarDefinitionName?.(scalar);
      if (name !== undefined) v2Forms[name] = v2;
    }
    const swagger = swaggerFromV3([...documents.values()].map((d) => JSON.parse(d.text) as Json), v2Forms);
    const json = JSON.stringify(swagger);
    return { json, proto: swaggerProto(swagger), etag: sha512(json) };
  };
  return { rootText: JSON.stringify({ paths: rootPaths }), documents, v2: () => (v2 ??= buildV2()) };
}

/**
 * A cache of the documents, rebuilt only when the served resources change. The source's descriptions
 * are loaded on the first request for a document, not when the server starts.
 */
export class OpenApiCache {
  private key: string | undefined;
  private docs: OpenApiDocuments | undefined;
  private descriptions: Promise<SchemaDescriptions | undefined> | undefined;

  constructor(private readonly source: SchemaSource | undefined) {}

  /** The documents for `index`. */
  async get(index: ResourceIndex): Promise<OpenApiDocuments> {
    this.descriptions ??= this.source?.loadDocs?.() ?? Promise.resolve(undefined);
    const descriptions = await this.descriptions;
    const key = signature(index);
    if (this.docs === undefined || key !== this.key) {
      this.docs = buildOpenApiDocuments(index, this.source, descriptions);
      this.key = key;
    }
    return this.docs;
  }
}

/** A string that changes whenever the served resources (and so the documents) change. */
function signature(index: ResourceIndex): string {
  return JSON.stringify(index.strategies.map((s) => (s.openApiSchema ? [s.info, schemaId(s.openApiSchema)] : s.info)));
}

/** A number per schema object: a CRD served again with a new schema changes the signature cheaply. */
const schemaIds = new WeakMap<object, number>();
let lastSchemaId = 0;
function schemaId(schema: object): number {
  let id = schemaIds.get(schema);
  if (id === undefined) schemaIds.set(schema, (id = ++lastSchemaId));
  return id;
}
