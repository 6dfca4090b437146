/**
 * IsValidIP, IsValidCIDR and their legacy-field variants (apimachinery/pkg/util/validation/ip_test.go
 * cases at v0.33.9: leading zeros, IPv4-mapped IPv6, bits beyond the prefix, canonical form).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorString } from '../errors/index.js';
import { isValidCIDR, isValidCIDRForLegacyField, isValidIP, isValidIPForLegacyField } from './index.js';

const msgs = (errs: Parameters<typeof fieldErrorString>[0][]): string[] => errs.map(fieldErrorString);

test('IsValidIP', () => {
  for (const ok of ['1.2.3.4', '255.255.255.255', '::1', '2001:db8::1:2', '::']) assert.deepEqual(msgs(isValidIP('ip', ok)), [], ok);
  assert.deepEqual(msgs(isValidIP('ip', '1.2.3')), ['ip: Invalid value: "1.2.3": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']);
  assert.deepEqual(msgs(isValidIP('ip', '1.2.3.04')), ['ip: Invalid value: "1.2.3.04": must not have leading 0s']);
  assert.deepEqual(msgs(isValidIP('ip', '::ffff:1.2.3.4')), ['ip: Invalid value: "::ffff:1.2.3.4": must not be an IPv4-mapped IPv6 address']);
  assert.deepEqual(msgs(isValidIP('ip', '2001:DB8::1')), ['ip: Invalid value: "2001:DB8::1": must be in canonical form ("2001:db8::1")']);
  assert.deepEqual(msgs(isValidIP('ip', '2001:db8:0:0::1')), ['ip: Invalid value: "2001:db8:0:0::1": must be in canonical form ("2001:db8::1")']);
});

test('IsValidCIDR', () => {
  for (const ok of ['1.2.3.0/24', '0.0.0.0/0', '2001:db8::/64', '::/0']) assert.deepEqual(msgs(isValidCIDR('c', ok)), [], ok);
  assert.deepEqual(msgs(isValidCIDR('c', '1.2.3.0')), ['c: Invalid value: "1.2.3.0": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)']);
  assert.deepEqual(msgs(isValidCIDR('c', '1.2.3.4/24')), ['c: Invalid value: "1.2.3.4/24": must not have bits set beyond the prefix length']);
  assert.deepEqual(msgs(isValidCIDR('c', '1.2.3.0/024')), ['c: Invalid value: "1.2.3.0/024": must not have leading 0s in IP or prefix length']);
  assert.deepEqual(msgs(isValidCIDR('c', '192.168.007.0/24')), ['c: Invalid value: "192.168.007.0/24": must not have leading 0s in IP or prefix length']);
  assert.deepEqual(msgs(isValidCIDR('c', '::ffff:1.2.3.0/120')), ['c: Invalid value: "::ffff:1.2.3.0/120": must not have an IPv4-mapped IPv6 address']);
  assert.deepEqual(msgs(isValidCIDR('c', '2001:DB8::/64')), ['c: Invalid value: "2001:DB8::/64": must be in canonical form ("2001:db8::/64")']);
});

test('legacy fields only need to parse, or to be an already stored value', () => {
  assert.deepEqual(isValidIPForLegacyField('ip', '010.0.0.1'), []);
  assert.deepEqual(msgs(isValidIPForLegacyField('ip', 'x')), ['ip: Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']);
  assert.deepEqual(isValidIPForLegacyField('ip', 'x', ['x']), []);
  assert.deepEqual(isValidCIDRForLegacyField('c', '10.0.0.1/8'), []);
  assert.deepEqual(msgs(isValidCIDRForLegacyField('c', '10.0.0.1')), ['c: Invalid value: "10.0.0.1": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)']);
  assert.deepEqual(isValidCIDRForLegacyField('c', 'junk', ['junk']), []);
});
