import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { aggregatedDiscoveryVersion, convertTarget, mediaTypeOf, outputFormat, parseAccept } from './negotiation.js';
import { compareKubeAwareVersions } from './resource-index.js';

describe('Accept negotiation', () => {
  test('protobuf when preferred and served: client-go typed clients, q-values and order decide', () => {
    const clientGo = 'application/vnd.kubernetes.protobuf, application/json';
    assert.equal(outputFormat(clientGo, true), 'protobuf');
    assert.equal(outputFormat(clientGo, false), 'json');
    assert.equal(outputFormat('application/json, application/vnd.kubernetes.protobuf', true), 'json');
    assert.equal(outputFormat('application/json;q=0.5, application/vnd.kubernetes.protobuf', true), 'protobuf');
    assert.equal(outputFormat('application/vnd.kubernetes.protobuf;q=0.9, */*', true), 'json');
    assert.equal(outputFormat('application/vnd.kubernetes.protobuf;stream=watch', true), 'protobuf');
    assert.equal(outputFormat(undefined, true), 'json');
    assert.equal(outputFormat('text/html', true), 'json');
  });

  test('protobuf-only for a kind without a message is NotAcceptable; conversions stay JSON', () => {
    assert.equal(outputFormat('application/vnd.kubernetes.protobuf', false), undefined);
    assert.equal(outputFormat('application/vnd.kubernetes.protobuf;stream=watch', false), undefined);
    // The metadata client: its protobuf PartialObjectMetadataList is skipped for the JSON one.
    const metadata = 'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
    assert.equal(outputFormat(metadata, true), 'json');
    assert.equal(outputFormat('application/json;as=Table;v=v1;g=meta.k8s.io, application/vnd.kubernetes.protobuf', true), 'json');
  });

  test('media ranges are ordered by q, then position; q=0 is dropped', () => {
    assert.deepEqual(
      parseAccept('application/json;q=0.5, application/yaml, text/plain;q=0').map((r) => r.mediaType),
      ['application/yaml', 'application/json'],
    );
  });

  test('kubectl get asks for a v1 Table', () => {
    assert.deepEqual(convertTarget('application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json'), {
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
    });
  });

  test('plain JSON, */* or protobuf-then-JSON mean no conversion', () => {
    assert.equal(convertTarget('application/json'), undefined);
    assert.equal(convertTarget('*/*'), undefined);
    assert.equal(convertTarget('application/vnd.kubernetes.protobuf,application/json'), undefined);
    assert.equal(convertTarget(undefined), undefined);
  });

  test('a Table in an unknown group or version is skipped', () => {
    assert.deepEqual(convertTarget('application/json;as=Table;v=v2;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io'), {
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1beta1',
    });
    assert.equal(convertTarget('application/json;as=Table;v=v1;g=other.io'), undefined);
  });

  test('aggregated discovery version', () => {
    assert.equal(aggregatedDiscoveryVersion('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json'), 'v2');
    assert.equal(aggregatedDiscoveryVersion('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList'), 'v2beta1');
    assert.equal(aggregatedDiscoveryVersion('application/json, */*'), undefined);
  });

  test('Content-Type media type without parameters', () => {
    assert.equal(mediaTypeOf('Application/JSON; charset=utf-8'), 'application/json');
    assert.equal(mediaTypeOf(undefined), '');
  });
});

describe('compareKubeAwareVersions', () => {
  test('GA before beta before alpha, higher first, others last', () => {
    const versions = ['v1alpha1', 'v1', 'foo', 'v1beta1', 'v2', 'v1beta2', 'v2alpha1', 'bar'];
    assert.deepEqual(versions.sort(compareKubeAwareVersions), ['v2', 'v1', 'v1beta2', 'v1beta1', 'v2alpha1', 'v1alpha1', 'bar', 'foo']);
  });
});

