/**
 * The field set of a value without a schema, after sigs.k8s.io/structured-merge-diff/v4
 * fieldpath/fromvalue.go (v4.6.0): every leaf (scalar or null) is a member; list items are addressed
 * by their `key`, `id` and `name` fields when they have scalar ones, else by index.
 */
import type { PathElement } from './element.js';
import { FieldSet } from './set.js';
import { isMap, sortKeyFields, type KeyField, type Value } from './value.js';

/** The fields upstream guesses an item's identity from (AssociativeListCandidateFieldNames). */
export const associativeListCandidateFieldNames: readonly string[] = ['key', 'id', 'name'];

/** The element of list item `index` (GuessBestListPathElement): its scalar candidate keys, else its index. */
export function guessBestListPathElement(index: number, item: Value): PathElement {
  if (!isMap(item)) return { index };
  const keys: KeyField[] = [];
  for (const name of associativeListCandidateFieldNames) {
    if (!Object.hasOwn(item, name)) continue;
    const f = item[name];
    if (f === undefined || f === null || typeof f === 'object') continue;
    keys.push({ name, value: f });
  }
  return keys.length > 0 ? { key: sortKeyFields(keys) } : { index };
}

/** Every leaf path of `v` (SetFromValue). */
export function setFromValue(v: Value): FieldSet {
  const s = new FieldSet();
  const walk = (x: Value, path: PathElement[]): void => {
    if (Array.isArray(x)) {
      x.forEach((item, i) => walk(item, [...path, guessBestListPathElement(i, item)]));
      return;
    }
    if (isMap(x)) {
      for (const [k, child] of Object.entries(x)) walk(child, [...path, { fieldName: k }]);
      return;
    }
    if (path.length > 0) s.insert(path);
  };
  walk(v, []);
  return s;
}
