/**
 * StatefulSets, Jobs and CronJobs with the real kubectl: served as upstream serves them (discovery,
 * defaults, generated Job selectors, printers, scale, upstream's rejections) — the StatefulSet with
 * its controller's status, Jobs and CronJobs with no controller acting on them yet (issue 13) — and
 * `kubectl apply --prune` with kubectl's default allowlist.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKubeplane, removeDataDir, type Kubeplane } from './harness.js';

/** The StatefulSet of the Kubernetes tutorial, with its headless Service. */
const WEB = `
apiVersion: v1
kind: Service
metadata:
  name: nginx
  labels: {app: nginx}
spec:
  ports: [{port: 80, name: web}]
  clusterIP: None
  selector: {app: nginx}
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: nginx}
  serviceName: nginx
  replicas: 2
  template:
    metadata:
      labels: {app: nginx}
    spec:
      terminationGracePeriodSeconds: 10
      containers:
      - name: nginx
        image: registry.k8s.io/nginx-slim:0.24
        ports: [{containerPort: 80, name: web}]
        volumeMounts: [{name: www, mountPath: /usr/share/nginx/html}]
  volumeClaimTemplates:
  - metadata: {name: www}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
`;

/** The lines of `kubectl get` output, each split into cells (empty cells vanish). */
const rows = (out: string): string[][] =>
  out
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/));

interface Obj {
  metadata: { uid: string; labels?: Record<string, string> };
  spec: Record<string, unknown> & { template?: { metadata?: { labels?: Record<string, string> } } };
  status?: Record<string, unknown>;
}

describe('StatefulSets, Jobs and CronJobs with real kubectl', { timeout: 120_000 }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 1 });
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  test('kubectl api-resources lists them as upstream does', async () => {
    const out = await kp.kubectlOk(['api-resources', '--api-group=apps']);
    assert.match(out, /^statefulsets\s+sts\s+apps\/v1\s+true\s+StatefulSet$/m);
    const batch = rows(await kp.kubectlOk(['api-resources', '--api-group=batch']));
    assert.deepEqual(batch.slice(1), [
      ['cronjobs', 'cj', 'batch/v1', 'true', 'CronJob'],
      ['jobs', 'batch/v1', 'true', 'Job'],
    ]);
    assert.equal((await kp.kubectlOk(['api-resources', '--categories=all', '-o', 'name'])).match(/^(statefulsets\.apps|jobs\.batch|cronjobs\.batch)$/gm)?.length, 3);
  });

  test('a StatefulSet: apply, get, scale, describe, and the forbidden update', async () => {
    assert.equal((await kp.kubectlOk(['apply', '-f', '-'], WEB)).trim(), 'service/nginx created\nstatefulset.apps/web created');
    assert.match(await kp.kubectlOk(['rollout', 'status', 'sts/web', '--timeout=60s']), /partitioned roll out complete: 2 new pods have been updated/);
    const get = rows(await kp.kubectlOk(['get', 'sts']));
    assert.deepEqual(get[0], ['NAME', 'READY', 'AGE']);
    assert.deepEqual(get[1]?.slice(0, 2), ['web', '2/2']);
    const wide = rows(await kp.kubectlOk(['get', 'statefulsets', '-o', 'wide']));
    assert.deepEqual(wide[0], ['NAME', 'READY', 'AGE', 'CONTAINERS', 'IMAGES']);
    assert.deepEqual([wide[1]?.[3], wide[1]?.[4]], ['nginx', 'registry.k8s.io/nginx-slim:0.24']);

    const sts = await kp.kubectlJson<Obj>(['get', 'sts', 'web']);
    assert.deepEqual(
      [sts.spec['podManagementPolicy'], sts.spec['updateStrategy'], sts.spec['revisionHistoryLimit'], sts.spec['persistentVolumeClaimRetentionPolicy']],
      ['OrderedReady', { type: 'RollingUpdate', rollingUpdate: { partition: 0 } }, 10, { whenDeleted: 'Retain', whenScaled: 'Retain' }],
    );
    assert.deepEqual((sts.spec['volumeClaimTemplates'] as Record<string, unknown>[])[0], {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'www' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' },
      status: { phase: 'Pending' },
    });
    const status = sts.status ?? {};
    assert.deepEqual(
      ['observedGeneration', 'replicas', 'readyReplicas', 'availableReplicas', 'currentReplicas', 'updatedReplicas', 'collisionCount'].map((k) => status[k]),
      [1, 2, 2, 2, 2, 2, 0],
    );
    assert.equal(status['currentRevision'], status['updateRevision']);

    assert.equal((await kp.kubectlOk(['scale', 'sts', 'web', '--replicas=3'])).trim(), 'statefulset.apps/web scaled');
    assert.match(await kp.kubectlOk(['rollout', 'status', 'sts/web', '--timeout=60s']), /partitioned roll out complete: 3 new pods have been updated/);
    assert.deepEqual(rows(await kp.kubectlOk(['get', 'sts', 'web']))[1]?.slice(0, 2), ['web', '3/3']);
    assert.equal((await kp.kubectlOk(['get', 'sts', 'web', '-o', 'jsonpath={.metadata.generation}'])), '2');

    const describe = await kp.kubectlOk(['describe', 'sts', 'web']);
    assert.match(describe, /^Replicas:\s+3 desired \| 3 total$/m);
    assert.match(describe, /^Pods Status:\s+3 Running \/ 0 Waiting \/ 0 Succeeded \/ 0 Failed$/m);
    assert.match(describe, /^Update Strategy:\s+RollingUpdate$/m);
    assert.match(describe, /^Volume Claims:\n\s+Name:\s+www$/m);

    const refused = await kp.kubectl(['apply', '-f', '-'], WEB.replace('storage: 1Gi', 'storage: 2Gi'));
    assert.notEqual(refused.code, 0);
    assert.match(
      refused.stderr,
      /The StatefulSet "web" is invalid: spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden/,
    );
  });

  test('kubectl create job: the generated selector and labels, defaults, get and describe', async () => {
    assert.equal((await kp.kubectlOk(['create', 'job', 'x', '--image=busybox', '--', 'echo', 'hi'])).trim(), 'job.batch/x created');
    const job = await kp.kubectlJson<Obj>(['get', 'job', 'x']);
    const uid = job.metadata.uid;
    const generated = { 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': 'x', 'controller-uid': uid, 'job-name': 'x' };
    assert.deepEqual(job.spec['selector'], { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
    assert.deepEqual(job.spec.template?.metadata?.labels, generated);
    assert.deepEqual(job.metadata.labels, generated);
    assert.deepEqual(
      ['completions', 'parallelism', 'backoffLimit', 'completionMode', 'suspend', 'manualSelector', 'podReplacementPolicy'].map((k) => job.spec[k]),
      [1, 1, 6, 'NonIndexed', false, false, 'TerminatingOrFailed'],
    );
    assert.equal((await kp.kubectlOk(['wait', '--for=condition=complete', 'job/x', '--timeout=60s'])).trim(), 'job.batch/x condition met');

    const get = rows(await kp.kubectlOk(['get', 'jobs']));
    assert.deepEqual(get[0], ['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE']);
    assert.deepEqual(get[1]?.slice(0, 3), ['x', 'Complete', '1/1']);
    assert.match(get[1]?.[3] ?? '', /^\d+s$/, 'started and completed: a duration');
    const wide = rows(await kp.kubectlOk(['get', 'job', 'x', '-o', 'wide']));
    assert.deepEqual(wide[0], ['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    assert.deepEqual(wide[1]?.slice(-3), ['x', 'busybox', `batch.kubernetes.io/controller-uid=${uid}`]);
    assert.equal((await kp.kubectlOk(['get', 'jobs', '--field-selector=status.successful=1', '-o', 'name'])).trim(), 'job.batch/x');
    assert.equal((await kp.kubectlOk(['get', 'jobs', '--field-selector=status.successful=0', '-o', 'name'])).trim(), '');

    const describe = await kp.kubectlOk(['describe', 'job', 'x']);
    assert.match(describe, /^Completions:\s+1$/m);
    assert.match(describe, /^Completion Mode:\s+NonIndexed$/m);
    assert.match(describe, /^Pods Statuses:\s+0 Active \(0 Ready\) \/ 1 Succeeded \/ 0 Failed$/m);

    const always = await kp.kubectl(['apply', '-f', '-'], 'apiVersion: batch/v1\nkind: Job\nmetadata: {name: always}\nspec:\n  template:\n    spec:\n      containers: [{name: c, image: busybox}]\n');
    assert.notEqual(always.code, 0);
    assert.match(always.stderr, /The Job "always" is invalid: spec\.template\.spec\.restartPolicy: Required value: valid values: "OnFailure", "Never"/);
    const immutable = await kp.kubectl(['patch', 'job', 'x', '--type=merge', '-p', '{"spec":{"completions":3}}']);
    assert.match(immutable.stderr, /spec\.completions: Invalid value: 3: field is immutable/);
  });

  test('kubectl create cronjob: defaults, get, describe, and a schedule robfig/cron rejects', async () => {
    assert.equal((await kp.kubectlOk(['create', 'cronjob', 'c', '--image=busybox', '--schedule=0 0 1 1 *'])).trim(), 'cronjob.batch/c created');
    const cj = await kp.kubectlJson<Obj>(['get', 'cronjob', 'c']);
    assert.deepEqual(
      ['concurrencyPolicy', 'suspend', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit'].map((k) => cj.spec[k]),
      ['Allow', false, 3, 1],
    );
    const get = rows(await kp.kubectlOk(['get', 'cj']));
    assert.deepEqual(get[0], ['NAME', 'SCHEDULE', 'TIMEZONE', 'SUSPEND', 'ACTIVE', 'LAST', 'SCHEDULE', 'AGE']);
    // Once a year, so the running CronJob controller cannot start a Job while this test reads ACTIVE and LAST SCHEDULE.
    assert.deepEqual(get[1]?.slice(0, 10), ['c', '0', '0', '1', '1', '*', '<none>', 'False', '0', '<none>']);
    const wide = (await kp.kubectlOk(['get', 'cronjobs', '-o', 'wide'])).split('\n')[0] ?? '';
    assert.match(wide, /^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR$/);

    const describe = await kp.kubectlOk(['describe', 'cronjob', 'c']);
    assert.match(describe, /^Schedule:\s+0 0 1 1 \*$/m);
    assert.match(describe, /^Concurrency Policy:\s+Allow$/m);
    assert.match(describe, /^Suspend:\s+False$/m);

    const bad = await kp.kubectl(['create', 'cronjob', 'bad', '--image=busybox', '--schedule=61 * * * *']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /CronJob\.batch "bad" is invalid: spec\.schedule: Invalid value: "61 \* \* \* \*": end of range \(61\) above maximum \(59\): 61/);
    const tz = await kp.kubectl(['create', 'cronjob', 'tz', '--image=busybox', '--schedule=TZ=UTC 0 * * * *']);
    assert.match(tz.stderr, /spec\.schedule: Invalid value: "TZ=UTC 0 \* \* \* \*": cannot use TZ or CRON_TZ in schedule, use timeZone field instead/);
    const long = await kp.kubectl(['create', 'cronjob', 'c'.repeat(53), '--image=busybox', '--schedule=@daily']);
    assert.match(long.stderr, /metadata\.name: Invalid value: "c{53}": must be no more than 52 characters/);
  });

  /** Applies `keep` and `gone` (labelled ConfigMaps), then `keep` alone, with `--prune -l app=<label>` and `extra` flags; returns the second apply's output. */
  const pruneGone = async (label: string, extra: string[]): Promise<string> => {
    const dir = mkdtempSync(join(tmpdir(), 'prune-'));
    try {
      const cm = (name: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${label}-${name}, labels: {app: ${label}}}\ndata: {k: v}\n`;
      writeFileSync(join(dir, 'keep.yaml'), cm('keep'));
      writeFileSync(join(dir, 'gone.yaml'), cm('gone'));
      await kp.kubectlOk(['apply', '--prune', '-l', `app=${label}`, '-f', dir, ...extra]);
      assert.deepEqual(rows(await kp.kubectlOk(['get', 'cm', '-l', `app=${label}`, '-o', 'name'])), [[`configmap/${label}-gone`], [`configmap/${label}-keep`]]);
      rmSync(join(dir, 'gone.yaml'));
      const out = await kp.kubectlOk(['apply', '--prune', '-l', `app=${label}`, '-f', dir, ...extra]);
      assert.deepEqual(rows(await kp.kubectlOk(['get', 'cm', '-l', `app=${label}`, '-o', 'name'])), [[`configmap/${label}-keep`]]);
      return out;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  test('kubectl apply --prune with an allowlist of these kinds', async () => {
    const allow = ['core/v1/ConfigMap', 'apps/v1/StatefulSet', 'batch/v1/Job', 'batch/v1/CronJob'].map((r) => `--prune-allowlist=${r}`);
    assert.match(await pruneGone('q', allow), /^configmap\/q-gone pruned$/m);
  });

  // kubectl's default prune allowlist maps ConfigMap, Endpoints, Namespace, PersistentVolumeClaim,
  // PersistentVolume, Pod, ReplicationController, Secret, Service, Job, CronJob, Ingress, DaemonSet,
  // Deployment, ReplicaSet and StatefulSet, and gives up ("error retrieving RESTMappings to prune")
  // when any of them is not served.
  test('kubectl apply --prune with the default allowlist deletes a labelled ConfigMap removed from the manifests', async () => {
    assert.match(await pruneGone('p', []), /^configmap\/p-gone pruned$/m);
  });
});
