/**
 * The worker thread of {@link Checkpointer} (./checkpointer.ts): its own connection to the database
 * file, on which it runs `PRAGMA wal_checkpoint(PASSIVE)` for each `'checkpoint'` message and answers
 * with the result, or the error; `'close'` closes the connection and ends the thread.
 */

import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { CheckpointReply, CheckpointRequest } from './checkpointer.js';

const port = parentPort;
if (!port) throw new Error('checkpoint-worker: not started as a worker thread');
const db = new Database((workerData as { path: string }).path, { fileMustExist: true });
// As the writer's connection: the checkpoint syncs the WAL before copying it and the database after.
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 30000');

port.on('message', (msg: CheckpointRequest) => {
  if (msg === 'close') {
    db.close();
    port.close();
    return;
  }
  let reply: CheckpointReply;
  try {
    const [row] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    reply = { busy: row?.busy ?? 1, log: row?.log ?? 0, checkpointed: row?.checkpointed ?? 0 };
  } catch (err) {
    reply = { error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});
