/**
 * FlowSchemas and PriorityLevelConfigurations: v1 defaulting (pkg/apis/flowcontrol/v1/defaults_test.go),
 * the cases of pkg/apis/flowcontrol/validation/validation_test.go (TestFlowSchemaValidation,
 * TestPriorityLevelConfigurationValidation, TestValidateLimitedPriorityLevelConfiguration…,
 * TestValidateNonResourceURLPath, the status tests) with their messages, the printers (rows sorted as
 * printFlowSchemaList sorts them), and the bootstrap objects on a real server.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FlowSchema, PriorityLevelConfiguration } from '../../../api/index.js';
import { newClientset } from '../../../client/index.js';
import { fieldErrorString, type FieldError } from '../../../machinery/errors/index.js';
import { newFakeServer } from '../../../testing/index.js';
import { FakeClock } from '../../../util/clock/index.js';
import {
  AUTO_UPDATE_ANNOTATION_KEY,
  MANDATORY_FLOW_SCHEMAS,
  MANDATORY_PRIORITY_LEVEL_CONFIGURATIONS,
  SUGGESTED_FLOW_SCHEMAS,
  SUGGESTED_PRIORITY_LEVEL_CONFIGURATIONS,
} from './flowcontrol-bootstrap.js';
import { shouldUpdateSpec } from './flowcontrol-ensurer.js';
import { flowSchemaStrategy as schemas, validateNonResourceURLPath } from './flowschemas.js';
import { priorityLevelConfigurationStrategy as levels } from './prioritylevelconfigurations.js';

type Schema = Parameters<typeof schemas.validate>[0];
type Level = Parameters<typeof levels.validate>[0];

const msgs = (errs: FieldError[]): string[] => errs.map(fieldErrorString);
const T0 = Date.UTC(2025, 0, 1);

function schema(name: string, spec: Record<string, unknown>): Schema {
  const fs: Schema = { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name }, spec };
  schemas.defaults(fs);
  return fs;
}

/** `system-foo` at precedence 50 for `system-bar`, with `rule` (the shape of most upstream cases). */
const fooSchema = (rule: Record<string, unknown>): Schema => schema('system-foo', { matchingPrecedence: 50, priorityLevelConfiguration: { name: 'system-bar' }, rules: [rule] });
const noxu = [{ kind: 'User', user: { name: 'noxu' } }];
const everything = { verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] };

function level(name: string, spec: Record<string, unknown>): Level {
  const pl: Level = { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name }, spec };
  levels.defaults(pl);
  return pl;
}

const limited = (limitedSpec: Record<string, unknown>): Level => level('system-foo', { type: 'Limited', limited: limitedSpec });

test('defaults: matchingPrecedence 1000; shares 30, lendable 0, queuing 64/8/50; exempt 0/0', () => {
  assert.equal(schema('a', {}).spec?.matchingPrecedence, 1000);
  assert.equal(schema('a', { matchingPrecedence: 0 }).spec?.matchingPrecedence, 1000);
  assert.equal(schema('a', { matchingPrecedence: 7 }).spec?.matchingPrecedence, 7);
  assert.deepEqual(limited({ limitResponse: { type: 'Queue', queuing: {} } }).spec?.limited, {
    nominalConcurrencyShares: 30,
    lendablePercent: 0,
    limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } },
  });
  assert.equal(limited({ nominalConcurrencyShares: 0, limitResponse: { type: 'Reject' } }).spec?.limited?.nominalConcurrencyShares, 0, 'v1 keeps an explicit 0');
  assert.deepEqual(level('exempt', { type: 'Exempt', exempt: {} }).spec?.exempt, { nominalConcurrencyShares: 0, lendablePercent: 0 });
  for (const obj of [...MANDATORY_PRIORITY_LEVEL_CONFIGURATIONS, ...SUGGESTED_PRIORITY_LEVEL_CONFIGURATIONS]) {
    const copy = structuredClone(obj) as Level;
    levels.defaults(copy);
    assert.deepEqual(copy, obj, `defaulting leaves ${obj.metadata?.name} unchanged`);
    assert.deepEqual(msgs(levels.validate(copy)), []);
  }
  for (const obj of [...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS]) {
    const copy = structuredClone(obj) as Schema;
    schemas.defaults(copy);
    assert.deepEqual(copy, obj, `defaulting leaves ${obj.metadata?.name} unchanged`);
    assert.deepEqual(msgs(schemas.validate(copy)), []);
  }
});

test('flow schema rules and subjects (TestFlowSchemaValidation)', () => {
  assert.deepEqual(msgs(schemas.validate(fooSchema({ subjects: noxu }))), ['spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty']);
  assert.deepEqual(msgs(schemas.validate(fooSchema({ subjects: [{ kind: 'Group', group: { name: 'noxu' } }], resourceRules: [everything] }))), []);
  const star = { nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] };
  assert.deepEqual(msgs(schemas.validate(fooSchema({ subjects: [{ kind: 'ServiceAccount', user: { name: 'fred' }, group: { name: 'fred' } }], ...star }))), [
    "spec.rules[0].subjects[0].serviceAccount: Required value: serviceAccount is required when subject kind is 'ServiceAccount'",
    "spec.rules[0].subjects[0].user: Forbidden: user is forbidden when subject kind is not 'User'",
    "spec.rules[0].subjects[0].group: Forbidden: group is forbidden when subject kind is not 'Group'",
  ]);
  assert.deepEqual(msgs(schemas.validate(fooSchema({ subjects: [{ kind: 'User', group: { name: 'fred' }, serviceAccount: { namespace: 's', name: 'n' } }], ...star }))), [
    "spec.rules[0].subjects[0].serviceAccount: Forbidden: serviceAccount is forbidden when subject kind is not 'ServiceAccount'",
    "spec.rules[0].subjects[0].user: Required value: user is required when subject kind is 'User'",
    "spec.rules[0].subjects[0].group: Forbidden: group is forbidden when subject kind is not 'Group'",
  ]);
  assert.deepEqual(msgs(schemas.validate(fooSchema({ subjects: [{ kind: 'Robot' }, { kind: 'ServiceAccount', serviceAccount: { namespace: '', name: 'A' } }], ...star }))), [
    'spec.rules[0].subjects[0].kind: Unsupported value: "Robot": supported values: "Group", "ServiceAccount", "User"',
    `spec.rules[0].subjects[1].serviceAccount.name: Invalid value: "A": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    'spec.rules[0].subjects[1].serviceAccount.namespace: Required value: must specify namespace for service account',
  ]);
  assert.deepEqual(msgs(schemas.validate(fooSchema({ subjects: noxu, resourceRules: [{ verbs: ['*', 'create'], apiGroups: ['*', 'tak'], resources: ['*', 'tok'], namespaces: ['*'] }] }))), [
    `spec.rules[0].resourceRules[0].verbs: Invalid value: []string{"*", "create"}: if '*' is present, must not specify other verbs`,
    `spec.rules[0].resourceRules[0].apiGroups: Invalid value: []string{"*", "tak"}: if '*' is present, must not specify other api groups`,
    `spec.rules[0].resourceRules[0].resources: Invalid value: []string{"*", "tok"}: if '*' is present, must not specify other resources`,
  ]);
  assert.deepEqual(msgs(schemas.validate(fooSchema({ subjects: noxu, resourceRules: [{ verbs: ['feed'], apiGroups: [], resources: [], namespaces: ['a', 'B'] }] }))), [
    'spec.rules[0].resourceRules[0].verbs: Unsupported value: []string{"feed"}: supported values: "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"',
    'spec.rules[0].resourceRules[0].apiGroups: Required value: resource rules must supply at least one api group',
    'spec.rules[0].resourceRules[0].resources: Required value: resource rules must supply at least one resource',
    `spec.rules[0].resourceRules[0].namespaces[1]: Invalid value: "B": each member of this list must be '*' or a DNS-1123 label; a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
  ]);
  assert.deepEqual(msgs(schemas.validate(fooSchema({ subjects: noxu, resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }))), [
    'spec.rules[0].resourceRules[0].namespaces: Required value: resource rules that are not cluster scoped must supply at least one namespace',
  ]);
  assert.deepEqual(msgs(schemas.validate(fooSchema({ subjects: noxu, nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['/healthz', '*'] }] }))), [
    `spec.rules[0].nonResourceRules[0].nonResourceURLs: Invalid value: []string{"/healthz", "*"}: if '*' is present, must not specify other non-resource URLs`,
  ]);
  assert.deepEqual(msgs(schemas.validate(fooSchema({ subjects: [], nonResourceRules: [{ verbs: [], nonResourceURLs: ['/a/*/b'] }] }))), [
    'spec.rules[0].subjects: Required value: subjects must contain at least one value',
    'spec.rules[0].nonResourceRules[0].verbs: Required value: verbs must contain at least one value',
    'spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "/a/*/b": wildcard can only do suffix matching',
  ]);
});

test('flow schema spec: precedence, distinguisher, priority level, the mandatory fixed specs', () => {
  const rules = [{ subjects: [{ kind: 'Group', group: { name: 'gorp' } }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }];
  assert.deepEqual(msgs(schemas.validate(schema('fred', { matchingPrecedence: 1, priorityLevelConfiguration: { name: 'exempt' }, rules }))), [
    "spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1",
  ]);
  assert.deepEqual(
    msgs(schemas.validate(schema('fred', { matchingPrecedence: 10001, priorityLevelConfiguration: { name: '' }, distinguisherMethod: { type: 'ByFoo' }, rules }))),
    [
      'spec.matchingPrecedence: Invalid value: 10001: must not be greater than 10000',
      'spec.distinguisherMethod.type: Unsupported value: flowcontrol.FlowDistinguisherMethod{Type:"ByFoo"}: supported values: "ByNamespace", "ByUser"',
      'spec.priorityLevelConfiguration.name: Required value: must reference a priority level',
    ],
  );
  assert.deepEqual(msgs(schemas.validate(schema('fred', { matchingPrecedence: -1, priorityLevelConfiguration: { name: 'x' }, rules }))), [
    'spec.matchingPrecedence: Invalid value: -1: must be a positive value',
  ]);
  const badExempt = schema('exempt', { matchingPrecedence: 1, priorityLevelConfiguration: { name: 'exempt' }, rules });
  assert.deepEqual(msgs(schemas.validate(badExempt)).map((m) => m.replace(/Invalid value: .*: spec/, 'Invalid value: …: spec')), [
    "spec: Invalid value: …: spec of 'exempt' must equal the fixed value",
  ]);
  assert.deepEqual(msgs(schemas.validate(structuredClone(MANDATORY_FLOW_SCHEMAS[1]) as Schema)), []);
  assert.equal(validateNonResourceURLPath('/healthz/*', 'p'), undefined);
  for (const bad of ['', 'foo', '//', '/////', '/healthz/*/foo', '/healthz/foo bar', '/health*', '/health*/foo', '/*/*']) {
    assert.ok(validateNonResourceURLPath(bad, 'p'), bad);
  }
});

test('priority levels (TestPriorityLevelConfigurationValidation)', () => {
  assert.deepEqual(msgs(levels.validate(level('exempt', { type: 'Limited', exempt: {}, limited: { nominalConcurrencyShares: 42, limitResponse: { type: 'Reject' } } }))), [
    `spec.type: Invalid value: "Limited": type must be 'Exempt' if and only if name is 'exempt'`,
    'spec.exempt: Forbidden: must be nil if the type is Limited',
    "spec: Invalid value: {\"type\":\"Limited\",\"exempt\":{\"nominalConcurrencyShares\":0,\"lendablePercent\":0},\"limited\":{\"nominalConcurrencyShares\":42,\"limitResponse\":{\"type\":\"Reject\"},\"lendablePercent\":0}}: spec of 'exempt' except the 'spec.exempt' field must equal the fixed value",
  ]);
  assert.deepEqual(msgs(levels.validate(level('exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: 10, lendablePercent: 20 } }))), [], "the operator may change exempt's spec.exempt");
  assert.deepEqual(msgs(levels.validate(level('exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: -1, lendablePercent: 101 } }))), [
    'spec.exempt.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer',
    'spec.exempt.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive',
  ]);
  assert.deepEqual(msgs(levels.validate(level('broken-limited', { type: 'Limited', exempt: {} }))), [
    'spec.exempt: Forbidden: must be nil if the type is Limited',
    'spec.limited: Required value: must not be empty when type is Limited',
  ]);
  assert.deepEqual(msgs(levels.validate(level('max-in-flight', { type: 'Limited', limited: { nominalConcurrencyShares: 42, limitResponse: { type: 'Reject' } } }))), []);
  assert.deepEqual(msgs(levels.validate(limited({ nominalConcurrencyShares: 100, limitResponse: { type: 'Reject', queuing: { queues: 512, handSize: 4, queueLengthLimit: 100 } } }))), [
    'spec.limited.limitResponse.queuing: Forbidden: must be nil if limited.limitResponse.type is not Limited',
  ]);
  assert.match(msgs(levels.validate(level('catch-all', { type: 'Limited', limited: { nominalConcurrencyShares: 6, limitResponse: { type: 'Reject' } } })))[0] ?? '', /^spec: Invalid value: .*: spec of 'catch-all' must equal the fixed value$/);
  assert.deepEqual(msgs(levels.validate(limited({ limitResponse: { type: 'Queue' } }))), [
    'spec.limited.limitResponse.queuing: Required value: must not be empty if limited.limitResponse.type is Limited',
  ]);
  const queuing = (queues: number, handSize: number): string[] => msgs(levels.validate(limited({ limitResponse: { type: 'Queue', queuing: { queueLengthLimit: 100, queues, handSize } } })));
  assert.deepEqual(queuing(512, 4), []);
  assert.deepEqual(queuing(512, 8), ['spec.limited.limitResponse.queuing.handSize: Invalid value: 8: required entropy bits of deckSize 512 and handSize 8 should not be greater than 60']);
  assert.deepEqual(queuing(128, 10), ['spec.limited.limitResponse.queuing.handSize: Invalid value: 10: required entropy bits of deckSize 128 and handSize 10 should not be greater than 60']);
  assert.deepEqual(queuing(2147483647, 3), [
    'spec.limited.limitResponse.queuing.queues: Invalid value: 2147483647: must not be greater than 10000000',
    'spec.limited.limitResponse.queuing.handSize: Invalid value: 3: required entropy bits of deckSize 2147483647 and handSize 3 should not be greater than 60',
  ]);
  assert.deepEqual(queuing(10_000_000, 2), []);
  assert.deepEqual(queuing(7, 8), ['spec.limited.limitResponse.queuing.handSize: Invalid value: 8: should not be greater than queues (7)']);
  assert.deepEqual(msgs(levels.validate(level('system-foo', { type: 'Whatever' }))), ['spec.type: Unsupported value: "Whatever": supported values: "Exempt", "Limited"']);
  const annotated = limited({ nominalConcurrencyShares: 42, limitResponse: { type: 'Reject' } });
  annotated.metadata!.annotations = { 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares': '' };
  assert.deepEqual(msgs(levels.validate(annotated)), ["metadata.annotations: Forbidden: annotation 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares' is forbidden"]);
});

test('limited shares, lendable and borrowing percents (v1, zero shares allowed)', () => {
  const lim = (extra: Record<string, unknown>): string[] => msgs(levels.validate(limited({ limitResponse: { type: 'Reject' }, ...extra })));
  assert.deepEqual(lim({ nominalConcurrencyShares: 0 }), []);
  assert.deepEqual(lim({ nominalConcurrencyShares: -1 }), ['spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer']);
  assert.deepEqual(lim({ lendablePercent: 101 }), ['spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive']);
  assert.deepEqual(lim({ lendablePercent: -1 }), ['spec.limited.lendablePercent: Invalid value: -1: must be between 0 and 100, inclusive']);
  assert.deepEqual(lim({ borrowingLimitPercent: 150 }), []);
  assert.deepEqual(lim({ borrowingLimitPercent: -1 }), ['spec.limited.borrowingLimitPercent: Invalid value: -1: if specified, must be a non-negative integer']);
});

test('status: reset on create, kept on update; condition types unique and set', () => {
  const fs = schema('a', {});
  fs.status = { conditions: [{ type: 'Dangling', status: 'True' }] };
  schemas.prepareForCreate(fs, T0);
  assert.deepEqual(fs.status, {});
  assert.equal(fs.metadata?.generation, 1);
  const old = structuredClone(fs);
  old.status = { conditions: [{ type: 'Dangling', status: 'False' }] };
  const upd = structuredClone(old);
  upd.status = {};
  upd.spec!.matchingPrecedence = 5;
  schemas.prepareForUpdate(upd, old);
  assert.deepEqual(upd.status, old.status);
  assert.equal(upd.metadata?.generation, 2);
  const st = structuredClone(old);
  st.spec!.matchingPrecedence = 9;
  st.status = { conditions: [{ type: '1' }, { type: '1' }, { type: '' }] };
  schemas.prepareForStatusUpdate?.(st, old);
  assert.equal(st.spec?.matchingPrecedence, 1000);
  assert.deepEqual(msgs(schemas.validateStatusUpdate?.(st, old) ?? []), [
    'status.conditions[1].type: Duplicate value: "1"',
    'status.conditions[2].type: Required value: must not be empty',
  ]);
  const pl = limited({ limitResponse: { type: 'Reject' } });
  pl.status = { conditions: [{ type: 'x' }] };
  levels.prepareForCreate(pl, T0);
  assert.deepEqual(pl.status, {});
});

test('rows: FlowSchema cells and printFlowSchemaList order; PriorityLevelConfiguration cells', () => {
  const now = T0 + 90_000;
  const at = <T extends Schema | Level>(o: T): T => ({ ...o, metadata: { ...o.metadata, creationTimestamp: '2025-01-01T00:00:00Z' } });
  const probes = at(structuredClone(SUGGESTED_FLOW_SCHEMAS[2]) as Schema);
  assert.deepEqual(schemas.table.row(probes, now).cells, ['probes', 'exempt', 2, '<none>', '90s', '?']);
  probes.status = { conditions: [{ type: 'Dangling', status: 'False' }] };
  assert.deepEqual(schemas.table.row(probes, now).cells.at(-1), 'False');
  const sorted = [...SUGGESTED_FLOW_SCHEMAS, ...MANDATORY_FLOW_SCHEMAS].map((o) => structuredClone(o) as Schema).sort((a, b) => schemas.table.listOrder!(a, b));
  assert.deepEqual(
    sorted.map((o) => o.metadata?.name),
    ['exempt', 'probes', 'system-leader-election', 'endpoint-controller', 'workload-leader-election', 'system-node-high', 'system-nodes', 'kube-controller-manager', 'kube-scheduler', 'kube-system-service-accounts', 'service-accounts', 'global-default', 'catch-all'],
  );
  const cells = (o: PriorityLevelConfiguration): unknown[] => levels.table.row(at(structuredClone(o) as Level), now).cells;
  assert.deepEqual(cells(MANDATORY_PRIORITY_LEVEL_CONFIGURATIONS[0]!), ['catch-all', 'Limited', 5, '<none>', '<none>', '<none>', '90s']);
  assert.deepEqual(cells(MANDATORY_PRIORITY_LEVEL_CONFIGURATIONS[1]!), ['exempt', 'Exempt', '<none>', '<none>', '<none>', '<none>', '90s']);
  assert.deepEqual(cells(SUGGESTED_PRIORITY_LEVEL_CONFIGURATIONS[5]!), ['global-default', 'Limited', 20, 128, 6, 50, '90s']);
  assert.deepEqual(levels.table.columns.map((c) => c.name), ['Name', 'Type', 'NominalConcurrencyShares', 'Queues', 'HandSize', 'QueueLengthLimit', 'Age']);
  assert.deepEqual(schemas.table.columns.map((c) => c.name), ['Name', 'PriorityLevel', 'MatchingPrecedence', 'DistinguisherMethod', 'Age', 'MissingPL']);
});

test('autoupdate-spec is read as Go reads a bool, else generation 1 means untouched', () => {
  const obj = (value: string | undefined, generation: number) => ({ metadata: { generation, ...(value === undefined ? {} : { annotations: { [AUTO_UPDATE_ANNOTATION_KEY]: value } }) } });
  assert.equal(shouldUpdateSpec(obj('true', 5)), true);
  assert.equal(shouldUpdateSpec(obj('T', 5)), true);
  assert.equal(shouldUpdateSpec(obj('false', 1)), false);
  assert.equal(shouldUpdateSpec(obj(undefined, 1)), true);
  assert.equal(shouldUpdateSpec(obj('yes', 2)), false);
});

describe('bootstrap on a real server', { timeout: 60_000 }, () => {
  test('upstream objects exist, annotated, schemas Found; an edited suggested level is put back, an opted-out one kept', async () => {
    const { server, transport } = await newFakeServer({ clock: new FakeClock(T0) });
    const cs = newClientset(transport);
    const fsList = await cs.flowcontrol.flowSchemas().list();
    assert.equal(fsList.items.length, 13);
    const exempt = fsList.items.find((fs: FlowSchema) => fs.metadata?.name === 'exempt');
    assert.equal(exempt?.metadata?.annotations?.[AUTO_UPDATE_ANNOTATION_KEY], 'true');
    assert.deepEqual(exempt?.spec, MANDATORY_FLOW_SCHEMAS[0]?.spec);
    for (const fs of fsList.items) {
      assert.deepEqual(fs.status?.conditions, [
        {
          type: 'Dangling',
          status: 'False',
          lastTransitionTime: '2025-01-01T00:00:00Z',
          reason: 'Found',
          message: `This FlowSchema references the PriorityLevelConfiguration object named "${fs.spec?.priorityLevelConfiguration.name ?? ''}" and it exists`,
        },
      ]);
    }
    const plList = await cs.flowcontrol.priorityLevelConfigurations().list();
    assert.deepEqual(plList.items.map((pl: PriorityLevelConfiguration) => pl.metadata?.name).sort(), [
      'catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low',
    ]);

    const system = await cs.flowcontrol.priorityLevelConfigurations().get('system');
    await cs.flowcontrol.priorityLevelConfigurations().update({ ...system, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject' } } } });
    const high = await cs.flowcontrol.priorityLevelConfigurations().get('node-high');
    await cs.flowcontrol.priorityLevelConfigurations().update({
      ...high,
      metadata: { ...high.metadata, annotations: { [AUTO_UPDATE_ANNOTATION_KEY]: 'false' } },
      spec: { type: 'Limited', limited: { nominalConcurrencyShares: 2, limitResponse: { type: 'Reject' } } },
    });
    await cs.flowcontrol.flowSchemas().delete('probes');
    // A restart of the two kinds: storage is kept, the caches are primed from it and the producer runs again.
    const group = 'flowcontrol.apiserver.k8s.io';
    const served = server.resources().filter((s) => s.info.group === group);
    for (const s of served) server.removeResource(group, s.info.resource);
    for (const resource of ['prioritylevelconfigurations', 'flowschemas']) await server.addResource(served.find((s) => s.info.resource === resource)!);
    assert.equal((await cs.flowcontrol.priorityLevelConfigurations().get('system')).spec?.limited?.nominalConcurrencyShares, 30);
    assert.equal((await cs.flowcontrol.priorityLevelConfigurations().get('node-high')).spec?.limited?.nominalConcurrencyShares, 2);
    assert.equal((await cs.flowcontrol.flowSchemas().get('probes')).spec?.matchingPrecedence, 2);
  });
});
