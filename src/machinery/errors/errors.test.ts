/**
 * Status bodies byte for byte as upstream's API server writes them (Go's encoding/json over
 * metav1.Status: fields in declaration order, omitempty fields left out). Clients such as the
 * python client's e2e compare error bodies as text.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newAlreadyExists, newInvalid, newNotFound, newTooManyRequests, field, statusDetails } from './index.js';

test('a core 404 has no details.group, and details comes before code', () => {
  assert.equal(
    JSON.stringify(newNotFound({ group: '', resource: 'pods' }, 'p').status),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \\"p\\" not found","reason":"NotFound","details":{"name":"p","kind":"pods"},"code":404}',
  );
});

test('a grouped 409 names the group', () => {
  assert.equal(
    JSON.stringify(newAlreadyExists({ group: 'apps', resource: 'deployments' }, 'web').status),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \\"web\\" already exists","reason":"AlreadyExists","details":{"name":"web","group":"apps","kind":"deployments"},"code":409}',
  );
});

test('a core 422 lists its causes after the kind', () => {
  const err = newInvalid({ group: '', kind: 'Pod' }, 'p', [field.required('spec.containers')]);
  assert.equal(
    JSON.stringify(err.status),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Pod \\"p\\" is invalid: spec.containers: Required value","reason":"Invalid","details":{"name":"p","kind":"Pod","causes":[{"reason":"FieldValueRequired","message":"Required value","field":"spec.containers"}]},"code":422}',
  );
});

test('a 422 message names an error reported twice once (ErrorList.ToAggregate); the causes keep both', () => {
  const twice = [field.required('spec.attacher'), field.required('spec.attacher'), field.required('spec.nodeName')];
  const err = newInvalid({ group: 'storage.k8s.io', kind: 'VolumeAttachment' }, 'va', twice);
  assert.equal(err.status.message, 'VolumeAttachment.storage.k8s.io "va" is invalid: [spec.attacher: Required value, spec.nodeName: Required value]');
  assert.equal(err.status.details?.causes?.length, 3);
  const once = newInvalid({ group: 'storage.k8s.io', kind: 'VolumeAttachment' }, 'va', twice.slice(0, 2));
  assert.equal(once.status.message, 'VolumeAttachment.storage.k8s.io "va" is invalid: spec.attacher: Required value');
});

test('details keep a non-nil empty StatusDetails as {} (429 without retry-after)', () => {
  assert.equal(JSON.stringify(newTooManyRequests('slow down', 0).status.details), '{}');
  assert.deepEqual(statusDetails({ name: '', group: '', kind: 'pods', uid: '', causes: [] }), { kind: 'pods' });
});
