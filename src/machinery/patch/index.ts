/**
 * The three patch formats of the API server's PATCH verb:
 *
 * - `application/json-patch+json` (RFC 6902) → {@link applyJsonPatch}, via `fast-json-patch`;
 * - `application/merge-patch+json` (RFC 7386) → {@link applyMergePatch};
 * - `application/strategic-merge-patch+json` → {@link applyStrategicMergePatch}, following
 *   apimachinery/pkg/util/strategicpatch/patch.go (StrategicMergeMapPatch with MergeParallelList and
 *   IgnoreUnmatchedNulls, as the API server calls it) and driven by the generated schema's
 *   `patchStrategy`/`patchMergeKey` (src/api/schema).
 *
 * None of them mutates its inputs (which may be frozen cache objects); each returns a new document.
 * Errors are {@link PatchError}s carrying the HTTP status upstream's patch handler
 * (apiserver/pkg/endpoints/handlers/patch.go) would answer with.
 */
import jsonpatch from 'fast-json-patch';
import { lookupType, type FieldSchema, type TypeSchema } from '../../api/schema/index.js';
import { deepCopy } from '../meta/index.js';

/**
 * A patch that cannot be applied. `code` is the status upstream answers with: 400 for a malformed
 * patch, 422 for a well-formed one that does not apply (failed `test`, missing path, list of lists),
 * 500 where upstream passes the strategic-merge error through unclassified (missing merge key, bad
 * `$patch` value).
 */
export class PatchError extends Error {
  override readonly name = 'PatchError';
  readonly code: 400 | 422 | 500;

  constructor(message: string, code: 400 | 422 | 500) {
    super(message);
    this.code = code;
  }
}

type JsonObject = Record<string, unknown>;

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

// ---------------------------------------------------------------------------------------------
// RFC 6902.

/** fast-json-patch error names that mean "well-formed, but does not apply to this document". */
const JSON_PATCH_APPLY_ERRORS = new Set([
  'OPERATION_PATH_UNRESOLVABLE',
  'OPERATION_FROM_UNRESOLVABLE',
  'OPERATION_PATH_CANNOT_ADD',
  'OPERATION_VALUE_OUT_OF_BOUNDS',
  'OPERATION_PATH_ILLEGAL_ARRAY_INDEX',
  'TEST_OPERATION_FAILED',
]);

/**
 * Applies an RFC 6902 JSON patch (`[{op, path, value?, from?}]`) to a copy of `doc`.
 * @throws PatchError 400 for a malformed patch (`Patch sequence must be an array`, unknown `op`, bad
 *   path), 422 when an operation does not apply: `doc is missing path: "/spec/x"`,
 *   `testing value /spec/replicas failed: test failed`, `cannot add at path "/a/b/c"`.
 */
export function applyJsonPatch(doc: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw new PatchError('Patch sequence must be an array', 400);
  const operations = deepCopy(ops) as Parameters<typeof jsonpatch.applyPatch>[1];
  try {
    return jsonpatch.applyPatch(deepCopy(doc), operations, true, true).newDocument;
  } catch (e) {
    if (e instanceof jsonpatch.JsonPatchError) {
      const op = (e.operation ?? {}) as { op?: string; path?: string; from?: string };
      const at = e.index === undefined ? '' : ` (operation ${e.index}: ${JSON.stringify(e.operation)})`;
      const messages: Partial<Record<string, string>> = {
        OPERATION_PATH_UNRESOLVABLE: `doc is missing path: ${JSON.stringify(op.path)}`,
        OPERATION_FROM_UNRESOLVABLE: `doc is missing from path: ${JSON.stringify(op.from)}`,
        TEST_OPERATION_FAILED: `testing value ${String(op.path)} failed: test failed`,
        OPERATION_PATH_CANNOT_ADD: `cannot add at path ${JSON.stringify(op.path)}: its parent does not exist`,
      };
      const message = messages[e.name] ?? e.message.split('\n')[0] ?? e.name;
      throw new PatchError(`${message}${at}`, JSON_PATCH_APPLY_ERRORS.has(e.name) ? 422 : 400);
    }
    // fast-json-patch throws a TypeError for `__proto__`/`constructor` paths.
    if (e instanceof TypeError) throw new PatchError(`invalid JSON patch: ${e.message.split(',')[0]}`, 400);
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// RFC 7386.

/**
 * Applies an RFC 7386 JSON merge patch: objects merge recursively, `null` deletes a key, anything
 * else (arrays included) replaces. Returns a new value; `doc` and `patch` are not modified.
 */
export function applyMergePatch(doc: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return deepCopy(patch);
  const out: JsonObject = isObject(doc) ? { ...doc } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = applyMergePatch(out[k], v);
  }
  // Values kept from `doc` are shared until here; copy so the result never aliases the input.
  for (const k of Object.keys(out)) if (!Object.prototype.hasOwnProperty.call(patch, k)) out[k] = deepCopy(out[k]);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Strategic merge patch.

const DIRECTIVE_MARKER = '$patch';
const RETAIN_KEYS_DIRECTIVE = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST_PREFIX = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER_PREFIX = '$setElementOrder';

/** mergepatch's sentinel errors (upstream messages) and the status interpretStrategicMergePatchError gives them. */
const errBadPatchFormatForRetainKeys = (): PatchError => new PatchError('invalid patch format of retainKeys', 400);
const errBadPatchFormatForSetElementOrderList = (): PatchError => new PatchError('invalid patch format of setElementOrder list', 400);
const errBadPatchFormatForPrimitiveList = (): PatchError => new PatchError('invalid patch format of primitive list', 400);
const errNoListOfLists = (): PatchError => new PatchError('lists of lists are not supported', 422);
const errNoMergeKey = (m: unknown, key: string): PatchError =>
  new PatchError(`map: ${JSON.stringify(m)} does not contain declared merge key: ${key}`, 500);
const errBadPatchType = (t: unknown, m: unknown): PatchError =>
  new PatchError(`unknown patch type: ${String(t)} in map: ${JSON.stringify(m)}`, 500);

/**
 * Where a value sits in the schema: a struct type, or a map whose values all have one field schema.
 * `undefined` means unknown (no schema): maps still merge, every list is replaced.
 */
type Ctx = { struct: TypeSchema } | { mapValue: FieldSchema } | undefined;

function fieldOf(ctx: Ctx, key: string): FieldSchema | undefined {
  if (!ctx) return undefined;
  if ('struct' in ctx) return ctx.struct.fields[key];
  return ctx.mapValue;
}

/** The context of a field's value when it is a map/struct (for a list: of its elements). */
function childCtx(f: FieldSchema | undefined, listElement: boolean): Ctx {
  if (!f || f.type === 'any') return undefined;
  if (f.map && !listElement) return { mapValue: { type: f.type } };
  const t = lookupType(f.type);
  return t ? { struct: t } : undefined;
}

/** `extractRetainKeysPatchStrategy`: `merge,retainKeys` → `merge`; `retainKeys` → ``. */
function listStrategy(f: FieldSchema | undefined): { merge: boolean; mergeKey: string } {
  const strategies = (f?.patchStrategy ?? '').split(',');
  return { merge: strategies.includes('merge'), mergeKey: f?.patchMergeKey ?? '' };
}

/**
 * Applies a strategic merge patch to a copy of `doc`, whose type is `rootType` (from `rootTypeName`;
 * an unknown type falls back to merge-patch semantics plus the directives). Semantics, as upstream:
 *
 * - maps merge recursively; `null` deletes a key; scalars and mismatched kinds are replaced;
 * - lists whose field has `patchStrategy: merge` merge: maps by `patchMergeKey` (elements of the patch
 *   merge into the element with the same key, others are appended), primitives are unioned; all other
 *   lists are replaced;
 * - `{"$patch": "replace"}` in a map replaces the map; `{"$patch": "delete"}` deletes it (leaves `{}`);
 *   in a merge list `{"$patch": "delete", "<key>": v}` removes the element with that key (a missing
 *   element is fine) and `{"$patch": "replace"}` makes the list exactly the other patch elements;
 * - `$retainKeys: [..]` drops the keys of the live map that are not listed;
 * - `$deleteFromPrimitiveList/<f>: [..]` removes those values from the primitive list `f`;
 * - `$setElementOrder/<f>: [..]` orders the merged list `f` (listed elements in that order, others
 *   where they were relative to them); it never adds elements.
 *
 * Result order of a merge list without `$setElementOrder` is upstream's: patch elements in patch order,
 * interleaved with the live-only elements according to their live positions.
 *
 * @throws PatchError (see its `code`) for a patch that is not an object, a `$retainKeys` list that
 *   omits a patched key, malformed directives, merge-list elements without their merge key, an
 *   unknown `$patch` value (`$patch: merge` included, as upstream), an order list that contradicts
 *   the patch list.
 */
export function applyStrategicMergePatch(doc: unknown, patch: unknown, rootType: string): unknown {
  if (!isObject(patch)) throw new PatchError('strategic merge patch must be a JSON object', 400);
  const t = lookupType(rootType);
  const original = isObject(doc) ? deepCopy(doc) : {};
  return mergeMap(original, deepCopy(patch), t ? { struct: t } : undefined);
}

/** `mergeMap`: merges `patch` into `original` in place (both are private copies) and returns the result. */
function mergeMap(original: JsonObject, patch: JsonObject, ctx: Ctx): JsonObject {
  if (Object.prototype.hasOwnProperty.call(patch, DIRECTIVE_MARKER)) {
    const directive = patch[DIRECTIVE_MARKER];
    if (directive === 'replace') {
      delete patch[DIRECTIVE_MARKER];
      // The replacement is taken as is, except that its nulls and nested directives are resolved.
      return mergeMap({}, patch, ctx);
    }
    if (directive === 'delete') return {};
    throw errBadPatchType(directive, patch);
  }
  applyRetainKeysDirective(original, patch);
  mergePatchIntoOriginal(original, patch, ctx);

  for (const [patchKey, patchV] of Object.entries(patch)) {
    let k = patchKey;
    const isDeleteList = patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX);
    if (isDeleteList) k = extractKey(patchKey, DELETE_FROM_PRIMITIVE_LIST_PREFIX);
    if (patchV === null) {
      delete original[k];
      continue;
    }
    const f = fieldOf(ctx, k);
    const has = Object.prototype.hasOwnProperty.call(original, k);
    const origV = has ? original[k] : undefined;
    if (!has || kindOf(origV) !== kindOf(patchV)) {
      // Not in the live object (or of another JSON kind): take the patch value, minus its nulls.
      if (!isDeleteList) original[k] = fresh(patchV, f);
      continue;
    }
    if (isObject(patchV)) {
      original[k] = mergeMap(origV as JsonObject, patchV, childCtx(f, false));
    } else if (Array.isArray(patchV)) {
      if (isDeleteList) {
        if (!patchV.every(isScalar)) throw errBadPatchFormatForPrimitiveList();
        original[k] = deleteFromSlice(origV as unknown[], patchV);
      } else {
        original[k] = mergeSliceHandler(origV as unknown[], patchV, f);
      }
    } else {
      original[k] = patchV;
    }
  }
  return original;
}

function kindOf(v: unknown): string {
  return Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v;
}

function isScalar(v: unknown): boolean {
  return v === null || typeof v !== 'object';
}

/**
 * A patch value that lands where the live object has nothing (or a value of another JSON kind).
 * Upstream stores it after `discardNullValuesFromPatch`; we also resolve the directives inside it
 * (`$patch` markers in maps and list elements, `$setElementOrder`, …) so that none reach storage.
 */
function fresh(patchV: unknown, f: FieldSchema | undefined): unknown {
  if (isObject(patchV)) return mergeMap({}, patchV, childCtx(f, false));
  if (Array.isArray(patchV)) return cleanList(patchV, f);
  return patchV;
}

/** A patch list taken as the new value: directive elements dropped, element maps cleaned by {@link fresh}. */
function cleanList(patch: unknown[], f: FieldSchema | undefined): unknown[] {
  const elemCtx = childCtx(f, true);
  const out: unknown[] = [];
  for (const p of patch) {
    if (!isObject(p)) out.push(p);
    else if (!Object.prototype.hasOwnProperty.call(p, DIRECTIVE_MARKER)) out.push(mergeMap({}, p, elemCtx));
  }
  return out;
}

/** `extractKey`: `$setElementOrder/containers` → `containers`. */
function extractKey(s: string, prefix: string): string {
  const slash = s.indexOf('/');
  if (slash < 0 || s.slice(0, slash) !== prefix) {
    throw prefix === DELETE_FROM_PRIMITIVE_LIST_PREFIX ? errBadPatchFormatForPrimitiveList() : errBadPatchFormatForSetElementOrderList();
  }
  return s.slice(slash + 1);
}

/** `applyRetainKeysDirective`: every patched key must be listed; live keys not listed are dropped. */
function applyRetainKeysDirective(original: JsonObject, patch: JsonObject): void {
  if (!Object.prototype.hasOwnProperty.call(patch, RETAIN_KEYS_DIRECTIVE)) return;
  const list = patch[RETAIN_KEYS_DIRECTIVE];
  delete patch[RETAIN_KEYS_DIRECTIVE];
  if (!Array.isArray(list)) throw errBadPatchFormatForRetainKeys();
  const keep = new Set(list);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX) || k.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    if (!keep.has(k)) throw errBadPatchFormatForRetainKeys();
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

/**
 * `mergePatchIntoOriginal`: for each `$setElementOrder/<f>`, merges list `f` (if the patch has it) and
 * orders the result by the directive, then removes both from the patch so the main loop skips them.
 */
function mergePatchIntoOriginal(original: JsonObject, patch: JsonObject, ctx: Ctx): void {
  for (const [key, order] of Object.entries(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    delete patch[key];
    if (!Array.isArray(order)) throw errBadPatchFormatForSetElementOrderList();
    const listKey = extractKey(key, SET_ELEMENT_ORDER_PREFIX);
    const foundOriginal = Object.prototype.hasOwnProperty.call(original, listKey) && original[listKey] !== null;
    const foundPatch = Object.prototype.hasOwnProperty.call(patch, listKey) && patch[listKey] !== null;
    const originalList = asList(foundOriginal ? original[listKey] : []);
    const patchList = asList(foundPatch ? patch[listKey] : []);
    const f = fieldOf(ctx, listKey);
    const { mergeKey } = listStrategy(f);
    validatePatchWithSetOrderList(patchList, order, mergeKey);

    let merged: unknown[];
    if (foundOriginal && foundPatch) merged = mergeSliceHandler(originalList, patchList, f);
    else if (foundPatch) merged = cleanList(patchList, f);
    else if (foundOriginal) merged = originalList;
    else continue;

    const isMap = [...originalList, ...patchList].some(isObject);
    const { inList, notInList } = partition(merged, order, isMap ? mergeKey : '');
    original[listKey] = normalizeElementOrder(inList, notInList, order, originalList, isMap ? mergeKey : '');
    delete patch[listKey];
  }
}

function asList(v: unknown): unknown[] {
  if (!Array.isArray(v)) throw new PatchError(`expected a []interface {}, but received a ${goTypeName(v)}`, 500);
  return v as unknown[];
}

function goTypeName(v: unknown): string {
  if (Array.isArray(v)) return '[]interface {}';
  if (isObject(v)) return 'map[string]interface {}';
  return typeof v === 'number' ? 'float64' : typeof v === 'boolean' ? 'bool' : typeof v;
}

/** The identity of a list element for ordering: its merge-key value, or itself for primitives. */
function identity(item: unknown, mergeKey: string): unknown {
  if (!mergeKey) return item;
  return isObject(item) ? item[mergeKey] : undefined;
}

/**
 * `validatePatchWithSetOrderList`: the patch list's non-directive elements must appear in the order
 * list, in the same relative order.
 */
function validatePatchWithSetOrderList(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey ? patchList.filter((p) => !(isObject(p) && p[DIRECTIVE_MARKER] === 'delete')) : patchList;
  let pi = 0;
  let oi = 0;
  while (pi < items.length && oi < order.length) {
    const p = items[pi];
    if (isObject(p) && Object.prototype.hasOwnProperty.call(p, DIRECTIVE_MARKER)) {
      pi++;
      continue;
    }
    if (mergeKey) {
      const o = order[oi];
      if (!isObject(p)) throw new PatchError(`expected a map[string]interface {}, but received a ${goTypeName(p)}`, 500);
      if (!isObject(o)) throw new PatchError(`expected a map[string]interface {}, but received a ${goTypeName(o)}`, 500);
      if (!(mergeKey in p)) throw errNoMergeKey(p, mergeKey);
      if (!(mergeKey in o)) throw errNoMergeKey(o, mergeKey);
    }
    if (identity(p, mergeKey) === identity(order[oi], mergeKey)) pi++;
    oi++;
  }
  if (pi < items.length && oi >= order.length) {
    throw new PatchError(
      `The order in patch list:\n${JSON.stringify(patchList)}\n doesn't match ${SET_ELEMENT_ORDER_PREFIX} list:\n${JSON.stringify(order)}\n`,
      500,
    );
  }
}

/** `mergeSliceHandler`: merge lists merge, every other list is replaced by the patch list. */
function mergeSliceHandler(original: unknown[], patch: unknown[], f: FieldSchema | undefined): unknown[] {
  const { merge, mergeKey } = listStrategy(f);
  if (!merge) return cleanList(patch, f);
  return mergeSlice(original, patch, mergeKey, childCtx(f, true));
}

/** Element kind of the lists: `map`, `scalar`; throws for lists of lists or mixed kinds. */
function sliceElementKind(...lists: unknown[][]): 'map' | 'scalar' | undefined {
  let kind: 'map' | 'scalar' | undefined;
  let prev: string | undefined;
  for (const l of lists) {
    for (const v of l) {
      const k = kindOf(v);
      if (prev === undefined) {
        if (k === 'array') throw errNoListOfLists();
        prev = k;
        kind = k === 'object' ? 'map' : 'scalar';
      } else if (k !== prev) {
        throw new PatchError(`list element types are not identical: ${JSON.stringify(lists)}`, 500);
      }
    }
  }
  return kind;
}

/** `mergeSlice` for a list with strategy merge. */
function mergeSlice(original: unknown[], patch: unknown[], mergeKey: string, elemCtx: Ctx): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementKind(original, patch);
  let merged: unknown[];
  if (kind !== 'map') {
    merged = dedupe([...original, ...patch]);
  } else {
    if (!mergeKey) throw new PatchError('cannot merge lists without merge key for type map', 500);
    ({ original, patch } = mergeSliceWithSpecialElements(original, patch, mergeKey, elemCtx));
    merged = mergeSliceWithoutSpecialElements(original, patch, mergeKey, elemCtx);
  }
  const key = kind === 'map' ? mergeKey : '';
  const { inList, notInList } = partition(merged, patch, key);
  return normalizeElementOrder(inList, notInList, patch, original, key);
}

function dedupe(list: unknown[]): unknown[] {
  return [...new Set(list)];
}

/**
 * Applies `$patch: delete|replace` elements; returns the new live list and the remaining patch
 * elements. With `replace`, the other patch elements (cleaned of nulls) become the live list.
 */
function mergeSliceWithSpecialElements(
  original: unknown[],
  patch: unknown[],
  mergeKey: string,
  elemCtx: Ctx,
): { original: unknown[]; patch: unknown[] } {
  const rest: unknown[] = [];
  let replace = false;
  for (const v of patch) {
    const m = v as JsonObject;
    if (!Object.prototype.hasOwnProperty.call(m, DIRECTIVE_MARKER)) {
      rest.push(v);
      continue;
    }
    const directive = m[DIRECTIVE_MARKER];
    if (directive === 'delete') {
      if (!Object.prototype.hasOwnProperty.call(m, mergeKey)) throw errNoMergeKey(m, mergeKey);
      for (let i = findByKey(original, mergeKey, m[mergeKey]); i >= 0; i = findByKey(original, mergeKey, m[mergeKey])) {
        original = [...original.slice(0, i), ...original.slice(i + 1)];
      }
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw new PatchError('merging lists cannot yet be specified in the patch', 500);
    } else {
      throw errBadPatchType(directive, m);
    }
  }
  return replace ? { original: rest.map((p) => mergeMap({}, p as JsonObject, elemCtx)), patch: [] } : { original, patch: rest };
}

/** Merges each patch element into the live element with the same merge key, or appends it. */
function mergeSliceWithoutSpecialElements(original: unknown[], patch: unknown[], mergeKey: string, elemCtx: Ctx): unknown[] {
  const out = [...original];
  for (const v of patch) {
    const m = v as JsonObject;
    if (!Object.prototype.hasOwnProperty.call(m, mergeKey)) throw errNoMergeKey(m, mergeKey);
    const i = findByKey(out, mergeKey, m[mergeKey]);
    if (i >= 0) out[i] = mergeMap(out[i] as JsonObject, m, elemCtx);
    else out.push(mergeMap({}, m, elemCtx));
  }
  return out;
}

/** `findMapInSliceBasedOnKeyValue`: index of the first element whose merge key equals `value`, or -1. */
function findByKey(list: unknown[], mergeKey: string, value: unknown): number {
  for (let i = 0; i < list.length; i++) {
    const o = list[i];
    if (!isObject(o)) throw new PatchError(`value for key ${i} is not a map.`, 500);
    if (Object.prototype.hasOwnProperty.call(o, mergeKey) && o[mergeKey] === value) return i;
  }
  return -1;
}

/** `deleteFromSlice`: the live primitive list without the listed values. */
function deleteFromSlice(current: unknown[], toDelete: unknown[]): unknown[] {
  const del = new Set(toDelete);
  return current.filter((v) => !del.has(v));
}

/** `partitionMapsByPresentInList` / `partitionPrimitivesByPresentInList`. */
function partition(items: unknown[], by: unknown[], mergeKey: string): { inList: unknown[]; notInList: unknown[] } {
  const ids = new Set<unknown>();
  for (const b of by) ids.add(identity(b, mergeKey));
  const inList: unknown[] = [];
  const notInList: unknown[] = [];
  for (const item of items) {
    if (mergeKey && !(isObject(item) && Object.prototype.hasOwnProperty.call(item, mergeKey))) throw errNoMergeKey(item, mergeKey);
    (ids.has(identity(item, mergeKey)) ? inList : notInList).push(item);
  }
  return { inList, notInList };
}

/** Position of `item` in `list` by identity, or -1. */
function indexIn(list: unknown[], item: unknown, mergeKey: string): number {
  const id = identity(item, mergeKey);
  for (let i = 0; i < list.length; i++) if (identity(list[i], mergeKey) === id) return i;
  return -1;
}

/** `normalizeSliceOrder`: stable sort of `toSort` by position in `order` (items not in it keep their place). */
function normalizeSliceOrder(toSort: unknown[], order: unknown[], mergeKey: string): unknown[] {
  const pos = new Map<unknown, number>();
  for (const v of toSort) pos.set(v, indexIn(order, v, mergeKey));
  return [...toSort].sort((a, b) => {
    const ia = pos.get(a) ?? -1;
    const ib = pos.get(b) ?? -1;
    return ia >= 0 && ib >= 0 ? ia - ib : 0;
  });
}

/**
 * `normalizeElementOrder` + `mergeSortedSlice`: sorts patch items by `patchOrder` and live-only items
 * by `serverOrder`, then interleaves them: a live-only item goes before the next patch item when the
 * live list had it first. Worked example: live [a, b, c], patch [d, b] → d (new), a (before b live),
 * b, c → [d, a, b, c].
 */
function normalizeElementOrder(patchItems: unknown[], serverOnly: unknown[], patchOrder: unknown[], serverOrder: unknown[], mergeKey: string): unknown[] {
  const right = normalizeSliceOrder(patchItems, patchOrder, mergeKey);
  const left = normalizeSliceOrder(serverOnly, serverOrder, mergeKey);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey);
      const ri = indexIn(serverOrder, right[j], mergeKey);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}
