/**
 * The fuzzer's model of a kind: every field path its schema declares (down to a depth), with the
 * declared type at the end, and how to set or delete a value at such a path in an object.
 */
import { isStructType, lookupType, type FieldSchema } from '../../src/api/schema/index.js';

/** One step of a path: a field name, a list index, or a map key. */
export type Step = { field: string } | { index: number } | { key: string };

/** A field path with the schema of its last step. */
export interface FieldPath {
  steps: Step[];
  /** The scalar or struct type at the end (`int32`, `string`, `io.k8s.api.core.v1.PodSpec` …). */
  type: string;
  /** The path ends at a whole list or map (not one of its members). */
  container?: 'list' | 'map';
}

const MAX_DEPTH = 8;
const cache = new Map<string, FieldPath[]>();

/** Every field path of `rootType`, lists stepped into at index 0 and maps at key `k`. */
export function fieldPaths(rootType: string): FieldPath[] {
  let paths = cache.get(rootType);
  if (!paths) {
    paths = [];
    walk(rootType, [], new Set([rootType]), paths);
    cache.set(rootType, paths);
  }
  return paths;
}

function walk(typeName: string, prefix: Step[], seen: Set<string>, out: FieldPath[]): void {
  const t = lookupType(typeName);
  if (!t || prefix.length >= MAX_DEPTH) return;
  for (const [name, f] of Object.entries(t.fields)) {
    if (name === 'apiVersion' || name === 'kind') continue;
    const at = [...prefix, { field: name }];
    if (f.list || f.map) {
      out.push({ steps: at, type: f.type, container: f.list ? 'list' : 'map' });
      const member = [...at, f.list ? { index: 0 } : { key: 'k' }];
      out.push({ steps: member, type: f.type });
      descend(f, member, seen, out);
    } else {
      out.push({ steps: at, type: f.type });
      descend(f, at, seen, out);
    }
  }
}

function descend(f: FieldSchema, at: Step[], seen: Set<string>, out: FieldPath[]): void {
  if (f.type === 'any' || !isStructType(f.type) || seen.has(f.type)) return;
  seen.add(f.type);
  walk(f.type, at, seen, out);
  seen.delete(f.type);
}

/** The JSON-pointer spelling of a path (`/spec/template/spec/containers/0/image`). */
export function jsonPointer(steps: readonly Step[]): string {
  return steps.map((s) => '/' + String('field' in s ? s.field : 'index' in s ? s.index : s.key).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

/**
 * Sets `value` at `steps` in `obj` (mutated), creating the objects and lists on the way; a step into a
 * value that is not a container replaces it.
 */
export function setAt(obj: Record<string, unknown>, steps: readonly Step[], value: unknown): void {
  let cur: Record<string, unknown> | unknown[] = obj;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i] as Step;
    const last = i === steps.length - 1;
    const next = steps[i + 1];
    const fresh = (): unknown => (next && 'index' in next ? [] : {});
    if ('index' in step) {
      const arr = cur as unknown as unknown[];
      while (arr.length <= step.index) arr.push(last ? null : fresh());
      if (last) arr[step.index] = value;
      else if (arr[step.index] === null || typeof arr[step.index] !== 'object') arr[step.index] = fresh();
      if (!last) cur = arr[step.index] as Record<string, unknown>;
    } else {
      const rec = cur;
      const k = 'field' in step ? step.field : step.key;
      if (last) rec[k] = value;
      else {
        if (rec[k] === null || typeof rec[k] !== 'object') rec[k] = fresh();
        cur = rec[k] as Record<string, unknown>;
      }
    }
  }
}

/** Removes the value at `steps` when it exists. */
export function deleteAt(obj: Record<string, unknown>, steps: readonly Step[]): void {
  let cur: unknown = obj;
  for (let i = 0; i < steps.length - 1; i++) {
    const s = steps[i] as Step;
    if (cur === null || typeof cur !== 'object') return;
    cur = (cur as Record<string, unknown>)['field' in s ? s.field : 'index' in s ? s.index : s.key];
  }
  const s = steps[steps.length - 1];
  if (!s || cur === null || typeof cur !== 'object') return;
  if ('index' in s && Array.isArray(cur)) cur.splice(s.index, 1);
  else delete (cur as Record<string, unknown>)['field' in s ? s.field : 'index' in s ? String(s.index) : s.key];
}

/** A merge patch that sets `value` at `steps` (lists are replaced wholesale by merge patches). */
export function mergePatchFor(steps: readonly Step[], value: unknown): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  setAt(patch, steps, value);
  return patch;
}
