/**
 * The worker thread of {@link WorkerWriter} (./writer.ts): its own connection to the database file,
 * on which it runs each request in the order received and answers it; `'close'` closes the
 * connection and ends the thread. SQLite's automatic checkpoint is off on this connection, as the
 * checkpoint worker (./checkpointer.ts) copies the WAL; the backend turns it back on (an
 * `autocheckpoint` request) if that worker fails.
 */

import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from './schema.js';
import { WriterCore, type WriterMessage, type WriterWorkerData } from './writer.js';

const port = parentPort;
if (!port) throw new Error('writer-worker: not started as a worker thread');
const { path } = workerData as WriterWorkerData;
const { db, stmts } = openDatabase(path);
db.pragma('wal_autocheckpoint = 0');
const core = new WriterCore(db, stmts, `${path}-wal`);

port.on('message', (msg: WriterMessage) => {
  if (msg === 'close') {
    db.close();
    port.close();
    return;
  }
  port.postMessage(core.run(msg));
});
