/**
 * ComponentStatuses (core/v1, cluster-scoped, get and list only; `kubectl get cs`): computed on each
 * request, never stored. Upstream probes the scheduler's and the controller manager's `/healthz` and
 * each etcd server, and reports `Healthy` with the probe's answer (`ok`) as the message; kubeplane's
 * scheduler, controllers and storage run in the API server's process (or report through it), so the
 * three components are reported healthy with upstream's message. The version is deprecated since 1.19
 * and every request says so in a Warning, as upstream's does.
 *
 * Followed (v1.33): pkg/registry/core/componentstatus/rest.go (List filters by label and metadata
 * field selectors; Get of an unknown name, which upstream leaks as a 500 `Component not found: x`,
 * is a 404 here), pkg/registry/core/rest/storage_core.go (`scheduler`, `controller-manager`,
 * `etcd-<i>`), k8s.io/api core/v1 lifecycle.go (deprecated in 1.19), pkg/printers/internalversion/
 * printers.go (printComponentStatus).
 */
import { COMPONENT_STATUSES } from '../../../api/catalogue/index.js';
import type { ComponentStatus, KubeList, KubeObject } from '../../../api/index.js';
import { newNotFound } from '../../../machinery/errors/index.js';
import type { StorageContext, StorageExtension } from '../extension.js';
import { parseListOptions } from '../generic/options.js';
import { newPredicate } from '../generic/predicate.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { STORES_NOTHING, type ApiObject } from './helpers.js';
import { NAME_COLUMN, column } from './table-helpers.js';

type ComponentStatusObject = ApiObject<ComponentStatus>;

/** The components upstream reports: the scheduler, the controller manager and one etcd server. */
export const COMPONENTS = ['scheduler', 'controller-manager', 'etcd-0'] as const;

/** One component's status: condition Healthy=True with the probe's answer `ok`. */
function componentStatus(name: string): ComponentStatusObject {
  return {
    apiVersion: 'v1',
    kind: 'ComponentStatus',
    // A computed object has no creation time; upstream's zero Time encodes as null.
    metadata: { name, creationTimestamp: null } as unknown as ComponentStatusObject['metadata'],
    conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }],
  };
}

/** GET and LIST served from {@link COMPONENTS}; the store under `componentstatuses` stays empty. */
function componentStatusStorage({ store }: StorageContext): StorageExtension {
  return {
    get: (_namespace, name) => {
      if (!(COMPONENTS as readonly string[]).includes(name)) return Promise.reject(newNotFound(store.gr, name));
      return Promise.resolve(componentStatus(name));
    },
    list: (_namespace, query) => {
      const opts = parseListOptions(query, false);
      const pred = newPredicate(store.strategy, opts.labelSelector, opts.fieldSelector);
      const items: KubeObject[] = COMPONENTS.map(componentStatus).filter((cs) => pred.matches(cs));
      const list: KubeList = { kind: COMPONENT_STATUSES.listKind, apiVersion: 'v1', metadata: {}, items };
      return Promise.resolve(list);
    },
  };
}

/** printComponentStatus: the Healthy condition's status (`Healthy`, `Unhealthy`, else `Unknown`), message and error. */
function printComponentStatus(cs: ComponentStatus): unknown[] {
  const healthy = (cs.conditions ?? []).find((c) => c.type === 'Healthy');
  if (!healthy) return [cs.metadata?.name ?? '', 'Unknown', '', ''];
  return [cs.metadata?.name ?? '', healthy.status === 'True' ? 'Healthy' : 'Unhealthy', healthy.message ?? '', healthy.error ?? ''];
}

/** The componentstatuses strategy: reads only (the row serves get and list), deprecated since 1.19. */
export const componentStatusStrategy: ResourceStrategy<ComponentStatusObject> = {
  ...STORES_NOTHING,
  info: resourceInfo(COMPONENT_STATUSES),
  storage: componentStatusStorage,
  deprecated: { deprecatedIn: '1.19' },
  table: {
    columns: [
      NAME_COLUMN,
      column('Status', 'string', 'Status of the component conditions'),
      column('Message', 'string', 'Message of the component conditions'),
      column('Error', 'string', 'Error of the component conditions'),
    ],
    row: (cs) => ({ cells: printComponentStatus(cs) }),
  },
};
