/**
 * The storage layer: the {@link Backend} contract and its implementations. `openBackend` is how the
 * composition root (src/cli) picks one.
 */

import type { Clock } from '../util/clock/index.js';
import type { Backend } from './interface.js';
import { MemoryBackend } from './memory/index.js';
import { SqliteBackend } from './sqlite/index.js';
import type { EtcdBackendOptions } from './etcd/index.js';

export * from './interface.js';
export type { EtcdBackendOptions } from './etcd/index.js';
export { ForwardingBackend } from './forwarding.js';
export { MemoryBackend } from './memory/index.js';
export { SqliteBackend } from './sqlite/index.js';
export type { SqliteBackendOptions, SqliteStats } from './sqlite/index.js';

/**
 * Which backend {@link openBackend} opens: in-memory; SQLite at `path` (':memory:' allowed), whose
 * WAL checkpoints run on `clock` (default the real one) and whose writes run in a worker thread unless
 * `writerThread` is false (see {@link SqliteBackendOptions}); or etcd (see {@link EtcdBackendOptions}).
 */
export type BackendOptions =
  | { type: 'memory' }
  | { type: 'sqlite'; path: string; clock?: Clock; writerThread?: boolean }
  | ({ type: 'etcd' } & EtcdBackendOptions);

/**
 * Opens a backend. Throws what better-sqlite3 throws when the SQLite file cannot be opened, and a
 * StorageError `Internal` when no etcd member answers.
 */
export async function openBackend(opts: BackendOptions): Promise<Backend> {
  switch (opts.type) {
    case 'memory':
      return new MemoryBackend();
    case 'sqlite':
      return new SqliteBackend({ path: opts.path, clock: opts.clock, writerThread: opts.writerThread });
    case 'etcd': {
      // Loaded only when chosen: etcd3 parses its gRPC protocol at import, a third of a second that
      // every kubeplane on SQLite would otherwise pay at start-up.
      const { EtcdBackend } = await import('./etcd/index.js');
      return EtcdBackend.open(opts);
    }
  }
}
