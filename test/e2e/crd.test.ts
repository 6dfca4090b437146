/**
 * Custom resources served from a CustomResourceDefinition, with the real kubectl: a CRD with two
 * versions (v1beta1 deprecated), status and scale subresources, printer columns, short names and the
 * `all` category; `kubectl wait --for=condition=Established`; create, get (columns, -o wide, short
 * name, `get all`), patch (merge and JSON; strategic refused with upstream's 415), scale, the
 * deprecated version's warning; `kubectl explain` with the schema's descriptions; deleting the CRD
 * takes its custom resources with it.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startKubeplane, removeDataDir, eventually, type Kubeplane } from './harness.js';

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames: [ct]
    categories: [all]
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
            description: The schedule and what runs.
            properties:
              cronSpec: {type: string, description: The cron schedule of the job.}
              image: {type: string}
              replicas: {type: integer}
          status:
            type: object
            properties:
              replicas: {type: integer}
              selector: {type: string}
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
        labelSelectorPath: .status.selector
    additionalPrinterColumns:
    - name: Spec
      type: string
      jsonPath: .spec.cronSpec
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    - name: Image
      type: string
      jsonPath: .spec.image
      priority: 1
    - name: Age
      type: date
      jsonPath: .metadata.creationTimestamp
  - name: v1beta1
    served: true
    storage: false
    deprecated: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`;

const CRONTAB = `apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: my-cron
  namespace: default
spec:
  cronSpec: "* * * * */5"
  image: my-cron-image
  replicas: 1
`;

describe('custom resources with real kubectl', { timeout: 180_000 }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 1 });
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  test('a CRD is established, its custom resources are created, printed, patched, scaled and deleted with it', async () => {
    assert.equal((await kp.kubectlOk(['apply', '-f', '-'], CRD)).trim(), 'customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created');
    assert.equal(
      (await kp.kubectlOk(['wait', '--for=condition=Established', 'crd/crontabs.stable.example.com', '--timeout=30s'])).trim(),
      'customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com condition met',
    );
    assert.equal((await kp.kubectlOk(['apply', '-f', '-'], CRONTAB)).trim(), 'crontab.stable.example.com/my-cron created');
    const explained = await kp.kubectlOk(['explain', 'crontabs.spec']);
    assert.match(explained, /^GROUP:\s+stable\.example\.com\nKIND:\s+CronTab\nVERSION:\s+v1\n/);
    assert.match(explained, /The schedule and what runs\./);
    assert.match(explained, /cronSpec\s+<string>\n\s+The cron schedule of the job\./);

    const table = (await kp.kubectlOk(['get', 'crontabs'])).trim().split('\n');
    assert.match(table[0] ?? '', /^NAME\s+SPEC\s+REPLICAS\s+AGE$/);
    assert.match(table[1] ?? '', /^my-cron\s+\* \* \* \* \*\/5\s+1\s+\d+s$/);
    const wide = (await kp.kubectlOk(['get', 'ct', '-o', 'wide'])).trim().split('\n');
    // Wide columns keep their place in the CRD's order.
    assert.match(wide[0] ?? '', /^NAME\s+SPEC\s+REPLICAS\s+IMAGE\s+AGE$/);
    assert.match(wide[1] ?? '', /^my-cron\s+.*\s+1\s+my-cron-image\s+\d+s$/);
    assert.match(await kp.kubectlOk(['get', 'all']), /crontab\.stable\.example\.com\/my-cron/);

    assert.equal((await kp.kubectlOk(['patch', 'ct', 'my-cron', '--type=merge', '-p', '{"spec":{"image":"v2"}}'])).trim(), 'crontab.stable.example.com/my-cron patched');
    assert.equal(
      (await kp.kubectlOk(['patch', 'ct', 'my-cron', '--type=json', '-p', '[{"op":"replace","path":"/spec/cronSpec","value":"*/2 * * * *"}]'])).trim(),
      'crontab.stable.example.com/my-cron patched',
    );
    const strategic = await kp.kubectl(['patch', 'ct', 'my-cron', '-p', '{"spec":{"image":"v3"}}']);
    assert.notEqual(strategic.code, 0);
    assert.match(
      strategic.stderr,
      /the body of the request was in an unknown format - accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/apply-patch\+yaml/,
    );

    assert.equal((await kp.kubectlOk(['scale', 'ct', 'my-cron', '--replicas=3'])).trim(), 'crontab.stable.example.com/my-cron scaled');
    const cr = await kp.kubectlJson<{ spec: { replicas: number; image: string; cronSpec: string }; metadata: { generation: number } }>(['get', 'ct', 'my-cron']);
    assert.deepEqual(cr.spec, { cronSpec: '*/2 * * * *', image: 'v2', replicas: 3 });
    assert.equal(cr.metadata.generation, 4);

    const old = await kp.kubectl(['get', 'crontabs.v1beta1.stable.example.com', 'my-cron', '-o', 'name']);
    assert.equal(old.code, 0, old.stderr);
    assert.match(old.stderr, /Warning: stable\.example\.com\/v1beta1 CronTab is deprecated; use stable\.example\.com\/v1 CronTab/);

    assert.equal((await kp.kubectlOk(['delete', 'crd', 'crontabs.stable.example.com'])).trim(), 'customresourcedefinition.apiextensions.k8s.io "crontabs.stable.example.com" deleted');
    await eventually('the CRD gone', async () => ((await kp.kubectl(['get', 'crd', 'crontabs.stable.example.com'])).code !== 0 ? true : undefined));
    const gone = await kp.kubectl(['get', 'crontabs']);
    assert.notEqual(gone.code, 0);
    // kubectl's cached discovery may still name the resource: then the server answers 404.
    assert.match(gone.stderr, /the server doesn't have a resource type "crontabs"|Unable to list "stable\.example\.com\/v1, Resource=crontabs": the server could not find the requested resource/);

    // Created again, the CRD serves no leftovers: its custom resources were deleted with it.
    await kp.kubectlOk(['apply', '-f', '-'], CRD);
    await kp.kubectlOk(['wait', '--for=condition=Established', 'crd/crontabs.stable.example.com', '--timeout=30s']);
    const again = await kp.kubectl(['get', 'crontabs']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /No resources found in default namespace\./);
  });
});
