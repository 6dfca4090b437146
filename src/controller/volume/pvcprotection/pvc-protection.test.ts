/** pvc_protection_controller_test.go's podUsesPVC rules: scheduled pods count, shut-down ones do not, terminated ones still do. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../../api/index.js';
import { podIsShutDown, podUsesPVC } from './index.js';

const pod = (o: { node?: string; phase?: string; deleting?: number; ephemeral?: boolean } = {}): Pod => ({
  metadata: { name: 'p', namespace: 'ns', ...(o.deleting !== undefined ? { deletionTimestamp: '2025-01-01T00:00:00Z', deletionGracePeriodSeconds: o.deleting } : {}) },
  spec: { ...(o.node ? { nodeName: o.node } : {}), containers: [], volumes: [o.ephemeral ? { name: 'v', ephemeral: {} } : { name: 'v', persistentVolumeClaim: { claimName: 'c' } }] },
  status: { phase: o.phase ?? 'Running' },
});

test('podUsesPVC', () => {
  assert.equal(podUsesPVC(pod({ node: 'n' }), 'c'), true);
  assert.equal(podUsesPVC(pod(), 'c'), false, 'an unscheduled pod does not count');
  assert.equal(podUsesPVC(pod({ node: 'n' }), 'other'), false);
  assert.equal(podUsesPVC(pod({ node: 'n', phase: 'Succeeded' }), 'c'), true, 'a terminated pod still counts until it is gone');
  assert.equal(podUsesPVC(pod({ node: 'n', deleting: 30 }), 'c'), true, 'a pod being deleted gracefully still counts');
  assert.equal(podUsesPVC(pod({ node: 'n', deleting: 0 }), 'c'), false, 'a shut-down pod does not');
  assert.equal(podUsesPVC(pod({ node: 'n', ephemeral: true }), 'p-v'), true, 'the claim of a generic ephemeral volume');
  assert.equal(podIsShutDown(pod({ deleting: 0 })), true);
});
