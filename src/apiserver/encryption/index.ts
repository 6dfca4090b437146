/**
 * Encryption at rest: kube-apiserver's `--encryption-provider-config` (an `EncryptionConfiguration`
 * file) turned into the per-key transformers of a storage/value `TransformingBackend`.
 */
export { AESCBC_PREFIX, AESGCM_PREFIX, SECRETBOX_PREFIX, buildEncryptionConfig, groupResourceOfKey, loadEncryptionConfig, type EncryptionConfig } from './config.js';
export { ENCRYPTION_CONFIG_API_VERSION, ENCRYPTION_CONFIG_KIND } from './decode.js';
export type { EncryptionConfiguration } from './types.js';
