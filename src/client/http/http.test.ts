import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { StatusError, isNotFound } from '../../machinery/errors/index.js';
import { HttpTransport, requestPath } from './index.js';
import type { WatchEvent } from '../../api/request.js';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const seen: Seen[] = [];
let server: http.Server;
let base = '';

/** Writes `parts` one per turn of the event loop, so they tend to arrive as separate chunks. */
function writeSlowly(res: http.ServerResponse, parts: Buffer[], end: boolean): void {
  const next = (i: number): void => {
    if (i === parts.length) {
      if (end) res.end();
      return;
    }
    res.write(parts[i]);
    setImmediate(() => next(i + 1));
  };
  next(0);
}

before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname.endsWith('/missing')) {
        res.writeHead(404, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'NotFound', message: 'pods "missing" not found', code: 404 }));
        return;
      }
      if (url.pathname.endsWith('/broken')) {
        res.writeHead(502, { 'Content-Type': 'text/html' });
        res.end('<html>bad gateway</html>');
        return;
      }
      if (url.searchParams.get('watch') === 'true') {
        if (url.searchParams.get('resourceVersion') === 'gone') {
          res.writeHead(410, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Expired', message: 'too old', code: 410 }));
          return;
        }
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.flushHeaders();
        const ev1 = JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'café', resourceVersion: '5' } } }) + '\n';
        const ev2 = JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '6' } } });
        const bytes = Buffer.from(ev1 + ev2 + '\n' + ev2, 'utf8');
        const cut = bytes.indexOf(Buffer.from('é')) + 1; // inside the two-byte é
        const forever = url.searchParams.get('labelSelector') === 'forever';
        writeSlowly(res, [bytes.subarray(0, 10), bytes.subarray(10, cut), bytes.subarray(cut)], !forever);
        return;
      }
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ ok: true, method: req.method }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

describe('requestPath', () => {
  test('builds upstream URL paths', () => {
    assert.equal(requestPath({ verb: 'list', group: '', version: 'v1', resource: 'pods' }), '/api/v1/pods');
    assert.equal(requestPath({ verb: 'get', group: '', version: 'v1', resource: 'namespaces', name: 'kube-system' }), '/api/v1/namespaces/kube-system');
    assert.equal(
      requestPath({ verb: 'update', group: 'apps', version: 'v1', resource: 'deployments', namespace: 'ns', name: 'web', subresource: 'scale' }),
      '/apis/apps/v1/namespaces/ns/deployments/web/scale',
    );
    assert.equal(requestPath({ verb: 'get', group: '', version: 'v1', resource: 'pods', namespace: 'a b', name: 'x/y' }), '/api/v1/namespaces/a%20b/pods/x%2Fy');
  });
});

describe('HttpTransport', () => {
  test('sends method, path, query, headers and JSON bodies; parses the response', async () => {
    const t = new HttpTransport({ server: `${base}/prefix/`, token: 'secret', userAgent: 'ua-default' });
    seen.length = 0;
    const created = await t.request({
      verb: 'create',
      group: 'apps',
      version: 'v1',
      resource: 'deployments',
      namespace: 'ns',
      body: { metadata: { name: 'd' } },
      query: { fieldManager: 'm', dryRun: 'All' },
      userAgent: 'kube-controller-manager',
    });
    assert.deepEqual(created, { ok: true, method: 'POST' });
    await t.request({ verb: 'patch', group: '', version: 'v1', resource: 'pods', namespace: 'ns', name: 'p', subresource: 'status', patchType: 'application/strategic-merge-patch+json', body: { status: {} } });
    await t.request({ verb: 'delete', group: '', version: 'v1', resource: 'pods', namespace: 'ns', name: 'p', body: { propagationPolicy: 'Background' } });
    await t.request({ verb: 'list', group: '', version: 'v1', resource: 'pods', query: { labelSelector: 'app in (a,b)' } });
    t.close();

    const [create, patch, del, list] = seen;
    assert.equal(create?.method, 'POST');
    assert.equal(create?.url, '/prefix/apis/apps/v1/namespaces/ns/deployments?fieldManager=m&dryRun=All');
    assert.equal(create?.headers.authorization, 'Bearer secret');
    assert.equal(create?.headers['user-agent'], 'kube-controller-manager');
    assert.equal(create?.headers['content-type'], 'application/json');
    assert.equal(create?.headers.accept, 'application/json');
    assert.deepEqual(JSON.parse(create?.body ?? ''), { metadata: { name: 'd' } });
    assert.equal(patch?.method, 'PATCH');
    assert.equal(patch?.url, '/prefix/api/v1/namespaces/ns/pods/p/status');
    assert.equal(patch?.headers['content-type'], 'application/strategic-merge-patch+json');
    assert.equal(patch?.headers['user-agent'], 'ua-default');
    assert.equal(del?.method, 'DELETE');
    assert.deepEqual(JSON.parse(del?.body ?? ''), { propagationPolicy: 'Background' });
    assert.equal(list?.method, 'GET');
    assert.equal(list?.url, '/prefix/api/v1/pods?labelSelector=app+in+%28a%2Cb%29');
    assert.equal(list?.body, '');
    assert.equal(list?.headers['content-type'], undefined);
  });

  test('non-2xx responses throw StatusError from the Status body, or from the code', async () => {
    const t = new HttpTransport({ server: base });
    await assert.rejects(t.request({ verb: 'get', group: '', version: 'v1', resource: 'pods', namespace: 'ns', name: 'missing' }), (err) => {
      assert.ok(err instanceof StatusError);
      assert.ok(isNotFound(err));
      assert.equal(err.message, 'pods "missing" not found');
      return true;
    });
    await assert.rejects(t.request({ verb: 'get', group: '', version: 'v1', resource: 'pods', namespace: 'ns', name: 'broken' }), (err) => {
      assert.ok(err instanceof StatusError);
      assert.equal(err.code, 502);
      assert.equal(err.message, '<html>bad gateway</html>');
      return true;
    });
    t.close();
  });

  test('connection failures reject with the network error', async () => {
    const t = new HttpTransport({ server: 'http://127.0.0.1:1' });
    await assert.rejects(t.request({ verb: 'list', group: '', version: 'v1', resource: 'pods' }), /ECONNREFUSED/);
  });

  test('watch parses one event per line across chunk and UTF-8 boundaries; onClose once at the end', async () => {
    const t = new HttpTransport({ server: base });
    seen.length = 0;
    const events: WatchEvent[] = [];
    const closes: unknown[] = [];
    await new Promise<void>((resolve) => {
      t.watch(
        { verb: 'watch', group: '', version: 'v1', resource: 'pods', query: { resourceVersion: '4', allowWatchBookmarks: 'true' } },
        (ev) => events.push(ev),
        (err) => {
          closes.push(err);
          resolve();
        },
      );
    });
    t.close();
    assert.equal(seen[0]?.url, '/api/v1/pods?watch=true&resourceVersion=4&allowWatchBookmarks=true');
    assert.deepEqual(events, [
      { type: 'ADDED', object: { metadata: { name: 'café', resourceVersion: '5' } } },
      { type: 'BOOKMARK', object: { metadata: { resourceVersion: '6' } } },
      { type: 'BOOKMARK', object: { metadata: { resourceVersion: '6' } } },
    ]);
    assert.deepEqual(closes, [undefined]);
  });

  test('watch: non-200 closes with the StatusError; stop() closes once without error', async () => {
    const t = new HttpTransport({ server: base });
    const err = await new Promise<unknown>((resolve) => {
      t.watch({ verb: 'watch', group: '', version: 'v1', resource: 'pods', query: { resourceVersion: 'gone' } }, () => assert.fail('no events'), resolve);
    });
    assert.ok(err instanceof StatusError);
    assert.equal(err.code, 410);

    const closes: unknown[] = [];
    await new Promise<void>((resolve) => {
      const w = t.watch(
        { verb: 'watch', group: '', version: 'v1', resource: 'pods', query: { labelSelector: 'forever' } },
        () => {
          w.stop();
          w.stop();
          resolve();
        },
        (e) => closes.push(e),
      );
    });
    assert.deepEqual(closes, [undefined]);
    t.close();
  });
});
