/**
 * Serialize-once fan-out (upstream's `cachingObject`, k8s.io/apiserver/pkg/storage/cacher/caching_object.go):
 * objects out of the watch cache are frozen and shared by every watcher and list, so their JSON text
 * is computed at most once and remembered, instead of once per HTTP watcher; so are their protobuf bytes.
 */
import { encodeMessage } from '../../api/proto/index.js';

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

const protobufCache = new WeakMap<object, Buffer>();

/**
 * The protobuf message bytes (no envelope) of `obj` as the message `messageName`
 * (`k8s.io.api.core.v1.Pod`, api/proto `encodeMessage`), remembered for frozen objects as
 * {@link serializedJSON} remembers their JSON: a frozen object is always encoded as the message of
 * its own kind, so one entry per object suffices. The buffer is shared: callers must not modify it.
 * @throws Error when `messageName` has no schema
 */
export function serializedProtobuf(obj: Readonly<Record<string, unknown>>, messageName: string): Buffer {
  if (!Object.isFrozen(obj)) return encodeMessage(messageName, obj);
  let b = protobufCache.get(obj);
  if (b === undefined) {
    b = encodeMessage(messageName, obj);
    protobufCache.set(obj, b);
  }
  return b;
}
