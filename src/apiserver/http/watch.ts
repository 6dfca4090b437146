/**
 * Serving a watch over HTTP (k8s.io/apiserver/pkg/endpoints/handlers/watch.go `HandleHTTP`):
 * 200, `Content-Type: application/json`, chunked, headers flushed at once (client-go blocks reading
 * them, so an unflushed watch hangs `kubectl rollout status`), then one JSON event per line:
 * `{"type":"ADDED","object":{…}}\n`.
 *
 * With a Table Accept every event's object is a one-row Table; only the first carries
 * `columnDefinitions` (upstream's watchEmbeddedEncoder sets NoHeaders after the first event). Status
 * objects (ERROR events) and BOOKMARK objects are sent unconverted.
 */
import type { ServerResponse } from 'node:http';
import type { RestRequest, WatchEvent, WatchStream } from '../../api/request.js';
import type { Clock } from '../../util/clock/index.js';
import type { TablePrinter } from '../registry/strategy.js';
import { statusOf, writeError } from './errors.js';
import { PROTOBUF_WATCH_CONTENT_TYPE, protobufWatchFrame } from './protobuf.js';
import type { ObjectSerializer } from './streaming.js';
import { isStatus, toTable, type TableOptions } from './table.js';
import type { ApiServerCore, Logger } from './types.js';

/** One watch event as a line of the stream. */
export function encodeWatchEvent(type: WatchEvent['type'], object: unknown, serialize: ObjectSerializer = JSON.stringify): string {
  return `{"type":"${type}","object":${serialize(object)}}\n`;
}

/** What {@link serveWatch} needs besides the request. */
export interface WatchContext {
  core: ApiServerCore;
  clock: Clock;
  logger: Logger | undefined;
  /** Table conversion of each event's object, when the client asked for Tables. */
  table?: { printer: TablePrinter; options: TableOptions };
  /** End the watch when this many bytes are queued unsent. */
  maxBacklogBytes: number;
  serialize?: ObjectSerializer;
  /** Frame events as protobuf (`;stream=watch`) instead of JSON lines. */
  protobuf?: boolean;
}

/**
 * Runs `rr` (verb watch) on the core and streams its events to `res` until the core closes the watch
 * (the response then ends; an error that ends it is sent as an ERROR event carrying its Status) or the
 * client disconnects (the core's watch is then stopped). An error before the stream starts
 * (StatusError thrown by `core.watch`, or `onClose(err)` called before it returns) is answered with
 * its own HTTP status instead.
 */
export function serveWatch(ctx: WatchContext, rr: RestRequest, res: ServerResponse): void {
  const serialize = ctx.serialize ?? JSON.stringify;
  let closed = false;
  let stream: WatchStream | undefined;
  // Set when this side ends the watch; honoured once core.watch has returned the stream.
  let stopWanted = false;
  const stop = (): void => {
    stopWanted = true;
    stream?.stop();
  };
  let headersWritten = false;
  let noHeaders = false;
  const logContext = { verb: 'watch', group: rr.group, version: rr.version, resource: rr.resource, namespace: rr.namespace };

  const writeHead = (): void => {
    if (headersWritten) return;
    headersWritten = true;
    res.writeHead(200, { 'Content-Type': ctx.protobuf ? PROTOBUF_WATCH_CONTENT_TYPE : 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
  };

  const transform = (ev: WatchEvent): unknown => {
    if (!ctx.table || ev.type === 'BOOKMARK' || isStatus(ev.object)) return ev.object;
    const table = toTable(ev.object, ctx.table.printer, { ...ctx.table.options, noHeaders }, ctx.clock.now());
    noHeaders = true;
    return table;
  };

  const encode = (type: WatchEvent['type'], object: unknown): string | Uint8Array[] =>
    ctx.protobuf ? protobufWatchFrame(type, object) : encodeWatchEvent(type, object, serialize);

  const write = (data: string | Uint8Array[]): void => {
    if (typeof data === 'string') res.write(data);
    else for (const piece of data) res.write(piece);
  };

  const onEvent = (ev: WatchEvent): void => {
    if (closed) return;
    let line: string | Uint8Array[];
    try {
      line = encode(ev.type, transform(ev));
    } catch (err) {
      // A printer or serialization failure ends this watch with an ERROR event, never the core's loop.
      onClose(err);
      stop();
      return;
    }
    writeHead();
    write(line);
    if (res.writableLength > ctx.maxBacklogBytes) {
      ctx.logger?.warn({ ...logContext, backlogBytes: res.writableLength }, 'watch client too slow, closing the watch');
      closed = true;
      stop();
      res.destroy();
    }
  };

  const onClose = (err?: unknown): void => {
    if (closed) return;
    closed = true;
    if (!headersWritten && err !== undefined) {
      writeError(res, err, ctx.logger, logContext, ctx.protobuf ? 'protobuf' : 'json');
      return;
    }
    writeHead();
    if (err !== undefined) write(encode('ERROR', statusOf(err, ctx.logger, logContext)));
    res.end();
  };

  res.on('close', () => {
    if (closed) return;
    closed = true;
    stop();
  });

  try {
    stream = ctx.core.watch(rr, onEvent, onClose);
  } catch (err) {
    if (!closed) {
      closed = true;
      writeError(res, err, ctx.logger, logContext, ctx.protobuf ? 'protobuf' : 'json');
    }
    return;
  }
  if (stopWanted) stream.stop();
  else if (!closed) writeHead();
}
