/**
 * The FieldsV1 encoding of a field set, byte for byte as sigs.k8s.io/structured-merge-diff/v4
 * fieldpath/serialize.go (v4.6.0) writes it: a JSON object whose keys are serialized path elements
 * in set order (members and children merged by element order), `{}` for a leaf member, a nested
 * object for children, and `".":{}` first inside a node that is itself a member.
 */
import { compareElements as compare, deserializePathElement, serializePathElement, UnknownPathElementTypeError, type PathElement } from './element.js';
import { FieldSet } from './set.js';
import { isMap, jsonString } from './value.js';

function emit(s: FieldSet, includeSelf: boolean, out: string[]): void {
  const members = s.members.members;
  const children = s.children.members;
  let first = true;
  const field = (pe: PathElement): void => {
    if (!first) out.push(',');
    first = false;
    out.push(jsonString(serializePathElement(pe), false), ':');
  };
  if (includeSelf && (members.length > 0 || children.length > 0)) {
    out.push('".":{}');
    first = false;
  }
  let mi = 0;
  let ci = 0;
  while (mi < members.length || ci < children.length) {
    const m = members[mi];
    const c = children[ci];
    const order = m === undefined ? 1 : c === undefined ? -1 : compare(m, c.pathElement);
    if (order < 0 && m !== undefined) {
      field(m);
      out.push('{}');
      mi++;
    } else if (c !== undefined) {
      field(c.pathElement);
      out.push('{');
      emit(c.set, order === 0, out);
      out.push('}');
      if (order === 0) mi++;
      ci++;
    }
  }
}

/** The FieldsV1 JSON of `s` (Set.ToJSON): `{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`. */
export function setToJson(s: FieldSet): string {
  const out: string[] = ['{'];
  emit(s, false, out);
  out.push('}');
  return out.join('');
}

/**
 * The FieldsV1 of `s` as the parsed object of {@link setToJson} (same keys in the same order), built
 * directly: the API server keeps managedFields as objects, and every write encodes its managers.
 */
export function setToObject(s: FieldSet): Record<string, unknown> {
  return emitObject(s, false);
}

/**
 * Every leaf (`{}`) of the FieldsV1 objects {@link setToObject} builds: one frozen object, not one per
 * field. A pod's managedFields have about 60 leaves, and the stored versions kept in the watch caches
 * held 77 empty objects a pod (3.4 KiB of its ~16 KiB). Callers never change a FieldsV1 they encoded
 * (the API server freezes what it stores).
 */
const LEAF: Record<string, unknown> = Object.freeze({});

function emitObject(s: FieldSet, includeSelf: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const members = s.members.members;
  const children = s.children.members;
  if (includeSelf && (members.length > 0 || children.length > 0)) out['.'] = LEAF;
  let mi = 0;
  let ci = 0;
  while (mi < members.length || ci < children.length) {
    const m = members[mi];
    const c = children[ci];
    const order = m === undefined ? 1 : c === undefined ? -1 : compare(m, c.pathElement);
    if (order < 0 && m !== undefined) {
      out[serializePathElement(m)] = LEAF;
      mi++;
    } else if (c !== undefined) {
      out[serializePathElement(c.pathElement)] = emitObject(c.set, order === 0);
      if (order === 0) mi++;
      ci++;
    }
  }
  return out;
}

/** Read a node; returns its children (undefined when none) and whether the node is itself a member. */
function readNode(obj: unknown): { children: FieldSet | undefined; isMember: boolean } {
  if (!isMap(obj)) throw new Error('ReadMapCB: expect { or n, but found ' + JSON.stringify(obj));
  let children: FieldSet | undefined;
  let isMember = false;
  for (const [key, sub] of Object.entries(obj)) {
    if (key === '.') {
      isMember = true;
      continue;
    }
    let pe: PathElement;
    try {
      pe = deserializePathElement(key);
    } catch (e) {
      // Elements of a kind a future version may define are dropped, as upstream does.
      if (e instanceof UnknownPathElementTypeError) continue;
      throw new Error(`parsing key as path element: ${(e as Error).message}`);
    }
    const r = readNode(sub);
    if (r.isMember) (children ??= new FieldSet()).members.insert(pe);
    if (r.children !== undefined) {
      const target = (children ??= new FieldSet()).children.descend(pe);
      target.members = r.children.members;
      target.children = r.children.children;
    }
  }
  if (children === undefined) isMember = true;
  return { children, isMember };
}

/** Parse FieldsV1 JSON (a string of JSON text, or the already parsed object) into a set (Set.FromJSON). Throws on malformed input; unknown element kinds are dropped. */
export function setFromJson(json: unknown): FieldSet {
  const parsed: unknown = typeof json === 'string' ? JSON.parse(json) : json;
  return readNode(parsed).children ?? new FieldSet();
}
