/**
 * The `aesgcm` and `aescbc` providers' ciphers, with node:crypto. Stored layouts and error messages are
 * upstream's (k8s.io/apiserver/pkg/storage/value/encrypt/aes/aes.go `NewGCMTransformer`,
 * `NewCBCTransformer`):
 *
 * - AES-GCM: 12-byte random nonce ‖ ciphertext ‖ 16-byte tag; the storage key is the additional
 *   authenticated data, so a value moved to another key fails to open.
 * - AES-CBC: 16-byte random IV ‖ ciphertext of the PKCS#7-padded value; no authentication (upstream
 *   documents aescbc as weaker for that reason).
 *
 * Nonces and IVs come from node:crypto `randomBytes`: they are cryptographic material, not simulation
 * randomness, and must not come from the seeded `Rand`.
 */
import { createCipheriv, createDecipheriv, randomBytes, type CipherGCMTypes } from 'node:crypto';
import type { BinaryCipher } from './binary.js';

const GCM_NONCE_SIZE = 12;
const GCM_TAG_SIZE = 16;
const AES_BLOCK_SIZE = 16;

/** Key sizes AES accepts, in bytes (upstream `aesKeySizes`). */
export const AES_KEY_SIZES: readonly number[] = [16, 24, 32];

/** The key length in bits; throws Go's `crypto/aes: invalid key size N` for another size. */
function keyBits(key: Buffer): 128 | 192 | 256 {
  if (!AES_KEY_SIZES.includes(key.length)) throw new Error(`crypto/aes: invalid key size ${key.length}`);
  return (key.length * 8) as 128 | 192 | 256;
}

/** AES-GCM with a 16, 24 or 32-byte key (upstream `NewGCMTransformer`). */
export function newGCMCipher(key: Buffer): BinaryCipher {
  const alg: CipherGCMTypes = `aes-${keyBits(key)}-gcm`;
  return {
    seal(plaintext, authenticatedData) {
      const nonce = randomBytes(GCM_NONCE_SIZE);
      const c = createCipheriv(alg, key, nonce, { authTagLength: GCM_TAG_SIZE });
      c.setAAD(authenticatedData);
      return Buffer.concat([nonce, c.update(plaintext), c.final(), c.getAuthTag()]);
    },
    open(sealed, authenticatedData) {
      if (sealed.length < GCM_NONCE_SIZE) throw new Error('the stored data was shorter than the required size');
      // Go's AEAD.Open fails every malformed input with the one message.
      if (sealed.length < GCM_NONCE_SIZE + GCM_TAG_SIZE) throw new Error('cipher: message authentication failed');
      const d = createDecipheriv(alg, key, sealed.subarray(0, GCM_NONCE_SIZE), { authTagLength: GCM_TAG_SIZE });
      d.setAAD(authenticatedData);
      d.setAuthTag(sealed.subarray(sealed.length - GCM_TAG_SIZE));
      try {
        return Buffer.concat([d.update(sealed.subarray(GCM_NONCE_SIZE, sealed.length - GCM_TAG_SIZE)), d.final()]);
      } catch {
        throw new Error('cipher: message authentication failed');
      }
    },
  };
}

/** AES-CBC with PKCS#7 padding and a 16, 24 or 32-byte key (upstream `NewCBCTransformer`). */
export function newCBCCipher(key: Buffer): BinaryCipher {
  const alg = `aes-${keyBits(key)}-cbc`;
  return {
    seal(plaintext) {
      const iv = randomBytes(AES_BLOCK_SIZE);
      const c = createCipheriv(alg, key, iv); // node pads with PKCS#7, as upstream does by hand
      return Buffer.concat([iv, c.update(plaintext), c.final()]);
    },
    open(sealed) {
      if (sealed.length < AES_BLOCK_SIZE) throw new Error('the stored data was shorter than the required size');
      const data = sealed.subarray(AES_BLOCK_SIZE);
      if (data.length % AES_BLOCK_SIZE !== 0) throw new Error('the stored data is not a multiple of the block size');
      const d = createDecipheriv(alg, key, sealed.subarray(0, AES_BLOCK_SIZE));
      d.setAutoPadding(false); // checked below, with upstream's messages
      const out = Buffer.concat([d.update(data), d.final()]);
      const pad = out.length > 0 ? (out[out.length - 1] as number) : 0;
      if (pad === 0 || pad > out.length) throw new Error('invalid PKCS7 data (empty or not padded)');
      for (let i = out.length - pad; i < out.length; i++) if (out[i] !== pad) throw new Error('invalid padding on input');
      return out.subarray(0, out.length - pad);
    },
  };
}
