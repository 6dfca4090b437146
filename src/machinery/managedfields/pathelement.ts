/**
 * FieldsV1 keys ⇄ path elements as apimachinery's own copy of them does. Follows k8s.io/apimachinery
 * pkg/util/managedfields/internal/pathelement.go (v0.33.9); the serializer of FieldsV1 itself is
 * structured-merge-diff's (src/machinery/fieldpath), which agrees on every element upstream writes.
 */
import { deserializePathElement, serializePathElement, type PathElement } from '../fieldpath/index.js';

/**
 * The element of a key (NewPathElement): `f:name`, `v:<json>`, `i:<int>`, `k:<json object>`.
 * Throws `missing colon: …` without a `:`, and on malformed JSON or index; an unknown prefix gives
 * the empty element (undefined), as upstream's zero PathElement.
 */
export function newPathElement(s: string): PathElement | undefined {
  const colon = s.indexOf(':');
  if (colon < 0) throw new Error(`missing colon: ${s}`);
  if (colon !== 1 || !'fvik'.includes(s.charAt(0))) return undefined;
  return deserializePathElement(s);
}

/** The key of an element (PathElementString); throws `Invalid type of path element` for an empty one. */
export function pathElementString(pe: PathElement): string {
  try {
    return serializePathElement(pe);
  } catch {
    throw new Error('Invalid type of path element');
  }
}
