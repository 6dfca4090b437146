/**
 * kube-controller-manager's `--use-service-account-credentials`: each controller talks to the API as
 * its own service account in kube-system, which upstream's bootstrap policy binds to the controller's
 * `system:controller:<name>` ClusterRole, so a permission the role lacks fails as it would upstream.
 * Shared informers keep the controller manager's own credentials, as upstream's do.
 *
 * Upstream (v1.33): k8s.io/controller-manager/pkg/clientbuilder/client_builder_dynamic.go (the
 * account is created in kube-system when missing; its token comes from the TokenRequest API and is
 * renewed before it expires), cmd/kube-controller-manager/app/*.go (the account each controller's
 * `ClientBuilder.ClientOrDie(...)` names; the taint-eviction controller uses the node controller's).
 */
import type { RequestUser } from '../api/request.js';
import type { Clientset } from '../client/index.js';
import { isAlreadyExists } from '../machinery/errors/index.js';
import { ALL_AUTHENTICATED } from '../apiserver/authn/index.js';
import { makeGroupNames, makeUsername } from '../apiserver/authn/serviceaccount.js';
import type { Clock } from '../util/clock/index.js';

/** Where the controllers' accounts live. */
export const CONTROLLER_NAMESPACE = 'kube-system';

/** The service account each controller (by its `--controllers` name) runs as. */
export const CONTROLLER_SERVICE_ACCOUNTS: Readonly<Record<string, string>> = {
  'replicaset-controller': 'replicaset-controller',
  'replicationcontroller-controller': 'replication-controller',
  'deployment-controller': 'deployment-controller',
  'daemonset-controller': 'daemon-set-controller',
  'statefulset-controller': 'statefulset-controller',
  'job-controller': 'job-controller',
  'garbage-collector-controller': 'generic-garbage-collector',
  'cronjob-controller': 'cronjob-controller',
  'horizontal-pod-autoscaler-controller': 'horizontal-pod-autoscaler',
  'ttl-after-finished-controller': 'ttl-after-finished-controller',
  'node-lifecycle-controller': 'node-controller',
  'taint-eviction-controller': 'node-controller',
  'pod-garbage-collector-controller': 'pod-garbage-collector',
  'disruption-controller': 'disruption-controller',
  'namespace-controller': 'namespace-controller',
  'endpoints-controller': 'endpoint-controller',
  'endpointslice-controller': 'endpointslice-controller',
  'serviceaccount-controller': 'service-account-controller',
  'root-ca-certificate-publisher-controller': 'root-ca-cert-publisher',
  'resourcequota-controller': 'resourcequota-controller',
  'persistentvolume-binder-controller': 'persistent-volume-binder',
  'persistentvolumeclaim-protection-controller': 'pvc-protection-controller',
  'persistentvolume-protection-controller': 'pv-protection-controller',
  'clusterrole-aggregation-controller': 'clusterrole-aggregation-controller',
};

/** The service account `controller` (a `--controllers` name) runs as. */
export function serviceAccountOf(controller: string): string {
  return CONTROLLER_SERVICE_ACCOUNTS[controller] ?? controller;
}

/** The user a controller's service account authenticates as (serviceaccount.UserInfo, plus `system:authenticated`). */
export function controllerUser(serviceAccount: string): RequestUser {
  return { username: makeUsername(CONTROLLER_NAMESPACE, serviceAccount), groups: [...makeGroupNames(CONTROLLER_NAMESPACE), ALL_AUTHENTICATED] };
}

/** Creates `name` in kube-system unless it exists (client_builder_dynamic.go's getOrCreateServiceAccount). */
export async function ensureControllerServiceAccount(root: Clientset, name: string): Promise<void> {
  try {
    await root.core.serviceAccounts(CONTROLLER_NAMESPACE).create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: CONTROLLER_NAMESPACE } });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}

/** Lifetime asked of a controller's token, in seconds (client_builder_dynamic.go's default: one hour). */
const TOKEN_EXPIRATION_SECONDS = 3600;

/**
 * A source of bearer tokens for the controllers' accounts: each account is created when first asked
 * for, and its token requested (TokenRequest) and kept until 80 % of its lifetime has passed, as
 * client-go's cached token source renews it. Concurrent asks share one request.
 */
export function controllerTokenSource(root: Clientset, clock: Clock): (serviceAccount: string) => Promise<string> {
  const cache = new Map<string, Promise<{ token: string; renewAt: number }>>();
  const fetch = async (name: string): Promise<{ token: string; renewAt: number }> => {
    await ensureControllerServiceAccount(root, name);
    const issued = clock.now();
    const review = (await root.core.serviceAccounts(CONTROLLER_NAMESPACE).createSubresource(name, 'token', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: TOKEN_EXPIRATION_SECONDS },
    })) as { status?: { token?: string } };
    const token = review.status?.token;
    if (!token) throw new Error(`no token issued for service account ${CONTROLLER_NAMESPACE}/${name}`);
    return { token, renewAt: issued + TOKEN_EXPIRATION_SECONDS * 800 };
  };
  return async (name) => {
    let entry = cache.get(name);
    if (entry) {
      const got = await entry.catch(() => undefined);
      if (got && clock.now() < got.renewAt) return got.token;
    }
    entry = fetch(name);
    cache.set(name, entry);
    entry.catch(() => cache.delete(name));
    return (await entry).token;
  };
}
