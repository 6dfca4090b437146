/**
 * An index of the served resources by group/version/resource, and the groups and versions in
 * discovery order, built from `core.resources()`.
 */
import { apiServicePriority, CUSTOM_RESOURCE_PRIORITY } from '../../api/catalogue/index.js';
import type { ResourceStrategy } from '../registry/strategy.js';
import type { ApiServerCore } from './types.js';

/** One served group/version and its resources in the core's order. */
export interface GroupVersionEntry {
  version: string;
  resources: ResourceStrategy[];
}

/** One served group (`''` for core) and its versions, the preferred one first. */
export interface GroupEntry {
  name: string;
  versions: GroupVersionEntry[];
}

const versionPattern = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/**
 * Orders versions as upstream's `version.CompareKubeAwareVersionStrings` does, most preferred first:
 * GA before beta before alpha, higher numbers first (`v2, v1, v1beta2, v1beta1, v1alpha1`), then
 * versions that do not look like Kubernetes versions, alphabetically.
 * k8s.io/apimachinery/pkg/version/helpers.go.
 */
export function compareKubeAwareVersions(a: string, b: string): number {
  const ma = versionPattern.exec(a);
  const mb = versionPattern.exec(b);
  if (!ma || !mb) {
    if (ma) return -1;
    if (mb) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const rank = (m: RegExpExecArray): number => (m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0);
  return rank(mb) - rank(ma) || Number(mb[1]) - Number(ma[1]) || Number(mb[3] ?? 0) - Number(ma[3] ?? 0);
}

/** Lookups over one `core.resources()` snapshot. */
export class ResourceIndex {
  private readonly byKey = new Map<string, ResourceStrategy>();
  /** Groups in discovery order (see the constructor). */
  readonly groups: GroupEntry[] = [];

  constructor(readonly strategies: readonly ResourceStrategy[]) {
    const groups = new Map<string, Map<string, ResourceStrategy[]>>();
    for (const s of strategies) {
      const { group, version, resource } = s.info;
      this.byKey.set(`${group}/${version}/${resource}`, s);
      let versions = groups.get(group);
      if (!versions) groups.set(group, (versions = new Map<string, ResourceStrategy[]>()));
      let list = versions.get(version);
      if (!list) versions.set(version, (list = []));
      list.push(s);
    }
    // Upstream's discovery order: core first, then groups by APIService priority (highest first, ties
    // by name); a group's versions by version priority, then kube-aware; a version's resources by name
    // (the API installer sorts its paths: k8s.io/apiserver pkg/endpoints/installer.go).
    const priority = (group: string, version: string) => apiServicePriority(group, version) ?? CUSTOM_RESOURCE_PRIORITY;
    const groupPriority = (group: string) => Math.max(...[...(groups.get(group)?.keys() ?? [])].map((v) => priority(group, v).group));
    const names = [...groups.keys()].sort((a, b) => (a === '' ? -1 : b === '' ? 1 : groupPriority(b) - groupPriority(a) || (a < b ? -1 : a > b ? 1 : 0)));
    for (const name of names) {
      const versions = groups.get(name) as Map<string, ResourceStrategy[]>;
      const byVersion = (a: string, b: string) => priority(name, b).version - priority(name, a).version || compareKubeAwareVersions(a, b);
      this.groups.push({
        name,
        versions: [...versions.keys()].sort(byVersion).map((version) => ({
          version,
          resources: [...(versions.get(version) as ResourceStrategy[])].sort((a, b) => (a.info.resource < b.info.resource ? -1 : a.info.resource > b.info.resource ? 1 : 0)),
        })),
      });
    }
  }

  /** The strategy serving group/version/resource, or undefined. */
  get(group: string, version: string, resource: string): ResourceStrategy | undefined {
    return this.byKey.get(`${group}/${version}/${resource}`);
  }

  /** The group entry, or undefined. */
  group(name: string): GroupEntry | undefined {
    return this.groups.find((g) => g.name === name);
  }

  /** The group/version entry, or undefined. */
  groupVersion(group: string, version: string): GroupVersionEntry | undefined {
    return this.group(group)?.versions.find((v) => v.version === version);
  }
}

const cache = new WeakMap<readonly ResourceStrategy[], ResourceIndex>();

/** The index of the core's current resources, reused while `resources()` returns the same array. */
export function resourceIndexOf(core: ApiServerCore): ResourceIndex {
  const strategies = core.resources();
  let index = cache.get(strategies);
  if (!index) {
    index = new ResourceIndex(strategies);
    cache.set(strategies, index);
  }
  return index;
}
