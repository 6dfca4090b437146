import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NodeSelectorTerm } from '../../api/index.js';
import { newPodInfo } from '../node-info.js';
import { preFilterNodeNames } from './node-affinity.js';

const pod = (terms?: NodeSelectorTerm[]) =>
  newPodInfo({ metadata: { name: 'p', namespace: 'ns', uid: 'u' }, spec: { containers: [], ...(terms ? { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } } : {}) } });

test('pods pinned with matchFields metadata.name are filtered against the named nodes only', () => {
  assert.equal(preFilterNodeNames(pod()), undefined);
  assert.deepEqual([...preFilterNodeNames(pod([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-7'] }] }]))!], ['node-7']);
  // Terms are ORed (union); requirements inside a term ANDed (intersection).
  const names = preFilterNodeNames(
    pod([
      { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a', 'b'] }, { key: 'metadata.name', operator: 'In', values: ['b', 'c'] }] },
      { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['d'] }] },
    ]),
  );
  assert.deepEqual([...names!].sort(), ['b', 'd']);
  // A term without a name requirement allows every node.
  assert.equal(preFilterNodeNames(pod([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a'] }] }, { matchExpressions: [{ key: 'zone', operator: 'Exists' }] }])), undefined);
});
