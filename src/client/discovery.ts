/**
 * What the controllers that act on every resource (garbage collector, namespace, resource quota,
 * HPA and disruption through a REST mapper) need from discovery: the served resources in their
 * preferred versions. client-go's `discovery.ServerPreferredResources` over HTTP (the legacy
 * `/api/v1` and `/apis` documents), or straight from an in-process API server.
 */
import type { ResourceDescriptor } from '../api/catalogue/index.js';
import type { HttpTransport } from './http/index.js';

/** A served resource in its preferred version, with its verbs. */
export type DiscoveredResource = ResourceDescriptor & { verbs: readonly string[] };

/** The resources a server serves. */
export interface Discovery {
  /** Asks the server; also refreshes {@link cached}. Throws what the request throws. */
  preferredResources(): Promise<readonly DiscoveredResource[]>;
  /** The answer of the last {@link preferredResources} (for synchronous REST mappers). */
  cached(): readonly DiscoveredResource[];
}

/** A Discovery answered by a function that already knows (an in-process API server). */
export function staticDiscovery(resources: () => readonly DiscoveredResource[]): Discovery {
  return { preferredResources: () => Promise.resolve(resources()), cached: resources };
}

interface APIResource {
  name: string;
  namespaced: boolean;
  kind: string;
  verbs?: string[];
}

interface APIResourceList {
  groupVersion: string;
  resources?: APIResource[];
}

interface APIGroupList {
  groups?: { name: string; preferredVersion?: { version: string }; versions?: { version: string }[] }[];
}

/**
 * Discovery over HTTP: `/api/v1`, then `/apis` and each group's preferred version. Subresources
 * (`deployments/scale`) are left out, as `ServerPreferredResources` callers filter them.
 */
export function httpDiscovery(transport: Pick<HttpTransport, 'getPath'>): Discovery {
  let last: readonly DiscoveredResource[] = [];
  const resourcesOf = (group: string, version: string, list: APIResourceList): DiscoveredResource[] =>
    (list.resources ?? [])
      .filter((r) => !r.name.includes('/'))
      .map((r) => ({ group, version, resource: r.name, kind: r.kind, namespaced: r.namespaced, verbs: r.verbs ?? [] }));
  return {
    async preferredResources() {
      const core = (await transport.getPath('/api/v1')) as APIResourceList;
      const out = resourcesOf('', 'v1', core);
      const groups = ((await transport.getPath('/apis')) as APIGroupList).groups ?? [];
      const lists = await Promise.all(
        groups.map(async (g) => {
          const version = g.preferredVersion?.version ?? g.versions?.[0]?.version;
          if (version === undefined) return [];
          return resourcesOf(g.name, version, (await transport.getPath(`/apis/${g.name}/${version}`)) as APIResourceList);
        }),
      );
      last = out.concat(...lists);
      return last;
    },
    cached: () => last,
  };
}
