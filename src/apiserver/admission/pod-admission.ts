/**
 * Mutating admission for new pods, as kube-apiserver's default plugins leave every real pod:
 *
 * - Priority (plugin/pkg/admission/priority/admission.go): a pod without `priorityClassName` gets
 *   `priority: 0` and `preemptionPolicy: PreemptLowerPriority` (no global default PriorityClass exists);
 *   one naming a class gets that class's value, and an unknown class is refused with 403
 *   `no PriorityClass with name x was found`. PriorityClasses are not served yet, so the known classes
 *   are the two the API server bootstraps: system-cluster-critical and system-node-critical.
 * - DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds/admission.go): pods that do
 *   not already tolerate the NoExecute taints `node.kubernetes.io/not-ready` and
 *   `node.kubernetes.io/unreachable` get tolerations for them with `tolerationSeconds: 300`.
 *
 * Both run on create only, after defaulting and before validation.
 */
import type { KubeObject, Pod, Toleration } from '../../api/index.js';
import { newForbidden } from '../../machinery/errors/index.js';

/** The PriorityClasses kube-apiserver creates at start-up (pkg/apis/scheduling/types.go). */
export const SYSTEM_PRIORITY_CLASSES: Readonly<Record<string, number>> = {
  'system-cluster-critical': 2000000000,
  'system-node-critical': 2000001000,
};

/** `scheduling.DefaultPriorityWhenNoDefaultClassExists`. */
export const DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS = 0;

/** `--default-not-ready-toleration-seconds` / `--default-unreachable-toleration-seconds` (300). */
export const DEFAULT_TOLERATION_SECONDS = 300;

const TAINT_NODE_NOT_READY = 'node.kubernetes.io/not-ready';
const TAINT_NODE_UNREACHABLE = 'node.kubernetes.io/unreachable';

type MutablePod = { -readonly [K in keyof Pod]: Pod[K] } & KubeObject;

/**
 * Applies the Priority and DefaultTolerationSeconds plugins to a new pod, in place. Throws 403
 * Forbidden for an unknown `priorityClassName`.
 */
export function admitPodCreate(obj: KubeObject | Pod): void {
  const pod = obj as MutablePod;
  const spec = (pod.spec ??= { containers: [] });
  admitPriority(pod, spec);
  admitDefaultTolerationSeconds(spec);
}

function admitPriority(pod: MutablePod, spec: NonNullable<MutablePod['spec']>): void {
  const mutable = spec as { priority?: number; preemptionPolicy?: string; priorityClassName?: string };
  let priority = DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS;
  const className = mutable.priorityClassName;
  if (className) {
    const value = SYSTEM_PRIORITY_CLASSES[className];
    if (value === undefined) {
      throw newForbidden({ group: '', resource: 'pods' }, pod.metadata?.name ?? '', `no PriorityClass with name ${className} was found`);
    }
    priority = value;
  }
  // A pod may carry a priority only if it equals its class's (the plugin's "the integer value of
  // priority must not be provided in pod spec; priority admission controller computed …" rule).
  if (mutable.priority !== undefined && mutable.priority !== priority) {
    throw newForbidden(
      { group: '', resource: 'pods' },
      pod.metadata?.name ?? '',
      `the integer value of priority (${mutable.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`,
    );
  }
  mutable.priority = priority;
  mutable.preemptionPolicy ??= 'PreemptLowerPriority';
}

function admitDefaultTolerationSeconds(spec: NonNullable<MutablePod['spec']>): void {
  const tolerations = spec.tolerations ?? [];
  const tolerates = (taintKey: string): boolean =>
    tolerations.some((t) => (t.key === taintKey || !t.key) && (t.effect === 'NoExecute' || !t.effect));
  const added: Toleration[] = [];
  for (const key of [TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE]) {
    if (!tolerates(key)) added.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: DEFAULT_TOLERATION_SECONDS });
  }
  if (added.length) (spec as { tolerations?: Toleration[] }).tolerations = [...tolerations, ...added];
}
