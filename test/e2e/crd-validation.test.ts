/**
 * What a CRD's structural schema does to custom resources, with the real kubectl, each rejection
 * exactly as kubectl prints kube-apiserver's: defaults filled in, unknown fields refused under
 * kubectl's strict field validation (and dropped under `--validate=false`), OpenAPI v3 value
 * validation (type, maximum, enum, pattern, required), `x-kubernetes-validations` CEL rules (message,
 * messageExpression, a transition rule on update, the rule left unchecked after a type error), and a
 * CRD whose rule does not compile refused with upstream's CRD validation message. Then the everyday
 * commands on custom resources — `kubectl diff`, `kubectl edit`, `-o custom-columns` — and a watch
 * that sees the custom resources deleted with their CRD.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, removeDataDir, replicasEditor, startKubeplane, type Kubeplane } from './harness.js';

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab, shortNames: [ct]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [image]
            x-kubernetes-validations:
            - rule: "!has(self.minReplicas) || self.minReplicas <= self.replicas"
              message: minReplicas must not exceed replicas
            - rule: "self.image.startsWith('registry.example.com/')"
              messageExpression: "'image ' + self.image + ' is not from registry.example.com'"
            properties:
              cronSpec:
                type: string
                pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'
              image: {type: string}
              replicas: {type: integer, minimum: 0, maximum: 10, default: 1}
              minReplicas: {type: integer}
              size:
                type: string
                enum: [small, large]
                default: small
                x-kubernetes-validations:
                - rule: self == oldSelf
                  message: size is immutable
`;

/** A CronTab manifest with `spec` as given (JSON is YAML). */
function cronTab(name: string, spec: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name }, spec });
}

const GOOD = { cronSpec: '*/5 * * * *', image: 'registry.example.com/cron:1' };

describe('custom resources validated by their CRD schema, with real kubectl', { timeout: 180_000 }, () => {
  let kp: Kubeplane;
  let removeEditor: () => void;
  before(async () => {
    removeEditor = replicasEditor(5); // `kubectl edit` sets spec.replicas to 5
    kp = await startKubeplane({ nodes: 1 });
    await kp.kubectlOk(['apply', '-f', '-'], CRD);
    await kp.kubectlOk(['wait', '--for=condition=Established', 'crd/crontabs.stable.example.com', '--timeout=30s']);
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
    removeEditor();
  });

  /** Applies `manifest` expecting a refusal; returns kubectl's stderr, trimmed. */
  async function refused(manifest: string, args: string[] = ['apply', '-f', '-']): Promise<string> {
    const r = await kp.kubectl(args, manifest);
    assert.equal(r.code, 1, `expected a refusal, got: ${r.stdout}`);
    return r.stderr.trim();
  }

  test('defaults are filled in: replicas 1, size small', async () => {
    assert.equal((await kp.kubectlOk(['apply', '-f', '-'], cronTab('good', GOOD))).trim(), 'crontab.stable.example.com/good created');
    const spec = (await kp.kubectlJson<{ spec: Record<string, unknown> }>(['get', 'ct', 'good'])).spec;
    assert.deepEqual(spec, { ...GOOD, replicas: 1, size: 'small' });
  });

  test('unknown fields: refused under strict field validation, dropped with --validate=false', async () => {
    assert.equal(
      await refused(cronTab('unknown', { ...GOOD, colour: 'red' })),
      'Error from server (BadRequest): error when creating "STDIN": CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: unknown field "spec.colour"',
    );
    await kp.kubectlOk(['apply', '--validate=false', '-f', '-'], cronTab('unknown', { ...GOOD, colour: 'red' }));
    const spec = (await kp.kubectlJson<{ spec: Record<string, unknown> }>(['get', 'ct', 'unknown'])).spec;
    assert.equal('colour' in spec, false);
  });

  test('OpenAPI value validation: maximum, enum, pattern, required, each as upstream prints it', async () => {
    assert.equal(
      await refused(cronTab('many', { ...GOOD, replicas: 11 })),
      'The CronTab "many" is invalid: spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
    );
    assert.equal(
      await refused(cronTab('huge', { ...GOOD, size: 'huge' })),
      'The CronTab "huge" is invalid: \n* spec.size: Unsupported value: "huge": supported values: "small", "large"\n' +
        '* <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    );
    assert.equal(
      await refused(cronTab('bad-cron', { ...GOOD, cronSpec: 'every minute' })),
      `The CronTab "bad-cron" is invalid: spec.cronSpec: Invalid value: "every minute": spec.cronSpec in body should match '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'`,
    );
    assert.equal(
      await refused(cronTab('no-image', { cronSpec: '*/5 * * * *' })),
      'The CronTab "no-image" is invalid: \n* spec.image: Required value\n' +
        '* <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    );
    // A type error blocks the CEL rules as well.
    assert.equal(
      await refused(cronTab('typed', { ...GOOD, replicas: 'three' })),
      'The CronTab "typed" is invalid: \n* spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"\n' +
        '* <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    );
  });

  test('CEL rules: message, messageExpression, and a transition rule on update', async () => {
    assert.equal(
      await refused(cronTab('min', { ...GOOD, replicas: 2, minReplicas: 3 })),
      'The CronTab "min" is invalid: spec: Invalid value: "object": minReplicas must not exceed replicas',
    );
    assert.equal(
      await refused(cronTab('elsewhere', { ...GOOD, image: 'docker.io/cron:1' })),
      'The CronTab "elsewhere" is invalid: spec: Invalid value: "object": image docker.io/cron:1 is not from registry.example.com',
    );
    // `size` may not change once set (self == oldSelf); other fields may.
    assert.equal(
      await refused('', ['patch', 'ct', 'good', '--type=merge', '-p', '{"spec":{"size":"large"}}']),
      'The CronTab "good" is invalid: spec.size: Invalid value: "string": size is immutable',
    );
    assert.equal((await kp.kubectlOk(['patch', 'ct', 'good', '--type=merge', '-p', '{"spec":{"replicas":3}}'])).trim(), 'crontab.stable.example.com/good patched');
  });

  test('a CRD whose rule does not compile is refused with upstream\'s CRD validation message', async () => {
    const bad = CRD.replace('crontabs.stable.example.com', 'widgets.stable.example.com')
      .replace('{plural: crontabs, singular: crontab, kind: CronTab, shortNames: [ct]}', '{plural: widgets, singular: widget, kind: Widget}')
      .replace('rule: self == oldSelf', 'rule: self.size() > "3"');
    const stderr = await refused(bad, ['create', '-f', '-']);
    assert.match(
      stderr,
      /^The CustomResourceDefinition "widgets\.stable\.example\.com" is invalid: spec\.validation\.openAPIV3Schema\.properties\[spec\]\.properties\[size\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: apiextensions\.ValidationRule\{Rule:"self\.size\(\) > \\"3\\"", Message:"size is immutable", .*\}: compilation failed: ERROR: <input>:1:13: found no matching overload for '_>_' applied to '\(int, string\)'/,
    );
  });

  test('kubectl diff, edit and custom-columns; a watch sees the custom resources go with their CRD', async () => {
    // `good` has replicas 3 since the CEL test; the file asks for 4.
    const diff = await kp.kubectl(['diff', '-f', '-'], cronTab('good', { ...GOOD, replicas: 4, size: 'small' }));
    assert.equal(diff.code, 1, diff.stderr);
    // A server-side dry run of a merge patch: without a status subresource the generation moves too.
    assert.match(diff.stdout, /^- {2}replicas: 3$/m);
    assert.match(diff.stdout, /^\+ {2}replicas: 4$/m);
    assert.match(diff.stdout, /^- {2}generation: 2$/m);
    assert.match(diff.stdout, /^\+ {2}generation: 3$/m);
    assert.equal((await kp.kubectlOk(['edit', 'ct/good'])).trim(), 'crontab.stable.example.com/good edited');
    assert.equal(
      await kp.kubectlOk(['get', 'ct', '-o', 'custom-columns=NAME:.metadata.name,REPLICAS:.spec.replicas,SIZE:.spec.size', '--sort-by=.metadata.name']),
      'NAME      REPLICAS   SIZE\ngood      5          small\nunknown   1          small\n',
    );

    const watch = kp.spawnKubectl(['get', 'ct', '--watch-only', '--output-watch-events']);
    let events = '';
    watch.stdout?.on('data', (d: Buffer) => (events += d.toString()));
    try {
      // The watch is open once kubectl has listed; a change to one object shows it is.
      // Each try writes a new value: an unchanged one would be a no-op that no watch sees.
      let tries = 0;
      await eventually('the watch open', async () => {
        await kp.kubectlOk(['annotate', 'ct', 'good', `try=${++tries}`, '--overwrite']);
        return /^MODIFIED +good /m.test(events) ? true : undefined;
      });
      await kp.kubectlOk(['delete', 'crd', 'crontabs.stable.example.com']);
      await eventually('both DELETED events', () =>
        Promise.resolve(/^DELETED +good /m.test(events) && /^DELETED +unknown /m.test(events) ? true : undefined),
      );
    } finally {
      watch.kill();
    }
  });
});
