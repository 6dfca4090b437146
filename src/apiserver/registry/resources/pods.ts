/**
 * Pods (core/v1): the strategy. Defaulting is in pod-defaults.ts, validation in pod-validation.ts, the
 * table printer in pod-printer.ts, binding, eviction and admission in pod-storage.ts.
 *
 * Followed (v1.33): pkg/registry/core/pod/strategy.go (PrepareForCreate/Update, status strategy,
 * CheckGracefulDelete, ToSelectableFields).
 *
 * Not done here: the relaxed nodeSelector/nodeAffinity updates of scheduling-gated pods. The
 * ServiceAccount admission plugin (serviceAccountName and the token volume) is
 * admission/service-account.ts, run from pod-storage.ts.
 */
import { PODS } from '../../../api/catalogue/index.js';
import type { Pod, PodCondition, PodStatus } from '../../../api/index.js';
import { formatTime } from '../../../util/clock/index.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { bumpGenerationIf, resetField, semanticDeepEqual, type ApiObject } from './helpers.js';
import { computePodQOS, defaultPod } from './pod-defaults.js';
import { podIP, printPod } from './pod-printer.js';
import { podStorage } from './pod-storage.js';
import { validatePodCreate, validatePodStatusUpdate, validatePodUpdate } from './pod-validation.js';
import { AGE_COLUMN, NAME_COLUMN, column } from './table-helpers.js';


export type PodObject = ApiObject<Pod>;
/** `observedGeneration` of pod status and conditions (1.33, newer than the kubernetes-types release). */
type WithObservedGeneration<T> = T & { observedGeneration?: number };

function prepareForStatusUpdate(pod: PodObject, old: Pod): void {
  pod.spec = old.spec;
  const meta = (pod.metadata ??= {});
  resetField(meta, old.metadata, 'deletionTimestamp');
  // Old kubelets corrupt ownerReferences, so pods/status never changes them.
  resetField(meta, old.metadata, 'ownerReferences');
  const status: WithObservedGeneration<PodStatus> = (pod.status ??= {});
  const oldStatus: WithObservedGeneration<PodStatus> | undefined = old.status;
  if (!status.qosClass && oldStatus?.qosClass) status.qosClass = oldStatus.qosClass;
  // preserveOldObservedGeneration: a writer that does not know the field must not clear it.
  if (!status.observedGeneration && oldStatus?.observedGeneration) status.observedGeneration = oldStatus.observedGeneration;
  const oldByType = new Map<string, number[]>();
  for (const c of (oldStatus?.conditions ?? []) as WithObservedGeneration<PodCondition>[]) {
    const list = oldByType.get(c.type) ?? [];
    list.push(c.observedGeneration ?? 0);
    oldByType.set(c.type, list);
  }
  for (const c of (status.conditions ?? []) as WithObservedGeneration<PodCondition>[]) {
    const oldGeneration = oldByType.get(c.type)?.shift() ?? 0;
    if (!c.observedGeneration && oldGeneration) c.observedGeneration = oldGeneration;
  }
}

/** The pods strategy. */
export const podStrategy: ResourceStrategy<PodObject> = {
  info: resourceInfo(PODS),
  hasStatus: true,
  defaults: defaultPod,
  prepareForCreate(pod, now) {
    (pod.metadata ??= {}).generation = 1;
    pod.status = { phase: 'Pending', qosClass: computePodQOS(pod.spec) };
    // applySchedulingGatedCondition
    if (pod.spec?.schedulingGates?.length) {
      pod.status.conditions = [
        {
          type: 'PodScheduled',
          status: 'False',
          reason: 'SchedulingGated',
          message: 'Scheduling is blocked due to non-empty scheduling gates',
          lastTransitionTime: formatTime(now),
        },
      ];
    }
  },
  prepareForUpdate(pod, old) {
    resetField(pod, old, 'status');
    bumpGenerationIf(pod, old, !semanticDeepEqual(pod.spec, old.spec));
  },
  prepareForStatusUpdate,
  validate: validatePodCreate,
  validateUpdate: validatePodUpdate,
  validateStatusUpdate: validatePodStatusUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  /**
   * `CheckGracefulDelete`: the requested grace, else spec.terminationGracePeriodSeconds (30 when
   * unset, the defaulted value); 0 for pods not bound to a node or already Succeeded/Failed.
   */
  checkGracefulDelete(pod, requested) {
    const phase = pod.status?.phase;
    if (!pod.spec?.nodeName || phase === 'Failed' || phase === 'Succeeded') return 0;
    return requested ?? pod.spec.terminationGracePeriodSeconds ?? 30;
  },
  returnDeletedObject: true,
  storage: podStorage,
  fieldSelectors: {
    'spec.nodeName': (p) => p.spec?.nodeName ?? '',
    'spec.restartPolicy': (p) => p.spec?.restartPolicy ?? '',
    'spec.schedulerName': (p) => p.spec?.schedulerName ?? '',
    'spec.serviceAccountName': (p) => p.spec?.serviceAccountName ?? '',
    'spec.hostNetwork': (p) => String(p.spec?.hostNetwork ?? false),
    'status.phase': (p) => p.status?.phase ?? '',
    'status.podIP': podIP,
    'status.nominatedNodeName': (p) => p.status?.nominatedNodeName ?? '',
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
      column('Status', 'string', 'The aggregate status of the containers in this pod.'),
      column('Restarts', 'string', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
      AGE_COLUMN,
      column('IP', 'string', 'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', 1),
      column('Node', 'string', 'NodeName indicates in which node this pod is scheduled.', 1),
      column('Nominated Node', 'string', 'nominatedNodeName is set only when this pod preempts other pods on the node.', 1),
      column('Readiness Gates', 'string', 'If specified, all readiness gates will be evaluated for pod readiness.', 1),
    ],
    row: printPod,
  },
};
