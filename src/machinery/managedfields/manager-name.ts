/**
 * Field manager names of requests: the `fieldManager` query parameter's validation and the name
 * derived from the User-Agent when it is not given. Follows k8s.io/apiserver
 * pkg/endpoints/handlers/rest.go (managerOrUserAgent, prefixFromUserAgent) and
 * k8s.io/apimachinery pkg/apis/meta/v1/validation/validation.go (ValidateFieldManager) (v0.33).
 */
import { field, type FieldError } from '../errors/index.js';

/** The longest manager name, in bytes (FieldManagerMaxLength). */
export const FIELD_MANAGER_MAX_LENGTH = 128;

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
function isPrint(ch: string): boolean {
  return ch === ' ' || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch);
}

/**
 * The manager of a request (managerOrUserAgent): `fieldManager` when given, else the User-Agent up
 * to its first `/` (`kubectl/v1.33.0 (linux/amd64) …` → `kubectl`), without unprintable characters,
 * cut to 128 bytes at a character boundary.
 */
export function managerOrUserAgent(fieldManager: string | undefined, userAgent: string | undefined): string {
  if (fieldManager !== undefined && fieldManager !== '') return fieldManager;
  const prefix = (userAgent ?? '').split('/')[0] ?? '';
  let out = '';
  let bytes = 0;
  for (const ch of prefix) {
    if (!isPrint(ch)) continue;
    const n = Buffer.byteLength(ch);
    if (bytes + n > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
    bytes += n;
  }
  return out;
}

/** `%#U` of a code point that is not printable: `U+0007`. */
function goUnicode(cp: number): string {
  return 'U+' + cp.toString(16).toUpperCase().padStart(4, '0');
}

/**
 * The errors of a `fieldManager` (ValidateFieldManager) at `path`: `Too long: may not be more than
 * 128 bytes`, and one `Invalid value: "…": invalid character U+0007 (at position 3)` per unprintable
 * character (position in bytes). Empty means not set, and is valid here.
 */
export function validateFieldManager(fieldManager: string, path = 'fieldManager'): FieldError[] {
  const errs: FieldError[] = [];
  if (Buffer.byteLength(fieldManager) > FIELD_MANAGER_MAX_LENGTH) errs.push(field.tooLong(path, FIELD_MANAGER_MAX_LENGTH));
  let pos = 0;
  for (const ch of fieldManager) {
    if (!isPrint(ch)) errs.push(field.invalid(path, fieldManager, `invalid character ${goUnicode(ch.codePointAt(0) ?? 0)} (at position ${pos})`));
    pos += Buffer.byteLength(ch);
  }
  return errs;
}
