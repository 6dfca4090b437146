/**
 * The `metadata` of custom objects and of the resources embedded in them
 * (`x-kubernetes-embedded-resource`): upstream k8s.io/apiextensions-apiserver
 * pkg/apiserver/schema/objectmeta — coercion (coerce.go: only the fields of `metav1.ObjectMeta` are
 * kept, as a round trip through the typed struct does) and validation (validation.go: an embedded
 * resource needs apiVersion and kind, and its metadata is validated as any ObjectMeta).
 */
import type { ObjectMeta } from '../../../../api/index.js';
import { field, type FieldError } from '../../../../machinery/errors/index.js';
import { isDNS1035Label, isValidPathSegmentName, validateObjectMeta } from '../../../../machinery/validation/index.js';
import { goBadValue } from './listtype.js';
import { isJSONObject, propertyOf, type Structural } from './structural.js';

/** How a metav1.ObjectMeta field decodes: the JSON it accepts and Go's name of its type. */
type MetaFieldKind = 'string' | 'int' | 'time' | 'stringMap' | 'strings' | 'objects';

const OBJECT_META_FIELDS: Record<string, MetaFieldKind> = {
  name: 'string',
  generateName: 'string',
  namespace: 'string',
  selfLink: 'string',
  uid: 'string',
  resourceVersion: 'string',
  generation: 'int',
  creationTimestamp: 'time',
  deletionTimestamp: 'time',
  deletionGracePeriodSeconds: 'int',
  labels: 'stringMap',
  annotations: 'stringMap',
  ownerReferences: 'objects',
  finalizers: 'strings',
  managedFields: 'objects',
};

const GO_TYPE: Record<MetaFieldKind, string> = {
  string: 'string',
  int: 'int64',
  time: 'v1.Time',
  stringMap: 'map[string]string',
  strings: '[]string',
  objects: '[]v1.OwnerReference',
};

/** The fields of the structs inside ObjectMeta lists, for the unknown-field paths of nested members. */
const NESTED_FIELDS: Record<string, readonly string[]> = {
  ownerReferences: ['apiVersion', 'kind', 'name', 'uid', 'controller', 'blockOwnerDeletion'],
  managedFields: ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource'],
};

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  return typeof v === 'boolean' ? 'bool' : typeof v;
}

/** The Go decoding error of a metadata field that has the wrong JSON type, or undefined when it decodes. */
function decodeError(key: string, kind: MetaFieldKind, v: unknown): string | undefined {
  if (v === null) return undefined;
  let ok: boolean;
  switch (kind) {
    case 'string':
    case 'time':
      ok = typeof v === 'string';
      break;
    case 'int':
      ok = typeof v === 'number' && Number.isInteger(v);
      break;
    case 'stringMap':
      ok = isJSONObject(v) && Object.values(v).every((x) => x === null || typeof x === 'string');
      break;
    case 'strings':
      ok = Array.isArray(v) && v.every((x) => x === null || typeof x === 'string');
      break;
    case 'objects':
      ok = Array.isArray(v) && v.every((x) => x === null || isJSONObject(x));
  }
  if (ok) return undefined;
  const type = key === 'managedFields' ? '[]v1.ManagedFieldsEntry' : GO_TYPE[kind];
  return `json: cannot unmarshal ${jsonKind(v)} into Go struct field ObjectMeta.${key} of type ${type}`;
}

/** Go's `omitempty` on the round trip: zero values of ObjectMeta fields are not written back. */
function isEmpty(v: unknown): boolean {
  if (v === null || v === undefined || v === '' || v === 0) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isJSONObject(v) && Object.keys(v).length === 0;
}

/** Result of {@link coerceObjectMeta}. */
export interface CoercedObjectMeta {
  /** The metadata with only ObjectMeta's fields, or undefined when it could not be decoded. */
  meta?: Record<string, unknown>;
  /** Unknown fields dropped, as `metadata.foo` / `spec.template.metadata.ownerReferences[0].bar`, in input order. */
  unknownFields: string[];
  /** The decoding error (Go's json message) when a field has the wrong type and malformed fields are not dropped. */
  error?: string;
}

/**
 * `GetObjectMetaWithOptions` + `SetObjectMeta`: `metadata` as it comes back from a round trip through
 * metav1.ObjectMeta — unknown fields dropped and reported under `<parentPath>.metadata`, empty ones
 * omitted; a field of the wrong type is an error, or dropped with `dropMalformedFields` (as upstream
 * does for objects read from storage).
 */
export function coerceObjectMeta(metadata: unknown, parentPath: string, dropMalformedFields: boolean): CoercedObjectMeta {
  const prefix = parentPath ? `${parentPath}.metadata` : 'metadata';
  if (!isJSONObject(metadata)) {
    // null decodes as an empty ObjectMeta, written back as {}.
    if (metadata === null) return { meta: {}, unknownFields: [] };
    const error = `json: cannot unmarshal ${jsonKind(metadata)} into Go value of type v1.ObjectMeta`;
    return dropMalformedFields ? { unknownFields: [] } : { unknownFields: [], error };
  }
  const out: Record<string, unknown> = {};
  const unknownFields: string[] = [];
  for (const [k, v] of Object.entries(metadata)) {
    const kind = Object.hasOwn(OBJECT_META_FIELDS, k) ? OBJECT_META_FIELDS[k] : undefined;
    if (kind === undefined) {
      unknownFields.push(`${prefix}.${k}`);
      continue;
    }
    const err = decodeError(k, kind, v);
    if (err !== undefined) {
      if (!dropMalformedFields) return { unknownFields, error: err };
      continue;
    }
    if (isEmpty(v)) continue;
    const nested = NESTED_FIELDS[k];
    if (nested && Array.isArray(v)) {
      out[k] = v.map((entry: unknown, i) => {
        if (!isJSONObject(entry)) return {};
        const kept: Record<string, unknown> = {};
        for (const [ek, ev] of Object.entries(entry)) {
          if (nested.includes(ek)) kept[ek] = ev;
          else unknownFields.push(`${prefix}.${k}[${i}].${ek}`);
        }
        return kept;
      });
    } else if (kind === 'stringMap' || kind === 'strings') {
      // null members decode as "" (Go's zero string).
      out[k] = Array.isArray(v) ? v.map((x: unknown) => x ?? '') : Object.fromEntries(Object.entries(v as object).map(([mk, mv]) => [mk, mv ?? '']));
    } else {
      out[k] = v;
    }
  }
  return { meta: out, unknownFields };
}

/**
 * Coerces `metadata` of `obj` in place (see {@link coerceObjectMeta}); with `dropMalformedFields` a
 * malformed metadata is reduced to its well-formed fields, otherwise it is left as is and the error
 * returned. Returns the unknown-field paths and the error, if any.
 */
export function coerceMetadataOf(obj: Record<string, unknown>, parentPath: string, dropMalformedFields: boolean): { unknownFields: string[]; error?: string } {
  if (!Object.hasOwn(obj, 'metadata')) return { unknownFields: [] };
  const m = obj['metadata'];
  // Upstream leaves a metadata that is not an object alone when dropping malformed fields.
  if (dropMalformedFields && m !== null && !isJSONObject(m)) return { unknownFields: [] };
  const c = coerceObjectMeta(m, parentPath, dropMalformedFields);
  if (c.error !== undefined) return { unknownFields: c.unknownFields, error: c.error };
  if (c.meta === undefined) delete obj['metadata'];
  else obj['metadata'] = c.meta;
  return { unknownFields: c.unknownFields };
}

function child(path: string, k: string): string {
  return path ? `${path}.${k}` : k;
}

/** `schema.ParseGroupVersion`'s error, or undefined. */
function parseGroupVersionError(gv: string): string | undefined {
  if (gv === '/' || gv.split('/').length <= 2) return undefined;
  return `unexpected GroupVersion string: ${gv}`;
}

/** `ValidatePathSegmentName(name, prefix)`: for a generateName (prefix) only `/` and `%` are checked. */
function pathSegmentNameValidator(name: string): string[] {
  return isValidPathSegmentName(name);
}

function validateEmbeddedResource(path: string, x: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  if (!Object.hasOwn(x, 'apiVersion')) errs.push(field.required(child(path, 'apiVersion'), 'must not be empty'));
  if (!Object.hasOwn(x, 'kind')) errs.push(field.required(child(path, 'kind'), 'must not be empty'));
  for (const [k, v] of Object.entries(x)) {
    if (k === 'apiVersion') {
      const p = child(path, 'apiVersion');
      if (typeof v !== 'string') errs.push(field.invalid(p, goBadValue(v), 'must be a string'));
      else if (v === '') errs.push(field.invalid(p, v, 'must not be empty'));
      else {
        const err = parseGroupVersionError(v);
        if (err !== undefined) errs.push(field.invalid(p, v, err));
      }
    } else if (k === 'kind') {
      const p = child(path, 'kind');
      if (typeof v !== 'string') errs.push(field.invalid(p, goBadValue(v), 'must be a string'));
      else if (v === '') errs.push(field.invalid(p, v, 'must not be empty'));
      else {
        const msgs = isDNS1035Label(v.toLowerCase());
        if (msgs.length) errs.push(field.invalid(p, v, `may have mixed case, but should otherwise match: ${msgs.join(',')}`));
      }
    } else if (k === 'metadata') {
      const p = child(path, 'metadata');
      const c = coerceObjectMeta(v, path, false);
      if (c.error !== undefined) {
        errs.push(field.invalid(p, goBadValue(v), c.error));
        continue;
      }
      const meta = { ...(c.meta ?? {}) } as ObjectMeta;
      // Upstream sets a name so that an embedded template without one passes.
      if (!meta.name) meta.name = 'fakename';
      errs.push(...validateObjectMeta(meta, { namespaced: Boolean(meta.namespace), nameValidator: pathSegmentNameValidator }, p));
    }
  }
  return errs;
}

function validateWalk(path: string, x: unknown, s: Structural | undefined, errs: FieldError[]): void {
  if (!s) return;
  if (isJSONObject(x)) {
    if (s.xEmbeddedResource) errs.push(...validateEmbeddedResource(path, x));
    for (const [k, v] of Object.entries(x)) {
      const prop = propertyOf(s, k);
      if (prop) validateWalk(child(path, k), v, prop, errs);
      else if (s.additionalProperties) validateWalk(`${path}[${k}]`, v, s.additionalProperties.structural, errs);
    }
  } else if (Array.isArray(x)) {
    x.forEach((v, i) => validateWalk(`${path}[${i}]`, v, s.items, errs));
  }
}

/**
 * `objectmeta.Validate`: the embedded resources of a custom object (`x-kubernetes-embedded-resource`)
 * need apiVersion and kind (`spec.template.apiVersion: Required value: must not be empty`) and valid
 * metadata (`spec.template.metadata.name: Invalid value: "a/b": may not contain '/'`). With
 * `isResourceRoot` the object itself is checked as an embedded resource too (the custom-object path
 * passes false: the root's metadata is validated as any object's).
 */
export function validateEmbeddedResources(path: string, obj: unknown, s: Structural | undefined, isResourceRoot: boolean): FieldError[] {
  const errs: FieldError[] = [];
  validateWalk(path, obj, isResourceRoot ? { ...(s ?? {}), xEmbeddedResource: true } : s, errs);
  return errs;
}

/** Result of {@link coerce}. */
export interface CoerceResult {
  /** The first error (only without `dropInvalidFields`). */
  error?: FieldError;
  /** The unknown metadata fields dropped, sorted (`metadata.foo`, `spec.template.metadata.bar`). */
  unknownFields: string[];
}

/**
 * `objectmeta.CoerceWithOptions` (coerce.go), in place: in every embedded resource of `x` (and `x`
 * itself with `isResourceRoot`) apiVersion and kind must be strings (`<path>.kind: Invalid value: 1:
 * must be a string`) and `metadata` keeps only ObjectMeta's fields (see {@link coerceObjectMeta});
 * with `dropInvalidFields` malformed fields are dropped instead of failing. Paths as upstream's
 * field.Path: `.k` for properties, `[k]` for additionalProperties, `[i]` for items.
 */
export function coerce(path: string, x: unknown, s: Structural | undefined, isResourceRoot: boolean, opts: { dropInvalidFields: boolean }): CoerceResult {
  const root = isResourceRoot && !s?.xEmbeddedResource ? { ...(s ?? {}), xEmbeddedResource: true } : s;
  const unknownFields: string[] = [];
  const error = coerceWalk(path, x, root, opts.dropInvalidFields, unknownFields);
  unknownFields.sort();
  return error ? { error, unknownFields } : { unknownFields };
}

function coerceEmbedded(path: string, x: Record<string, unknown>, k: string, drop: boolean, unknownFields: string[]): FieldError | undefined {
  const v = x[k];
  if (k === 'apiVersion' || k === 'kind') {
    if (typeof v === 'string') return undefined;
    if (drop) delete x[k];
    else return field.invalid(child(path, k), goBadValue(v), 'must be a string');
  } else if (k === 'metadata') {
    const c = coerceMetadataOf(x, path, drop);
    unknownFields.push(...c.unknownFields);
    if (c.error !== undefined) return field.invalid(child(path, 'metadata'), goBadValue(v), c.error);
  }
  return undefined;
}

function coerceWalk(path: string, x: unknown, s: Structural | undefined, drop: boolean, unknownFields: string[]): FieldError | undefined {
  if (!s) return undefined;
  if (isJSONObject(x)) {
    for (const k of Object.keys(x)) {
      if (s.xEmbeddedResource) {
        const err = coerceEmbedded(path, x, k, drop, unknownFields);
        if (err) return err;
      }
      const prop = propertyOf(s, k);
      const v = x[k];
      const err = prop ? coerceWalk(child(path, k), v, prop, drop, unknownFields) : s.additionalProperties ? coerceWalk(`${path}[${k}]`, v, s.additionalProperties.structural, drop, unknownFields) : undefined;
      if (err) return err;
    }
  } else if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) {
      const err = coerceWalk(`${path}[${i}]`, x[i], s.items, drop, unknownFields);
      if (err) return err;
    }
  }
  return undefined;
}
