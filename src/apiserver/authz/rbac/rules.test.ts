/**
 * Rule matching. TestRuleMatches is ported from upstream plugin/pkg/auth/authorizer/rbac/rbac_test.go
 * (8 rules, 70 requests); the rest pins pkg/apis/rbac/v1/evaluation_helpers.go's wildcard forms and
 * CompactString.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PolicyRule } from '../../../api/index.js';
import type { Attributes } from '../types.js';
import { compactString, nonResourceURLMatches, policyRuleString, resourceMatches, ruleAllows } from './rules.js';

const base: Attributes = { user: undefined, verb: '', resourceRequest: true, path: '', namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '' };

/** `resourceRequest(verb).Group(g).Resource(r).Subresource(s).New()`. */
const res = (verb: string, apiGroup: string, resource: string, subresource = ''): Attributes => ({ ...base, verb, apiGroup, resource, subresource });
/** `nonresourceRequest(verb).URL(path).New()`. */
const url = (verb: string, path: string): Attributes => ({ ...base, resourceRequest: false, verb, path });

interface Case {
  name: string;
  rule: PolicyRule;
  requests: [Attributes, boolean][];
}

// rbac_test.go TestRuleMatches.
const cases: Case[] = [
  {
    name: 'star verb, exact match other',
    rule: { verbs: ['*'], apiGroups: ['group1'], resources: ['resource1'] },
    requests: [
      [res('verb1', 'group1', 'resource1'), true],
      [res('verb1', 'group2', 'resource1'), false],
      [res('verb1', 'group1', 'resource2'), false],
      [res('verb1', 'group2', 'resource2'), false],
      [res('verb2', 'group1', 'resource1'), true],
      [res('verb2', 'group2', 'resource1'), false],
      [res('verb2', 'group1', 'resource2'), false],
      [res('verb2', 'group2', 'resource2'), false],
    ],
  },
  {
    name: 'star group, exact match other',
    rule: { verbs: ['verb1'], apiGroups: ['*'], resources: ['resource1'] },
    requests: [
      [res('verb1', 'group1', 'resource1'), true],
      [res('verb1', 'group2', 'resource1'), true],
      [res('verb1', 'group1', 'resource2'), false],
      [res('verb1', 'group2', 'resource2'), false],
      [res('verb2', 'group1', 'resource1'), false],
      [res('verb2', 'group2', 'resource1'), false],
      [res('verb2', 'group1', 'resource2'), false],
      [res('verb2', 'group2', 'resource2'), false],
    ],
  },
  {
    name: 'star resource, exact match other',
    rule: { verbs: ['verb1'], apiGroups: ['group1'], resources: ['*'] },
    requests: [
      [res('verb1', 'group1', 'resource1'), true],
      [res('verb1', 'group2', 'resource1'), false],
      [res('verb1', 'group1', 'resource2'), true],
      [res('verb1', 'group2', 'resource2'), false],
      [res('verb2', 'group1', 'resource1'), false],
      [res('verb2', 'group2', 'resource1'), false],
      [res('verb2', 'group1', 'resource2'), false],
      [res('verb2', 'group2', 'resource2'), false],
    ],
  },
  {
    name: 'tuple expansion',
    rule: { verbs: ['verb1', 'verb2'], apiGroups: ['group1', 'group2'], resources: ['resource1', 'resource2'] },
    requests: [
      [res('verb1', 'group1', 'resource1'), true],
      [res('verb1', 'group2', 'resource1'), true],
      [res('verb1', 'group1', 'resource2'), true],
      [res('verb1', 'group2', 'resource2'), true],
      [res('verb2', 'group1', 'resource1'), true],
      [res('verb2', 'group2', 'resource1'), true],
      [res('verb2', 'group1', 'resource2'), true],
      [res('verb2', 'group2', 'resource2'), true],
    ],
  },
  {
    name: 'subresource expansion',
    rule: { verbs: ['*'], apiGroups: ['*'], resources: ['resource1/subresource1'] },
    requests: [
      [res('verb1', 'group1', 'resource1', 'subresource1'), true],
      [res('verb1', 'group2', 'resource1', 'subresource2'), false],
      [res('verb1', 'group1', 'resource2', 'subresource1'), false],
      [res('verb1', 'group2', 'resource2', 'subresource1'), false],
      [res('verb2', 'group1', 'resource1', 'subresource1'), true],
      [res('verb2', 'group2', 'resource1', 'subresource2'), false],
      [res('verb2', 'group1', 'resource2', 'subresource1'), false],
      [res('verb2', 'group2', 'resource2', 'subresource1'), false],
    ],
  },
  {
    name: 'star nonresource, exact match other',
    rule: { verbs: ['verb1'], nonResourceURLs: ['*'] },
    requests: [
      [url('verb1', '/foo'), true],
      [url('verb1', '/foo/bar'), true],
      [url('verb1', '/foo/baz'), true],
      [url('verb1', '/foo/bar/one'), true],
      [url('verb1', '/foo/baz/one'), true],
      [url('verb2', '/foo'), false],
      [url('verb2', '/foo/bar'), false],
      [url('verb2', '/foo/baz'), false],
      [url('verb2', '/foo/bar/one'), false],
      [url('verb2', '/foo/baz/one'), false],
    ],
  },
  {
    name: 'star nonresource subpath',
    rule: { verbs: ['verb1'], nonResourceURLs: ['/foo/*'] },
    requests: [
      [url('verb1', '/foo'), false],
      [url('verb1', '/foo/bar'), true],
      [url('verb1', '/foo/baz'), true],
      [url('verb1', '/foo/bar/one'), true],
      [url('verb1', '/foo/baz/one'), true],
      [url('verb1', '/notfoo'), false],
      [url('verb1', '/notfoo/bar'), false],
      [url('verb1', '/notfoo/baz'), false],
      [url('verb1', '/notfoo/bar/one'), false],
      [url('verb1', '/notfoo/baz/one'), false],
    ],
  },
  {
    name: 'star verb, exact nonresource',
    rule: { verbs: ['*'], nonResourceURLs: ['/foo', '/foo/bar/one'] },
    requests: [
      [url('verb1', '/foo'), true],
      [url('verb1', '/foo/bar'), false],
      [url('verb1', '/foo/baz'), false],
      [url('verb1', '/foo/bar/one'), true],
      [url('verb1', '/foo/baz/one'), false],
      [url('verb2', '/foo'), true],
      [url('verb2', '/foo/bar'), false],
      [url('verb2', '/foo/baz'), false],
      [url('verb2', '/foo/bar/one'), true],
      [url('verb2', '/foo/baz/one'), false],
    ],
  },
];

describe('RuleAllows (upstream rbac_test.go TestRuleMatches)', () => {
  for (const c of cases) {
    it(c.name, () => {
      for (const [request, expected] of c.requests) {
        assert.equal(ruleAllows(request, c.rule), expected, `${c.name}: ${JSON.stringify(request)}`);
      }
    });
  }
});

describe('wildcard forms (evaluation_helpers.go)', () => {
  it('resources: `*`, exact, and `*` then `/sub` for subresource requests only; no `pods/*` form', () => {
    const rule = (...resources: string[]): PolicyRule => ({ verbs: ['get'], resources });
    assert.equal(resourceMatches(rule('*'), 'pods/status', 'status'), true);
    assert.equal(resourceMatches(rule('*/status'), 'pods/status', 'status'), true);
    assert.equal(resourceMatches(rule('*/status'), 'pods', ''), false);
    assert.equal(resourceMatches(rule('*/status'), 'pods/scale', 'scale'), false);
    assert.equal(resourceMatches(rule('pods'), 'pods/status', 'status'), false);
    assert.equal(resourceMatches(rule('pods/*'), 'pods/status', 'status'), false);
    assert.equal(resourceMatches(rule('pods/*'), 'pods/*', '*'), true);
  });

  it('names: empty matches every name, else exact; a list (name "") does not match a named rule', () => {
    const rule: PolicyRule = { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['web'] };
    assert.equal(ruleAllows({ ...res('get', '', 'pods'), name: 'web' }, rule), true);
    assert.equal(ruleAllows({ ...res('get', '', 'pods'), name: 'db' }, rule), false);
    assert.equal(ruleAllows(res('get', '', 'pods'), rule), false);
  });

  it('nonResourceURLs: every trailing `*` dropped for the prefix; verbs are case-sensitive', () => {
    const rule = (...nonResourceURLs: string[]): PolicyRule => ({ verbs: ['get'], nonResourceURLs });
    assert.equal(nonResourceURLMatches(rule('/apis**'), '/apis/v1'), true);
    assert.equal(nonResourceURLMatches(rule('/a*b'), '/axb'), false);
    assert.equal(nonResourceURLMatches(rule('/healthz'), '/healthz/ping'), false);
    assert.equal(ruleAllows(url('GET', '/healthz'), rule('/healthz')), false);
  });
});

describe('CompactString', () => {
  it('prints the non-empty fields in upstream order, lists as Go %q', () => {
    assert.equal(
      compactString({ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'], resourceNames: ['a"b'] }),
      '{APIGroups:[""], Resources:["pods"], ResourceNames:["a\\"b"], Verbs:["get" "list"]}',
    );
    assert.equal(compactString({ verbs: ['get'], nonResourceURLs: ['/metrics'] }), '{NonResourceURLs:["/metrics"], Verbs:["get"]}');
    assert.equal(compactString({ verbs: [], apiGroups: [], resources: [] }), '{}');
    assert.equal(policyRuleString({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }), 'PolicyRule{APIGroups:["*"], Resources:["*"], Verbs:["*"]}');
  });
});
