/**
 * Bad input with the real kubectl: each mistake gets upstream's status and message, the server keeps
 * running, and nothing half-written is stored.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startKubeplane, removeDataDir, type Kubeplane } from './harness.js';

function deployment(name: string, spec: Record<string, unknown> = {}, labels = { app: name }): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      ...spec,
    },
  });
}

describe('bad input gets upstream errors and stores nothing', () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 1 });
  });
  after(async () => {
    const dir = kp.dataDir;
    await kp.stop();
    removeDataDir(dir);
  });

  const assertAbsent = async (name: string): Promise<void> => {
    const r = await kp.kubectl(['get', 'deploy', name]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`Error from server \\(NotFound\\): deployments.apps "${name}" not found`));
  };

  test('malformed JSON body → 400 BadRequest', async () => {
    const r = await kp.kubectl(['create', '--raw', '/apis/apps/v1/namespaces/default/deployments', '-f', '-'], '{"apiVersion": "apps/v1", "kind": ');
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /BadRequest|400/);
    assert.equal((await kp.kubectl(['get', '--raw', '/healthz'])).stdout, 'ok');
  });

  test('negative replicas → 422 Invalid with the field path', async () => {
    const r = await kp.kubectl(['apply', '-f', '-'], deployment('neg', { replicas: -1 }));
    assert.equal(r.code, 1);
    assert.match(r.stderr, /The Deployment "neg" is invalid: spec\.replicas: Invalid value: -1: must be greater than or equal to 0/);
    await assertAbsent('neg');
  });

  test('selector that does not match the template labels → 422', async () => {
    const r = await kp.kubectl(['apply', '-f', '-'], deployment('mismatch', {}, { app: 'other' }));
    assert.equal(r.code, 1);
    assert.match(r.stderr, /spec\.template\.metadata\.labels: Invalid value: .*`selector` does not match template `labels`/);
    await assertAbsent('mismatch');
  });

  test('missing image → 422 Required value', async () => {
    const body = JSON.parse(deployment('noimage')) as { spec: { template: { spec: { containers: { image?: string }[] } } } };
    delete body.spec.template.spec.containers[0]!.image;
    const r = await kp.kubectl(['apply', '-f', '-'], JSON.stringify(body));
    assert.equal(r.code, 1);
    assert.match(r.stderr, /spec\.template\.spec\.containers\[0\]\.image: Required value/);
    await assertAbsent('noimage');
  });

  test('unknown field under default (strict) validation → 400 strict decoding error', async () => {
    const r = await kp.kubectl(['apply', '-f', '-'], deployment('unknown', { foo: 1 }));
    assert.equal(r.code, 1);
    assert.match(r.stderr, /strict decoding error: unknown field "spec\.foo"/);
    await assertAbsent('unknown');
    // --validate=warn stores the object without the field and prints a warning.
    const w = await kp.kubectl(['apply', '--validate=warn', '-f', '-'], deployment('unknown', { foo: 1 }));
    assert.equal(w.code, 0, w.stderr);
    assert.match(w.stderr, /Warning: unknown field "spec\.foo"/);
    const stored = await kp.kubectlJson<{ spec: Record<string, unknown> }>(['get', 'deploy', 'unknown']);
    assert.equal(stored.spec.foo, undefined);
  });

  test('changing the immutable selector → 422 field is immutable', async () => {
    await kp.kubectlOk(['apply', '-f', '-'], deployment('immut'));
    const body = JSON.parse(deployment('immut')) as { spec: { selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> } } } };
    body.spec.selector.matchLabels = { app: 'immut', tier: 'x' };
    body.spec.template.metadata.labels = { app: 'immut', tier: 'x' };
    const r = await kp.kubectl(['apply', '-f', '-'], JSON.stringify(body));
    assert.equal(r.code, 1);
    assert.match(r.stderr, /spec\.selector: Invalid value: .*field is immutable/);
    const stored = await kp.kubectlJson<{ spec: { selector: { matchLabels: Record<string, string> } } }>(['get', 'deploy', 'immut']);
    assert.deepEqual(stored.spec.selector.matchLabels, { app: 'immut' });
  });

  test('a stale resourceVersion → 409 Conflict', async () => {
    await kp.kubectlOk(['apply', '-f', '-'], deployment('stale'));
    const current = await kp.kubectlJson<{ metadata: { resourceVersion: string } }>(['get', 'deploy', 'stale']);
    await kp.kubectlOk(['label', 'deploy', 'stale', 'touched=yes']);
    const body = JSON.parse(deployment('stale')) as { metadata: Record<string, unknown> };
    body.metadata.resourceVersion = current.metadata.resourceVersion;
    const r = await kp.kubectl(['replace', '-f', '-'], JSON.stringify(body));
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /Error from server \(Conflict\).*Operation cannot be fulfilled on deployments\.apps "stale": the object has been modified; please apply your changes to the latest version and try again/,
    );
  });

  test('an unknown resource type is reported by kubectl from discovery', async () => {
    const r = await kp.kubectl(['get', 'foos']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /the server doesn't have a resource type "foos"/);
    const raw = await kp.kubectl(['get', '--raw', '/apis/apps/v1/namespaces/default/foos']);
    assert.notEqual(raw.code, 0);
    assert.match(raw.stderr, /NotFound/);
  });

  test('replicas beyond int32 → 400 with the decoder message; nothing stored (issue 9)', async () => {
    for (const replicas of ['2147483648', '1e20']) {
      const r = await kp.kubectl(['apply', '-f', '-'], deployment('huge').replace('"replicas":1', `"replicas":${replicas}`));
      assert.equal(r.code, 1);
      assert.match(
        r.stderr,
        /Error from server \(BadRequest\).*Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number \d+ into Go struct field DeploymentSpec\.spec\.replicas of type int32/,
      );
    }
    await assertAbsent('huge');
  });

  test('a JSON body nested 100,000 deep → 400, answered at once (issue 9)', async () => {
    const deep = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":{"a":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}}';
    const r = await kp.kubectl(['create', '--raw', '/api/v1/namespaces/default/configmaps', '-f', '-'], deep);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Error from server \(BadRequest\).*the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: invalid character '\[' exceeded max depth/);
  });

  test('a pod with a null affinity term is stored as upstream decodes it and stays Pending (issue 9)', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'poison' },
      spec: {
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [null] } } },
        containers: [{ name: 'c', image: 'nginx' }],
      },
    };
    await kp.kubectlOk(['create', '-f', '-'], JSON.stringify(pod));
    const stored = await kp.kubectlJson<{ spec: { affinity: unknown } }>(['get', 'pod', 'poison']);
    assert.deepEqual(stored.spec.affinity, { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{}] } } });
    await eventually('FailedScheduling for the poison pod', async () => {
      const out = await kp.kubectlOk(['get', 'events', '--field-selector', 'involvedObject.name=poison,reason=FailedScheduling', '-o', 'jsonpath={.items[*].message}']);
      return out.includes("0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector.") ? out : undefined;
    });
    // The scheduler, controllers and API server carry on.
    await kp.kubectlOk(['apply', '-f', '-'], deployment('after-poison'));
    await kp.kubectlOk(['rollout', 'status', 'deploy/after-poison', '--timeout=60s']);
  });

  test('/metrics serves the handled-error counter', async () => {
    const metrics = await kp.kubectlOk(['get', '--raw', '/metrics']);
    assert.match(metrics, /# TYPE kubeplane_handled_errors_total counter/);
  });

  test('the server is still healthy after all of it', async () => {
    assert.equal((await kp.kubectlOk(['get', '--raw', '/readyz'])).trim(), 'ok');
  });
});
