/**
 * What a kubelet checks before it starts a pod's containers: the ConfigMaps and Secrets the pod
 * mounts as volumes and takes environment variables from. A simulated node reads them from informer
 * caches, as the kubelet's watch-based ConfigMap and Secret managers do
 * (pkg/kubelet/configmap/configmap_manager.go, pkg/kubelet/secret/secret_manager.go: a missing object
 * is a NotFound of the singular resource, `configmap "x" not found`, `secret "x" not found`).
 *
 * - Volumes (pkg/volume/configmap/configmap.go, pkg/volume/secret/secret.go, pkg/volume/projected/
 *   projected.go `collectData`): a missing object fails the mount unless `optional: true`; an `items`
 *   key the object lacks fails it too (`configmap references non-existent config key: k`,
 *   `references non-existent secret key: k`) unless optional. A projected volume collects the errors
 *   of all its sources (one error: its message; several: `[a, b]`, utilerrors' aggregate); its
 *   serviceAccountToken and downwardAPI sources always succeed here (the token is issued to the pod's
 *   service account, which admission has checked), so the `kube-api-access-<hash>` volume mounts
 *   once `kube-root-ca.crt` exists in the namespace.
 * - Environment (pkg/kubelet/kubelet_pods.go `makeEnvironmentVariables`): `envFrom` first, then `env`
 *   in order, the first failure wins: a missing object (not optional) gives the manager's NotFound
 *   message, a missing key `couldn't find key k in ConfigMap ns/x` / `couldn't find key k in Secret ns/x`.
 */
import type { KeyToPath, Volume } from 'kubernetes-types/core/v1.js';
import type { ConfigMap, Container, Pod, Secret } from '../api/index.js';

/** Reads the objects a pod refers to (informer caches); undefined = not found. */
export interface PodReferenceLookup {
  configMap(namespace: string, name: string): ConfigMap | undefined;
  secret(namespace: string, name: string): Secret | undefined;
}

/** A volume that cannot be set up, with the error the volume plugin returns. */
export interface VolumeMountError {
  volume: string;
  message: string;
}

const configMapNotFound = (name: string): string => `configmap ${JSON.stringify(name)} not found`;
const secretNotFound = (name: string): string => `secret ${JSON.stringify(name)} not found`;

const hasConfigMapKey = (cm: ConfigMap, key: string): boolean => (cm.data !== undefined && key in cm.data) || (cm.binaryData !== undefined && key in cm.binaryData);
const hasSecretKey = (s: Secret, key: string): boolean => (s.data !== undefined && key in s.data) || (s.stringData !== undefined && key in s.stringData);

/** configmap.MakePayload: the first `items` key the ConfigMap lacks, unless optional. */
function configMapPayloadError(cm: ConfigMap | undefined, items: readonly KeyToPath[] | undefined, optional: boolean): string | undefined {
  if (!cm || optional) return undefined;
  const missing = (items ?? []).find((i) => !hasConfigMapKey(cm, i.key));
  return missing ? `configmap references non-existent config key: ${missing.key}` : undefined;
}

/** secret.MakePayload: the first `items` key the Secret lacks, unless optional. */
function secretPayloadError(s: Secret | undefined, items: readonly KeyToPath[] | undefined, optional: boolean): string | undefined {
  if (!s || optional) return undefined;
  const missing = (items ?? []).find((i) => !hasSecretKey(s, i.key));
  return missing ? `references non-existent secret key: ${missing.key}` : undefined;
}

/** The error of one configMap source (volume or projected source), or undefined when it can be set up. */
function configMapSourceError(ns: string, src: { name?: string; items?: KeyToPath[]; optional?: boolean }, lookup: PodReferenceLookup): string | undefined {
  const name = src.name ?? '';
  const optional = src.optional === true;
  const cm = lookup.configMap(ns, name);
  if (!cm) return optional ? undefined : configMapNotFound(name);
  return configMapPayloadError(cm, src.items, optional);
}

function secretSourceError(ns: string, name: string, src: { items?: KeyToPath[]; optional?: boolean }, lookup: PodReferenceLookup): string | undefined {
  const optional = src.optional === true;
  const s = lookup.secret(ns, name);
  if (!s) return optional ? undefined : secretNotFound(name);
  return secretPayloadError(s, src.items, optional);
}

/** The SetUp error of one volume, or undefined (volume types the simulator does not check always succeed). */
export function volumeSetUpError(pod: Pod, v: Volume, lookup: PodReferenceLookup): string | undefined {
  const ns = pod.metadata?.namespace ?? '';
  if (v.configMap) return configMapSourceError(ns, v.configMap, lookup);
  if (v.secret) return secretSourceError(ns, v.secret.secretName ?? '', v.secret, lookup);
  if (v.projected) {
    const errs: string[] = [];
    for (const src of v.projected.sources ?? []) {
      const err = src.configMap
        ? configMapSourceError(ns, src.configMap, lookup)
        : src.secret
          ? secretSourceError(ns, src.secret.name ?? '', src.secret, lookup)
          : undefined;
      if (err) errs.push(err);
    }
    if (errs.length === 0) return undefined;
    return errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`;
  }
  return undefined;
}

/** Every volume of the pod that cannot be set up now, in spec order. */
export function volumeMountErrors(pod: Pod, lookup: PodReferenceLookup): VolumeMountError[] {
  const out: VolumeMountError[] = [];
  for (const v of pod.spec?.volumes ?? []) {
    const message = volumeSetUpError(pod, v, lookup);
    if (message) out.push({ volume: v.name, message });
  }
  return out;
}

/** The error of one `configMapKeyRef`/`secretKeyRef`, or undefined (present, or optional). */
function keyRefError(ns: string, ref: { name?: string; key: string; optional?: boolean }, kind: 'ConfigMap' | 'Secret', lookup: PodReferenceLookup): string | undefined {
  const name = ref.name ?? '';
  const obj = kind === 'ConfigMap' ? lookup.configMap(ns, name) : lookup.secret(ns, name);
  const hasKey = !!obj && (kind === 'ConfigMap' ? (obj as ConfigMap).data?.[ref.key] !== undefined : hasSecretKey(obj as Secret, ref.key));
  if (hasKey || ref.optional === true) return undefined;
  if (!obj) return kind === 'ConfigMap' ? configMapNotFound(name) : secretNotFound(name);
  return `couldn't find key ${ref.key} in ${kind} ${ns}/${name}`;
}

/**
 * The error generating the container's config (its environment), or undefined: what the kubelet
 * reports as `CreateContainerConfigError`.
 */
export function containerConfigError(pod: Pod, c: Container, lookup: PodReferenceLookup): string | undefined {
  const ns = pod.metadata?.namespace ?? '';
  for (const from of c.envFrom ?? []) {
    if (from.configMapRef) {
      const name = from.configMapRef.name ?? '';
      if (!lookup.configMap(ns, name) && from.configMapRef.optional !== true) return configMapNotFound(name);
    } else if (from.secretRef) {
      const name = from.secretRef.name ?? '';
      if (!lookup.secret(ns, name) && from.secretRef.optional !== true) return secretNotFound(name);
    }
  }
  for (const e of c.env ?? []) {
    const err = e.valueFrom?.configMapKeyRef
      ? keyRefError(ns, e.valueFrom.configMapKeyRef, 'ConfigMap', lookup)
      : e.valueFrom?.secretKeyRef
        ? keyRefError(ns, e.valueFrom.secretKeyRef, 'Secret', lookup)
        : undefined;
    if (err) return err;
  }
  return undefined;
}

/** The pod's containers whose config cannot be generated now, with the error, in spec order. */
export function containerConfigErrors(pod: Pod, lookup: PodReferenceLookup): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of pod.spec?.containers ?? []) {
    const err = containerConfigError(pod, c, lookup);
    if (err) out.set(c.name, err);
  }
  return out;
}
