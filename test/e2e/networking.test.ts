/**
 * Networking kinds and CSRs with the real kubectl: `kubectl create ingress` with the default
 * IngressClass applied, upstream's columns for ingresses, ingress classes, network policies, IP
 * addresses and service CIDRs (the default `kubernetes` range exists), `kubectl describe netpol`,
 * an invalid Ingress refused with upstream's message, and a CSR made from a real PKCS#10 request,
 * approved with `kubectl certificate approve`.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { certificateRequest, startKubeplane, removeDataDir, type Kubeplane } from './harness.js';

/** The header and the rows of `kubectl get` output, cells split on runs of spaces. */
function table(out: string): { header: string; rows: string[][] } {
  const [header = '', ...rows] = out.trimEnd().split('\n');
  return { header, rows: rows.map((r) => r.split(/\s{2,}/)) };
}

describe('networking kinds and CSRs with real kubectl', { timeout: 120_000 }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 1 });
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  test('kubectl create ingress gets the default IngressClass; get ing / ingressclass print upstream columns', async () => {
    const ingressClass = `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
  annotations:
    ingressclass.kubernetes.io/is-default-class: "true"
spec:
  controller: k8s.io/ingress-nginx
`;
    assert.equal((await kp.kubectlOk(['apply', '-f', '-'], ingressClass)).trim(), 'ingressclass.networking.k8s.io/nginx created');
    assert.equal((await kp.kubectlOk(['create', 'ingress', 'simple', '--rule=foo.com/bar=svc1:8080'])).trim(), 'ingress.networking.k8s.io/simple created');
    await kp.kubectlOk(['create', 'ingress', 'secure', '--class=other', '--rule=secure.com/*=svc2:https,tls=my-cert']);
    const ing = table(await kp.kubectlOk(['get', 'ing']));
    assert.match(ing.header, /^NAME\s+CLASS\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE$/);
    assert.deepEqual(
      ing.rows.map((r) => r.slice(0, 4)),
      [
        ['secure', 'other', 'secure.com', '80, 443'],
        ['simple', 'nginx', 'foo.com', '80'],
      ],
    );
    const simple = await kp.kubectlJson<{ spec: { rules: { http: { paths: { path: string; pathType: string }[] } }[] } }>(['get', 'ing', 'simple']);
    assert.deepEqual(simple.spec.rules[0]?.http.paths[0], { backend: { service: { name: 'svc1', port: { number: 8080 } } }, path: '/bar', pathType: 'Exact' });
    const classes = table(await kp.kubectlOk(['get', 'ingressclass']));
    assert.match(classes.header, /^NAME\s+CONTROLLER\s+PARAMETERS\s+AGE$/);
    assert.deepEqual(classes.rows[0]?.slice(0, 3), ['nginx', 'k8s.io/ingress-nginx', '<none>']);
  });

  test('an Ingress with the deprecated class annotation is created with upstream\'s Warning', async () => {
    const legacy = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: legacy
  annotations: {kubernetes.io/ingress.class: nginx}
spec:
  defaultBackend: {service: {name: svc, port: {number: 80}}}
`;
    const r = await kp.kubectl(['apply', '-f', '-'], legacy);
    assert.equal(r.stdout.trim(), 'ingress.networking.k8s.io/legacy created', r.stderr);
    assert.equal(r.stderr.trim(), `Warning: annotation "kubernetes.io/ingress.class" is deprecated, please use 'spec.ingressClassName' instead`);
  });

  test('an invalid Ingress is refused with upstream messages', async () => {
    const bad = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: bad}
spec:
  rules:
  - host: 1.2.3.4
    http:
      paths:
      - path: bar
        pathType: Prefix
        backend: {service: {name: svc, port: {number: 80}}}
      - path: /x
        backend: {service: {name: svc, port: {number: 80}}}
`;
    const refused = await kp.kubectl(['apply', '-f', '-'], bad);
    assert.notEqual(refused.code, 0);
    assert.equal(
      refused.stderr.trim(),
      [
        'The Ingress "bad" is invalid: ',
        '* spec.rules[0].host: Invalid value: "1.2.3.4": must be a DNS name, not an IP address',
        '* spec.rules[0].http.paths[0].path: Invalid value: "bar": must be an absolute path',
        '* spec.rules[0].http.paths[1].pathType: Required value: pathType must be specified',
      ].join('\n'),
    );
  });

  test('network policies: defaults, get and describe', async () => {
    const policy = `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: db}
spec:
  podSelector:
    matchLabels: {role: db}
  ingress:
  - from:
    - ipBlock: {cidr: 172.17.0.0/16, except: [172.17.1.0/24]}
    - namespaceSelector: {matchLabels: {project: myproject}}
    ports:
    - port: 6379
  egress:
  - to:
    - ipBlock: {cidr: 10.0.0.0/24}
`;
    assert.equal((await kp.kubectlOk(['apply', '-f', '-'], policy)).trim(), 'networkpolicy.networking.k8s.io/db created');
    const got = table(await kp.kubectlOk(['get', 'netpol']));
    assert.match(got.header, /^NAME\s+POD-SELECTOR\s+AGE$/);
    assert.deepEqual(got.rows[0]?.slice(0, 2), ['db', 'role=db']);
    assert.equal((await kp.kubectlOk(['get', 'netpol', 'db', '-o', 'jsonpath={.spec.policyTypes} {.spec.ingress[0].ports[0].protocol}'])).trim(), '["Ingress","Egress"] TCP');
    const described = await kp.kubectlOk(['describe', 'netpol', 'db']);
    for (const line of [/PodSelector:\s+role=db/, /Allowing ingress traffic:/, /To Port: 6379\/TCP/, /CIDR: 172\.17\.0\.0\/16/, /Except: 172\.17\.1\.0\/24/, /NamespaceSelector: project=myproject/, /Policy Types: Ingress, Egress/]) {
      assert.match(described, line);
    }
  });

  test('the default ServiceCIDR and IPAddresses', async () => {
    const cidrs = table(await kp.kubectlOk(['get', 'servicecidr']));
    assert.match(cidrs.header, /^NAME\s+CIDRS\s+AGE$/);
    assert.deepEqual(cidrs.rows[0]?.slice(0, 2), ['kubernetes', '10.96.0.0/12']);
    assert.equal((await kp.kubectlOk(['get', 'servicecidr', 'kubernetes', '-o', 'jsonpath={.status.conditions[0].type}={.status.conditions[0].status}'])).trim(), 'Ready=True');
    const address = `apiVersion: networking.k8s.io/v1
kind: IPAddress
metadata: {name: 10.96.100.5}
spec: {parentRef: {group: "", resource: services, namespace: default, name: web}}
`;
    await kp.kubectlOk(['apply', '-f', '-'], address);
    const ips = table(await kp.kubectlOk(['get', 'ip']));
    assert.match(ips.header, /^NAME\s+PARENTREF$/);
    assert.deepEqual(ips.rows, [['10.96.100.5', 'services/default/web']]);
    const refused = await kp.kubectl(['apply', '-f', '-'], address.replace('10.96.100.5', '2001:db8:0::1'));
    assert.match(refused.stderr, /metadata\.name: Invalid value: "2001:db8:0::1": must be in canonical form \("2001:db8::1"\)/);
  });

  test('a CSR from a real PKCS#10 request, approved with kubectl certificate approve', async () => {
    const request = await certificateRequest('CN=alice,O=dev');
    const csr = `apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: {name: alice}
spec:
  request: ${request}
  signerName: kubernetes.io/kube-apiserver-client
  expirationSeconds: 86400
  usages: [client auth]
`;
    assert.equal((await kp.kubectlOk(['apply', '-f', '-'], csr)).trim(), 'certificatesigningrequest.certificates.k8s.io/alice created');
    const pending = table(await kp.kubectlOk(['get', 'csr']));
    assert.match(pending.header, /^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION$/);
    const cells = pending.rows[0] ?? [];
    assert.deepEqual([cells[0], ...cells.slice(2)], ['alice', 'kubernetes.io/kube-apiserver-client', 'kubernetes-admin', '24h', 'Pending']);
    assert.equal((await kp.kubectlOk(['certificate', 'approve', 'alice'])).trim(), 'certificatesigningrequest.certificates.k8s.io/alice approved');
    assert.equal(table(await kp.kubectlOk(['get', 'csr', 'alice'])).rows[0]?.at(-1), 'Approved');
    const described = await kp.kubectlOk(['describe', 'csr', 'alice']);
    assert.match(described, /Requesting User:\s+kubernetes-admin/);
    assert.match(described, /Status:\s+Approved/);
    assert.match(described, /Common Name:\s+alice/);
    const invalid = await kp.kubectl(['apply', '-f', '-'], csr.replace('name: alice', 'name: junk').replace(/request: .*/, `request: ${Buffer.from('hi\n').toString('base64')}`));
    assert.equal(invalid.stderr.trim(), 'The CertificateSigningRequest "junk" is invalid: spec.request: Invalid value: []byte{0x68, 0x69, 0xa}: PEM block type must be CERTIFICATE REQUEST');
  });
});
