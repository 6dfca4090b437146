/**
 * Discovery documents built from the served resources' {@link ResourceInfo}s:
 * - legacy: `APIVersions` (/api), `APIGroupList` (/apis), `APIGroup` (/apis/<g>) and
 *   `APIResourceList` (/api/v1, /apis/<g>/<v>) — k8s.io/apimachinery/pkg/apis/meta/v1/types.go;
 * - aggregated: `apidiscovery.k8s.io/v2` `APIGroupDiscoveryList` (/api and /apis when the Accept asks
 *   for it) — k8s.io/api/apidiscovery/v2/types.go, k8s.io/apiserver/pkg/endpoints/discovery/aggregated.
 * Versions are listed most preferred first (see {@link compareKubeAwareVersions}).
 */
import type { ResourceInfo } from '../registry/strategy.js';
import type { GroupEntry, GroupVersionEntry, ResourceIndex } from './resource-index.js';

/** `GroupVersionForDiscovery`. */
interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

/** `APIGroup` (legacy discovery). */
export interface APIGroup {
  kind?: 'APIGroup';
  apiVersion?: 'v1';
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
}

function groupVersionString(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

/** `GET /api`: `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[…]}`. */
export function apiVersions(index: ResourceIndex, serverAddress: string): object {
  return {
    kind: 'APIVersions',
    versions: index.group('')?.versions.map((v) => v.version) ?? [],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function apiGroupEntry(g: GroupEntry): APIGroup {
  const versions = g.versions.map((v) => ({ groupVersion: groupVersionString(g.name, v.version), version: v.version }));
  return { name: g.name, versions, preferredVersion: versions[0] as GroupVersionForDiscovery };
}

/** `GET /apis/<group>`: the `APIGroup`. */
export function apiGroup(g: GroupEntry): APIGroup {
  return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroupEntry(g) };
}

/** `GET /apis`: `APIGroupList` of every named group (the core group is served at /api). */
export function apiGroupList(index: ResourceIndex): object {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: index.groups.filter((g) => g.name !== '').map(apiGroupEntry) };
}

/**
 * `GET /api/v1`, `GET /apis/<group>/<version>`: `APIResourceList` with one entry per resource and one
 * per subresource (`deployments/scale`), whose `group` and `version` are set only when its kind lives
 * in another group/version (autoscaling/v1 Scale).
 */
export function apiResourceList(group: string, gv: GroupVersionEntry): object {
  const resources: object[] = [];
  for (const { info } of gv.resources) {
    const entry: Record<string, unknown> = {
      name: info.resource,
      singularName: info.singular,
      namespaced: info.namespaced,
      kind: info.kind,
      verbs: info.verbs,
    };
    if (info.shortNames.length) entry['shortNames'] = info.shortNames;
    if (info.categories.length) entry['categories'] = info.categories;
    resources.push(entry);
    for (const sub of info.subresources) {
      const subEntry: Record<string, unknown> = {
        name: `${info.resource}/${sub.name}`,
        singularName: '',
        namespaced: info.namespaced,
      };
      // Both are set when the group/version differs as a whole (installer.go), e.g. autoscaling/v1 Scale in apps/v1.
      if (sub.group !== group || sub.version !== gv.version) {
        subEntry['group'] = sub.group;
        subEntry['version'] = sub.version;
      }
      subEntry['kind'] = sub.kind;
      subEntry['verbs'] = sub.verbs;
      resources.push(subEntry);
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: groupVersionString(group, gv.version), resources };
}

/** `APIResourceDiscovery` of one resource. */
function resourceDiscovery(info: ResourceInfo): object {
  const entry: Record<string, unknown> = {
    resource: info.resource,
    responseKind: { group: info.group, version: info.version, kind: info.kind },
    scope: info.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: info.singular,
    verbs: info.verbs,
  };
  if (info.shortNames.length) entry['shortNames'] = info.shortNames;
  if (info.categories.length) entry['categories'] = info.categories;
  if (info.subresources.length) {
    entry['subresources'] = info.subresources.map((sub) => ({
      subresource: sub.name,
      responseKind: { group: sub.group, version: sub.version, kind: sub.kind },
      verbs: sub.verbs,
    }));
  }
  return entry;
}

function groupDiscovery(g: GroupEntry): object {
  return {
    metadata: { name: g.name, creationTimestamp: null },
    versions: g.versions.map((v) => ({
      version: v.version,
      resources: v.resources.map((s) => resourceDiscovery(s.info)),
      freshness: 'Current',
    })),
  };
}

/**
 * Aggregated discovery: for `/api` one item named `""` (the core group), for `/apis` one item per named
 * group; `version` is the apidiscovery version the client asked for (v2 and v2beta1 have one shape).
 */
export function aggregatedDiscovery(index: ResourceIndex, root: 'api' | 'apis', version: 'v2' | 'v2beta1'): object {
  const groups = index.groups.filter((g) => (root === 'api' ? g.name === '' : g.name !== ''));
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${version}`,
    metadata: {},
    items: groups.map(groupDiscovery),
  };
}

/** Content-Type of an aggregated discovery response, which client-go keys its parser on. */
export function aggregatedDiscoveryContentType(version: 'v2' | 'v2beta1'): string {
  return `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}
