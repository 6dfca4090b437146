/**
 * What real kubectl does with the schema (generated from upstream's Go types, ADR 8): `explain` prints
 * upstream's descriptions from OpenAPI v3 and, with `--output=plaintext-openapiv2` or kubectl 1.27, from
 * the protobuf OpenAPI v2 document; `apply` and `edit` build their strategic merge patches with the
 * patch metadata of OpenAPI v3; objects come back as Go encodes them (no empty `omitempty` fields).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, removeDataDir, replicasEditor, startKubeplane, type Kubeplane } from './harness.js';

/** What upstream's `kubectl explain deployment.spec.strategy` shows (k8s.io/api apps/v1 types.go comments). */
const STRATEGY_DOC = [
  'The deployment strategy to use to replace existing pods with new ones.',
  'DeploymentStrategy describes how to replace existing pods with new ones.',
  'rollingUpdate',
  'Rolling update config params. Present only if DeploymentStrategyType =',
  'Possible enum values:',
  '- `"Recreate"` Kill all existing pods before creating new ones.',
];

const deployment = (replicas: number, image: string): string =>
  JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image, ports: [{ containerPort: 80 }] }] } },
    },
  });

describe('kubectl and the OpenAPI documents', () => {
  let kp: Kubeplane;
  let removeEditor: () => void;

  before(async () => {
    removeEditor = replicasEditor(5); // `kubectl edit` sets replicas to 5
    kp = await startKubeplane({ nodes: 1 });
  });

  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
    removeEditor();
  });

  test('explain prints upstream descriptions from OpenAPI v3, and from the protobuf v2 document', async () => {
    const v3 = await kp.kubectlOk(['explain', 'deployment.spec.strategy']);
    assert.match(v3, /FIELD: strategy <DeploymentStrategy>/);
    for (const line of STRATEGY_DOC) assert.ok(v3.includes(line), `v3 output lacks ${JSON.stringify(line)}:\n${v3}`);
    const v2 = await kp.kubectlOk(['explain', 'deployment.spec.strategy', '--output=plaintext-openapiv2']);
    for (const line of STRATEGY_DOC) assert.ok(v2.includes(line), `v2 output lacks ${JSON.stringify(line)}:\n${v2}`);
    // kubectl 1.27 reads /openapi/v2 (protobuf) to map the resource before its v3 explain.
    const old = await kp.kubectlAt(27, ['explain', 'pods.spec.restartPolicy']);
    assert.equal(old.code, 0, old.stderr);
    assert.match(old.stdout, /Restart policy for all containers within the pod/);
  });

  test('apply twice and edit: strategic merge patches built from the v3 patch metadata', async () => {
    assert.equal(await kp.kubectlOk(['apply', '-f', '-'], deployment(2, 'nginx:1.25')), 'deployment.apps/web created\n');
    assert.equal(await kp.kubectlOk(['apply', '-f', '-'], deployment(3, 'nginx:1.26')), 'deployment.apps/web configured\n');
    assert.equal(await kp.kubectlOk(['edit', 'deployment/web']), 'deployment.apps/web edited\n');
    const d = await kp.kubectlJson<{ spec: { replicas: number; template: { spec: { containers: { image: string; ports: unknown[] }[] } } } }>(['get', 'deployment', 'web']);
    assert.equal(d.spec.replicas, 5);
    assert.equal(d.spec.template.spec.containers[0]?.image, 'nginx:1.26');
    assert.deepEqual(d.spec.template.spec.containers[0]?.ports, [{ containerPort: 80, protocol: 'TCP' }]);
  });

  test('an orphaned ReplicaSet is shown without ownerReferences', async () => {
    await kp.kubectlOk(['rollout', 'status', 'deployment/web', '--timeout=60s']);
    await kp.kubectlOk(['delete', 'deployment', 'web', '--cascade=orphan']);
    const orphans = await eventually('ReplicaSets orphaned', async () => {
      const list = await kp.kubectlJson<{ items: { metadata: Record<string, unknown> }[] }>(['get', 'replicasets', '-l', 'app=web']);
      return list.items.length > 0 && list.items.every((rs) => !('ownerReferences' in rs.metadata)) ? list.items : undefined;
    });
    assert.ok(orphans.length >= 1);
    assert.doesNotMatch(await kp.kubectlOk(['get', 'replicasets', '-l', 'app=web', '-o', 'yaml']), /ownerReferences/);
  });
});
