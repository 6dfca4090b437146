/**
 * `metadata.managedFields` ⇄ ownership: decoding entries into {@link ManagedFields} and per-manager
 * times, manager identifiers, and encoding back in upstream's order. Follows k8s.io/apimachinery
 * pkg/util/managedfields/internal/managedfields.go, fields.go and manager.go (v0.33.9).
 */
import type { KubeObject } from '../../api/index.js';
import { formatTime, parseTime } from '../../util/clock/index.js';
import { LruCache } from '../../util/cache/index.js';
import type { FieldSet } from '../fieldpath/index.js';
import { compareStrings, jsonString, setFromJson, setToObject, type ManagedFields, type VersionedSet } from '../fieldpath/index.js';

/** One `metadata.managedFields` entry (metav1.ManagedFieldsEntry) as JSON. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  /** metav1.Time, RFC 3339 in whole seconds. */
  time?: string;
  fieldsType?: string;
  fieldsV1?: object;
  subresource?: string;
}

/** Ownership and when each manager last changed its set (Managed / ManagedInterface); times are RFC 3339 strings. */
export interface Managed {
  readonly fields: ManagedFields;
  readonly times: Map<string, string | undefined>;
}

/** Ownership with its times (NewManaged). */
export function newManaged(fields: ManagedFields, times: Map<string, string | undefined>): Managed {
  return { fields, times };
}

/** No managers (NewEmptyManaged). */
export function newEmptyManaged(): Managed {
  return newManaged(new Map(), new Map());
}

/** The FieldsV1 of the empty set (EmptyFields): `{}`. */
export const EMPTY_FIELDS: object = {};

/** A FieldsV1 object as a set (FieldsToSet); throws on malformed input. */
export function fieldsToSet(fields: unknown): FieldSet {
  return setFromJson(fields);
}

/** A set as a FieldsV1 object (SetToFields), keys in upstream's order. */
export function setToFields(set: FieldSet): object {
  return setToObject(set);
}

/**
 * A manager's identity (BuildManagerIdentifier): the JSON of its entry without time and fields, and
 * without apiVersion for Apply, as encoding/json writes metav1.ManagedFieldsEntry (declaration
 * order, empty fields omitted): `{"manager":"kubectl","operation":"Update","apiVersion":"apps/v1"}`.
 */
export function buildManagerIdentifier(entry: ManagedFieldsEntry): string {
  const parts: string[] = [];
  const add = (name: string, v: string | undefined): void => {
    if (v !== undefined && v !== '') parts.push(`"${name}":${jsonString(v, true)}`);
  };
  add('manager', entry.manager);
  add('operation', entry.operation);
  if (entry.operation !== 'Apply') add('apiVersion', entry.apiVersion);
  add('subresource', entry.subresource);
  return '{' + parts.join(',') + '}';
}

/** Parsed identifiers: a server sees few managers, and every write encodes each of its object's. */
const parsedIdentifiers = new Map<string, Readonly<ManagedFieldsEntry>>();
const PARSED_IDENTIFIERS_MAX = 4096;

/** {@link parseIdentifierUncached}, remembered. */
function parseIdentifier(manager: string): Readonly<ManagedFieldsEntry> {
  let id = parsedIdentifiers.get(manager);
  if (id === undefined) {
    id = Object.freeze(parseIdentifierUncached(manager));
    if (parsedIdentifiers.size >= PARSED_IDENTIFIERS_MAX) parsedIdentifiers.clear();
    parsedIdentifiers.set(manager, id);
  }
  return id;
}

/** The manager's entry fields back from an identifier (json.Unmarshal into ManagedFieldsEntry); throws when it is not a JSON object. */
function parseIdentifierUncached(manager: string): ManagedFieldsEntry {
  let parsed: unknown;
  try {
    parsed = JSON.parse(manager);
  } catch (e) {
    throw new Error(`error unmarshalling manager identifier ${manager}: ${(e as Error).message}`, { cause: e });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`error unmarshalling manager identifier ${manager}: not an object`);
  const o = parsed as Record<string, unknown>;
  const str = (k: string): string | undefined => (typeof o[k] === 'string' ? o[k] : undefined);
  const out: ManagedFieldsEntry = {};
  const manager_ = str('manager');
  if (manager_ !== undefined) out.manager = manager_;
  const operation = str('operation');
  if (operation !== undefined) out.operation = operation;
  const subresource = str('subresource');
  if (subresource !== undefined) out.subresource = subresource;
  return out;
}

/** Go's time.Time String() of a UTC instant: `2019-01-01 00:00:00 +0000 UTC`. */
function goTimeString(t: string): string {
  const ms = parseTime(t);
  if (ms === undefined) return t;
  return formatTime(ms).replace('T', ' ').replace('Z', ' +0000 UTC');
}

/** `%v` of an entry as Go prints the struct: `{kubectl Update apps/v1 <nil> FieldsV1 {"f:a":{}} }`. */
export function entryGoString(e: ManagedFieldsEntry): string {
  const time = e.time === undefined ? '<nil>' : goTimeString(e.time);
  const fields = e.fieldsV1 === undefined ? '<nil>' : JSON.stringify(e.fieldsV1);
  return `{${e.manager ?? ''} ${e.operation ?? ''} ${e.apiVersion ?? ''} ${time} ${e.fieldsType ?? ''} ${fields} ${e.subresource ?? ''}}`;
}

const WHOLE_SECONDS_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

/** The time as metav1.Time re-encodes it (RFC 3339, whole seconds, UTC); unparsable text is kept. */
function normalTime(t: unknown): string | undefined {
  if (typeof t !== 'string' || t === '') return undefined;
  // What we wrote ourselves is already in that form (the common case, on every write).
  if (WHOLE_SECONDS_UTC.test(t)) return t;
  const ms = parseTime(t);
  return ms === undefined ? t : formatTime(ms);
}

/**
 * The FieldsV1 a set was decoded from, when it came from storage (frozen objects of the watch cache,
 * which this encoder wrote): most writes leave every other manager's set as it was, and re-encoding
 * them would cost as much as the rest of the bookkeeping.
 */
const storedFields = new WeakMap<FieldSet, object>();

/**
 * Decoded sets kept (each one manager's fields of one object version; about 3.5 KiB for a pod's):
 * those of the last ~5,000 pods written, whose next writes (binding, status) come within seconds.
 */
const DECODED_FIELDS_CAPACITY = 16_384;

/**
 * The set each frozen FieldsV1 object was decoded into or encoded from. A frozen FieldsV1 is part of
 * an object the watch cache shares, and the cache keeps the objects this process writes, so the next
 * write of that object finds its managers' sets here instead of parsing them again. Sets are never
 * changed once built, so sharing them is safe.
 *
 * Bounded to the {@link DECODED_FIELDS_CAPACITY} most recently used: kept for as long as their
 * objects lived (a WeakMap), the sets of every stored object and of every version in the watch
 * caches' history stayed in memory — about 13 KiB a pod, 1.9 GiB for 150,000 pods.
 */
const decodedFields = new LruCache<object, FieldSet>(DECODED_FIELDS_CAPACITY);

/** The identifier of each frozen entry decoded so far (the watch cache's entries, read on every write). */
const identifiers = new WeakMap<object, string>();

/**
 * `compute()` for `key`, remembered in `memo` when `key` is frozen: a frozen object cannot change,
 * so what was computed from it still holds.
 */
function memoFrozen<V>(memo: { get(key: object): V | undefined; set(key: object, value: V): void }, key: object, compute: () => V): V {
  if (!Object.isFrozen(key)) return compute();
  let v = memo.get(key);
  if (v === undefined) {
    v = compute();
    memo.set(key, v);
  }
  return v;
}

/** {@link buildManagerIdentifier} of `e`, through {@link identifiers} when `e` is frozen. */
function frozenEntryIdentifier(e: ManagedFieldsEntry): string {
  return memoFrozen(identifiers, e, () => buildManagerIdentifier(e));
}

/** `fields` as a set, through {@link decodedFields} when `fields` is frozen. @throws Error as {@link fieldsToSet} */
function frozenFieldsToSet(fields: object): FieldSet {
  return memoFrozen(decodedFields, fields, () => {
    const set = fieldsToSet(fields);
    // Stored entries are ours, in upstream's encoding already: an unchanged set is written back as it was read.
    if (Object.isFrozen(fields)) storedFields.set(set, fields);
    return set;
  });
}

/**
 * Decode `metadata.managedFields` (DecodeManagedFields). Throws with upstream's texts:
 * ``operation must be `Apply` or `Update` ``, `apiVersion must not be empty`,
 * `missing fieldsType in managed fields entry 0`, `invalid fieldsType "X" in managed fields entry 0`,
 * `error decoding versioned set from {…}: error decoding set: …`. A missing list is no managers.
 */
export function decodeManagedFields(encoded: unknown): Managed {
  const managed = newEmptyManaged();
  if (encoded === undefined || encoded === null) return managed;
  if (!Array.isArray(encoded)) throw new Error('managedFields must be a list');
  encoded.forEach((raw: unknown, i) => {
    const e = (typeof raw === 'object' && raw !== null ? raw : {}) as ManagedFieldsEntry;
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new Error('operation must be `Apply` or `Update`');
    if (typeof e.apiVersion !== 'string' || e.apiVersion.length < 1) throw new Error('apiVersion must not be empty');
    if (e.fieldsType === undefined || e.fieldsType === '') throw new Error(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== 'FieldsV1') throw new Error(`invalid fieldsType ${JSON.stringify(e.fieldsType)} in managed fields entry ${i}`);
    const manager = frozenEntryIdentifier(e);
    let set: FieldSet;
    try {
      set = e.fieldsV1 === undefined ? fieldsToSet(EMPTY_FIELDS) : frozenFieldsToSet(e.fieldsV1);
    } catch (err) {
      throw new Error(`error decoding versioned set from ${entryGoString(e)}: error decoding set: ${(err as Error).message}`, { cause: err });
    }
    managed.fields.set(manager, { set, apiVersion: e.apiVersion, applied: e.operation === 'Apply' });
    managed.times.set(manager, normalTime(e.time));
  });
  return managed;
}

/** One manager's entry (encodeManagerVersionedSet), keys in metav1.ManagedFieldsEntry's order. */
function encodeManagerVersionedSet(manager: string, vs: VersionedSet, time: string | undefined): ManagedFieldsEntry {
  const id = parseIdentifier(manager);
  const out: ManagedFieldsEntry = {};
  if (id.manager !== undefined && id.manager !== '') out.manager = id.manager;
  const operation = vs.applied ? 'Apply' : id.operation;
  if (operation !== undefined && operation !== '') out.operation = operation;
  if (vs.apiVersion !== '') out.apiVersion = vs.apiVersion;
  if (time !== undefined) out.time = time;
  out.fieldsType = 'FieldsV1';
  let fields = storedFields.get(vs.set);
  if (fields === undefined) {
    fields = setToFields(vs.set);
    storedFields.set(vs.set, fields);
    decodedFields.set(fields, vs.set);
  }
  out.fieldsV1 = fields;
  if (id.subresource !== undefined && id.subresource !== '') out.subresource = id.subresource;
  return out;
}

function unixSeconds(t: string | undefined): number {
  const ms = parseTime(t);
  return ms === undefined ? 0 : Math.floor(ms / 1000);
}

/** Order entries as upstream (sortEncodedManagedFields): operation (Apply first), time (seconds, none as 0), manager, apiVersion, subresource. Sorts in place. */
export function sortEncodedManagedFields(entries: ManagedFieldsEntry[]): ManagedFieldsEntry[] {
  return entries.sort(
    (p, q) =>
      compareStrings(p.operation ?? '', q.operation ?? '') ||
      unixSeconds(p.time) - unixSeconds(q.time) ||
      compareStrings(p.manager ?? '', q.manager ?? '') ||
      compareStrings(p.apiVersion ?? '', q.apiVersion ?? '') ||
      compareStrings(p.subresource ?? '', q.subresource ?? ''),
  );
}

/** Encode ownership as `metadata.managedFields` (encodeManagedFields); undefined when there are no managers. */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  if (managed.fields.size === 0) return undefined;
  const out: ManagedFieldsEntry[] = [];
  for (const [manager, vs] of managed.fields) out.push(encodeManagerVersionedSet(manager, vs, managed.times.get(manager)));
  return sortEncodedManagedFields(out);
}

/** Drop `metadata.managedFields` from an object in place (RemoveObjectManagedFields). */
export function removeObjectManagedFields(obj: KubeObject): void {
  if (obj.metadata !== undefined) delete obj.metadata.managedFields;
}

/** Set an object's `metadata.managedFields` from ownership in place, removing it when nobody owns anything (EncodeObjectManagedFields). */
export function encodeObjectManagedFields(obj: KubeObject, managed: Managed): void {
  const entries = encodeManagedFields(managed);
  if (entries === undefined) {
    removeObjectManagedFields(obj);
    return;
  }
  obj.metadata ??= {};
  obj.metadata.managedFields = entries;
}

/** Whether `metadata.managedFields` decodes (ValidateManagedFields): throws the decoding error. */
export function validateManagedFields(encoded: unknown): void {
  decodeManagedFields(encoded);
}

/** The result of one step of the field manager's chain. */
export interface ManagerResult {
  /** The object to persist; undefined from an apply that changes nothing (only the innermost step says so). */
  readonly object: KubeObject | undefined;
  readonly managed: Managed;
}

/**
 * One step of the field manager's chain (internal.Manager): each wraps the next and may change the
 * manager name, the objects or the ownership on the way in or out. Throws on failure
 * (merge {@link import('../merge/index.js').Conflicts} for apply conflicts).
 */
export interface Manager {
  update(liveObj: KubeObject, newObj: KubeObject, managed: Managed, manager: string): ManagerResult;
  apply(liveObj: KubeObject, appliedObj: KubeObject, managed: Managed, manager: string, force: boolean): ManagerResult;
}

/** A step that passes both operations to the next one; steps extend it and override what they change. */
export class DelegatingManager implements Manager {
  constructor(protected readonly next: Manager) {}

  update(liveObj: KubeObject, newObj: KubeObject, managed: Managed, manager: string): ManagerResult {
    return this.next.update(liveObj, newObj, managed, manager);
  }

  apply(liveObj: KubeObject, appliedObj: KubeObject, managed: Managed, manager: string, force: boolean): ManagerResult {
    return this.next.apply(liveObj, appliedObj, managed, manager, force);
  }
}
