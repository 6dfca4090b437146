/**
 * Admission configuration and API Priority and Fairness objects with the real kubectl: webhook
 * configurations and a ValidatingAdmissionPolicy with its binding are applied, printed with
 * upstream's columns and defaulted as upstream defaults them; an invalid webhook is refused with
 * upstream's message; the bootstrap FlowSchemas and PriorityLevelConfigurations are listed with
 * upstream's cells, schemas in matching precedence order.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startKubeplane, removeDataDir, type Kubeplane } from './harness.js';

const MANIFESTS = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: pod-policy
webhooks:
- name: pod-policy.example.com
  clientConfig:
    service: {namespace: default, name: pod-policy}
  rules:
  - {operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"]}
  sideEffects: None
  admissionReviewVersions: ["v1"]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: sidecar
webhooks:
- name: sidecar.example.com
  clientConfig: {url: "https://sidecar.example.com/mutate"}
  sideEffects: NoneOnDryRun
  admissionReviewVersions: ["v1", "v1beta1"]
- name: labels.example.com
  clientConfig: {url: "https://labels.example.com/mutate"}
  sideEffects: None
  admissionReviewVersions: ["v1"]
  reinvocationPolicy: IfNeeded
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-limit
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - {operations: ["CREATE", "UPDATE"], apiGroups: ["apps"], apiVersions: ["v1"], resources: ["deployments"]}
  validations:
  - expression: "object.spec.replicas <= 5"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replica-limit-default
spec:
  policyName: replica-limit
  paramRef: {name: limits, namespace: default, parameterNotFoundAction: Deny}
  validationActions: [Deny, Audit]
`;

const BAD_WEBHOOK = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: bad
webhooks:
- name: bad
  clientConfig: {url: "http://example.com/check?x=1"}
  rules:
  - {operations: ["*", "CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"]}
  timeoutSeconds: 31
  admissionReviewVersions: ["v1"]
`;

/** The rows of a `kubectl get` table without the AGE column at `ageAt`, split on runs of spaces. */
function rows(out: string, ageAt: number): string[][] {
  return out
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(/\s+/).filter((_, i) => i !== ageAt));
}

describe('admission configuration and flow control with real kubectl', { timeout: 120_000 }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 1 });
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  test('webhook configurations and a policy with its binding: applied, printed and defaulted as upstream', async () => {
    assert.deepEqual((await kp.kubectlOk(['apply', '-f', '-'], MANIFESTS)).trim().split('\n'), [
      'validatingwebhookconfiguration.admissionregistration.k8s.io/pod-policy created',
      'mutatingwebhookconfiguration.admissionregistration.k8s.io/sidecar created',
      'validatingadmissionpolicy.admissionregistration.k8s.io/replica-limit created',
      'validatingadmissionpolicybinding.admissionregistration.k8s.io/replica-limit-default created',
    ]);
    const hooks = await kp.kubectlOk(['get', 'validatingwebhookconfigurations']);
    assert.match(hooks.split('\n')[0] ?? '', /^NAME\s+WEBHOOKS\s+AGE$/);
    assert.deepEqual(rows(hooks, 2), [['pod-policy', '1']]);
    assert.deepEqual(rows(await kp.kubectlOk(['get', 'mutatingwebhookconfigurations']), 2), [['sidecar', '2']]);
    const policies = await kp.kubectlOk(['get', 'validatingadmissionpolicies']);
    assert.match(policies.split('\n')[0] ?? '', /^NAME\s+VALIDATIONS\s+PARAMKIND\s+AGE$/);
    assert.deepEqual(rows(policies, 3), [['replica-limit', '1', 'v1/ConfigMap']]);
    const bindings = await kp.kubectlOk(['get', 'validatingadmissionpolicybindings']);
    assert.match(bindings.split('\n')[0] ?? '', /^NAME\s+POLICYNAME\s+PARAMREF\s+AGE$/);
    assert.deepEqual(rows(bindings, 3), [['replica-limit-default', 'replica-limit', 'default/limits']]);

    const yaml = await kp.kubectlOk(['get', 'validatingwebhookconfiguration', 'pod-policy', '-o', 'yaml']);
    for (const line of ['  failurePolicy: Fail', '  matchPolicy: Equivalent', '  namespaceSelector: {}', '  objectSelector: {}', '  timeoutSeconds: 10', '      port: 443', "    scope: '*'"]) {
      assert.ok(yaml.includes(`\n${line}\n`), `${line} in\n${yaml}`);
    }
    assert.equal(
      (await kp.kubectlOk(['get', 'mutatingwebhookconfiguration', 'sidecar', '-o', 'jsonpath={.webhooks[*].reinvocationPolicy} {.webhooks[*].timeoutSeconds} {.metadata.generation}'])).trim(),
      'Never IfNeeded 10 10 1',
    );
    const policy = await kp.kubectlOk(['get', 'validatingadmissionpolicy', 'replica-limit', '-o', 'yaml']);
    for (const line of ['  failurePolicy: Fail', '    matchPolicy: Equivalent', '    namespaceSelector: {}', "      scope: '*'", 'status: {}']) {
      assert.ok(policy.includes(`\n${line}\n`), `${line} in\n${policy}`);
    }
    const described = await kp.kubectlOk(['describe', 'validatingwebhookconfiguration', 'pod-policy']);
    assert.match(described, /^Name:\s+pod-policy$/m);
    assert.match(described, /^\s+Timeout Seconds:\s+10$/m);
  });

  test('an invalid webhook is refused with upstream\'s message', async () => {
    const refused = await kp.kubectl(['apply', '-f', '-'], BAD_WEBHOOK);
    assert.notEqual(refused.code, 0);
    assert.equal(
      refused.stderr.trim(),
      [
        'The ValidatingWebhookConfiguration "bad" is invalid: ',
        '* webhooks[0].name: Invalid value: "bad": should be a domain with at least three segments separated by dots',
        `* webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{"*", "CREATE"}: if '*' is present, must not specify other operations`,
        '* webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun',
        '* webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds',
        `* webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
        '* webhooks[0].clientConfig.url: Invalid value: "x=1": query parameters are not permitted in the URL',
      ].join('\n'),
    );
    const noActions = await kp.kubectl(['create', '-f', '-'], 'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: b}\nspec: {policyName: p}\n');
    assert.equal(
      noActions.stderr.trim(),
      'The ValidatingAdmissionPolicyBinding "b" is invalid: spec.validationActions: Required value: at least one validation action is required',
    );
  });

  test('the bootstrap flow schemas and priority levels, with upstream\'s cells', async () => {
    const out = await kp.kubectlOk(['get', 'flowschemas,prioritylevelconfigurations']);
    const [schemas = '', levels = ''] = out.trim().split('\n\n');
    assert.match(schemas.split('\n')[0] ?? '', /^NAME\s+PRIORITYLEVEL\s+MATCHINGPRECEDENCE\s+DISTINGUISHERMETHOD\s+AGE\s+MISSINGPL$/);
    assert.deepEqual(
      rows(schemas, 4).map(([name = '', ...cells]) => [name.replace('flowschema.flowcontrol.apiserver.k8s.io/', ''), ...cells]),
      [
        ['exempt', 'exempt', '1', '<none>', 'False'],
        ['probes', 'exempt', '2', '<none>', 'False'],
        ['system-leader-election', 'leader-election', '100', 'ByUser', 'False'],
        ['endpoint-controller', 'workload-high', '150', 'ByUser', 'False'],
        ['workload-leader-election', 'leader-election', '200', 'ByUser', 'False'],
        ['system-node-high', 'node-high', '400', 'ByUser', 'False'],
        ['system-nodes', 'system', '500', 'ByUser', 'False'],
        ['kube-controller-manager', 'workload-high', '800', 'ByNamespace', 'False'],
        ['kube-scheduler', 'workload-high', '800', 'ByNamespace', 'False'],
        ['kube-system-service-accounts', 'workload-high', '900', 'ByNamespace', 'False'],
        ['service-accounts', 'workload-low', '9000', 'ByUser', 'False'],
        ['global-default', 'global-default', '9900', 'ByUser', 'False'],
        ['catch-all', 'catch-all', '10000', 'ByUser', 'False'],
      ],
    );
    assert.match(levels.split('\n')[0] ?? '', /^NAME\s+TYPE\s+NOMINALCONCURRENCYSHARES\s+QUEUES\s+HANDSIZE\s+QUEUELENGTHLIMIT\s+AGE$/);
    assert.deepEqual(
      rows(levels, 6).map(([name = '', ...cells]) => [name.replace('prioritylevelconfiguration.flowcontrol.apiserver.k8s.io/', ''), ...cells]),
      [
        ['catch-all', 'Limited', '5', '<none>', '<none>', '<none>'],
        ['exempt', 'Exempt', '<none>', '<none>', '<none>', '<none>'],
        ['global-default', 'Limited', '20', '128', '6', '50'],
        ['leader-election', 'Limited', '10', '16', '4', '50'],
        ['node-high', 'Limited', '40', '64', '6', '50'],
        ['system', 'Limited', '30', '64', '6', '50'],
        ['workload-high', 'Limited', '40', '128', '6', '50'],
        ['workload-low', 'Limited', '100', '128', '6', '50'],
      ],
    );
    assert.equal(
      (await kp.kubectlOk(['get', 'flowschema', 'exempt', '-o', 'jsonpath={.metadata.annotations.apf\\.kubernetes\\.io/autoupdate-spec} {.status.conditions[0].reason}'])).trim(),
      'true Found',
    );
    const described = await kp.kubectlOk(['describe', 'flowschema', 'probes']);
    assert.match(described, /^\s+Matching Precedence:\s+2$/m);
    assert.match(described, /^\s+Message:\s+This FlowSchema references the PriorityLevelConfiguration object named "exempt" and it exists$/m);
    const created = await kp.kubectl(
      ['create', '-f', '-'],
      'apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: PriorityLevelConfiguration\nmetadata: {name: mine}\nspec: {type: Limited, limited: {limitResponse: {type: Queue, queuing: {queues: 7, handSize: 8}}}}\n',
    );
    assert.equal(created.stderr.trim(), 'The PriorityLevelConfiguration "mine" is invalid: spec.limited.limitResponse.queuing.handSize: Invalid value: 8: should not be greater than queues (7)');
  });
});
