/**
 * The generic store's writes (store.go `Create`, `Update`; the patch handler's apply-then-update):
 * decoding in the request's version, defaulting, admission, the strategy's preparation and validation,
 * and the compare-and-swap through {@link StoreCore.guaranteedUpdate}.
 */
import type { KubeObject } from '../../../api/index.js';
import type { PatchType, RequestUser } from '../../../api/request.js';
import { deepFreeze } from '../../../machinery/meta/index.js';
import { StatusError, field, isAlreadyExists, newAlreadyExists, newBadRequest, newConflict, newInvalid, newNotFound, newUnsupportedMediaType, type FieldError } from '../../../machinery/errors/index.js';
import { validateObjectMeta, validateObjectMetaUpdate, type ObjectMetaValidationOptions } from '../../../machinery/validation/index.js';
import type { KeyValue } from '../../../storage/interface.js';
import { StorageError } from '../../../storage/interface.js';
import { formatTime } from '../../../util/clock/index.js';
import { randomString } from '../../../util/random/index.js';
import { apiVersionOf, decodeBody, decodeTyped, pruneUnknown, unknownFieldMessage } from './decode.js';
import { maxDepthError } from '../../../machinery/serializer/index.js';
import { clone, cloneSharingManagedFields, metaOf } from './objects.js';
import { APPLY_PATCH_TYPE, parseWriteOptions, type FieldValidation, type WriteOptions } from './options.js';
import { applyPatch, checkDuplicateKeys, checkPatchType } from './patch.js';
import { FieldManagers } from './field-managers.js';
import { managerOrUserAgent } from '../../../machinery/managedfields/index.js';
import { rootTypeName } from '../../../api/schema/index.js';
import { MAX_NAME_GENERATION_ATTEMPTS, tryDecode, keepAllButStatus, type Query, type UpdateMode, type StoreView, type WriteResult, type Preconditions, type Outcome } from './store-core.js';
import { ReadStore } from './store-read.js';

/**
 * The manager of internal writes that do not come through {@link ApiServer.handle} (bootstrap objects,
 * the CRD lifecycle's status): upstream's in-process loopback client says `kube-apiserver`.
 */
const INTERNAL_USER_AGENT = 'kube-apiserver';

/** The subresource an update mode writes: `''` for the main resource. */
function subresourceOf(mode: UpdateMode): string {
  if (mode === 'main') return '';
  if (mode === 'status') return 'status';
  return mode.subresource;
}

/**
 * Keeps a request's `metadata.managedFields: []` on the decoded object `obj`, which the decoder drops
 * as an empty `omitempty` list: Go's decoder keeps the empty slice, and the field manager reads it as
 * a request to reset ownership (fieldmanager.go `isResetManagedFields`). `raw` is the body (or the
 * patched object) before decoding; {@link WriteStore.trackUpdate} removes the list again.
 */
function keepManagedFieldsReset(raw: unknown, obj: KubeObject): void {
  const managedFields = (raw as { metadata?: { managedFields?: unknown } } | null | undefined)?.metadata?.managedFields;
  if (Array.isArray(managedFields) && managedFields.length === 0) metaOf(obj).managedFields = [];
}

/** Whether any metadata key of a merge patch is a directive (`$patch`, `$retainKeys`, …), which can replace the whole metadata. */
function hasDirective(o: object): boolean {
  return Object.keys(o).some((k) => k.startsWith('$'));
}

/**
 * Whether a patch can change `metadata.managedFields`: a JSON patch with an operation at the
 * document, `/metadata` or below `/metadata/managedFields`; a merge or strategic patch whose
 * `metadata` sets them, is not an object, or carries directives (at the top or in metadata). Anything
 * malformed counts as touching them (the patch then fails as it would anyway).
 */
function patchTouchesManagedFields(patchType: PatchType | undefined, patch: unknown): boolean {
  if (patchType === 'application/json-patch+json') {
    if (!Array.isArray(patch)) return true;
    const touches = (p: unknown): boolean => typeof p !== 'string' || p === '' || p === '/metadata' || p.startsWith('/metadata/managedFields');
    return patch.some((op: unknown) => typeof op !== 'object' || op === null || touches((op as { path?: unknown }).path) || ('from' in op && touches((op as { from?: unknown }).from)));
  }
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return true;
  if (hasDirective(patch)) return true;
  if (!Object.hasOwn(patch, 'metadata')) return false;
  const metadata = (patch as { metadata?: unknown }).metadata;
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) return true;
  return Object.hasOwn(metadata, 'managedFields') || hasDirective(metadata);
}

/** `obj` without `metadata.managedFields` (a shallow copy when it has them). */
function withoutManagedFields(obj: KubeObject): KubeObject {
  if (obj.metadata?.managedFields === undefined) return obj;
  const metadata = { ...obj.metadata };
  delete metadata.managedFields;
  return { ...obj, metadata };
}

/** Writes on top of {@link ReadStore}. */
export abstract class WriteStore extends ReadStore {
  private managers?: FieldManagers;

  /** Whether writes record `metadata.managedFields` (the store option `trackManagedFields`). */
  get trackingManagedFields(): boolean {
    return this.opts.trackManagedFields !== false;
  }

  /** The field managers of this store's endpoints (managedFields, server-side apply), built on first use. */
  get fieldManagers(): FieldManagers {
    this.managers ??= new FieldManagers({
      strategy: this.strategy,
      storageVersion: this.apiVersion,
      views: this.views,
      toStorage: (obj, view) => this.toStorage(obj, view),
      fromStorage: (obj, view) => this.fromStorage(obj, view),
      clock: this.opts.clock,
    });
    return this.managers;
  }

  /**
   * `obj` (a private copy in the stored version) with `metadata.managedFields` recording what the write
   * by `manager` changes against `live` (undefined for a create) at `view`'s version and
   * `subresource` — UpdateNoErrors: a failure drops managedFields rather than the write. Unchanged
   * when the server does not track managed fields.
   */
  trackUpdate(view: StoreView | undefined, subresource: string, live: KubeObject | undefined, obj: KubeObject, manager: string): KubeObject {
    if (!this.trackingManagedFields) {
      // The reset request kept by keepManagedFieldsReset is encoded as Go encodes an empty list: not at all.
      if (Array.isArray(obj.metadata?.managedFields) && obj.metadata.managedFields.length === 0) delete obj.metadata.managedFields;
      return obj;
    }
    return this.fieldManagers.forEndpoint(view, subresource).updateNoErrors(live ?? this.fieldManagers.newObject(), obj, manager);
  }
  // ---------------------------------------------------------------------------------------------
  // Create.

  /**
   * POST: decode (unknown fields per fieldValidation), defaults, admission, then up to 8 attempts
   * with freshly generated names when `generateName` is used (store.go `createWithGenerateNameRetry`).
   */
  async create(namespace: string | undefined, body: unknown, query: Query, warnings: string[], view?: StoreView, userAgent = INTERNAL_USER_AGENT, user?: RequestUser): Promise<KubeObject> {
    const { validation, dryRun, fieldManager } = parseWriteOptions(query, 'CreateOptions');
    const decoded = this.decodeIn(view, body, validation, warnings);
    this.strategy.defaults(decoded);
    const obj = this.trackUpdate(view, '', undefined, decoded, managerOrUserAgent(fieldManager, userAgent));
    const meta = metaOf(obj);
    await this.admitCreateBody(obj, namespace, meta.name ?? meta.generateName ?? '', user);
    const generate = !meta.name && !!meta.generateName;
    const attempts = generate ? MAX_NAME_GENERATION_ATTEMPTS : 1;
    for (let i = 1; ; i++) {
      try {
        const created = await this.createOnce(namespace, generate ? clone(obj) : obj, dryRun, user);
        warnings.push(...(this.strategy.warningsOnCreate?.(created) ?? []));
        return created;
      } catch (err) {
        if (i >= attempts || !isAlreadyExists(err)) throw err;
      }
    }
  }

  /**
   * The create admission that comes before the strategy: the namespace must exist and not be
   * terminating (NamespaceLifecycle; `name` is the object's name for its error), then the kind's
   * mutating admission changes `obj` in place, reading other kinds from their caches
   * (admission/live-lookup.ts). Throws the plugins' StatusErrors.
   */
  private async admitCreateBody(obj: KubeObject, namespace: string | undefined, name: string, user: RequestUser | undefined): Promise<void> {
    if (this.strategy.info.namespaced && this.opts.admitCreate) await this.opts.admitCreate(namespace ?? '', name, this.gr);
    await this.extension.mutateCreate?.(obj, namespace ?? '', user);
  }

  protected async createOnce(namespace: string | undefined, obj: KubeObject, dryRun: boolean, user?: RequestUser): Promise<KubeObject> {
    const meta = metaOf(obj);
    this.fillSystemFields(obj);
    const generated = !meta.name && !!meta.generateName;
    if (generated) meta.name = (meta.generateName as string) + randomString(this.opts.rand, 5);
    const { beginCreate, validateAdmission } = this.extension;
    if (beginCreate || validateAdmission) await this.cacheCaughtUp();
    if (!beginCreate) return this.createChecked(namespace, obj, dryRun, generated, user);
    const finish = beginCreate(obj, dryRun);
    try {
      const created = await this.createChecked(namespace, obj, dryRun, generated, user);
      finish(true);
      return created;
    } catch (err) {
      finish(false);
      throw err;
    }
  }

  /**
   * Waits until the cache holds every write committed so far, so that begin hooks and admission that
   * derive their state from the cache (service allocation, the one default PriorityClass) see completed
   * deletes and creates.
   */
  protected cacheCaughtUp(): Promise<void> {
    return this.opts.feed.waitUntilFresh(this.opts.backend.currentRevision());
  }

  /** The rest of {@link createOnce}: BeforeCreate, then the write. */
  protected async createChecked(namespace: string | undefined, obj: KubeObject, dryRun: boolean, generated: boolean, user?: RequestUser): Promise<KubeObject> {
    const meta = metaOf(obj);
    this.beforeCreate(obj, namespace);
    await this.extension.validateAdmission?.(obj, undefined, user);
    await this.opts.validateCreate?.(obj, this.gr, dryRun);
    // storage.ErrResourceVersionSetOnCreate is not a Status, so upstream leaks it as a 500; a client
    // mistake is a 400 here (ADR 5).
    if (meta.resourceVersion) throw newBadRequest('resourceVersion should not be set on objects to be created');
    const name = meta.name as string;
    const key = this.keyFor(meta.namespace, name);
    if (dryRun) {
      if (await this.opts.backend.get(key)) throw newAlreadyExists(this.gr, name);
      return deepFreeze(obj);
    }
    let kv: KeyValue;
    try {
      kv = await this.write(key, obj, undefined);
    } catch (err) {
      if (!(err instanceof StorageError && err.code === 'KeyExists')) throw this.storageError(err, name);
      throw await this.alreadyExists(key, name, generated);
    }
    meta.resourceVersion = String(kv.modRevision);
    return deepFreeze(obj);
  }

  /** AlreadyExists as store.create words it: a generateName conflict (NewGenerateNameConflict), or `object is being deleted: …`. */
  protected async alreadyExists(key: string, name: string, generated: boolean): Promise<StatusError> {
    const status = newAlreadyExists(this.gr, name).status;
    if (generated) {
      status.message = `${status.message ?? ''}, the server was not able to generate a unique name for the object`;
      status.details = { ...status.details, retryAfterSeconds: 1 };
    }
    const existing = await this.opts.backend.get(key);
    if (existing && tryDecode(existing)?.metadata?.deletionTimestamp) status.message = `object is being deleted: ${status.message ?? ''}`;
    return new StatusError(status);
  }

  /** ValidateObjectMeta's options for this kind: its scope and its `ValidateNameFunc`. */
  /** `rest.FillObjectMetaSystemFields`: a new uid and creationTimestamp. */
  protected fillSystemFields(obj: KubeObject): void {
    const meta = metaOf(obj);
    meta.uid = this.opts.rand.uuid();
    meta.creationTimestamp = formatTime(this.opts.clock.now());
  }

  /** The object's namespace from the URL, or 400 when the body names another (EnsureObjectNamespaceMatchesRequestNamespace). */
  protected ensureNamespace(obj: KubeObject, namespace: string | undefined): void {
    const meta = metaOf(obj);
    if (!this.strategy.info.namespaced) {
      delete meta.namespace;
      return;
    }
    const requested = namespace ?? '';
    if (!meta.namespace) meta.namespace = requested;
    else if (meta.namespace !== requested) {
      throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
  }

  /** `rest.BeforeCreate`: namespace, no deletion fields, PrepareForCreate, then metadata + kind validation (422). */
  protected beforeCreate(obj: KubeObject, namespace: string | undefined): void {
    this.ensureNamespace(obj, namespace);
    const meta = metaOf(obj);
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    this.strategy.prepareForCreate(obj, this.opts.clock.now());
    const errs = [...validateObjectMeta(meta, this.metaValidation(obj), 'metadata'), ...this.strategy.validate(obj)];
    if (errs.length > 0) throw newInvalid({ group: this.strategy.info.group, kind: this.strategy.info.kind }, meta.name ?? '', errs);
  }

  /** ValidateObjectMeta's options for `obj`: the kind's scope and, when it has one, its name validation. */
  protected metaValidation(obj: KubeObject): ObjectMetaValidationOptions {
    const strategy = this.strategy;
    const namespaced = strategy.info.namespaced;
    return strategy.nameValidator ? { namespaced, nameValidator: (name) => strategy.nameValidator?.(name, obj) ?? [] } : { namespaced };
  }

  // ---------------------------------------------------------------------------------------------
  // Update and patch.

  /** PUT of the main resource, `/status` or `/finalize`. */
  async update(
    namespace: string | undefined,
    name: string,
    body: unknown,
    query: Query,
    warnings: string[],
    mode: UpdateMode = 'main',
    view?: StoreView,
    userAgent = INTERNAL_USER_AGENT,
    user?: RequestUser,
  ): Promise<WriteResult> {
    const { validation, dryRun, fieldManager } = parseWriteOptions(query, 'UpdateOptions');
    const obj = this.decodeIn(view, body, validation, warnings);
    keepManagedFieldsReset(body, obj);
    this.strategy.defaults(obj);
    this.checkName(obj, namespace, name);
    const uid = obj.metadata?.uid;
    const manager = managerOrUserAgent(fieldManager, userAgent);
    const sub = subresourceOf(mode);
    return this.updateObject(namespace, name, mode, dryRun, false, (existing) => this.trackUpdate(view, sub, existing, cloneSharingManagedFields(obj), manager), uid ? { uid } : undefined, warnings, user);
  }

  /**
   * PATCH of the main resource or `/status`: the patch is applied to the current object on every
   * attempt, so a patch without resourceVersion retries on conflicts, while a resourceVersion in the
   * patch is a precondition (409).
   */
  async patch(
    namespace: string | undefined,
    name: string,
    patchType: PatchType | undefined,
    patch: unknown,
    query: Query,
    warnings: string[],
    mode: UpdateMode = 'main',
    view?: StoreView,
    userAgent = INTERNAL_USER_AGENT,
    user?: RequestUser,
  ): Promise<WriteResult> {
    checkPatchType(patchType, this.strategy.patchTypes);
    const opts = parseWriteOptions(query, 'PatchOptions', patchType);
    if (patchType === APPLY_PATCH_TYPE) return this.apply(namespace, name, patch, opts, warnings, mode, view, user);
    const { validation, dryRun } = opts;
    const manager = managerOrUserAgent(opts.fieldManager, userAgent);
    const sub = subresourceOf(mode);
    // The patch applies to the object in the request's version (its field paths are that version's).
    const info = view?.info ?? this.strategy.info;
    const root = rootTypeName(info.group, info.version, info.kind);
    return this.updateObject(namespace, name, mode, dryRun, false, (existing) => {
      if (!existing) throw newNotFound(this.gr, name);
      const current = view ? this.fromStorage(existing, view) : existing;
      // The field manager starts from the live managedFields when the patched object's are absent or
      // the same (decodeLiveOrNew): a patch that cannot change them is applied without them, which
      // saves copying, decoding and comparing them on every write.
      const base = this.trackingManagedFields && !patchTouchesManagedFields(patchType, patch) ? withoutManagedFields(current) : current;
      const result = this.patchedObject(base, patchType, patch, root, validation, warnings, info);
      const patched = view ? this.toStorage(result, view) : result;
      this.strategy.defaults(patched);
      this.checkName(patched, namespace, name);
      return this.trackUpdate(view, sub, existing, patched, manager);
    }, undefined, warnings, user);
  }

  /**
   * Server-side apply (patch.go `applyPatcher`): the configuration merged into the current object by
   * the endpoint's field manager — or into an empty one, creating it, at the main resource — with
   * conflicts (409) unless `force`. `patch` is the decoded configuration; the manager is the
   * required `fieldManager`.
   */
  private apply(namespace: string | undefined, name: string, patch: unknown, opts: WriteOptions, warnings: string[], mode: UpdateMode, view: StoreView | undefined, user?: RequestUser): Promise<WriteResult> {
    const fm = this.fieldManagers.forEndpoint(view, subresourceOf(mode));
    const create = mode === 'main';
    return this.updateObject(namespace, name, mode, opts.dryRun, create, (existing) => {
      if (!existing && !create) throw newNotFound(this.gr, name);
      const live = existing ?? this.fieldManagers.newObject();
      // The merge may share subtrees with the frozen live object; the store's hooks change the result.
      const obj = structuredClone(fm.apply(live, patch as Record<string, unknown>, opts.fieldManager, opts.force === true));
      checkDuplicateKeys(patch as object, opts.validation, warnings);
      this.checkDecodable(obj);
      // patch.go `applyPatch`: a configuration naming a uid only applies to the object that has it.
      const uid = obj.metadata?.uid;
      if (!existing && uid) throw newConflict(this.gr, name, `uid mismatch: the provided object specified uid ${uid}, and no existing object was found`);
      this.strategy.defaults(obj);
      this.checkName(obj, namespace, name);
      return obj;
    }, undefined, warnings, user);
  }

  /**
   * A request body decoded in `view`'s version (unknown fields and types checked against it) and
   * converted to the stored version, or decoded in the stored version when there is no view.
   * @throws StatusError 400 as {@link decodeBody}
   */
  protected decodeIn(view: StoreView | undefined, body: unknown, validation: FieldValidation, warnings: string[]): KubeObject {
    if (!view) return decodeBody(this.strategy, body, validation, warnings);
    return this.toStorage(decodeBody(this.strategy, body, validation, warnings, view.info), view);
  }

  /**
   * `obj` (a private copy in `view`'s version) converted to the stored version, apiVersion and kind
   * set. The result is decoded as the stored type again: what a conversion builds from free-form
   * data (annotations) must not reach storage with a value of the wrong type or an unknown field.
   * @throws StatusError 400 for a conversion result that is not a valid stored object
   */
  protected toStorage(obj: KubeObject, view: StoreView): KubeObject {
    const out = view.conversion.toStorage(obj);
    out.apiVersion = this.apiVersion;
    const { group, version, kind } = this.strategy.info;
    out.kind = kind;
    const typeError = decodeTyped(out, group, version, kind);
    if (typeError) throw newBadRequest(`${view.info.kind} in version ${JSON.stringify(view.info.version)} cannot be handled as a ${kind}: ${typeError}`);
    // Unknown fields there are dropped, as Go's json.Unmarshal into the typed struct drops them.
    pruneUnknown(out, group, version, kind);
    return out;
  }

  /**
   * A stored object as `view`'s version shows it: a new object with that version's apiVersion and
   * kind (the conversion gets a private copy).
   */
  fromStorage(obj: KubeObject, view: StoreView): KubeObject {
    const out = view.conversion.fromStorage(clone(obj));
    out.apiVersion = apiVersionOf(view.info);
    out.kind = view.info.kind;
    return out;
  }

  /**
   * Applies a patch to a copy of `current` and drops unknown fields; strict validation failures are
   * 422 Invalid on field `patch` as upstream's patcher reports them.
   */
  patchedObject(
    current: KubeObject,
    patchType: PatchType | undefined,
    patch: unknown,
    root: string | undefined,
    validation: FieldValidation,
    warnings: string[],
    info: { group: string; version: string; kind: string },
  ): KubeObject {
    checkPatchType(patchType, this.strategy.patchTypes);
    if (patchType === APPLY_PATCH_TYPE) throw newUnsupportedMediaType(patchType, ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json']);
    const result = applyPatch(clone(current), patchType, patch, root);
    if (result === null || typeof result !== 'object' || Array.isArray(result)) {
      throw newInvalid({ group: '', kind: '' }, '', [field.invalid('patch', JSON.stringify(result), `cannot restore struct from: ${Array.isArray(result) ? 'slice' : typeof result}`)]);
    }
    const obj = result as KubeObject;
    // Nesting a deep patch under a deep object can exceed the limit: the result is not decodable.
    const depthError = maxDepthError(obj);
    if (depthError) throw newInvalid({ group: '', kind: '' }, '', [field.invalid('patch', '', depthError)]);
    // A patch that leaves a value of the wrong type fails decoding: 422 on field `patch` (patch.go).
    const typeError = decodeTyped(obj, info.group, info.version, info.kind);
    if (typeError) throw newInvalid({ group: '', kind: '' }, '', [field.invalid('patch', JSON.stringify(obj), typeError)]);
    const unknown = pruneUnknown(obj, info.group, info.version, info.kind, this.strategy);
    if (unknown.length > 0 && validation === 'Strict') {
      throw newInvalid({ group: '', kind: '' }, '', [
        field.invalid('patch', JSON.stringify(obj), `strict decoding error: ${unknown.map(unknownFieldMessage).join(', ')}`),
      ]);
    }
    if (validation === 'Warn') for (const p of unknown) warnings.push(unknownFieldMessage(p));
    keepManagedFieldsReset(result, obj);
    obj.apiVersion = apiVersionOf(info);
    obj.kind = info.kind;
    return obj;
  }

  /**
   * An apply's result (in the stored version) decoded as the stored type, as upstream converts it to
   * its Go struct: a value the merge schema let through but the type cannot hold (free-form schema
   * parts such as a CRD's JSONSchemaProps) is 422 Invalid on field `patch`, as for other patches;
   * unknown fields are dropped.
   */
  private checkDecodable(obj: KubeObject): void {
    const { group, version, kind } = this.strategy.info;
    const typeError = decodeTyped(obj, group, version, kind);
    if (typeError) throw newInvalid({ group: '', kind: '' }, '', [field.invalid('patch', JSON.stringify(obj), typeError)]);
    pruneUnknown(obj, group, version, kind, this.strategy);
  }

  /** `checkName`: the body's name must be the URL's, and its namespace (if any) the URL's. */
  checkName(obj: KubeObject, namespace: string | undefined, name: string): void {
    const meta = obj.metadata ?? {};
    if (meta.name !== name) {
      throw newBadRequest(`the name of the object (${meta.name ?? ''}) does not match the name on the URL (${name})`);
    }
    if (namespace && meta.namespace && meta.namespace !== namespace) {
      throw newBadRequest(`the namespace of the object (${meta.namespace}) does not match the namespace on the URL (${namespace})`);
    }
  }

  /**
   * `Store.Update`: runs `updatedObject` on the current state inside {@link guaranteedUpdate}, with
   * create-on-update, the resourceVersion precondition, `BeforeUpdate` and delete-on-update (an
   * update that empties the finalizers of an object being deleted removes it). The strategy's
   * warnings for the attempt that succeeds (WarningsOnCreate, or WarningsOnUpdate for the main
   * resource) are added to `warnings`.
   */
  async updateObject(
    namespace: string | undefined,
    name: string,
    mode: UpdateMode,
    dryRun: boolean,
    forceAllowCreate: boolean,
    updatedObject: (existing: KubeObject | undefined) => KubeObject,
    preconditions?: Preconditions,
    warnings?: string[],
    user?: RequestUser,
  ): Promise<WriteResult> {
    let attemptWarnings: string[] = [];
    const key = this.keyFor(namespace, name);
    const allowCreate = this.strategy.allowCreateOnUpdate || forceAllowCreate;
    let created = false;
    // The begin hook of the latest attempt (guaranteedUpdate may retry); earlier ones are released.
    let finish: ((success: boolean) => void) | undefined;
    const { beginCreate, beginUpdate, validateAdmission } = this.extension;
    if (beginUpdate || beginCreate || validateAdmission) await this.cacheCaughtUp();
    const begin = (obj: KubeObject, existing: KubeObject | undefined): void => {
      finish?.(false);
      finish = mode !== 'main' ? undefined : existing ? beginUpdate?.(obj, existing, dryRun) : beginCreate?.(obj, dryRun);
    };
    let result: KubeObject;
    try {
      // A create through PUT or apply goes through create admission as a POST does (upstream's
      // update.go/patch.go run the admission chain with operation CREATE when there is no object):
      // the namespace must exist, and mutating plugins (Priority, LimitRanger, …) and the quota run.
      const createAttempt = async (obj: KubeObject): Promise<Outcome> => {
        if (mode === 'main') await this.admitCreateBody(obj, namespace, name, user);
        begin(obj, undefined);
        created = true;
        this.fillSystemFields(obj);
        this.beforeCreate(obj, namespace);
        if (mode === 'main') {
          await this.extension.validateAdmission?.(obj, undefined, user);
          await this.opts.validateCreate?.(obj, this.gr, dryRun);
        }
        attemptWarnings = this.strategy.warningsOnCreate?.(obj) ?? [];
        delete metaOf(obj).resourceVersion;
        return { action: 'write', obj };
      };
      result = await this.guaranteedUpdate(key, name, { dryRun, ignoreNotFound: allowCreate, ...(preconditions ? { preconditions } : {}) }, (existing) => {
        if (!existing && !allowCreate) throw newNotFound(this.gr, name);
        const obj = updatedObject(existing);
        if (!existing) return createAttempt(obj);
        const meta = metaOf(obj);
        begin(obj, existing);
        created = false;
        const existingRV = existing.metadata?.resourceVersion ?? '';
        const newRV = meta.resourceVersion ?? '';
        if (newRV === '') {
          if (!this.strategy.allowUnconditionalUpdate) {
            // Upstream reports this with the resource in the Kind slot (store.go: the Invalid error has no Resource field).
            throw newInvalid({ group: this.gr.group, kind: this.gr.resource }, name, [
              field.invalid('metadata.resourceVersion', 0, 'must be specified for an update'),
            ]);
          }
          meta.resourceVersion = existingRV;
        } else if (newRV !== existingRV) {
          throw newConflict(this.gr, name);
        }
        this.beforeUpdate(obj, existing, mode, namespace);
        const outcome = (): Outcome => {
          attemptWarnings = mode === 'main' ? (this.strategy.warningsOnUpdate?.(obj, existing) ?? []) : [];
          if (this.shouldDeleteDuringUpdate(obj, existing)) return { action: 'delete', respond: obj };
          return { action: 'write', obj };
        };
        // Admission that must ask something asynchronously (RBAC's escalation checks) makes this attempt
        // asynchronous; every other update stays synchronous.
        const admitted = mode === 'main' ? this.extension.validateAdmission?.(obj, existing, user) : undefined;
        return admitted ? admitted.then(outcome) : outcome();
      });
    } catch (err) {
      finish?.(false);
      throw err;
    }
    finish?.(true);
    warnings?.push(...attemptWarnings);
    return { obj: result, created };
  }

  /** `rest.BeforeUpdate` with the update strategy of `mode`. */
  protected beforeUpdate(obj: KubeObject, existing: KubeObject, mode: UpdateMode, namespace: string | undefined): void {
    const meta = metaOf(obj);
    if (this.strategy.info.namespaced) {
      if (!meta.namespace) meta.namespace = namespace ?? '';
      else if (meta.namespace !== (namespace ?? '')) {
        throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
    } else delete meta.namespace;
    // Strategy hooks get private copies (strategy.ts contract); `existing` is the shared frozen object.
    // Its managedFields stay shared (frozen): no hook changes them, and obj has its own by now.
    const old = cloneSharingManagedFields(existing);
    const oldMeta = metaOf(old);
    if (oldMeta.generation === undefined) delete meta.generation;
    else meta.generation = oldMeta.generation;
    if (mode === 'main') this.strategy.prepareForUpdate(obj, old, this.opts.clock.now());
    else if (mode === 'status') {
      if (this.strategy.prepareForStatusUpdate) this.strategy.prepareForStatusUpdate(obj, old, this.opts.clock.now());
      else keepAllButStatus(obj, old);
    } else mode.prepareForUpdate(obj, old, this.opts.clock.now());
    if (!meta.uid) meta.uid = oldMeta.uid ?? '';
    if (oldMeta.creationTimestamp) meta.creationTimestamp = oldMeta.creationTimestamp;
    if (oldMeta.deletionTimestamp) meta.deletionTimestamp = oldMeta.deletionTimestamp;
    if (oldMeta.deletionGracePeriodSeconds != null && meta.deletionGracePeriodSeconds == null) {
      meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
    }
    const errs: FieldError[] = [
      ...validateObjectMeta(meta, this.metaValidation(obj), 'metadata'),
      ...validateObjectMetaUpdate(meta, oldMeta, 'metadata'),
    ];
    if (mode === 'main') errs.push(...this.strategy.validateUpdate(obj, old));
    else if (mode === 'status') errs.push(...(this.strategy.validateStatusUpdate?.(obj, old) ?? []));
    else errs.push(...mode.validateUpdate(obj, old));
    if (errs.length > 0) throw newInvalid({ group: this.strategy.info.group, kind: this.strategy.info.kind }, meta.name ?? '', errs);
  }

  /**
   * `ShouldDeleteDuringUpdate`: no finalizers left, a delete was requested, and no grace period runs
   * and whatever the kind adds ({@link StorageExtension.shouldDeleteDuringUpdate}).
   */
  protected shouldDeleteDuringUpdate(obj: KubeObject, existing: KubeObject): boolean {
    if ((obj.metadata?.finalizers ?? []).length > 0) return false;
    const old = existing.metadata ?? {};
    if (!old.deletionTimestamp) return false;
    if ((old.deletionGracePeriodSeconds ?? 0) !== 0) return false;
    return this.extension.shouldDeleteDuringUpdate?.(obj) ?? true;
  }
}

