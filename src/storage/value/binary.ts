/**
 * The bridge between the ciphers, which work on bytes, and {@link Transformer}s, which work on the
 * strings the Backend stores: the plaintext is the UTF-8 of the value, the stored form the standard
 * base64 (with padding) of the sealed bytes (see ./transformer.ts for why base64).
 */
import type { Transformer } from './transformer.js';

/** A cipher over bytes: `open` undoes `seal` and throws an Error with upstream's message when it cannot. */
export interface BinaryCipher {
  seal(plaintext: Buffer, authenticatedData: Buffer): Buffer;
  open(sealed: Buffer, authenticatedData: Buffer): Buffer;
}

/** `cipher` as a string {@link Transformer}: UTF-8 plaintext, base64 stored form; never stale by itself. */
export function base64Transformer(cipher: BinaryCipher): Transformer {
  return {
    transformToStorage: (data, authenticatedData) => cipher.seal(Buffer.from(data, 'utf8'), Buffer.from(authenticatedData, 'utf8')).toString('base64'),
    transformFromStorage: (data, authenticatedData) => ({
      data: cipher.open(Buffer.from(data, 'base64'), Buffer.from(authenticatedData, 'utf8')).toString('utf8'),
      stale: false,
    }),
  };
}
