import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http, { type ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { serializedJSON } from '../watchcache/serialized.js';
import { podPrinter } from './fake-core.js';
import { startTestServer, TOKEN, type TestServer } from './harness.js';
import { encodeJSON, listJSONPieces, materializeList, StreamedList, streamedListOf, writeJSONPieces } from './streaming.js';
import { toTable } from './table.js';

const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

/** A pod-like object; frozen (as the watch cache's are) when `frozen`. */
function pod(i: number, frozen = true): Record<string, unknown> {
  const p = {
    metadata: { name: `pod-${i}`, namespace: 'default', uid: `uid-${i}`, resourceVersion: String(100 + i), labels: { app: 'web', 'ü"\\': 'x' }, creationTimestamp: '2024-12-31T23:00:00Z' },
    spec: { nodeName: `node-${i % 7}`, containers: [{ name: 'c', image: 'nginx', env: [{ name: 'E', value: '\u2028line' }] }] },
    status: { phase: i % 5 === 0 ? 'Succeeded' : 'Running', podIP: `10.0.${i >> 8}.${i & 255}` },
  };
  if (!frozen) return p;
  const deepFreeze = (o: object): void => {
    Object.freeze(o);
    for (const v of Object.values(o)) if (typeof v === 'object' && v !== null) deepFreeze(v as object);
  };
  deepFreeze(p);
  return p;
}

function podList(n: number, frozen = true): { kind: string; apiVersion: string; metadata: object; items: Record<string, unknown>[] } {
  return { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '12345', continue: 'abc', remainingItemCount: 7 }, items: Array.from({ length: n }, (_, i) => pod(i, frozen)) };
}

describe('encodeJSON', { timeout: 20_000 }, () => {
  const values: unknown[] = [
    null,
    1.5,
    'a"\\\u0001\u2028',
    true,
    [],
    {},
    [1, undefined, () => 1, Symbol('s'), null, { a: undefined }],
    { a: 1, b: undefined, c: () => 2, d: [undefined], 10: 'ten', 2: 'two', e: { f: new Date(0) } },
    Object.freeze({ z: 1, a: Object.freeze([1, 2]) }),
    { nested: Object.freeze({ frozen: { inner: [1, { x: 'y' }] } }), n: Number.NaN, inf: Infinity },
    pod(1),
    pod(2, false),
  ];
  for (const v of values) {
    test(`is JSON.stringify for ${JSON.stringify(v).slice(0, 60)}`, () => {
      assert.equal(encodeJSON(v, JSON.stringify), JSON.stringify(v));
      assert.equal(encodeJSON(v, serializedJSON), JSON.stringify(v));
    });
  }

  test('reuses the serializer for frozen objects only', () => {
    const seen: unknown[] = [];
    const frozen = Object.freeze({ a: 1 });
    const out = encodeJSON({ x: [frozen], y: { b: 2 } }, (o) => {
      seen.push(o);
      return '"cached"';
    });
    assert.equal(out, '{"x":["cached"],"y":{"b":2}}');
    assert.deepEqual(seen, [frozen]);
  });
});

describe('listJSONPieces', { timeout: 20_000 }, () => {
  const joined = <T>(list: StreamedList<T>, serialize = JSON.stringify): string => [...listJSONPieces(list, serialize)].join('');

  for (const n of [0, 1, 3, 10_000]) {
    test(`a ${n}-item list is byte for byte JSON.stringify of it`, () => {
      const list = podList(n);
      assert.equal(joined(streamedListOf(list), serializedJSON), JSON.stringify(list));
    });
  }

  test('members after the array, and undefined members, keep JSON.stringify’s order and omissions', () => {
    const envelope = { a: 1, skip: undefined, rows: [], b: { c: [2] }, fn: () => 3 };
    const list = new StreamedList(envelope, 'rows', [1, 2, 3], (n) => ({ n, half: n / 2, none: undefined }));
    assert.equal(joined(list), JSON.stringify(materializeList(list)));
    assert.equal(joined(list), '{"a":1,"rows":[{"n":1,"half":0.5},{"n":2,"half":1},{"n":3,"half":1.5}],"b":{"c":[2]}}');
  });

  test('elements are made only as they are asked for', () => {
    let made = 0;
    const list = new StreamedList({ items: [] }, 'items', [1, 2, 3], (n) => {
      made++;
      return n;
    });
    const it = listJSONPieces(list, JSON.stringify);
    assert.equal(it.next().value, '{"items":[');
    assert.equal(made, 0);
    assert.equal(it.next().value, '1');
    assert.equal(made, 1);
  });
});

/** A response stand-in whose writes complete only when the test says so (a client reading slowly). */
class SlowResponse extends Writable {
  statusCode = 0;
  readonly headers: Record<string, unknown> = {};
  readonly written: string[] = [];
  private pending: (() => void)[] = [];
  constructor() {
    super({ highWaterMark: 1, decodeStrings: false });
  }
  setHeader(name: string, value: unknown): this {
    this.headers[name.toLowerCase()] = value;
    return this;
  }
  override _write(chunk: string, _enc: BufferEncoding, cb: () => void): void {
    this.written.push(chunk);
    this.pending.push(cb);
  }
  /** Completes the writes so far ('drain' follows). */
  flush(): void {
    for (const cb of this.pending.splice(0)) cb();
  }
}

/** Lets every pending callback and promise continuation run (one turn of the event loop; no timer). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('writeJSONPieces', { timeout: 20_000 }, () => {
  function counted(n: number): { pieces: Iterable<string>; taken: () => number } {
    let taken = 0;
    return {
      pieces: (function* () {
        for (let i = 0; i < n; i++) {
          taken++;
          yield 'x'.repeat(100);
        }
      })(),
      taken: () => taken,
    };
  }

  test('waits for drain when a write reports a full buffer', async () => {
    const res = new SlowResponse();
    const src = counted(5);
    const done = writeJSONPieces(res as unknown as ServerResponse, 200, 'application/json', src.pieces, 100, 100);
    await settle();
    assert.equal(src.taken(), 1, 'one chunk written, then it waits');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-length'], undefined, 'a streamed body is chunked');
    for (let i = 2; i <= 5; i++) {
      res.flush(); // 'drain'
      await settle();
      assert.equal(src.taken(), i);
    }
    res.flush();
    assert.equal(await done, true);
    assert.equal(res.written.join(''), 'x'.repeat(500));
  });

  test('writes the first bufferBytes without waiting (one event-loop turn for a small list), then waits whenever the socket is full', async () => {
    const res = new SlowResponse();
    const src = counted(5);
    const done = writeJSONPieces(res as unknown as ServerResponse, 200, 'application/json', src.pieces, 100, 300);
    await settle();
    assert.equal(src.taken(), 3, 'three chunks written (the 300 allowed), then it waits');
    // Past the allowance, each 'drain' lets one more chunk through (the socket holds one at a time).
    let before = src.taken();
    for (let i = 0; i < 20 && src.taken() < 5; i++) {
      res.flush();
      await settle();
      assert.ok(src.taken() - before <= 1, `one chunk per drain, not ${src.taken() - before}`);
      before = src.taken();
    }
    assert.equal(src.taken(), 5);
    for (let i = 0; i < 5; i++) {
      res.flush();
      await settle();
    }
    assert.equal(await done, true);
    assert.equal(res.written.join(''), 'x'.repeat(500));
  });

  test('stops taking pieces when the client goes away', async () => {
    const res = new SlowResponse();
    const src = counted(1000);
    const done = writeJSONPieces(res as unknown as ServerResponse, 200, 'application/json', src.pieces, 100, 100);
    res.destroy();
    assert.equal(await done, false);
    assert.equal(src.taken(), 1);
  });

  test('a body that fits in one chunk is sent with a Content-Length', async () => {
    const res = new SlowResponse();
    const done = writeJSONPieces(res as unknown as ServerResponse, 201, 'application/json', ['{"a":', '"é"}'], 100);
    res.flush();
    assert.equal(await done, true);
    assert.equal(res.statusCode, 201);
    assert.equal(res.headers['content-length'], Buffer.byteLength('{"a":"é"}'));
  });
});

describe('streamed LIST responses over HTTP', { timeout: 20_000 }, () => {
  let t: TestServer;
  let serialized = 0;
  before(async () => {
    t = await startTestServer({
      serializeObject: (o) => {
        serialized++;
        return serializedJSON(o);
      },
    });
  });
  after(() => t.server.close());

  const listAnswering = (body: unknown): void => {
    t.core.onHandle = () => ({ code: 200, body, warnings: [] });
  };

  for (const [n, frozen] of [
    [2, false],
    [2, true],
    [10_000, true],
  ] as const) {
    test(`a ${n}-item list (${frozen ? 'cached' : 'plain'} objects) is byte for byte JSON.stringify of it`, async () => {
      const list = podList(n, frozen);
      listAnswering(list);
      const res = await t.fetch('/api/v1/namespaces/default/pods');
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/json');
      assert.equal(await res.text(), JSON.stringify(list));
      assert.equal(res.headers.get('content-length') === null, n > 2, 'small lists keep a Content-Length, large ones are chunked');
    });

    test(`a ${n}-row Table (kubectl get pods) is byte for byte JSON.stringify of the Table`, async () => {
      const list = podList(n, frozen);
      listAnswering(list);
      const res = await t.fetch('/api/v1/namespaces/default/pods', { headers: { accept: TABLE_ACCEPT } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/json;as=Table;v=v1;g=meta.k8s.io');
      const opts = { apiVersion: 'meta.k8s.io/v1', includeObject: 'Metadata', noHeaders: false, kind: 'Pod', objectApiVersion: 'v1' } as const;
      assert.equal(await res.text(), JSON.stringify(toTable(list, podPrinter, opts, t.clock.now())));
    });
  }

  test('a PartialObjectMetadataList is byte for byte JSON.stringify of it', async () => {
    const list = podList(3);
    listAnswering(list);
    const res = await t.fetch('/api/v1/namespaces/default/pods', { headers: { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' } });
    const expected = {
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '12345', continue: 'abc', remainingItemCount: 7 },
      items: list.items.map((p) => ({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: p['metadata'] })),
    };
    assert.equal(await res.text(), JSON.stringify(expected));
  });

  test('a client that disconnects mid-list stops the writing', async () => {
    const big = Array.from({ length: 10_000 }, (_, i) => Object.freeze({ metadata: Object.freeze({ name: `p${i}` }), data: 'z'.repeat(4000) }));
    listAnswering({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items: big });
    serialized = 0;
    const served = new Promise<void>((resolve) => t.server.server.once('request', (_req, res: ServerResponse) => res.once('close', resolve)));
    const req = http.get(`${t.base}/api/v1/namespaces/default/pods`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const [res] = (await once(req, 'response')) as [http.IncomingMessage];
    await once(res, 'data');
    req.on('error', () => {});
    req.destroy();
    await served;
    await settle();
    const written = serialized;
    assert.ok(written > 0 && written < 10_000, `stopped after ${written} of 10000 items`);
    await settle();
    assert.equal(serialized, written, 'nothing more is taken once the connection is gone');
  });
});
