/**
 * ServiceCIDR validation (pkg/apis/networking/validation/validation_test.go TestValidateServiceCIDR and
 * TestValidateServiceCIDRUpdate cases: one or two canonical CIDRs of different families, immutable but
 * for adding a second family), the default `kubernetes` ServiceCIDR at start-up, and the table row.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ServiceCIDR } from '../../../api/index.js';
import { fieldErrorString } from '../../../machinery/errors/index.js';
import { MemoryBackend } from '../../../storage/index.js';
import { newTestServer, obj } from '../../testing/fixtures.js';
import type { ResourceStrategy } from '../strategy.js';
import { serviceCIDRStrategy, validateServiceCIDR, validateServiceCIDRUpdate } from './servicecidrs.js';

const msgs = (errs: Parameters<typeof fieldErrorString>[0][]): string[] => errs.map(fieldErrorString);
const sc = (...cidrs: string[]): ServiceCIDR => ({ metadata: { name: 'r' }, spec: { cidrs } });

test('one or two CIDRs, strictly valid, one per IP family', () => {
  for (const ok of [['192.168.0.0/24'], ['fd00:1234::/64'], ['192.168.0.0/24', 'fd00:1234::/64']]) assert.deepEqual(validateServiceCIDR(sc(...ok)), [], ok.join());
  assert.deepEqual(msgs(validateServiceCIDR(sc())), ['spec.cidrs: Required value: at least one CIDR required']);
  assert.deepEqual(msgs(validateServiceCIDR(sc('192.168.0.0/24', 'fd00::/64', '10.0.0.0/16'))), [
    'spec.cidrs: Invalid value: networking.ServiceCIDRSpec{CIDRs:[]string{"192.168.0.0/24", "fd00::/64", "10.0.0.0/16"}}: may only hold up to 2 values',
  ]);
  assert.deepEqual(msgs(validateServiceCIDR(sc('asdasdasd'))), ['spec.cidrs[0]: Invalid value: "asdasdasd": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)']);
  assert.deepEqual(msgs(validateServiceCIDR(sc('192.168.0.1/24'))), ['spec.cidrs[0]: Invalid value: "192.168.0.1/24": must not have bits set beyond the prefix length']);
  assert.deepEqual(msgs(validateServiceCIDR(sc('192.168.0.0/24', 'FD00:1234::/64'))), ['spec.cidrs[1]: Invalid value: "FD00:1234::/64": must be in canonical form ("fd00:1234::/64")']);
  assert.deepEqual(msgs(validateServiceCIDR(sc('192.168.007.0/24', 'fd00:1234::/64'))), ['spec.cidrs[0]: Invalid value: "192.168.007.0/24": must not have leading 0s in IP or prefix length']);
  assert.deepEqual(msgs(validateServiceCIDR(sc('10.0.0.0/16', '10.1.0.0/16'))), [
    'spec.cidrs: Invalid value: []string{"10.0.0.0/16", "10.1.0.0/16"}: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64',
  ]);
});

test('updates: CIDRs are immutable, but a single-stack range may become dual-stack', () => {
  const dual = sc('192.168.0.0/24', 'fd00:1234::/64');
  assert.deepEqual(validateServiceCIDRUpdate(dual, dual), []);
  assert.deepEqual(msgs(validateServiceCIDRUpdate(sc('10.0.0.0/16'), dual)), ['spec.cidrs: Invalid value: []string{"10.0.0.0/16"}: field is immutable']);
  assert.deepEqual(msgs(validateServiceCIDRUpdate(sc('10.0.0.0/24', 'fd00:1234::/64'), dual)), ['spec.cidrs[0]: Invalid value: "10.0.0.0/24": field is immutable']);
  assert.deepEqual(validateServiceCIDRUpdate(dual, sc('192.168.0.0/24')), []);
  assert.deepEqual(msgs(validateServiceCIDRUpdate(sc('192.168.0.0/24', '10.0.0.0/8'), sc('192.168.0.0/24'))), [
    'spec.cidrs: Invalid value: []string{"192.168.0.0/24", "10.0.0.0/8"}: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64',
  ]);
});

test('start-up creates the default ServiceCIDR `kubernetes`, Ready, once', async () => {
  const backend = new MemoryBackend();
  const strategies = [serviceCIDRStrategy as unknown as ResourceStrategy];
  const t = await newTestServer({ backend, strategies });
  const get = async (server = t.server): Promise<ServiceCIDR> =>
    obj(await server.handle({ group: 'networking.k8s.io', version: 'v1', resource: 'servicecidrs', name: 'kubernetes', verb: 'get' })) as ServiceCIDR;
  const first = await get();
  assert.deepEqual(first.spec, { cidrs: ['10.96.0.0/12'] });
  assert.deepEqual(first.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message]), [['Ready', 'True', '', 'Kubernetes default Service CIDR is ready']]);
  await t.server.close();
  const again = await newTestServer({ backend, strategies });
  assert.equal((await get(again.server)).metadata?.resourceVersion, first.metadata?.resourceVersion);
  await again.server.close();
});

test('table: NAME CIDRS AGE', () => {
  assert.deepEqual(serviceCIDRStrategy.table.columns.map((c) => c.name), ['Name', 'CIDRs', 'Age']);
  const row = serviceCIDRStrategy.table.row({ ...sc('10.96.0.0/12', 'fd00::/108'), metadata: { name: 'kubernetes', creationTimestamp: '2025-01-01T00:00:00Z' } }, Date.parse('2025-01-03T00:00:00Z'));
  assert.deepEqual(row.cells, ['kubernetes', '10.96.0.0/12,fd00::/108', '2d']);
});
