/**
 * The reconciliation of RBAC objects, with upstream's tables: k8s.io/component-helpers (v0.33)
 * auth/rbac/reconciliation/reconcile_role_test.go (TestComputeReconciledRoleRules,
 * TestComputeReconciledRoleAggregationRules) and reconcile_rolebindings_test.go
 * (TestDiffObjectReferenceLists, TestComputeUpdate); plus the protected-object case of
 * computeReconciledRole and the create / update / recreate runs of reconcileRole and
 * reconcileRoleBinding against a recording client.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AggregationRule, ClusterRole, ClusterRoleBinding, PolicyRule, Subject } from '../../../api/index.js';
import { newAlreadyExists, newConflict, newNotFound } from '../../../machinery/errors/index.js';
import { semanticDeepEqual } from './helpers.js';
import {
  computeReconciledRole,
  computeReconciledRoleBinding,
  diffSubjectLists,
  reconcileRole,
  reconcileRoleBinding,
  type BindingObject,
  type ReconcileClient,
  type RuleOwner,
} from './rbac-reconcile.js';

type SS = Record<string, string> | undefined;

function role(rules: PolicyRule[], labels: SS, annotations: SS): ClusterRole {
  const metadata: NonNullable<ClusterRole['metadata']> = {};
  if (labels) metadata.labels = labels;
  if (annotations) metadata.annotations = annotations;
  return { metadata, rules };
}

function rules(...resources: string[]): PolicyRule[] {
  return resources.map((r) => ({ apiGroups: [''], verbs: ['get'], resources: [r] }));
}

interface RoleCase {
  expectedRole: ClusterRole;
  actualRole: ClusterRole;
  removeExtraPermissions: boolean;
  expectedReconciledRole?: ClusterRole;
  expectedReconciliationNeeded: boolean;
}

/** The reconciled role compared as upstream does (apiequality.Semantic: absent and empty are equal). */
function checkRoleCases(cases: Record<string, RoleCase>): void {
  for (const [name, tc] of Object.entries(cases)) {
    test(name, () => {
      const result = computeReconciledRole(tc.actualRole, tc.expectedRole, tc.removeExtraPermissions);
      assert.equal(result.operation !== 'none', tc.expectedReconciliationNeeded, result.operation);
      if (tc.expectedReconciliationNeeded) {
        assert.ok(semanticDeepEqual(result.role, tc.expectedReconciledRole), `${JSON.stringify(result.role)} != ${JSON.stringify(tc.expectedReconciledRole)}`);
      }
    });
  }
}

describe('TestComputeReconciledRoleRules', () => {
  checkRoleCases({
    empty: { expectedRole: role(rules(), undefined, undefined), actualRole: role(rules(), undefined, undefined), removeExtraPermissions: true, expectedReconciliationNeeded: false },
    'match without union': { expectedRole: role(rules('a'), undefined, undefined), actualRole: role(rules('a'), undefined, undefined), removeExtraPermissions: true, expectedReconciliationNeeded: false },
    'match with union': { expectedRole: role(rules('a'), undefined, undefined), actualRole: role(rules('a'), undefined, undefined), removeExtraPermissions: false, expectedReconciliationNeeded: false },
    'different rules without union': {
      expectedRole: role(rules('a'), undefined, undefined),
      actualRole: role(rules('b'), undefined, undefined),
      removeExtraPermissions: true,
      expectedReconciledRole: role(rules('a'), undefined, undefined),
      expectedReconciliationNeeded: true,
    },
    'different rules with union': {
      expectedRole: role(rules('a'), undefined, undefined),
      actualRole: role(rules('b'), undefined, undefined),
      removeExtraPermissions: false,
      expectedReconciledRole: role(rules('b', 'a'), undefined, undefined),
      expectedReconciliationNeeded: true,
    },
    'match labels without union': { expectedRole: role(rules('a'), { 1: 'a' }, undefined), actualRole: role(rules('a'), { 1: 'a' }, undefined), removeExtraPermissions: true, expectedReconciliationNeeded: false },
    'match labels with union': { expectedRole: role(rules('a'), { 1: 'a' }, undefined), actualRole: role(rules('a'), { 1: 'a' }, undefined), removeExtraPermissions: false, expectedReconciliationNeeded: false },
    'different labels without union': {
      expectedRole: role(rules('a'), { 1: 'a' }, undefined),
      actualRole: role(rules('a'), { 2: 'b' }, undefined),
      removeExtraPermissions: true,
      expectedReconciledRole: role(rules('a'), { 1: 'a', 2: 'b' }, undefined),
      expectedReconciliationNeeded: true,
    },
    'different labels with union': {
      expectedRole: role(rules('a'), { 1: 'a' }, undefined),
      actualRole: role(rules('a'), { 2: 'b' }, undefined),
      removeExtraPermissions: false,
      expectedReconciledRole: role(rules('a'), { 1: 'a', 2: 'b' }, undefined),
      expectedReconciliationNeeded: true,
    },
    'different labels and rules without union': {
      expectedRole: role(rules('a'), { 1: 'a' }, undefined),
      actualRole: role(rules('b'), { 2: 'b' }, undefined),
      removeExtraPermissions: true,
      expectedReconciledRole: role(rules('a'), { 1: 'a', 2: 'b' }, undefined),
      expectedReconciliationNeeded: true,
    },
    'different labels and rules with union': {
      expectedRole: role(rules('a'), { 1: 'a' }, undefined),
      actualRole: role(rules('b'), { 2: 'b' }, undefined),
      removeExtraPermissions: false,
      expectedReconciledRole: role(rules('b', 'a'), { 1: 'a', 2: 'b' }, undefined),
      expectedReconciliationNeeded: true,
    },
    'conflicting labels and rules without union': {
      expectedRole: role(rules('a'), { 1: 'a' }, undefined),
      actualRole: role(rules('b'), { 1: 'b' }, undefined),
      removeExtraPermissions: true,
      expectedReconciledRole: role(rules('a'), { 1: 'b' }, undefined),
      expectedReconciliationNeeded: true,
    },
    'conflicting labels and rules with union': {
      expectedRole: role(rules('a'), { 1: 'a' }, undefined),
      actualRole: role(rules('b'), { 1: 'b' }, undefined),
      removeExtraPermissions: false,
      expectedReconciledRole: role(rules('b', 'a'), { 1: 'b' }, undefined),
      expectedReconciliationNeeded: true,
    },
    'match annotations without union': { expectedRole: role(rules('a'), undefined, { 1: 'a' }), actualRole: role(rules('a'), undefined, { 1: 'a' }), removeExtraPermissions: true, expectedReconciliationNeeded: false },
    'match annotations with union': { expectedRole: role(rules('a'), undefined, { 1: 'a' }), actualRole: role(rules('a'), undefined, { 1: 'a' }), removeExtraPermissions: false, expectedReconciliationNeeded: false },
    'different annotations without union': {
      expectedRole: role(rules('a'), undefined, { 1: 'a' }),
      actualRole: role(rules('a'), undefined, { 2: 'b' }),
      removeExtraPermissions: true,
      expectedReconciledRole: role(rules('a'), undefined, { 1: 'a', 2: 'b' }),
      expectedReconciliationNeeded: true,
    },
    'different annotations with union': {
      expectedRole: role(rules('a'), undefined, { 1: 'a' }),
      actualRole: role(rules('a'), undefined, { 2: 'b' }),
      removeExtraPermissions: false,
      expectedReconciledRole: role(rules('a'), undefined, { 1: 'a', 2: 'b' }),
      expectedReconciliationNeeded: true,
    },
    'different annotations and rules without union': {
      expectedRole: role(rules('a'), undefined, { 1: 'a' }),
      actualRole: role(rules('b'), undefined, { 2: 'b' }),
      removeExtraPermissions: true,
      expectedReconciledRole: role(rules('a'), undefined, { 1: 'a', 2: 'b' }),
      expectedReconciliationNeeded: true,
    },
    'different annotations and rules with union': {
      expectedRole: role(rules('a'), undefined, { 1: 'a' }),
      actualRole: role(rules('b'), undefined, { 2: 'b' }),
      removeExtraPermissions: false,
      expectedReconciledRole: role(rules('b', 'a'), undefined, { 1: 'a', 2: 'b' }),
      expectedReconciliationNeeded: true,
    },
    'conflicting annotations and rules without union': {
      expectedRole: role(rules('a'), undefined, { 1: 'a' }),
      actualRole: role(rules('b'), undefined, { 1: 'b' }),
      removeExtraPermissions: true,
      expectedReconciledRole: role(rules('a'), undefined, { 1: 'b' }),
      expectedReconciliationNeeded: true,
    },
    'conflicting annotations and rules with union': {
      expectedRole: role(rules('a'), undefined, { 1: 'a' }),
      actualRole: role(rules('b'), undefined, { 1: 'b' }),
      removeExtraPermissions: false,
      expectedReconciledRole: role(rules('b', 'a'), undefined, { 1: 'b' }),
      expectedReconciliationNeeded: true,
    },
    'conflicting labels/annotations and rules without union': {
      expectedRole: role(rules('a'), { 3: 'd' }, { 1: 'a' }),
      actualRole: role(rules('b'), { 4: 'e' }, { 1: 'b' }),
      removeExtraPermissions: true,
      expectedReconciledRole: role(rules('a'), { 3: 'd', 4: 'e' }, { 1: 'b' }),
      expectedReconciliationNeeded: true,
    },
    'conflicting labels/annotations and rules with union': {
      expectedRole: role(rules('a'), { 3: 'd' }, { 1: 'a' }),
      actualRole: role(rules('b'), { 4: 'e' }, { 1: 'b' }),
      removeExtraPermissions: false,
      expectedReconciledRole: role(rules('b', 'a'), { 3: 'd', 4: 'e' }, { 1: 'b' }),
      expectedReconciliationNeeded: true,
    },
    'complex labels/annotations and rules without union': {
      expectedRole: role(rules('pods', 'nodes', 'secrets'), { env: 'prod', color: 'blue' }, { description: 'fancy', system: 'true' }),
      actualRole: role(rules('nodes', 'images', 'projects'), { color: 'red', team: 'pm' }, { system: 'false', owner: 'admin', vip: 'yes' }),
      removeExtraPermissions: true,
      expectedReconciledRole: role(rules('pods', 'nodes', 'secrets'), { env: 'prod', color: 'red', team: 'pm' }, { description: 'fancy', system: 'false', owner: 'admin', vip: 'yes' }),
      expectedReconciliationNeeded: true,
    },
    'complex labels/annotations and rules with union': {
      expectedRole: role(rules('pods', 'nodes', 'secrets'), { env: 'prod', color: 'blue', manager: 'randy' }, { description: 'fancy', system: 'true', up: 'true' }),
      actualRole: role(rules('nodes', 'images', 'projects'), { color: 'red', team: 'pm' }, { system: 'false', owner: 'admin', vip: 'yes', rate: 'down' }),
      removeExtraPermissions: false,
      expectedReconciledRole: role(
        rules('nodes', 'images', 'projects', 'pods', 'secrets'),
        { env: 'prod', manager: 'randy', color: 'red', team: 'pm' },
        { description: 'fancy', system: 'false', owner: 'admin', vip: 'yes', rate: 'down', up: 'true' },
      ),
      expectedReconciliationNeeded: true,
    },
  });
});

function aggregatedRole(aggregationRule: AggregationRule | undefined): ClusterRole {
  return aggregationRule ? { aggregationRule } : {};
}

function aggregationRule(selectors: Record<string, string>[]): AggregationRule {
  return { clusterRoleSelectors: selectors.map((matchLabels) => ({ matchLabels })) };
}

describe('TestComputeReconciledRoleAggregationRules', () => {
  checkRoleCases({
    empty: { expectedRole: aggregatedRole({}), actualRole: aggregatedRole(undefined), removeExtraPermissions: true, expectedReconciliationNeeded: false },
    'empty-2': { expectedRole: aggregatedRole({}), actualRole: aggregatedRole({}), removeExtraPermissions: true, expectedReconciliationNeeded: false },
    'match without union': {
      expectedRole: aggregatedRole(aggregationRule([{ foo: 'bar' }])),
      actualRole: aggregatedRole(aggregationRule([{ foo: 'bar' }])),
      removeExtraPermissions: true,
      expectedReconciliationNeeded: false,
    },
    'match with union': {
      expectedRole: aggregatedRole(aggregationRule([{ foo: 'bar' }])),
      actualRole: aggregatedRole(aggregationRule([{ foo: 'bar' }])),
      removeExtraPermissions: false,
      expectedReconciliationNeeded: false,
    },
    'different rules without union': {
      expectedRole: aggregatedRole(aggregationRule([{ foo: 'bar' }])),
      actualRole: aggregatedRole(aggregationRule([{ alpha: 'bravo' }])),
      removeExtraPermissions: true,
      expectedReconciledRole: aggregatedRole(aggregationRule([{ foo: 'bar' }])),
      expectedReconciliationNeeded: true,
    },
    'different rules with union': {
      expectedRole: aggregatedRole(aggregationRule([{ foo: 'bar' }])),
      actualRole: aggregatedRole(aggregationRule([{ alpha: 'bravo' }])),
      removeExtraPermissions: false,
      expectedReconciledRole: aggregatedRole(aggregationRule([{ alpha: 'bravo' }, { foo: 'bar' }])),
      expectedReconciliationNeeded: true,
    },
    'unexpected aggregation': {
      expectedRole: role(rules('pods', 'nodes', 'secrets'), undefined, undefined),
      actualRole: aggregatedRole(aggregationRule([{ alpha: 'bravo' }])),
      removeExtraPermissions: false,
      expectedReconciledRole: role(rules('pods', 'nodes', 'secrets'), undefined, undefined),
      expectedReconciliationNeeded: true,
    },
    'unexpected aggregation with differing permissions': {
      expectedRole: role(rules('pods', 'nodes', 'secrets'), undefined, undefined),
      actualRole: { ...aggregatedRole(aggregationRule([{ alpha: 'bravo' }])), rules: rules('deployments') },
      removeExtraPermissions: false,
      expectedReconciledRole: role(rules('deployments', 'pods', 'nodes', 'secrets'), undefined, undefined),
      expectedReconciliationNeeded: true,
    },
  });
});

test('an existing role annotated autoupdate=false is protected', () => {
  const existing = role(rules('b'), undefined, { 'rbac.authorization.kubernetes.io/autoupdate': 'false' });
  const result = computeReconciledRole(existing, role(rules('a'), undefined, { 'rbac.authorization.kubernetes.io/autoupdate': 'true' }), false);
  assert.equal(result.isProtected, true);
  // What would be written is still computed (a dry run shows it); the annotation of the existing object wins.
  assert.equal(result.role.metadata?.annotations?.['rbac.authorization.kubernetes.io/autoupdate'], 'false');
});

const subject = (name: string): Subject => ({ kind: '', name });
const subjects = (...names: string[]): Subject[] => names.map(subject);
const binding = (name: string, subs: Subject[]): ClusterRoleBinding => ({ roleRef: { apiGroup: '', kind: '', name }, subjects: subs });

describe('TestDiffObjectReferenceLists', () => {
  const cases: Record<string, { a?: Subject[]; b?: Subject[]; onlyA?: Subject[]; onlyB?: Subject[] }> = {
    empty: {},
    'matching, order-independent': { a: subjects('foo', 'bar'), b: subjects('bar', 'foo') },
    'partial match': { a: subjects('foo', 'bar'), b: subjects('foo', 'baz'), onlyA: subjects('bar'), onlyB: subjects('baz') },
    missing: { a: subjects('foo'), b: subjects('bar'), onlyA: subjects('foo'), onlyB: subjects('bar') },
    'remove duplicates': { a: subjects('foo', 'foo'), b: subjects('bar', 'bar'), onlyA: subjects('foo'), onlyB: subjects('bar') },
  };
  for (const [name, tc] of Object.entries(cases)) {
    test(name, () => {
      const [onlyA, onlyB] = diffSubjectLists(tc.a, tc.b);
      assert.deepEqual(onlyA, tc.onlyA ?? []);
      assert.deepEqual(onlyB, tc.onlyB ?? []);
    });
  }
});

describe('TestComputeUpdate', () => {
  const cases: Record<string, { expected: ClusterRoleBinding; actual: ClusterRoleBinding; removeExtraSubjects: boolean; updated?: ClusterRoleBinding; updateNeeded: boolean }> = {
    'match without union': { expected: binding('role', subjects('a')), actual: binding('role', subjects('a')), removeExtraSubjects: true, updateNeeded: false },
    'match with union': { expected: binding('role', subjects('a')), actual: binding('role', subjects('a')), removeExtraSubjects: false, updateNeeded: false },
    'different roleref with identical subjects': {
      expected: binding('role', subjects('a')),
      actual: binding('differentRole', subjects('a')),
      removeExtraSubjects: false,
      updated: binding('role', subjects('a')),
      updateNeeded: true,
    },
    'extra subjects without union': {
      expected: binding('role', subjects('a')),
      actual: binding('role', subjects('a', 'b')),
      removeExtraSubjects: true,
      updated: binding('role', subjects('a')),
      updateNeeded: true,
    },
    'extra subjects with union': { expected: binding('role', subjects('a')), actual: binding('role', subjects('a', 'b')), removeExtraSubjects: false, updateNeeded: false },
    'missing subjects without union': {
      expected: binding('role', subjects('a', 'c')),
      actual: binding('role', subjects('a', 'b')),
      removeExtraSubjects: true,
      updated: binding('role', subjects('a', 'c')),
      updateNeeded: true,
    },
    'missing subjects with union': {
      expected: binding('role', subjects('a', 'c')),
      actual: binding('role', subjects('a', 'b')),
      removeExtraSubjects: false,
      updated: binding('role', subjects('a', 'b', 'c')),
      updateNeeded: true,
    },
  };
  for (const [name, tc] of Object.entries(cases)) {
    test(name, () => {
      const result = computeReconciledRoleBinding(tc.actual, tc.expected, tc.removeExtraSubjects);
      assert.equal(result.operation !== 'none', tc.updateNeeded, result.operation);
      if (tc.updateNeeded) {
        assert.deepEqual(result.binding.roleRef, tc.updated?.roleRef);
        assert.deepEqual(result.binding.subjects, tc.updated?.subjects);
      }
    });
  }
  test('a changed roleRef is a recreate', () => {
    assert.equal(computeReconciledRoleBinding(binding('differentRole', subjects('a')), binding('role', subjects('a')), false).operation, 'recreate');
  });
});

/** A client over a map that records its calls; `failOnce` makes the first call of a verb throw. */
function recordingClient<T extends RuleOwner & BindingObject>(objects: T[], failOnce: Partial<Record<'create' | 'update' | 'delete', Error>> = {}): ReconcileClient<T> & { calls: string[] } {
  const store = new Map(objects.map((o) => [o.metadata?.name ?? '', structuredClone(o)]));
  const calls: string[] = [];
  const fail = (verb: 'create' | 'update' | 'delete'): void => {
    const err = failOnce[verb];
    if (err) {
      delete failOnce[verb];
      throw err;
    }
  };
  return {
    calls,
    get: (_ns, name) => Promise.resolve(structuredClone(store.get(name))),
    create: (obj) =>
      Promise.resolve().then(() => {
        calls.push(`create ${obj.metadata?.name}`);
        fail('create');
        store.set(obj.metadata?.name ?? '', structuredClone(obj));
        return obj;
      }),
    update: (obj) =>
      Promise.resolve().then(() => {
        calls.push(`update ${obj.metadata?.name}`);
        fail('update');
        store.set(obj.metadata?.name ?? '', structuredClone(obj));
        return obj;
      }),
    delete: (_ns, name, uid) =>
      Promise.resolve().then(() => {
        calls.push(`delete ${name} uid=${uid}`);
        fail('delete');
        store.delete(name);
      }),
  };
}

describe('reconcileRole and reconcileRoleBinding (Confirm)', () => {
  const want = (name: string, r: PolicyRule[]): ClusterRole => ({ metadata: { name, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } }, rules: r });

  test('create when missing, update when a rule is missing, nothing when covered, nothing when protected', async () => {
    const client = recordingClient<ClusterRole>([
      { metadata: { name: 'partial', annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } }, rules: rules('a') },
      { metadata: { name: 'protected', annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } }, rules: rules('z') },
      { metadata: { name: 'wider', annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] },
    ]);
    assert.equal((await reconcileRole(client, want('new', rules('a')), false)).operation, 'create');
    const updated = await reconcileRole(client, want('partial', rules('a', 'b')), false);
    assert.equal(updated.operation, 'update');
    assert.deepEqual(updated.role.rules, rules('a', 'b'));
    assert.equal((await reconcileRole(client, want('wider', rules('a', 'b')), false)).operation, 'none');
    const prot = await reconcileRole(client, want('protected', rules('a')), false);
    assert.equal(prot.isProtected, true);
    assert.deepEqual(client.calls, ['create new', 'update partial']);
  });

  test('a role created meanwhile (AlreadyExists) is reconciled again', async () => {
    const client = recordingClient<ClusterRole>([], { create: newAlreadyExists({ group: 'rbac.authorization.k8s.io', resource: 'clusterroles' }, 'x') });
    assert.equal((await reconcileRole(client, want('x', rules('a')), false)).operation, 'create');
    assert.deepEqual(client.calls, ['create x', 'create x']);
  });

  test('a binding whose roleRef differs is deleted (UID precondition) and created again; a conflict starts over', async () => {
    const existing: ClusterRoleBinding = { metadata: { name: 'b', uid: 'u1' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'old' }, subjects: subjects('a') };
    const expected: ClusterRoleBinding = { metadata: { name: 'b' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'new' }, subjects: subjects('a') };
    const client = recordingClient<ClusterRoleBinding>([existing], { delete: newConflict({ group: 'rbac.authorization.k8s.io', resource: 'clusterrolebindings' }, 'b', 'changed') });
    const result = await reconcileRoleBinding(client, expected, false);
    assert.equal(result.operation, 'recreate');
    assert.deepEqual(client.calls, ['delete b uid=u1', 'delete b uid=u1', 'create b']);
  });

  test('a binding gone before its update (NotFound) is reconciled again', async () => {
    const existing: ClusterRoleBinding = { metadata: { name: 'b' }, roleRef: { apiGroup: '', kind: '', name: 'r' }, subjects: subjects('a') };
    const client = recordingClient<ClusterRoleBinding>([existing], { update: newNotFound({ group: 'rbac.authorization.k8s.io', resource: 'clusterrolebindings' }, 'b') });
    // The update fails with NotFound; the retry reads the (still stored, in this fake) binding and updates it.
    const result = await reconcileRoleBinding(client, { ...existing, subjects: subjects('a', 'b') }, false);
    assert.equal(result.operation, 'update');
    assert.deepEqual(client.calls, ['update b', 'update b']);
  });
});
