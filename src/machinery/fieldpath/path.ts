/**
 * Paths: how to reach a deeply nested field from the root of an object. Follows
 * sigs.k8s.io/structured-merge-diff/v4 fieldpath/path.go (v4.6.0).
 */
import { compareElements, elementString, elementsEqual, type PathElement } from './element.js';
import { at, type KeyField, type Value } from './value.js';

/** A path: the elements from the root down. */
export type Path = readonly PathElement[];

/** The path as upstream prints it: `.spec.containers[name="c"].image`. */
export function pathString(p: Path): string {
  return p.map(elementString).join('');
}

/** Whether two paths are element-wise equal. */
export function pathsEqual(a: Path, b: Path): boolean {
  return a.length === b.length && a.every((e, i) => elementsEqual(e, at(b, i)));
}

/** Lexical order of paths, a shorter prefix first (Path.Compare). */
export function comparePaths(a: Path, b: Path): number {
  for (let i = 0; ; i++) {
    if (i >= a.length && i >= b.length) return 0;
    if (i >= a.length) return -1;
    if (i >= b.length) return 1;
    const c = compareElements(at(a, i), at(b, i));
    if (c !== 0) return c;
  }
}

/** A part of {@link makePath}: a field name, a list index, a list-map key, a set value (`{ value }`) or an element. */
export type PathPart = string | number | readonly KeyField[] | { readonly value: Value } | PathElement;

/**
 * Build a path from parts (MakePathOrDie): strings are field names, numbers indices, arrays of
 * key fields list-map keys (non-empty, else throws), `{ value }` set items, objects elements.
 */
export function makePath(...parts: PathPart[]): PathElement[] {
  return parts.map((p): PathElement => {
    if (typeof p === 'string') return { fieldName: p };
    if (typeof p === 'number') return { index: p };
    if (Array.isArray(p)) {
      if (p.length === 0) throw new Error('associative list key type path elements must have at least one key (got zero)');
      return { key: p as readonly KeyField[] };
    }
    return p as PathElement;
  });
}
