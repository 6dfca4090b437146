/**
 * Go's IP and CIDR parsing and printing (k8s.io/utils/net ParseIPSloppy/ParseCIDRSloppy, net.IP.String,
 * net.IPNet.Contains), with cases from Go's net/ip_test.go and k8s.io/utils/net/ipfamily_test.go.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cidrContains, formatCIDR, formatIP, hasLeadingZeros, ipFamilyOfCIDRString, is4In6, parseCIDRSloppy, parseIPSloppy, to4 } from './index.js';

const fmt = (s: string): string | undefined => {
  const ip = parseIPSloppy(s);
  return ip && formatIP(ip);
};

test('IPv4 and IPv6 parse sloppily and print in Go canonical form', () => {
  assert.equal(fmt('10.0.0.1'), '10.0.0.1');
  assert.equal(fmt('010.000.000.001'), '10.0.0.1');
  assert.equal(hasLeadingZeros('010.0.0.1'), true);
  assert.equal(hasLeadingZeros('10.0.0.1'), false);
  assert.equal(fmt('2001:DB8:0:0:0:0:0:1'), '2001:db8::1');
  assert.equal(fmt('2001:db8:0:1:0:0:0:1'), '2001:db8:0:1::1');
  assert.equal(fmt('1:0:0:2:0:0:0:3'), '1:0:0:2::3');
  assert.equal(fmt('1:0:1:0:1:0:1:0'), '1:0:1:0:1:0:1:0');
  assert.equal(fmt('::'), '::');
  assert.equal(fmt('::1'), '::1');
  assert.equal(fmt('fe80::'), 'fe80::');
  assert.equal(fmt('::ffff:1.2.3.4'), '1.2.3.4');
  assert.equal(fmt('64:ff9b::1.2.3.4'), '64:ff9b::102:304');
  for (const bad of ['', '1.2.3', '1.2.3.4.5', '256.0.0.1', '1.2.3.4/32', '1::2::3', '1:2:3:4:5:6:7:8::', '::1.2.3.4:5', 'fe80::1%eth0', '1.2.3.4::', 'g::1', ':1::']) {
    assert.equal(parseIPSloppy(bad), undefined, bad);
  }
});

test('IPv4-mapped addresses', () => {
  const mapped = parseIPSloppy('::ffff:10.0.0.1') as Uint8Array;
  assert.equal(is4In6(mapped), true);
  assert.deepEqual(Array.from(to4(mapped) ?? []), [10, 0, 0, 1]);
  assert.equal(is4In6(parseIPSloppy('10.0.0.1') as Uint8Array), false);
});

test('CIDRs: the masked network, containment and the IP family', () => {
  const n = parseCIDRSloppy('10.1.2.3/8');
  assert.ok(n);
  assert.equal(formatCIDR(n), '10.0.0.0/8');
  assert.equal(formatCIDR(parseCIDRSloppy('2001:DB8::1/32') as never), '2001:db8::/32');
  assert.equal(parseCIDRSloppy('10.0.0.0/33'), undefined);
  assert.equal(parseCIDRSloppy('10.0.0.0'), undefined);
  assert.equal(parseCIDRSloppy('10.0.0.0/x'), undefined);
  assert.equal(formatCIDR(parseCIDRSloppy('10.0.0.0/08') as never), '10.0.0.0/8');
  assert.equal(cidrContains(n, parseIPSloppy('10.255.0.1') as Uint8Array), true);
  assert.equal(cidrContains(n, parseIPSloppy('11.0.0.1') as Uint8Array), false);
  assert.equal(cidrContains(n, parseIPSloppy('::ffff:10.0.0.1') as Uint8Array), true);
  assert.equal(cidrContains(n, parseIPSloppy('fd00::1') as Uint8Array), false);
  assert.equal(ipFamilyOfCIDRString('10.0.0.0/8'), 4);
  assert.equal(ipFamilyOfCIDRString('fd00::/64'), 6);
  assert.equal(ipFamilyOfCIDRString('nope'), undefined);
});
