/**
 * `--authorization-mode` parsing (pkg/kubeapiserver/options/authorization.go `Validate`), the mode
 * union, and RBAC's getters over the stores' caches.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newServerAuthorizer, parseAuthorizationModes, rbacGettersOf, type CachedObjects } from './authorization.js';
import type { Attributes } from './authz/types.js';

describe('parseAuthorizationModes', () => {
  test('a comma-separated order of known modes', () => {
    assert.deepEqual(parseAuthorizationModes('RBAC'), ['RBAC']);
    assert.deepEqual(parseAuthorizationModes('AlwaysDeny, RBAC'), ['AlwaysDeny', 'RBAC']);
  });
  test("upstream's errors", () => {
    assert.throws(() => parseAuthorizationModes('RBAC,ABAC'), { message: 'authorization-mode "ABAC" is not a valid mode' });
    assert.throws(() => parseAuthorizationModes('RBAC,RBAC'), { message: '"RBAC" is specified more than once' });
    assert.throws(() => parseAuthorizationModes(''), { message: 'at least one authorization-mode must be passed' });
  });
});

describe('newServerAuthorizer', () => {
  const attrs = (username: string, groups: string[]): Attributes => ({ user: { username, groups }, verb: 'get', resourceRequest: true, path: '', namespace: 'ns', apiGroup: '', apiVersion: 'v1', resource: 'pods', subresource: '', name: '' });
  const none = rbacGettersOf(() => undefined);
  test('system:masters first, whatever the modes', async () => {
    assert.equal((await newServerAuthorizer(['AlwaysDeny'], none).authorizer.authorize(attrs('x', ['system:masters']))).decision, 'Allow');
  });
  test('AlwaysAllow allows and says so; AlwaysDeny and an RBAC without bindings do not', async () => {
    const allow = newServerAuthorizer(['AlwaysAllow'], none);
    assert.equal(allow.alwaysAllow, true);
    assert.equal((await allow.authorizer.authorize(attrs('x', []))).decision, 'Allow');
    for (const modes of [['AlwaysDeny'], ['RBAC']] as const) {
      const s = newServerAuthorizer(modes, none);
      assert.equal(s.alwaysAllow, false);
      assert.notEqual((await s.authorizer.authorize(attrs('x', []))).decision, 'Allow', modes.join());
    }
  });
});

describe('rbacGettersOf', () => {
  test('a binding list is kept while its cache does not change, and read again when it does', () => {
    let changes = 0;
    let reads = 0;
    const store: CachedObjects = {
      cached: () => undefined,
      cachedObjects: () => {
        reads++;
        return [{ metadata: { name: `b${changes}` } }];
      },
      cacheChanges: () => changes,
    };
    const getters = rbacGettersOf((group, resource) => (group === 'rbac.authorization.k8s.io' && resource === 'clusterrolebindings' ? store : undefined));
    const first = getters.listClusterRoleBindings();
    assert.equal(getters.listClusterRoleBindings(), first);
    assert.equal(reads, 1);
    changes++;
    assert.equal(getters.listClusterRoleBindings()[0]?.metadata?.name, 'b1');
    assert.equal(reads, 2);
    assert.deepEqual(getters.listRoleBindings('ns'), []);
  });
});
