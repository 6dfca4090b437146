#!/usr/bin/env node
/**
 * Generates src/api/schema/types.json (the field schema of every Kubernetes API type) and
 * src/api/schema/docs.json (their descriptions) from upstream's Go types, the real definition of the
 * API, at v0.33.9 (Kubernetes v1.33). Run by hand:
 *
 *     mkdir -p /tmp/k8s-src && cd /tmp/k8s-src
 *     for repo in api apimachinery kube-aggregator apiextensions-apiserver metrics; do
 *       git clone --quiet --depth 1 --branch v0.33.9 https://github.com/kubernetes/$repo
 *     done
 *     cd - && node scripts/gen-schema.mjs --src /tmp/k8s-src
 *
 * `<src>/<repo>` must hold the repository's tree at the tag; from bare mirrors of the five repositories,
 * `mkdir <src>/$repo && git --git-dir=<mirror of $repo> archive v0.33.9 | tar -x -C <src>/$repo` gives
 * the same trees. The output depends on nothing else (files and names are read in sorted order), so a
 * run on the same tag rewrites both files byte for byte: `git status` shows no change. A new
 * Kubernetes minor is a new tag here and in the clone loop, and a regenerated pair of files
 * (docs/adr/0008-schema-from-go-types.md).
 *
 * Read: every GA version (v1, v2) of k8s.io/api, apimachinery pkg/apis/meta/v1, kube-aggregator
 * pkg/apis/apiregistration/v1, apiextensions-apiserver pkg/apis/apiextensions/v1 and metrics
 * pkg/apis/metrics/v1beta1 — all their `*.go` but tests and generated code (scripts/schema/packages.mjs) —
 * and, for their descriptions, the files declaring the self-encoding types upstream's OpenAPI defines by
 * name (resource.Quantity, intstr.IntOrString, meta/v1 Time and MicroTime: NAMED_SCALARS in resolve.mjs).
 * The Go is read by scripts/schema/go-source.mjs; kube-openapi's rules for descriptions, markers and
 * `required` are scripts/schema/openapi-rules.mjs; the type resolution is scripts/schema/resolve.mjs.
 *
 * types.json (decoded by src/api/schema/index.ts), one line per type:
 *   { "types": { "<name>": { "<jsonField>": "<field>", … }, … },
 *     "structTypes": { "<name>": "atomic" | "granular" },        (the type's +structType)
 *     "enums": { "<enum type>": ["<value>", …] },                 (each +enum string type's constants)
 *     "scalars": { "<scalar>": "<name>" },                        (the scalars upstream defines by name:
 *                                                                  `Quantity`, `IntOrString`, `Time`, `MicroTime`)
 *     "roots": { "<apiVersion>": { "<Kind>": "<name>" } } }       (`v1` for core, `apps/v1`, `meta.k8s.io/v1`)
 * <name> is upstream's OpenAPI definition name (`io.k8s.api.core.v1.Pod`). Fields are in Go's declaration
 * order (the order encoding/json writes them), `,inline` members flattened in place. <field> is
 * `<type>` followed by space-separated facts:
 *   <type>            a type name, or a scalar: `string`, `int32`, `int64`, `number` (float64), `boolean`,
 *                     `bytes` ([]byte: base64 in JSON), `IntOrString`, `Quantity`, `Time`, `MicroTime`
 *                     or `any` (free-form: RawExtension, FieldsV1, apiextensions JSON, interface{});
 *                     metav1.Duration and types.UID are `string`. Prefixed `[]` for a list, `{}` for a
 *                     map with string keys; a list or map of lists or maps has `any` members.
 *   req               in the OpenAPI `required` list: `+required`, or neither `+optional` nor `omitempty`
 *   ptr               a Go pointer (`*T`): absent and zero are different values
 *   omit              `omitempty`: Go leaves the zero value out when encoding
 *   patch=<strategy>  the `patchStrategy` tag: `merge`, `retainKeys` or `merge,retainKeys`
 *   mergeKey=<field>  the `patchMergeKey` tag
 *   listType=<t>      +listType: `atomic`, `set` or `map`
 *   listMapKeys=<a,b> +listMapKey (each, in order)
 *   mapType=<t>       +mapType; structType=<t> +structType on the field
 *   enum=<enum type>  the field's (or its members') +enum string type, e.g. `io.k8s.api.core.v1.RestartPolicy`,
 *                     whose values are listed in "enums", sorted as kube-openapi sorts them
 *   default=<json>    +default (last; `ref(Const)` resolved to the constant's value)
 *
 * docs.json (loaded only by what shows descriptions, i.e. OpenAPI), one line per type:
 *   { "<name>": { "": "<type description>", "<jsonField>": "<description>", … }, … }
 * descriptions as kube-openapi derives them, a field of an enum type ending with its
 * "Possible enum values" paragraph, as upstream serves it.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { commentTags, definitionName, description } from './schema/openapi-rules.mjs';
import { loadPackage, META_V1, packagePaths, typeDeclIn } from './schema/packages.mjs';
import { NAMED_SCALARS, SPECIAL, Universe } from './schema/resolve.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const typesFile = join(root, 'src/api/schema/types.json');
const docsFile = join(root, 'src/api/schema/docs.json');

/** The flags of one field, in the order documented above. @param {import('./schema/resolve.mjs').Field} f */
function encodeField(f) {
  const parts = [`${f.list ? '[]' : f.map ? '{}' : ''}${f.type}`];
  if (f.required) parts.push('req');
  if (f.pointer) parts.push('ptr');
  if (f.omitempty) parts.push('omit');
  if (f.patchStrategy) parts.push(`patch=${f.patchStrategy}`);
  if (f.patchMergeKey) parts.push(`mergeKey=${f.patchMergeKey}`);
  if (f.listType) parts.push(`listType=${f.listType}`);
  if (f.listMapKeys) parts.push(`listMapKeys=${f.listMapKeys.join(',')}`);
  if (f.mapType) parts.push(`mapType=${f.mapType}`);
  if (f.structType) parts.push(`structType=${f.structType}`);
  if (f.enum) parts.push(`enum=${goDefinitionName(f.enum)}`);
  if (f.default !== undefined) parts.push(`default=${JSON.stringify(f.default)}`);
  return parts.join(' ');
}

/** `k8s.io/api/core/v1.RestartPolicy` → `io.k8s.api.core.v1.RestartPolicy`. @param {string} full */
function goDefinitionName(full) {
  const dot = full.lastIndexOf('.');
  return definitionName(full.slice(0, dot), full.slice(dot + 1));
}

/** Whether a struct inlines meta/v1 TypeMeta. */
function hasTypeMeta(decl) {
  return decl.type.fields.some((m) => m.embedded && m.type.kind === 'named' && m.type.name === 'TypeMeta');
}

function main() {
  const at = process.argv.indexOf('--src');
  if (at < 0 || !process.argv[at + 1]) throw new Error('usage: node scripts/gen-schema.mjs --src <dir> (see the header of this script)');
  const src = resolve(process.argv[at + 1]);
  const packages = packagePaths(src).map((p) => loadPackage(src, p));
  const universe = new Universe(packages);

  const types = new Map();
  const docs = new Map();
  const structTypes = {};
  const roots = {};
  const nested = [];
  for (const pkg of packages) {
    for (const [name, { decl, file }] of [...pkg.types].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (decl.type.kind !== 'struct' || !/^[A-Z]/.test(name) || universe.namedShape(`${pkg.path}.${name}`).kind !== 'struct') continue;
      const defName = definitionName(pkg.path, name);
      const fields = universe.structFields(pkg, file, decl);
      types.set(defName, fields);
      const typeDoc = { '': description(decl.doc) };
      for (const f of fields) typeDoc[f.name] = f.description;
      docs.set(defName, typeDoc);
      for (const f of fields) if (f.nested) nested.push(`${defName}.${f.name}`);
      const structType = commentTags(decl.doc).get('structType')?.[0];
      if (structType !== undefined) structTypes[defName] = structType;
      // Top-level kinds: TypeMeta with object or list metadata; in meta/v1 every TypeMeta type, and WatchEvent.
      const metadata = fields.find((f) => f.name === 'metadata')?.field.type;
      const isRoot = pkg.path === META_V1
        ? hasTypeMeta(decl) || name === 'WatchEvent'
        : hasTypeMeta(decl) && (metadata === definitionName(META_V1, 'ObjectMeta') || metadata === definitionName(META_V1, 'ListMeta'));
      if (isRoot) (roots[pkg.apiVersion] ??= {})[name] = defName;
    }
  }

  const scalars = {};
  for (const [scalar, { path, name, file }] of Object.entries(NAMED_SCALARS)) {
    if (SPECIAL[`${path}.${name}`] !== scalar) throw new Error(`NAMED_SCALARS.${scalar} is not the scalar of ${path}.${name}`);
    const defName = definitionName(path, name);
    scalars[scalar] = defName;
    docs.set(defName, { '': description(typeDeclIn(src, path, file, name).doc) });
  }

  checkReferences(types);
  const enumNames = new Set([...types.values()].flatMap((fields) => fields.map((f) => f.field.enum).filter((e) => e !== undefined)));
  const enumLines = [...enumNames].sort().map((full) => `${JSON.stringify(goDefinitionName(full))}:${JSON.stringify(universe.enumOf(full))}`);
  const typeLines = [...types].map(([name, fields]) => `${JSON.stringify(name)}:${JSON.stringify(Object.fromEntries(fields.map((f) => [f.name, encodeField(f.field)])))}`);
  const sortedRoots = Object.fromEntries(
    Object.keys(roots)
      .sort()
      .map((v) => [v, Object.fromEntries(Object.entries(roots[v]).sort(([a], [b]) => (a < b ? -1 : 1)))]),
  );
  writeFileSync(typesFile, `{"types":{\n${typeLines.join(',\n')}\n},\n"structTypes":${JSON.stringify(structTypes, null, 1)},\n"enums":{\n${enumLines.join(',\n')}\n},\n"scalars":${JSON.stringify(scalars, null, 1)},\n"roots":${JSON.stringify(sortedRoots, null, 1)}}\n`);
  const docLines = [...docs].map(([name, d]) => `${JSON.stringify(name)}:${JSON.stringify(d)}`);
  writeFileSync(docsFile, `{\n${docLines.join(',\n')}\n}\n`);

  const fieldCount = [...types.values()].reduce((n, f) => n + f.length, 0);
  const described = [...docs.values()].reduce((n, d) => n + Object.values(d).filter((v) => v !== undefined).length, 0);
  console.log(
    `wrote ${typesFile}: ${types.size} types, ${fieldCount} fields, ` +
      `${Object.values(sortedRoots).reduce((n, r) => n + Object.keys(r).length, 0)} root kinds in ${Object.keys(sortedRoots).length} group versions\n` +
      `wrote ${docsFile}: ${described} descriptions\n` +
      `lists or maps of lists or maps (free-form members): ${nested.join(', ')}`,
  );
}

/**
 * Every field type names a scalar or a generated type, and every merge key and list map key names a
 * field of the list's element type.
 */
function checkReferences(types) {
  const scalars = new Set(['string', 'int32', 'int64', 'number', 'boolean', 'bytes', 'IntOrString', 'Quantity', 'Time', 'MicroTime', 'any']);
  for (const [name, fields] of types) {
    for (const { name: fieldName, field: f } of fields) {
      const where = `${name}.${fieldName}`;
      if (!scalars.has(f.type) && !types.has(f.type)) throw new Error(`${where}: unknown type ${f.type}`);
      const elemFields = types.get(f.type)?.map((e) => e.name) ?? [];
      for (const key of [...(f.patchMergeKey ? [f.patchMergeKey] : []), ...(f.listMapKeys ?? [])]) {
        if (!f.list || !elemFields.includes(key)) throw new Error(`${where}: key ${key} is not a field of the list's elements`);
      }
      if (new Set(fields.map((e) => e.name)).size !== fields.length) throw new Error(`${name}: duplicate JSON field names`);
    }
  }
}

main();
