/**
 * Streaming a list response: the envelope (`{"kind":"PodList","apiVersion":"v1","metadata":{…},"items":[`),
 * then each element's JSON, then the closing, written in chunks of about {@link STREAM_CHUNK_CHARS}
 * with the socket's backpressure honoured. A LIST of 10,000 pods thus holds one chunk per caller
 * instead of the whole encoded list per caller, and a cached object's JSON (the serialize-once cache
 * of the watch cache's frozen objects) is written as is. The bytes are exactly `JSON.stringify` of
 * the materialized list ({@link materializeList}).
 *
 * Upstream does the same for JSON lists since 1.33 (the StreamingCollectionsEncodingToJSON feature,
 * k8s.io/apimachinery/pkg/runtime/serializer/json/collections.go); here Tables and
 * PartialObjectMetadataLists are streamed too, their rows made one at a time.
 */
import type { ServerResponse } from 'node:http';

/** Serializes one object to JSON (JSON.stringify, or a serialize-once cache for frozen objects). */
export type ObjectSerializer = (obj: unknown) => string;

/**
 * A JSON object one of whose members is an array produced element by element: `envelope` gives the
 * members and their order (its `arrayKey` member is a placeholder), `elements` are mapped through
 * `element` one at a time while writing. A class, so a response body is told apart by `instanceof`.
 */
export class StreamedList<T = unknown> {
  constructor(
    readonly envelope: Readonly<Record<string, unknown>>,
    readonly arrayKey: string,
    readonly elements: readonly T[],
    readonly element: (el: T) => unknown,
  ) {}
}

/**
 * Characters gathered before a write: 16 Ki, the socket's default high-water mark and the largest TLS
 * record. Measured (bench/list-memory.ts, 200 concurrent LISTs of 10,000 pods): the server peaks at
 * about 310 MB with 8–32 Ki chunks but about 850 MB with 64 Ki ones, which are slower too (60 s against 39 s).
 */
export const STREAM_CHUNK_CHARS = 16 * 1024;

/**
 * Bytes at the start of a response written without waiting for 'drain'; past them the writer waits
 * whenever the socket reports itself full (at 16 KiB, its high-water mark). Every wait for 'drain'
 * costs a turn of the event loop: on a loaded server (a turn of ~50 ms during a 10,000-pod rollout) a
 * 300 KB list of 100 pods took 20 turns, ~3.7 s, against 56 ms for a GET; now it takes one.
 *
 * Only at the start: letting a response run 256 KiB ahead of its socket before every wait, rather
 * than once, made 200 concurrent LISTs of 10,000 pods over TLS peak at 2.35 GB RSS instead of
 * 0.75 GB (bench/list-memory.ts). The sockets' buffers stayed within that bound (`writableLength`
 * counts what a TLS socket holds; checked), so the growth was elsewhere — most likely the heap, as
 * each turn of the event loop then encoded up to 200 × 256 KiB; not pinned down further.
 */
export const STREAM_BUFFER_BYTES = 256 * 1024;

/** A list body (an object with an `items` array) as a {@link StreamedList} of its own items. */
export function streamedListOf(body: { items: readonly unknown[] }): StreamedList {
  return new StreamedList(body, 'items', body.items, (el) => el);
}

/** The object a {@link StreamedList} stands for (what `JSON.stringify` of the streamed bytes parses back to). */
export function materializeList<T>(list: StreamedList<T>): Record<string, unknown> {
  return { ...list.envelope, [list.arrayKey]: list.elements.map(list.element) };
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * `JSON.stringify(value)`, except that every frozen object inside is encoded with `serialize`, so
 * cached text is reused (rows whose `object` is a frozen object's metadata, for instance). Arrays and
 * plain objects that are not frozen are walked with JSON.stringify's rules (undefined, functions and
 * symbols left out of objects and written as `null` in arrays); anything else goes to JSON.stringify.
 * With `serialize = JSON.stringify` the result is JSON.stringify's, byte for byte.
 */
export function encodeJSON(value: unknown, serialize: ObjectSerializer): string | undefined {
  if (value === null || typeof value !== 'object') {
    // JSON.stringify is typed as returning a string, but gives undefined for undefined, functions and symbols.
    const text: string | undefined = JSON.stringify(value);
    return text;
  }
  if (Object.isFrozen(value)) return serialize(value);
  if (Array.isArray(value)) return `[${value.map((v: unknown) => encodeJSON(v, serialize) ?? 'null').join(',')}]`;
  if (!isPlainObject(value) || typeof (value as { toJSON?: unknown }).toJSON === 'function') return JSON.stringify(value);
  const members: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    const text = encodeJSON(v, serialize);
    if (text !== undefined) members.push(`${JSON.stringify(k)}:${text}`);
  }
  return `{${members.join(',')}}`;
}

/**
 * The JSON text of `list` as pieces: the envelope's members up to `"<arrayKey>":[`, then each element
 * (comma first after the first one), then `]`, the members after it and `}`. Lazy: an element is
 * mapped and encoded only when its piece is asked for.
 */
export function* listJSONPieces<T>(list: StreamedList<T>, serialize: ObjectSerializer): Generator<string, void, undefined> {
  const before: string[] = [];
  const after: string[] = [];
  let seen = false;
  for (const [key, value] of Object.entries(list.envelope)) {
    if (key === list.arrayKey) {
      seen = true;
      continue;
    }
    const text = JSON.stringify(value) as string | undefined;
    if (text !== undefined) (seen ? after : before).push(`${JSON.stringify(key)}:${text}`);
  }
  yield `{${before.map((m) => `${m},`).join('')}${JSON.stringify(list.arrayKey)}:[`;
  for (let i = 0; i < list.elements.length; i++) {
    const text = encodeJSON(list.element(list.elements[i] as T), serialize) ?? 'null';
    yield i === 0 ? text : `,${text}`;
  }
  yield `]${after.map((m) => `,${m}`).join('')}}`;
}

/** False once the response has ended or its connection is gone: nothing more may be written. */
export function responseOpen(res: ServerResponse): boolean {
  return !res.writableEnded && !res.destroyed;
}

/** Resolves true on 'drain', false when the response closes (client gone) or fails first. */
function drained(res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean) => (): void => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      res.off('error', onClose);
      resolve(ok);
    };
    const onDrain = done(true);
    const onClose = done(false);
    res.once('drain', onDrain);
    res.once('close', onClose);
    res.once('error', onClose);
  });
}

/**
 * Writes `pieces` as the body with `code` and `contentType`, gathering about `chunkChars` characters
 * per write and waiting for 'drain' whenever a write reports a full buffer. A body that fits in the
 * first chunk is sent with a Content-Length, a longer one chunked. Resolves true when the body was
 * written, false when the client went away (or the response was ended elsewhere, e.g. by the
 * request timeout) — no more pieces are taken then. A piece that throws before the first write
 * leaves the response untouched for the caller's error answer; later, the caller must end the
 * connection (writeError does).
 */
export function writeJSONPieces(
  res: ServerResponse,
  code: number,
  contentType: string,
  pieces: Iterable<string>,
  chunkChars = STREAM_CHUNK_CHARS,
  bufferBytes = STREAM_BUFFER_BYTES,
): Promise<boolean> {
  return writePieces(res, code, contentType, pieces, (p) => p.length, (ps) => ps.join(''), chunkChars, bufferBytes);
}

/**
 * Writes binary `pieces` (a protobuf list, piece by piece) as {@link writeJSONPieces} writes text:
 * gathered into writes of about `chunkBytes`, honouring backpressure, with a Content-Length when the
 * whole body fits in the first chunk. Resolves false when the client went away.
 */
export function writeBinaryPieces(
  res: ServerResponse,
  code: number,
  contentType: string,
  pieces: Iterable<Uint8Array>,
  chunkBytes = STREAM_CHUNK_CHARS,
  bufferBytes = STREAM_BUFFER_BYTES,
): Promise<boolean> {
  return writePieces(res, code, contentType, pieces, (p) => p.length, (ps) => Buffer.concat(ps), chunkBytes, bufferBytes);
}

/**
 * The writer of {@link writeJSONPieces} and {@link writeBinaryPieces}: gathers pieces until their
 * `size`s reach `chunk`, writes them `join`ed, and waits for 'drain' past `bufferBytes` held.
 */
async function writePieces<P>(
  res: ServerResponse,
  code: number,
  contentType: string,
  pieces: Iterable<P>,
  size: (piece: P) => number,
  join: (pieces: P[]) => string | Buffer,
  chunk: number,
  bufferBytes: number,
): Promise<boolean> {
  let batch: P[] = [];
  let gathered = 0;
  /** What has been written so far (in `size` units: characters or bytes). */
  let written = 0;
  let started = false;
  const begin = (length?: number): void => {
    res.statusCode = code;
    res.setHeader('Content-Type', contentType);
    if (length !== undefined) res.setHeader('Content-Length', length);
  };
  for (const piece of pieces) {
    if (!responseOpen(res)) return false;
    batch.push(piece);
    gathered += size(piece);
    if (gathered < chunk) continue;
    if (!started) {
      started = true;
      begin();
    }
    const ok = res.write(join(batch));
    written += gathered;
    batch = [];
    gathered = 0;
    if (!ok && written >= bufferBytes && !(await drained(res))) return false;
  }
  if (!responseOpen(res)) return false;
  const body = join(batch);
  if (!started) begin(Buffer.byteLength(body));
  res.end(body);
  return true;
}
