/**
 * Ported from k8s.io/apiserver pkg/audit/policy/reader_test.go (TestParser,
 * TestParsePolicyWithNoVersionOrKind, TestParsePolicyWithUnknownField, TestPolicyCntCheck) and
 * pkg/apis/audit/validation/validation_test.go (TestValidatePolicy), v1.33, with the messages
 * upstream's errors carry.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAuditPolicy, loadAuditPolicyFile, parseAuditPolicy } from './reader.js';
import { validatePolicy } from './validation.js';
import type { AuditPolicy, PolicyRule } from './types.js';
import { fieldErrorString } from '../../machinery/errors/index.js';

/** reader_test.go `policyDefPattern`. */
const policyDefPattern = `
apiVersion: audit.k8s.io/{version}
kind: Policy
rules:
  - level: None
    nonResourceURLs:
      - /healthz*
      - /version
  - level: RequestResponse
    users: ["tim"]
    userGroups: ["testers", "developers"]
    verbs: ["patch", "delete", "create"]
    resources:
      - group: ""
      - group: "rbac.authorization.k8s.io"
        resources: ["clusterroles", "clusterrolebindings"]
    namespaces: ["default", "kube-system"]
  - level: Metadata
`;

/** reader_test.go `policyWithNoVersionOrKind`. */
const policyWithNoVersionOrKind = policyDefPattern.replace('apiVersion: audit.k8s.io/{version}\nkind: Policy\n', '');

/** reader_test.go `policyWithUnknownField`. */
const policyWithUnknownField = `
apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  resources:
  - group: coordination.k8s.io
    resources:
    - "leases"
    verbs: ["watch", "get", "list"] # invalid indentation on verbs
`;

/** reader_test.go `expectedPolicy`. */
const expectedRules: PolicyRule[] = [
  { level: 'None', nonResourceURLs: ['/healthz*', '/version'] },
  {
    level: 'RequestResponse',
    users: ['tim'],
    userGroups: ['testers', 'developers'],
    verbs: ['patch', 'delete', 'create'],
    resources: [{ group: '' }, { group: 'rbac.authorization.k8s.io', resources: ['clusterroles', 'clusterrolebindings'] }],
    namespaces: ['default', 'kube-system'],
  },
  { level: 'Metadata' },
];

const errorOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  assert.fail('expected an error');
};

describe('policy reader (upstream reader_test.go)', () => {
  test('TestParser: the YAML policy decodes to its rules', () => {
    const { policy, warnings } = parseAuditPolicy(policyDefPattern.replace('{version}', 'v1'));
    assert.equal(policy.rules.length, 3);
    assert.deepEqual(policy.rules, expectedRules);
    assert.deepEqual(warnings, []);
  });

  test('TestParsePolicyWithNoVersionOrKind: refused as the internal version', () => {
    assert.equal(errorOf(() => parseAuditPolicy(policyWithNoVersionOrKind)), 'unknown group version field audit.k8s.io/__internal, Kind=Policy in policy');
  });

  test('TestParsePolicyWithUnknownField: loaded leniently, with a warning', () => {
    const { policy, warnings } = parseAuditPolicy(policyWithUnknownField);
    assert.deepEqual(policy.rules, [{ level: 'None', resources: [{ group: 'coordination.k8s.io', resources: ['leases'] }] }]);
    assert.deepEqual(warnings, [
      'Audit policy contains errors, falling back to lenient decoding: strict decoding error: unknown field "rules[0].resources[0].verbs"',
    ]);
  });

  test('TestPolicyCntCheck: a policy without rules, and an empty file, are refused', () => {
    assert.equal(errorOf(() => parseAuditPolicy('apiVersion: audit.k8s.io/v1\nkind: Policy')), 'loaded illegal policy with 0 rules');
    assert.equal(errorOf(() => parseAuditPolicy('')), 'unknown group version field audit.k8s.io/__internal, Kind=Policy in policy');
  });

  test('JSON policies are read too', () => {
    const text = JSON.stringify({ apiVersion: 'audit.k8s.io/v1', kind: 'Policy', omitStages: ['RequestReceived'], rules: [{ level: 'Metadata' }] });
    assert.deepEqual(parseAuditPolicy(text).policy, { apiVersion: 'audit.k8s.io/v1', kind: 'Policy', omitStages: ['RequestReceived'], rules: [{ level: 'Metadata' }] });
  });

  test('the kind defaults to Policy; a removed or foreign version is not registered', () => {
    assert.equal(parseAuditPolicy('apiVersion: audit.k8s.io/v1\nrules: [{level: Metadata}]').policy.rules.length, 1);
    assert.equal(
      errorOf(() => parseAuditPolicy('apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules: [{level: Metadata}]')),
      'failed decoding: no kind "Policy" is registered for version "audit.k8s.io/v1beta1" in scheme "k8s.io/apiserver/pkg/audit/scheme.go:30"',
    );
    assert.equal(
      errorOf(() => parseAuditPolicy('apiVersion: audit.k8s.io/v1\nkind: Foo\nrules: [{level: Metadata}]')),
      'failed decoding: no kind "Foo" is registered for version "audit.k8s.io/v1" in scheme "k8s.io/apiserver/pkg/audit/scheme.go:30"',
    );
    assert.equal(errorOf(() => parseAuditPolicy('apiVersion: audit.k8s.io/v1\nkind: Event\n')), 'failed decoding: converting (v1.Event) to (audit.Policy): unknown conversion');
  });

  test('type errors read as Go encoding/json ones', () => {
    const doc = (rest: string): string => `apiVersion: audit.k8s.io/v1\nkind: Policy\n${rest}`;
    assert.equal(
      errorOf(() => parseAuditPolicy(doc('rules: [{level: 5}]'))),
      'failed decoding: json: cannot unmarshal number into Go struct field PolicyRule.rules.level of type v1.Level',
    );
    assert.equal(errorOf(() => parseAuditPolicy(doc('rules: foo'))), 'failed decoding: json: cannot unmarshal string into Go struct field Policy.rules of type []v1.PolicyRule');
    assert.equal(errorOf(() => parseAuditPolicy(doc('rules: [foo]'))), 'failed decoding: json: cannot unmarshal string into Go struct field Policy.rules of type v1.PolicyRule');
    assert.equal(
      errorOf(() => parseAuditPolicy(doc('rules: [{level: Metadata, users: [{a: b}]}]'))),
      'failed decoding: json: cannot unmarshal object into Go struct field PolicyRule.rules.users of type string',
    );
    assert.equal(
      errorOf(() => parseAuditPolicy(doc('rules: [{level: Metadata, resources: [{group: [x]}]}]'))),
      'failed decoding: json: cannot unmarshal array into Go struct field GroupResources.rules.resources.group of type string',
    );
    assert.equal(errorOf(() => parseAuditPolicy(doc('omitManagedFields: "true"\nrules: [{level: Metadata}]'))), 'failed decoding: json: cannot unmarshal string into Go struct field Policy.omitManagedFields of type bool');
    assert.equal(
      errorOf(() => parseAuditPolicy('- a\n- b\n')),
      'failed decoding: couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }',
    );
    assert.match(errorOf(() => parseAuditPolicy('{"apiVersion": ')), /^failed decoding: couldn't get version\/kind; json parse error: /);
    assert.match(errorOf(() => parseAuditPolicy('rules: [\n')), /^failed decoding: yaml: line \d+: /);
  });

  test('YAML 1.1 as goyaml.v2 reads it: yes/no are booleans; field names are case-sensitive', () => {
    const { policy } = parseAuditPolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nomitManagedFields: yes\nrules: [{level: Metadata}]');
    assert.equal(policy.omitManagedFields, true);
    // Timestamp-like scalars stay strings, as goyaml.v2 decodes them into interface{}.
    assert.deepEqual(parseAuditPolicy('apiVersion: audit.k8s.io/v1\nrules: [{level: Metadata, users: [2001-12-14]}]').policy.rules[0]?.users, ['2001-12-14']);
    assert.equal(errorOf(() => parseAuditPolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{Level: Metadata}]')), 'rules[0].level: Required value');
  });

  test('a repeated YAML key is a strict error: the last value is kept, with a warning', () => {
    const { policy, warnings } = parseAuditPolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  level: Metadata\n');
    assert.deepEqual(policy.rules, [{ level: 'Metadata' }]);
    assert.deepEqual(warnings, [
      'Audit policy contains errors, falling back to lenient decoding: strict decoding error: yaml: unmarshal errors:\n  line 5: key "level" already set in map',
    ]);
  });

  test('a null rule is a rule without a level', () => {
    assert.equal(errorOf(() => parseAuditPolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [null]')), 'rules[0].level: Required value');
  });

  test('validation errors are aggregated', () => {
    assert.equal(
      errorOf(() => parseAuditPolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Foo\n- {}\n')),
      '[rules[0].level: Unsupported value: "Foo": supported values: "None", "Metadata", "Request", "RequestResponse", rules[1].level: Required value]',
    );
  });

  test('loadAuditPolicy gives an evaluator and reports warnings', () => {
    const warnings: string[] = [];
    const evaluator = loadAuditPolicy(policyWithUnknownField, (w) => warnings.push(w));
    assert.equal(warnings.length, 1);
    const config = evaluator.evaluatePolicyRule({
      user: { username: 'x', groups: [] },
      verb: 'get',
      isResourceRequest: true,
      path: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/x',
      apiGroup: 'coordination.k8s.io',
      apiVersion: 'v1',
      resource: 'leases',
      subresource: '',
      namespace: 'kube-system',
      name: 'x',
    });
    assert.equal(config.level, 'None');
  });

  test('LoadPolicyFromFile: a missing path, an unreadable file, and errors naming the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-policy-'));
    try {
      assert.equal(errorOf(() => loadAuditPolicyFile('')), 'file path not specified');
      const missing = join(dir, 'missing.yaml');
      assert.equal(errorOf(() => loadAuditPolicyFile(missing)), `failed to read file path "${missing}": open ${missing}: no such file or directory`);
      const bad = join(dir, 'bad.yaml');
      writeFileSync(bad, 'apiVersion: audit.k8s.io/v1\nkind: Policy\n');
      assert.equal(errorOf(() => loadAuditPolicyFile(bad)), `loaded illegal policy with 0 rules: from file ${bad}`);
      const good = join(dir, 'good.yaml');
      writeFileSync(good, policyDefPattern.replace('{version}', 'v1'));
      assert.deepEqual(loadAuditPolicyFile(good).policy.rules, expectedRules);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('policy validation (upstream validation_test.go TestValidatePolicy)', () => {
  const validRules: PolicyRule[] = [
    { level: 'Metadata' }, // Defaulting rule
    { level: 'None', userGroups: ['system:serviceaccounts', 'system:nodes'] }, // Matching non-humans
    {
      // Specific request
      level: 'RequestResponse',
      verbs: ['get'],
      resources: [{ group: 'rbac.authorization.k8s.io', resources: ['roles', 'rolebindings'] }],
      namespaces: ['kube-system'],
    },
    { level: 'Metadata', userGroups: ['developers'], nonResourceURLs: ['/logs*', '/healthz*', '/metrics', '*'] }, // Some non-resource URLs
    { level: 'Metadata', omitStages: ['RequestReceived'] }, // Omit RequestReceived stage
  ];
  const successCases: AuditPolicy[] = [
    ...validRules.map((rule) => ({ rules: [rule] })),
    { rules: [] }, // Empty policy is valid.
    { omitStages: ['RequestReceived'], rules: [] }, // Policy with omitStages
    { rules: validRules }, // Multiple rules.
  ];
  successCases.forEach((policy, i) => {
    test(`valid [${i}]`, () => assert.deepEqual(validatePolicy(policy).map(fieldErrorString), []));
  });

  const ruleNamed = (rule: Record<string, unknown>): PolicyRule => rule as unknown as PolicyRule;
  // [description, policy, upstream's messages]
  const errorCases: [string, AuditPolicy, string[]][] = [
    ['Empty rule (missing Level)', { rules: [ruleNamed({})] }, ['rules[0].level: Required value']],
    [
      'Missing level',
      { rules: [ruleNamed({ verbs: ['get'], resources: [{ resources: ['secrets'] }], namespaces: ['kube-system'] })] },
      ['rules[0].level: Required value'],
    ],
    [
      'Invalid Level',
      { rules: [ruleNamed({ level: 'FooBar' })] },
      ['rules[0].level: Unsupported value: "FooBar": supported values: "None", "Metadata", "Request", "RequestResponse"'],
    ],
    [
      'NonResourceURLs + Namespaces',
      { rules: [{ level: 'Metadata', namespaces: ['default'], nonResourceURLs: ['/logs*'] }] },
      ['rules[0].nonResourceURLs: Invalid value: []string{"/logs*"}: rules cannot apply to both regular resources and non-resource URLs'],
    ],
    [
      'NonResourceURLs + ResourceKinds',
      { rules: [{ level: 'Metadata', resources: [{ resources: ['secrets'] }], nonResourceURLs: ['/logs*'] }] },
      ['rules[0].nonResourceURLs: Invalid value: []string{"/logs*"}: rules cannot apply to both regular resources and non-resource URLs'],
    ],
    [
      'invalid group name',
      { rules: [{ level: 'Metadata', resources: [{ group: 'rbac.authorization.k8s.io/v1beta1', resources: ['roles'] }] }] },
      [
        "rules[0].resources.group: Invalid value: \"rbac.authorization.k8s.io/v1beta1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
    ],
    [
      'invalid non-resource URLs',
      { rules: [{ level: 'Metadata', nonResourceURLs: ['logs', '/healthz*'] }] },
      ['rules[0].nonResourceURLs[0]: Invalid value: "logs": non-resource URL rules must begin with a \'/\' character'],
    ],
    [
      'empty non-resource URLs',
      { rules: [{ level: 'Metadata', nonResourceURLs: ['', '/healthz*'] }] },
      ['rules[0].nonResourceURLs[0]: Invalid value: "": non-resource URL rules must begin with a \'/\' character'],
    ],
    [
      'invalid non-resource URLs with multi "*"',
      { rules: [{ level: 'Metadata', nonResourceURLs: ['/logs/*/*', '/metrics'] }] },
      ['rules[0].nonResourceURLs[0]: Invalid value: "/logs/*/*": non-resource URL wildcards \'*\' must be the final character of the rule'],
    ],
    [
      'invalid non-resrouce URLs with "*" not in the end',
      { rules: [{ level: 'Metadata', nonResourceURLs: ['/logs/*.log', '/metrics'] }] },
      ['rules[0].nonResourceURLs[0]: Invalid value: "/logs/*.log": non-resource URL wildcards \'*\' must be the final character of the rule'],
    ],
    [
      'ResourceNames without Resources',
      { rules: [{ level: 'Metadata', verbs: ['get'], resources: [{ resourceNames: ['leader'] }], namespaces: ['kube-system'] }] },
      ['rules[0].resources.resourceNames: Invalid value: []string{"leader"}: using resourceNames requires at least one resource'],
    ],
    [
      'invalid omitStages in rule',
      { rules: [{ level: 'Metadata', omitStages: ['foo' as 'Panic'] }] },
      ['rules[0].omitStages[0]: Invalid value: "foo": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic'],
    ],
    ['Multiple rules', { rules: [...validRules, ruleNamed({})] }, ['rules[5].level: Required value']],
    [
      'invalid omitStages in policy',
      { omitStages: ['foo' as 'Panic'], rules: [{ level: 'Metadata' }] },
      ['omitStages[0]: Invalid value: "foo": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic'],
    ],
  ];
  for (const [name, policy, want] of errorCases) {
    test(`invalid: ${name}`, () => assert.deepEqual(validatePolicy(policy).map(fieldErrorString), want));
  }
});
