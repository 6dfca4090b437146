/**
 * ValidatingAdmissionPolicies and their bindings: v1 defaulting, the validation cases of
 * pkg/apis/admissionregistration/validation/validation_test.go (TestValidateValidatingAdmissionPolicy,
 * TestValidateValidatingAdmissionPolicyBinding, …StatusUpdate) with their full messages, status
 * reset and generation (strategy.go), and the printers' rows.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorString, type FieldError } from '../../../machinery/errors/index.js';
import {
  goLabelSelectorString,
  validatingAdmissionPolicyBindingStrategy as bindings,
  validatingAdmissionPolicyStrategy as policies,
} from './validatingadmissionpolicies.js';

type Policy = Parameters<typeof policies.validate>[0];
type Binding = Parameters<typeof bindings.validate>[0];

const msgs = (errs: FieldError[]): string[] => errs.map(fieldErrorString);
const resourceRule = { operations: ['CREATE'], apiGroups: ['a'], apiVersions: ['a'], resources: ['a'] };

/** A defaulted policy named `config` with one resource rule and one validation, `spec` merged in. */
function policy(spec: Record<string, unknown> = {}): Policy {
  const p: Policy = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'config' },
    spec: { matchConstraints: { resourceRules: [resourceRule] }, validations: [{ expression: 'object.x < 100' }], ...spec },
  };
  policies.defaults(p);
  return p;
}

function binding(spec: Record<string, unknown> = {}): Binding {
  const b: Binding = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: 'config' },
    spec: { policyName: 'xyzlimit-scale.example.com', validationActions: ['Deny'], ...spec },
  };
  bindings.defaults(b);
  return b;
}

test('policy defaults: failurePolicy Fail; match constraints Equivalent, empty selectors, rule scope *', () => {
  const p = policy();
  assert.equal(p.spec?.failurePolicy, 'Fail');
  assert.deepEqual(p.spec?.matchConstraints, {
    resourceRules: [{ ...resourceRule, scope: '*' }],
    matchPolicy: 'Equivalent',
    namespaceSelector: {},
    objectSelector: {},
  });
  const b = binding({ matchResources: { excludeResourceRules: [resourceRule] } });
  assert.deepEqual(b.spec?.matchResources, { excludeResourceRules: [{ ...resourceRule, scope: '*' }], matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} });
  assert.equal(b.spec?.paramRef, undefined, 'v1 has no paramRef default');
});

test('policy: validations or audit annotations, match constraints with resource rules, failure policy', () => {
  assert.deepEqual(msgs(policies.validate(policy())), []);
  assert.deepEqual(msgs(policies.validate(policy({ validations: [] }))), [
    'spec.validations: Required value: validations or auditAnnotations must contain at least one item',
    'spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item',
  ]);
  assert.deepEqual(msgs(policies.validate(policy({ matchConstraints: undefined }))), ['spec.matchConstraints: Required value']);
  assert.deepEqual(msgs(policies.validate(policy({ matchConstraints: {} }))), ['spec.matchConstraints.resourceRules: Required value']);
  assert.deepEqual(msgs(policies.validate(policy({ failurePolicy: 'other' }))), ['spec.failurePolicy: Unsupported value: "other": supported values: "Fail", "Ignore"']);
  assert.deepEqual(msgs(policies.validate(policy({ matchConstraints: { resourceRules: [{ ...resourceRule, resourceNames: ['/./.', 'x', 'x'] }], matchPolicy: 'other' } }))), [
    'spec.matchConstraints.matchPolicy: Unsupported value: "other": supported values: "Equivalent", "Exact"',
    `spec.matchConstraints.resourceRules[0].resourceNames[0]: Invalid value: "/./.": may not contain '/'`,
    'spec.matchConstraints.resourceRules[0].resourceNames[2]: Duplicate value: "x"',
  ]);
});

test('policy: each validation, variable and audit annotation', () => {
  assert.deepEqual(
    msgs(policies.validate(policy({ validations: [{ expression: '  ', message: '  ', messageExpression: ' ', reason: 'Other' }, { expression: 'true', message: 'a\nb' }] }))),
    [
      'spec.validations[0].expression: Required value: expression is not specified',
      'spec.validations[0].messageExpression: Invalid value: " ": must be non-empty if specified',
      'spec.validations[0].message: Invalid value: "  ": message must be non-empty if specified',
      'spec.validations[0].reason: Unsupported value: "Other": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"',
      'spec.validations[1].message: Invalid value: "a\\nb": message must not contain line breaks',
    ],
  );
  assert.deepEqual(msgs(policies.validate(policy({ variables: [{ name: 'in', expression: 'true' }, { name: ' ', expression: '' }] }))), [
    'spec.variables[0].name: Invalid value: "in": name is not a valid CEL identifier',
    'spec.variables[1].name: Required value: name is not specified',
    'spec.variables[1].expression: Required value: expression is not specified',
  ]);
  assert.deepEqual(
    msgs(policies.validate(policy({ auditAnnotations: [{ key: '@', valueExpression: 'value' }, { key: 'a', valueExpression: '' }, { key: 'a', valueExpression: 'x' }] }))),
    [
      `spec.auditAnnotations[0].key: Invalid value: "config/@": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      'spec.auditAnnotations[1].valueExpression: Required value: valueExpression is not specified',
      'spec.auditAnnotations[2].key: Duplicate value: "a"',
    ],
  );
  const tooMany = Array.from({ length: 21 }, (_, i) => ({ key: `k${i}`, valueExpression: 'v' }));
  assert.match(msgs(policies.validate(policy({ auditAnnotations: tooMany })))[0] ?? '', /^spec\.auditAnnotations: Invalid value: \[\]admissionregistration\.AuditAnnotation\{admissionregistration\.AuditAnnotation\{Key:"k0", ValueExpression:"v"\}, .*\}: must not have more than 20 auditAnnotations$/);
  assert.deepEqual(msgs(policies.validate(policy({ matchConditions: [{ name: 'a', expression: '' }] }))), ['spec.matchConditions[0].expression: Required value']);
});

test('policy: paramKind', () => {
  const kind = (apiVersion: string, k: string): string[] => msgs(policies.validate(policy({ paramKind: { apiVersion, kind: k } })));
  assert.deepEqual(kind('example.com/v1', 'ReplicaLimit'), []);
  assert.deepEqual(kind('', ''), ['spec.paramKind.apiVersion: Required value', 'spec.paramKind.kind: Required value']);
  assert.deepEqual(kind('a/b/c', 'K'), ['spec.paramKind.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c']);
  assert.deepEqual(kind('example.com/', 'K'), ['spec.paramKind.apiVersion: Invalid value: "example.com/": version must be specified']);
  assert.deepEqual(kind('Example.com/V1', 'Bad_Kind'), [
    `spec.paramKind.apiVersion: Invalid value: "Example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    `spec.paramKind.apiVersion: Invalid value: "V1": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
    `spec.paramKind.kind: Invalid value: "Bad_Kind": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
  ]);
});

test('binding: policyName, paramRef, validationActions; match resources under upstream\'s "matchResouces"', () => {
  assert.deepEqual(msgs(bindings.validate(binding())), []);
  assert.deepEqual(msgs(bindings.validate(binding({ policyName: '' }))), ['spec.policyName: Required value']);
  assert.deepEqual(msgs(bindings.validate(binding({ validationActions: [] }))), ['spec.validationActions: Required value: at least one validation action is required']);
  assert.deepEqual(msgs(bindings.validate(binding({ validationActions: ['Deny', 'Warn', 'Deny', 'Block'] }))), [
    'spec.validationActions[2]: Duplicate value: "Deny"',
    'spec.validationActions[3]: Unsupported value: "Block": supported values: "Audit", "Deny", "Warn"',
    'spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn", "Deny", "Block"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
  ]);
  assert.deepEqual(msgs(bindings.validate(binding({ paramRef: { name: 'p', selector: {}, parameterNotFoundAction: 'Deny' } }))), [
    'spec.paramRef.name: Forbidden: name and selector are mutually exclusive',
    'spec.paramRef.selector: Forbidden: name and selector are mutually exclusive',
  ]);
  assert.deepEqual(msgs(bindings.validate(binding({ paramRef: {} }))), [
    'spec.paramRef: Required value: one of name or selector must be specified',
    'spec.paramRef.parameterNotFoundAction: Required value',
  ]);
  assert.deepEqual(msgs(bindings.validate(binding({ paramRef: { name: 'a/b', parameterNotFoundAction: 'Ignore' } }))), [
    `spec.paramRef.name: Invalid value: "a/b": may not contain '/'`,
    'spec.paramRef.parameterNotFoundAction: Unsupported value: "Ignore": supported values: "Deny", "Allow"',
  ]);
  assert.deepEqual(msgs(bindings.validate(binding({ matchResources: { resourceRules: [{ ...resourceRule, operations: [] }] } }))), [
    'spec.matchResouces.resourceRules[0].operations: Required value',
  ]);
});

test('status: reset on create, kept on update, the only thing a status update changes', () => {
  const p = policy();
  p.status = { observedGeneration: 7 };
  policies.prepareForCreate(p, 0);
  assert.deepEqual(p.status, {});
  assert.equal(p.metadata?.generation, 1);
  const old = structuredClone(p);
  old.status = { observedGeneration: 1 };
  const upd = structuredClone(old);
  upd.status = {};
  upd.spec!.failurePolicy = 'Ignore';
  policies.prepareForUpdate(upd, old);
  assert.deepEqual(upd.status, { observedGeneration: 1 });
  assert.equal(upd.metadata?.generation, 2);
  const statusUpd = structuredClone(old);
  statusUpd.spec!.failurePolicy = 'Ignore';
  statusUpd.metadata!.labels = { a: 'b' };
  statusUpd.status = { observedGeneration: 2, typeChecking: { expressionWarnings: [{ fieldRef: ' ', warning: '' }] } };
  policies.prepareForStatusUpdate?.(statusUpd, old);
  assert.equal(statusUpd.spec?.failurePolicy, 'Fail');
  assert.equal(statusUpd.metadata?.labels, undefined);
  assert.deepEqual(msgs(policies.validateStatusUpdate?.(statusUpd, old) ?? []), [
    'status.typeChecking.expressionWarnings[0].warning: Required value',
    'status.typeChecking.expressionWarnings[0].fieldRef: Required value',
  ]);
  assert.equal(policies.allowUnconditionalUpdate, false);
  assert.equal(bindings.allowUnconditionalUpdate, false);
});

test('rows: NAME VALIDATIONS PARAMKIND AGE and NAME POLICYNAME PARAMREF AGE', () => {
  const now = Date.parse('2025-01-01T00:05:00Z');
  const p = policy({ paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } });
  p.metadata = { name: 'limit', creationTimestamp: '2025-01-01T00:00:00Z' };
  assert.deepEqual(policies.table.row(p, now).cells, ['limit', 1, 'v1/ConfigMap', '5m']);
  assert.deepEqual(policies.table.row(policy(), now).cells, ['config', 1, '<unset>', '<unknown>']);
  const row = (paramRef?: Record<string, unknown>): unknown => bindings.table.row(binding(paramRef ? { paramRef } : {}), now).cells[2];
  assert.equal(row(), '<unset>');
  assert.equal(row({ name: 'p', namespace: 'ns' }), 'ns/p');
  assert.equal(row({ name: 'p' }), '*/p');
  assert.equal(
    row({ selector: { matchLabels: { b: '2', a: '1' }, matchExpressions: [{ key: 'k', operator: 'In', values: ['x', 'y'] }] } }),
    '&LabelSelector{MatchLabels:map[string]string{a: 1,b: 2,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:k,Operator:In,Values:[x y],},},}',
  );
  assert.equal(goLabelSelectorString({}), '&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{},}');
  assert.deepEqual(bindings.table.columns.map((c) => c.name), ['Name', 'PolicyName', 'ParamRef', 'Age']);
  assert.deepEqual(policies.table.columns.map((c) => `${c.name}:${c.type}`), ['Name:string', 'Validations:integer', 'ParamKind:string', 'Age:string']);
});
