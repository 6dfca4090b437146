/**
 * `--controllers` as kube-controller-manager reads it (cases after upstream's TestIsControllerEnabled,
 * cmd/kube-controller-manager/app/controllermanager_test.go, for controllers that are on by default).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isControllerEnabled, KNOWN_CONTROLLERS, unknownControllerError } from './components.js';

test('isControllerEnabled: a name enables, -name disables, the first match wins, * enables the rest', () => {
  const cases: [string[], boolean][] = [
    [['*'], true],
    [['deployment-controller'], true],
    [['-deployment-controller'], false],
    [['*', '-deployment-controller'], false],
    [['-deployment-controller', '*'], false],
    [['deployment-controller', '-deployment-controller'], true],
    [['job-controller'], false],
    [['-job-controller'], false],
    [['*', '-job-controller'], true],
    [[], false],
  ];
  for (const [controllers, want] of cases) assert.equal(isControllerEnabled('deployment-controller', controllers), want, JSON.stringify(controllers));
});

test('unknownControllerError names the first unknown entry, with or without its dash', () => {
  assert.equal(unknownControllerError(['*', '-job-controller', 'deployment-controller']), undefined);
  assert.equal(unknownControllerError(['*', '-jobs']), '"jobs" is not in the list of known controllers');
  assert.equal(unknownControllerError(['replicaset']), '"replicaset" is not in the list of known controllers');
  assert.equal(new Set(KNOWN_CONTROLLERS).size, KNOWN_CONTROLLERS.length);
});
