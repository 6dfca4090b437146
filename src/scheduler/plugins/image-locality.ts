/**
 * ImageLocality score: nodes that already hold the pod's container images score higher, so pods start
 * without a pull. Images come from the nodes' `status.images` (names and sizeBytes).
 *
 * Follows upstream pkg/scheduler/framework/plugins/imagelocality/image_locality.go: for every init and
 * regular container whose image (normalised: `:latest` appended when there is no tag) the node has,
 * add `size × (nodes having the image / all nodes)` — the spread factor keeps pods from piling onto
 * the few nodes that have a rare image; the sum is clamped to [23 MiB, 1000 MiB × containers] and
 * mapped linearly onto 0–100. No normalisation. Skips (score 0 everywhere) when no node reports any
 * of the pod's images.
 */
import type { Node, Pod } from '../../api/index.js';
import type { NodeInfo, PodInfo } from '../node-info.js';
import type { CycleState, NodeInfoLister, ScorePlugin } from './types.js';
import { MAX_NODE_SCORE } from './types.js';

const MB = 1024 * 1024;
/** Below this sum a node scores 0 (upstream `minThreshold`). */
export const MIN_THRESHOLD = 23 * MB;
/** Per container, above this the score is capped (upstream `maxContainerThreshold`). */
export const MAX_CONTAINER_THRESHOLD = 1000 * MB;

const PRE_SCORE_KEY = 'PreScoreImageLocality';

/** `nginx` → `nginx:latest`; names with a tag (or digest) are kept (upstream `normalizedImageName`). */
export function normalizedImageName(name: string): string {
  return name.lastIndexOf(':') <= name.lastIndexOf('/') ? `${name}:latest` : name;
}

/** The images listed in a Node's status, by every name, with their sizes in bytes. */
export function nodeImageSizes(images: NonNullable<Node['status']>['images'] | undefined): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const img of images ?? []) for (const n of img.names ?? []) sizes.set(n, img.sizeBytes ?? 0);
  return sizes;
}

interface PreScoreState {
  /** Per container image present somewhere: its normalised name and spread factor (nodes having it / all nodes). */
  images: Array<{ name: string; spread: number }>;
  numContainers: number;
}

function containerImages(pod: Pod): string[] {
  const out: string[] = [];
  for (const c of pod.spec?.initContainers ?? []) if (c.image) out.push(normalizedImageName(c.image));
  for (const c of pod.spec?.containers ?? []) if (c.image) out.push(normalizedImageName(c.image));
  return out;
}

/** `100 × (clamp(sum) - min) / (max - min)` with max = 1000 MiB × containers (upstream `calculatePriority`). */
export function calculatePriority(sumScores: number, numContainers: number): number {
  const maxThreshold = MAX_CONTAINER_THRESHOLD * numContainers;
  const sum = Math.min(Math.max(sumScores, MIN_THRESHOLD), maxThreshold);
  if (maxThreshold <= MIN_THRESHOLD) return 0;
  return Math.trunc((MAX_NODE_SCORE * (sum - MIN_THRESHOLD)) / (maxThreshold - MIN_THRESHOLD));
}

export class ImageLocality implements ScorePlugin {
  readonly name = 'ImageLocality';
  readonly weight: number;

  constructor(opts: { weight?: number } = {}) {
    this.weight = opts.weight ?? 1;
  }

  preScore(pod: PodInfo, state: CycleState, feasible: readonly NodeInfo[], nodes: NodeInfoLister): 'Skip' | undefined {
    const all = nodes.list().length;
    if (feasible.length === 0 || all === 0) return 'Skip';
    const names = containerImages(pod.pod);
    const images: PreScoreState['images'] = [];
    for (const name of names) {
      const n = nodes.imageNumNodes(name);
      if (n > 0) images.push({ name, spread: n / all });
    }
    if (images.length === 0) return 'Skip';
    state.write(PRE_SCORE_KEY, { images, numContainers: names.length } satisfies PreScoreState);
    return undefined;
  }

  score(_pod: PodInfo, node: NodeInfo, state?: CycleState): number {
    const s = state?.read(PRE_SCORE_KEY) as PreScoreState | undefined;
    if (!s) return 0;
    let sum = 0;
    for (const { name, spread } of s.images) {
      const size = node.imageSizes.get(name);
      if (size !== undefined) sum += Math.trunc(size * spread);
    }
    return calculatePriority(sum, s.numContainers);
  }
}
