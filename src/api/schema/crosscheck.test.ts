/**
 * The schema generated from upstream's Go types against the two generated descriptions of the API in
 * node_modules: @kubernetes/client-node's models (what types.json was generated from before, ADR 4)
 * and kubernetes-types (upstream's OpenAPI descriptions of v1.30, as JSDoc).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import drift from './testdata/kubernetes-types-1.30-drift.json' with { type: 'json' };
import { loadDocs, lookupType, rootTypeName } from './index.js';

type Attribute = { baseName: string; type: string };

/** client-node's model classes by name, with their `attributeTypeMap`. */
const models = new Map<string, Attribute[]>();
for (const [name, value] of Object.entries(k8s)) {
  const attrs = (value as { attributeTypeMap?: unknown } | undefined)?.attributeTypeMap;
  if (typeof value === 'function' && Array.isArray(attrs)) models.set(name, attrs as Attribute[]);
}

/**
 * Fields client-node 1.4's models have (Kubernetes 1.34) that k8s.io/api v0.33.9 does not: alpha
 * fields added in 1.34, which a v1.33 server rejects as unknown.
 */
const NEW_IN_1_34 = new Set([
  'io.k8s.api.core.v1.Container.restartPolicyRules',
  'io.k8s.api.core.v1.EphemeralContainer.restartPolicyRules',
  'io.k8s.api.core.v1.EnvVarSource.fileKeyRef',
  'io.k8s.api.core.v1.PodSpec.hostnameOverride',
  'io.k8s.api.core.v1.PodStatus.extendedResourceClaimStatus',
  'io.k8s.api.core.v1.VolumeProjection.podCertificate',
]);

describe('against @kubernetes/client-node', () => {
  test('no field of the served kinds is lost', () => {
    // [group, version, kind, client-node model]: the kinds served today and those being added.
    const kinds: [string, string, string, string][] = [
      ['', 'v1', 'Namespace', 'V1Namespace'], ['', 'v1', 'Node', 'V1Node'], ['', 'v1', 'Pod', 'V1Pod'], ['', 'v1', 'Binding', 'V1Binding'],
      ['', 'v1', 'Event', 'CoreV1Event'], ['', 'v1', 'Service', 'V1Service'], ['', 'v1', 'Endpoints', 'V1Endpoints'], ['', 'v1', 'ConfigMap', 'V1ConfigMap'],
      ['', 'v1', 'Secret', 'V1Secret'], ['', 'v1', 'ServiceAccount', 'V1ServiceAccount'], ['', 'v1', 'PersistentVolumeClaim', 'V1PersistentVolumeClaim'],
      ['', 'v1', 'ResourceQuota', 'V1ResourceQuota'], ['coordination.k8s.io', 'v1', 'Lease', 'V1Lease'],
      ['apps', 'v1', 'Deployment', 'V1Deployment'], ['apps', 'v1', 'ReplicaSet', 'V1ReplicaSet'], ['apps', 'v1', 'DaemonSet', 'V1DaemonSet'],
      ['apps', 'v1', 'StatefulSet', 'V1StatefulSet'], ['apps', 'v1', 'ControllerRevision', 'V1ControllerRevision'],
      ['batch', 'v1', 'Job', 'V1Job'], ['batch', 'v1', 'CronJob', 'V1CronJob'], ['autoscaling', 'v1', 'Scale', 'V1Scale'],
      ['autoscaling', 'v2', 'HorizontalPodAutoscaler', 'V2HorizontalPodAutoscaler'], ['policy', 'v1', 'PodDisruptionBudget', 'V1PodDisruptionBudget'],
      ['policy', 'v1', 'Eviction', 'V1Eviction'], ['authentication.k8s.io', 'v1', 'TokenRequest', 'AuthenticationV1TokenRequest'],
      ['authentication.k8s.io', 'v1', 'SelfSubjectReview', 'V1SelfSubjectReview'],
      ['authorization.k8s.io', 'v1', 'SelfSubjectAccessReview', 'V1SelfSubjectAccessReview'],
      ['discovery.k8s.io', 'v1', 'EndpointSlice', 'V1EndpointSlice'], ['events.k8s.io', 'v1', 'Event', 'EventsV1Event'],
      ['', 'v1', 'DeleteOptions', 'V1DeleteOptions'], ['', 'v1', 'Status', 'V1Status'],
    ];
    const lost: string[] = [];
    const seen = new Set<string>();
    let compared = 0;
    const walk = (model: string, type: string): void => {
      if (seen.has(`${model}=${type}`)) return;
      seen.add(`${model}=${type}`);
      const attrs = models.get(model);
      const t = lookupType(type);
      assert.ok(attrs, model);
      assert.ok(t, type);
      for (const a of attrs) {
        const f = t.fields[a.baseName];
        if (!f) {
          if (!NEW_IN_1_34.has(`${type}.${a.baseName}`)) lost.push(`${type}.${a.baseName} (${model})`);
          continue;
        }
        compared++;
        const inner = /^(?:Array<(\w+)>|\{ \[key: string\]: (\w+); \}|(\w+))$/.exec(a.type);
        const member = inner?.[1] ?? inner?.[2] ?? inner?.[3];
        if (member && models.has(member) && f.type.startsWith('io.k8s.')) walk(member, f.type);
      }
    };
    for (const [g, v, kind, model] of kinds) {
      const type = rootTypeName(g, v, kind);
      assert.ok(type, `${g}/${v} ${kind}`);
      walk(model, type);
    }
    assert.deepEqual(lost, []);
    assert.ok(compared > 1200, `${compared} fields compared`);
  });
});

/** One JSDoc'd declaration of kubernetes-types: an interface (`field` undefined) or one of its fields. */
type Documented = { iface: string; field?: string; doc?: string };

/** The interfaces and fields of one kubernetes-types `.d.ts`, with their JSDoc text. */
function parseDeclarations(text: string): Documented[] {
  const out: Documented[] = [];
  const lines = text.split('\n');
  let doc: string | undefined;
  let iface: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const oneLine = /^\s*\/\*\* (.*) \*\/$/.exec(line);
    if (oneLine) {
      doc = oneLine[1];
      continue;
    }
    if (/^\s*\/\*\*$/.test(line)) {
      const body: string[] = [];
      for (i++; !/^\s*\*\/$/.test(lines[i] as string); i++) body.push((lines[i] as string).replace(/^\s*\* ?/, ''));
      doc = body.join('\n');
      continue;
    }
    const declared = /^export interface (\w+)/.exec(line)?.[1];
    const field = /^ {4}(?:readonly )?"?([\w$-]+)"?\??: /.exec(line);
    if (declared !== undefined) {
      iface = declared;
      out.push({ iface, doc });
    } else if (field && iface) {
      out.push({ iface, field: field[1], doc });
    } else if (line.startsWith('}')) {
      iface = undefined;
    }
    doc = undefined;
  }
  return out;
}

/** kubernetes-types' `<group>/<version>.d.ts` → the OpenAPI package of its types. */
function packageOf(group: string, version: string): string {
  if (group === 'meta') return `io.k8s.apimachinery.pkg.apis.meta.${version}`;
  if (group === 'apiextensions') return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${version}`;
  return `io.k8s.api.${group}.${version}`;
}

describe('against kubernetes-types (upstream OpenAPI descriptions, v1.30)', () => {
  test('descriptions are byte-identical, but for the ones upstream rewrote after v1.30', async () => {
    const docs = await loadDocs();
    const root = dirname(createRequire(import.meta.url).resolve('kubernetes-types/package.json'));
    const drifted = new Set(drift.names);
    let both = 0;
    let same = 0;
    const unexpected: string[] = [];
    for (const group of readdirSync(root, { withFileTypes: true })) {
      if (!group.isDirectory() || group.name === 'node_modules') continue;
      for (const file of readdirSync(join(root, group.name))) {
        const version = /^(v\d+)\.d\.ts$/.exec(file)?.[1];
        if (!version) continue;
        for (const d of parseDeclarations(readFileSync(join(root, group.name, file), 'utf8'))) {
          const type = `${packageOf(group.name, version)}.${d.iface}`;
          if (!lookupType(type) || (d.field !== undefined && !lookupType(type)?.fields[d.field])) continue;
          const ours = d.field === undefined ? docs.describeType(type) : docs.describeField(type, d.field);
          if (ours === undefined && d.doc === undefined) continue;
          both++;
          // kubernetes-types leaves out upstream's enum paragraph, and drops one level of backslashes
          // (`\\d` in a regex, `\"` in an example) that upstream's descriptions keep.
          const comparable = ours?.replace(/\n\nPossible enum values:\n[\s\S]*$/, '').replace(/\\(.)/g, '$1');
          const name = d.field === undefined ? type : `${type}.${d.field}`;
          if (comparable === d.doc) same++;
          else if (!drifted.has(name)) unexpected.push(name);
        }
      }
    }
    assert.deepEqual(unexpected, []);
    assert.equal(both - same, drifted.size, 'every drifted description still differs');
    assert.ok(both > 2500, `${both} descriptions compared`);
    assert.ok(same / both > 0.94, `${same} of ${both} identical`);
  });
});
