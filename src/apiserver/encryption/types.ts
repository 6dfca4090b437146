/**
 * `apiserver.config.k8s.io/v1` `EncryptionConfiguration`, as its JSON/YAML fields are spelled
 * (k8s.io/apiserver/pkg/apis/apiserver/v1/types_encryption.go; the internal types in
 * pkg/apis/apiserver/types_encryption.go document the semantics):
 *
 * ```yaml
 * apiVersion: apiserver.config.k8s.io/v1
 * kind: EncryptionConfiguration
 * resources:
 *   - resources: [secrets]          # `<resource>` (core group), `<resource>.<group>`, `*.<group>`, `*.` or `*.*`
 *     providers:                    # the first writes; all are tried when reading
 *       - aesgcm: {keys: [{name: key1, secret: <base64 of 16, 24 or 32 bytes>}]}
 *       - identity: {}
 * ```
 */

/** The file's root object. */
export interface EncryptionConfiguration {
  apiVersion?: string;
  kind?: string;
  resources: ResourceConfiguration[];
}

/** Resources and the providers that store them. */
export interface ResourceConfiguration {
  /** `secrets`, `deployments.apps`, `*.apps`, `*.` (every core resource), `*.*` (every resource). */
  resources: string[];
  providers: ProviderConfiguration[];
}

/** Exactly one provider per element. */
export interface ProviderConfiguration {
  aesgcm?: KeysConfiguration;
  aescbc?: KeysConfiguration;
  secretbox?: KeysConfiguration;
  identity?: Record<string, never>;
  /** Recognised (for validation messages) but not supported: kubeplane has no KMS plugin client. */
  kms?: unknown;
}

/** The keys of an AES or secretbox provider; the first one encrypts. */
export interface KeysConfiguration {
  keys: Key[];
}

/** A named key; `secret` is the base64 of the key bytes. */
export interface Key {
  name: string;
  secret: string;
}

/** The group and resource a `resources` entry names (apimachinery `schema.ParseGroupResource`). */
export interface GroupResource {
  group: string;
  resource: string;
}

/** `schema.ParseGroupResource`: `a.b.c` → resource `a`, group `b.c`; no dot → the core group. */
export function parseGroupResource(s: string): GroupResource {
  const dot = s.indexOf('.');
  return dot < 0 ? { group: '', resource: s } : { group: s.slice(dot + 1), resource: s.slice(0, dot) };
}

/** upstream `grYAMLString`: `resource.group`, `resource` for the core group, `*.` for every core resource. */
export function groupResourceString(gr: GroupResource): string {
  if (gr.group === '' && gr.resource === '*') return '*.';
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}
