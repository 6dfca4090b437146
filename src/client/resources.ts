/**
 * Resource descriptors: what a client needs to address a resource (group, version, plural), plus the
 * kind and scope. The values are upstream's (`kubectl api-resources` on v1.33).
 */

/** A group, version and resource plural, e.g. `{group: 'apps', version: 'v1', resource: 'deployments'}` (schema.GroupVersionResource). */
export interface GroupVersionResource {
  /** API group, `''` for core. */
  group: string;
  version: string;
  /** Plural, lower case. */
  resource: string;
}

/** A {@link GroupVersionResource} with its kind and scope: everything a client needs to build requests. */
export interface ResourceDescriptor extends GroupVersionResource {
  kind: string;
  namespaced: boolean;
}

function descriptor(group: string, version: string, resource: string, kind: string, namespaced: boolean): ResourceDescriptor {
  return Object.freeze({ group, version, resource, kind, namespaced });
}

export const NAMESPACES = descriptor('', 'v1', 'namespaces', 'Namespace', false);
export const NODES = descriptor('', 'v1', 'nodes', 'Node', false);
export const PODS = descriptor('', 'v1', 'pods', 'Pod', true);
export const EVENTS = descriptor('', 'v1', 'events', 'Event', true);
export const PERSISTENT_VOLUME_CLAIMS = descriptor('', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim', true);
export const SERVICES = descriptor('', 'v1', 'services', 'Service', true);
export const ENDPOINTS = descriptor('', 'v1', 'endpoints', 'Endpoints', true);
export const CONFIG_MAPS = descriptor('', 'v1', 'configmaps', 'ConfigMap', true);
export const SECRETS = descriptor('', 'v1', 'secrets', 'Secret', true);
export const SERVICE_ACCOUNTS = descriptor('', 'v1', 'serviceaccounts', 'ServiceAccount', true);
export const ENDPOINT_SLICES = descriptor('discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice', true);
export const LEASES = descriptor('coordination.k8s.io', 'v1', 'leases', 'Lease', true);
export const DEPLOYMENTS = descriptor('apps', 'v1', 'deployments', 'Deployment', true);
export const REPLICA_SETS = descriptor('apps', 'v1', 'replicasets', 'ReplicaSet', true);
export const STATEFUL_SETS = descriptor('apps', 'v1', 'statefulsets', 'StatefulSet', true);
export const DAEMON_SETS = descriptor('apps', 'v1', 'daemonsets', 'DaemonSet', true);
export const CONTROLLER_REVISIONS = descriptor('apps', 'v1', 'controllerrevisions', 'ControllerRevision', true);
export const JOBS = descriptor('batch', 'v1', 'jobs', 'Job', true);
export const CRON_JOBS = descriptor('batch', 'v1', 'cronjobs', 'CronJob', true);
export const HORIZONTAL_POD_AUTOSCALERS = descriptor('autoscaling', 'v2', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', true);

/** Every descriptor above, for lookups by kind (e.g. the fake transport's `seed`). */
export const KNOWN_RESOURCES: readonly ResourceDescriptor[] = Object.freeze([
  NAMESPACES,
  NODES,
  PODS,
  EVENTS,
  PERSISTENT_VOLUME_CLAIMS,
  SERVICES,
  ENDPOINTS,
  CONFIG_MAPS,
  SECRETS,
  SERVICE_ACCOUNTS,
  ENDPOINT_SLICES,
  LEASES,
  DEPLOYMENTS,
  REPLICA_SETS,
  STATEFUL_SETS,
  DAEMON_SETS,
  CONTROLLER_REVISIONS,
  JOBS,
  CRON_JOBS,
  HORIZONTAL_POD_AUTOSCALERS,
]);

/** `apps/v1` for apps, `v1` for core (schema.GroupVersion.String). */
export function groupVersionString(gv: { group: string; version: string }): string {
  return gv.group ? `${gv.group}/${gv.version}` : gv.version;
}

/** Splits an apiVersion: `apps/v1` → `{group: 'apps', version: 'v1'}`, `v1` → `{group: '', version: 'v1'}`. */
export function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The known descriptor for an apiVersion and kind, or undefined. */
export function descriptorForKind(apiVersion: string, kind: string): ResourceDescriptor | undefined {
  const { group, version } = parseGroupVersion(apiVersion);
  return KNOWN_RESOURCES.find((d) => d.group === group && d.version === version && d.kind === kind);
}
