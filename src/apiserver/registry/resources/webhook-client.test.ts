/**
 * Webhook client config validation (k8s.io/apiserver pkg/util/webhook/validation_test.go cases: URL
 * scheme, host, user info, query, fragment; service path segments), and the url.Parse errors it reports.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorString } from '../../../machinery/errors/index.js';
import { parseGoURL, validateWebhookService, validateWebhookURL } from './webhook-client.js';

const url = (u: string): string[] => validateWebhookURL('url', u, true).map(fieldErrorString);

test('url.Parse: host, user, query and fragment; Go’s parse errors', () => {
  assert.deepEqual(parseGoURL('https://user:pw@example.com:8443/a?b=c#d'), { scheme: 'https', user: 'user:pw', host: 'example.com:8443', rawQuery: 'b=c', fragment: 'd' });
  assert.deepEqual(parseGoURL('HTTPS:opaque'), { scheme: 'https', host: '', user: undefined, rawQuery: '', fragment: '' });
  assert.deepEqual(url('https://example.com/convert'), []);
  assert.deepEqual(url('example.com/convert'), [
    "url: Invalid value: \"\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
    'url: Invalid value: "": host must be specified; desired format: https://host[/path]',
  ]);
  assert.deepEqual(url('://x'), ['url: Required value: url must be a valid URL: parse "://x": missing protocol scheme; desired format: https://host[/path]']);
  assert.deepEqual(url('https://a\nb'), ['url: Required value: url must be a valid URL: parse "https://a\\nb": net/url: invalid control character in URL; desired format: https://host[/path]']);
  assert.deepEqual(url('https://a:b/'), ['url: Required value: url must be a valid URL: parse "https://a:b/": invalid port ":b" after host; desired format: https://host[/path]']);
  assert.deepEqual(url('a:b/c'), ["url: Invalid value: \"a\": 'https' is the only allowed URL scheme; desired format: https://host[/path]", 'url: Invalid value: "": host must be specified; desired format: https://host[/path]']);
});

test('service: name, namespace, port and path segments', () => {
  const svc = (path: string | undefined, port = 443): string[] => validateWebhookService('svc', 'ns', 'name', path, port).map(fieldErrorString);
  assert.deepEqual(svc(undefined), []);
  assert.deepEqual(svc('/'), []);
  assert.deepEqual(svc('/convert/v1/'), []);
  assert.deepEqual(svc('//'), ['svc.path: Invalid value: "//": segment[0] may not be empty']);
  assert.deepEqual(svc('/a//b', 65536), [
    'svc.port: Invalid value: 65536: port is not valid: must be between 1 and 65535, inclusive',
    'svc.path: Invalid value: "/a//b": segment[1] may not be empty',
  ]);
  assert.deepEqual(validateWebhookService('svc', '', '', undefined, 443).map(fieldErrorString), [
    'svc.name: Required value: service name is required',
    'svc.namespace: Required value: service namespace is required',
  ]);
});
