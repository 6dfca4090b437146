/**
 * The innermost step of the field manager: ownership of an update and the merge of an apply over
 * typed values, in the version the request is in. Follows k8s.io/apimachinery
 * pkg/util/managedfields/internal/structuredmerge.go (v0.33.9).
 */
import type { KubeObject } from '../../api/index.js';
import { newBadRequest, StatusError } from '../errors/index.js';
import type { FieldSet } from '../fieldpath/index.js';
import { Updater, ValidationErrors, type TypedValue } from '../merge/index.js';
import { newManaged, type Managed, type Manager, type ManagerResult } from './managed.js';
import { gvkString, parseGroupVersion, type TypeConverter } from './type-converter.js';
import { newVersionConverter, type ObjectConverter } from './version-converter.js';

/** What the structured merge step needs (NewStructuredMergeManager / NewCRDStructuredMergeManager). */
export interface StructuredMergeOptions {
  readonly typeConverter: TypeConverter;
  readonly objectConverter: ObjectConverter;
  /** Sets defaults on an applied object in place (runtime.ObjectDefaulter). */
  readonly defaulter: (obj: KubeObject) => void;
  /** The version requests are in: `apps/v1`. */
  readonly groupVersion: string;
  /** The version objects are stored in, and converted through. */
  readonly hubVersion: string;
  /** Per version, what nobody owns (the API server's reset fields), with everything below it. */
  readonly resetFields?: ReadonlyMap<string, FieldSet>;
  /** Custom resources: conversions go through the hub version itself. */
  readonly crd?: boolean;
}

/** `namespace/name; group/version, Kind=K` of an object for error texts (objectGVKNN). */
export function objectGVKNN(obj: KubeObject): string {
  return `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}; ${gvkString(obj.apiVersion, obj.kind)}`;
}

/** Whether an error came from a value that does not fit the schema. */
function isValidation(e: unknown): boolean {
  return e instanceof ValidationErrors || (e instanceof Error && e.cause instanceof ValidationErrors);
}

/**
 * A conversion failure with upstream's context prefix. A conversion the API server refuses as the
 * client's fault (a StatusError, e.g. 400 `… cannot be handled as a …`) keeps its status, where
 * upstream's plain error would be a 500.
 */
function conversionError(context: string, e: unknown): Error {
  const message = `${context}: ${(e as Error).message}`;
  if (e instanceof StatusError) return new StatusError({ ...e.status, message });
  return new Error(message, { cause: e });
}

/** GroupVersion.String() of an object's apiVersion. */
function objectGroupVersion(obj: KubeObject): string {
  const { group, version } = parseGroupVersion(obj.apiVersion ?? '');
  return group === '' ? version : `${group}/${version}`;
}

/**
 * The structured merge step (structuredMergeManager). Upstream answers a configuration that does not
 * fit the schema (duplicate map-list keys, wrong types) with a 500; we answer 400 with the same text.
 */
export class StructuredMergeManager implements Manager {
  private readonly updater: Updater;

  constructor(private readonly opts: StructuredMergeOptions) {
    // The reset fields as ignored sets: the Updater filters with them as upstream's IgnoreFilter of
    // NewExcludeSetFilter does, and its comparisons skip them (a /status write's spec is not walked).
    const ignoredFields = opts.resetFields ?? new Map<string, FieldSet>();
    this.updater = new Updater(newVersionConverter(opts.typeConverter, opts.objectConverter, opts.hubVersion, opts.crd === true), { ignoredFields });
  }

  private toVersioned(obj: KubeObject): KubeObject {
    return this.opts.objectConverter.convert(obj, this.opts.groupVersion);
  }

  private typed(obj: KubeObject, allowDuplicates: boolean, context: string): TypedValue {
    try {
      return this.opts.typeConverter.objectToTyped(obj, { allowDuplicates });
    } catch (e) {
      throw new Error(`${context}: ${(e as Error).message}`, { cause: e });
    }
  }

  update(liveObj: KubeObject, newObj: KubeObject, managed: Managed, manager: string): ManagerResult {
    let newVersioned: KubeObject;
    try {
      newVersioned = this.toVersioned(newObj);
    } catch (e) {
      throw conversionError(`failed to convert new object (${objectGVKNN(newObj)}) to proper version (${this.opts.groupVersion})`, e);
    }
    let liveVersioned: KubeObject;
    try {
      liveVersioned = this.toVersioned(liveObj);
    } catch (e) {
      throw conversionError(`failed to convert live object (${objectGVKNN(liveObj)}) to proper version`, e);
    }
    const newTyped = this.typed(newVersioned, true, `failed to convert new object (${objectGVKNN(newVersioned)}) to smd typed`);
    const liveTyped = this.typed(liveVersioned, true, `failed to convert live object (${objectGVKNN(liveVersioned)}) to smd typed`);
    let fields;
    try {
      fields = this.updater.update(liveTyped, newTyped, this.opts.groupVersion, managed.fields, manager).managers;
    } catch (e) {
      throw new Error(`failed to update ManagedFields (${objectGVKNN(newVersioned)}): ${(e as Error).message}`, { cause: e });
    }
    return { object: newObj, managed: newManaged(fields, managed.times) };
  }

  /**
   * Throws 400 `Incorrect version specified in apply patch. Specified patch version: X, expected: Y`,
   * 400 `metadata.managedFields must be nil`, 400 for a configuration that does not fit the schema,
   * and merge Conflicts.
   */
  apply(liveObj: KubeObject, patchObj: KubeObject, managed: Managed, manager: string, force: boolean): ManagerResult {
    const patchVersion = objectGroupVersion(patchObj);
    if (patchVersion !== this.opts.groupVersion) {
      throw newBadRequest(`Incorrect version specified in apply patch. Specified patch version: ${patchVersion}, expected: ${this.opts.groupVersion}`);
    }
    // A list present in the configuration, even empty, is not nil.
    if (patchObj.metadata?.managedFields !== undefined && patchObj.metadata.managedFields !== null) throw newBadRequest('metadata.managedFields must be nil');
    let liveVersioned: KubeObject;
    try {
      liveVersioned = this.toVersioned(liveObj);
    } catch (e) {
      throw conversionError(`failed to convert live object (${objectGVKNN(liveObj)}) to proper version`, e);
    }
    let patchTyped: TypedValue;
    try {
      patchTyped = this.typed(patchObj, false, `failed to create typed patch object (${objectGVKNN(patchObj)})`);
    } catch (e) {
      throw isValidation(e) ? newBadRequest((e as Error).message) : e;
    }
    const liveTyped = this.typed(liveVersioned, true, `failed to create typed live object (${objectGVKNN(liveVersioned)})`);
    let result;
    try {
      result = this.updater.apply(liveTyped, patchTyped, this.opts.groupVersion, managed.fields, manager, force);
    } catch (e) {
      throw isValidation(e) ? newBadRequest((e as Error).message) : e;
    }
    const out = newManaged(result.managers, managed.times);
    if (result.object === undefined) return { object: undefined, managed: out };
    let newObj: KubeObject;
    try {
      // The merged value may share subtrees with the live object and the configuration; the defaulter writes to it.
      newObj = structuredClone(this.opts.typeConverter.typedToObject(result.object));
    } catch (e) {
      throw conversionError(`failed to convert new typed object (${objectGVKNN(patchObj)}) to object`, e);
    }
    let newVersioned: KubeObject;
    try {
      newVersioned = this.toVersioned(newObj);
    } catch (e) {
      throw conversionError(`failed to convert new object (${objectGVKNN(patchObj)}) to proper version`, e);
    }
    this.opts.defaulter(newVersioned);
    try {
      return { object: this.opts.objectConverter.convert(newVersioned, this.opts.hubVersion), managed: out };
    } catch (e) {
      throw conversionError(`failed to convert to unversioned (${objectGVKNN(patchObj)})`, e);
    }
  }
}
