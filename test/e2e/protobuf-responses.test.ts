/**
 * kubectl 1.33's typed clients ask for `application/vnd.kubernetes.protobuf,application/json`
 * (create, describe, events, auth can-i): they get protobuf answers, decode them, and print what
 * they print against a Go server. `-v=8` shows the response's Content-Type; a GET sends no body, so
 * a protobuf Content-Type in its log is the response's.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startKubeplane, eventually, removeDataDir, type Kubeplane } from './harness.js';

const PROTOBUF_RESPONSE = /Content-Type: application\/vnd\.kubernetes\.protobuf\s*$/m;

describe('kubectl gets protobuf responses', () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 1 });
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  test('create decodes the protobuf object the server returns', async () => {
    const r = await kp.kubectl(['create', 'namespace', 'team-a', '-v=8']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /Accept: application\/vnd\.kubernetes\.protobuf,application\/json/);
    assert.equal(r.stdout.trim(), 'namespace/team-a created');
    const dep = await kp.kubectl(['create', 'deployment', 'web', '--image=nginx', '--replicas=2', '-n', 'team-a']);
    assert.equal(dep.code, 0, dep.stderr);
    assert.equal(dep.stdout.trim(), 'deployment.apps/web created');
  });

  test('describe reads the deployment, its replica sets and events in protobuf and prints them', async () => {
    await kp.kubectlOk(['rollout', 'status', 'deployment/web', '-n', 'team-a', '--timeout=60s']);
    const r = await kp.kubectl(['describe', 'deployment', 'web', '-n', 'team-a', '-v=8']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, PROTOBUF_RESPONSE);
    assert.match(r.stdout, /^Name:\s+web$/m);
    assert.match(r.stdout, /^Replicas:\s+2 desired \| 2 updated \| 2 total \| 2 available \| 0 unavailable$/m);
    assert.match(r.stdout, /^NewReplicaSet:\s+web-\w+ \(2\/2 replicas created\)$/m);
    assert.match(r.stdout, /ScalingReplicaSet/);
  });

  test('events lists protobuf Events; auth can-i reads a protobuf SelfSubjectAccessReview', async () => {
    const events = await eventually('scaling events listed', async () => {
      const r = await kp.kubectl(['events', '-n', 'team-a', '-v=8']);
      return r.code === 0 && /ScalingReplicaSet/.test(r.stdout) ? r : undefined;
    });
    assert.match(events.stderr, PROTOBUF_RESPONSE);
    assert.match(events.stdout, /Scaled up replica set web-\w+ (to|from 0 to) 2/);
    const can = await kp.kubectl(['auth', 'can-i', 'get', 'pods', '-v=8']);
    assert.equal(can.code, 0, can.stderr);
    assert.match(can.stderr, PROTOBUF_RESPONSE);
    assert.equal(can.stdout.trim(), 'yes');
  });
});
