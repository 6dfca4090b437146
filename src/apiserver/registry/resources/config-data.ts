/**
 * What ConfigMaps and Secrets share: key validation (`IsConfigMapKey`), the 1 MiB size limit
 * (`core.MaxSecretSize`) and the `immutable` update rule.
 *
 * Followed (v1.33): staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go (IsConfigMapKey,
 * hasChDirPrefix), pkg/apis/core/validation/validation.go (ValidateConfigMap, ValidateConfigMapUpdate,
 * ValidateSecret, ValidateSecretUpdate).
 */
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { maxLenError, regexError } from '../../../machinery/validation/index.js';
import { semanticDeepEqual } from './helpers.js';

/** `core.MaxSecretSize`: 1 MiB, the limit of a ConfigMap's or Secret's data. */
export const MAX_SECRET_SIZE = 1024 * 1024;

const CONFIG_MAP_KEY = /^[-._a-zA-Z0-9]+$/;

/**
 * `IsConfigMapKey`: at most 253 characters of `[-._a-zA-Z0-9]`, not `.` or `..` and not starting with
 * `..`. Returns the messages, e.g. `a valid config key must consist of alphanumeric characters, '-',
 * '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`.
 */
export function isConfigMapKey(key: string): string[] {
  const errs: string[] = [];
  if (key.length > 253) errs.push(maxLenError(253));
  if (!CONFIG_MAP_KEY.test(key)) {
    errs.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", '[-._a-zA-Z0-9]+', 'key.name', 'KEY_NAME', 'key-name'));
  }
  if (key === '.') errs.push("must not be '.'");
  else if (key === '..') errs.push("must not be '..'");
  else if (key.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/** Errors for the keys of one data map at `path` (`data[<key>]`), keys in sorted order. */
export function validateDataKeys(data: Record<string, unknown> | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of Object.keys(data ?? {}).sort()) {
    for (const msg of isConfigMapKey(key)) errs.push(field.invalid(`${path}[${key}]`, key, msg));
  }
  return errs;
}

/** Bytes of a base64 value once decoded: 4 characters carry 3 bytes, less the `=` padding. */
export function base64Size(b64: string): number {
  const padding = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  return Math.floor((b64.length * 3) / 4) - padding;
}

/**
 * Once `immutable` is true, the data maps (`keys`) and the flag itself may not change:
 * `data: Forbidden: field is immutable when \`immutable\` is set`.
 */
export function validateImmutableData<T extends { immutable?: boolean | null }>(obj: T, old: T, keys: readonly (keyof T & string)[]): FieldError[] {
  if (old.immutable !== true) return [];
  const errs: FieldError[] = [];
  const msg = 'field is immutable when `immutable` is set';
  for (const k of keys) {
    if (!semanticDeepEqual(obj[k] ?? {}, old[k] ?? {})) errs.push(field.forbidden(k, msg));
  }
  if (obj.immutable !== true) errs.push(field.forbidden('immutable', msg));
  return errs;
}
