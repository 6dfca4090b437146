/**
 * ImageLocality: the nodes and images of upstream
 * pkg/scheduler/framework/plugins/imagelocality/image_locality_test.go (`TestImageLocalityPriority`),
 * with the expected scores worked out from its formula.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, Pod } from '../../api/index.js';
import { SchedulerCache } from '../cache.js';
import { newPodInfo } from '../node-info.js';
import { calculatePriority, CycleState, ImageLocality, normalizedImageName } from './index.js';

const mb = 1024 * 1024;
type Image = [names: string[], sizeMB: number];
const node = (name: string, images: Image[]): Node => ({
  metadata: { name },
  status: { allocatable: { pods: '110' }, images: images.map(([names, size]) => ({ names, sizeBytes: size * mb })) },
});
const node403002000 = (name: string) => node(name, [[['gcr.io/40:latest', 'gcr.io/40:v1'], 40], [['gcr.io/300:latest', 'gcr.io/300:v1'], 300], [['gcr.io/2000:latest'], 2000]]);
const node25010 = (name: string) => node(name, [[['gcr.io/250:latest'], 250], [['gcr.io/10:latest', 'gcr.io/10:v1'], 10]]);
const node60040900 = (name: string) => node(name, [[['gcr.io/600:latest'], 600], [['gcr.io/40:latest'], 40], [['gcr.io/900:latest'], 900]]);
const pod = (images: string[], init: string[] = []): Pod => ({
  metadata: { name: 'p', namespace: 'default', uid: 'u' },
  spec: { containers: images.map((image, i) => ({ name: `c${i}`, image })), initContainers: init.map((image, i) => ({ name: `i${i}`, image })) },
});

function scores(p: Pod, nodes: Node[]): number[] | 'Skip' {
  const cache = new SchedulerCache();
  for (const n of nodes) cache.addOrUpdateNode(n);
  const plugin = new ImageLocality();
  const state = new CycleState();
  const info = newPodInfo(p);
  if (plugin.preScore(info, state, cache.nodes(), cache) === 'Skip') return 'Skip';
  return cache.nodes().map((n) => plugin.score(info, n, state));
}

describe('ImageLocality (upstream TestImageLocalityPriority)', () => {
  test('two images spread on two nodes, prefer the larger image one', () =>
    // node1: 40 MB × ½ = 20 MB < 23 MB ⇒ 0; node2: 250 × ½ = 125 MB ⇒ 100·102/1977 ⇒ 5.
    assert.deepEqual(scores(pod(['gcr.io/40', 'gcr.io/250']), [node403002000('machine1'), node25010('machine2')]), [0, 5]));
  test('two images on one node, prefer this node', () =>
    // node1: (40 + 300) × ½ = 170 MB ⇒ 100·147/1977 ⇒ 7.
    assert.deepEqual(scores(pod(['gcr.io/40', 'gcr.io/300']), [node403002000('machine1'), node25010('machine2')]), [7, 0]));
  test('if exceed limit, use limit', () =>
    // node1: 2000 × ½ = 1000 MB for one container ⇒ the 1000 MB cap ⇒ 100.
    assert.deepEqual(scores(pod(['gcr.io/2000']), [node403002000('machine1'), node25010('machine2')]), [100, 0]));
  test('an image on every node counts in full; init containers count', () =>
    // gcr.io/40 on both nodes: 40 MB each; node2 also has 600 MB (½ ⇒ 300 MB): (340 − 23)·100/(2000 − 23) ⇒ 16.
    assert.deepEqual(scores(pod(['gcr.io/40'], ['gcr.io/600']), [node403002000('machine1'), node60040900('machine2')]), [0, 16]));
  test('a tagged name only matches that tag', () => assert.deepEqual(scores(pod(['gcr.io/40:v1']), [node403002000('a'), node60040900('b')]), [0, 0]));
  test('no node has the images (simulated nodes report none): skipped', () => {
    assert.equal(scores(pod(['nginx:1.27']), [node('a', []), node('b', [])]), 'Skip');
  });
  test('normalizedImageName and calculatePriority', () => {
    assert.equal(normalizedImageName('nginx'), 'nginx:latest');
    assert.equal(normalizedImageName('localhost:5000/nginx'), 'localhost:5000/nginx:latest');
    assert.equal(normalizedImageName('nginx:1.27'), 'nginx:1.27');
    assert.equal(calculatePriority(0, 1), 0);
    assert.equal(calculatePriority(5000 * mb, 1), 100);
  });
});
