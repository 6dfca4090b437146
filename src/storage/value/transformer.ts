/**
 * Value transformers: how a value is turned into what storage holds and back, per resource; the basis
 * of encryption at rest. Follows k8s.io/apiserver/pkg/storage/value/transformer.go (`Transformer`,
 * `PrefixTransformer`, `NewPrefixTransformers`) and encrypt/identity/identity.go
 * (`NewEncryptCheckTransformer`).
 *
 * Values are strings here because the {@link Backend} stores strings (JSON text). A transformer's
 * stored form is ASCII: a chain of prefixes naming the provider and key (upstream's exact prefixes,
 * e.g. `k8s:enc:aesgcm:v1:key1:`), then the binary ciphertext in standard base64 (with padding). The
 * base64 step is ours (upstream stores the raw bytes in etcd); it makes the stored value plain text
 * that every backend round-trips unchanged, SQLite TEXT columns included. The identity transformer
 * stores the JSON text as it is.
 */

/** A value transformer. Methods throw an `Error` whose message is upstream's when the value cannot be transformed. */
export interface Transformer {
  /**
   * The stored form of `data`. `authenticatedData` identifies the value (the storage key): AEAD
   * providers bind the ciphertext to it, so a value copied to another key does not decrypt.
   */
  transformToStorage(data: string, authenticatedData: string): string;
  /**
   * The value back from its stored form; `stale` when it was not written by the transformer that
   * writes now (another provider or key), so it should be rewritten (upstream's `stale`).
   */
  transformFromStorage(data: string, authenticatedData: string): { data: string; stale: boolean };
}

/** A transformer and the prefix its stored values carry (upstream `PrefixTransformer`). */
export interface PrefixTransformer {
  prefix: string;
  transformer: Transformer;
}

/**
 * Go's `utilerrors.NewAggregate(errs).Error()` for non-empty `errs`: the distinct messages, joined by
 * ", " and bracketed when there are several.
 */
export function aggregateMessage(errs: readonly Error[]): string {
  const msgs = [...new Set(errs.map((e) => e.message))];
  return msgs.length === 1 ? (msgs[0] as string) : `[${msgs.join(', ')}]`;
}

/**
 * upstream `NewPrefixTransformers`: writes with the first transformer (prefixing its output); reads
 * with the first one whose prefix the stored value has, trying the next matching one when it fails
 * (two providers of one kind share a prefix during key rotation) and skipping a failing empty-prefix
 * (identity) one, so data is found whichever provider wrote it. A read through any but the first is
 * stale. When nothing matches, reading throws `noMatch`; when matches all failed, their aggregate.
 */
export function newPrefixTransformers(noMatch: string, transformers: readonly PrefixTransformer[]): Transformer {
  const first = transformers[0];
  if (!first) throw new Error('newPrefixTransformers needs at least one transformer');
  return {
    transformToStorage(data, authenticatedData) {
      return first.prefix + first.transformer.transformToStorage(data, authenticatedData);
    },
    transformFromStorage(data, authenticatedData) {
      const errs: Error[] = [];
      for (const [i, t] of transformers.entries()) {
        if (!data.startsWith(t.prefix)) continue;
        try {
          const out = t.transformer.transformFromStorage(data.slice(t.prefix.length), authenticatedData);
          return { data: out.data, stale: out.stale || i !== 0 };
        } catch (err) {
          if (t.prefix !== '') errs.push(err instanceof Error ? err : new Error(String(err)));
        }
      }
      throw new Error(errs.length > 0 ? aggregateMessage(errs) : noMatch);
    },
  };
}

/** The prefix every encrypted stored value starts with (identity.go `encryptedPrefix`). */
export const ENCRYPTED_PREFIX = 'k8s:enc:';

/**
 * upstream's identity transformer (`NewEncryptCheckTransformer`): stores values as they are, and
 * refuses to read a value that carries {@link ENCRYPTED_PREFIX}, so an identity-first configuration
 * falls through to the provider that can decrypt it.
 */
export const identityTransformer: Transformer = {
  transformToStorage: (data) => data,
  transformFromStorage(data) {
    if (data.startsWith(ENCRYPTED_PREFIX)) throw new Error('identity transformer tried to read encrypted data');
    return { data, stale: false };
  },
};
