/**
 * Key-range arithmetic shared by the backends.
 *
 * A prefix `p` covers the half-open key range [p, prefixEnd(p)): `/a/` → [`/a/`, `/a0`), `0` being the
 * character after `/`. `/a/x` is inside; `/ab/x` is outside because at the third character `b` > `0`.
 * That is what keeps `/a/` from listing `/ab/`.
 */

import type { SortedMap } from './sorted-map.js';

/**
 * The first key after every key that starts with `prefix`: the prefix with its last UTF-16 code unit
 * incremented (`/registry/pods/` → `/registry/pods0`). undefined for the empty prefix (no upper bound).
 */
export function prefixEnd(prefix: string): string | undefined {
  if (prefix === '') return undefined;
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

/** The smallest key strictly greater than `key` (`key` + NUL), to turn "after key" into ">= bound". */
export function keyAfter(key: string): string {
  return key + '\u0000';
}

/**
 * Where a listing of `prefix` starts: at the prefix, or just after `startAfter` when that lies at or
 * beyond the prefix (a `startAfter` below the prefix does not narrow the range).
 */
export function listStart(prefix: string, startAfter: string | undefined): string {
  return startAfter !== undefined && startAfter >= prefix ? keyAfter(startAfter) : prefix;
}

/**
 * The ranks [from, to) in `map` of the keys under `prefix` that come after `startAfter`: the range a
 * listing reads. Ranks cost O(chunks) each, so nothing outside the range is visited.
 */
export function rankRange(map: SortedMap<unknown>, prefix: string, startAfter: string | undefined): { from: number; to: number } {
  const end = prefixEnd(prefix);
  const to = end === undefined ? map.size : map.rank(end);
  // A startAfter beyond the prefix gives from > to: an empty range.
  return { from: Math.min(map.rank(listStart(prefix, startAfter)), to), to };
}

/** One page of a listing at the current revision. */
export interface Page<V> {
  values: V[];
  more: boolean;
  remaining: number;
}

/**
 * The values of `map` under `prefix` after `startAfter`, at most `limit` (0: all), in key order. Costs
 * O(chunks + page size); `remaining` is a rank difference, not a scan of the rest of the prefix.
 */
export function page<V>(map: SortedMap<V>, prefix: string, startAfter: string | undefined, limit: number): Page<V> {
  const { from, to } = rankRange(map, prefix, startAfter);
  const take = limit > 0 ? Math.min(limit, to - from) : to - from;
  return { values: map.slice(from, from + take), more: from + take < to, remaining: to - from - take };
}

/** Number of keys in `map` under `prefix`. */
export function countPrefix(map: SortedMap<unknown>, prefix: string): number {
  const { from, to } = rankRange(map, prefix, undefined);
  return to - from;
}
