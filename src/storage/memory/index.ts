/**
 * The in-memory {@link Backend}: a revision log held in process memory (tests, `--datastore=memory`).
 * Nothing survives the process.
 *
 * Layout (all KeyValues are frozen and shared between the structures and with callers):
 * - `live`: the current version of every live key, sorted by key — get, count and list at the current
 *   revision never touch history (a page costs O(chunks + limit), see SortedMap).
 * - `versions`: per key that has any, its retained versions in revision order (a delete is a
 *   tombstone version), sorted by key — list at a past revision picks, per key, the newest version at
 *   or below the revision (k3s-io/kine `pkg/drivers/generic/generic.go` listSQL does the same with
 *   `MAX(id) … WHERE id <= ?`).
 * - `log`: every event with revision in (compactedRevision, currentRevision], so `log[i]` has
 *   revision compactedRevision + 1 + i (revisions are gap-free); watches replay from it.
 *
 * Writes apply synchronously and their promises are already resolved when returned. Their events are
 * collected and published to watchers from a `setImmediate` callback, so all writes of one tick reach
 * a watcher in one call, after the writers' promises resolved.
 */

import type { Backend, KeyValue, ListOptions, ListResult, WatchEvent, WatchHandle, WatchOptions } from '../interface.js';
import {
  checkWatchStart,
  closedError,
  conflict,
  isPastRevision,
  keyExists,
  keyNotFound,
  needsCompaction,
  settle,
} from '../internal/errors.js';
import { countPrefix, page, rankRange } from '../internal/keys.js';
import { SortedMap } from '../internal/sorted-map.js';
import { WatchHub } from '../internal/watch-hub.js';

/** One retained version of a key; `deleted` marks the tombstone written by a delete. */
interface Version {
  kv: KeyValue;
  deleted: boolean;
}

/** The in-memory backend (see the module comment); starts empty at revision 0. */
export class MemoryBackend implements Backend {
  private revision = 0;
  private compacted = 0;
  private readonly live = new SortedMap<KeyValue>();
  private readonly versions = new SortedMap<Version[]>();
  private log: WatchEvent[] = [];
  /** Events written since the last publish (see the module comment). */
  private unpublished: WatchEvent[] = [];
  private readonly hub = new WatchHub();
  private closed = false;

  currentRevision(): number {
    return this.revision;
  }

  /** The current revision: this process is the store's only writer. */
  fetchCurrentRevision(): Promise<number> {
    return settle(() => {
      this.assertOpen('');
      return this.revision;
    });
  }

  compactedRevision(): number {
    return this.compacted;
  }

  get(key: string): Promise<KeyValue | undefined> {
    return settle(() => {
      this.assertOpen(key);
      return this.live.get(key);
    });
  }

  list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    return settle(() => {
      this.assertOpen(prefix);
      const limit = opts.limit ?? 0;
      if (isPastRevision(prefix, opts.revision, this.compacted, this.revision)) {
        return this.listAt(prefix, opts.revision as number, opts.startAfter, limit);
      }
      const { values, more, remaining } = page(this.live, prefix, opts.startAfter, limit);
      return { kvs: values, revision: this.revision, more, remaining };
    });
  }

  count(prefix: string): Promise<number> {
    return settle(() => {
      this.assertOpen(prefix);
      return countPrefix(this.live, prefix);
    });
  }

  create(key: string, value: string): Promise<KeyValue> {
    return settle(() => {
      this.assertOpen(key);
      if (this.live.get(key)) throw keyExists(key);
      const revision = this.revision + 1;
      const kv = Object.freeze({ key, value, createRevision: revision, modRevision: revision });
      this.live.set(key, kv);
      this.append({ type: 'create', kv }, false);
      return kv;
    });
  }

  update(key: string, value: string, expectedRevision: number): Promise<KeyValue> {
    return settle(() => {
      const prevKv = this.liveVersion(key, expectedRevision);
      const kv = Object.freeze({ key, value, createRevision: prevKv.createRevision, modRevision: this.revision + 1 });
      this.live.set(key, kv);
      this.append({ type: 'update', kv, prevKv }, false);
      return kv;
    });
  }

  delete(key: string, expectedRevision: number): Promise<KeyValue> {
    return settle(() => {
      const prevKv = this.liveVersion(key, expectedRevision || undefined);
      const kv = Object.freeze({ ...prevKv, modRevision: this.revision + 1 });
      this.live.delete(key);
      this.append({ type: 'delete', kv, prevKv }, true);
      return kv;
    });
  }

  /**
   * Starts a watch. The history (`log` from `fromRevision`) is read and the watcher registered in one
   * synchronous step with `upTo` = the current revision, which already counts writes whose events are
   * still unpublished; {@link WatchHub} skips those when they are published, see its module comment.
   */
  watch(prefix: string, fromRevision: number, handler: (events: WatchEvent[]) => void, opts?: WatchOptions): WatchHandle {
    this.assertOpen(prefix);
    checkWatchStart(prefix, fromRevision, this.compacted, this.revision);
    const history: WatchEvent[] = [];
    for (let i = fromRevision - this.compacted; i < this.log.length; i++) {
      const event = this.log[i] as WatchEvent;
      if (event.kv.key.startsWith(prefix)) history.push(event);
    }
    return this.hub.add(prefix, history, this.revision, handler, opts);
  }

  /**
   * Drops the history at or below `revision`: per key touched by an event in (compacted, revision],
   * every version superseded by a newer version <= revision, and a tombstone <= revision; then those
   * events from `log`. Costs O(events compacted). A `revision` at or below the compacted one is a
   * no-op; above the current one throws `FutureRevision`.
   */
  compact(revision: number): Promise<void> {
    return settle(() => {
      this.assertOpen('');
      if (!needsCompaction(revision, this.compacted, this.revision)) return;
      const dropped = revision - this.compacted;
      const touched = new Set<string>();
      for (let i = 0; i < dropped; i++) touched.add((this.log[i] as WatchEvent).kv.key);
      for (const key of touched) this.compactKey(key, revision);
      this.log = this.log.slice(dropped);
      this.compacted = revision;
    });
  }

  flush(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.closed = true;
    this.hub.stopAll();
    return Promise.resolve();
  }

  /** Records a write: takes the next revision, keeps the version, logs and schedules the event. */
  private append(event: WatchEvent, deleted: boolean): void {
    this.revision = event.kv.modRevision;
    const frozen = Object.freeze(event);
    const key = event.kv.key;
    let versions = this.versions.get(key);
    if (!versions) {
      versions = [];
      this.versions.set(key, versions);
    }
    versions.push({ kv: event.kv, deleted });
    this.log.push(frozen);
    if (this.unpublished.length === 0) setImmediate(() => this.publish());
    this.unpublished.push(frozen);
  }

  private publish(): void {
    const events = this.unpublished;
    this.unpublished = [];
    this.hub.publish(events);
  }

  /** List at a past `revision` (already validated): per key the newest version <= revision, if live. */
  private listAt(prefix: string, revision: number, startAfter: string | undefined, limit: number): ListResult {
    const kvs: KeyValue[] = [];
    let remaining = 0;
    const { from, to } = rankRange(this.versions, prefix, startAfter);
    for (const versions of this.versions.slice(from, to)) {
      const version = versionAt(versions, revision);
      if (!version || version.deleted) continue;
      if (limit > 0 && kvs.length === limit) remaining++;
      else kvs.push(version.kv);
    }
    return { kvs, revision, more: remaining > 0, remaining };
  }

  /** Compacts the versions of `key`, which has an event <= revision (so versions[0] is <= revision). */
  private compactKey(key: string, revision: number): void {
    const versions = this.versions.get(key) as Version[];
    // Keep the newest version <= revision (the state at `revision`) unless it is a tombstone, and
    // everything after it. Example: versions at 3, 5(tombstone), 8 compacted at 6 → keep [8].
    let keepFrom = 0;
    while (keepFrom + 1 < versions.length && (versions[keepFrom + 1] as Version).kv.modRevision <= revision) keepFrom++;
    if ((versions[keepFrom] as Version).deleted) keepFrom++;
    if (keepFrom === 0) return;
    versions.splice(0, keepFrom);
    if (versions.length === 0) this.versions.delete(key);
  }

  /**
   * The live version of `key` for an update or delete whose compare-and-swap expects
   * `expectedRevision` (undefined: any). Throws `KeyNotFound` or `Conflict`.
   */
  private liveVersion(key: string, expectedRevision: number | undefined): KeyValue {
    this.assertOpen(key);
    const current = this.live.get(key);
    if (!current) throw keyNotFound(key);
    if (expectedRevision !== undefined && current.modRevision !== expectedRevision) {
      throw conflict(key, expectedRevision, current);
    }
    return current;
  }

  private assertOpen(key: string): void {
    if (this.closed) throw closedError(key);
  }
}

/** The newest of `versions` (ascending) with modRevision <= `revision`; usually one of the last few. */
function versionAt(versions: readonly Version[], revision: number): Version | undefined {
  for (let i = versions.length - 1; i >= 0; i--) {
    const version = versions[i] as Version;
    if (version.kv.modRevision <= revision) return version;
  }
  return undefined;
}
