import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isLongRunning, isMutating, requestInfoOf } from './requestinfo.js';

describe('requestInfoOf', () => {
  // [method, url, isResourceRequest, verb, subresource] — cases from upstream's requestinfo_test.go.
  const cases: [string, string, boolean, string, string][] = [
    ['GET', '/api/v1/namespaces/default/pods', true, 'list', ''],
    ['GET', '/api/v1/pods', true, 'list', ''],
    ['GET', '/api/v1/namespaces/default/pods?watch=true', true, 'watch', ''],
    ['GET', '/api/v1/namespaces/default/pods?watch=false', true, 'list', ''],
    ['GET', '/api/v1/watch/namespaces/default/pods', true, 'watch', ''],
    ['GET', '/api/v1/watch/namespaces/default/pods/web', true, 'watch', ''],
    ['GET', '/api/v1/namespaces/default/pods/web?watch=1', true, 'watch', ''],
    ['GET', '/api/v1/namespaces/default/pods/web', true, 'get', ''],
    ['HEAD', '/api/v1/namespaces/default/pods/web', true, 'get', ''],
    ['GET', '/api/v1/namespaces/default/pods/web/log', true, 'get', 'log'],
    ['POST', '/api/v1/namespaces/default/pods/web/exec', true, 'create', 'exec'],
    ['GET', '/api/v1/proxy/namespaces/default/pods/web/a/b', true, 'proxy', ''],
    ['POST', '/apis/apps/v1/namespaces/default/deployments', true, 'create', ''],
    ['PUT', '/apis/apps/v1/namespaces/default/deployments/web/scale', true, 'update', 'scale'],
    ['PATCH', '/apis/apps/v1/namespaces/default/deployments/web', true, 'patch', ''],
    ['DELETE', '/apis/apps/v1/namespaces/default/deployments/web', true, 'delete', ''],
    ['DELETE', '/apis/apps/v1/namespaces/default/deployments', true, 'deletecollection', ''],
    ['GET', '/api/v1/namespaces', true, 'list', ''],
    ['GET', '/api/v1/namespaces/default', true, 'get', ''],
    ['PUT', '/api/v1/namespaces/default/finalize', true, 'update', 'finalize'],
    ['OPTIONS', '/api/v1/pods', true, '', ''],
    ['GET', '/api/v1', false, 'get', ''],
    ['GET', '/apis/apps/v1', false, 'get', ''],
    ['GET', '/apis', false, 'get', ''],
    ['GET', '/healthz', false, 'get', ''],
    ['HEAD', '/livez', false, 'head', ''],
    ['POST', '/openapi/v3', false, 'post', ''],
    ['GET', '/foo/bar/baz/qux', false, 'get', ''],
  ];
  for (const [method, url, isResourceRequest, verb, subresource] of cases) {
    test(`${method} ${url} → ${verb}${subresource ? `/${subresource}` : ''}`, () => {
      const [path, search = ''] = url.split('?') as [string, string?];
      const info = requestInfoOf(method, path, Object.fromEntries(new URLSearchParams(search)));
      assert.deepEqual({ isResourceRequest: info.isResourceRequest, verb: info.verb, subresource: info.subresource, path: info.path }, { isResourceRequest, verb, subresource, path });
    });
  }

  // [method, url, verb, group, version, namespace, resource, subresource, name] — upstream's
  // TestGetAPIRequestInfo success cases (requestinfo_test.go, v1.33).
  const fields: [string, string, string, string, string, string, string, string, string][] = [
    ['GET', '/api/v1/namespaces', 'list', '', 'v1', '', 'namespaces', '', ''],
    ['GET', '/api/v1/namespaces/other', 'get', '', 'v1', 'other', 'namespaces', '', 'other'],
    ['GET', '/api/v1/namespaces/other/pods', 'list', '', 'v1', 'other', 'pods', '', ''],
    ['GET', '/api/v1/namespaces/other/pods/foo', 'get', '', 'v1', 'other', 'pods', '', 'foo'],
    ['HEAD', '/api/v1/namespaces/other/pods/foo', 'get', '', 'v1', 'other', 'pods', '', 'foo'],
    ['GET', '/api/v1/pods', 'list', '', 'v1', '', 'pods', '', ''],
    ['HEAD', '/api/v1/pods', 'list', '', 'v1', '', 'pods', '', ''],
    ['GET', '/api/v1/proxy/namespaces/other/pods/foo', 'proxy', '', 'v1', 'other', 'pods', '', 'foo'],
    ['GET', '/api/v1/proxy/namespaces/other/pods/foo/subpath/not/a/subresource', 'proxy', '', 'v1', 'other', 'pods', '', 'foo'],
    ['GET', '/api/v1/watch/pods', 'watch', '', 'v1', '', 'pods', '', ''],
    ['GET', '/api/v1/pods?watch=true', 'watch', '', 'v1', '', 'pods', '', ''],
    ['GET', '/api/v1/pods?watch=false', 'list', '', 'v1', '', 'pods', '', ''],
    ['GET', '/api/v1/watch/namespaces/other/pods', 'watch', '', 'v1', 'other', 'pods', '', ''],
    ['GET', '/api/v1/namespaces/other/pods?watch=1', 'watch', '', 'v1', 'other', 'pods', '', ''],
    ['GET', '/api/v1/namespaces/other/pods?watch=0', 'list', '', 'v1', 'other', 'pods', '', ''],
    ['GET', '/api/v1/namespaces/other/pods/foo/status', 'get', '', 'v1', 'other', 'pods', 'status', 'foo'],
    ['GET', '/api/v1/namespaces/other/pods/foo/proxy/subpath', 'get', '', 'v1', 'other', 'pods', 'proxy', 'foo'],
    ['PUT', '/api/v1/namespaces/other/finalize', 'update', '', 'v1', 'other', 'namespaces', 'finalize', 'other'],
    ['PUT', '/api/v1/namespaces/other/status', 'update', '', 'v1', 'other', 'namespaces', 'status', 'other'],
    ['PATCH', '/api/v1/namespaces/other/pods/foo', 'patch', '', 'v1', 'other', 'pods', '', 'foo'],
    ['DELETE', '/api/v1/namespaces/other/pods/foo', 'delete', '', 'v1', 'other', 'pods', '', 'foo'],
    ['POST', '/api/v1/namespaces/other/pods', 'create', '', 'v1', 'other', 'pods', '', ''],
    ['DELETE', '/api/v1/nodes', 'deletecollection', '', 'v1', '', 'nodes', '', ''],
    ['DELETE', '/api/v1/namespaces', 'deletecollection', '', 'v1', '', 'namespaces', '', ''],
    ['DELETE', '/api/v1/namespaces/other/pods', 'deletecollection', '', 'v1', 'other', 'pods', '', ''],
    ['DELETE', '/apis/extensions/v1/namespaces/other/pods', 'deletecollection', 'extensions', 'v1', 'other', 'pods', '', ''],
    ['POST', '/apis/extensions/v1/namespaces/other/pods', 'create', 'extensions', 'v1', 'other', 'pods', '', ''],
    ['POST', '/apis/extensions/v1beta3/namespaces/other/pods', 'create', 'extensions', 'v1beta3', 'other', 'pods', '', ''],
  ];
  for (const [method, url, verb, apiGroup, apiVersion, namespace, resource, subresource, name] of fields) {
    test(`${method} ${url}: group ${apiGroup || '""'}, version ${apiVersion}, namespace ${namespace || '""'}, resource ${resource}, name ${name || '""'}`, () => {
      const [path, search = ''] = url.split('?') as [string, string?];
      const info = requestInfoOf(method, path, Object.fromEntries(new URLSearchParams(search)));
      assert.deepEqual(info, { isResourceRequest: true, verb, subresource, path, apiGroup, apiVersion, resource, namespace, name });
    });
  }
});

describe('isLongRunning (kube-apiserver LongRunningFunc)', () => {
  const longRunning = (method: string, url: string): boolean => {
    const [path, search = ''] = url.split('?') as [string, string?];
    return isLongRunning(requestInfoOf(method, path, Object.fromEntries(new URLSearchParams(search))));
  };
  for (const url of [
    '/api/v1/pods?watch=true',
    '/api/v1/watch/pods',
    '/api/v1/namespaces/default/pods/web/log',
    '/api/v1/namespaces/default/pods/web/exec',
    '/api/v1/namespaces/default/pods/web/attach',
    '/api/v1/namespaces/default/pods/web/portforward',
    '/api/v1/namespaces/default/services/web/proxy',
    '/api/v1/proxy/nodes/n1',
    '/debug/pprof/profile',
  ]) {
    test(`${url} is long-running`, () => assert.equal(longRunning('GET', url), true));
  }
  for (const url of ['/api/v1/pods', '/api/v1/namespaces/default/pods/web', '/api/v1/namespaces/default/pods/web/status', '/healthz', '/openapi/v3']) {
    test(`${url} is not`, () => assert.equal(longRunning('GET', url), false));
  }
});

describe('isMutating (maxinflight.go nonMutatingRequestVerbs)', () => {
  test('get, list and watch are read-only; every other verb, and non-resource POST/HEAD, mutate', () => {
    const verbOf = (method: string, path: string): boolean => isMutating(requestInfoOf(method, path, {}));
    assert.equal(verbOf('GET', '/api/v1/pods'), false);
    assert.equal(verbOf('GET', '/api/v1/namespaces/a/pods/b'), false);
    assert.equal(verbOf('GET', '/apis'), false);
    assert.equal(verbOf('POST', '/api/v1/namespaces/a/pods'), true);
    assert.equal(verbOf('DELETE', '/api/v1/namespaces/a/pods'), true);
    assert.equal(verbOf('PATCH', '/api/v1/namespaces/a/pods/b'), true);
    assert.equal(verbOf('HEAD', '/healthz'), true);
  });
});
