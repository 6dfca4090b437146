/**
 * Ported from k8s.io/apimachinery pkg/util/net/http_test.go `TestSourceIPs` and k8s.io/apiserver
 * pkg/audit/request_test.go `TestMaybeTruncateUserAgent`, `TestCopyWithoutManagedFields` (v1.33);
 * plus the MicroTime format of event timestamps.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  auditIDFromHeaders,
  copyWithoutManagedFields,
  formatAuditTime,
  maybeTruncateUserAgent,
  MAX_USER_AGENT_LENGTH,
  rfc3339Nano,
  sourceIPs,
} from './request.js';

describe('sourceIPs (upstream TestSourceIPs)', () => {
  // [name, realIP, forwardedFor, remoteAddr, expected]
  const cases: [string, string, string, string, string[]][] = [
    ['no headers, missing remoteAddr', '', '', '', []],
    ['no headers, just remoteAddr host:port', '', '', '1.2.3.4:555', ['1.2.3.4']],
    ['no headers, just remoteAddr host', '', '', '1.2.3.4', ['1.2.3.4']],
    ['empty forwarded-for chain', '', ' ', '1.2.3.4', ['1.2.3.4']],
    ['invalid forwarded-for chain', '', 'garbage garbage values!', '1.2.3.4', ['1.2.3.4']],
    ['partially invalid forwarded-for chain', '', 'garbage garbage values!,4.5.6.7', '1.2.3.4', ['4.5.6.7', '1.2.3.4']],
    ['valid forwarded-for chain', '', '120.120.120.126,2.2.2.2,4.5.6.7', '1.2.3.4', ['120.120.120.126', '2.2.2.2', '4.5.6.7', '1.2.3.4']],
    ['valid forwarded-for chain with redundant remoteAddr', '', '2.2.2.2,1.2.3.4', '1.2.3.4', ['2.2.2.2', '1.2.3.4']],
    ['invalid Real-Ip', 'garbage, just garbage!', '', '1.2.3.4', ['1.2.3.4']],
    ['invalid Real-Ip with forwarded-for', 'garbage, just garbage!', '2.2.2.2', '1.2.3.4', ['2.2.2.2', '1.2.3.4']],
    ['valid Real-Ip', '2.2.2.2', '', '1.2.3.4', ['2.2.2.2', '1.2.3.4']],
    ['redundant Real-Ip', '1.2.3.4', '', '1.2.3.4', ['1.2.3.4']],
    ['valid Real-Ip with forwarded-for', '2.2.2.2', '120.120.120.126,4.5.6.7', '1.2.3.4', ['120.120.120.126', '4.5.6.7', '2.2.2.2', '1.2.3.4']],
    ['redundant Real-Ip with forwarded-for', '2.2.2.2', '120.120.120.126,2.2.2.2,4.5.6.7', '1.2.3.4', ['120.120.120.126', '2.2.2.2', '4.5.6.7', '1.2.3.4']],
    ['full redundancy', '1.2.3.4', '1.2.3.4', '1.2.3.4', ['1.2.3.4']],
    [
      'full ipv6',
      'abcd:ef01:2345:6789:abcd:ef01:2345:6789',
      'aaaa:bbbb:cccc:dddd:eeee:ffff:0:1111,0:1111:2222:3333:4444:5555:6666:7777',
      'aaaa:aaaa:aaaa:aaaa:aaaa:aaaa:aaaa:aaaa',
      ['aaaa:bbbb:cccc:dddd:eeee:ffff:0:1111', '0:1111:2222:3333:4444:5555:6666:7777', 'abcd:ef01:2345:6789:abcd:ef01:2345:6789', 'aaaa:aaaa:aaaa:aaaa:aaaa:aaaa:aaaa:aaaa'],
    ],
    // 0:0:0:0:0:ffff:102:304 is the IPv6 form of 1.2.3.4.
    ['mixed ipv4 ipv6', '', 'aaaa:bbbb:cccc:dddd:eeee:ffff:0:1111,1.2.3.4', '0:0:0:0:0:ffff:102:304', ['aaaa:bbbb:cccc:dddd:eeee:ffff:0:1111', '1.2.3.4']],
    // node's remote addresses of IPv4 clients on a dual-stack socket, and Go's [host]:port.
    ['node IPv4-mapped remote address', '', '', '::ffff:127.0.0.1', ['127.0.0.1']],
    ['bracketed IPv6 with port', '', '', '[::1]:6443', ['::1']],
  ];
  for (const [name, realIP, forwardedFor, remoteAddr, expected] of cases) {
    test(name, () => {
      const headers: Record<string, string> = {};
      if (forwardedFor !== '') headers['x-forwarded-for'] = forwardedFor;
      if (realIP !== '') headers['x-real-ip'] = realIP;
      assert.deepEqual(sourceIPs(headers, remoteAddr), expected);
    });
  }
});

describe('user agent (upstream TestMaybeTruncateUserAgent)', () => {
  test('short agents are kept; long ones cut to 1024 bytes plus ...TRUNCATED', () => {
    assert.equal(maybeTruncateUserAgent('short-agent'), 'short-agent');
    const long = 'a'.repeat(MAX_USER_AGENT_LENGTH * 2);
    const got = maybeTruncateUserAgent(long);
    assert.notEqual(got, long);
    assert.equal(got, `${'a'.repeat(MAX_USER_AGENT_LENGTH)}...TRUNCATED`);
    assert.equal(maybeTruncateUserAgent('a'.repeat(MAX_USER_AGENT_LENGTH)), 'a'.repeat(MAX_USER_AGENT_LENGTH));
  });
});

describe('copyWithoutManagedFields (upstream TestCopyWithoutManagedFields)', () => {
  const mf = (...managers: string[]): { manager: string; operation: string; time: string }[] =>
    managers.map((manager) => ({ manager, operation: 'Update', time: '2024-01-01T00:00:00Z' }));
  const pod = (name: string, namespace: string, managedFields?: unknown[]): Record<string, unknown> => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, ...(managedFields ? { managedFields } : {}) },
  });
  // [name, object, expected]
  const cases: [string, unknown, unknown][] = [
    ['object specified is not a meta.Accessor or a list or a table', { kind: 'Status', apiVersion: 'v1', status: 'Success' }, { kind: 'Status', apiVersion: 'v1', status: 'Success' }],
    ['object specified is a meta.Accessor and has managed fields', pod('foo', 'bar', mf('a', 'b')), pod('foo', 'bar')],
    [
      'object specified is a list and its items have managed fields',
      { apiVersion: 'v1', kind: 'PodList', metadata: {}, items: [pod('foo', 'ns1', mf('a', 'b')), pod('bar', 'ns2', mf('c', 'd'))] },
      { apiVersion: 'v1', kind: 'PodList', metadata: {}, items: [pod('foo', 'ns1'), pod('bar', 'ns2')] },
    ],
    [
      'object specified is a Table and objects in its rows have managed fields',
      {
        apiVersion: 'meta.k8s.io/v1',
        kind: 'Table',
        rows: [{ cells: [], object: pod('foo', 'ns1', mf('a', 'b')) }, { cells: [], object: pod('bar', 'ns2', mf('c', 'd')) }, { cells: [] }],
      },
      {
        apiVersion: 'meta.k8s.io/v1',
        kind: 'Table',
        rows: [{ cells: [], object: pod('foo', 'ns1') }, { cells: [], object: pod('bar', 'ns2') }, { cells: [] }],
      },
    ],
  ];
  for (const [name, object, expected] of cases) {
    test(name, () => {
      const original = structuredClone(object);
      assert.deepEqual(copyWithoutManagedFields(object), expected);
      // The original object is not changed.
      assert.deepEqual(object, original);
    });
  }

  test('frozen objects are fine; an object without managedFields is returned as it is', () => {
    const frozen = Object.freeze({ kind: 'Pod', metadata: Object.freeze({ name: 'x', managedFields: Object.freeze([]) }) });
    assert.deepEqual(copyWithoutManagedFields(frozen), { kind: 'Pod', metadata: { name: 'x' } });
    const plain = { kind: 'Pod', metadata: { name: 'x' } };
    assert.equal(copyWithoutManagedFields(plain), plain);
  });
});

describe('timestamps', () => {
  test('MicroTime: UTC, exactly six fractional digits', () => {
    assert.equal(formatAuditTime(Date.UTC(2024, 0, 1) + 123.456), '2024-01-01T00:00:00.123456Z');
    assert.equal(formatAuditTime(Date.UTC(2024, 0, 1)), '2024-01-01T00:00:00.000000Z');
    assert.equal(formatAuditTime(Date.UTC(2024, 0, 1) + 999.9999), '2024-01-01T00:00:01.000000Z');
    assert.equal(formatAuditTime(Date.UTC(2024, 1, 29, 23, 59, 59) + 7.001), '2024-02-29T23:59:59.007001Z');
  });

  test('RFC3339Nano drops trailing zeros of the fraction', () => {
    assert.equal(rfc3339Nano('2024-01-01T00:00:00.123456Z'), '2024-01-01T00:00:00.123456Z');
    assert.equal(rfc3339Nano('2024-01-01T00:00:00.120000Z'), '2024-01-01T00:00:00.12Z');
    assert.equal(rfc3339Nano('2024-01-01T00:00:00.000000Z'), '2024-01-01T00:00:00Z');
  });
});

test('the Audit-ID header: the client value as sent, else none', () => {
  assert.equal(auditIDFromHeaders({ 'audit-id': 'x'.repeat(100) }), 'x'.repeat(100));
  assert.equal(auditIDFromHeaders({ 'audit-id': ['first', 'second'] }), 'first');
  assert.equal(auditIDFromHeaders({ 'audit-id': '' }), undefined);
  assert.equal(auditIDFromHeaders({}), undefined);
});
