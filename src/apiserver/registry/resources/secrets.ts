/**
 * Secrets (core/v1): `data` values are base64 on the wire; `stringData` is merged into `data` on every
 * write and never stored; the type defaults to `Opaque` and decides which keys must be present.
 *
 * Followed (v1.33): pkg/apis/core/v1/conversion.go (Convert_v1_Secret_To_core_Secret: stringData
 * overwrites data), pkg/apis/core/v1/defaults.go (SetDefaults_Secret), pkg/registry/core/secret/strategy.go
 * (SelectableFields `type`), pkg/apis/core/validation/validation.go (ValidateSecret, ValidateSecretUpdate),
 * pkg/printers/internalversion/printers.go (printSecret).
 */
import { SECRETS } from '../../../api/catalogue/index.js';
import type { Secret } from '../../../api/index.js';
import { field, newBadRequest, type FieldError } from '../../../machinery/errors/index.js';
import { validateImmutableField, type ApiObject } from './helpers.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { MAX_SECRET_SIZE, base64Size, validateDataKeys, validateImmutableData } from './config-data.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

type SecretObject = ApiObject<Secret>;

/** Secret types with required keys (core.SecretType*). */
export const SECRET_TYPE = {
  opaque: 'Opaque',
  serviceAccountToken: 'kubernetes.io/service-account-token',
  dockercfg: 'kubernetes.io/dockercfg',
  dockerConfigJson: 'kubernetes.io/dockerconfigjson',
  basicAuth: 'kubernetes.io/basic-auth',
  sshAuth: 'kubernetes.io/ssh-auth',
  tls: 'kubernetes.io/tls',
} as const;

const BASE64 = /^[A-Za-z0-9+/]*$/;

/**
 * The offset Go's `base64.StdEncoding` reports for an invalid value (`illegal base64 data at input
 * byte N`), or -1 when `b64` is valid (padded, groups of four). Examples: `a$==` → 1, `abc` → 0.
 */
export function base64ErrorOffset(b64: string): number {
  const body = b64.replace(/={1,2}$/, '');
  for (let i = 0; i < body.length; i++) if (!BASE64.test(body.charAt(i))) return i;
  if (b64.length % 4 !== 0) return b64.length - (b64.length % 4);
  return -1;
}

/**
 * The v1 → internal conversion and SetDefaults_Secret: each `stringData` entry overwrites `data[k]`
 * (base64 of its UTF-8), `stringData` is dropped, the type defaults to `Opaque`.
 * @throws StatusError 400 `Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte N`
 */
export function defaultSecret(secret: SecretObject): void {
  for (const [k, v] of Object.entries(secret.data ?? {})) {
    const at = typeof v === 'string' ? base64ErrorOffset(v) : 0;
    if (at >= 0) throw newBadRequest(`Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte ${at} (data[${k}])`);
  }
  const stringData = secret.stringData;
  if (stringData && Object.keys(stringData).length > 0) {
    const data = (secret.data = { ...secret.data });
    for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(v, 'utf8').toString('base64');
  }
  delete secret.stringData;
  if (!secret.type) secret.type = SECRET_TYPE.opaque;
}

function requireKey(data: Record<string, string>, key: string, errs: FieldError[]): boolean {
  if (Object.prototype.hasOwnProperty.call(data, key)) return true;
  errs.push(field.required(`data[${key}]`));
  return false;
}

/** A dockercfg payload must be a JSON object. */
function validateDockerConfig(data: Record<string, string>, key: string, errs: FieldError[]): void {
  if (!requireKey(data, key, errs)) return;
  try {
    const v: unknown = JSON.parse(Buffer.from(data[key] as string, 'base64').toString('utf8'));
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('json: cannot unmarshal into Go value of type map[string]interface {}');
  } catch (err) {
    errs.push(field.invalid(`data[${key}]`, '<secret contents redacted>', (err as Error).message));
  }
}

/**
 * `ValidateSecret`: valid keys, at most 1 MiB (`data: Too long: may not be more than 1048576 bytes`), and
 * each type's required keys — service-account-token: annotation `kubernetes.io/service-account.name`;
 * dockercfg: `.dockercfg` (JSON); dockerconfigjson: `.dockerconfigjson` (JSON); basic-auth: `username`
 * or `password`; ssh-auth: `ssh-privatekey`; tls: `tls.key` and `tls.crt`.
 */
export function validateSecret(secret: Secret): FieldError[] {
  const data = secret.data ?? {};
  const errs = validateDataKeys(data, 'data');
  let total = 0;
  for (const v of Object.values(data)) total += base64Size(v);
  if (total > MAX_SECRET_SIZE) errs.push(field.tooLong('data', MAX_SECRET_SIZE));
  switch (secret.type) {
    case SECRET_TYPE.serviceAccountToken:
      if (!secret.metadata?.annotations?.['kubernetes.io/service-account.name']) {
        errs.push(field.required('metadata.annotations[kubernetes.io/service-account.name]'));
      }
      break;
    case SECRET_TYPE.dockercfg:
      validateDockerConfig(data, '.dockercfg', errs);
      break;
    case SECRET_TYPE.dockerConfigJson:
      validateDockerConfig(data, '.dockerconfigjson', errs);
      break;
    case SECRET_TYPE.basicAuth:
      // Either may be empty, but one must be present.
      if (!('username' in data) && !('password' in data)) errs.push(field.required('data[username]'), field.required('data[password]'));
      break;
    case SECRET_TYPE.sshAuth:
      requireKey(data, 'ssh-privatekey', errs);
      break;
    case SECRET_TYPE.tls:
      requireKey(data, 'tls.key', errs);
      requireKey(data, 'tls.crt', errs);
      break;
    case undefined:
    default:
  }
  return errs;
}

/** `ValidateSecretUpdate`: the type is immutable, immutable secrets keep their data, then ValidateSecret. */
export function validateSecretUpdate(secret: Secret, old: Secret): FieldError[] {
  return [...validateImmutableField(secret.type, old.type, 'type'), ...validateImmutableData(secret, old, ['data']), ...validateSecret(secret)];
}

/** The secrets strategy. */
export const secretStrategy: ResourceStrategy<SecretObject> = {
  info: resourceInfo(SECRETS),
  hasStatus: false,
  defaults: defaultSecret,
  prepareForCreate() {},
  prepareForUpdate() {},
  validate: validateSecret,
  validateUpdate: validateSecretUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: { type: (s) => s.type ?? '' },
  table: {
    columns: [
      NAME_COLUMN,
      column('Type', 'string', 'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types'),
      column(
        'Data',
        'string',
        "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
      ),
      AGE_COLUMN,
    ],
    row: (s, now) => ({
      cells: [s.metadata?.name ?? '', s.type ?? '', Object.keys(s.data ?? {}).length, translateTimestampSince(s.metadata?.creationTimestamp, now)],
    }),
  },
};
