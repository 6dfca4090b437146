/**
 * Where each built-in group/version stands in discovery: the `groupPriorityMinimum` and
 * `versionPriority` kube-apiserver gives the APIService it registers for it. Discovery lists groups by
 * group priority, highest first, ties by name (`admissionregistration.k8s.io` before
 * `apiextensions.k8s.io`, both 16700), and a group's versions by version priority (autoscaling v2 at
 * 30 before v1 at 15).
 *
 * Followed (v1.33): cmd/kube-apiserver/app/aggregator.go (apiVersionPriorities),
 * pkg/controlplane/apiserver/aggregator.go (DefaultGenericAPIServicePriorities),
 * k8s.io/apiserver pkg/endpoints/discovery/aggregated/handler.go (the sort). apiregistration.k8s.io is
 * served by the aggregator itself; a 1.33 cluster lists it first in `/apis`, as 18000/15 places it.
 */

/** An APIService's place: `group` is groupPriorityMinimum, `version` is versionPriority. */
export interface ApiServicePriority {
  readonly group: number;
  readonly version: number;
}

/** Priorities of the group/versions kube-apiserver serves, keyed `<group>/<version>` (`/v1` for core). */
const PRIORITIES: Readonly<Record<string, ApiServicePriority>> = {
  '/v1': { group: 18000, version: 1 },
  'apiregistration.k8s.io/v1': { group: 18000, version: 15 },
  'apps/v1': { group: 17800, version: 15 },
  'events.k8s.io/v1': { group: 17750, version: 15 },
  'authentication.k8s.io/v1': { group: 17700, version: 15 },
  'authorization.k8s.io/v1': { group: 17600, version: 15 },
  'autoscaling/v2': { group: 17500, version: 30 },
  'autoscaling/v1': { group: 17500, version: 15 },
  'batch/v1': { group: 17400, version: 15 },
  'certificates.k8s.io/v1': { group: 17300, version: 15 },
  'networking.k8s.io/v1': { group: 17200, version: 15 },
  'policy/v1': { group: 17100, version: 15 },
  'rbac.authorization.k8s.io/v1': { group: 17000, version: 15 },
  'storage.k8s.io/v1': { group: 16800, version: 15 },
  'apiextensions.k8s.io/v1': { group: 16700, version: 15 },
  'admissionregistration.k8s.io/v1': { group: 16700, version: 15 },
  'scheduling.k8s.io/v1': { group: 16600, version: 15 },
  'coordination.k8s.io/v1': { group: 16500, version: 15 },
  'node.k8s.io/v1': { group: 16300, version: 15 },
  'discovery.k8s.io/v1': { group: 16200, version: 15 },
  'flowcontrol.apiserver.k8s.io/v1': { group: 16100, version: 21 },
  // Not kube-apiserver's: metrics-server's APIService (manifests/base/apiservice.yaml) asks for
  // 100/100, so on a cluster with metrics-server the group is listed after every other, custom
  // resources' included. kubeplane serves the group itself and gives it the same place.
  'metrics.k8s.io/v1beta1': { group: 100, version: 100 },
};

/**
 * The priority of a group/version, or undefined for one kube-apiserver does not serve (a custom
 * resource's group: apiextensions-apiserver registers those at 1000/100, after every built-in group).
 */
export function apiServicePriority(group: string, version: string): ApiServicePriority | undefined {
  return PRIORITIES[`${group}/${version}`];
}

/** The priority custom resource groups get (apiextensions-apiserver pkg/apiserver/customresource_discovery_controller.go). */
export const CUSTOM_RESOURCE_PRIORITY: ApiServicePriority = Object.freeze({ group: 1000, version: 100 });
