/**
 * Ingress validation (pkg/apis/networking/validation/validation_test.go TestValidateIngressCreate,
 * TestValidateIngressTLS, TestValidateIngressStatusUpdate cases: pathType required and known,
 * absolute paths, backends, hosts, TLS, class name, the deprecated annotation), update leniency, the
 * strategy's status and generation handling, the DefaultIngressClass admission, and the table row.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Ingress, IngressClass, KubeObject } from '../../../api/index.js';
import { fieldErrorString } from '../../../machinery/errors/index.js';
import { newTestServer, obj } from '../../testing/fixtures.js';
import type { ResourceStrategy } from '../strategy.js';
import { admitIngressClass, formatHosts, ingressStrategy, validateIngressCreate, validateIngressStatusUpdate, validateIngressUpdate } from './ingresses.js';
import { ingressClassStrategy } from './ingressclasses.js';
import { namespaceStrategy } from './namespaces.js';

type Spec = NonNullable<Ingress['spec']>;
type Path = NonNullable<NonNullable<Spec['rules']>[number]['http']>['paths'][number];
const msgs = (errs: Parameters<typeof fieldErrorString>[0][]): string[] => errs.map(fieldErrorString);
const ing = (spec: Spec, annotations?: Record<string, string>): Ingress => ({ metadata: { name: 'i', ...(annotations ? { annotations } : {}) }, spec });
const backend = { service: { name: 'web', port: { number: 80 } } };
const withPath = (p: Partial<Path>): Ingress => ing({ rules: [{ host: 'foo.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend, ...p }] } }] });
const P = 'spec.rules[0].http.paths[0]';

describe('Ingress validation', () => {
  test('a valid ingress; rules or a default backend are required', () => {
    assert.deepEqual(validateIngressCreate(withPath({})), []);
    assert.deepEqual(validateIngressCreate(ing({ defaultBackend: backend })), []);
    assert.deepEqual(msgs(validateIngressCreate(ing({}))), ['spec: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified']);
    assert.deepEqual(msgs(validateIngressCreate(ing({ rules: [] }))), ['spec: Invalid value: []networking.IngressRule{}: either `defaultBackend` or `rules` must be specified']);
  });

  test('pathType is required and one of Exact, ImplementationSpecific, Prefix', () => {
    const noType = withPath({});
    delete (noType.spec?.rules?.[0]?.http?.paths[0] as Partial<Path>).pathType;
    assert.deepEqual(msgs(validateIngressCreate(noType)), [`${P}.pathType: Required value: pathType must be specified`]);
    assert.deepEqual(msgs(validateIngressCreate(withPath({ pathType: 'Regex' }))), [`${P}.pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"`]);
  });

  test('Exact and Prefix paths are absolute and clean; ImplementationSpecific paths are absolute when set', () => {
    assert.deepEqual(msgs(validateIngressCreate(withPath({ pathType: 'Exact', path: 'foo' }))), [`${P}.path: Invalid value: "foo": must be an absolute path`]);
    assert.deepEqual(msgs(validateIngressCreate(withPath({ path: '/foo//bar/./x/%2F' }))), [
      `${P}.path: Invalid value: "/foo//bar/./x/%2F": must not contain '//'`,
      `${P}.path: Invalid value: "/foo//bar/./x/%2F": must not contain '/./'`,
      `${P}.path: Invalid value: "/foo//bar/./x/%2F": must not contain '%2F'`,
    ]);
    assert.deepEqual(msgs(validateIngressCreate(withPath({ path: '/foo/..' }))), [`${P}.path: Invalid value: "/foo/..": cannot end with '/..'`]);
    assert.deepEqual(msgs(validateIngressCreate(withPath({ pathType: 'Prefix', path: '' }))), [`${P}.path: Invalid value: "": must be an absolute path`]);
    assert.deepEqual(validateIngressCreate(withPath({ pathType: 'ImplementationSpecific', path: '' })), []);
    assert.deepEqual(msgs(validateIngressCreate(withPath({ pathType: 'ImplementationSpecific', path: 'a' }))), [`${P}.path: Invalid value: "a": must be an absolute path`]);
    assert.deepEqual(msgs(validateIngressCreate(ing({ rules: [{ http: { paths: [] } }] }))), ['spec.rules[0].http.paths: Required value']);
  });

  test('backends: exactly one of resource and service; a service has a DNS-1035 name and a port name or number', () => {
    const B = `${P}.backend`;
    const resource = { apiGroup: 'example.com', kind: 'Bucket', name: 'b' };
    assert.deepEqual(validateIngressCreate(withPath({ backend: { resource } })), []);
    assert.deepEqual(msgs(validateIngressCreate(withPath({ backend: { resource, service: backend.service } }))), [`${B}: Invalid value: "": cannot set both resource and service backends`]);
    assert.deepEqual(msgs(validateIngressCreate(withPath({ backend: {} }))), [`${B}: Invalid value: "": resource or service backend is required`]);
    assert.deepEqual(msgs(validateIngressCreate(withPath({ backend: { resource: { kind: '', name: 'a/b' } } }))), [`${B}.resource.kind: Required value`, `${B}.resource.name: Invalid value: "a/b": may not contain '/'`]);
    assert.deepEqual(msgs(validateIngressCreate(withPath({ backend: { service: { name: 'web', port: { name: 'http', number: 80 } } } }))), [`${B}: Invalid value: "": cannot set both port name & port number`]);
    assert.deepEqual(msgs(validateIngressCreate(withPath({ backend: { service: { name: 'web' } } }))), [`${B}: Required value: port name or number is required`]);
    assert.deepEqual(msgs(validateIngressCreate(withPath({ backend: { service: { name: 'web', port: { number: 70000 } } } }))), [`${B}.service.port.number: Invalid value: 70000: must be between 1 and 65535, inclusive`]);
    assert.deepEqual(msgs(validateIngressCreate(withPath({ backend: { service: { name: 'web', port: { name: 'HTTP' } } } }))), [
      `${B}.service.port.name: Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`,
      `${B}.service.port.name: Invalid value: "HTTP": must contain at least one letter (a-z)`,
    ]);
    assert.deepEqual(msgs(validateIngressCreate(withPath({ backend: { service: { name: '1web', port: { number: 80 } } } }))), [
      `${B}.service.name: Invalid value: "1web": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
    ]);
    assert.deepEqual(msgs(validateIngressCreate(withPath({ backend: { service: { name: '', port: { number: 80 } } } }))), [`${B}.service.name: Required value`]);
  });

  test('hosts are DNS names, wildcards only as *.<subdomain>; TLS hosts and secret names; the class name', () => {
    const rule = (host: string): Ingress => ing({ rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend }] } }] });
    assert.deepEqual(validateIngressCreate(rule('*.foo.com')), []);
    assert.deepEqual(msgs(validateIngressCreate(rule('1.2.3.4'))), ['spec.rules[0].host: Invalid value: "1.2.3.4": must be a DNS name, not an IP address']);
    assert.match(msgs(validateIngressCreate(rule('foo.*.com')))[0] ?? '', /^spec\.rules\[0\]\.host: Invalid value: "foo\.\*\.com": a wildcard DNS-1123 subdomain must start with '\*\.'/);
    assert.match(msgs(validateIngressCreate(rule('Foo.com')))[0] ?? '', /^spec\.rules\[0\]\.host: Invalid value: "Foo\.com": a lowercase RFC 1123 subdomain/);
    const tls = ing({ defaultBackend: backend, tls: [{ hosts: ['*.foo.com', 'bad_host'], secretName: 'Secret' }] });
    const errs = msgs(validateIngressCreate(tls));
    assert.equal(errs.length, 2);
    assert.match(errs[0] ?? '', /^spec\.tls\[0\]\.hosts\[1\]: Invalid value: "bad_host": a lowercase RFC 1123 subdomain/);
    assert.match(errs[1] ?? '', /^spec\.tls\[0\]\.secretName: Invalid value: "Secret": a lowercase RFC 1123 subdomain/);
    assert.match(msgs(validateIngressCreate(ing({ defaultBackend: backend, ingressClassName: 'Nginx' })))[0] ?? '', /^spec\.ingressClassName: Invalid value: "Nginx": a lowercase RFC 1123 subdomain/);
  });

  test('the deprecated class annotation must match ingressClassName (create only)', () => {
    const both = ing({ defaultBackend: backend, ingressClassName: 'nginx' }, { 'kubernetes.io/ingress.class': 'traefik' });
    assert.deepEqual(msgs(validateIngressCreate(both)), ['annotations.kubernetes.io/ingress.class: Invalid value: "traefik": must match `ingressClassName` when both are specified']);
    assert.deepEqual(validateIngressCreate(ing({ defaultBackend: backend, ingressClassName: 'nginx' }, { 'kubernetes.io/ingress.class': 'nginx' })), []);
    assert.deepEqual(validateIngressUpdate(both, both), []);
  });

  test('updates tolerate invalid secret names and wildcard rules that are already stored', () => {
    const old = ing({ defaultBackend: backend, tls: [{ secretName: 'Bad' }], rules: [{ host: '*.foo.com', http: { paths: [{ path: 'x', pathType: 'Prefix', backend }] } }] });
    assert.deepEqual(validateIngressUpdate(old, old), []);
    assert.equal(validateIngressUpdate(old, ing({ defaultBackend: backend })).length, 2);
  });

  test('status: load balancer IPs parse, hostnames are DNS names and not IPs', () => {
    const status = (lb: { ip?: string; hostname?: string }): Ingress => ({ ...withPath({}), status: { loadBalancer: { ingress: [lb] } } });
    assert.deepEqual(validateIngressStatusUpdate(status({ ip: '10.0.0.1', hostname: 'lb.example.com' }), withPath({})), []);
    assert.deepEqual(msgs(validateIngressStatusUpdate(status({ ip: 'abcd' }), withPath({}))), [
      'status.loadBalancer.ingress[0].ip: Invalid value: "abcd": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    ]);
    assert.deepEqual(msgs(validateIngressStatusUpdate(status({ hostname: '127.0.0.1' }), withPath({}))), [
      'status.loadBalancer.ingress[0].hostname: Invalid value: "127.0.0.1": must be a DNS name, not an IP address',
    ]);
    assert.deepEqual(validateIngressStatusUpdate(status({ ip: 'abcd' }), status({ ip: 'abcd' })), []);
  });
});

describe('Ingress strategy', () => {
  test('create resets status and sets generation 1; updates keep status and bump generation on spec changes', () => {
    const created = { ...withPath({}), status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } } } as Ingress;
    ingressStrategy.prepareForCreate(created as never, 0);
    assert.deepEqual(created.status, { loadBalancer: {} });
    assert.equal(created.metadata?.generation, 1);
    const old = { ...withPath({}), metadata: { name: 'i', generation: 3 }, status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } } } as Ingress;
    const next = { ...withPath({ path: '/x' }), metadata: { name: 'i', generation: 3 } } as Ingress;
    ingressStrategy.prepareForUpdate(next as never, old as never);
    assert.deepEqual([next.metadata?.generation, next.status], [4, old.status]);
    const statusOnly = { ...withPath({ path: '/changed' }), status: { loadBalancer: { ingress: [{ hostname: 'lb' }] } } } as Ingress;
    ingressStrategy.prepareForStatusUpdate?.(statusOnly as never, old as never);
    assert.deepEqual(statusOnly.spec, old.spec);
  });

  test('table: NAME CLASS HOSTS ADDRESS PORTS AGE', () => {
    assert.deepEqual(
      ingressStrategy.table.columns.map((c) => c.name),
      ['Name', 'Class', 'Hosts', 'Address', 'Ports', 'Age'],
    );
    const i = {
      ...ing({ rules: ['a', 'b', '', 'c', 'd'].map((host) => ({ host })), tls: [{}] }),
      metadata: { name: 'web', creationTimestamp: '2025-01-01T00:00:00Z' },
      status: { loadBalancer: { ingress: [{ ip: '10.0.0.2' }, { hostname: 'lb.example.com' }, { ip: '10.0.0.1' }, { ip: '10.0.0.2' }] } },
    } as Ingress;
    assert.deepEqual(ingressStrategy.table.row(i as never, Date.parse('2025-01-01T00:05:00Z')).cells, ['web', '<none>', 'a,b,c + 2 more...', '10.0.0.1,10.0.0.2,lb.example.com', '80, 443', '5m']);
    assert.equal(formatHosts(undefined), '*');
    assert.equal(formatHosts([{}, { host: 'x' }]), 'x');
    assert.deepEqual(ingressStrategy.table.row({ ...withPath({}), spec: { ...withPath({}).spec, ingressClassName: 'nginx' } }, 0).cells.slice(1, 5), ['nginx', 'foo.com', '', '80']);
  });
});

describe('DefaultIngressClass admission', () => {
  const cls = (name: string, isDefault: string | undefined, created: string): IngressClass => ({
    metadata: { name, creationTimestamp: created, ...(isDefault !== undefined ? { annotations: { 'ingressclass.kubernetes.io/is-default-class': isDefault } } : {}) },
    spec: { controller: 'example.com/c' },
  });
  const admitted = (i: Ingress, classes: IngressClass[]): string | undefined => {
    admitIngressClass(i, classes);
    return i.spec?.ingressClassName;
  };

  test('the default class, the newest of several, none when a class is named or annotated', () => {
    const a = cls('a', 'true', '2025-01-01T00:00:00Z');
    const b = cls('b', 'true', '2025-01-02T00:00:00Z');
    const c = cls('c', 'TRUE', '2025-01-03T00:00:00Z');
    assert.equal(admitted(ing({ defaultBackend: backend }), [a, c]), 'a');
    assert.equal(admitted(ing({ defaultBackend: backend }), [a, b, c]), 'b');
    assert.equal(admitted(ing({ defaultBackend: backend }), [cls('z', 'true', '2025-01-01T00:00:00Z'), cls('y', 'true', '2025-01-01T00:00:00Z')]), 'y');
    assert.equal(admitted(ing({ defaultBackend: backend }), [c]), undefined);
    assert.equal(admitted(ing({ defaultBackend: backend, ingressClassName: 'mine' }), [a]), 'mine');
    assert.equal(admitted(ing({ defaultBackend: backend }, { 'kubernetes.io/ingress.class': 'x' }), [a]), undefined);
  });

  test('through the API server: a new Ingress gets the served default IngressClass', async () => {
    const strategies = [namespaceStrategy, ingressClassStrategy, ingressStrategy].map((s) => s as unknown as ResourceStrategy);
    const t = await newTestServer({ strategies });
    const nw = { group: 'networking.k8s.io', version: 'v1' };
    await t.server.handle({ ...nw, resource: 'ingressclasses', verb: 'create', body: { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', ...cls('nginx', 'true', '2025-01-01T00:00:00Z') } });
    const body = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', ...ing({ defaultBackend: backend }) } as KubeObject;
    const created = obj(await t.server.handle({ ...nw, resource: 'ingresses', namespace: 'default', verb: 'create', body })) as Ingress;
    assert.equal(created.spec?.ingressClassName, 'nginx');
    assert.deepEqual(created.status, { loadBalancer: {} });
    await t.server.close();
  });

  test('the deprecated class annotation is warned about on create and update (GetWarningsForIngress), not on a status update', async () => {
    const t = await newTestServer({ strategies: [namespaceStrategy, ingressStrategy].map((s) => s as unknown as ResourceStrategy) });
    const req = { group: 'networking.k8s.io', version: 'v1', resource: 'ingresses', namespace: 'default' };
    const warning = `annotation "kubernetes.io/ingress.class" is deprecated, please use 'spec.ingressClassName' instead`;
    const annotated = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', ...ing({ defaultBackend: backend }, { 'kubernetes.io/ingress.class': 'nginx' }) } as KubeObject;
    const created = await t.server.handle({ ...req, verb: 'create', body: annotated });
    assert.deepEqual(created.warnings, [warning]);
    const name = String(obj(created).metadata?.name);
    const updated = await t.server.handle({ ...req, name, verb: 'update', body: obj(created) });
    assert.deepEqual(updated.warnings, [warning]);
    const status = await t.server.handle({ ...req, name, subresource: 'status', verb: 'update', body: obj(updated) });
    assert.deepEqual(status.warnings, []);
    const plain = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', ...ing({ defaultBackend: backend }), metadata: { name: 'plain' } } as KubeObject;
    assert.deepEqual((await t.server.handle({ ...req, verb: 'create', body: plain })).warnings, []);
    await t.server.close();
  });
});
