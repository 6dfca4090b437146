/**
 * A scriptable {@link ApiServerCore} for the HTTP layer's tests: a few of the real served resources
 * (pods, namespaces, deployments) plus HPAs in autoscaling v2 and v1, every request recorded, results
 * and watch events supplied by the test.
 */
import type { RestRequest, WatchEvent, WatchStream } from '../../api/request.js';
import type { KubeObject } from '../../api/index.js';
import { servedStrategies } from '../registry/resources/index.js';
import { BOOTSTRAP_CLUSTER_ROLE_BINDINGS, BOOTSTRAP_CLUSTER_ROLES, BOOTSTRAP_ROLE_BINDINGS, BOOTSTRAP_ROLES } from '../registry/resources/rbac-bootstrap.js';
import { newServerAuthorizer } from '../authorization.js';
import { staticRBACGetters } from '../authz/index.js';
import type { ResourceStrategy, TablePrinter } from '../registry/strategy.js';
import { plainStrategy, resourceInfo } from '../testing/fixtures.js';
import type { ApiServerCore, HandleResult, SchemaSource } from './types.js';

/** A pod printer with upstream's first columns and two `-o wide` (priority 1) ones. */
export const podPrinter: TablePrinter = {
  columns: [
    { name: 'Name', type: 'string', format: 'name', description: 'Name of the pod', priority: 0 },
    { name: 'Status', type: 'string', format: '', description: 'Phase', priority: 0 },
    { name: 'IP', type: 'string', format: '', description: 'Pod IP', priority: 1 },
    { name: 'Node', type: 'string', format: '', description: 'Node name', priority: 1 },
  ],
  row(obj: KubeObject) {
    const status = (obj['status'] ?? {}) as { phase?: string; podIP?: string };
    const spec = (obj['spec'] ?? {}) as { nodeName?: string };
    const row: ReturnType<TablePrinter['row']> = { cells: [obj.metadata?.name, status.phase ?? '', status.podIP ?? '<none>', spec.nodeName ?? '<none>'] };
    if (status.phase === 'Succeeded') row.conditions = [{ type: 'Completed', status: 'True', reason: 'Succeeded' }];
    return row;
  },
};

/**
 * The real served strategy of `resource` with a copy of its info, so a test may edit the copy; `table`
 * replaces the printer when given. Throws when kubeplane does not serve `resource`.
 */
function served(resource: string, table?: TablePrinter): ResourceStrategy {
  const s = servedStrategies.find((x) => x.info.resource === resource);
  if (!s) throw new Error(`kubeplane does not serve ${resource}`);
  return { ...s, info: structuredClone(s.info), table: table ?? s.table };
}

/**
 * The fake's resources, in discovery order: the real pods, namespaces and deployments strategies (pods
 * with the small {@link podPrinter} and upstream's policy/v1 `eviction` subresource, which the router
 * tests address), then HorizontalPodAutoscalers in autoscaling v1 and v2 (a group with two versions,
 * listed v1 first so that discovery has to put the preferred v2 first). Fresh copies of the infos.
 */
export function fakeResources(): ResourceStrategy[] {
  const pods = served('pods', podPrinter);
  return [
    pods,
    served('namespaces'),
    served('deployments'),
    ...['v1', 'v2'].map((version) =>
      plainStrategy(
        resourceInfo({
          group: 'autoscaling',
          version,
          resource: 'horizontalpodautoscalers',
          kind: 'HorizontalPodAutoscaler',
          shortNames: ['hpa'],
          categories: ['all'],
          subresources: [{ name: 'status', group: 'autoscaling', version, kind: 'HorizontalPodAutoscaler', verbs: ['get', 'patch', 'update'] }],
        }),
        { hasStatus: true },
      ),
    ),
  ];
}

/** A running fake watch, driven by the test. */
export interface FakeWatch {
  req: RestRequest;
  emit(ev: WatchEvent): void;
  /** Ends the watch from the core's side (with an error, if given). */
  close(err?: unknown): void;
  stopped: boolean;
}

/** The scriptable core. */
export class FakeCore implements ApiServerCore {
  readonly requests: RestRequest[] = [];
  readonly watches: FakeWatch[] = [];
  private strategies = fakeResources();
  /** Answers `handle`; the default echoes the request as the body. */
  onHandle: (req: RestRequest) => Promise<HandleResult> | HandleResult = (req) => ({ code: 200, body: { echo: req }, warnings: [] });
  /** Called when a watch starts (may emit or close synchronously, or throw). */
  onWatch: (w: FakeWatch) => void = () => {};
  /** Resolved with each new watch. */
  private watchWaiters: ((w: FakeWatch) => void)[] = [];
  /**
   * The real server's authorizer (system:masters, then RBAC) over upstream's bootstrap policy alone:
   * the test token's admin may do everything, anonymous requests what `system:public-info-viewer` allows.
   */
  readonly authorizer = newServerAuthorizer(
    ['RBAC'],
    staticRBACGetters({ clusterRoles: BOOTSTRAP_CLUSTER_ROLES, clusterRoleBindings: BOOTSTRAP_CLUSTER_ROLE_BINDINGS, roles: BOOTSTRAP_ROLES, roleBindings: BOOTSTRAP_ROLE_BINDINGS }),
  ).authorizer;

  resources(): readonly ResourceStrategy[] {
    return this.strategies;
  }

  /** Replaces the served resources (a new array, as after a CRD registration). */
  setResources(strategies: ResourceStrategy[]): void {
    this.strategies = strategies;
  }

  async handle(req: RestRequest): Promise<HandleResult> {
    this.requests.push(req);
    return this.onHandle(req);
  }

  watch(req: RestRequest, onEvent: (ev: WatchEvent) => void, onClose: (err?: unknown) => void): WatchStream {
    this.requests.push(req);
    let closed = false;
    const w: FakeWatch = {
      req,
      stopped: false,
      emit: (ev) => {
        if (!closed) onEvent(ev);
      },
      close: (err) => {
        if (closed) return;
        closed = true;
        onClose(err);
      },
    };
    this.watches.push(w);
    this.onWatch(w);
    for (const resolve of this.watchWaiters.splice(0)) resolve(w);
    return {
      stop: () => {
        w.stopped = true;
        w.close();
      },
    };
  }

  /** Resolves with the next watch started. */
  nextWatch(): Promise<FakeWatch> {
    return new Promise((resolve) => this.watchWaiters.push(resolve));
  }
}

/** A schema source with Deployment → DeploymentSpec → PodTemplateSpec → PodSpec → Container. */
export const fakeSchema: SchemaSource = {
  rootTypeName(group, version, kind) {
    if (group === 'apps' && version === 'v1' && kind === 'Deployment') return 'io.k8s.api.apps.v1.Deployment';
    if (group === '' && version === 'v1' && kind === 'Pod') return 'io.k8s.api.core.v1.Pod';
    return undefined;
  },
  lookupType(name) {
    const types: Record<string, Record<string, { type: string; list?: boolean; map?: boolean; pointer?: boolean; patchStrategy?: string; patchMergeKey?: string }>> = {
      'io.k8s.api.apps.v1.Deployment': {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { type: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
        spec: { type: 'io.k8s.api.apps.v1.DeploymentSpec' },
      },
      'io.k8s.api.apps.v1.DeploymentSpec': {
        replicas: { type: 'int32', pointer: true },
        template: { type: 'io.k8s.api.core.v1.PodTemplateSpec' },
      },
      'io.k8s.api.core.v1.PodTemplateSpec': { spec: { type: 'io.k8s.api.core.v1.PodSpec' } },
      'io.k8s.api.core.v1.Pod': { spec: { type: 'io.k8s.api.core.v1.PodSpec' } },
      'io.k8s.api.core.v1.PodSpec': {
        containers: { type: 'io.k8s.api.core.v1.Container', list: true, patchStrategy: 'merge', patchMergeKey: 'name' },
        nodeSelector: { type: 'string', map: true },
      },
      'io.k8s.api.core.v1.Container': {
        name: { type: 'string' },
        resources: { type: 'Quantity', map: true },
      },
      'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': {
        name: { type: 'string' },
        creationTimestamp: { type: 'Time' },
      },
    };
    const fields = types[name];
    return fields ? { name, fields } : undefined;
  },
};
