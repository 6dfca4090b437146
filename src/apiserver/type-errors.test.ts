/**
 * Values of the wrong JSON type never reach storage: the decoder's error, as upstream words it, on
 * create/update (400) and patch (422 on field `patch`). Before this, `replicas: "abc"` was stored and
 * the controllers looped rewriting it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { findTypeError } from '../api/schema/index.js';
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

describe('findTypeError', () => {
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
    for (const [spec, want] of cases) assert.equal(findTypeError({ spec }, 'V1Deployment'), want, JSON.stringify(spec));
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
