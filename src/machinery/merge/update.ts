/**
 * The Updater: who owns what after a write, and the merge of an apply. Follows
 * sigs.k8s.io/structured-merge-diff/v4 merge/update.go (v4.6.0).
 *
 * - {@link Updater.update} (create, update, patch): every other manager loses the fields the write
 *   changed or removed; the writing manager gains what changed and keeps what it had, minus what
 *   was removed. Never conflicts.
 * - {@link Updater.apply}: merges the configuration into the live object, makes the applier own
 *   exactly the configuration's fields, prunes what it applied last time and no longer applies
 *   (unless someone else owns it), and fails with {@link Conflicts} where another manager owns a
 *   field the apply changes, unless `force`, which moves those fields to the applier.
 *
 * Versions: every object here is in one version; a {@link Converter} converts objects to the
 * version a manager's set was recorded in (the default converts nothing, as upstream's test fixture's).
 * Fields can be left unowned per version (the API server's reset fields: `status` for the main
 * resource, everything but `status` for the status subresource) with {@link UpdaterOptions}.
 * Sets recorded before a list or map became atomic are first reconciled with the current schema.
 */
import { excludeSetFilter, FieldSet, valuesEqual, type FieldFilter, type ManagedFields, type VersionedSet } from '../fieldpath/index.js';
import { conflictsFromManagers } from './conflict.js';
import { reconcileFieldSetWithSchema, ValidationErrors, type Comparison, type TypedValue } from './typed.js';

/** Converts objects between API versions (merge.Converter). */
export interface Converter {
  /** `tv` in `version`; throws when it cannot be converted. */
  convert(tv: TypedValue, version: string): TypedValue;
  /** Whether a conversion error means the version no longer exists (such managers are dropped). */
  isMissingVersionError(e: unknown): boolean;
}

/** The converter that leaves objects as they are. */
export const identityConverter: Converter = {
  convert: (tv) => tv,
  isMissingVersionError: () => false,
};

/** An error from the merge machinery with upstream's wrapping text (`failed to merge config: …`). */
function wrap(context: string, e: unknown): Error {
  if (e instanceof ValidationErrors) return new Error(`${context}: ${e.message}`, { cause: e });
  return e instanceof Error ? e : new Error(String(e));
}

/** The result of a write: the object to persist and the new ownership. */
export interface UpdateResult {
  readonly object: TypedValue;
  readonly managers: ManagedFields;
}

/** The result of an apply; `object` is undefined when the apply changes nothing (upstream returns nil). */
export interface ApplyResult {
  readonly object: TypedValue | undefined;
  readonly managers: ManagedFields;
}

/** Options of an {@link Updater} (UpdaterBuilder); at most one of the two ignore options. */
export interface UpdaterOptions {
  /** Per version, what nobody owns: comparisons and recorded sets are filtered with it. */
  readonly ignoreFilter?: ReadonlyMap<string, FieldFilter>;
  /** Per version, fields nobody owns, with everything below them (IgnoredFields, the older form). */
  readonly ignoredFields?: ReadonlyMap<string, FieldSet>;
}

/** Computes ownership for writes and merges applies (merge.Updater). */
export class Updater {
  private readonly filters: ReadonlyMap<string, FieldFilter>;
  /** Per version, the ignored fields when given as sets: comparisons leave them out as they walk. */
  private readonly excluded: ReadonlyMap<string, FieldSet>;

  /** Throws when both ignore options are given, as upstream does. */
  constructor(
    private readonly converter: Converter = identityConverter,
    options: UpdaterOptions = {},
  ) {
    if (options.ignoreFilter !== undefined && options.ignoredFields !== undefined) throw new Error('IgnoreFilter and IgnoreFilter may not both be set');
    this.excluded = options.ignoredFields ?? new Map<string, FieldSet>();
    this.filters = options.ignoreFilter ?? new Map([...this.excluded].map(([v, s]) => [v, excludeSetFilter(s)]));
  }

  /** A comparison with the version's ignored fields left out (Comparison.FilterFields / ExcludeFields). */
  private filtered(c: Comparison, version: string): Comparison {
    const f = this.filters.get(version);
    return f === undefined ? c : { removed: f(c.removed), modified: f(c.modified), added: f(c.added) };
  }

  /** A recorded set without the version's ignored fields. */
  private filterSet(s: FieldSet, version: string): FieldSet {
    return this.filters.get(version)?.(s) ?? s;
  }

  /** Take away from every other manager what changed; throw Conflicts first unless `force`. */
  private updateManagers(oldObject: TypedValue, newObject: TypedValue, version: string, managersIn: ManagedFields, workflow: string, force: boolean): { managers: ManagedFields; compare: Comparison } {
    const managers: ManagedFields = new Map(managersIn);
    const conflicts: ManagedFields = new Map();
    const removed: ManagedFields = new Map();
    let compare: Comparison;
    try {
      compare = oldObject.compare(newObject, this.excluded.get(version));
    } catch (e) {
      throw wrap('failed to compare objects', e);
    }
    const versions = new Map<string, Comparison>([[version, this.filtered(compare, version)]]);
    for (const [manager, managerSet] of managers) {
      if (manager === workflow) continue;
      let cmp = versions.get(managerSet.apiVersion);
      if (cmp === undefined) {
        let vOld: TypedValue;
        let vNew: TypedValue;
        try {
          vOld = this.converter.convert(oldObject, managerSet.apiVersion);
          vNew = this.converter.convert(newObject, managerSet.apiVersion);
        } catch (e) {
          if (this.converter.isMissingVersionError(e)) {
            managers.delete(manager);
            continue;
          }
          throw e;
        }
        cmp = this.filtered(vOld.compare(vNew, this.excluded.get(managerSet.apiVersion)), managerSet.apiVersion);
        versions.set(managerSet.apiVersion, cmp);
      }
      const conflictSet = managerSet.set.intersection(cmp.modified.union(cmp.added));
      if (!conflictSet.empty()) conflicts.set(manager, { set: conflictSet, apiVersion: managerSet.apiVersion, applied: false });
      if (!cmp.removed.empty()) removed.set(manager, { set: cmp.removed, apiVersion: managerSet.apiVersion, applied: false });
    }
    if (!force && conflicts.size > 0) throw conflictsFromManagers(conflicts);
    const subtract = (manager: string, s: FieldSet): void => {
      const cur = managers.get(manager);
      if (cur === undefined) return;
      const next = cur.set.difference(s);
      // An unchanged set keeps its identity (difference returns it; its encoding is reused, see managedfields' storedFields).
      if (next !== cur.set) managers.set(manager, { set: next, apiVersion: cur.apiVersion, applied: cur.applied });
    };
    for (const [manager, c] of conflicts) subtract(manager, c.set);
    for (const [manager, r] of removed) subtract(manager, r.set);
    for (const [manager, vs] of managers) if (vs.set.empty()) managers.delete(manager);
    // Upstream filters the comparison in place, so the caller sees the filtered one.
    return { managers, compare: versions.get(version) ?? compare };
  }

  /**
   * Record a create/update/patch by `manager` (Updater.Update): `liveObject` is the object before
   * (an empty value for a create), `newObject` what will be persisted. Returns the new ownership;
   * the manager's entry is an Update one (applied: false) in `version`.
   */
  update(liveObject: TypedValue, newObject: TypedValue, version: string, managersIn: ManagedFields, manager: string): UpdateResult {
    const { managers, compare } = this.updateManagers(liveObject, newObject, version, this.reconcileWithSchema(liveObject, managersIn), manager, true);
    const mine = managers.get(manager)?.set ?? new FieldSet();
    const set = this.filterSet(mine.difference(compare.removed).union(compare.modified).union(compare.added), version);
    if (set.empty()) managers.delete(manager);
    else managers.set(manager, { set, apiVersion: version, applied: false });
    return { object: newObject, managers };
  }

  /**
   * Apply `configObject` for `manager` (Updater.Apply): merge it into `liveObject`, give the manager
   * the configuration's field set (applied: true), prune what it applied last time and no longer
   * does, then take changed fields from other managers. Throws {@link Conflicts} when other managers
   * own changed fields and `force` is false; `Error('failed to merge config: …')` when the
   * configuration does not fit the schema (duplicate keys …).
   */
  apply(liveObject: TypedValue, configObject: TypedValue, version: string, managersIn: ManagedFields, manager: string, force: boolean): ApplyResult {
    const managers = this.reconcileWithSchema(liveObject, managersIn);
    let newObject: TypedValue;
    try {
      newObject = liveObject.merge(configObject);
    } catch (e) {
      throw wrap('failed to merge config', e);
    }
    const lastSet = managers.get(manager);
    let set: FieldSet;
    try {
      set = configObject.toFieldSet();
    } catch (e) {
      throw wrap('failed to get field set', e);
    }
    managers.set(manager, { set: this.filterSet(set, version), apiVersion: version, applied: true });
    newObject = this.prune(newObject, managers, manager, lastSet);
    const updated = this.updateManagers(liveObject, newObject, version, managers, manager, force);
    const same = valuesEqual(liveObject.value ?? null, newObject.value ?? null);
    return { object: same ? undefined : newObject, managers: updated.managers };
  }

  /**
   * Every manager's set reconciled with the schema of the live object in its version
   * (reconcileManagedFieldsWithSchemaChanges); managers whose version no longer exists are dropped.
   */
  private reconcileWithSchema(liveObject: TypedValue, managers: ManagedFields): ManagedFields {
    const out: ManagedFields = new Map();
    for (const [manager, vs] of managers) {
      let tv: TypedValue;
      try {
        tv = this.converter.convert(liveObject, vs.apiVersion);
      } catch (e) {
        if (this.converter.isMissingVersionError(e)) continue;
        throw e;
      }
      const reconciled = reconcileFieldSetWithSchema(vs.set, tv);
      out.set(manager, reconciled === undefined ? vs : { set: reconciled, apiVersion: vs.apiVersion, applied: vs.applied });
    }
    return out;
  }

  /** Remove what `applyingManager` applied last time and not this time, unless another manager owns it (Updater.prune). */
  private prune(merged: TypedValue, managers: ManagedFields, applyingManager: string, lastSet: VersionedSet | undefined): TypedValue {
    if (lastSet === undefined || lastSet.set.empty()) return merged;
    const version = lastSet.apiVersion;
    let converted: TypedValue;
    try {
      converted = this.converter.convert(merged, version);
    } catch (e) {
      if (this.converter.isMissingVersionError(e)) return merged;
      throw e;
    }
    let pruned = converted.removeItems(converted.ensureNamedFieldsAreMembers(lastSet.set));
    pruned = this.addBackOwnedItems(converted, pruned, version, managers);
    pruned = this.addBackDanglingItems(converted, pruned, lastSet);
    return this.converter.convert(pruned, managers.get(applyingManager)?.apiVersion ?? version);
  }

  /** Put back what prune removed but some manager (the applier's new config included) owns (addBackOwnedItems). */
  private addBackOwnedItems(mergedIn: TypedValue, prunedIn: TypedValue, prunedVersion: string, managers: ManagedFields): TypedValue {
    const managedAtVersion = new Map<string, FieldSet>();
    for (const vs of managers.values()) managedAtVersion.set(vs.apiVersion, (managedAtVersion.get(vs.apiVersion) ?? new FieldSet()).union(vs.set));
    let merged = mergedIn;
    let pruned = prunedIn;
    // The pruned version first, as upstream does, so conversion sees the fields it needs.
    const order = [...managedAtVersion.keys()].sort((a, b) => (a === prunedVersion ? -1 : b === prunedVersion ? 1 : 0));
    for (const version of order) {
      const managed = managedAtVersion.get(version) ?? new FieldSet();
      try {
        merged = this.converter.convert(merged, version);
        pruned = this.converter.convert(pruned, version);
      } catch (e) {
        if (this.converter.isMissingVersionError(e)) continue;
        throw e;
      }
      const mergedSet = merged.toFieldSet();
      const prunedSet = pruned.toFieldSet();
      pruned = merged.removeItems(merged.ensureNamedFieldsAreMembers(mergedSet).difference(merged.ensureNamedFieldsAreMembers(prunedSet).union(merged.ensureNamedFieldsAreMembers(managed))));
    }
    return pruned;
  }

  /** Keep only removals of items the applier itself owned last time (addBackDanglingItems). */
  private addBackDanglingItems(merged: TypedValue, pruned: TypedValue, lastSet: VersionedSet): TypedValue {
    let convertedPruned: TypedValue;
    try {
      convertedPruned = this.converter.convert(pruned, lastSet.apiVersion);
    } catch (e) {
      if (this.converter.isMissingVersionError(e)) return merged;
      throw e;
    }
    const prunedSet = merged.ensureNamedFieldsAreMembers(convertedPruned.toFieldSet());
    const mergedSet = merged.ensureNamedFieldsAreMembers(merged.toFieldSet());
    const last = merged.ensureNamedFieldsAreMembers(lastSet.set);
    return merged.removeItems(mergedSet.difference(prunedSet).intersection(last));
  }
}
