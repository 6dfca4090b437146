/**
 * Values of the wrong JSON type never reach storage: the decoder's error, as upstream words it, on
 * create/update (400) and patch (422 on field `patch`). Before this, `replicas: "abc"` was stored and
 * the controllers looped rewriting it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeTypedObject } from '../machinery/serializer/index.js';
import { servedStrategies } from './registry/resources/index.js';
import { newTestServer } from './testing/fixtures.js';
import { newClientset } from '../client/index.js';
import type { StatusError } from '../machinery/errors/index.js';
import type { Deployment } from '../api/index.js';

const deployment = (spec: Record<string, unknown> = {}): Deployment =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      ...spec,
    },
  });

describe('decodeTypedObject', () => {
  test("reports the first misfit the way Go's JSON decoder does", () => {
    const cases: [Record<string, unknown>, string | undefined][] = [
      [{ replicas: 'abc' }, 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32'],
      [{ replicas: 1.5 }, 'json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32'],
      [{ paused: 'yes' }, 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.paused of type bool'],
      [{ selector: 'app=web' }, 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.selector of type v1.LabelSelector'],
      [
        { template: { spec: { containers: [{ name: 'c', image: 5 }] } } },
        'json: cannot unmarshal number 5 into Go struct field Container.spec.template.spec.containers.image of type string',
      ],
      [{ template: { spec: { containers: {} } } }, 'json: cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container'],
      [{ strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } } }, undefined],
      [{ replicas: null, template: { metadata: { labels: { a: 'b' } } } }, undefined],
      [{ template: { metadata: { labels: { a: 1 } } } }, 'json: cannot unmarshal number 1 into Go struct field ObjectMeta.spec.template.metadata.labels of type string'],
    ];
    for (const [spec, want] of cases) assert.equal(decodeTypedObject({ spec }, 'io.k8s.api.apps.v1.Deployment'), want, JSON.stringify(spec));
  });
});

describe('the API server refuses values of the wrong type', () => {
  test('create → 400 BadRequest with the decoder message; nothing stored', async () => {
    const { server } = await newTestServer({ strategies: servedStrategies });
    const deployments = newClientset(server.inProcessTransport()).apps.deployments('default');
    await assert.rejects(deployments.create(deployment({ replicas: 'abc' })), (err: StatusError) => {
      assert.equal(err.code, 400);
      assert.equal(
        err.message,
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
      );
      return true;
    });
    assert.equal((await deployments.list()).items.length, 0);
    await server.close();
  });

  test('patch → 422 Invalid on field patch; the stored object is unchanged', async () => {
    const { server } = await newTestServer({ strategies: servedStrategies });
    const deployments = newClientset(server.inProcessTransport()).apps.deployments('default');
    await deployments.create(deployment());
    for (const [type, body] of [
      ['application/strategic-merge-patch+json', { spec: { replicas: 'abc' } }],
      ['application/merge-patch+json', { spec: { paused: 'yes' } }],
      ['application/json-patch+json', [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 5 }]],
    ] as const) {
      await assert.rejects(deployments.patch('web', type, body), (err: StatusError) => {
        assert.equal(err.code, 422, type);
        assert.equal(err.status.details?.causes?.[0]?.field, 'patch');
        assert.match(err.message, /json: cannot unmarshal (string|number 5) into Go struct field /);
        return true;
      });
    }
    const stored = await deployments.get('web');
    assert.equal(stored.spec?.replicas, 1);
    assert.equal(stored.spec?.paused, undefined);
    await server.close();
  });
});

const pod = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default', ...metadata },
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
});

/** `[[…]]` nested `depth` levels deep (arrays count one level each). */
function nested(depth: number): unknown {
  let v: unknown = [];
  for (let i = 1; i < depth; i++) v = [v];
  return v;
}

describe('the API server decodes nulls, integer widths and depth as upstream’s decoder', () => {
  test('null elements decode as zero values: an affinity term [null] is stored as [{}], labels {a: null} as ""', async () => {
    const { server } = await newTestServer({ strategies: servedStrategies });
    const pods = newClientset(server.inProcessTransport()).core.pods('default');
    const body = pod({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [null] } } } }, { labels: { a: null } });
    const created = await pods.create(body);
    // An empty term is valid and matches no node (NodeSelectorTerm's documentation).
    assert.deepEqual(created.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms, [{}]);
    assert.deepEqual(created.metadata?.labels, { a: '' });
    // An empty toleration is invalid: the zero value then fails validation with its field path.
    await assert.rejects(pods.create(pod({ tolerations: [null] }, { name: 'q' })), (err: StatusError) => {
      assert.equal(err.code, 422);
      assert.equal(
        err.message,
        'Pod "q" is invalid: spec.tolerations[0].operator: Invalid value: "": operator must be Exists when `key` is empty, which means "match all values and all keys"',
      );
      return true;
    });
    await server.close();
  });

  test('out-of-range integers: 400 on create, 422 on patch, with the decoder message', async () => {
    const { server } = await newTestServer({ strategies: servedStrategies });
    const deployments = newClientset(server.inProcessTransport()).apps.deployments('default');
    for (const replicas of [2147483648, 1e20]) {
      await assert.rejects(deployments.create(deployment({ replicas })), (err: StatusError) => {
        assert.equal(err.code, 400);
        assert.equal(
          err.message,
          `Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number ${String(replicas)} into Go struct field DeploymentSpec.spec.replicas of type int32`,
        );
        return true;
      });
    }
    await deployments.create(deployment());
    await assert.rejects(deployments.patch('web', 'application/merge-patch+json', { spec: { replicas: 2 ** 31 } }), (err: StatusError) => {
      assert.equal(err.code, 422);
      assert.match(err.message, /json: cannot unmarshal number 2147483648 into Go struct field DeploymentSpec\.spec\.replicas of type int32/);
      return true;
    });
    assert.equal((await deployments.get('web')).spec?.replicas, 1);
    await server.close();
  });

  test('bodies nested beyond the limit are 400 before anything recursive runs; a patch that nests too deep is 422', async () => {
    const { server } = await newTestServer({ strategies: servedStrategies });
    const client = newClientset(server.inProcessTransport());
    const deep = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'deep' }, data: { a: nested(200_000) } };
    await assert.rejects(client.core.configMaps('default').create(deep as never), (err: StatusError) => {
      assert.equal(err.code, 400);
      assert.equal(
        err.message,
        "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '[' exceeded max depth",
      );
      return true;
    });
    // 990 levels are fine in a free-form field; a patch adding 990 more under them is not.
    const revisions = client.apps.controllerRevisions('default');
    await revisions.create({ apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'r' }, revision: 1, data: { a: nested(990) } } as never);
    let path = '/data/a';
    for (let i = 0; i < 985; i++) path += '/0';
    await assert.rejects(revisions.patch('r', 'application/json-patch+json', [{ op: 'add', path: `${path}/-`, value: nested(990) }]), (err: StatusError) => {
      assert.equal(err.code, 422);
      assert.match(err.message, /exceeded max depth/);
      return true;
    });
    await assert.rejects(revisions.patch('r', 'application/merge-patch+json', { data: nested(200_000) }), (err: StatusError) => {
      assert.equal(err.code, 400);
      assert.equal(err.message, "invalid character '[' exceeded max depth");
      return true;
    });
    await server.close();
  });

  test('DeleteOptions of the wrong type are 400; a huge grace period still formats a deadline', async () => {
    const { server } = await newTestServer({ strategies: servedStrategies });
    const pods = newClientset(server.inProcessTransport()).core.pods('default');
    await pods.create(pod({ nodeName: 'n1' }));
    await assert.rejects(server.handle({ verb: 'delete', group: '', version: 'v1', resource: 'pods', namespace: 'default', name: 'p', body: { gracePeriodSeconds: 'soon' } }), (err: StatusError) => {
      assert.equal(err.code, 400);
      assert.equal(err.message, 'json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64');
      return true;
    });
    const res = await server.handle({ verb: 'delete', group: '', version: 'v1', resource: 'pods', namespace: 'default', name: 'p', body: { gracePeriodSeconds: 2 ** 62 } });
    assert.equal((res.body as { metadata: { deletionTimestamp: string } }).metadata.deletionTimestamp, '9999-12-31T23:59:59Z');
    await server.close();
  });

  test('a strategic merge patch that does not fit the object is 400, not 500 (ADR 5)', async () => {
    const { server } = await newTestServer({ strategies: servedStrategies });
    const deployments = newClientset(server.inProcessTransport()).apps.deployments('default');
    await deployments.create(deployment());
    await assert.rejects(deployments.patch('web', 'application/strategic-merge-patch+json', { spec: { template: { spec: { containers: ['x'] } } } }), (err: StatusError) => {
      assert.equal(err.code, 400);
      assert.match(err.message, /^list element types are not identical: /);
      return true;
    });
    await server.close();
  });
});
