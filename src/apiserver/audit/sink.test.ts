/**
 * The log backend. Ported from k8s.io/apiserver plugin/pkg/audit/log/backend_test.go
 * (`TestLogEventsLegacy`, `TestLogEventsJson`, v1.33), plus the file handling of
 * pkg/server/options/audit.go (`ensureLogFile`: created 0600, appended to; `-` is stdout) and the
 * flags' validation.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '../../util/clock/index.js';
import { requestInfoOf } from '../http/requestinfo.js';
import { eventString } from './format.js';
import { newAuditorFromOptions, validateAuditOptions } from './options.js';
import { encodeAuditEvent, fileAuditSink, MemoryAuditSink } from './sink.js';
import type { AuditEvent } from './types.js';

const event = (e: Partial<AuditEvent>): AuditEvent =>
  ({ kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', auditID: '', stage: 'RequestReceived', requestURI: '', verb: '', user: {}, requestReceivedTimestamp: '', stageTimestamp: '', ...e });

describe('legacy format (upstream TestLogEventsLegacy)', () => {
  const cases: [Partial<AuditEvent>, RegExp][] = [
    [
      { auditID: '6f3e1a52-1d1b-4f55-9d1b-1b1b1b1b1b1b' },
      /^[\d:\-.+TZ]+ AUDIT: id="[\w-]+" stage="" ip="<unknown>" method="" user="<none>" groups="<none>" as="<self>" asgroups="<lookup>" user-agent="" namespace="<none>" uri="" response="<deferred>"$/,
    ],
    [
      {
        responseStatus: { metadata: {}, code: 200 },
        requestURI: '/apis/rbac.authorization.k8s.io/v1/roles',
        sourceIPs: ['127.0.0.1'],
        requestReceivedTimestamp: '2024-01-01T00:00:00.123456Z',
        auditID: '6f3e1a52-1d1b-4f55-9d1b-1b1b1b1b1b1b',
        stage: 'RequestReceived',
        verb: 'get',
        user: { username: 'admin', groups: ['system:masters', 'system:authenticated'] },
        userAgent: 'kube-admin',
        objectRef: { namespace: 'default' },
      },
      /^[\d:\-.+TZ]+ AUDIT: id="[\w-]+" stage="RequestReceived" ip="127.0.0.1" method="get" user="admin" groups="\\"system:masters\\",\\"system:authenticated\\"" as="<self>" asgroups="<lookup>" user-agent="kube-admin" namespace="default" uri="\/apis\/rbac.authorization.k8s.io\/v1\/roles" response="200"$/,
    ],
    [
      { auditID: '6f3e1a52-1d1b-4f55-9d1b-1b1b1b1b1b1b', level: 'Metadata', objectRef: { resource: 'foo', apiVersion: 'v1', subresource: 'bar' } },
      /^[\d:\-.+TZ]+ AUDIT: id="[\w-]+" stage="" ip="<unknown>" method="" user="<none>" groups="<none>" as="<self>" asgroups="<lookup>" user-agent="" namespace="<none>" uri="" response="<deferred>"$/,
    ],
  ];
  cases.forEach(([ev, want], i) => {
    test(`case ${i}`, () => {
      assert.match(eventString(ev), want);
    });
  });

  test('the time is RFC3339Nano; impersonation is shown', () => {
    const line = eventString(
      event({
        requestReceivedTimestamp: '2024-01-01T00:00:00.120000Z',
        user: { username: 'admin' },
        impersonatedUser: { username: 'bob', groups: ['ops'] },
      }),
    );
    assert.ok(line.startsWith('2024-01-01T00:00:00.12Z AUDIT: '));
    assert.match(line, / user="admin" groups="<none>" as="bob" asgroups="\\"ops\\"" /);
  });
});

describe('json format (upstream TestLogEventsJson)', () => {
  const events: AuditEvent[] = [
    event({ auditID: 'a' }),
    event({
      responseStatus: { metadata: {}, code: 200 },
      requestURI: '/apis/rbac.authorization.k8s.io/v1/roles',
      sourceIPs: ['127.0.0.1'],
      requestReceivedTimestamp: '2024-01-01T00:00:00.123456Z',
      stageTimestamp: '2024-01-01T00:00:00.223456Z',
      auditID: 'b',
      stage: 'RequestReceived',
      verb: 'get',
      user: { username: 'admin', groups: ['system:masters', 'system:authenticated'] },
      objectRef: { namespace: 'default' },
    }),
    event({ auditID: 'c', level: 'Metadata', objectRef: { resource: 'foo', apiVersion: 'v1', subresource: 'bar' } }),
  ];
  events.forEach((ev, i) => {
    test(`case ${i}: one line that decodes back to the event`, () => {
      const line = encodeAuditEvent(ev, 'json');
      assert.ok(line.endsWith('}\n'));
      assert.equal(line.indexOf('\n'), line.length - 1);
      assert.deepEqual(JSON.parse(line), ev);
      assert.ok(line.startsWith('{"kind":"Event","apiVersion":"audit.k8s.io/v1",'));
    });
  });
});

describe('file sink (--audit-log-path)', () => {
  test('writes JSON lines, appending to a file created 0600 in a directory created 0700', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-log-'));
    try {
      const path = join(dir, 'sub', 'audit.log');
      const sink = fileAuditSink(path);
      sink.write(event({ auditID: '1' }));
      sink.write(event({ auditID: '2' }));
      await sink.close();
      if (process.platform !== 'win32') {
        assert.equal(statSync(path).mode & 0o777, 0o600);
        assert.equal(statSync(join(dir, 'sub')).mode & 0o777, 0o700);
      }
      const again = fileAuditSink(path, { format: 'legacy' });
      again.write(event({ auditID: '3' }));
      await again.close();
      const lines = readFileSync(path, 'utf8').split('\n');
      assert.equal(lines.length, 4);
      assert.equal((JSON.parse(lines[0] as string) as AuditEvent).auditID, '1');
      assert.equal((JSON.parse(lines[1] as string) as AuditEvent).auditID, '2');
      assert.match(lines[2] as string, / AUDIT: id="3" /);
      assert.equal(lines[3], '');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a path that cannot be created fails at once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-log-'));
    try {
      const file = join(dir, 'file');
      writeFileSync(file, '');
      assert.throws(() => fileAuditSink(join(file, 'audit.log')), /^Error: ensureLogFile: /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('`-` writes to standard output', async () => {
    const written: string[] = [];
    const original = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => {
      written.push(chunk);
      return true;
    });
    try {
      const sink = fileAuditSink('-');
      sink.write(event({ auditID: 'x' }));
      await sink.close();
    } finally {
      process.stdout.write = original;
    }
    assert.equal(written.length, 1);
    assert.equal((JSON.parse(written[0] as string) as AuditEvent).auditID, 'x');
  });
});

describe('options (pkg/server/options/audit.go)', () => {
  test('validation messages, only with a log path', () => {
    assert.deepEqual(validateAuditOptions({ logFormat: 'xml', logMaxAge: -1 }), []);
    assert.deepEqual(validateAuditOptions({ logPath: '-', logFormat: 'xml', logMaxAge: -1, logMaxBackup: -2, logMaxSize: -3 }), [
      'invalid audit log format xml, allowed formats are "legacy,json"',
      "--audit-log-maxage -1 can't be a negative number",
      "--audit-log-maxbackup -2 can't be a negative number",
      "--audit-log-maxsize -3 can't be a negative number",
    ]);
    assert.deepEqual(validateAuditOptions({ logPath: '-' }), []);
  });

  test('auditing needs both a policy file and a log; a bad policy fails startup', () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-opts-'));
    try {
      const clock = new FakeClock();
      const policyFile = join(dir, 'policy.yaml');
      writeFileSync(policyFile, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
      const sink = new MemoryAuditSink();
      assert.equal(newAuditorFromOptions({}, { clock }), undefined);
      assert.equal(newAuditorFromOptions({ policyFile }, { clock }), undefined);
      assert.equal(newAuditorFromOptions({ logPath: join(dir, 'a.log') }, { clock }), undefined);
      const auditor = newAuditorFromOptions({ policyFile, logPath: '-' }, { clock, sink });
      assert.ok(auditor);
      auditor.begin({ requestURI: '/version', headers: {}, info: requestInfoOf('GET', '/version', {}) })?.complete();
      assert.deepEqual(sink.events.map((e) => e.stage), ['RequestReceived', 'ResponseComplete']);

      writeFileSync(policyFile, 'apiVersion: audit.k8s.io/v1\nkind: Policy\n');
      assert.throws(() => newAuditorFromOptions({ policyFile }, { clock }), {
        message: `loading audit policy file: loaded illegal policy with 0 rules: from file ${policyFile}`,
      });
      assert.throws(() => newAuditorFromOptions({ policyFile, logPath: '-', logFormat: 'xml' }, { clock }), {
        message: 'invalid audit log format xml, allowed formats are "legacy,json"',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
