/**
 * The ClusterRole aggregation controller: a ClusterRole with an aggregationRule gets as its rules the
 * union of the rules of every other ClusterRole that one of its clusterRoleSelectors selects (how
 * `admin`, `edit` and `view` get theirs from the `system:aggregate-to-*` roles and from any
 * ClusterRole labelled `rbac.authorization.k8s.io/aggregate-to-<role>: "true"`).
 *
 * Followed (v1.33): pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.go —
 * every add, update or delete of any ClusterRole enqueues every aggregated ClusterRole ("since the
 * set of all clusterroles is so small, just queue all of them"); `syncClusterRole`: for each selector
 * in order, the selected roles sorted by name (the role itself skipped) contribute each rule not
 * already there (semantic equality); nothing is written when the rules are semantically equal to
 * the stored ones; otherwise a server-side apply of `{rules}` with field manager
 * `clusterrole-aggregation-controller` and force, falling back to an update when the server
 * answers 415 Unsupported Media Type (an API server without server-side apply). kube-controller-
 * manager runs it with 5 workers (cmd/kube-controller-manager/app/rbac.go).
 */
import type { ClusterRole, PolicyRule } from '../../api/index.js';
import { CLUSTER_ROLES, type Clientset } from '../../client/index.js';
import type { Lister, SharedInformerFactory } from '../../informers/index.js';
import { selectorFromLabelSelector } from '../../machinery/labels/index.js';
import { semanticDeepEqual } from '../../machinery/meta/index.js';
import type { Clock } from '../../util/clock/index.js';
import { stderrLogger, type Logger } from '../../util/runtime/index.js';
import { RateLimitingQueue, runWorkersWhenSynced } from '../../workqueue/index.js';

/** The field manager of the controller's applies. */
export const FIELD_MANAGER = 'clusterrole-aggregation-controller';
/** kube-controller-manager's worker count for this controller. */
export const CLUSTER_ROLE_AGGREGATION_WORKERS = 5;

/** Options of {@link ClusterRoleAggregationController}. */
export interface ClusterRoleAggregationControllerOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  logger?: Logger;
}

/** `ruleExists`: whether `haystack` holds a rule semantically equal to `needle`. */
function ruleExists(haystack: readonly PolicyRule[], needle: PolicyRule): boolean {
  return haystack.some((rule) => semanticDeepEqual(rule, needle));
}

/**
 * The rules `role` aggregates from `all` (the ClusterRoles the lister holds): per selector in order,
 * the selected roles by name, their rules not yet collected. Throws on an invalid selector.
 */
export function aggregatedRules(role: ClusterRole, all: readonly ClusterRole[]): PolicyRule[] {
  const rules: PolicyRule[] = [];
  for (const labelSelector of role.aggregationRule?.clusterRoleSelectors ?? []) {
    const selector = selectorFromLabelSelector(labelSelector);
    const selected = all.filter((r) => selector.matches(r.metadata?.labels ?? {})).sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : (a.metadata?.name ?? '') > (b.metadata?.name ?? '') ? 1 : 0));
    for (const other of selected) {
      if (other.metadata?.name === role.metadata?.name) continue;
      for (const rule of other.rules ?? []) if (!ruleExists(rules, rule)) rules.push(rule);
    }
  }
  return rules;
}

/** Keeps the rules of aggregated ClusterRoles up to date. Work items are ClusterRole names. */
export class ClusterRoleAggregationController {
  private readonly queue: RateLimitingQueue;
  private readonly clusterRoles: Lister<ClusterRole>;
  private readonly logger: Logger;

  constructor(private readonly opts: ClusterRoleAggregationControllerOptions) {
    this.logger = opts.logger ?? stderrLogger;
    this.queue = new RateLimitingQueue<string>({ clock: opts.clock, name: 'ClusterRoleAggregator' });
    this.clusterRoles = opts.informers.rbac.clusterRoles().lister();
    opts.informers.rbac.clusterRoles().addEventHandler({
      add: () => this.enqueue(),
      update: () => this.enqueue(),
      delete: () => this.enqueue(),
    });
  }

  /** Waits for the cache, then runs `workers` workers until `signal` aborts. */
  async run(workers = CLUSTER_ROLE_AGGREGATION_WORKERS, signal?: AbortSignal): Promise<void> {
    await runWorkersWhenSynced([this.opts.informers.rbac.clusterRoles()], this.queue, workers, (name) => this.syncClusterRole(name), {
      name: 'ClusterRoleAggregator',
      logger: this.logger,
      signal,
    });
  }

  /** `enqueue`: every ClusterRole with an aggregationRule. */
  private enqueue(): void {
    for (const role of this.clusterRoles.list()) if (role.aggregationRule) this.queue.add(role.metadata?.name ?? '');
  }

  /** `syncClusterRole`: writes the aggregated rules of `name` when they differ from the stored ones. */
  async syncClusterRole(name: string): Promise<void> {
    const role = this.clusterRoles.get(name);
    if (!role?.aggregationRule) return;
    const rules = aggregatedRules(role, this.clusterRoles.list());
    if (semanticDeepEqual(rules, role.rules ?? [])) return;
    try {
      await this.applyClusterRole(name, rules);
    } catch (err) {
      // An API server without server-side apply: update instead (upstream's fallback).
      if ((err as { code?: number }).code !== 415) throw err;
      await this.opts.client.rbac.clusterRoles().update({ ...structuredClone(role), rules: structuredClone(rules) });
    }
  }

  /** `applyClusterRoles`: `rbacv1ac.ClusterRole(name).WithRules(rules…)`, applied with force by {@link FIELD_MANAGER}. */
  private async applyClusterRole(name: string, rules: PolicyRule[]): Promise<void> {
    const body: ClusterRole = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name } };
    if (rules.length > 0) body.rules = rules;
    await this.opts.client.transport.request({
      verb: 'patch',
      group: CLUSTER_ROLES.group,
      version: 'v1',
      resource: CLUSTER_ROLES.resource,
      name,
      patchType: 'application/apply-patch+yaml',
      body,
      query: { fieldManager: FIELD_MANAGER, force: 'true' },
      userAgent: FIELD_MANAGER,
    });
  }
}
