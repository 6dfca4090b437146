/**
 * Reading an `--encryption-provider-config` file: YAML or JSON (YAML parses both), kind and apiVersion
 * checked, fields type-checked, unknown fields ignored, as upstream's decoder does
 * (k8s.io/apiserver/pkg/server/options/encryptionconfig/config.go `loadConfig`, `loadDataAndHash`).
 * Messages are upstream's where it has one; type mismatches use encoding/json's wording.
 */
import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import type { EncryptionConfiguration, Key, KeysConfiguration, ProviderConfiguration, ResourceConfiguration } from './types.js';

/** The only apiVersion and kind upstream registers for the file. */
export const ENCRYPTION_CONFIG_API_VERSION = 'apiserver.config.k8s.io/v1';
export const ENCRYPTION_CONFIG_KIND = 'EncryptionConfiguration';

/**
 * The file's bytes: `error while loading file: …` when it cannot be read or is empty (the caller adds
 * `error while parsing file: `).
 */
export function readConfigFile(path: string): string {
  let data: string;
  try {
    data = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`error while loading file: error reading encryption provider configuration file ${JSON.stringify(path)}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (data.length === 0) throw new Error(`error while loading file: encryption provider configuration file ${JSON.stringify(path)} is empty`);
  return data;
}

/** Decodes the file's text; throws `error decoding encryption provider configuration file "<path>": …`. */
export function decodeConfig(path: string, text: string): EncryptionConfiguration {
  const fail = (why: string): Error => new Error(`error decoding encryption provider configuration file ${JSON.stringify(path)}: ${why}`);
  let raw: unknown;
  try {
    raw = YAML.parse(text);
  } catch (err) {
    throw fail(err instanceof Error ? err.message : String(err));
  }
  if (!isObject(raw)) throw fail(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonType(raw)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  if (typeof raw.kind !== 'string' || raw.kind === '') throw fail(`Object 'Kind' is missing in '${text.trim()}'`);
  if (raw.apiVersion !== ENCRYPTION_CONFIG_API_VERSION || raw.kind !== ENCRYPTION_CONFIG_KIND) {
    throw fail(`no kind ${JSON.stringify(raw.kind)} is registered for version ${JSON.stringify(typeof raw.apiVersion === 'string' ? raw.apiVersion : '')}`);
  }
  try {
    return { apiVersion: raw.apiVersion, kind: raw.kind, resources: list(raw.resources, 'resources', '[]v1.ResourceConfiguration', resourceConfiguration) };
  } catch (err) {
    throw fail(err instanceof Error ? err.message : String(err));
  }
}

function resourceConfiguration(v: unknown, path: string): ResourceConfiguration {
  const o = object(v, path, 'v1.ResourceConfiguration');
  return {
    resources: list(o.resources, `${path}.resources`, '[]string', (s, p) => str(s, p)),
    providers: list(o.providers, `${path}.providers`, '[]v1.ProviderConfiguration', providerConfiguration),
  };
}

function providerConfiguration(v: unknown, path: string): ProviderConfiguration {
  const o = object(v, path, 'v1.ProviderConfiguration');
  const out: ProviderConfiguration = {};
  if (o.aesgcm != null) out.aesgcm = keysConfiguration(o.aesgcm, `${path}.aesgcm`, 'v1.AESConfiguration');
  if (o.aescbc != null) out.aescbc = keysConfiguration(o.aescbc, `${path}.aescbc`, 'v1.AESConfiguration');
  if (o.secretbox != null) out.secretbox = keysConfiguration(o.secretbox, `${path}.secretbox`, 'v1.SecretboxConfiguration');
  if (o.identity != null) {
    object(o.identity, `${path}.identity`, 'v1.IdentityConfiguration');
    out.identity = {};
  }
  if (o.kms != null) out.kms = o.kms;
  return out;
}

function keysConfiguration(v: unknown, path: string, goType: string): KeysConfiguration {
  const o = object(v, path, goType);
  return { keys: list(o.keys, `${path}.keys`, '[]v1.Key', key) };
}

function key(v: unknown, path: string): Key {
  const o = object(v, path, 'v1.Key');
  return { name: str(o.name, `${path}.name`), secret: str(o.secret, `${path}.secret`) };
}

// Go's encoding/json: null and absent mean the zero value; a wrong JSON type is an error naming the
// Go struct field and type.

function mismatch(v: unknown, path: string, goType: string): Error {
  return new Error(`json: cannot unmarshal ${jsonType(v)} into Go struct field EncryptionConfiguration.${path.replace(/\[\d+\]/g, '')} of type ${goType}`);
}

function list<T>(v: unknown, path: string, goType: string, item: (x: unknown, path: string) => T): T[] {
  if (v == null) return [];
  if (!Array.isArray(v)) throw mismatch(v, path, goType);
  return v.map((x, i) => item(x, `${path}[${i}]`));
}

function object(v: unknown, path: string, goType: string): Record<string, unknown> {
  if (v == null) return {};
  if (!isObject(v)) throw mismatch(v, path, goType);
  return v;
}

function str(v: unknown, path: string): string {
  if (v == null) return '';
  if (typeof v !== 'string') throw mismatch(v, path, 'string');
  return v;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v;
}
