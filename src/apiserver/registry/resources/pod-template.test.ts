import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Container, PodSpec, PodTemplateSpec } from '../../../api/index.js';
import { fieldErrorString, type FieldError } from '../../../machinery/errors/index.js';
import {
  defaultContainer,
  defaultImagePullPolicy,
  defaultPodSpec,
  defaultPodTemplateSpec,
  validatePodSpec,
  validateSelectorAndTemplate,
  validateTolerations,
} from './pod-template.js';

const msgs = (errs: FieldError[]): string[] => errs.map(fieldErrorString);

/** A defaulted, valid pod spec with one container; `mutate` edits it before validation. */
function spec(mutate: (s: PodSpec) => void = () => {}): PodSpec {
  const s: PodSpec = { containers: [{ name: 'web', image: 'nginx:1.25' }] };
  defaultPodSpec(s);
  mutate(s);
  return s;
}
const c0 = (s: PodSpec): Container => s.containers[0] as Container;

describe('defaults', () => {
  test('imagePullPolicy follows the image tag', () => {
    const cases: [string, string][] = [
      ['nginx', 'Always'],
      ['nginx:latest', 'Always'],
      ['registry:5000/nginx', 'Always'],
      ['registry:5000/nginx:latest', 'Always'],
      ['nginx:1.9.1', 'IfNotPresent'],
      ['registry:5000/nginx:1.9', 'IfNotPresent'],
      ['nginx@sha256:abcd', 'IfNotPresent'],
      ['nginx:latest@sha256:abcd', 'Always'],
    ];
    for (const [image, want] of cases) assert.equal(defaultImagePullPolicy(image), want, image);
  });

  test('container defaults', () => {
    const c: Container = {
      name: 'web',
      image: 'nginx',
      ports: [{ containerPort: 80 }],
      env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
      readinessProbe: { httpGet: { port: 80 } },
    };
    defaultContainer(c);
    assert.deepEqual(c, {
      name: 'web',
      image: 'nginx',
      imagePullPolicy: 'Always',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
      resources: {},
      ports: [{ containerPort: 80, protocol: 'TCP' }],
      env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name', apiVersion: 'v1' } } }],
      readinessProbe: { httpGet: { port: 80, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
    });
  });

  test('set fields are kept', () => {
    const c: Container = { name: 'a', image: 'nginx', imagePullPolicy: 'Never', terminationMessagePolicy: 'FallbackToLogsOnError' };
    defaultContainer(c);
    assert.equal(c.imagePullPolicy, 'Never');
    assert.equal(c.terminationMessagePolicy, 'FallbackToLogsOnError');
  });

  test('pod spec defaults and volumes', () => {
    const s: PodSpec = { containers: [], volumes: [{ name: 'scratch' }, { name: 'cfg', configMap: { name: 'c' } }] };
    defaultPodSpec(s);
    assert.deepEqual(s, {
      containers: [],
      volumes: [{ name: 'scratch', emptyDir: {} }, { name: 'cfg', configMap: { name: 'c', defaultMode: 420 } }],
      dnsPolicy: 'ClusterFirst',
      restartPolicy: 'Always',
      securityContext: {},
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
    });
  });

  test('template defaults create metadata', () => {
    const t: PodTemplateSpec = { spec: { containers: [{ name: 'a', image: 'x:1' }] } };
    defaultPodTemplateSpec(t);
    assert.deepEqual(t.metadata, {});
    assert.equal(t.spec?.restartPolicy, 'Always');
  });
});

describe('validatePodSpec', () => {
  const v = (s: PodSpec): string[] => msgs(validatePodSpec(s, 'spec', { resourceIsPod: true }));

  test('a defaulted spec is valid', () => assert.deepEqual(v(spec()), []));

  test('at least one container', () => {
    assert.deepEqual(v(spec((s) => (s.containers = []))), ['spec.containers: Required value']);
  });

  test('container name and image', () => {
    assert.deepEqual(v(spec((s) => (c0(s).image = ''))), ['spec.containers[0].image: Required value']);
    assert.deepEqual(v(spec((s) => (c0(s).name = ''))), ['spec.containers[0].name: Required value']);
    assert.deepEqual(v(spec((s) => (c0(s).name = 'Web'))), [
      `spec.containers[0].name: Invalid value: "Web": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    ]);
  });

  test('duplicate container names', () => {
    const s = spec((x) => x.containers.push({ ...c0(x) }));
    assert.deepEqual(v(s), ['spec.containers[1].name: Duplicate value: "web"']);
  });

  test('init container names must not collide with containers', () => {
    const s = spec((x) => (x.initContainers = [{ ...c0(x) }]));
    assert.deepEqual(v(s), ['spec.initContainers[0].name: Duplicate value: "web"']);
  });

  test('restartPolicy on a regular container is forbidden; on an init container only Always', () => {
    const s = spec((x) => {
      c0(x).restartPolicy = 'Always';
      x.initContainers = [{ ...c0(x), name: 'init', restartPolicy: 'Never' }];
    });
    assert.deepEqual(v(s), [
      'spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers',
      'spec.initContainers[0].restartPolicy: Unsupported value: "Never": supported values: "Always"',
    ]);
  });

  test('ports', () => {
    const s = spec((x) => {
      c0(x).ports = [
        { containerPort: 0, protocol: 'TCP' },
        { containerPort: 70000, protocol: 'XTP', name: 'http' },
        { containerPort: 80, protocol: 'TCP', name: 'http' },
      ];
    });
    assert.deepEqual(v(s), [
      'spec.containers[0].ports[0].containerPort: Required value',
      'spec.containers[0].ports[1].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
      'spec.containers[0].ports[1].protocol: Unsupported value: "XTP": supported values: "SCTP", "TCP", "UDP"',
      'spec.containers[0].ports[2].name: Duplicate value: "http"',
    ]);
  });

  test('host port conflicts', () => {
    const s = spec((x) => {
      c0(x).ports = [{ containerPort: 80, hostPort: 8080, protocol: 'TCP' }];
      x.containers.push({ ...c0(x), name: 'other', ports: [{ containerPort: 81, hostPort: 8080, protocol: 'TCP' }] });
    });
    assert.deepEqual(v(s), ['spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"']);
  });

  test('resources: requests above limits, bad names and quantities', () => {
    const s = spec((x) => {
      c0(x).resources = { limits: { cpu: '1', memory: '128Mi' }, requests: { cpu: '1500m', memory: '1000Mi', gpu: '1' } };
    });
    assert.deepEqual(v(s), [
      // validateContainerResourceName: validateResourceName's error, then the container one.
      'spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified',
      'spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource for containers',
      'spec.containers[0].resources.requests: Invalid value: "1500m": must be less than or equal to cpu limit of 1',
      'spec.containers[0].resources.requests: Invalid value: "1000Mi": must be less than or equal to memory limit of 128Mi',
    ]);
    const neg = spec((x) => (c0(x).resources = { requests: { cpu: '-1' } }));
    assert.deepEqual(v(neg), ['spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0']);
    const bad = spec((x) => (c0(x).resources = { limits: { memory: '1 Gi' } }));
    assert.deepEqual(v(bad), [
      `spec.containers[0].resources.limits[memory]: Invalid value: "1 Gi": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
    ]);
  });

  test('restartPolicy, dnsPolicy, terminationGracePeriodSeconds', () => {
    const s = spec((x) => {
      x.restartPolicy = 'Sometimes';
      x.dnsPolicy = 'Cluster';
      delete x.terminationGracePeriodSeconds;
    });
    assert.deepEqual(v(s), [
      'spec.terminationGracePeriodSeconds: Required value',
      'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
      'spec.dnsPolicy: Unsupported value: "Cluster": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
    ]);
  });

  test('volume mounts must name a volume', () => {
    const s = spec((x) => (c0(x).volumeMounts = [{ name: 'data', mountPath: '/data' }]));
    assert.deepEqual(v(s), ['spec.containers[0].volumeMounts[0].name: Not found: "data"']);
  });

  test('nodeName, activeDeadlineSeconds, hostNetwork ports', () => {
    const s = spec((x) => {
      x.nodeName = 'Node_1';
      x.activeDeadlineSeconds = 0;
      x.hostNetwork = true;
      c0(x).ports = [{ containerPort: 80, protocol: 'TCP' }];
    });
    const errs = v(s);
    assert.equal(errs[0], 'spec.containers[0].ports[0].hostPort: Invalid value: 0: must match `containerPort` when `hostNetwork` is true');
    assert.match(errs[1] as string, /^spec\.nodeName: Invalid value: "Node_1": a lowercase RFC 1123 subdomain/);
    assert.equal(errs[2], 'spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive');
  });

  test('a template may leave hostPort 0 with hostNetwork', () => {
    const s = spec((x) => {
      x.hostNetwork = true;
      c0(x).ports = [{ containerPort: 80, protocol: 'TCP' }];
    });
    assert.deepEqual(msgs(validatePodSpec(s, 'spec', { resourceIsPod: false })), []);
  });
});

test('validateTolerations', () => {
  const errs = msgs(
    validateTolerations(
      [
        { operator: 'Equal', value: 'x' },
        { key: 'k', operator: 'Exists', value: 'v' },
        { key: 'k', operator: 'Maybe', effect: 'NoWay' },
        { key: 'k', tolerationSeconds: 10, effect: 'NoSchedule' },
      ],
      'spec.tolerations',
    ),
  );
  assert.deepEqual(errs, [
    'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
    `spec.tolerations[1].operator: Invalid value: "v": value must be empty when \`operator\` is 'Exists'`,
    'spec.tolerations[2].operator: Unsupported value: "Maybe": supported values: "Equal", "Exists"',
    'spec.tolerations[2].effect: Unsupported value: "NoWay": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    "spec.tolerations[3].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set",
  ]);
});

describe('validateSelectorAndTemplate', () => {
  const template = (labels: Record<string, string>, mutate: (t: PodTemplateSpec) => void = () => {}): PodTemplateSpec => {
    const t: PodTemplateSpec = { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1' }] } };
    defaultPodTemplateSpec(t);
    mutate(t);
    return t;
  };
  const v = (sel: Parameters<typeof validateSelectorAndTemplate>[0], t: PodTemplateSpec): string[] =>
    msgs(validateSelectorAndTemplate(sel, t, 'spec'));

  test('matching selector and template are valid', () => {
    assert.deepEqual(v({ matchLabels: { app: 'web' } }, template({ app: 'web', tier: 'x' })), []);
  });

  test('selector must match the template labels', () => {
    assert.deepEqual(v({ matchLabels: { app: 'web' } }, template({ app: 'db' })), [
      'spec.template.metadata.labels: Invalid value: {"app":"db"}: `selector` does not match template `labels`',
    ]);
  });

  test('selector is required; a nil selector matches nothing', () => {
    assert.deepEqual(v(undefined, template({ app: 'web' })), [
      'spec.selector: Required value',
      'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
    ]);
  });

  test('an empty selector is invalid', () => {
    assert.deepEqual(v({}, template({ app: 'web' })), ['spec.selector: Invalid value: {}: empty selector is invalid for deployment']);
  });

  test('an uncompilable selector stops there', () => {
    const errs = v({ matchExpressions: [{ key: 'app', operator: 'Near' }] }, template({ app: 'web' }));
    assert.deepEqual(errs, [
      'spec.selector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator',
      'spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"Near"}]}: invalid label selector',
    ]);
  });

  test('template restartPolicy must be Always and activeDeadlineSeconds is not supported', () => {
    const t = template({ app: 'web' }, (x) => {
      x.spec!.restartPolicy = 'OnFailure';
      x.spec!.activeDeadlineSeconds = 10;
    });
    assert.deepEqual(v({ matchLabels: { app: 'web' } }, t), [
      'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
      'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported',
    ]);
  });

  test('template container errors carry the template path', () => {
    const t = template({ app: 'web' }, (x) => (x.spec!.containers[0]!.image = ''));
    assert.deepEqual(v({ matchLabels: { app: 'web' } }, t), ['spec.template.spec.containers[0].image: Required value']);
  });
});
