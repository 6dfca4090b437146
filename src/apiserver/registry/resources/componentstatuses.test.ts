/**
 * ComponentStatuses are computed, never stored: list and get answer scheduler, controller-manager and
 * etcd-0 Healthy with message `ok`, label and field selectors filter, an unknown name is 404, every
 * request carries upstream's deprecation Warning, and the printer shows NAME STATUS MESSAGE ERROR.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ComponentStatus } from '../../../api/index.js';
import { newTestServer, rejectsWithStatus } from '../../testing/fixtures.js';
import { deprecationWarning, versionView } from '../strategy.js';
import { componentStatusStrategy } from './componentstatuses.js';
import type { ApiObject } from './helpers.js';
import { servedStrategies } from './index.js';

const WARNING = 'v1 ComponentStatus is deprecated in v1.19+';

test('list and get are computed, with the deprecation Warning; nothing else is served', async () => {
  const t = await newTestServer({ strategies: servedStrategies });
  const req = { group: '', version: 'v1', resource: 'componentstatuses' };
  const list = await t.server.handle({ ...req, verb: 'list' });
  assert.deepEqual(list.warnings, [WARNING]);
  const items = (list.body as { kind: string; items: ComponentStatus[] }).items;
  assert.equal((list.body as { kind: string }).kind, 'ComponentStatusList');
  assert.deepEqual(
    items.map((cs) => [cs.metadata?.name, cs.conditions]),
    ['scheduler', 'controller-manager', 'etcd-0'].map((name) => [name, [{ type: 'Healthy', status: 'True', message: 'ok' }]]),
  );
  const etcd = await t.server.handle({ ...req, verb: 'get', name: 'etcd-0' });
  assert.equal((etcd.body as ComponentStatus).kind, 'ComponentStatus');
  assert.deepEqual(etcd.warnings, [WARNING]);
  const selected = await t.server.handle({ ...req, verb: 'list', query: { fieldSelector: 'metadata.name=scheduler' } });
  assert.deepEqual((selected.body as { items: ComponentStatus[] }).items.map((cs) => cs.metadata?.name), ['scheduler']);
  const labelled = await t.server.handle({ ...req, verb: 'list', query: { labelSelector: 'tier=control-plane' } });
  assert.deepEqual((labelled.body as { items: unknown[] }).items, []);
  await rejectsWithStatus(t.server.handle({ ...req, verb: 'get', name: 'kubelet' }), 404, 'componentstatuses "kubelet" not found');
  await rejectsWithStatus(t.server.handle({ ...req, verb: 'list', query: { fieldSelector: 'status=x' } }), 400, 'field label not supported: status');
  await rejectsWithStatus(t.server.handle({ ...req, verb: 'create', body: { metadata: { name: 'x' } } }), 405);
  await t.server.close();
});

test('the deprecation Warning: upstream words; a view of another version has its own lifecycle', () => {
  assert.equal(deprecationWarning(componentStatusStrategy as never), WARNING);
  const lifecycle = { deprecatedIn: '1.21', removedIn: '1.25', replacement: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' } };
  const pdb = { ...componentStatusStrategy, info: { ...componentStatusStrategy.info, group: 'policy', version: 'v1beta1', kind: 'PodDisruptionBudget' }, deprecated: lifecycle };
  assert.equal(deprecationWarning(pdb as never), 'policy/v1beta1 PodDisruptionBudget is deprecated in v1.21+, unavailable in v1.25+; use policy/v1 PodDisruptionBudget');
  const view = versionView(pdb as never, { ...pdb.info, version: 'v1' }, { toStorage: (o) => o, fromStorage: (o) => o });
  assert.equal(deprecationWarning(view), undefined);
});

test('printComponentStatus: the Healthy condition, else Unknown', () => {
  assert.deepEqual(componentStatusStrategy.table.columns.map((c) => c.name), ['Name', 'Status', 'Message', 'Error']);
  const cs = (conditions: ComponentStatus['conditions']): ApiObject<ComponentStatus> => ({ apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name: 'etcd-0' }, ...(conditions ? { conditions } : {}) });
  assert.deepEqual(componentStatusStrategy.table.row(cs([{ type: 'Healthy', status: 'True', message: 'ok' }]), 0).cells, ['etcd-0', 'Healthy', 'ok', '']);
  assert.deepEqual(componentStatusStrategy.table.row(cs([{ type: 'Healthy', status: 'False', error: 'dial tcp: refused' }]), 0).cells, ['etcd-0', 'Unhealthy', '', 'dial tcp: refused']);
  assert.deepEqual(componentStatusStrategy.table.row(cs(undefined), 0).cells, ['etcd-0', 'Unknown', '', '']);
});
