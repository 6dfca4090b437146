/**
 * The field managers of one store: who owns which fields of its objects (`metadata.managedFields`)
 * and server-side apply, one {@link FieldManager} per endpoint — the request's version and
 * subresource — as k8s.io/apiserver pkg/endpoints/installer.go builds a RequestScope's FieldManager
 * (`managedfields.NewDefaultFieldManager`, or `NewDefaultCRDFieldManager` for custom resources).
 *
 * Objects go in and come out in the stored version (upstream's hub is the internal version; ours is
 * the stored one); the field manager converts them to the endpoint's version through the store's
 * views. Reset fields, which nobody owns at an endpoint (the strategies' `GetResetFields`): `status`
 * at the main resource of a kind with a status subresource, `spec` at `/status`.
 */
import type { KubeObject } from '../../../api/index.js';
import { rootTypeName } from '../../../api/schema/index.js';
import { FieldSet, makePath, type Path } from '../../../machinery/fieldpath/index.js';
import { builtinSchema, typeRefFor, TypedValue, zeroObject, type TypeRef } from '../../../machinery/merge/index.js';
import type { Value } from '../../../machinery/fieldpath/index.js';
import { deepFreeze } from '../../../machinery/meta/index.js';
import {
  FieldManager,
  ScaleHandler,
  deducedTypeConverter,
  parseGroupVersion,
  sameVersionObjectConverter,
  schemaTypeConverter,
  type ObjectConverter,
  type TypeConverter,
} from '../../../machinery/managedfields/index.js';
import type { Clock } from '../../../util/clock/index.js';
import type { ResourceStrategy } from '../strategy.js';
import type { StoreView } from './store-core.js';
import { apiVersionOf } from './decode.js';
import { clone } from './objects.js';

/** The Scale of every `scale` subresource. */
export const SCALE_API_VERSION = 'autoscaling/v1';
const SCALE_KIND = 'Scale';

/** What the field managers need from their store. */
export interface FieldManagersHost {
  readonly strategy: ResourceStrategy;
  /** The stored version, `apps/v1`. */
  readonly storageVersion: string;
  /** The served versions other than the stored one, by apiVersion. */
  readonly views: ReadonlyMap<string, StoreView>;
  /** A private copy in `view`'s version converted to the stored version. */
  toStorage(obj: KubeObject, view: StoreView): KubeObject;
  /** A stored object as `view`'s version shows it (a new object). */
  fromStorage(obj: KubeObject, view: StoreView): KubeObject;
  readonly clock: Clock;
}

/** A version the store does not serve (its managers are dropped, as for a removed version). */
class MissingVersionError extends Error {
  override readonly name = 'MissingVersionError';
}

/** The built-in type of a kind in a version, undefined when it has none. */
function builtinTypeRef(apiVersion: string, kind: string): TypeRef | undefined {
  const { group, version } = parseGroupVersion(apiVersion);
  const name = rootTypeName(group, version, kind);
  if (name === undefined || builtinSchema().findNamedType(name) === undefined) return undefined;
  return typeRefFor(name);
}

/** A store's field managers, built once per endpoint. */
export class FieldManagers {
  private readonly managers = new Map<string, FieldManager>();
  private zero: KubeObject | undefined;
  private readonly typeConverter: TypeConverter;
  private readonly objectConverter: ObjectConverter;

  constructor(private readonly host: FieldManagersHost) {
    this.typeConverter = this.storeTypeConverter();
    this.objectConverter = {
      convert: (obj, apiVersion) => this.convert(obj, apiVersion),
      isMissingVersionError: (e) => e instanceof MissingVersionError,
    };
  }

  /** The merge type of a served version of the store's kind; undefined for other versions and kinds. */
  private typeFor(apiVersion: string, kind: string): TypeRef | undefined {
    const { strategy, storageVersion, views } = this.host;
    if (apiVersion === storageVersion && kind === strategy.info.kind) return strategy.mergeType ?? builtinTypeRef(apiVersion, kind);
    const view = views.get(apiVersion);
    if (view === undefined || view.info.kind !== kind) return undefined;
    return view.mergeType ?? builtinTypeRef(apiVersion, kind);
  }

  /**
   * Typed conversion over the store's versions; deduced for a kind with no type at all (upstream has
   * none such). A stored object of a built-in kind (frozen: the watch cache's) is not validated
   * again: it was decoded as its type and pruned when written, so it fits the schema, duplicates aside,
   * which live objects may have (upstream validates it with AllowDuplicates, which it then passes).
   * Custom resources are validated: their schema can change under stored objects.
   */
  private storeTypeConverter(): TypeConverter {
    const { strategy, storageVersion } = this.host;
    if (this.typeFor(storageVersion, strategy.info.kind) === undefined) return deducedTypeConverter();
    const checked = schemaTypeConverter(builtinSchema(), (apiVersion, kind) => this.typeFor(apiVersion, kind));
    if (strategy.mergeType !== undefined) return checked;
    return {
      objectToTyped: (obj, opts) => {
        const o = obj as KubeObject;
        const ref = opts?.allowDuplicates === true && Object.isFrozen(o) ? this.typeFor(o.apiVersion ?? '', o.kind ?? '') : undefined;
        return ref === undefined ? checked.objectToTyped(obj, opts) : new TypedValue(o as Value, builtinSchema(), ref);
      },
      typedToObject: (tv) => checked.typedToObject(tv),
    };
  }

  /** `obj` in `apiVersion`, through the stored version. @throws MissingVersionError for a version not served */
  private convert(obj: KubeObject, apiVersion: string): KubeObject {
    const { storageVersion, views } = this.host;
    const from = obj.apiVersion ?? storageVersion;
    if (from === apiVersion) return obj;
    let stored = obj;
    if (from !== storageVersion) {
      const view = views.get(from);
      if (view === undefined) throw new MissingVersionError(`version ${from} is not served`);
      stored = this.host.toStorage(clone(obj), view);
    }
    if (apiVersion === storageVersion) return stored;
    const view = views.get(apiVersion);
    if (view === undefined) throw new MissingVersionError(`version ${apiVersion} is not served`);
    return this.host.fromStorage(stored, view);
  }

  /** The empty object of the stored kind, as a create's "live" object (`Creater.New`); shared and frozen. */
  newObject(): KubeObject {
    if (this.zero === undefined) {
      const { strategy, storageVersion } = this.host;
      const { group, version, kind } = strategy.info;
      const name = strategy.mergeType ? undefined : rootTypeName(group, version, kind);
      const zero = name === undefined ? {} : (zeroObject(name) as KubeObject);
      this.zero = deepFreeze({ ...zero, apiVersion: storageVersion, kind });
    }
    return this.zero;
  }

  /** Per served version, what `subresource` leaves unowned. */
  private resetFields(subresource: string): Map<string, FieldSet> {
    const { strategy, storageVersion, views } = this.host;
    let paths: Path[] = [];
    if (subresource === '' && strategy.hasStatus) paths = [makePath('status')];
    else if (subresource === 'status') paths = [makePath('spec')];
    const set = FieldSet.of(...paths);
    return new Map([storageVersion, ...views.keys()].map((v) => [v, set]));
  }

  /**
   * The field manager of the endpoint `view` (the stored version when undefined) and `subresource`
   * (`''` for the main resource, `status`, or another subresource's name).
   */
  forEndpoint(view: StoreView | undefined, subresource: string): FieldManager {
    const groupVersion = view ? apiVersionOf(view.info) : this.host.storageVersion;
    const key = `${groupVersion}|${subresource}`;
    let fm = this.managers.get(key);
    if (fm === undefined) {
      const { strategy, storageVersion } = this.host;
      fm = new FieldManager({
        typeConverter: this.typeConverter,
        objectConverter: this.objectConverter,
        // The store decodes and defaults the result in the stored version after the field manager
        // (strategies default the stored version's objects, and only objects of the right types).
        defaulter: () => undefined,
        creater: () => this.newObject(),
        groupVersion,
        kind: view?.info.kind ?? strategy.info.kind,
        hubVersion: storageVersion,
        subresource,
        resetFields: this.resetFields(subresource),
        clock: this.host.clock,
        crd: strategy.mergeType !== undefined,
      });
      this.managers.set(key, fm);
    }
    return fm;
  }

  /** The field manager of `…/scale`, over autoscaling/v1 Scale objects. */
  forScale(): FieldManager {
    const key = `${SCALE_API_VERSION}|scale`;
    let fm = this.managers.get(key);
    if (fm === undefined) {
      const scaleType = builtinTypeRef(SCALE_API_VERSION, SCALE_KIND);
      const newScale = (): KubeObject => ({ ...(zeroObject(rootTypeName('autoscaling', 'v1', SCALE_KIND) ?? '') as KubeObject), apiVersion: SCALE_API_VERSION, kind: SCALE_KIND });
      fm = new FieldManager({
        typeConverter: schemaTypeConverter(builtinSchema(), (apiVersion, kind) => (apiVersion === SCALE_API_VERSION && kind === SCALE_KIND ? scaleType : undefined)),
        objectConverter: sameVersionObjectConverter,
        defaulter: () => undefined,
        creater: newScale,
        groupVersion: SCALE_API_VERSION,
        kind: SCALE_KIND,
        hubVersion: SCALE_API_VERSION,
        subresource: 'scale',
        resetFields: new Map(),
        clock: this.host.clock,
      });
      this.managers.set(key, fm);
    }
    return fm;
  }

  /**
   * The translation of managed fields between a parent in `view`'s version and its Scale: the
   * replicas path of every served version (`spec.replicas`, or a custom resource's
   * `specReplicasPath`).
   */
  scaleHandler(parent: KubeObject, view: StoreView | undefined, replicasPath: readonly string[]): ScaleHandler {
    const { storageVersion, views } = this.host;
    const path = makePath(...replicasPath);
    const mappings = new Map<string, Path>([storageVersion, ...views.keys()].map((v) => [v, path]));
    return new ScaleHandler(parent.metadata?.managedFields, view ? apiVersionOf(view.info) : storageVersion, mappings);
  }
}
