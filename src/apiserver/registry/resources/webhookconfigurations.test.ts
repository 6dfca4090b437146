/**
 * Webhook configurations: v1 defaulting (pkg/apis/admissionregistration/v1/defaults_test.go), the
 * validation cases of pkg/apis/admissionregistration/validation/validation_test.go
 * (TestValidateValidatingWebhookConfiguration, TestValidateMutatingWebhookConfiguration and the
 * …Update tests) with their full messages, generation, and the NAME WEBHOOKS AGE row.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../../api/index.js';
import { fieldErrorString, type FieldError } from '../../../machinery/errors/index.js';
import type { ApiObject } from './helpers.js';
import { parseGoURL } from './webhook-client.js';
import { mutatingWebhookConfigurationStrategy, validatingWebhookConfigurationStrategy, type Webhook } from './webhookconfigurations.js';

type Config = ApiObject<KubeObject> & { webhooks?: Webhook[] };

const msgs = (errs: FieldError[]): string[] => errs.map(fieldErrorString);
const validClientConfig = { url: 'https://example.com' };
const rule = (extra: Record<string, unknown> = {}) => ({ operations: ['CREATE'], apiGroups: ['a'], apiVersions: ['a'], resources: ['a'], ...extra });

/** A validating configuration of `hooks` (one when none), each completed with what the test does not vary, then defaulted. */
function validating(...hooks: Partial<Webhook>[]): Config {
  if (hooks.length === 0) hooks.push({});
  const c: Config = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'config' },
    webhooks: hooks.map((h) => ({ name: 'webhook.k8s.io', clientConfig: validClientConfig, sideEffects: 'None', admissionReviewVersions: ['v1beta1'], ...h })),
  };
  validatingWebhookConfigurationStrategy.defaults(c);
  return c;
}

const validate = (c: Config): string[] => msgs(validatingWebhookConfigurationStrategy.validate(c));

test('v1 defaults: Fail, Equivalent, empty selectors, 10s, scope *, port 443; Never for mutating; no sideEffects or review versions', () => {
  const c: Config = {
    webhooks: [{ name: 'a.b.c', clientConfig: { service: { namespace: 'ns', name: 'n' } }, rules: [{ operations: ['CREATE'] }] }],
  };
  mutatingWebhookConfigurationStrategy.defaults(c);
  assert.deepEqual(c.webhooks?.[0], {
    name: 'a.b.c',
    clientConfig: { service: { namespace: 'ns', name: 'n', port: 443 } },
    rules: [{ operations: ['CREATE'], scope: '*' }],
    failurePolicy: 'Fail',
    matchPolicy: 'Equivalent',
    namespaceSelector: {},
    objectSelector: {},
    timeoutSeconds: 10,
    reinvocationPolicy: 'Never',
  });
  const v: Config = { webhooks: [{ name: 'a.b.c', timeoutSeconds: 3, failurePolicy: 'Ignore' }] };
  validatingWebhookConfigurationStrategy.defaults(v);
  assert.equal(v.webhooks?.[0]?.reinvocationPolicy, undefined);
  assert.equal(v.webhooks?.[0]?.timeoutSeconds, 3);
  assert.equal(v.webhooks?.[0]?.failurePolicy, 'Ignore');
});

test('admission review versions and names (validation_test.go cases)', () => {
  assert.deepEqual(validate(validating()), []);
  assert.deepEqual(validate(validating({ admissionReviewVersions: [] })), ['webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1']);
  assert.deepEqual(validate(validating({ admissionReviewVersions: ['0v'] })), [
    `webhooks[0].admissionReviewVersions[0]: Invalid value: "0v": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
    'webhooks[0].admissionReviewVersions: Invalid value: []string{"0v"}: must include at least one of v1, v1beta1',
  ]);
  assert.deepEqual(validate(validating({ admissionReviewVersions: ['v1beta1', 'invalid-version'] })), []);
  assert.deepEqual(validate(validating({ admissionReviewVersions: ['invalidversion'] })), [
    'webhooks[0].admissionReviewVersions: Invalid value: []string{"invalidversion"}: must include at least one of v1, v1beta1',
  ]);
  assert.deepEqual(validate(validating({ admissionReviewVersions: ['v1beta1', 'v1beta1'] })), ['webhooks[0].admissionReviewVersions[1]: Invalid value: "v1beta1": duplicate version']);
  assert.deepEqual(validate(validating({}, { name: 'k8s.io' }, { name: '' })), [
    'webhooks[1].name: Invalid value: "k8s.io": should be a domain with at least three segments separated by dots',
    'webhooks[2].name: Required value',
  ]);
  assert.deepEqual(validate(validating({}, {})), ['webhooks[1].name: Duplicate value: "webhook.k8s.io"']);
});

test('rules: operations, groups, versions, resources and scope', () => {
  assert.deepEqual(validate(validating({ rules: [rule({ operations: [] }), rule({ operations: undefined })] })), [
    'webhooks[0].rules[0].operations: Required value',
    'webhooks[0].rules[1].operations: Required value',
  ]);
  assert.deepEqual(validate(validating({ rules: [rule({ operations: ['CREATE', ''] })] })), [
    'webhooks[0].rules[0].operations[1]: Unsupported value: "": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
  ]);
  assert.deepEqual(validate(validating({ rules: [rule({ operations: ['CREATE', '*'] })] })), [
    `webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{"CREATE", "*"}: if '*' is present, must not specify other operations`,
  ]);
  assert.deepEqual(validate(validating({ rules: [rule({ resources: ['*', 'a/b', 'a/*', '*/b'] })] })), []);
  assert.deepEqual(validate(validating({ rules: [rule({ resources: ['*', 'a'] })] })), [
    `webhooks[0].rules[0].resources: Invalid value: []string{"*", "a"}: if '*' is present, must not specify other resources without subresources`,
  ]);
  assert.deepEqual(validate(validating({ rules: [rule({ resources: ['a/*', 'a/x'] })] })), [
    `webhooks[0].rules[0].resources[1]: Invalid value: "a/x": if 'a/*' is present, must not specify a/x`,
  ]);
  assert.deepEqual(validate(validating({ rules: [rule({ resources: ['a/*', 'a'] })] })), []);
  assert.deepEqual(validate(validating({ rules: [rule({ resources: ['*/a', 'x/a'] })] })), [
    `webhooks[0].rules[0].resources[1]: Invalid value: "x/a": if '*/a' is present, must not specify x/a`,
  ]);
  assert.deepEqual(validate(validating({ rules: [rule({ resources: ['*/*', 'a'] })] })), [
    `webhooks[0].rules[0].resources: Invalid value: []string{"*/*", "a"}: if '*/*' is present, must not specify other resources`,
  ]);
  assert.deepEqual(validate(validating({ rules: [rule({ apiGroups: [], apiVersions: ['*', 'v1', ''], resources: [''], scope: 'Everywhere' })] })), [
    'webhooks[0].rules[0].apiGroups: Required value',
    `webhooks[0].rules[0].apiVersions: Invalid value: []string{"*", "v1", ""}: if '*' is present, must not specify other API versions`,
    'webhooks[0].rules[0].apiVersions[2]: Required value',
    'webhooks[0].rules[0].resources[0]: Required value',
    'webhooks[0].rules[0].scope: Unsupported value: "Everywhere": supported values: "*", "Cluster", "Namespaced"',
  ]);
});

test('policies, side effects, timeout, selectors', () => {
  assert.deepEqual(validate(validating({ failurePolicy: 'other' })), ['webhooks[0].failurePolicy: Unsupported value: "other": supported values: "Fail", "Ignore"']);
  assert.deepEqual(validate(validating({ matchPolicy: 'other' })), ['webhooks[0].matchPolicy: Unsupported value: "other": supported values: "Equivalent", "Exact"']);
  const noSideEffects = validating();
  delete noSideEffects.webhooks?.[0]?.sideEffects;
  assert.deepEqual(validate(noSideEffects), ['webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun']);
  assert.deepEqual(validate(validating({ sideEffects: 'other' })), ['webhooks[0].sideEffects: Unsupported value: "other": supported values: "None", "NoneOnDryRun"']);
  assert.deepEqual(validate(validating({ timeoutSeconds: 31 })), ['webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds']);
  assert.deepEqual(validate(validating({ timeoutSeconds: 0 })), ['webhooks[0].timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds']);
  assert.deepEqual(validate(validating({ timeoutSeconds: 30 })), []);
  assert.deepEqual(validate(validating({ namespaceSelector: { matchExpressions: [{ key: 'a', operator: 'In' }] } })), [
    "webhooks[0].namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
  ]);
  const m: Config = { webhooks: [{ name: 'webhook.k8s.io', clientConfig: validClientConfig, sideEffects: 'None', admissionReviewVersions: ['v1'], reinvocationPolicy: 'Always' }] };
  mutatingWebhookConfigurationStrategy.defaults(m);
  assert.deepEqual(msgs(mutatingWebhookConfigurationStrategy.validate(m)), [
    'webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"',
  ]);
});

test('clientConfig: exactly one of url and service; url and service checks', () => {
  assert.deepEqual(validate(validating({ clientConfig: {} })), ['webhooks[0].clientConfig: Required value: exactly one of url or service is required']);
  assert.deepEqual(validate(validating({ clientConfig: { url: 'example.com/k8s/webhook', service: { namespace: 'ns', name: 'n' } } })), [
    'webhooks[0].clientConfig: Required value: exactly one of url or service is required',
  ]);
  const url = (u: string): string[] => validate(validating({ clientConfig: { url: u } }));
  assert.deepEqual(url(''), [
    `webhooks[0].clientConfig.url: Invalid value: "": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
    'webhooks[0].clientConfig.url: Invalid value: "": host must be specified; desired format: https://host[/path]',
  ]);
  assert.deepEqual(url('http://example.com'), [`webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`]);
  assert.deepEqual(url('https:///fancy/webhook'), ['webhooks[0].clientConfig.url: Invalid value: "": host must be specified; desired format: https://host[/path]']);
  assert.deepEqual(url('https://example.com/#bookmark'), ['webhooks[0].clientConfig.url: Invalid value: "bookmark": fragments are not permitted in the URL']);
  assert.deepEqual(url('https://example.com?arg=value'), ['webhooks[0].clientConfig.url: Invalid value: "arg=value": query parameters are not permitted in the URL']);
  assert.deepEqual(url('https://harry.potter@example.com/'), ['webhooks[0].clientConfig.url: Invalid value: "harry.potter": user information is not permitted in the URL']);
  assert.ok(url('arg#backwards=thisis?html.index/port:host//:https').includes('webhooks[0].clientConfig.url: Invalid value: "": host must be specified; desired format: https://host[/path]'));
  assert.deepEqual(url('://example.com'), [
    'webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse "://example.com": missing protocol scheme; desired format: https://host[/path]',
  ]);
  const svc = (path: string | undefined, port = 443): string[] => validate(validating({ clientConfig: { service: { namespace: 'ns', name: 'n', port, ...(path === undefined ? {} : { path }) } } }));
  assert.deepEqual(svc('foo/'), [`webhooks[0].clientConfig.service.path: Invalid value: "foo/": must start with a '/'`]);
  assert.deepEqual(svc('/'), []);
  assert.deepEqual(svc('/foo'), []);
  assert.deepEqual(svc('//'), ['webhooks[0].clientConfig.service.path: Invalid value: "//": segment[0] may not be empty']);
  assert.deepEqual(svc('/foo//bar/'), ['webhooks[0].clientConfig.service.path: Invalid value: "/foo//bar/": segment[1] may not be empty']);
  assert.deepEqual(svc('/apis/foo.bar/v1alpha1/--bad'), [
    `webhooks[0].clientConfig.service.path: Invalid value: "/apis/foo.bar/v1alpha1/--bad": segment[3]: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
  ]);
  assert.deepEqual(svc(undefined, 65536), ['webhooks[0].clientConfig.service.port: Invalid value: 65536: port is not valid: must be between 1 and 65535, inclusive']);
  assert.deepEqual(validate(validating({ clientConfig: { service: { namespace: '', name: '' } } })), [
    'webhooks[0].clientConfig.service.name: Required value: service name is required',
    'webhooks[0].clientConfig.service.namespace: Required value: service namespace is required',
  ]);
});

test("Go's url.Parse as ValidateWebhookURL sees it", () => {
  assert.deepEqual(parseGoURL('HTTPS://u:p@h:8443/p?q=1#f'), { scheme: 'https', host: 'h:8443', user: 'u:p', rawQuery: 'q=1', fragment: 'f' });
  assert.equal(parseGoURL('https://h:x/'), 'parse "https://h:x/": invalid port ":x" after host');
  assert.deepEqual(parseGoURL('mailto:a@b'), { scheme: 'mailto', host: '', user: undefined, rawQuery: '', fragment: '' }, 'an opaque URL has no host');
  assert.equal(parseGoURL('1a:b'), 'parse "1a:b": first path segment in URL cannot contain colon');
  assert.equal(parseGoURL('https://h/%zz'), 'parse "https://h/%zz": invalid URL escape "%zz"');
});

test('match conditions: at most 64, named, with an expression; unchanged ones are not checked on update', () => {
  assert.deepEqual(validate(validating({ matchConditions: [{ name: 'a', expression: ' ' }, { name: '', expression: 'true' }, { name: 'a', expression: 'true' }, { name: '-x', expression: 'true' }] })), [
    'webhooks[0].matchConditions[0].expression: Required value',
    'webhooks[0].matchConditions[1].name: Required value',
    'webhooks[0].matchConditions[2].name: Duplicate value: "a"',
    `webhooks[0].matchConditions[3].name: Invalid value: "-x": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
  ]);
  const many = Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' }));
  assert.deepEqual(validate(validating({ matchConditions: many })), ['webhooks[0].matchConditions: Too many: 65: must have at most 64 items']);
  const old = validating({ matchConditions: [{ name: 'a', expression: ' ' }] });
  assert.deepEqual(msgs(validatingWebhookConfigurationStrategy.validateUpdate(structuredClone(old), old)), []);
});

test('update keeps what the stored object already broke: side effects, review versions, duplicate names', () => {
  const old = validating({ sideEffects: 'Unknown', admissionReviewVersions: ['v2'] }, { sideEffects: 'Some', admissionReviewVersions: ['v2'] });
  const updated = structuredClone(old);
  updated.webhooks![0]!.timeoutSeconds = 5;
  assert.deepEqual(msgs(validatingWebhookConfigurationStrategy.validateUpdate(updated, old)), []);
  assert.deepEqual(validate(updated), [
    'webhooks[0].sideEffects: Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"',
    'webhooks[0].admissionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1',
    'webhooks[1].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
    'webhooks[1].admissionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1',
    'webhooks[1].name: Duplicate value: "webhook.k8s.io"',
  ]);
  const clean = validating();
  const broken = structuredClone(clean);
  broken.webhooks![0]!.sideEffects = 'Some';
  assert.deepEqual(msgs(validatingWebhookConfigurationStrategy.validateUpdate(broken, clean)), [
    'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
  ]);
});

test('generation counts webhook changes; the row is NAME WEBHOOKS AGE', () => {
  const old = validating();
  validatingWebhookConfigurationStrategy.prepareForCreate(old, 0);
  assert.equal(old.metadata?.generation, 1);
  const same = structuredClone(old);
  validatingWebhookConfigurationStrategy.prepareForUpdate(same, old);
  assert.equal(same.metadata?.generation, 1);
  const changed = structuredClone(old);
  changed.webhooks![0]!.timeoutSeconds = 3;
  validatingWebhookConfigurationStrategy.prepareForUpdate(changed, old);
  assert.equal(changed.metadata?.generation, 2);
  assert.equal(validatingWebhookConfigurationStrategy.allowUnconditionalUpdate, false);
  const c = validating({}, { name: 'other.k8s.io' });
  c.metadata = { name: 'config', creationTimestamp: '2025-01-01T00:00:00Z' };
  assert.deepEqual(validatingWebhookConfigurationStrategy.table.row(c, Date.parse('2025-01-01T00:00:42Z')).cells, ['config', 2, '42s']);
  assert.deepEqual(mutatingWebhookConfigurationStrategy.table.columns.map((col) => `${col.name}:${col.type}`), ['Name:string', 'Webhooks:integer', 'Age:string']);
});
