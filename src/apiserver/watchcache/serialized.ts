/**
 * Serialize-once fan-out (upstream's `cachingObject`, k8s.io/apiserver/pkg/storage/cacher/caching_object.go):
 * objects out of the watch cache are frozen and shared by every watcher and list, so their JSON text
 * is computed at most once and remembered, instead of once per HTTP watcher.
 */

const cache = new WeakMap<object, string>();

/**
 * `JSON.stringify(obj)`, remembered for frozen objects (which cannot change afterwards). Unfrozen
 * objects and primitives are serialized every time.
 */
export function serializedJSON(obj: unknown): string {
  if (obj === null || typeof obj !== 'object' || !Object.isFrozen(obj)) return JSON.stringify(obj);
  let s = cache.get(obj);
  if (s === undefined) {
    s = JSON.stringify(obj);
    cache.set(obj, s);
  }
  return s;
}
