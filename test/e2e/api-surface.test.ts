/**
 * The built-in API as kubectl 1.27, 1.31 and 1.33 see it: `kubectl api-resources` and `api-versions`
 * print what a 1.33 cluster with only metrics-server prints, the `kubectl create` generators of the newly served
 * kinds work with each version, a wrong apiVersion or kind gets upstream's `no matches for kind`, and
 * kubectl 1.27 (which reads the protobuf `/openapi/v2`) can apply, diff, edit and explain.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { removeDataDir, replicasEditor, startKubeplane, type Kubeplane } from './harness.js';

/** The kubectl minors exercised: the oldest, one in the middle, the server's own. */
const MINORS = [27, 31, 33];

/**
 * `kubectl api-resources` on a 1.33 cluster with no add-ons but metrics-server (kubeplane serves
 * metrics.k8s.io itself) and default feature gates (kubectl sorts by group, then name): NAME,
 * SHORTNAMES, APIVERSION, NAMESPACED, KIND.
 */
const UPSTREAM_RESOURCES = `
bindings||v1|true|Binding
componentstatuses|cs|v1|false|ComponentStatus
configmaps|cm|v1|true|ConfigMap
endpoints|ep|v1|true|Endpoints
events|ev|v1|true|Event
limitranges|limits|v1|true|LimitRange
namespaces|ns|v1|false|Namespace
nodes|no|v1|false|Node
persistentvolumeclaims|pvc|v1|true|PersistentVolumeClaim
persistentvolumes|pv|v1|false|PersistentVolume
pods|po|v1|true|Pod
podtemplates||v1|true|PodTemplate
replicationcontrollers|rc|v1|true|ReplicationController
resourcequotas|quota|v1|true|ResourceQuota
secrets||v1|true|Secret
serviceaccounts|sa|v1|true|ServiceAccount
services|svc|v1|true|Service
mutatingwebhookconfigurations||admissionregistration.k8s.io/v1|false|MutatingWebhookConfiguration
validatingadmissionpolicies||admissionregistration.k8s.io/v1|false|ValidatingAdmissionPolicy
validatingadmissionpolicybindings||admissionregistration.k8s.io/v1|false|ValidatingAdmissionPolicyBinding
validatingwebhookconfigurations||admissionregistration.k8s.io/v1|false|ValidatingWebhookConfiguration
customresourcedefinitions|crd,crds|apiextensions.k8s.io/v1|false|CustomResourceDefinition
apiservices||apiregistration.k8s.io/v1|false|APIService
controllerrevisions||apps/v1|true|ControllerRevision
daemonsets|ds|apps/v1|true|DaemonSet
deployments|deploy|apps/v1|true|Deployment
replicasets|rs|apps/v1|true|ReplicaSet
statefulsets|sts|apps/v1|true|StatefulSet
selfsubjectreviews||authentication.k8s.io/v1|false|SelfSubjectReview
tokenreviews||authentication.k8s.io/v1|false|TokenReview
localsubjectaccessreviews||authorization.k8s.io/v1|true|LocalSubjectAccessReview
selfsubjectaccessreviews||authorization.k8s.io/v1|false|SelfSubjectAccessReview
selfsubjectrulesreviews||authorization.k8s.io/v1|false|SelfSubjectRulesReview
subjectaccessreviews||authorization.k8s.io/v1|false|SubjectAccessReview
horizontalpodautoscalers|hpa|autoscaling/v2|true|HorizontalPodAutoscaler
cronjobs|cj|batch/v1|true|CronJob
jobs||batch/v1|true|Job
certificatesigningrequests|csr|certificates.k8s.io/v1|false|CertificateSigningRequest
leases||coordination.k8s.io/v1|true|Lease
endpointslices||discovery.k8s.io/v1|true|EndpointSlice
events|ev|events.k8s.io/v1|true|Event
flowschemas||flowcontrol.apiserver.k8s.io/v1|false|FlowSchema
prioritylevelconfigurations||flowcontrol.apiserver.k8s.io/v1|false|PriorityLevelConfiguration
nodes||metrics.k8s.io/v1beta1|false|NodeMetrics
pods||metrics.k8s.io/v1beta1|true|PodMetrics
ingressclasses||networking.k8s.io/v1|false|IngressClass
ingresses|ing|networking.k8s.io/v1|true|Ingress
ipaddresses|ip|networking.k8s.io/v1|false|IPAddress
networkpolicies|netpol|networking.k8s.io/v1|true|NetworkPolicy
servicecidrs||networking.k8s.io/v1|false|ServiceCIDR
runtimeclasses||node.k8s.io/v1|false|RuntimeClass
poddisruptionbudgets|pdb|policy/v1|true|PodDisruptionBudget
clusterrolebindings||rbac.authorization.k8s.io/v1|false|ClusterRoleBinding
clusterroles||rbac.authorization.k8s.io/v1|false|ClusterRole
rolebindings||rbac.authorization.k8s.io/v1|true|RoleBinding
roles||rbac.authorization.k8s.io/v1|true|Role
priorityclasses|pc|scheduling.k8s.io/v1|false|PriorityClass
csidrivers||storage.k8s.io/v1|false|CSIDriver
csinodes||storage.k8s.io/v1|false|CSINode
csistoragecapacities||storage.k8s.io/v1|true|CSIStorageCapacity
storageclasses|sc|storage.k8s.io/v1|false|StorageClass
volumeattachments||storage.k8s.io/v1|false|VolumeAttachment
`
  .trim()
  .split('\n')
  .map((l) => l.split('|'));

/** `kubectl api-versions` on the same cluster (sorted by kubectl). */
const UPSTREAM_VERSIONS = [
  'admissionregistration.k8s.io/v1',
  'apiextensions.k8s.io/v1',
  'apiregistration.k8s.io/v1',
  'apps/v1',
  'authentication.k8s.io/v1',
  'authorization.k8s.io/v1',
  'autoscaling/v1',
  'autoscaling/v2',
  'batch/v1',
  'certificates.k8s.io/v1',
  'coordination.k8s.io/v1',
  'discovery.k8s.io/v1',
  'events.k8s.io/v1',
  'flowcontrol.apiserver.k8s.io/v1',
  'metrics.k8s.io/v1beta1',
  'networking.k8s.io/v1',
  'node.k8s.io/v1',
  'policy/v1',
  'rbac.authorization.k8s.io/v1',
  'scheduling.k8s.io/v1',
  'storage.k8s.io/v1',
  'v1',
];

/** Cuts a kubectl table into cells at the header's column starts (cells may be empty). */
function cells(table: string): string[][] {
  const [header = '', ...rows] = table.trimEnd().split('\n');
  const starts = [...header.matchAll(/\S+/g)].map((m) => m.index);
  return rows.map((row) => starts.map((s, i) => row.slice(s, starts[i + 1]).trim()));
}

const deployment = (replicas: number): string =>
  JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'old' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'old' } },
      template: { metadata: { labels: { app: 'old' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } },
    },
  });

describe('the built-in API with kubectl 1.27, 1.31 and 1.33', { timeout: 300_000 }, () => {
  let kp: Kubeplane;
  let removeEditor: () => void;
  before(async () => {
    removeEditor = replicasEditor(4); // `kubectl edit` sets replicas to 4
    kp = await startKubeplane({ nodes: 1 });
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
    removeEditor();
  });

  for (const minor of MINORS) {
    test(`kubectl 1.${minor}: api-resources and api-versions print upstream's lists`, async () => {
      const resources = await kp.kubectlAt(minor, ['api-resources']);
      assert.equal(resources.code, 0, resources.stderr);
      assert.match(resources.stdout, /^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND\n/);
      assert.deepEqual(cells(resources.stdout), UPSTREAM_RESOURCES);
      const versions = await kp.kubectlAt(minor, ['api-versions']);
      assert.deepEqual(versions.stdout.trim().split('\n'), UPSTREAM_VERSIONS);
    });

    test(`kubectl 1.${minor}: create role, rolebinding, clusterrole, clusterrolebinding, priorityclass, quota, pdb, ingress`, async () => {
      const ns = `v${minor}`;
      await kp.kubectlOk(['create', 'namespace', ns]);
      const creates: [string[], string][] = [
        [['create', 'role', 'reader', '--verb=get,list', '--resource=pods', '-n', ns], 'role.rbac.authorization.k8s.io/reader created'],
        [['create', 'rolebinding', 'reader', '--role=reader', '--user=jane', '-n', ns], 'rolebinding.rbac.authorization.k8s.io/reader created'],
        [['create', 'clusterrole', `reader-${minor}`, '--verb=get', '--resource=nodes'], `clusterrole.rbac.authorization.k8s.io/reader-${minor} created`],
        [['create', 'clusterrolebinding', `reader-${minor}`, `--clusterrole=reader-${minor}`, '--group=readers'], `clusterrolebinding.rbac.authorization.k8s.io/reader-${minor} created`],
        [['create', 'priorityclass', `high-${minor}`, '--value=1000'], `priorityclass.scheduling.k8s.io/high-${minor} created`],
        [['create', 'quota', 'q', '--hard=pods=10', '-n', ns], 'resourcequota/q created'],
        [['create', 'poddisruptionbudget', 'pdb', '--selector=app=x', '--min-available=1', '-n', ns], 'poddisruptionbudget.policy/pdb created'],
        [['create', 'ingress', 'web', '--rule=foo.com/bar=svc1:8080', '-n', ns], 'ingress.networking.k8s.io/web created'],
      ];
      for (const [args, want] of creates) {
        const r = await kp.kubectlAt(minor, args);
        assert.equal(r.stdout.trim(), want, `kubectl 1.${minor} ${args.join(' ')}: ${r.stderr}`);
      }
      const rb = cells(await kp.kubectlOk(['get', 'rolebinding', 'reader', '-n', ns, '-o', 'wide']));
      assert.deepEqual(rb[0]?.filter((_, i) => i !== 2), ['reader', 'Role/reader', 'jane', '', '']);
    });

    test(`kubectl 1.${minor}: a wrong apiVersion or kind is "no matches for kind"`, async () => {
      for (const [apiVersion, kind] of <[string, string][]>[
        ['apps/v2', 'Deployment'],
        ['v1', 'Foo'],
        ['rbac.authorization.k8s.io/v1beta1', 'Role'],
      ]) {
        const r = await kp.kubectlAt(minor, ['apply', '-f', '-'], JSON.stringify({ apiVersion, kind, metadata: { name: 'x' } }));
        assert.notEqual(r.code, 0);
        assert.match(r.stderr, new RegExp(`no matches for kind "${kind}" in version "${apiVersion.replace(/\./g, '\\.')}"`), `kubectl 1.${minor}: ${r.stderr}`);
      }
    });
  }

  test('kubectl 1.27 applies, diffs, edits and explains', async () => {
    const apply = await kp.kubectlAt(27, ['apply', '-f', '-'], deployment(2));
    assert.equal(apply.stdout, 'deployment.apps/old created\n', apply.stderr);
    const diff = await kp.kubectlAt(27, ['diff', '-f', '-'], deployment(3));
    assert.equal(diff.code, 1, diff.stderr);
    assert.match(diff.stdout, /^- {2}replicas: 2$/m);
    assert.match(diff.stdout, /^\+ {2}replicas: 3$/m);
    const again = await kp.kubectlAt(27, ['apply', '-f', '-'], deployment(3));
    assert.equal(again.stdout, 'deployment.apps/old configured\n', again.stderr);
    const edit = await kp.kubectlAt(27, ['edit', 'deployment/old']);
    assert.equal(edit.stdout, 'deployment.apps/old edited\n', edit.stderr);
    assert.equal(await kp.kubectlOk(['get', 'deployment', 'old', '-o', 'jsonpath={.spec.replicas}']), '4');
    const explain = await kp.kubectlAt(27, ['explain', 'deployment.spec.strategy.rollingUpdate.maxSurge']);
    assert.equal(explain.code, 0, explain.stderr);
    assert.match(explain.stdout, /FIELD:\s+maxSurge <IntOrString>/);
    assert.match(explain.stdout, /The maximum number of pods that can be scheduled above the desired number of/);
    const rbac = await kp.kubectlAt(27, ['explain', 'clusterrolebinding.roleRef']);
    assert.match(rbac.stdout, /RoleRef contains information that points to the role being used/);
    assert.match(rbac.stdout, /apiGroup\t<string> -required-/);
  });
});
