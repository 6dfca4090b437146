import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { ContainerStatus, Pod as WirePod } from '../../../api/index.js';
import type { ApiObject } from './helpers.js';
import { fieldErrorString, type FieldError } from '../../../machinery/errors/index.js';
import { parseTime } from '../../../util/clock/index.js';
import { computePodQOS } from './pod-defaults.js';
import { printPod } from './pod-printer.js';
import { podStrategy } from './pods.js';

type Pod = ApiObject<WirePod>;

const msgs = (errs: FieldError[]): string[] => errs.map(fieldErrorString);
const NOW = parseTime('2025-01-01T01:00:00Z')!;
const clone = <T>(v: T): T => structuredClone(v);

/** The pod the nginx Deployment's ReplicaSet would create, before defaults. */
function rawPod(): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'nginx-1', namespace: 'default', labels: { app: 'nginx' } },
    spec: { containers: [{ name: 'nginx', image: 'nginx:1.9.1' }] },
  };
}

/** A defaulted pod after prepareForCreate. */
function createdPod(mutate: (p: Pod) => void = () => {}): Pod {
  const p = rawPod();
  mutate(p);
  podStrategy.defaults(p);
  podStrategy.prepareForCreate(p, NOW);
  return p;
}

describe('defaults and prepareForCreate', () => {
  test('full defaulted pod', () => {
    assert.deepEqual(createdPod(), {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'nginx-1', namespace: 'default', labels: { app: 'nginx' }, generation: 1 },
      spec: {
        containers: [
          {
            name: 'nginx',
            image: 'nginx:1.9.1',
            imagePullPolicy: 'IfNotPresent',
            terminationMessagePath: '/dev/termination-log',
            terminationMessagePolicy: 'File',
            resources: {},
          },
        ],
        enableServiceLinks: true,
        dnsPolicy: 'ClusterFirst',
        restartPolicy: 'Always',
        securityContext: {},
        terminationGracePeriodSeconds: 30,
        schedulerName: 'default-scheduler',
      },
      status: { phase: 'Pending', qosClass: 'BestEffort' },
    });
  });

  test('requests default to limits; hostNetwork ports default hostPort', () => {
    const p = createdPod((x) => {
      x.spec!.hostNetwork = true;
      x.spec!.containers[0]!.resources = { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m' } };
      x.spec!.containers[0]!.ports = [{ containerPort: 80 }];
    });
    assert.deepEqual(p.spec?.containers[0]?.resources, { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m', memory: '1Gi' } });
    assert.deepEqual(p.spec?.containers[0]?.ports, [{ containerPort: 80, hostPort: 80, protocol: 'TCP' }]);
    assert.equal(p.status?.qosClass, 'Burstable');
  });

  test('client-set status is replaced', () => {
    const p = createdPod((x) => ((x as { status?: unknown }).status = { phase: 'Running', podIP: '1.2.3.4' }));
    assert.deepEqual(p.status, { phase: 'Pending', qosClass: 'BestEffort' });
  });

  test('scheduling gates add a PodScheduled=False condition', () => {
    const p = createdPod((x) => (x.spec!.schedulingGates = [{ name: 'example.com/wait' }]));
    assert.deepEqual(p.status?.conditions, [
      {
        type: 'PodScheduled',
        status: 'False',
        reason: 'SchedulingGated',
        message: 'Scheduling is blocked due to non-empty scheduling gates',
        lastTransitionTime: '2025-01-01T01:00:00Z',
      },
    ]);
  });
});

test('computePodQOS', () => {
  const withResources = (...rs: { requests?: Record<string, string>; limits?: Record<string, string> }[]) => ({
    containers: rs.map((resources, i) => ({ name: `c${i}`, image: 'x', resources })),
  });
  assert.equal(computePodQOS(withResources({})), 'BestEffort');
  assert.equal(computePodQOS(withResources({ requests: { 'example.com/gpu': '1' } })), 'BestEffort');
  assert.equal(computePodQOS(withResources({ requests: { cpu: '100m' } })), 'Burstable');
  assert.equal(computePodQOS(withResources({ requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } })), 'Guaranteed');
  assert.equal(computePodQOS(withResources({ requests: { cpu: '1000m', memory: '1Gi' }, limits: { cpu: '1', memory: '1024Mi' } })), 'Guaranteed');
  assert.equal(computePodQOS(withResources({ limits: { cpu: '1', memory: '1Gi' } }, { limits: { cpu: '1' } })), 'Burstable');
  assert.equal(computePodQOS(withResources({ requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } })), 'Burstable');
});

describe('validate', () => {
  test('a defaulted pod is valid', () => assert.deepEqual(podStrategy.validate(createdPod()), []));

  test('ephemeral containers cannot be set on create; nodeName needs cleared gates', () => {
    const p = createdPod((x) => {
      x.spec!.ephemeralContainers = [{ name: 'debug', image: 'busybox' }];
      x.spec!.nodeName = 'node-1';
      x.spec!.schedulingGates = [{ name: 'gate' }];
    });
    assert.deepEqual(msgs(podStrategy.validate(p)), [
      'spec.ephemeralContainers: Forbidden: cannot be set on create',
      'spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared',
    ]);
  });

  test('image whitespace and pod-deletion-cost', () => {
    const p = createdPod((x) => {
      x.spec!.containers[0]!.image = ' nginx';
      x.metadata!.annotations = { 'controller.kubernetes.io/pod-deletion-cost': 'high' };
    });
    assert.deepEqual(msgs(podStrategy.validate(p)), [
      'metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "high": must be a 32bit integer',
      'spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace',
    ]);
  });
});

describe('update', () => {
  const update = (mutate: (p: Pod) => void): [Pod, string[]] => {
    const old = createdPod();
    const p = clone(old);
    mutate(p);
    podStrategy.prepareForUpdate(p, old);
    return [p, msgs(podStrategy.validateUpdate(p, old))];
  };

  test('image changes are allowed and bump the generation', () => {
    const [p, errs] = update((x) => (x.spec!.containers[0]!.image = 'nginx:1.25'));
    assert.deepEqual(errs, []);
    assert.equal(p.metadata?.generation, 2);
  });

  test('metadata-only changes keep the generation', () => {
    const [p, errs] = update((x) => (x.metadata!.labels = { app: 'other' }));
    assert.deepEqual(errs, []);
    assert.equal(p.metadata?.generation, 1);
  });

  test('status in an update is ignored', () => {
    const [p] = update((x) => ((x as { status?: unknown }).status = { phase: 'Running' }));
    assert.deepEqual(p.status, { phase: 'Pending', qosClass: 'BestEffort' });
  });

  test('other spec changes are forbidden with upstream message', () => {
    const [, errs] = update((x) => (x.spec!.nodeName = 'node-1'));
    assert.equal(errs.length, 1);
    const prefix =
      'spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n';
    assert.ok(errs[0]!.startsWith(prefix), errs[0]);
    assert.match(errs[0]!, /- \tnodeName: null,\n\+ \tnodeName: "node-1",/);
  });

  test('adding or removing containers', () => {
    const [, errs] = update((x) => x.spec!.containers.push({ name: 'b', image: 'b:1', imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' }));
    assert.deepEqual(errs, ['spec.containers: Forbidden: pod updates may not add or remove containers']);
  });

  test('activeDeadlineSeconds may be set and lowered, not raised or removed', () => {
    assert.deepEqual(update((x) => (x.spec!.activeDeadlineSeconds = 30))[1], []);
    const old = createdPod((x) => (x.spec!.activeDeadlineSeconds = 30));
    const raised = clone(old);
    raised.spec!.activeDeadlineSeconds = 60;
    assert.deepEqual(msgs(podStrategy.validateUpdate(raised, old)), [
      'spec.activeDeadlineSeconds: Invalid value: 60: must be less than or equal to previous value',
    ]);
    const removed = clone(old);
    delete removed.spec!.activeDeadlineSeconds;
    assert.deepEqual(msgs(podStrategy.validateUpdate(removed, old)), [
      'spec.activeDeadlineSeconds: Invalid value: "null": must not update from a positive integer to nil value',
    ]);
  });

  test('tolerations may only be added', () => {
    const old = createdPod((x) => (x.spec!.tolerations = [{ key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }]));
    const added = clone(old);
    added.spec!.tolerations!.push({ key: 'b', operator: 'Exists' });
    added.spec!.tolerations![0]!.tolerationSeconds = 5;
    assert.deepEqual(msgs(podStrategy.validateUpdate(added, old)), []);
    const changed = clone(old);
    changed.spec!.tolerations![0]!.key = 'c';
    assert.deepEqual(msgs(podStrategy.validateUpdate(changed, old)), [
      'spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds',
    ]);
  });

  test('scheduling gates may only be removed', () => {
    const old = createdPod((x) => (x.spec!.schedulingGates = [{ name: 'a' }]));
    const removed = clone(old);
    removed.spec!.schedulingGates = [];
    assert.deepEqual(msgs(podStrategy.validateUpdate(removed, old)), []);
    const added = clone(old);
    added.spec!.schedulingGates!.push({ name: 'b' });
    assert.deepEqual(msgs(podStrategy.validateUpdate(added, old)), [
      "spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'b'",
    ]);
  });
});

describe('status update', () => {
  test('keeps spec, deletionTimestamp and ownerReferences; backfills qosClass and observedGeneration', () => {
    const old = createdPod((x) => {
      x.metadata!.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }];
    });
    (old.status as { observedGeneration?: number }).observedGeneration = 1;
    const p = clone(old);
    p.spec!.nodeName = 'sneaky';
    p.metadata!.ownerReferences = [];
    (p as { status?: unknown }).status = { phase: 'Running' };
    podStrategy.prepareForStatusUpdate!(p, old, 0);
    assert.equal(p.spec?.nodeName, undefined);
    assert.deepEqual(p.metadata?.ownerReferences, old.metadata?.ownerReferences);
    assert.deepEqual(p.status, { phase: 'Running', qosClass: 'BestEffort', observedGeneration: 1 });
    assert.deepEqual(podStrategy.validateStatusUpdate!(p, old), []);
  });

  test('qosClass is immutable; terminated containers stay terminated unless Always', () => {
    const old = createdPod((x) => (x.spec!.restartPolicy = 'Never'));
    old.status!.containerStatuses = [status('nginx', { terminated: { exitCode: 0 } })];
    const p = clone(old);
    p.status!.qosClass = 'Guaranteed';
    p.status!.containerStatuses = [status('nginx', { running: {} })];
    assert.deepEqual(msgs(podStrategy.validateStatusUpdate!(p, old)), [
      'status.qosClass: Invalid value: "Guaranteed": field is immutable',
      'status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state',
    ]);
  });
});

function status(name: string, state: ContainerStatus['state'], extra: Partial<ContainerStatus> = {}): ContainerStatus {
  return { name, image: 'x', imageID: '', ready: false, restartCount: 0, state, ...extra };
}

describe('printPod', () => {
  const base = (mutate: (p: Pod) => void): Pod => {
    const p = createdPod((x) => (x.metadata!.creationTimestamp = '2025-01-01T00:00:00Z'));
    mutate(p);
    return p;
  };
  const cells = (p: Pod): unknown[] => printPod(p, NOW).cells;

  test('pending pod: all wide columns <none>', () => {
    assert.deepEqual(cells(base(() => {})), ['nginx-1', '0/1', 'Pending', '0', '60m', '<none>', '<none>', '<none>', '<none>']);
  });

  test('status cases', () => {
    const cases: [string, (p: Pod) => void, string, string][] = [
      ['running and ready', (p) => {
        p.status!.phase = 'Running';
        p.status!.containerStatuses = [status('nginx', { running: {} }, { ready: true })];
      }, 'Running', '1/1'],
      ['container creating', (p) => {
        p.status!.containerStatuses = [status('nginx', { waiting: { reason: 'ContainerCreating' } })];
      }, 'ContainerCreating', '0/1'],
      ['crash loop', (p) => {
        p.status!.phase = 'Running';
        p.status!.containerStatuses = [status('nginx', { waiting: { reason: 'CrashLoopBackOff' } })];
      }, 'CrashLoopBackOff', '0/1'],
      ['completed', (p) => {
        p.status!.phase = 'Succeeded';
        p.status!.containerStatuses = [status('nginx', { terminated: { exitCode: 0, reason: 'Completed' } })];
      }, 'Completed', '0/1'],
      ['exit code without reason', (p) => {
        p.status!.phase = 'Failed';
        p.status!.containerStatuses = [status('nginx', { terminated: { exitCode: 2 } })];
      }, 'ExitCode:2', '0/1'],
      ['signal without reason', (p) => {
        p.status!.containerStatuses = [status('nginx', { terminated: { exitCode: 137, signal: 9 } })];
      }, 'Signal:9', '0/1'],
      ['status.reason wins over phase', (p) => {
        p.status!.phase = 'Failed';
        p.status!.reason = 'Evicted';
      }, 'Evicted', '0/1'],
      ['scheduling gated', (p) => {
        p.status!.conditions = [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }];
      }, 'SchedulingGated', '0/1'],
      ['terminating', (p) => {
        p.status!.phase = 'Running';
        p.metadata!.deletionTimestamp = '2025-01-01T00:59:00Z';
      }, 'Terminating', '0/1'],
      ['terminating but already succeeded keeps the phase', (p) => {
        p.status!.phase = 'Succeeded';
        p.metadata!.deletionTimestamp = '2025-01-01T00:59:00Z';
      }, 'Succeeded', '0/1'],
      ['deleted on a lost node', (p) => {
        p.status!.phase = 'Running';
        p.status!.reason = 'NodeLost';
        p.metadata!.deletionTimestamp = '2025-01-01T00:59:00Z';
      }, 'Unknown', '0/1'],
      ['completed container while another still runs (not ready)', (p) => {
        p.spec!.containers.push({ ...p.spec!.containers[0]!, name: 'side' });
        p.status!.phase = 'Running';
        p.status!.containerStatuses = [
          status('nginx', { terminated: { exitCode: 0, reason: 'Completed' } }),
          status('side', { running: {} }, { ready: true }),
        ];
      }, 'NotReady', '1/2'],
      ['completed container while another still runs (pod ready)', (p) => {
        p.spec!.containers.push({ ...p.spec!.containers[0]!, name: 'side' });
        p.status!.phase = 'Running';
        p.status!.conditions = [{ type: 'Ready', status: 'True' }];
        p.status!.containerStatuses = [
          status('nginx', { terminated: { exitCode: 0, reason: 'Completed' } }),
          status('side', { running: {} }, { ready: true }),
        ];
      }, 'Running', '1/2'],
    ];
    for (const [name, mutate, want, ready] of cases) {
      const row = cells(base(mutate));
      assert.equal(row[2], want, name);
      assert.equal(row[1], ready, name);
    }
  });

  test('init containers', () => {
    const withInit = (initStatuses: ContainerStatus[], mutate: (p: Pod) => void = () => {}): string =>
      cells(
        base((p) => {
          p.spec!.initContainers = [
            { ...p.spec!.containers[0]!, name: 'init-a' },
            { ...p.spec!.containers[0]!, name: 'init-b' },
          ];
          p.status!.initContainerStatuses = initStatuses;
          mutate(p);
        }),
      )[2] as string;
    assert.equal(withInit([status('init-a', { running: {} }), status('init-b', { waiting: { reason: 'PodInitializing' } })]), 'Init:0/2');
    assert.equal(withInit([status('init-a', { terminated: { exitCode: 0 } }), status('init-b', { running: {} })]), 'Init:1/2');
    assert.equal(withInit([status('init-a', { waiting: { reason: 'ImagePullBackOff' } })]), 'Init:ImagePullBackOff');
    assert.equal(withInit([status('init-a', { terminated: { exitCode: 1, reason: 'Error' } })]), 'Init:Error');
    assert.equal(withInit([status('init-a', { terminated: { exitCode: 3 } })]), 'Init:ExitCode:3');
    assert.equal(withInit([status('init-a', { terminated: { exitCode: 3, signal: 15 } })]), 'Init:Signal:15');
  });

  test('restartable init containers count as containers once started', () => {
    const p = base((x) => {
      x.spec!.initContainers = [{ ...x.spec!.containers[0]!, name: 'sidecar', restartPolicy: 'Always' }];
      x.status!.phase = 'Running';
      x.status!.conditions = [{ type: 'Initialized', status: 'True' }];
      x.status!.initContainerStatuses = [status('sidecar', { running: {} }, { ready: true, started: true, restartCount: 1 })];
      x.status!.containerStatuses = [status('nginx', { running: {} }, { ready: true })];
    });
    assert.deepEqual(cells(p).slice(1, 4), ['2/2', 'Running', '1']);
  });

  test('restarts show when the last one happened', () => {
    const p = base((x) => {
      x.status!.phase = 'Running';
      x.status!.containerStatuses = [
        status('nginx', { running: {} }, { ready: true, restartCount: 2, lastState: { terminated: { exitCode: 1, finishedAt: '2025-01-01T00:55:00Z' } } }),
      ];
    });
    assert.equal(cells(p)[3], '2 (5m ago)');
  });

  test('wide cells: IP, node, nominated node, readiness gates', () => {
    const p = base((x) => {
      x.spec!.nodeName = 'node-1';
      x.spec!.readinessGates = [{ conditionType: 'example.com/lb' }, { conditionType: 'example.com/dns' }];
      x.status!.podIPs = [{ ip: '10.0.0.5' }];
      x.status!.nominatedNodeName = 'node-2';
      x.status!.conditions = [{ type: 'example.com/lb', status: 'True' }];
    });
    assert.deepEqual(cells(p).slice(5), ['10.0.0.5', 'node-1', 'node-2', '1/2']);
    delete p.status!.podIPs;
    p.status!.podIP = '10.0.0.6';
    assert.equal(cells(p)[5], '10.0.0.6');
    assert.equal(podStrategy.fieldSelectors['status.podIP']!(p), '10.0.0.6');
  });

  test('row conditions for finished pods', () => {
    assert.deepEqual(printPod(base((p) => (p.status!.phase = 'Succeeded')), NOW).conditions, [
      { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
    ]);
    assert.deepEqual(printPod(base((p) => (p.status!.phase = 'Failed')), NOW).conditions, [
      { type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' },
    ]);
    assert.equal(printPod(base(() => {}), NOW).conditions, undefined);
  });
});

test('field selectors', () => {
  const p = createdPod((x) => (x.spec!.nodeName = 'node-1'));
  p.status!.podIPs = [{ ip: '10.0.0.1' }];
  const fs = podStrategy.fieldSelectors;
  const get = (k: string): string => fs[k]!(p);
  assert.deepEqual(
    Object.keys(fs).map((k) => [k, get(k)]),
    [
      ['spec.nodeName', 'node-1'],
      ['spec.restartPolicy', 'Always'],
      ['spec.schedulerName', 'default-scheduler'],
      ['spec.serviceAccountName', ''],
      ['spec.hostNetwork', 'false'],
      ['status.phase', 'Pending'],
      ['status.podIP', '10.0.0.1'],
      ['status.nominatedNodeName', ''],
    ],
  );
});

test('discovery info', () => {
  assert.deepEqual(podStrategy.info.shortNames, ['po']);
  assert.deepEqual(podStrategy.info.categories, ['all']);
  assert.deepEqual(
    podStrategy.info.subresources.map((s) => [s.name, s.kind, s.verbs.join(',')]),
    [
      ['binding', 'Binding', 'create'],
      ['eviction', 'Eviction', 'create'],
      ['log', 'Pod', 'get'],
      ['status', 'Pod', 'get,patch,update'],
    ],
  );
  assert.equal(podStrategy.table.columns.length, 9);
  assert.deepEqual(podStrategy.table.columns.filter((c) => c.priority === 1).map((c) => c.name), ['IP', 'Node', 'Nominated Node', 'Readiness Gates']);
});
