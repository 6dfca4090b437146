/**
 * PodTemplates: the template's PodSpec defaults, its validation at `template` (ValidatePodTemplate),
 * the generation rule of pkg/registry/core/podtemplate/strategy.go, and printPodTemplate.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PodTemplate as WirePodTemplate } from '../../../api/index.js';
import { fieldErrorString } from '../../../machinery/errors/index.js';
import type { ApiObject } from './helpers.js';
import { podTemplateStrategy } from './podtemplates.js';

type PodTemplate = ApiObject<WirePodTemplate>;

const NOW = Date.parse('2025-01-01T00:00:00Z');

function made(mutate: (pt: PodTemplate) => void = () => {}): PodTemplate {
  const pt: PodTemplate = {
    apiVersion: 'v1',
    kind: 'PodTemplate',
    metadata: { name: 'web', namespace: 'default' },
    template: { metadata: { labels: { app: 'web', tier: 'fe' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }, { name: 'log', image: 'busybox' }] } },
  };
  mutate(pt);
  podTemplateStrategy.defaults(pt);
  podTemplateStrategy.prepareForCreate(pt, NOW);
  return pt;
}

test('the template gets the PodSpec defaults; generation starts at 1', () => {
  const pt = made();
  assert.equal(pt.metadata?.generation, 1);
  const spec = pt.template?.spec;
  assert.equal(spec?.restartPolicy, 'Always');
  assert.equal(spec?.terminationGracePeriodSeconds, 30);
  assert.equal(spec?.containers[0]?.imagePullPolicy, 'IfNotPresent');
  assert.equal(spec?.containers[1]?.imagePullPolicy, 'Always');
  // Pod-only defaults (SetDefaults_Pod) are not applied to a template.
  assert.equal(spec?.enableServiceLinks, undefined);
  // An absent template is a Go struct: it is there, with an empty PodSpec that validation refuses.
  const bare = made((x) => delete x.template);
  assert.deepEqual(bare.template?.metadata, {});
  assert.deepEqual(podTemplateStrategy.validate(bare).map(fieldErrorString), ['template.spec.containers: Required value']);
});

test('validation at `template` (ValidatePodTemplate → ValidatePodTemplateSpec)', () => {
  assert.deepEqual(podTemplateStrategy.validate(made()), []);
  const bad = made((x) => {
    x.template!.metadata!.labels = { 'bad key!': 'x' };
    x.template!.spec!.containers[0]!.name = 'Nginx';
    x.template!.spec!.restartPolicy = 'Never';
    x.template!.spec!.ephemeralContainers = [{ name: 'debug', image: 'busybox' }];
  });
  assert.deepEqual(podTemplateStrategy.validate(bad).map(fieldErrorString), [
    'template.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
    'template.spec.containers[0].name: Invalid value: "Nginx": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')',
    'template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template',
  ]);
  // Unlike a ReplicationController's, a PodTemplate's restartPolicy may be Never (no ForRC checks).
  assert.deepEqual(podTemplateStrategy.validateUpdate(made((x) => (x.template!.spec!.restartPolicy = 'Never')), made()), []);
});

test('generation moves only when the template changes', () => {
  const old = made();
  const same = made((x) => (x.metadata!.labels = { note: 'meta only' }));
  same.metadata!.generation = 1;
  podTemplateStrategy.prepareForUpdate(same, old);
  assert.equal(same.metadata?.generation, 1);
  const changed = made((x) => (x.template!.spec!.containers[0]!.image = 'nginx:1.28'));
  podTemplateStrategy.prepareForUpdate(changed, old);
  assert.equal(changed.metadata?.generation, 2);
});

test('printPodTemplate: NAME CONTAINERS IMAGES POD-LABELS, none of them wide-only', () => {
  assert.deepEqual(
    podTemplateStrategy.table.columns.map((c) => [c.name, c.priority]),
    [
      ['Name', 0],
      ['Containers', 0],
      ['Images', 0],
      ['Pod Labels', 0],
    ],
  );
  assert.deepEqual(podTemplateStrategy.table.row(made(), NOW).cells, ['web', 'nginx,log', 'nginx:1.27,busybox', 'app=web,tier=fe']);
  assert.deepEqual(podTemplateStrategy.table.row(made((x) => delete x.template!.metadata), NOW).cells[3], '<none>');
});
