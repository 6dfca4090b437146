/**
 * How admission plugins read other objects: from the watch cache, and — when the cache holds none in
 * the namespace — once more after the cache has caught up with every committed write, remembering
 * that the namespace has none for 30 s. This is upstream's `liveLookupCache` of the LimitRanger and
 * ResourceQuota plugins (plugin/pkg/admission/limitranger/admission.go `GetLimitRanges`,
 * plugin/pkg/admission/resourcequota/resource_access.go `GetQuotas`: informer first, a live LIST
 * when it is empty, its empty answer kept for `liveTTL`), with "live" being a cache that has caught up.
 *
 * Why not always wait for the cache: every pod create would wait for the next storage commit to
 * reach the cache, which cost a fifth of the throughput of a 10,000-pod Deployment. Unlike upstream's
 * TTL alone, a namespace believed empty is looked up again as soon as the kind's store begins a write
 * in this process, so a quota or LimitRange created just before an object applies to it.
 */
import type { KubeObject } from '../../api/index.js';
import type { Clock } from '../../util/clock/index.js';

/** upstream's `liveTTL`: how long a namespace found without objects is believed to have none (ms). */
export const LIVE_LOOKUP_TTL_MS = 30_000;

/** What a lookup needs of a store: its cached objects, a wait for its cache, and its write count. */
export interface CachedObjects {
  cachedObjects(namespace?: string): KubeObject[];
  /** Writes the store has begun; a change means objects may exist that the cache does not show yet. */
  readonly writeCount: number;
  /** Resolves once the cache holds every write committed before the call (`''`: the current revision). */
  waitForResourceVersion(rv: string): Promise<void>;
}

/** The objects of one kind by namespace, read as the module doc says. One per plugin. */
export class LiveLookup {
  /** Namespaces found without objects: until when (ms), and the store's write count then. */
  private readonly empty = new Map<string, { until: number; writes: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs = LIVE_LOOKUP_TTL_MS,
  ) {}

  /** The objects of `store` in `namespace`; none when the kind is not served (`store` undefined). */
  async objectsIn(store: CachedObjects | undefined, namespace: string): Promise<KubeObject[]> {
    if (!store) return [];
    const cached = store.cachedObjects(namespace);
    if (cached.length > 0) return cached;
    const now = this.clock.now();
    const known = this.empty.get(namespace);
    // Still believed empty: unless the TTL ran out or the store has begun a write since (one of this
    // kind created in this process, perhaps here, which the cache may not show yet).
    if (known !== undefined && known.until > now && known.writes === store.writeCount) return cached;
    const writes = store.writeCount;
    await store.waitForResourceVersion('');
    const caughtUp = store.cachedObjects(namespace);
    if (caughtUp.length === 0) this.empty.set(namespace, { until: now + this.ttlMs, writes });
    else this.empty.delete(namespace);
    return caughtUp;
  }
}
