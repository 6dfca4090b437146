/**
 * `--encryption-provider-config`: from an EncryptionConfiguration file to the transformer of every
 * storage key, as kube-apiserver builds it (k8s.io/apiserver/pkg/server/options/encryptionconfig/
 * config.go `LoadEncryptionConfig`, `getTransformerOverridesAndKMSPluginProbes`,
 * `prefixTransformersAndProbes`, `aesPrefixTransformer`, `secretboxPrefixTransformer`,
 * `transformerFromOverrides`):
 *
 * - Each provider stores values under its prefix (`k8s:enc:aesgcm:v1:`, `k8s:enc:aescbc:v1:`,
 *   `k8s:enc:secretbox:v1:`; identity none), then the key's name and `:`; the first key encrypts.
 * - A resource's providers are those of every entry naming it, in file order; the first writes,
 *   all are tried when reading (so an old key listed second still reads, and plaintext reads when
 *   `identity` is listed).
 * - A key's resource is looked up as `resource.group`, then `*.group`, then `*.*`; a resource no
 *   entry names is stored as it is, and refuses to read encrypted data (upstream's identity check).
 * - An entry naming a resource already covered by an earlier `*.group` or `*.*` entry is an error.
 *
 * Every failure throws an Error with upstream's message, meant for `kubeplane up` to print and exit.
 */
import { fieldErrorString } from '../../machinery/errors/index.js';
import {
  aggregateMessage,
  base64Transformer,
  identityTransformer,
  newCBCCipher,
  newGCMCipher,
  newPrefixTransformers,
  newSecretboxCipher,
  type BinaryCipher,
  type PrefixTransformer,
  type Transformer,
  type TransformerForKey,
} from '../../storage/value/index.js';
import { decodeConfig, readConfigFile } from './decode.js';
import { groupResourceString, parseGroupResource, type EncryptionConfiguration, type GroupResource, type KeysConfiguration, type ProviderConfiguration } from './types.js';
import { decodeSecret, validateEncryptionConfiguration } from './validation.js';

/** Provider prefixes (config.go `aesGCMTransformerPrefixV1` etc.). */
export const AESGCM_PREFIX = 'k8s:enc:aesgcm:v1:';
export const AESCBC_PREFIX = 'k8s:enc:aescbc:v1:';
export const SECRETBOX_PREFIX = 'k8s:enc:secretbox:v1:';

/** A loaded configuration: the transformer of each storage key, and which resources it names. */
export interface EncryptionConfig {
  transformerForKey: TransformerForKey;
  /** The configured resources (`secrets`, `*.apps`, …), in file order, for logs. */
  resources: string[];
}

/** Reads, validates and builds `path` (upstream `LoadEncryptionConfig`); throws upstream's messages. */
export function loadEncryptionConfig(path: string): EncryptionConfig {
  let config: EncryptionConfiguration;
  try {
    config = decodeConfig(path, readConfigFile(path));
    const errs = validateEncryptionConfiguration(config);
    if (errs.length > 0) throw new Error(aggregateMessage(errs.map((e) => new Error(fieldErrorString(e)))));
  } catch (err) {
    throw new Error(`error while parsing file: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    return buildEncryptionConfig(config);
  } catch (err) {
    throw new Error(`error while building transformers: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The transformers of a validated configuration; throws when an entry is masked by an earlier wildcard. */
export function buildEncryptionConfig(config: EncryptionConfiguration): EncryptionConfig {
  const byResource = new Map<string, PrefixTransformer[]>();
  const keyOf = (gr: GroupResource): string => `${gr.resource}.${gr.group}`;
  for (const entry of config.resources) {
    const providers = entry.providers.map(providerTransformer);
    for (const resource of entry.resources) {
      const gr = parseGroupResource(resource);
      for (const wildcard of [{ group: gr.group, resource: '*' }, { group: '*', resource: '*' }]) {
        if (byResource.has(keyOf(wildcard))) throw new Error(`resource ${JSON.stringify(groupResourceString(gr))} is masked by earlier rule ${JSON.stringify(groupResourceString(wildcard))}`);
      }
      byResource.set(keyOf(gr), [...(byResource.get(keyOf(gr)) ?? []), ...providers]);
    }
  }
  const transformers = new Map<string, Transformer>();
  for (const [k, list] of byResource) transformers.set(k, newPrefixTransformers('no matching prefix found', list));
  const lookup = (gr: GroupResource): Transformer =>
    transformers.get(keyOf(gr)) ?? transformers.get(`*.${gr.group}`) ?? transformers.get('*.*') ?? identityTransformer;
  const cache = new Map<string, Transformer>();
  return {
    resources: config.resources.flatMap((e) => e.resources),
    transformerForKey(key) {
      const gr = groupResourceOfKey(key);
      if (!gr) return undefined;
      const k = keyOf(gr);
      let t = cache.get(k);
      if (!t) cache.set(k, (t = lookup(gr)));
      return t;
    },
  };
}

/**
 * The group and resource of a storage key `/registry/<group, or core>/<resource>/…` (the layout of
 * registry/generic/store.ts `resourcePrefix`); undefined for a key outside it.
 */
export function groupResourceOfKey(key: string): GroupResource | undefined {
  const m = /^\/registry\/([^/]+)\/([^/]+)\//.exec(key);
  if (!m) return undefined;
  const group = m[1] as string;
  return { group: group === 'core' ? '' : group, resource: m[2] as string };
}

/** One provider element as a prefixed transformer (config.go `prefixTransformersAndProbes`). */
function providerTransformer(p: ProviderConfiguration): PrefixTransformer {
  if (p.aesgcm) return keyedProvider(AESGCM_PREFIX, p.aesgcm, newGCMCipher, 'no matching key was found for the provided AES transformer');
  if (p.aescbc) return keyedProvider(AESCBC_PREFIX, p.aescbc, newCBCCipher, 'no matching key was found for the provided AES transformer');
  if (p.secretbox) return keyedProvider(SECRETBOX_PREFIX, p.secretbox, newSecretboxCipher, 'no matching key was found for the provided Secretbox transformer');
  if (p.identity) return { prefix: '', transformer: identityTransformer };
  throw new Error('provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity');
}

/** A provider whose keys each store under `<name>:` (config.go `aesPrefixTransformer`, `secretboxPrefixTransformer`). */
function keyedProvider(prefix: string, config: KeysConfiguration, newCipher: (key: Buffer) => BinaryCipher, noKey: string): PrefixTransformer {
  const keys = config.keys.map((k): PrefixTransformer => {
    const secret = decodeSecret(k.secret);
    if (!secret) throw new Error(`could not obtain secret for named key ${k.name}: illegal base64 data`);
    return { prefix: `${k.name}:`, transformer: base64Transformer(newCipher(secret)) };
  });
  return { prefix, transformer: newPrefixTransformers(noKey, keys) };
}
