/**
 * The ClusterRole aggregation controller, with the cases of upstream's
 * pkg/controller/clusterroleaggregation/clusterroleaggregation_controller_test.go (TestSyncClusterRole:
 * remove dead rules, strip rules, select properly and put in order, select properly with multiple
 * selectors, select properly remove duplicates, no diff skip), each run with server-side apply and
 * with the 415 fallback to update; then, over the real server's bootstrap policy, `admin`, `edit` and
 * `view` get the union of the `system:aggregate-to-*` roles, and a new role labelled
 * aggregate-to-view reaches all three.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterRole, KubeObject, PolicyRule } from '../../api/index.js';
import { newUnsupportedMediaType } from '../../machinery/errors/index.js';
import { semanticDeepEqual } from '../../machinery/meta/index.js';
import { silentLogger } from '../../util/runtime/index.js';
import { fakeCluster } from '../endpoint/testing/index.js';
import { aggregatedRules, ClusterRoleAggregationController, FIELD_MANAGER } from './clusterrole-aggregation-controller.js';

const hammerRules = (): PolicyRule[] => [
  { verbs: ['hammer'], resources: ['nails'], apiGroups: [''] },
  { verbs: ['hammer'], resources: ['wedges'], apiGroups: [''] },
];
const chiselRules = (): PolicyRule[] => [{ verbs: ['chisel'], resources: ['mortises'], apiGroups: [''] }];
const sawRules = (): PolicyRule[] => [{ verbs: ['saw'], resources: ['boards'], apiGroups: [''] }];

const role = (name: string, labels: Record<string, string>, rules: PolicyRule[]): ClusterRole => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, labels }, rules });
function combinedRole(selectors: Record<string, string>[], ...rules: PolicyRule[][]): ClusterRole {
  const r: ClusterRole = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'combined' }, aggregationRule: { clusterRoleSelectors: selectors.map((matchLabels) => ({ matchLabels })) } };
  const all = rules.flat();
  if (all.length > 0) r.rules = all;
  return r;
}

interface Case {
  startingClusterRoles: ClusterRole[];
  expectedClusterRole?: ClusterRole;
}

// The upstream rules have no apiGroups (the fake client stores anything); the real server's
// validation requires them, so every rule here names the core group.
const CASES: Record<string, Case> = {
  'remove dead rules': {
    startingClusterRoles: [role('hammer', { foo: 'bar' }, hammerRules()), combinedRole([{ foo: 'bar' }], sawRules())],
    expectedClusterRole: combinedRole([{ foo: 'bar' }], hammerRules()),
  },
  'strip rules': {
    startingClusterRoles: [role('hammer', { foo: 'not-bar' }, hammerRules()), combinedRole([{ foo: 'bar' }], hammerRules())],
    expectedClusterRole: combinedRole([{ foo: 'bar' }]),
  },
  'select properly and put in order': {
    startingClusterRoles: [role('hammer', { foo: 'bar' }, hammerRules()), role('chisel', { foo: 'bar' }, chiselRules()), role('saw', { foo: 'not-bar' }, sawRules()), combinedRole([{ foo: 'bar' }])],
    expectedClusterRole: combinedRole([{ foo: 'bar' }], chiselRules(), hammerRules()),
  },
  'select properly with multiple selectors': {
    startingClusterRoles: [
      role('hammer', { foo: 'bar' }, hammerRules()),
      role('chisel', { foo: 'bar' }, chiselRules()),
      role('saw', { foo: 'not-bar' }, sawRules()),
      combinedRole([{ foo: 'bar' }, { foo: 'not-bar' }]),
    ],
    expectedClusterRole: combinedRole([{ foo: 'bar' }, { foo: 'not-bar' }], chiselRules(), hammerRules(), sawRules()),
  },
  'select properly remove duplicates': {
    startingClusterRoles: [
      role('hammer', { foo: 'bar' }, hammerRules()),
      role('chisel', { foo: 'bar' }, chiselRules()),
      role('saw', { foo: 'bar' }, sawRules()),
      role('other-saw', { foo: 'not-bar' }, sawRules()),
      combinedRole([{ foo: 'bar' }, { foo: 'not-bar' }]),
    ],
    expectedClusterRole: combinedRole([{ foo: 'bar' }, { foo: 'not-bar' }], chiselRules(), hammerRules(), sawRules()),
  },
  'no diff skip': {
    startingClusterRoles: [role('hammer', { foo: 'bar' }, hammerRules()), combinedRole([{ foo: 'bar' }], hammerRules())],
  },
};

describe('TestSyncClusterRole', () => {
  for (const serverSideApplyEnabled of [true, false]) {
    for (const [name, tc] of Object.entries(CASES)) {
      test(`${name} (server-side apply ${serverSideApplyEnabled ? 'served' : 'refused with 415'})`, async () => {
        const c = await fakeCluster(tc.startingClusterRoles as KubeObject[]);
        const controller = new ClusterRoleAggregationController({ client: c.client, informers: c.informers, clock: c.clock, logger: silentLogger });
        c.informers.start();
        assert.ok(await c.informers.waitForCacheSync());
        if (!serverSideApplyEnabled) {
          c.transport.prependReactor('patch', 'clusterroles', () => ({ handled: true, error: newUnsupportedMediaType('application/apply-patch+yaml', ['application/json-patch+json']) }));
        }
        c.transport.clearActions();
        await controller.syncClusterRole('combined');
        const writes = c.transport.actions.filter((a) => a.resource === 'clusterroles' && (a.verb === 'patch' || a.verb === 'update'));
        if (!tc.expectedClusterRole) {
          assert.deepEqual(writes, []);
          c.stop.abort();
          return;
        }
        assert.equal(writes.length, serverSideApplyEnabled ? 1 : 2);
        const apply = writes[0];
        assert.equal(apply?.verb, 'patch');
        assert.equal(apply?.patchType, 'application/apply-patch+yaml');
        assert.deepEqual(apply?.query, { fieldManager: FIELD_MANAGER, force: 'true' });
        // The apply configuration: `ClusterRole(name).WithRules(…)`.
        const applied = apply?.body as ClusterRole;
        assert.deepEqual(applied.metadata, { name: 'combined' });
        assert.ok(semanticDeepEqual(applied.rules, tc.expectedClusterRole.rules), JSON.stringify(applied.rules));
        if (!serverSideApplyEnabled) {
          assert.equal(writes[1]?.verb, 'update');
          const updated = writes[1]?.body as ClusterRole;
          assert.ok(semanticDeepEqual(updated.rules, tc.expectedClusterRole.rules));
          assert.deepEqual(updated.aggregationRule, tc.expectedClusterRole.aggregationRule);
        }
        // What the server stored. An apply without `rules` removes only rules this manager applied
        // before (the list is atomic and the seeded rules are another manager's), as with upstream.
        const stored = await c.client.rbac.clusterRoles().get('combined');
        if (serverSideApplyEnabled && !tc.expectedClusterRole.rules) assert.ok(semanticDeepEqual(stored.rules, hammerRules()));
        else assert.ok(semanticDeepEqual(stored.rules, tc.expectedClusterRole.rules), JSON.stringify(stored.rules));
        c.stop.abort();
      });
    }
  }
});

test('a role without an aggregationRule, or gone, is not written', async () => {
  const c = await fakeCluster([role('plain', {}, hammerRules())] as KubeObject[]);
  const controller = new ClusterRoleAggregationController({ client: c.client, informers: c.informers, clock: c.clock, logger: silentLogger });
  c.informers.start();
  await c.informers.waitForCacheSync();
  c.transport.clearActions();
  await controller.syncClusterRole('plain');
  await controller.syncClusterRole('missing');
  assert.deepEqual(c.transport.actions, []);
  c.stop.abort();
});

test('admin, edit and view hold the union of the aggregate-to-* roles of the bootstrap policy, and follow a new aggregate-to-view role', async () => {
  const c = await fakeCluster();
  const controller = new ClusterRoleAggregationController({ client: c.client, informers: c.informers, clock: c.clock, logger: silentLogger });
  c.informers.start();
  void controller.run(1, c.stop.signal);
  await c.settle();
  const roles = c.client.rbac.clusterRoles();
  const get = async (name: string): Promise<PolicyRule[]> => (await roles.get(name)).rules ?? [];
  const toView = await get('system:aggregate-to-view');
  const toEdit = await get('system:aggregate-to-edit');
  const toAdmin = await get('system:aggregate-to-admin');
  assert.ok(toView.length > 0 && toEdit.length > 0 && toAdmin.length > 0);
  assert.deepEqual(await get('view'), toView);
  // edit selects aggregate-to-edit: system:aggregate-to-edit and view (sorted by name), view's rules being aggregate-to-view's.
  assert.deepEqual(await get('edit'), [...toEdit, ...toView]);
  // admin selects aggregate-to-admin: edit, system:aggregate-to-admin (by name).
  assert.deepEqual(await get('admin'), [...toEdit, ...toView, ...toAdmin]);
  assert.equal((await roles.get('view')).metadata?.managedFields?.some((f) => f.manager === FIELD_MANAGER), true);

  const crd: PolicyRule = { apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] };
  await roles.create(role('widget-viewer', { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' }, [crd]));
  await c.settle();
  await c.settle();
  for (const name of ['view', 'edit', 'admin']) assert.ok((await get(name)).some((r) => semanticDeepEqual(r, crd)), name);
  assert.deepEqual(aggregatedRules(await roles.get('view'), (await roles.list()).items), await get('view'));
  c.stop.abort();
});
