/**
 * Turns the Go declarations of the API packages into schema types: each struct's JSON fields, with
 * `,inline` embeddings flattened, their value types resolved to a schema type name or a scalar, and
 * the facts kube-openapi and encoding/json derive from the struct tags and comment markers.
 */
import { tagValue } from './go-source.mjs';
import { commentTags, definitionName, description, enumDescriptionLines, isRequired } from './openapi-rules.mjs';

/**
 * Types that encode themselves in JSON (a `MarshalJSON` or `OpenAPISchemaType` method), or that live
 * outside the packages read, mapped to the schema's scalar names. The generator fails on a type with
 * such a method that is not listed here.
 * - meta/v1 `Time` (RFC 3339 seconds), `MicroTime` (microseconds): time.go, micro_time.go;
 *   `Duration` marshals as a Go duration string (duration.go); `FieldsV1` as its raw JSON
 *   (helpers.go); `GroupVersion` as `group/version` (group_version.go).
 * - resource.Quantity (api/resource/quantity.go), intstr.IntOrString (util/intstr/intstr.go),
 *   runtime.RawExtension (any embedded object, runtime/extension.go), types.UID (a string).
 * - apiextensions/v1 `JSON` and the `JSONSchemaPropsOr…` unions marshal as whatever JSON they hold
 *   (marshal.go): free-form.
 */
export const SPECIAL = {
  'k8s.io/apimachinery/pkg/apis/meta/v1.Time': 'Time',
  'k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime': 'MicroTime',
  'k8s.io/apimachinery/pkg/apis/meta/v1.Duration': 'string',
  'k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1': 'any',
  'k8s.io/apimachinery/pkg/apis/meta/v1.GroupVersion': 'string',
  'k8s.io/apimachinery/pkg/api/resource.Quantity': 'Quantity',
  'k8s.io/apimachinery/pkg/util/intstr.IntOrString': 'IntOrString',
  'k8s.io/apimachinery/pkg/runtime.RawExtension': 'any',
  'k8s.io/apimachinery/pkg/types.UID': 'string',
  'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSON': 'any',
  'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrArray': 'any',
  'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrBool': 'any',
  'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrStringArray': 'any',
};

/**
 * The {@link SPECIAL} scalars that upstream's OpenAPI defines by name, each with the file declaring its
 * Go type: a definition with the type and format of the type's OpenAPISchemaType and
 * OpenAPISchemaFormat methods and its doc comment as description (kube-openapi's generator, the
 * `hasV2DefinitionTypeAndFormat` case). types.json maps each scalar to its definition name, docs.json
 * holds the description.
 */
export const NAMED_SCALARS = {
  Quantity: { path: 'k8s.io/apimachinery/pkg/api/resource', name: 'Quantity', file: 'quantity.go' },
  IntOrString: { path: 'k8s.io/apimachinery/pkg/util/intstr', name: 'IntOrString', file: 'intstr.go' },
  Time: { path: 'k8s.io/apimachinery/pkg/apis/meta/v1', name: 'Time', file: 'time.go' },
  MicroTime: { path: 'k8s.io/apimachinery/pkg/apis/meta/v1', name: 'MicroTime', file: 'micro_time.go' },
};

/** Go's predeclared types that API fields use (`[]byte` is handled apart, as `bytes`). */
const BUILTINS = { string: 'string', bool: 'boolean', int32: 'int32', int64: 'int64', float64: 'number', float32: 'number' };

/**
 * @typedef {import('./packages.mjs').GoPackage} GoPackage
 * @typedef {import('./go-source.mjs').GoFile} GoFile
 * @typedef {import('./go-source.mjs').GoType} GoType
 * @typedef {import('./go-source.mjs').GoTypeDecl} GoTypeDecl
 * @typedef {{ kind: 'scalar', type: string, enum?: string } | { kind: 'struct', type: string }
 *   | { kind: 'list' | 'map', elem: Shape }} Shape
 * @typedef {{ type: string, list?: true, map?: true, required?: true, pointer?: true, omitempty?: true,
 *   patchStrategy?: string, patchMergeKey?: string, listType?: string, listMapKeys?: string[],
 *   mapType?: string, structType?: string, enum?: string, default?: unknown }} Field
 * @typedef {{ name: string, field: Field, description?: string, nested: boolean }} ResolvedField
 */

export class Universe {
  /** @param {GoPackage[]} packages */
  constructor(packages) {
    /** @type {Map<string, GoPackage>} */
    this.packages = new Map(packages.map((p) => [p.path, p]));
    /** @type {Map<string, { name: string, value: string, doc: string[] }[]>} */
    this.enumValues = new Map();
    for (const p of packages) {
      for (const t of p.customJSON) {
        if (p.types.has(t) && SPECIAL[`${p.path}.${t}`] === undefined) throw new Error(`${p.path}.${t} encodes itself: add it to SPECIAL`);
      }
    }
    for (const p of packages) {
      for (const { c, file } of p.consts) {
        if (c.type?.kind !== 'named' || c.value === undefined) continue;
        const full = this.qualify(p, file, c.type);
        const values = this.enumValues.get(full) ?? [];
        // As kube-openapi's addIfNotPresent: one entry per value, the longer comment winning.
        const entry = { name: c.name, value: c.value, doc: c.doc };
        const same = values.findIndex((v) => v.value === c.value);
        if (same < 0) values.push(entry);
        else if (values[same].doc.join(' ').length < entry.doc.join(' ').length) values[same] = entry;
        this.enumValues.set(full, values);
      }
    }
  }

  /**
   * The values of an enum type (its string constants), as kube-openapi's ValueStrings: sorted as
   * quoted Go literals.
   * @param {string} full
   */
  enumOf(full) {
    return (this.enumValues.get(full) ?? []).map((v) => v.value).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  }

  /**
   * The full Go name (`import/path.Name`) a named type refers to from `file`, or the bare name of
   * a predeclared type.
   * @param {GoPackage} pkg
   * @param {GoFile} file
   * @param {{ pkg?: string, name: string }} t
   */
  qualify(pkg, file, t) {
    if (t.pkg === undefined) return BUILTINS[t.name] !== undefined || t.name === 'byte' || t.name === 'uint8' ? t.name : `${pkg.path}.${t.name}`;
    const path = file.imports.get(t.pkg);
    if (path === undefined) throw new Error(`${pkg.path}: unknown package ${t.pkg}`);
    return `${path}.${t.name}`;
  }

  /** @param {string} full @returns {{ pkg: GoPackage, decl: GoTypeDecl, file: GoFile } | undefined} */
  lookup(full) {
    const dot = full.lastIndexOf('.');
    const pkg = this.packages.get(full.slice(0, dot));
    const entry = pkg?.types.get(full.slice(dot + 1));
    return pkg && entry ? { pkg, ...entry } : undefined;
  }

  /**
   * What a Go type is to the schema: a scalar (with the enum it belongs to), a struct, or a list or
   * map of those. Pointers are looked through.
   * @param {GoType} t
   * @param {GoPackage} pkg
   * @param {GoFile} file
   * @returns {Shape}
   */
  shape(t, pkg, file) {
    switch (t.kind) {
      case 'pointer':
        return this.shape(t.elem, pkg, file);
      case 'slice':
        if (t.elem.kind === 'named' && t.elem.pkg === undefined && (t.elem.name === 'byte' || t.elem.name === 'uint8')) return { kind: 'scalar', type: 'bytes' };
        return { kind: 'list', elem: this.shape(t.elem, pkg, file) };
      case 'map': {
        const key = this.shape(t.key, pkg, file);
        if (key.kind !== 'scalar' || key.type !== 'string') throw new Error(`${pkg.path}: a map key must be a string`);
        return { kind: 'map', elem: this.shape(t.elem, pkg, file) };
      }
      case 'interface':
        return { kind: 'scalar', type: 'any' };
      case 'named':
        return this.namedShape(this.qualify(pkg, file, t));
      default:
        throw new Error(`${pkg.path}: unsupported ${t.kind} type`);
    }
  }

  /** @param {string} full @returns {Shape} */
  namedShape(full) {
    const special = SPECIAL[full];
    if (special !== undefined) return { kind: 'scalar', type: special };
    if (BUILTINS[full] !== undefined) return { kind: 'scalar', type: BUILTINS[full] };
    const found = this.lookup(full);
    if (!found) throw new Error(`unknown type ${full}`);
    const { pkg, decl, file } = found;
    if (decl.type.kind === 'struct') return { kind: 'struct', type: definitionName(pkg.path, decl.name) };
    const inner = this.shape(decl.type, pkg, file);
    // kube-openapi's isEnumType: a named string type marked +enum.
    if (inner.kind === 'scalar' && inner.type === 'string' && commentTags(decl.doc).has('enum')) return { ...inner, enum: full };
    return inner;
  }

  /**
   * The JSON fields of a struct type, in declaration order, `,inline` members flattened in place
   * (kube-openapi's generateMembers; members marked `+k8s:openapi-gen=false` and `json:"-"` left out).
   * @param {GoPackage} pkg
   * @param {GoFile} file
   * @param {GoTypeDecl} decl
   * @returns {ResolvedField[]}
   */
  structFields(pkg, file, decl) {
    if (decl.type.kind !== 'struct') throw new Error(`${decl.name} is not a struct`);
    /** @type {ResolvedField[]} */
    const out = [];
    for (const m of decl.type.fields) {
      const tags = commentTags(m.doc);
      if (tags.get('k8s:openapi-gen')?.includes('false')) continue;
      const json = tagValue(m.tag, 'json');
      const parts = json === undefined ? [] : json.split(',');
      if (parts[0] === '-') continue;
      const where = `${pkg.path}.${decl.name}.${m.name}`;
      if (parts[1] === 'inline') {
        const target = m.type.kind === 'pointer' ? m.type.elem : m.type;
        if (target.kind !== 'named') throw new Error(`${where}: only named types can be inlined`);
        const found = this.lookup(this.qualify(pkg, file, target));
        if (!found) throw new Error(`${where}: unknown inlined type`);
        out.push(...this.structFields(found.pkg, found.file, found.decl));
        continue;
      }
      if (m.embedded && json === undefined) throw new Error(`${where}: an embedded field without a json tag`);
      const name = parts[0] || m.name;
      if (parts.includes('string')) throw new Error(`${where}: the json ",string" option is not supported`);
      out.push(this.field(pkg, file, m, name, parts.slice(1).includes('omitempty'), tags, where));
    }
    return out;
  }

  /**
   * One member's schema and description.
   * @param {GoPackage} pkg
   * @param {GoFile} file
   * @param {import('./go-source.mjs').GoField} m
   * @param {string} name
   * @param {boolean} omitempty
   * @param {Map<string, string[]>} tags
   * @param {string} where
   * @returns {ResolvedField}
   */
  field(pkg, file, m, name, omitempty, tags, where) {
    const s = this.shape(m.type, pkg, file);
    /** @type {Field} */
    const f = { type: '' };
    let member = s;
    let nested = false;
    if (s.kind === 'list' || s.kind === 'map') {
      f[s.kind] = true;
      member = s.elem;
      // A list of lists or a map of lists (map[string]ExtraValue) has no spelling here: free-form members.
      if (member.kind === 'list' || member.kind === 'map') {
        member = { kind: 'scalar', type: 'any' };
        nested = true;
      }
    }
    f.type = member.type;
    if (isRequired(tags, omitempty)) f.required = true;
    if (m.type.kind === 'pointer') f.pointer = true;
    if (omitempty) f.omitempty = true;
    this.patchTags(f, m.tag, tags, where);
    const single = (tag) => {
      const v = tags.get(tag);
      if (v && v.length > 1) throw new Error(`${where}: +${tag} given twice`);
      return v?.[0];
    };
    const listType = single('listType');
    if (listType !== undefined) f.listType = listType;
    if (tags.has('listMapKey')) f.listMapKeys = tags.get('listMapKey');
    const mapType = single('mapType');
    if (mapType !== undefined) f.mapType = mapType;
    const structType = single('structType');
    if (structType !== undefined) f.structType = structType;
    const enumType = member.kind === 'scalar' ? member.enum : undefined;
    const values = enumType ? this.enumValues.get(enumType) ?? [] : [];
    if (enumType && values.length > 0) f.enum = enumType;
    const def = single('default');
    if (def !== undefined) f.default = this.defaultValue(pkg, def, where);
    // kube-openapi appends the enum's values to the description of a field of that type (not to lists of it).
    const enumLines = s.kind === 'scalar' && enumType ? enumDescriptionLines(values) : [];
    const desc = description([...m.doc, ...enumLines]);
    return desc === undefined ? { name, field: f, nested } : { name, field: f, description: desc, nested };
  }

  /**
   * Strategic merge patch metadata: the `patchStrategy`/`patchMergeKey` struct tags, which
   * apimachinery's strategicpatch reads; kube-openapi insists the comment markers say the same.
   * @param {Field} f
   * @param {string} structTag
   * @param {Map<string, string[]>} tags
   * @param {string} where
   */
  patchTags(f, structTag, tags, where) {
    for (const [key, prop] of [['patchStrategy', 'patchStrategy'], ['patchMergeKey', 'patchMergeKey']]) {
      const fromTag = tagValue(structTag, key);
      const fromComment = tags.get(key)?.[0];
      if (fromTag !== undefined && fromComment !== undefined && fromTag !== fromComment) throw new Error(`${where}: ${key} tag and marker differ`);
      const v = fromTag ?? fromComment;
      if (v !== undefined && v !== '') f[prop] = v;
    }
  }

  /**
   * A `+default=` marker's value: JSON, or `ref(Name)` naming a string constant of `pkg`.
   * @param {GoPackage} pkg
   * @param {string} text
   * @param {string} where
   */
  defaultValue(pkg, text, where) {
    const ref = /^ref\(([^"]+)\)$/.exec(text);
    if (!ref) return JSON.parse(text);
    const c = pkg.consts.find((e) => e.c.name === ref[1]);
    if (c?.c.value === undefined) throw new Error(`${where}: +default=${text} names no string constant`);
    return c.c.value;
  }
}
