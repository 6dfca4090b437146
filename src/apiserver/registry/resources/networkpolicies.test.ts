/**
 * NetworkPolicy defaulting and validation (pkg/apis/networking/v1/defaults_test.go TestSetDefaultNetworkPolicy;
 * pkg/apis/networking/validation/validation_test.go TestValidateNetworkPolicy and
 * TestValidateNetworkPolicyUpdate cases: ports and endPort, peers, ipBlock cidr/except, policyTypes,
 * invalid CIDRs kept on update), generation and the table row.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NetworkPolicy } from '../../../api/index.js';
import { fieldErrorString } from '../../../machinery/errors/index.js';
import { defaultNetworkPolicy, networkPolicyStrategy, validateNetworkPolicy, validateNetworkPolicyUpdate } from './networkpolicies.js';

type Spec = NetworkPolicy['spec'] & object;
type Rule = NonNullable<Spec['ingress']>[number];
const msgs = (errs: Parameters<typeof fieldErrorString>[0][]): string[] => errs.map(fieldErrorString);
const np = (spec: Partial<Spec>): NetworkPolicy => ({ metadata: { name: 'np' }, spec: { podSelector: {}, ...spec } });
const ingress = (rule: Rule): NetworkPolicy => np({ ingress: [rule] });

test('defaults: policyTypes from the rules present, port protocol TCP', () => {
  const a = np({ ingress: [{ ports: [{ port: 80 }] }] });
  defaultNetworkPolicy(a as never);
  assert.deepEqual([a.spec?.policyTypes, a.spec?.ingress?.[0]?.ports?.[0]?.protocol], [['Ingress'], 'TCP']);
  const b = np({ egress: [{ ports: [{ port: 53, protocol: 'UDP' }] }] });
  defaultNetworkPolicy(b as never);
  assert.deepEqual([b.spec?.policyTypes, b.spec?.egress?.[0]?.ports?.[0]?.protocol], [['Ingress', 'Egress'], 'UDP']);
  const c = np({ egress: [{}], policyTypes: ['Egress'] });
  defaultNetworkPolicy(c as never);
  assert.deepEqual(c.spec?.policyTypes, ['Egress']);
});

test('ports: protocol, numeric port and endPort, named port', () => {
  const P = 'spec.ingress[0].ports[0]';
  assert.deepEqual(validateNetworkPolicy(ingress({ ports: [{ port: 80, endPort: 90 }, { port: 'http' }, { protocol: 'SCTP' }] })), []);
  assert.deepEqual(msgs(validateNetworkPolicy(ingress({ ports: [{ protocol: 'ICMP' }] }))), [`${P}.protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"`]);
  assert.deepEqual(msgs(validateNetworkPolicy(ingress({ ports: [{ port: 0 }] }))), [`${P}.port: Invalid value: 0: must be between 1 and 65535, inclusive`]);
  assert.deepEqual(msgs(validateNetworkPolicy(ingress({ ports: [{ port: 90, endPort: 80 }] }))), [`${P}.endPort: Invalid value: 80: must be greater than or equal to \`port\``]);
  assert.deepEqual(msgs(validateNetworkPolicy(ingress({ ports: [{ port: 'http', endPort: 80 }] }))), [`${P}.endPort: Invalid value: 80: may not be specified when \`port\` is non-numeric`]);
  assert.deepEqual(msgs(validateNetworkPolicy(ingress({ ports: [{ endPort: 80 }] }))), [`${P}.endPort: Invalid value: 80: may not be specified when \`port\` is not specified`]);
  assert.deepEqual(msgs(validateNetworkPolicy(ingress({ ports: [{ port: '80' }] }))), [`${P}.port: Invalid value: "80": must contain at least one letter (a-z)`]);
});

test('peers: at least one, ipBlock alone, selectors valid', () => {
  const F = 'spec.ingress[0].from[0]';
  assert.deepEqual(validateNetworkPolicy(ingress({ from: [{ podSelector: {}, namespaceSelector: { matchLabels: { a: 'b' } } }] })), []);
  assert.deepEqual(msgs(validateNetworkPolicy(ingress({ from: [{}] }))), [`${F}: Required value: must specify a peer`]);
  assert.deepEqual(msgs(validateNetworkPolicy(ingress({ from: [{ podSelector: {}, ipBlock: { cidr: '10.0.0.0/8' } }] }))), [`${F}: Forbidden: may not specify both ipBlock and another peer`]);
  assert.match(msgs(validateNetworkPolicy(np({ egress: [{ to: [{ podSelector: { matchLabels: { 'bad key': 'x' } } }] }] })))[0] ?? '', /^spec\.egress\[0\]\.to\[0\]\.podSelector\.matchLabels: Invalid value: "bad key"/);
  assert.match(msgs(validateNetworkPolicy(np({ podSelector: { matchExpressions: [{ key: 'a', operator: 'Near' }] } })))[0] ?? '', /^spec\.podSelector\.matchExpressions\[0\]\.operator: Invalid value: "Near": not a valid selector operator/);
});

test('ipBlock: a CIDR and excepts that are strict subsets of it', () => {
  const B = 'spec.ingress[0].from[0].ipBlock';
  const block = (cidr: string, except?: string[]): NetworkPolicy => ingress({ from: [{ ipBlock: { cidr, ...(except ? { except } : {}) } }] });
  assert.deepEqual(validateNetworkPolicy(block('192.168.0.0/16', ['192.168.3.0/24', '192.168.4.0/24'])), []);
  assert.deepEqual(validateNetworkPolicy(block('192.168.0.1/16')), [], 'a legacy field: an interface address is accepted');
  assert.deepEqual(msgs(validateNetworkPolicy(block(''))), [`${B}.cidr: Required value`]);
  assert.deepEqual(msgs(validateNetworkPolicy(block('192.168.1.1'))), [`${B}.cidr: Invalid value: "192.168.1.1": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)`]);
  assert.deepEqual(msgs(validateNetworkPolicy(block('192.168.0.0/16', ['192.169.0.0/16', '192.168.0.0/16', '192.168.0.0/8', 'x']))), [
    `${B}.except[0]: Invalid value: "192.169.0.0/16": must be a strict subset of \`cidr\``,
    `${B}.except[1]: Invalid value: "192.168.0.0/16": must be a strict subset of \`cidr\``,
    `${B}.except[2]: Invalid value: "192.168.0.0/8": must be a strict subset of \`cidr\``,
    `${B}.except[3]: Invalid value: "x": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)`,
  ]);
  assert.deepEqual(msgs(validateNetworkPolicy(block('fd00::/64', ['10.0.0.0/24']))), [`${B}.except[0]: Invalid value: "10.0.0.0/24": must be a strict subset of \`cidr\``]);
  const stored = block('junk', ['also-junk']);
  assert.deepEqual(validateNetworkPolicyUpdate(stored, stored), [], 'CIDRs already stored are kept on update');
});

test('policyTypes: at most two, Ingress or Egress', () => {
  assert.deepEqual(msgs(validateNetworkPolicy(np({ policyTypes: ['Ingress', 'Egress', 'Ingress'] }))), [
    'spec.policyTypes: Invalid value: []networking.PolicyType{"Ingress", "Egress", "Ingress"}: may not specify more than two policyTypes',
  ]);
  assert.deepEqual(msgs(validateNetworkPolicy(np({ policyTypes: ['Sideways'] }))), ['spec.policyTypes[0]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"']);
});

test('generation and the table row NAME POD-SELECTOR AGE', () => {
  const old = { ...np({}), metadata: { name: 'np', generation: 2 } };
  const next = { ...np({ policyTypes: ['Egress'] }), metadata: { name: 'np', generation: 2 } };
  networkPolicyStrategy.prepareForUpdate(next, old);
  assert.equal(next.metadata.generation, 3);
  assert.deepEqual(networkPolicyStrategy.table.columns.map((c) => c.name), ['Name', 'Pod-Selector', 'Age']);
  const row = (spec: Partial<Spec>): unknown[] => networkPolicyStrategy.table.row({ ...np(spec), metadata: { name: 'np', creationTimestamp: '2025-01-01T00:00:00Z' } }, Date.parse('2025-01-01T01:00:00Z')).cells;
  assert.deepEqual(row({}), ['np', '<none>', '60m']);
  assert.deepEqual(row({ podSelector: { matchLabels: { role: 'db' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] } }), ['np', 'role=db,tier in (a,b)', '60m']);
});
