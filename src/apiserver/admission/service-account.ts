/**
 * The ServiceAccount admission plugin, on pod creates (upstream v1.33
 * plugin/pkg/admission/serviceaccount/admission.go, enabled by default in kube-apiserver):
 *
 * - a pod without `serviceAccountName` runs as `default` (the deprecated `serviceAccount` field is
 *   read when it is the only one set, and mirrors `serviceAccountName` afterwards, as the v1
 *   conversion of pkg/apis/core/v1/conversion.go does);
 * - the service account must exist: else 403 `error looking up service account <ns>/<name>:
 *   serviceaccount "<name>" not found` (the `default` one is waited for a little, as the
 *   serviceaccounts controller creates it just after its namespace);
 * - unless `automountServiceAccountToken` is false on the pod (or, unset there, on the account), the
 *   projected volume `kube-api-access-<5 random chars>` (a 3607 s service-account token, the
 *   `kube-root-ca.crt` ConfigMap's `ca.crt`, the namespace from the downward API; defaultMode 0644)
 *   is added and mounted read-only at `/var/run/secrets/kubernetes.io/serviceaccount` in every init
 *   container and container that has no mount at that path; ephemeral containers get no mount;
 * - the account's imagePullSecrets are copied to a pod that has none;
 * - mirror pods (annotation `kubernetes.io/config.mirror`) are left as they are, and refused when
 *   they name a service account, a secret or a service-account token projection.
 *
 * Not done: the deprecated `kubernetes.io/enforce-mountable-secrets` annotation (Validate's
 * `limitSecretReferences` and the ephemeral-containers update check it drives).
 */
import type { Container, KubeObject, Pod, ServiceAccount, Volume, VolumeMount } from '../../api/index.js';
import { newForbidden } from '../../machinery/errors/index.js';
import { randomString, type Rand } from '../../util/random/index.js';

/** `DefaultServiceAccountName`. */
export const DEFAULT_SERVICE_ACCOUNT_NAME = 'default';
/** `ServiceAccountVolumeName`: the prefix of the token volume's name. */
export const SERVICE_ACCOUNT_VOLUME_NAME = 'kube-api-access';
/** `DefaultAPITokenMountPath`. */
export const DEFAULT_API_TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
/** `api.MirrorPodAnnotationKey`. */
export const MIRROR_POD_ANNOTATION_KEY = 'kubernetes.io/config.mirror';
/** The ConfigMap the root-ca-cert-publisher keeps in every namespace. */
export const ROOT_CA_CONFIG_MAP = 'kube-root-ca.crt';
/** `api.ProjectedVolumeSourceDefaultMode` (0644). */
export const PROJECTED_VOLUME_SOURCE_DEFAULT_MODE = 0o644;
/** claims.go `WarnOnlyBoundTokenExpirationSeconds`: the token the volume asks for (1 h 7 s). */
export const TOKEN_VOLUME_EXPIRATION_SECONDS = 3607;

/** The service account a pod runs as, or undefined when there is none by that name. */
export type ServiceAccountLookup = (namespace: string, name: string) => Promise<ServiceAccount | undefined>;

type MutablePodSpec = {
  serviceAccountName?: string;
  serviceAccount?: string;
  automountServiceAccountToken?: boolean;
  imagePullSecrets?: { name?: string }[];
  volumes?: Volume[];
  containers: Container[];
  initContainers?: Container[];
};

/**
 * The token volume (`TokenVolumeSource`): a projection of a 3607 s service-account token at `token`,
 * the root CA at `ca.crt` and the namespace at `namespace`, mode 0644.
 */
export function tokenVolume(name: string): Volume {
  return {
    name,
    projected: {
      defaultMode: PROJECTED_VOLUME_SOURCE_DEFAULT_MODE,
      sources: [
        { serviceAccountToken: { expirationSeconds: TOKEN_VOLUME_EXPIRATION_SECONDS, path: 'token' } },
        { configMap: { name: ROOT_CA_CONFIG_MAP, items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    },
  };
}

/**
 * Applies the plugin to a new pod `obj` in `namespace`, in place (Admit, then Validate). Randomness
 * (the volume name's suffix) comes from `rand`.
 * @throws StatusError 403 as the module doc says
 */
export async function admitServiceAccount(obj: KubeObject | Pod, namespace: string, lookup: ServiceAccountLookup, rand: Rand): Promise<void> {
  const pod = obj as Pod;
  const spec = (pod.spec ?? { containers: [] }) as MutablePodSpec;
  const podName = pod.metadata?.name || pod.metadata?.generateName || '';
  const forbidden = (why: string) => newForbidden({ group: '', resource: 'pods' }, podName, why);
  if (pod.metadata?.annotations?.[MIRROR_POD_ANNOTATION_KEY] !== undefined) {
    validateMirrorPod(spec, forbidden);
    return;
  }
  // v1 → internal conversion: the deprecated field names the account when the new one does not.
  if (!spec.serviceAccountName) spec.serviceAccountName = spec.serviceAccount || DEFAULT_SERVICE_ACCOUNT_NAME;
  const saName = spec.serviceAccountName;
  const sa = await lookup(namespace, saName);
  if (!sa) throw forbidden(`error looking up service account ${namespace}/${saName}: serviceaccount ${JSON.stringify(saName)} not found`);
  if (shouldAutomount(sa, spec)) mountServiceAccountToken(spec, rand);
  if ((spec.imagePullSecrets ?? []).length === 0 && (sa.imagePullSecrets ?? []).length > 0) {
    spec.imagePullSecrets = (sa.imagePullSecrets ?? []).map((s) => ({ name: s.name ?? '' }));
  }
  // internal → v1 conversion: the deprecated field always mirrors the account.
  spec.serviceAccount = saName;
  if (pod.spec === undefined) (pod as { spec?: unknown }).spec = spec;
}

/** `shouldAutomount`: the pod's preference, else the account's, else true. */
function shouldAutomount(sa: ServiceAccount, spec: MutablePodSpec): boolean {
  if (spec.automountServiceAccountToken !== undefined) return spec.automountServiceAccountToken;
  if (sa.automountServiceAccountToken !== undefined) return sa.automountServiceAccountToken;
  return true;
}

/**
 * `mountServiceAccountToken`: an existing `kube-api-access-*` volume is reused, else one is named
 * with a random suffix; every init container and container without a mount at the API token path
 * gets a read-only one; the volume is added only when some container mounts it.
 */
function mountServiceAccountToken(spec: MutablePodSpec, rand: Rand): void {
  const existing = (spec.volumes ?? []).find((v) => v.name.startsWith(`${SERVICE_ACCOUNT_VOLUME_NAME}-`));
  const volumeName = existing?.name ?? `${SERVICE_ACCOUNT_VOLUME_NAME}-${randomString(rand, 5)}`;
  const mount: VolumeMount = { name: volumeName, readOnly: true, mountPath: DEFAULT_API_TOKEN_MOUNT_PATH };
  let needsTokenVolume = false;
  // Validation runs after admission: a spec without containers is refused there, not here.
  for (const containers of [spec.initContainers ?? [], spec.containers ?? []]) {
    for (const c of containers) {
      if ((c.volumeMounts ?? []).some((m) => m.mountPath === DEFAULT_API_TOKEN_MOUNT_PATH)) continue;
      (c as { volumeMounts?: VolumeMount[] }).volumeMounts = [...(c.volumeMounts ?? []), { ...mount }];
      needsTokenVolume = true;
    }
  }
  if (!existing && needsTokenVolume) spec.volumes = [...(spec.volumes ?? []), tokenVolume(volumeName)];
}

/** Validate's mirror-pod rules: no service account, no secret anywhere, no token projection. */
function validateMirrorPod(spec: MutablePodSpec, forbidden: (why: string) => Error): void {
  if (spec.serviceAccountName) throw forbidden('a mirror pod may not reference service accounts');
  if (referencesSecrets(spec)) throw forbidden('a mirror pod may not reference secrets');
  for (const v of spec.volumes ?? []) {
    if ((v.projected?.sources ?? []).some((s) => s.serviceAccountToken)) throw forbidden('a mirror pod may not use ServiceAccountToken volume projections');
  }
}

/** Whether the pod names a secret (`podutil.VisitPodSecretNames` over every container type, stopping at the first). */
function referencesSecrets(spec: MutablePodSpec & { ephemeralContainers?: Container[] }): boolean {
  if ((spec.imagePullSecrets ?? []).length > 0) return true;
  for (const v of spec.volumes ?? []) {
    if (v.secret || v.azureFile?.secretName || v.cephfs?.secretRef || v.cinder?.secretRef || v.flexVolume?.secretRef || v.rbd?.secretRef) return true;
    if (v.scaleIO?.secretRef || v.iscsi?.secretRef || v.storageos?.secretRef || v.csi?.nodePublishSecretRef) return true;
    if ((v.projected?.sources ?? []).some((s) => s.secret)) return true;
  }
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])]) {
    if ((c.envFrom ?? []).some((e) => e.secretRef)) return true;
    if ((c.env ?? []).some((e) => e.valueFrom?.secretKeyRef)) return true;
  }
  return false;
}
