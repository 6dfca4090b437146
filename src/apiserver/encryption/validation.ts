/**
 * upstream's validation of an EncryptionConfiguration, with its messages
 * (k8s.io/apiserver/pkg/apis/apiserver/validation/validation_encryption.go
 * `ValidateEncryptionConfiguration`), minus the KMS checks: kubeplane has no KMS plugin client, so a
 * `kms` provider is refused outright.
 */
import { field, type FieldError } from '../../machinery/errors/index.js';
import { goStrings, invalidGoValue } from '../../machinery/errors/go-repr.js';
import { AES_KEY_SIZES, SECRETBOX_KEY_SIZE } from '../../storage/value/index.js';
import { parseGroupResource, type EncryptionConfiguration, type Key, type ProviderConfiguration } from './types.js';

const MORE_THAN_ONE_ELEMENT = 'more than one provider specified in a single element, should split into different list elements';
const NO_PROVIDER = 'provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity';
const atLeastOneRequired = (what: string): string => `at least one ${what} is required`;
const mandatoryField = (name: string): string => `${name} is a mandatory field for a key`;
const BASE64 = 'secrets must be base64 encoded';
const EVENTS_GROUP = "'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file";
const EXTENSIONS_GROUP = "'extensions' group has been removed and cannot be used for encryption";
const STAR_RESOURCE = "use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources";
const OVERLAP = "using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked";
const NON_REST = 'resources which do not have REST API/s cannot be encrypted';
const RESOURCE_NAME = 'resource name should not contain capital letters';
const ACROSS_GROUPS = 'encrypting the same resource across groups is not supported';
const DUPLICATE = 'the same resource cannot be specified multiple times';
const KMS_UNSUPPORTED = 'KMS providers are not supported by kubeplane (it has no KMS plugin client); use aesgcm, aescbc, secretbox or identity';

/** Go's `StdEncoding`: the standard alphabet with padding; line breaks are ignored. */
const STD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The key bytes of a valid base64 secret, or undefined (Go's strict `StdEncoding.DecodeString`). */
export function decodeSecret(secret: string): Buffer | undefined {
  const s = secret.replace(/[\r\n]/g, '');
  return STD_BASE64.test(s) ? Buffer.from(s, 'base64') : undefined;
}

/** Every problem of `c`, as upstream lists them (empty when valid). */
export function validateEncryptionConfiguration(c: EncryptionConfiguration): FieldError[] {
  if (c.resources.length === 0) return [field.required('resources', atLeastOneRequired('resources'))];
  const errs: FieldError[] = [];
  c.resources.forEach((conf, i) => {
    const r = `resources[${i}].resources`;
    const p = `resources[${i}].providers`;
    if (conf.resources.length === 0) errs.push(field.required(r, atLeastOneRequired(r)));
    errs.push(...validateResourceOverlap(conf.resources, r), ...validateResourceNames(conf.resources, r));
    if (conf.providers.length === 0) errs.push(field.required(p, atLeastOneRequired(p)));
    conf.providers.forEach((provider, j) => errs.push(...validateProvider(provider, `${p}[${j}]`)));
  });
  return errs;
}

function validateProvider(provider: ProviderConfiguration, path: string): FieldError[] {
  const found = [provider.kms, provider.aesgcm, provider.aescbc, provider.secretbox, provider.identity].filter((x) => x !== undefined).length;
  if (found === 0) return [invalidGoValue(path, goProvider(provider), NO_PROVIDER)];
  if (found > 1) return [invalidGoValue(path, goProvider(provider), MORE_THAN_ONE_ELEMENT)];
  if (provider.kms !== undefined) return [field.forbidden(`${path}.kms`, KMS_UNSUPPORTED)];
  if (provider.aesgcm) return validateKeys(provider.aesgcm.keys, `${path}.aesgcm.keys`, AES_KEY_SIZES);
  if (provider.aescbc) return validateKeys(provider.aescbc.keys, `${path}.aescbc.keys`, AES_KEY_SIZES);
  if (provider.secretbox) return validateKeys(provider.secretbox.keys, `${path}.secretbox.keys`, [SECRETBOX_KEY_SIZE]);
  return [];
}

function validateKeys(keys: readonly Key[], path: string, sizes: readonly number[]): FieldError[] {
  if (keys.length === 0) return [field.required(path, atLeastOneRequired('keys'))];
  return keys.flatMap((k, i) => validateKey(k, `${path}[${i}]`, sizes));
}

function validateKey(key: Key, path: string, sizes: readonly number[]): FieldError[] {
  const errs: FieldError[] = [];
  if (key.name === '') errs.push(field.required(`${path}.name`, mandatoryField('name')));
  if (key.secret === '') return [...errs, field.required(`${path}.secret`, mandatoryField('secret'))];
  const secret = decodeSecret(key.secret);
  if (!secret) return [...errs, field.invalid(`${path}.secret`, 'REDACTED', BASE64)];
  if (!sizes.includes(secret.length)) {
    errs.push(field.invalid(`${path}.secret`, 'REDACTED', `secret is not of the expected length, got ${secret.length}, expected one of [${sizes.join(' ')}]`));
  }
  return errs;
}

/** upstream `validateResourceOverlap`: duplicates, and wildcards that mask another entry of the same list. */
function validateResourceOverlap(resources: readonly string[], path: string): FieldError[] {
  if (resources.length < 2) return [];
  const grs = resources.map(parseGroupResource);
  let overlap = false;
  let duplicate = false;
  // The pairs in upstream's order: only the first equal pair is taken as the duplicate; later ones are
  // checked for overlap too (so ['*.*', '*.*'] is reported as both).
  grs.forEach((r1, i) =>
    grs.forEach((r2, j) => {
      if (i === j) return;
      if (r1.group === r2.group && r1.resource === r2.resource && !duplicate) {
        duplicate = true;
        return;
      }
      if ((r1.group === '*' && r1.resource === '*') || (r1.group === r2.group && (r1.resource === '*' || r2.resource === '*'))) overlap = true;
    }),
  );
  const errs: FieldError[] = [];
  if (duplicate) errs.push(invalidGoValue(path, goStrings(resources), DUPLICATE));
  if (overlap) errs.push(invalidGoValue(path, goStrings(resources), OVERLAP));
  return errs;
}

/** upstream `validateResourceNames`: one message per bad name. */
function validateResourceNames(resources: readonly string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  resources.forEach((res, j) => {
    const why = resourceNameProblem(res);
    if (why) errs.push(field.invalid(`${path}[${j}]`, res, why));
  });
  return errs;
}

function resourceNameProblem(res: string): string | undefined {
  if (res.toLowerCase() !== res) return RESOURCE_NAME;
  if (res === '*') return STAR_RESOURCE;
  if (res === 'apiserveripinfo' || res === 'serviceipallocations' || res === 'servicenodeportallocations') return NON_REST;
  const gr = parseGroupResource(res);
  if (gr.group === 'events.k8s.io') return EVENTS_GROUP;
  if (gr.group === 'extensions') return EXTENSIONS_GROUP;
  if (gr.group === '*' && gr.resource !== '*') return ACROSS_GROUPS;
  return undefined;
}

/**
 * Go's `%#v` of a ProviderConfiguration, which holds pointers: absent providers print `(nil)`; for a
 * present one Go prints its address, which means nothing here, so `(…)` stands for it (and never the
 * keys).
 */
function goProvider(p: ProviderConfiguration): string {
  const ptr = (type: string, v: unknown): string => `(*apiserver.${type})(${v === undefined ? 'nil' : '…'})`;
  return (
    `apiserver.ProviderConfiguration{AESGCM:${ptr('AESConfiguration', p.aesgcm)}, AESCBC:${ptr('AESConfiguration', p.aescbc)}, ` +
    `Secretbox:${ptr('SecretboxConfiguration', p.secretbox)}, Identity:${ptr('IdentityConfiguration', p.identity)}, KMS:${ptr('KMSConfiguration', p.kms)}}`
  );
}
