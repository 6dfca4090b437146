/**
 * The storage layer: the {@link Backend} contract and its implementations. `newBackend` is how the
 * composition root (src/cli) picks one.
 */

import type { Clock } from '../util/clock/index.js';
import type { Backend } from './interface.js';
import { MemoryBackend } from './memory/index.js';
import { SqliteBackend } from './sqlite/index.js';

export * from './interface.js';
export { ForwardingBackend } from './forwarding.js';
export { MemoryBackend } from './memory/index.js';
export { SqliteBackend } from './sqlite/index.js';
export type { SqliteBackendOptions, SqliteStats } from './sqlite/index.js';

/**
 * Which backend {@link newBackend} builds: in-memory, or SQLite at `path` (':memory:' allowed), whose
 * WAL checkpoints run on `clock` (default the real one) and whose writes run in a worker thread unless
 * `writerThread` is false (see {@link SqliteBackendOptions}).
 */
export type BackendOptions = { type: 'memory' } | { type: 'sqlite'; path: string; clock?: Clock; writerThread?: boolean };

/** Opens a backend; for SQLite, throws what better-sqlite3 throws when the file cannot be opened. */
export function newBackend(opts: BackendOptions): Backend {
  switch (opts.type) {
    case 'memory':
      return new MemoryBackend();
    case 'sqlite':
      return new SqliteBackend({ path: opts.path, clock: opts.clock, writerThread: opts.writerThread });
  }
}
