/**
 * Value transformers for encryption at rest (upstream k8s.io/apiserver/pkg/storage/value): the
 * transformer contract and prefix chaining, the identity, AES-GCM, AES-CBC and secretbox ciphers, and
 * the Backend wrapper that applies them per key.
 */
export { ENCRYPTED_PREFIX, aggregateMessage, identityTransformer, newPrefixTransformers, type PrefixTransformer, type Transformer } from './transformer.js';
export { base64Transformer, type BinaryCipher } from './binary.js';
export { AES_KEY_SIZES, newCBCCipher, newGCMCipher } from './aes.js';
export { SECRETBOX_KEY_SIZE, newSecretboxCipher } from './secretbox.js';
export { TransformingBackend, type TransformerForKey } from './transforming-backend.js';
