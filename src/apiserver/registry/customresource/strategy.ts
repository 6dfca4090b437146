/**
 * The strategies serving the custom resources of one Established CustomResourceDefinition: one per
 * served version, the storage version's holding the objects and the others views of it.
 *
 * Followed (k8s.io/apiextensions-apiserver v0.33.9):
 * - pkg/registry/customresource/strategy.go: status reset on create and kept on update when the status
 *   subresource is enabled; generation 1 on create and bumped on any change outside metadata (so, with
 *   a status subresource, only on spec changes); metadata.name/namespace and `selectableFields` as
 *   field selectors (the JSONPath without its leading dot, the value `fmt.Sprint`ed, "" when absent);
 *   validation, then CEL rules unless an earlier error blocks them (`hasBlockingErr`);
 * - status_strategy.go: a status update keeps everything but status;
 * - validator.go: apiVersion/kind of the object, the scale paths (`should be a non-negative integer`);
 * - etcd.go: the scale subresource over specReplicasPath/statusReplicasPath/labelSelectorPath;
 * - pkg/apiserver/customresource_handler.go: JSON, merge and apply patches only (no strategic merge),
 *   a deprecated version's warning (`defaultDeprecationWarning`), creates refused with 405 while the
 *   CRD is terminating, unknown fields pruned per version (and reported for fieldValidation), and the
 *   conversion between versions: `None` rewrites apiVersion, `Webhook` calls a webhook this server
 *   cannot reach and fails as upstream's webhook converter does (pkg/apiserver/conversion/webhook_converter.go).
 */
import type { CustomResourceDefinition, CustomResourceDefinitionVersion, CustomResourceSubresourceScale } from '../../../api/index.js';
import type { KubeObject } from '../../../api/index.js';
import { field, NIL_PATH, newInternalError, newMethodNotSupported, type FieldError } from '../../../machinery/errors/index.js';
import { bumpGenerationIf, semanticDeepEqual } from '../resources/helpers.js';
import { metaOf } from '../generic/objects.js';
import { isQualifiedName } from '../../../machinery/validation/index.js';
import type { StorageContext, StorageExtension } from '../extension.js';
import type { ResourceInfo, ResourceStrategy, ScaleStrategy, VersionConversion } from '../strategy.js';
import { customResourceMergeType } from './merge-schema.js';
import type { TypeRef } from '../../../machinery/merge/index.js';
import { JsonPath } from './jsonpath.js';
import { customResourceTable } from './table.js';
import {
  applyDefaults,
  type CelStructural,
  compileRules,
  prune,
  toStructural,
  validateCustomObject,
  validateCustomObjectUpdate,
  validateRules,
  type CompiledRules,
  type Structural,
} from './validators.js';

/** Verbs of a custom resource (upstream's CRD discovery lists these). */
export const CUSTOM_RESOURCE_VERBS: readonly string[] = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];

/** The patch types upstream's CRD handler accepts, in its order (`supportedTypes`). */
export const CUSTOM_RESOURCE_PATCH_TYPES: readonly string[] = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];

/** What a strategy needs to know about its CRD while it serves (read when a request runs). */
export interface CustomResourceContext {
  /** True while the CRD is being deleted: creates are refused. */
  terminating(): boolean;
}

/** A served version with what is derived from its schema once. */
interface VersionInfo {
  version: CustomResourceDefinitionVersion;
  structural: Structural;
  rules: CompiledRules;
  mergeType: TypeRef;
}

/** The versions of a CRD, the `spec.versions` entries. */
function versionsOf(crd: CustomResourceDefinition): CustomResourceDefinitionVersion[] {
  return crd.spec?.versions ?? [];
}

/** The name of the version marked `storage: true`. */
export function storageVersionOf(crd: CustomResourceDefinition): string | undefined {
  return versionsOf(crd).find((v) => v.storage)?.name;
}

function versionInfo(v: CustomResourceDefinitionVersion, preserveUnknownFields: boolean): VersionInfo {
  const schema = v.schema?.openAPIV3Schema ?? {};
  const structural = toStructural(schema);
  // CEL compiles from the schema's JSON form (see validators.ts); CRD validation already compiled it.
  return { version: v, structural, rules: compileRules(schema as CelStructural, 'openAPIV3Schema').rules, mergeType: customResourceMergeType(structural, preserveUnknownFields) };
}

/**
 * The strategies serving `crd` (already Established; names from `status.acceptedNames`): the storage
 * version first, then every other served version as its view. The storage version is served even when
 * it is marked `served: false` (the store needs a route; requests to it are what upstream would 404).
 * @throws Error for a CRD without a storage version (CRD validation refuses it)
 */
export function customResourceStrategies(crd: CustomResourceDefinition, ctx: CustomResourceContext): ResourceStrategy[] {
  const stored = storageVersionOf(crd);
  const storedVersion = versionsOf(crd).find((v) => v.name === stored);
  if (!storedVersion || stored === undefined) throw new Error(`CustomResourceDefinition ${crd.metadata?.name ?? ''} has no storage version`);
  const infos = new Map<string, VersionInfo>();
  for (const v of versionsOf(crd)) if (v.served || v.name === stored) infos.set(v.name, versionInfo(v, crd.spec?.preserveUnknownFields === true));
  const base = versionStrategy(crd, infos.get(stored) as VersionInfo, infos, ctx);
  const out: ResourceStrategy[] = [base];
  for (const [name, info] of infos) {
    if (name === stored) continue;
    const view = versionStrategy(crd, info, infos, ctx);
    view.view = { storage: { group: base.info.group, resource: base.info.resource }, conversion: conversionFor(crd, name, stored) };
    delete view.storage;
    out.push(view);
  }
  return out;
}

/** The identity of `v` in discovery. */
function infoOf(crd: CustomResourceDefinition, v: CustomResourceDefinitionVersion): ResourceInfo {
  const names = crd.status?.acceptedNames ?? crd.spec.names;
  const group = crd.spec.group;
  const kind = names.kind;
  const subresources: ResourceInfo['subresources'] = [];
  if (v.subresources?.status) subresources.push({ name: 'status', group, version: v.name, kind, verbs: ['get', 'patch', 'update'] });
  if (v.subresources?.scale) subresources.push({ name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
  return {
    group,
    version: v.name,
    resource: names.plural,
    singular: names.singular ?? kind.toLowerCase(),
    kind,
    listKind: names.listKind ?? `${kind}List`,
    namespaced: crd.spec.scope === 'Namespaced',
    shortNames: [...(names.shortNames ?? [])],
    categories: [...(names.categories ?? [])],
    verbs: [...CUSTOM_RESOURCE_VERBS],
    subresources,
  };
}

/** The strategy of one version (the objects it gets are in the storage version, converted by `None`). */
function versionStrategy(crd: CustomResourceDefinition, vi: VersionInfo, all: Map<string, VersionInfo>, ctx: CustomResourceContext): ResourceStrategy {
  const v = vi.version;
  const info = infoOf(crd, v);
  const hasStatus = !!v.subresources?.status;
  const scaleSpec = v.subresources?.scale;
  const typeMeta = (obj: KubeObject): FieldError[] => {
    const errs: FieldError[] = [];
    // The store hands strategies objects in the storage version; the check is the stored kind's.
    if (obj.kind !== info.kind) errs.push(field.invalid('kind', obj.kind ?? '', `must be ${info.kind}`));
    return errs;
  };
  const withRules = (errs: FieldError[], obj: KubeObject, old: KubeObject | undefined): FieldError[] => {
    // Upstream has a CEL validator only for a schema with rules (`celValidator != nil`).
    if (!vi.rules.root) return errs;
    if (errs.some(isBlocking)) {
      return [...errs, field.invalid(NIL_PATH, null, 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation')];
    }
    return [...errs, ...validateRules(vi.rules, obj, old)];
  };
  const strategy: ResourceStrategy = {
    info,
    hasStatus,
    mergeType: vi.mergeType,
    defaults: (obj) => applyDefaults(obj, vi.structural),
    defaultOnRead: (obj) => applyDefaults(obj, vi.structural),
    prepareForCreate(obj) {
      if (hasStatus) delete obj.status;
      metaOf(obj).generation = 1;
    },
    prepareForUpdate(obj, old) {
      if (hasStatus) {
        if (old.status !== undefined) obj.status = old.status;
        else delete obj.status;
      }
      bumpGenerationIf(obj, old, !semanticDeepEqual(withoutMetadata(obj), withoutMetadata(old)));
    },
    validate(obj) {
      const meta = typeMeta(obj);
      if (meta.length > 0) return meta;
      const errs = [...validateCustomObject(obj, vi.structural), ...scaleErrors(obj, scaleSpec, true)];
      return withRules(errs, obj, undefined);
    },
    validateUpdate(obj, old) {
      const meta = typeMeta(obj);
      if (meta.length > 0) return meta;
      const errs = [...validateCustomObjectUpdate(obj, old, vi.structural), ...scaleErrors(obj, scaleSpec, true)];
      return withRules(errs, obj, old);
    },
    validateStatusUpdate(obj, old) {
      const meta = typeMeta(obj);
      if (meta.length > 0) return meta;
      const errs = [...validateCustomObjectUpdate(obj, old, vi.structural), ...scaleErrors(obj, scaleSpec, false)];
      return withRules(errs, obj, old);
    },
    warningsOnCreate: (obj) => finalizerWarnings(obj, undefined),
    warningsOnUpdate: (obj, old) => finalizerWarnings(obj, old),
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    defaultGarbageCollectionPolicy: 'Background',
    fieldSelectors: selectableFields(v),
    table: customResourceTable(v.additionalPrinterColumns),
    pruneUnknownFields(obj, version) {
      const s = all.get(version)?.structural;
      return s ? prune(obj, s, { isResourceRoot: true }) : [];
    },
    patchTypes: CUSTOM_RESOURCE_PATCH_TYPES,
    storage: (sctx: StorageContext): StorageExtension => ({
      beginCreate: () => {
        if (ctx.terminating()) throw newMethodNotSupported(sctx.store.gr, 'create');
        return () => undefined;
      },
    }),
  };
  if (scaleSpec) strategy.scale = scaleStrategy(scaleSpec);
  const schema = v.schema?.openAPIV3Schema;
  if (schema) strategy.openApiSchema = structuredClone(schema) as Record<string, unknown>;
  if (v.deprecated) strategy.deprecated = { deprecatedIn: '', warning: v.deprecationWarning ?? defaultDeprecationWarning(crd, v.name) };
  return strategy;
}

/** The finalizers Kubernetes itself uses (validator.go `standardFinalizers`). */
const STANDARD_FINALIZERS = new Set(['orphan', 'foregroundDeletion', 'kubernetes']);

/**
 * strategy.go `generateWarningsFromObj`: for each finalizer `obj` adds (sorted), validator.go
 * `validateKubeFinalizerName`'s warnings: qualified-name errors, and a name without a path that is not
 * a standard one should be domain-qualified.
 */
export function finalizerWarnings(obj: KubeObject, old: KubeObject | undefined): string[] {
  const had = new Set(old?.metadata?.finalizers ?? []);
  const added = [...new Set(obj.metadata?.finalizers ?? [])].filter((f) => !had.has(f)).sort();
  const out: string[] = [];
  for (const f of added) {
    const prefix = `metadata.finalizers: ${JSON.stringify(f)}`;
    for (const msg of isQualifiedName(f)) out.push(`${prefix}: ${msg}`);
    if (!f.includes('/') && !STANDARD_FINALIZERS.has(f)) {
      out.push(
        f.includes('.')
          ? `${prefix}: prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers`
          : `${prefix}: prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers`,
      );
    }
  }
  return out;
}

/** `hasBlockingErr`: errors after which CEL rules are not run. */
function isBlocking(e: FieldError): boolean {
  return e.type === 'FieldValueNotSupported' || e.type === 'FieldValueRequired' || e.type === 'FieldValueTooLong' || e.type === 'FieldValueTooMany' || e.type === 'FieldValueTypeInvalid';
}

function withoutMetadata(obj: KubeObject): Record<string, unknown> {
  const rest: Record<string, unknown> = { ...obj };
  delete rest.metadata;
  return rest;
}

/**
 * `defaultDeprecationWarning`: `<group>/<version> <Kind> is deprecated`, then `; use <group>/<v> <Kind>`
 * naming the newest served, non-deprecated version newer than it (Kubernetes version order).
 */
export function defaultDeprecationWarning(crd: CustomResourceDefinition, deprecated: string): string {
  const { group, names } = crd.spec;
  let msg = `${group}/${deprecated} ${names.kind} is deprecated`;
  const newer = versionsOf(crd)
    .filter((v) => v.served && !v.deprecated && compareKubeAwareVersions(deprecated, v.name) < 0)
    .map((v) => v.name)
    .sort((a, b) => compareKubeAwareVersions(b, a));
  if (newer.length > 0) msg += `; use ${group}/${newer[0] as string} ${names.kind}`;
  return msg;
}

/**
 * `version.CompareKubeAwareVersionStrings`: GA > beta > alpha, higher major first, then higher minor;
 * versions not of the `v<major>[alpha|beta<minor>]` form sort after those that are, alphabetically.
 * Negative when `a` sorts before (is older than) `b`.
 */
export function compareKubeAwareVersions(a: string, b: string): number {
  const parse = (v: string): [number, number, number] | undefined => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return undefined;
    return [Number(m[1]), m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0, m[3] === undefined ? 0 : Number(m[3])];
  };
  const pa = parse(a);
  const pb = parse(b);
  if (!pa && !pb) return a < b ? 1 : a > b ? -1 : 0;
  if (!pa) return -1;
  if (!pb) return 1;
  if (pa[1] !== pb[1]) return pa[1] - pb[1];
  if (pa[0] !== pb[0]) return pa[0] - pb[0];
  return pa[2] - pb[2];
}

/** Field selectors from `selectableFields` (`metadata.name`/`namespace` are the store's). */
function selectableFields(v: CustomResourceDefinitionVersion): Record<string, (obj: KubeObject) => string> {
  const out: Record<string, (obj: KubeObject) => string> = {};
  for (const sf of v.selectableFields ?? []) {
    let path: JsonPath;
    try {
      path = JsonPath.parse(sf.jsonPath);
    } catch {
      continue;
    }
    out[sf.jsonPath.replace(/^\./, '')] = (obj) => {
      const value = path.find(obj)[0];
      return value === undefined || value === null ? '' : jsonText(value);
    };
  }
  return out;
}

/** `.spec.replicas` → [spec, replicas] (etcd.go `splitReplicasPath`). */
function splitPath(path: string): string[] {
  return path.replace(/^\./, '').split('.');
}

/** A nested value and whether it was found (unstructured.NestedFieldNoCopy). */
function nested(obj: unknown, path: string): { found: boolean; value: unknown } {
  let cur: unknown = obj;
  for (const key of splitPath(path)) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur) || !Object.hasOwn(cur, key)) return { found: false, value: undefined };
    cur = (cur as Record<string, unknown>)[key];
  }
  return { found: true, value: cur };
}

/** Go's `%T` of a JSON value as unstructured holds it. */
function goTypeOf(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  if (v === null) return '<nil>';
  return 'map[string]interface {}';
}

/** `unstructured.NestedInt64`: the value, or the accessor error upstream reports. */
function nestedInt(obj: unknown, path: string): { value: number; error?: string } {
  const { found, value } = nested(obj, path);
  if (!found) return { value: 0 };
  if (typeof value === 'number' && Number.isInteger(value)) return { value };
  const jsonPath = `.${splitPath(path).join('.')}`;
  return { value: 0, error: `${jsonPath} accessor error: ${goValue(value)} is of the type ${goTypeOf(value)}, expected int64` };
}

/** `%v` of a JSON value, as Go prints unstructured content. */
function goValue(v: unknown): string {
  if (v === null) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `map[${Object.keys(o).sort().map((k) => `${k}:${goValue(o[k])}`).join(' ')}]`;
  }
  return jsonText(v);
}

/** A JSON value as text: strings as they are, other scalars as JSON prints them, objects as compact JSON. */
export function jsonText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

const MAX_INT32 = 2147483647;

/** validator.go `ValidateScaleSpec` (with `spec`) and `ValidateScaleStatus`. */
function scaleErrors(obj: KubeObject, scale: CustomResourceSubresourceScale | undefined, spec: boolean): FieldError[] {
  if (!scale) return [];
  const errs: FieldError[] = [];
  const replicas = (path: string): void => {
    const r = nestedInt(obj, path);
    if (r.error !== undefined) errs.push(field.invalid(path, r.value, r.error));
    else if (r.value < 0) errs.push(field.invalid(path, r.value, 'should be a non-negative integer'));
    else if (r.value > MAX_INT32) errs.push(field.invalid(path, r.value, `should be less than or equal to ${MAX_INT32}`));
  };
  if (spec) replicas(scale.specReplicasPath);
  else {
    replicas(scale.statusReplicasPath);
    if (scale.labelSelectorPath) {
      const { found, value } = nested(obj, scale.labelSelectorPath);
      if (found && typeof value !== 'string') {
        const jsonPath = `.${splitPath(scale.labelSelectorPath).join('.')}`;
        errs.push(field.invalid(scale.labelSelectorPath, '', `${jsonPath} accessor error: ${goValue(value)} is of the type ${goTypeOf(value)}, expected string`));
      }
    }
  }
  return errs;
}

/** The scale subresource over the CRD's paths (etcd.go `scaleFromCustomResource`); missing values are 0 / "". */
function scaleStrategy(scale: CustomResourceSubresourceScale): ScaleStrategy {
  const int = (obj: KubeObject, path: string): number => {
    const { value } = nested(obj, path);
    return typeof value === 'number' ? Math.trunc(value) : 0;
  };
  return {
    specReplicasPath: splitPath(scale.specReplicasPath),
    specReplicas: (obj) => int(obj, scale.specReplicasPath),
    setSpecReplicas(obj, replicas) {
      const keys = splitPath(scale.specReplicasPath);
      let cur = obj;
      for (const key of keys.slice(0, -1)) {
        const next = cur[key];
        if (next === null || typeof next !== 'object' || Array.isArray(next)) cur[key] = {};
        cur = cur[key] as Record<string, unknown>;
      }
      cur[keys[keys.length - 1] as string] = replicas;
    },
    statusReplicas: (obj) => int(obj, scale.statusReplicasPath),
    selector(obj) {
      if (!scale.labelSelectorPath) return '';
      const { value } = nested(obj, scale.labelSelectorPath);
      return typeof value === 'string' ? value : '';
    },
  };
}

/**
 * The conversion of `version` ↔ the storage version: `None` changes nothing but apiVersion (the store
 * sets it); `Webhook` fails every conversion as upstream's converter does when the webhook cannot be
 * reached (500 `conversion webhook for <group>/<from>, Kind=<Kind> failed: Post "<url>": …`).
 */
function conversionFor(crd: CustomResourceDefinition, version: string, stored: string): VersionConversion {
  const conversion = crd.spec.conversion;
  if (conversion?.strategy !== 'Webhook') return { toStorage: (obj) => obj, fromStorage: (obj) => obj };
  const fail = (from: string): never => {
    throw newInternalError(`conversion webhook for ${crd.spec.group}/${from}, Kind=${crd.spec.names.kind} failed: ${webhookFailure(crd)}`);
  };
  return { toStorage: () => fail(version), fromStorage: () => fail(stored) };
}

/** What calling the conversion webhook of `crd` fails with here: no service or URL is reachable. */
function webhookFailure(crd: CustomResourceDefinition): string {
  const client = crd.spec.conversion?.webhook?.clientConfig;
  const service = client?.service;
  if (service) {
    const url = `https://${service.name}.${service.namespace}.svc:${service.port ?? 443}${service.path ?? ''}?timeout=30s`;
    return `Post "${url}": service "${service.name}" not found`;
  }
  const url = client?.url ?? '';
  return `Post "${url}${url.includes('?') ? '&' : '?'}timeout=30s": dial tcp: connect: connection refused`;
}
