/**
 * The `secretbox` provider's cipher: NaCl secretbox (XSalsa20-Poly1305) with a 32-byte key, through
 * `@noble/ciphers`. Stored layout as upstream's (k8s.io/apiserver/pkg/storage/value/encrypt/secretbox/
 * secretbox.go): 24-byte random nonce ‖ secretbox output (16-byte Poly1305 tag ‖ ciphertext). No
 * additional data, as upstream. The nonce comes from node:crypto `randomBytes` (cryptographic material,
 * not simulation randomness).
 */
import { randomBytes } from 'node:crypto';
import { xsalsa20poly1305 } from '@noble/ciphers/salsa.js';
import type { BinaryCipher } from './binary.js';

const NONCE_SIZE = 24;
const OVERHEAD = 16;

/** Key size secretbox accepts, in bytes (upstream `secretBoxKeySizes`). */
export const SECRETBOX_KEY_SIZE = 32;

/** XSalsa20-Poly1305 with a 32-byte key (upstream `NewSecretboxTransformer`). */
export function newSecretboxCipher(key: Buffer): BinaryCipher {
  if (key.length !== SECRETBOX_KEY_SIZE) throw new Error(`expected key size 32 for secretbox provider, got ${key.length}`);
  return {
    seal(plaintext) {
      const nonce = randomBytes(NONCE_SIZE);
      return Buffer.concat([nonce, xsalsa20poly1305(key, nonce).encrypt(plaintext)]);
    },
    open(sealed) {
      if (sealed.length < NONCE_SIZE + OVERHEAD) throw new Error('the stored data was shorter than the required size');
      try {
        return Buffer.from(xsalsa20poly1305(key, sealed.subarray(0, NONCE_SIZE)).decrypt(sealed.subarray(NONCE_SIZE)));
      } catch {
        // upstream's message for a failed secretbox.Open, odd as it reads.
        throw new Error('output array was not large enough for encryption');
      }
    },
  };
}
