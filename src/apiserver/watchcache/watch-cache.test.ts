/**
 * The watch cache keeps the objects this process writes ({@link WatchCache.expectWrite}) instead of
 * decoding what storage reports back, and decodes whenever that would not give the same object.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/index.js';
import type { WatchEvent } from '../../storage/interface.js';
import { FakeClock } from '../../util/clock/index.js';
import { WatchCache } from './watch-cache.js';

const KEY = '/registry/core/configmaps/default/a';

const newCache = (onRead?: (obj: KubeObject) => void): WatchCache => new WatchCache('/registry/core/configmaps/', () => 0, new FakeClock(0), {}, undefined, onRead);

const configMap = (): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default', managedFields: [{ manager: 'm', fieldsV1: { 'f:data': {} } }] }, data: { k: 'v' } });

const event = (value: string, rev: number, type: WatchEvent['type'] = 'create'): WatchEvent => ({ type, kv: { key: KEY, value, createRevision: 1, modRevision: rev } });

describe('WatchCache.expectWrite', () => {
  test('the written object is kept, frozen, with the change\'s resourceVersion; its parts are shared', () => {
    const cache = newCache();
    const obj = configMap();
    const json = JSON.stringify(obj);
    cache.expectWrite(KEY, json, obj);
    cache.apply(event(json, 5));
    const cached = cache.get(KEY) as KubeObject;
    assert.equal(cached.metadata?.resourceVersion, '5');
    assert.equal(cached.metadata?.managedFields, obj.metadata?.managedFields, 'shared, not decoded again');
    assert.equal(cached['data'], obj['data']);
    assert.ok(Object.isFrozen(cached) && Object.isFrozen(cached.metadata) && Object.isFrozen(obj['data']));
    assert.equal(obj.metadata?.resourceVersion, undefined, 'the writer\'s metadata is its own');
  });

  test('a change storing something else is decoded, and the note is used up', () => {
    const cache = newCache();
    const obj = configMap();
    cache.expectWrite(KEY, JSON.stringify(obj), obj);
    const other = { ...configMap(), data: { k: 'other' } };
    cache.apply(event(JSON.stringify(other), 5));
    assert.deepEqual(cache.get(KEY)?.['data'], { k: 'other' });
    cache.apply(event(JSON.stringify(obj), 6, 'update'));
    assert.notEqual(cache.get(KEY)?.['data'], obj['data'], 'decoded: the note went with the first change');
    assert.deepEqual(cache.get(KEY)?.['data'], { k: 'v' });
  });

  test('an object JSON would not give back is decoded: an undefined member, a non-finite number', () => {
    for (const odd of [{ k: 'v', gone: undefined }, { n: Number.NaN }]) {
      const cache = newCache();
      const obj = { ...configMap(), data: odd } as KubeObject;
      const json = JSON.stringify(obj);
      cache.expectWrite(KEY, json, obj);
      cache.apply(event(json, 5));
      assert.deepEqual(cache.get(KEY)?.['data'], JSON.parse(json).data);
      assert.ok(!Object.keys(cache.get(KEY)?.['data'] as object).includes('gone'));
    }
  });

  test('a refused write\'s note is forgotten; a later write of the key replaces an earlier note', () => {
    const cache = newCache();
    const obj = configMap();
    const json = JSON.stringify(obj);
    cache.expectWrite(KEY, json, obj);
    cache.forgetWrite(KEY, json);
    cache.apply(event(json, 5));
    assert.notEqual(cache.get(KEY)?.['data'], obj['data']);

    const second = { ...configMap(), data: { k: 'second' } };
    cache.expectWrite(KEY, json, obj);
    cache.expectWrite(KEY, JSON.stringify(second), second);
    cache.forgetWrite(KEY, json); // the first write's refusal leaves the second's note
    cache.apply(event(JSON.stringify(second), 6, 'update'));
    assert.equal(cache.get(KEY)?.['data'], second['data']);
  });

  test('a cache that completes objects on read decodes every change', () => {
    const cache = newCache((o) => {
      (o as Record<string, unknown>)['defaulted'] = true;
    });
    const obj = configMap();
    const json = JSON.stringify(obj);
    cache.expectWrite(KEY, json, obj);
    cache.apply(event(json, 5));
    assert.equal(cache.get(KEY)?.['defaulted'], true);
  });
});

describe('WatchCache.objectAt', () => {
  test('the cached object only when it is the given revision of the key', () => {
    const cache = newCache();
    cache.apply(event(JSON.stringify(configMap()), 5));
    assert.equal(cache.objectAt(KEY, 5), cache.get(KEY));
    assert.equal(cache.objectAt(KEY, 6), undefined);
    assert.equal(cache.objectAt(`${KEY}x`, 5), undefined);
  });
});
