/**
 * The field manager the API server runs on every write: upstream's default chain of managers over
 * the structured merge. Follows k8s.io/apimachinery pkg/util/managedfields/fieldmanager.go and
 * internal/fieldmanager.go (v0.33.9).
 */
import type { KubeObject } from '../../api/index.js';
import type { Clock } from '../../util/clock/index.js';
import type { Rand } from '../../util/random/index.js';
import { valuesEqual, type FieldSet, type Value } from '../fieldpath/index.js';
import { Conflicts } from '../merge/index.js';
import { BuildManagerInfoManager } from './build-manager-info.js';
import { CapManagersManager, DEFAULT_MAX_UPDATE_MANAGERS } from './cap-managers.js';
import { newConflictError } from './conflict.js';
import { LastAppliedManager, LastAppliedUpdater } from './last-applied.js';
import { decodeManagedFields, encodeObjectManagedFields, newEmptyManaged, removeObjectManagedFields, type Managed, type Manager } from './managed.js';
import { ManagedFieldsUpdater } from './managed-fields-updater.js';
import { DEFAULT_TRACK_ON_CREATE_PROBABILITY, SkipNonAppliedManager } from './skip-non-applied.js';
import { StripMetaManager } from './strip-meta.js';
import { StructuredMergeManager } from './structured-merge.js';
import type { TypeConverter } from './type-converter.js';
import { VersionCheckManager } from './version-check.js';
import type { ObjectConverter } from './version-converter.js';

/** What a {@link FieldManager} is built from (NewDefaultFieldManager / NewDefaultCRDFieldManager). */
export interface FieldManagerOptions {
  readonly typeConverter: TypeConverter;
  readonly objectConverter: ObjectConverter;
  /** Sets an object's defaults in place (after an apply's merge). */
  readonly defaulter: (obj: KubeObject) => void;
  /** The empty object of the kind as the typed conversion sees Go's `New()` (merge's zeroObject), with apiVersion and kind. */
  readonly creater: () => KubeObject;
  /** The endpoint's version, `apps/v1`. */
  readonly groupVersion: string;
  readonly kind: string;
  /** The version objects are converted through (stored in). */
  readonly hubVersion: string;
  /** `''` for the main resource, else `status`, `scale`, … */
  readonly subresource: string;
  /** Per version, what nobody owns at this endpoint (`status` for the main resource, the rest for /status). */
  readonly resetFields: ReadonlyMap<string, FieldSet>;
  readonly clock: Clock;
  /** Update managers kept before the oldest merge into `ancient-changes`; 10 by default. */
  readonly maxUpdateManagers?: number;
  /** Custom resources: conversions go through the hub version itself (NewDefaultCRDFieldManager). */
  readonly crd?: boolean;
  /** Probability of tracking creates (1 upstream) and the randomness for it when below 1. */
  readonly trackOnCreateProbability?: number;
  readonly rand?: Rand;
}

/** Whether a request's managedFields asks to reset ownership (isResetManagedFields): `[]` or `[{}]`. */
function isResetManagedFields(managedFields: unknown): boolean {
  if (!Array.isArray(managedFields)) return false;
  if (managedFields.length === 0) return true;
  if (managedFields.length === 1) {
    const only: unknown = managedFields[0];
    return typeof only === 'object' && only !== null && Object.values(only).every((v) => v === undefined || v === '' || v === null);
  }
  return false;
}

/** Decode, with an undecodable list read as no managers (emptyManagedFieldsOnErr). */
function decodeOrEmpty(encoded: unknown): Managed {
  try {
    return decodeManagedFields(encoded);
  } catch {
    return newEmptyManaged();
  }
}

/**
 * The ownership a write starts from (decodeLiveOrNew): for a subresource always the live object's;
 * else the request's `metadata.managedFields` when it sets any (`[]` or `[{}]` resets to none), the
 * live object's when it sets none or cannot be decoded.
 */
function decodeLiveOrNew(liveObj: KubeObject, newObj: KubeObject, ignoreFromRequest: boolean): Managed {
  if (ignoreFromRequest) return decodeOrEmpty(liveObj.metadata?.managedFields);
  const requested: unknown = newObj.metadata?.managedFields;
  if (isResetManagedFields(requested)) return newEmptyManaged();
  const live: unknown = liveObj.metadata?.managedFields;
  // Most writes send the live list back unchanged (a patch, a read-modify-write): decoding the live
  // list, which came from storage, gives the same ownership and lets unchanged sets be written back as
  // they were read.
  if (requested !== undefined && live !== undefined && valuesEqual(requested as Value, live as Value)) return decodeOrEmpty(live);
  try {
    const managed = decodeManagedFields(requested);
    if (managed.fields.size > 0) return managed;
  } catch {
    // An invalid list from the client is ignored: the live ownership stays.
  }
  return decodeOrEmpty(liveObj.metadata?.managedFields);
}

/** A copy of the object whose metadata (and annotations) can be changed without touching the caller's. */
function ownMetadata(obj: KubeObject): KubeObject {
  const metadata = obj.metadata === undefined ? undefined : { ...obj.metadata, ...(obj.metadata.annotations !== undefined ? { annotations: { ...obj.metadata.annotations } } : {}) };
  return metadata === undefined ? { ...obj } : { ...obj, metadata };
}

/**
 * Upstream's default chain (NewDefaultFieldManager): version check → last-applied updater →
 * last-applied manager → skip non-applied → cap managers → build manager info → managed-fields
 * updater → strip meta → structured merge.
 */
export function newDefaultChain(opts: FieldManagerOptions): Manager {
  const merge = new StructuredMergeManager({
    typeConverter: opts.typeConverter,
    objectConverter: opts.objectConverter,
    defaulter: opts.defaulter,
    groupVersion: opts.groupVersion,
    hubVersion: opts.hubVersion,
    resetFields: opts.resetFields,
    ...(opts.crd !== undefined ? { crd: opts.crd } : {}),
  });
  return new VersionCheckManager(
    new LastAppliedUpdater(
      new LastAppliedManager(
        new SkipNonAppliedManager(
          new CapManagersManager(new BuildManagerInfoManager(new ManagedFieldsUpdater(new StripMetaManager(merge), opts.clock), opts.groupVersion, opts.subresource), opts.maxUpdateManagers ?? DEFAULT_MAX_UPDATE_MANAGERS),
          opts.creater,
          opts.trackOnCreateProbability ?? DEFAULT_TRACK_ON_CREATE_PROBABILITY,
          opts.rand,
        ),
        opts.typeConverter,
        opts.objectConverter,
        opts.groupVersion,
      ),
    ),
    opts.groupVersion,
    opts.kind,
  );
}

/**
 * Records who owns which fields on every write and merges applies (FieldManager, by default over
 * {@link newDefaultChain}).
 * Objects are JSON objects; the caller's objects are not changed (only a shallow copy of metadata
 * is written), but the returned object may share subtrees with them.
 */
export class FieldManager {
  private readonly chain: Manager;
  private readonly subresource: string;

  /** The default chain from options, or (NewFieldManager) any chain of {@link Manager}s, as upstream's tests build. */
  constructor(opts: FieldManagerOptions | { readonly manager: Manager; readonly subresource: string }) {
    this.subresource = opts.subresource;
    this.chain = 'manager' in opts ? opts.manager : newDefaultChain(opts);
  }

  /**
   * Record a create/update/patch by `manager` (FieldManager.Update): `liveObj` is the stored object
   * (for a create, `creater()`), `newObj` what will be stored. Returns `newObj` with
   * `metadata.managedFields` set (or removed when nobody owns anything). Throws when the objects do
   * not fit the schema.
   */
  update(liveObj: KubeObject, newObj: KubeObject, manager: string): KubeObject {
    const managed = decodeLiveOrNew(liveObj, newObj, this.subresource !== '');
    const obj = ownMetadata(newObj);
    removeObjectManagedFields(obj);
    const r = this.chain.update(liveObj, obj, managed, manager);
    const object = r.object ?? obj;
    encodeObjectManagedFields(object, r.managed);
    return object;
  }

  /** {@link update}, but on failure the new object without managedFields (UpdateNoErrors; upstream logs it at most once a second). */
  updateNoErrors(liveObj: KubeObject, newObj: KubeObject, manager: string): KubeObject {
    try {
      return this.update(liveObj, newObj, manager);
    } catch {
      const obj = ownMetadata(newObj);
      removeObjectManagedFields(obj);
      return obj;
    }
  }

  /**
   * Apply a configuration for `manager` (FieldManager.Apply): the merged object with
   * `metadata.managedFields` set. Throws StatusError 409 on conflicts (unless `force`), 400 for a
   * configuration of another kind or version, with managedFields, or not fitting the schema; an Error
   * `failed to decode managed fields: …` when the live object's cannot be decoded.
   */
  apply(liveObj: KubeObject, appliedObj: Record<string, unknown>, manager: string, force: boolean): KubeObject {
    let managed: Managed;
    try {
      managed = decodeManagedFields(liveObj.metadata?.managedFields);
    } catch (e) {
      throw new Error(`failed to decode managed fields: ${(e as Error).message}`, { cause: e });
    }
    let r;
    try {
      r = this.chain.apply(liveObj, appliedObj, managed, manager, force);
    } catch (e) {
      if (e instanceof Conflicts) throw newConflictError(e);
      throw e;
    }
    const object = r.object ?? structuredClone(liveObj);
    encodeObjectManagedFields(object, r.managed);
    return object;
  }
}
