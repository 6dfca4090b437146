/**
 * The shared informer factory: one {@link SharedIndexInformer} per resource for all the controllers of
 * one process, started together (client-go informers/factory.go `sharedInformerFactory`).
 *
 * Informers are created on first request; `start()` runs those not yet running, so an informer asked
 * for after `start()` needs another `start()` (as upstream).
 */
import type { KubeObject } from '../api/index.js';
import { accessorsOf, type CatalogueRow, type Clientset, type ObjectOf, type ResourceDescriptor } from '../client/index.js';
import type { Clock } from '../util/clock/index.js';
import type { Rand } from '../util/random/index.js';
import type { MetaObject } from './indexer.js';
import type { ListerWatcher } from './reflector.js';
import { SharedIndexInformer } from './shared-informer.js';

/** Options of {@link SharedInformerFactory}. */
export interface SharedInformerFactoryOptions {
  clock: Clock;
  /** Default: real randomness (watch timeouts and backoff jitter only). */
  rand?: Rand;
  /** Restrict namespaced informers to one namespace (default: all). */
  namespace?: string;
  /** Receives list/watch failures, with the resource, e.g. for logging. */
  onError?: (resource: string, err: unknown) => void;
}

/**
 * The informer accessors, derived from the catalogue as the clientset's are: `factory.core.pods()`,
 * `factory.apps.replicaSets()`, one shared informer per resource.
 */
export type InformerAccessors = {
  [G in CatalogueRow['client'][0]]: {
    [R in CatalogueRow as R['client'][0] extends G ? R['client'][1] : never]: () => SharedIndexInformer<ObjectOf<R> & MetaObject>;
  };
};

/** The shared informers of one process: typed accessors per catalogued resource, and {@link forResource}. */
export type SharedInformerFactory = SharedInformerFactoryImpl & InformerAccessors;

/** Creates a {@link SharedInformerFactory} on `client`. */
export function newSharedInformerFactory(client: Clientset, opts: SharedInformerFactoryOptions): SharedInformerFactory {
  const factory = new SharedInformerFactoryImpl(client, opts);
  return Object.assign(factory, accessorsOf((desc) => factory.forResource(desc))) as unknown as SharedInformerFactory;
}

class SharedInformerFactoryImpl {
  private readonly informers = new Map<string, SharedIndexInformer<MetaObject>>();
  private readonly running = new Set<SharedIndexInformer<MetaObject>>();
  private shuttingDown = false;

  constructor(
    private readonly client: Clientset,
    private readonly opts: SharedInformerFactoryOptions,
  ) {}

  /** The shared informer of `desc`'s resource, created on first use. */
  forResource<T extends MetaObject = KubeObject>(desc: ResourceDescriptor): SharedIndexInformer<T> {
    const id = `${desc.group}/${desc.version}/${desc.resource}`;
    let informer = this.informers.get(id);
    if (!informer) {
      const lw = this.client.resource(desc, this.opts.namespace) as ListerWatcher<MetaObject>;
      const onError = this.opts.onError;
      informer = new SharedIndexInformer<MetaObject>(lw, {
        clock: this.opts.clock,
        rand: this.opts.rand,
        name: desc.resource,
        onError: onError && ((err) => onError(desc.resource, err)),
      });
      this.informers.set(id, informer);
    }
    return informer as unknown as SharedIndexInformer<T>;
  }

  /** Runs every informer requested so far that is not running yet. No-op after shutdown. */
  start(): void {
    if (this.shuttingDown) return;
    for (const informer of this.informers.values()) {
      if (this.running.has(informer)) continue;
      this.running.add(informer);
      informer.run();
    }
  }

  /**
   * Resolves true once every started informer has synced, false if `signal` aborts first
   * (cache.WaitForCacheSync).
   */
  async waitForCacheSync(signal?: AbortSignal): Promise<boolean> {
    const results = await Promise.all([...this.running].map((i) => i.waitForSync(signal)));
    return results.every(Boolean);
  }

  /** Stops every informer; the factory starts nothing afterwards. */
  shutdown(): void {
    this.shuttingDown = true;
    for (const informer of this.running) informer.stop();
  }
}
