import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { lookupType, rootTypes } from '../schema/index.js';
import { PROTOBUF_MAGIC, ProtobufDecodeError, decodeKubernetesProtobuf, decodeMessage, formatDuration } from './decode.js';
import { RECORDED_BODIES } from './recorded-bodies.js';
import { messageDef, messageForKind, messageNames } from './schema.js';
import { WireReader, WireWriter } from './wire.js';

/** `k8s\0` + runtime.Unknown{typeMeta{apiVersion, kind}, raw}. */
function envelope(apiVersion: string, kind: string, raw: WireWriter | Uint8Array): Buffer {
  const unknown = new WireWriter().bytes(1, new WireWriter().bytes(1, apiVersion).bytes(2, kind)).bytes(2, raw).bytes(3, '').bytes(4, '');
  return Buffer.concat([PROTOBUF_MAGIC, unknown.finish()]);
}

/**
 * Go's JSON shows the zero metav1.Time as null; the decoder leaves it out. `status` is server-set (and
 * Go's JSON shows its non-omitempty zero counters, which the decoder drops as unset).
 */
function comparable(v: Record<string, unknown>): unknown {
  const rest = { ...v };
  delete rest['status'];
  return withoutNulls(rest);
}

function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, withoutNulls(x)]));
}

const DEFAULTS = { apiVersion: 'v1', kind: 'ConfigMap' };

describe('recorded kubectl 1.33 bodies', () => {
  for (const rec of RECORDED_BODIES) {
    test(`${rec.command} decodes to its --dry-run=client -o json`, () => {
      const got = decodeKubernetesProtobuf(Buffer.from(rec.hex, 'hex'), DEFAULTS);
      assert.deepEqual(comparable(got), comparable(rec.dryRun));
    });
  }

  test('every truncation of a recorded body fails cleanly (or is a shorter valid message), never crashes', () => {
    for (const rec of RECORDED_BODIES) {
      const full = Buffer.from(rec.hex, 'hex');
      for (let n = 0; n < full.length; n++) {
        try {
          decodeKubernetesProtobuf(full.subarray(0, n), DEFAULTS);
        } catch (err) {
          assert.ok(err instanceof ProtobufDecodeError, `${rec.command} cut at ${n}: ${String(err)}`);
        }
      }
    }
  });

  test('a body cut inside raw is an error (unexpected EOF)', () => {
    const full = Buffer.from((RECORDED_BODIES[0] as { hex: string }).hex, 'hex');
    assert.throws(() => decodeKubernetesProtobuf(full.subarray(0, full.length - 5), DEFAULTS), { message: 'unexpected EOF' });
  });

  test('every single-byte corruption of a recorded body fails cleanly or decodes, never crashes', () => {
    const full = Buffer.from((RECORDED_BODIES[0] as { hex: string }).hex, 'hex');
    for (let i = 4; i < full.length; i++) {
      for (const b of [0x00, 0x07, 0x7f, 0xff]) {
        const bad = Buffer.from(full);
        bad[i] = b;
        try {
          decodeKubernetesProtobuf(bad, DEFAULTS);
        } catch (err) {
          assert.ok(err instanceof ProtobufDecodeError, `byte ${i}=${b}: ${String(err)}`);
        }
      }
    }
  });
});

describe('envelope', () => {
  test('empty data, a missing magic and an empty body have upstream messages', () => {
    assert.throws(() => decodeKubernetesProtobuf(Buffer.alloc(0), DEFAULTS), { message: 'empty data' });
    assert.throws(() => decodeKubernetesProtobuf(Buffer.from('{"kind":"x"}'), DEFAULTS), {
      message: 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]',
    });
    assert.throws(() => decodeKubernetesProtobuf(Buffer.from(PROTOBUF_MAGIC), DEFAULTS), { message: 'empty body' });
  });

  test('an unknown kind is an error that names it and the envelope type', () => {
    const body = envelope('v1', 'Frobnicator', new WireWriter());
    assert.throws(
      () => decodeKubernetesProtobuf(body, DEFAULTS),
      (err: unknown) =>
        err instanceof ProtobufDecodeError &&
        err.message === 'no kind "Frobnicator" is registered for version "v1" in scheme "pkg/api/legacyscheme/scheme.go:30"' &&
        err.typeMeta?.kind === 'Frobnicator',
    );
  });

  test('a missing kind and version default to the endpoint (copyKindDefaults)', () => {
    const unknown = new WireWriter().bytes(2, new WireWriter().bytes(1, new WireWriter().bytes(1, 'cfg'))).finish();
    const got = decodeKubernetesProtobuf(Buffer.concat([PROTOBUF_MAGIC, unknown]), DEFAULTS);
    assert.deepEqual(got, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' } });
  });

  test('meta/v1 kinds resolve under any group version (DeleteOptions with apps/v1)', () => {
    const opts = new WireWriter().int(1, 0).bytes(4, 'Foreground').bytes(5, 'All');
    const got = decodeKubernetesProtobuf(envelope('apps/v1', 'DeleteOptions', opts), DEFAULTS);
    assert.deepEqual(got, { apiVersion: 'apps/v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, propagationPolicy: 'Foreground', dryRun: ['All'] });
  });
});

describe('special encodings', () => {
  test('meta/v1 Time and MicroTime; a zero Time is left out', () => {
    const time = (s: number, n = 0): WireWriter => new WireWriter().int(1, s).int(2, n);
    const lease = new WireWriter()
      .bytes(1, new WireWriter().bytes(1, 'node-1').bytes(8, new WireWriter()).bytes(9, time(1735689600)))
      .bytes(2, new WireWriter().bytes(1, 'node-1').int(2, 40).bytes(3, time(1735689600, 123456789)).bytes(4, time(0)));
    const got = decodeMessage('k8s.io.api.coordination.v1.Lease', lease.finish());
    assert.deepEqual(got, {
      metadata: { name: 'node-1', deletionTimestamp: '2025-01-01T00:00:00Z' },
      spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40, acquireTime: '2025-01-01T00:00:00.123456Z', renewTime: null },
    });
  });

  test('IntOrString as int and string, pointer zero kept, non-pointer zero dropped', () => {
    const ios = (type: number, i: number, s: string): WireWriter => new WireWriter().int(1, type).int(2, i).bytes(3, s);
    const deploy = new WireWriter().bytes(
      4,
      new WireWriter().bytes(1, 'RollingUpdate').bytes(2, new WireWriter().bytes(1, ios(0, 0, '')).bytes(2, ios(1, 0, '25%'))),
    );
    const spec = decodeMessage('k8s.io.api.apps.v1.DeploymentSpec', deploy.finish());
    assert.deepEqual(spec, { strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: '25%' } } });
    const port = decodeMessage('k8s.io.api.core.v1.ServicePort', new WireWriter().bytes(1, '').int(3, 80).bytes(4, ios(0, 0, '')).int(5, 0).finish());
    assert.deepEqual(port, { port: 80 });
  });

  test('Quantity maps, bytes as base64, string maps with empty values, packed and negative ints', () => {
    const qty = (s: string): WireWriter => new WireWriter().bytes(1, s);
    const entry = (k: string, v: string | Uint8Array | WireWriter): WireWriter => new WireWriter().bytes(1, k).bytes(2, v);
    const resources = decodeMessage(
      'k8s.io.api.core.v1.ResourceRequirements',
      new WireWriter().bytes(1, entry('cpu', qty('500m'))).bytes(2, entry('memory', qty('128Mi'))).finish(),
    );
    assert.deepEqual(resources, { limits: { cpu: '500m' }, requests: { memory: '128Mi' } });
    const secret = decodeMessage(
      'k8s.io.api.core.v1.Secret',
      new WireWriter().bytes(2, entry('bin', Uint8Array.of(0, 255, 1))).bytes(2, entry('empty', new Uint8Array())).bytes(4, entry('s', '')).bytes(3, 'Opaque').finish(),
    );
    assert.deepEqual(secret, { data: { bin: 'AP8B', empty: '' }, stringData: { s: '' }, type: 'Opaque' });
    // PodSecurityContext.supplementalGroups (repeated int64, field 4), packed; runAsUser (pointer, 2) negative.
    const sc = decodeMessage('k8s.io.api.core.v1.PodSecurityContext', new WireWriter().bytes(4, new WireWriter().varint(1).varint(2000).finish()).int(2, -5).finish());
    assert.deepEqual(sc, { supplementalGroups: [1, 2000], runAsUser: -5 });
  });

  test('a nested pod template: inline volume sources, probe handlers and object references', () => {
    const ios = (i: number): WireWriter => new WireWriter().int(1, 0).int(2, i);
    const container = new WireWriter()
      .bytes(1, 'app')
      .bytes(2, 'nginx')
      .bytes(10, new WireWriter().bytes(1, new WireWriter().bytes(2, new WireWriter().bytes(1, '/healthz').bytes(2, ios(8080)))).int(2, 3))
      .bytes(7, new WireWriter().bytes(1, 'KEY').bytes(3, new WireWriter().bytes(3, new WireWriter().bytes(1, new WireWriter().bytes(1, 'cfg')).bytes(2, 'k').int(3, false))))
      .int(16, false);
    const volume = new WireWriter().bytes(1, 'config').bytes(2, new WireWriter().bytes(19, new WireWriter().bytes(1, new WireWriter().bytes(1, 'cfg')).int(3, 420)));
    const template = new WireWriter().bytes(1, new WireWriter().bytes(11, new WireWriter().bytes(1, 'app').bytes(2, 'web'))).bytes(2, new WireWriter().bytes(1, volume).bytes(2, container));
    const got = decodeMessage('k8s.io.api.core.v1.PodTemplateSpec', template.finish());
    assert.deepEqual(got, {
      metadata: { labels: { app: 'web' } },
      spec: {
        volumes: [{ name: 'config', configMap: { name: 'cfg', defaultMode: 420 } }],
        containers: [
          {
            name: 'app',
            image: 'nginx',
            livenessProbe: { httpGet: { path: '/healthz', port: 8080 }, initialDelaySeconds: 3 },
            env: [{ name: 'KEY', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'k', optional: false } } }],
          },
        ],
      },
    });
  });

  test('unknown field numbers are skipped; a wrong wire type is an error', () => {
    const got = decodeMessage('k8s.io.api.core.v1.ConfigMap', new WireWriter().bytes(1, new WireWriter().bytes(1, 'x')).int(99, 7).finish());
    assert.deepEqual(got, { metadata: { name: 'x' } });
    assert.throws(() => decodeMessage('k8s.io.api.core.v1.ConfigMap', new WireWriter().int(1, 5).finish()), /wrong wireType = 0 for field metadata/);
  });

  test('Duration follows Go time.Duration.String', () => {
    assert.equal(formatDuration(0), '0s');
    assert.equal(formatDuration(90e9), '1m30s');
    assert.equal(formatDuration(3.6e12 + 1.5e9), '1h0m1.5s');
    assert.equal(formatDuration(5e8), '500ms');
  });
});

describe('schema table', () => {
  test('the wire reader handles ten-byte negative varints and rejects an eleventh byte', () => {
    const w = new WireWriter().varint(-1).finish();
    assert.equal(w.length, 10);
    assert.equal(new WireReader(w).varint().lo | 0, -1);
    assert.throws(() => new WireReader(Uint8Array.from([...w.slice(0, 9), 0xff, 0x01])).varint(), /integer overflow/);
  });

  test('covers the kinds served now and those being added', () => {
    const kinds: [string, string, string][] = [
      ['', 'v1', 'Namespace'], ['', 'v1', 'Pod'], ['', 'v1', 'Node'], ['', 'v1', 'Event'], ['', 'v1', 'ConfigMap'], ['', 'v1', 'Secret'],
      ['', 'v1', 'Service'], ['', 'v1', 'ServiceAccount'], ['', 'v1', 'Endpoints'], ['', 'v1', 'Binding'], ['coordination.k8s.io', 'v1', 'Lease'],
      ['apps', 'v1', 'Deployment'], ['apps', 'v1', 'ReplicaSet'], ['apps', 'v1', 'DaemonSet'], ['apps', 'v1', 'StatefulSet'], ['apps', 'v1', 'ControllerRevision'],
      ['batch', 'v1', 'Job'], ['batch', 'v1', 'CronJob'], ['autoscaling', 'v1', 'HorizontalPodAutoscaler'], ['autoscaling', 'v1', 'Scale'],
      ['autoscaling', 'v2', 'HorizontalPodAutoscaler'], ['policy', 'v1', 'PodDisruptionBudget'], ['policy', 'v1', 'Eviction'],
      ['authorization.k8s.io', 'v1', 'SelfSubjectAccessReview'], ['authorization.k8s.io', 'v1', 'SubjectAccessReview'],
      ['discovery.k8s.io', 'v1', 'EndpointSlice'], ['events.k8s.io', 'v1', 'Event'], ['', 'v1', 'DeleteOptions'],
    ];
    for (const [g, v, k] of kinds) assert.ok(messageForKind(g, v, k), `${g}/${v} ${k}`);
  });

  test('every field of every served kind, recursively, has the JSON name of the JSON schema', () => {
    // Walks proto messages and the JSON schema (src/api/schema) side by side from each top-level kind:
    // catches a wrong name, a missing inline marker or a table that drifted from the JSON types, and
    // checks that message `k8s.io.api.core.v1.Pod` is schema type `io.k8s.api.core.v1.Pod`.
    const special: Record<string, string> = {
      'k8s.io.apimachinery.pkg.apis.meta.v1.Time': 'Time',
      'k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime': 'MicroTime',
      'k8s.io.apimachinery.pkg.util.intstr.IntOrString': 'IntOrString',
      'k8s.io.apimachinery.pkg.api.resource.Quantity': 'Quantity',
    };
    // A proto package is the Go import path with dots (`k8s.io.api.core.v1`); the JSON schema names a
    // type as upstream's OpenAPI does, the domain reversed (`io.k8s.api.core.v1`).
    const openApiName = (message: string): string => message.replace(/^k8s\.io\./, 'io.k8s.');
    const seen = new Set<string>();
    const problems: string[] = [];
    const walk = (msg: string, jsonType: string): void => {
      const key = `${msg}=${jsonType}`;
      if (seen.has(key)) return;
      seen.add(key);
      const def = messageDef(msg);
      const t = lookupType(jsonType);
      if (!def || !t) return;
      for (const f of def.fields) {
        if (f.inline) {
          walk(f.type, jsonType);
          continue;
        }
        const jf = t.fields[f.name];
        if (!jf) {
          problems.push(`${msg}.${f.name} not in ${jsonType}`);
          continue;
        }
        if (!f.message) continue;
        const sp = special[f.type];
        if (sp) {
          if (jf.type !== sp && jf.type !== 'any' && !(sp === 'Quantity' && jf.type === 'string')) problems.push(`${msg}.${f.name}: ${sp} vs ${jf.type}`);
          continue;
        }
        if (jf.type === 'any' || messageDef(f.type)?.arrayWrapper) continue;
        if (jf.type !== openApiName(f.type)) problems.push(`${msg}.${f.name}: ${f.type} vs ${jf.type}`);
        walk(f.type, jf.type);
      }
    };
    let roots = 0;
    for (const { apiVersion, kind, type } of rootTypes()) {
      const [g, v] = apiVersion.includes('/') ? (apiVersion.split('/') as [string, string]) : ['', apiVersion];
      const def = messageForKind(g, v, kind);
      if (!def || kind.endsWith('List') || g === 'meta.k8s.io') continue;
      roots++;
      if (type !== openApiName(def.name)) problems.push(`${kind}: ${def.name} vs ${type}`);
      walk(def.name, type);
    }
    assert.ok(roots > 30, `walked ${roots} kinds`);
    assert.deepEqual(problems, []);
  });

  test('map entries and wrappers are compiled', () => {
    const labels = messageDef('k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta')?.fields.find((f) => f.name === 'labels');
    assert.equal(labels?.mapKey, 'string');
    assert.equal(labels?.type, 'string');
    assert.equal(messageDef('k8s.io.apimachinery.pkg.apis.meta.v1.Verbs')?.arrayWrapper, true);
    assert.equal(messageDef('k8s.io.api.core.v1.DownwardAPIProjection')?.arrayWrapper, false);
    assert.ok(messageNames().length > 500);
  });
});
