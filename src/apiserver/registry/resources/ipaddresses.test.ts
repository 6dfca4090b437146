/**
 * IPAddress validation (pkg/apis/networking/validation/validation_test.go TestValidateIPAddress and
 * TestValidateIPAddressUpdate cases: the name is a canonical IP, parentRef required and well formed and
 * immutable), the name rule through the API server, and the table row.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { IPAddress } from '../../../api/index.js';
import { fieldErrorString } from '../../../machinery/errors/index.js';
import { newTestServer, rejectsWithStatus } from '../../testing/fixtures.js';
import type { ResourceStrategy } from '../strategy.js';
import { ipAddressStrategy, validateIPAddress, validateIPAddressName } from './ipaddresses.js';

type Ref = NonNullable<IPAddress['spec']>['parentRef'];
const msgs = (errs: Parameters<typeof fieldErrorString>[0][]): string[] => errs.map(fieldErrorString);
const ip = (name: string, parentRef?: Ref): IPAddress => ({ metadata: { name }, ...(parentRef ? { spec: { parentRef } } : {}) });
const svc: Ref = { group: '', resource: 'services', name: 'foo', namespace: 'bar' };

test('the name is an IP address in canonical form', () => {
  for (const ok of ['192.168.1.1', '2001:4860:4860::8888']) assert.deepEqual(validateIPAddressName(ok), [], ok);
  assert.deepEqual(validateIPAddressName('test-name'), ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']);
  assert.deepEqual(validateIPAddressName('2001:4860:4860:0::8888'), ['must be in canonical form ("2001:4860:4860::8888")']);
  assert.deepEqual(validateIPAddressName('192.168.01.1'), ['must not have leading 0s']);
});

test('parentRef: required; group a subdomain; resource and name required path segments', () => {
  assert.deepEqual(validateIPAddress(ip('192.168.1.1', svc)), []);
  assert.deepEqual(validateIPAddress(ip('192.168.1.1', { group: 'gateway.networking.k8s.io', resource: 'gateway', name: 'foo', namespace: 'bar' })), []);
  assert.deepEqual(msgs(validateIPAddress(ip('192.168.1.1'))), ['spec.parentRef: Required value']);
  assert.deepEqual(msgs(validateIPAddress(ip('192.168.1.1', { group: 'custom.resource.com', resource: 'services', name: 'foo/%', namespace: '' }))), [
    "spec.parentRef.name: Invalid value: \"foo/%\": may not contain '/'",
    "spec.parentRef.name: Invalid value: \"foo/%\": may not contain '%'",
  ]);
  const multiple = msgs(validateIPAddress(ip('192.168.1.1', { group: '.cust@m.resource.com', resource: '', name: '', namespace: 'bar/' })));
  assert.equal(multiple.length, 4);
  assert.match(multiple[0] ?? '', /^spec\.parentRef\.group: Invalid value: "\.cust@m\.resource\.com": a lowercase RFC 1123 subdomain/);
  assert.deepEqual(multiple.slice(1), ['spec.parentRef.resource: Required value', 'spec.parentRef.name: Required value', "spec.parentRef.namespace: Invalid value: \"bar/\": may not contain '/'"]);
});

test('parentRef is immutable', () => {
  const old = ip('192.168.1.1', svc);
  assert.deepEqual(ipAddressStrategy.validateUpdate(old as never, old as never), []);
  assert.deepEqual(msgs(ipAddressStrategy.validateUpdate(ip('192.168.1.1', { ...svc, resource: 'gateways' }) as never, old as never)), [
    'spec.parentRef: Invalid value: networking.ParentReference{Group:"", Resource:"gateways", Namespace:"bar", Name:"foo"}: field is immutable',
  ]);
  assert.deepEqual(msgs(ipAddressStrategy.validateUpdate(ip('192.168.1.1') as never, old as never)), ['spec.parentRef: Required value', 'spec.parentRef: Invalid value: "null": field is immutable']);
});

test('through the API server: the name rule replaces the DNS subdomain rule', async () => {
  const t = await newTestServer({ strategies: [ipAddressStrategy as unknown as ResourceStrategy] });
  const create = (name: string) =>
    t.server.handle({ group: 'networking.k8s.io', version: 'v1', resource: 'ipaddresses', verb: 'create', body: { apiVersion: 'networking.k8s.io/v1', kind: 'IPAddress', ...ip(name, svc) } });
  assert.equal((await create('2001:db8::1')).code, 201);
  await rejectsWithStatus(create('2001:db8:0::2'), 422, 'IPAddress.networking.k8s.io "2001:db8:0::2" is invalid: metadata.name: Invalid value: "2001:db8:0::2": must be in canonical form ("2001:db8::2")');
  await t.server.close();
});

test('table: NAME PARENTREF (the row carries the age too, as upstream)', () => {
  assert.deepEqual(ipAddressStrategy.table.columns.map((c) => c.name), ['Name', 'ParentRef']);
  const row = (i: IPAddress): unknown[] => ipAddressStrategy.table.row({ ...i, metadata: { ...i.metadata, creationTimestamp: '2025-01-01T00:00:00Z' } }, Date.parse('2025-01-01T00:00:09Z')).cells;
  assert.deepEqual(row(ip('10.96.0.1', { group: '', resource: 'services', namespace: 'default', name: 'kubernetes' })), ['10.96.0.1', 'services/default/kubernetes', '9s']);
  assert.deepEqual(row(ip('10.0.0.9', { group: 'Gateway.Networking.k8s.io', resource: 'Gateways', name: 'gw' })), ['10.0.0.9', 'gateways.gateway.networking.k8s.io/gw', '9s']);
  assert.deepEqual(row(ip('10.0.0.8')), ['10.0.0.8', '<none>', '9s']);
});
