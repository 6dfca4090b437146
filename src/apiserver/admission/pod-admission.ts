/**
 * Mutating admission for new pods, as kube-apiserver's default plugins leave every real pod:
 *
 * - Priority (plugin/pkg/admission/priority/admission.go): a pod without `priorityClassName` gets the
 *   global-default PriorityClass (the smallest value among those marked `globalDefault`; its name is
 *   set on the pod) or, without one, `priority: 0` and `preemptionPolicy: PreemptLowerPriority`; one
 *   naming a class gets that class's value and preemption policy, and an unknown class is refused
 *   with 403 `no PriorityClass with name x was found`.
 * - DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds/admission.go): pods that do
 *   not already tolerate the NoExecute taints `node.kubernetes.io/not-ready` and
 *   `node.kubernetes.io/unreachable` get tolerations for them with `tolerationSeconds: 300`.
 *
 * Both run on create only, after defaulting and before validation.
 */
import type { KubeObject, Pod, PriorityClass, Toleration } from '../../api/index.js';
import { newForbidden } from '../../machinery/errors/index.js';

/** What the Priority plugin reads of the PriorityClasses (upstream: its informer's lister). */
export interface PriorityClassLookup {
  /** The class named `name`, or undefined. */
  get(name: string): PriorityClass | undefined;
  /** Every class (the global default is searched among them). */
  list(): Iterable<PriorityClass>;
}

/** `scheduling.DefaultPriorityWhenNoDefaultClassExists`. */
export const DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS = 0;

/** `--default-not-ready-toleration-seconds` / `--default-unreachable-toleration-seconds` (300). */
export const DEFAULT_TOLERATION_SECONDS = 300;

const TAINT_NODE_NOT_READY = 'node.kubernetes.io/not-ready';
const TAINT_NODE_UNREACHABLE = 'node.kubernetes.io/unreachable';

type MutablePod = { -readonly [K in keyof Pod]: Pod[K] } & KubeObject;

/**
 * Applies the Priority and DefaultTolerationSeconds plugins to a new pod, in place, with the
 * PriorityClasses `classes` holds. Throws 403 Forbidden for an unknown `priorityClassName`.
 */
export function admitPodCreate(obj: KubeObject | Pod, classes: PriorityClassLookup): void {
  const pod = obj as MutablePod;
  const spec = (pod.spec ??= { containers: [] });
  admitPriority(pod, spec, classes);
  admitDefaultTolerationSeconds(spec);
}

/**
 * `getDefaultPriorityClass`: the global-default class with the smallest value (several can exist after
 * racing creates), or undefined.
 */
export function getDefaultPriorityClass(classes: Iterable<PriorityClass>): PriorityClass | undefined {
  let found: PriorityClass | undefined;
  for (const pc of classes) if (pc.globalDefault && (!found || pc.value < found.value)) found = pc;
  return found;
}

function admitPriority(pod: MutablePod, spec: NonNullable<MutablePod['spec']>, classes: PriorityClassLookup): void {
  const mutable = spec as { priority?: number; preemptionPolicy?: string; priorityClassName?: string };
  let priority = DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS;
  let preemptionPolicy = 'PreemptLowerPriority';
  const className = mutable.priorityClassName;
  const pc = className ? classes.get(className) : getDefaultPriorityClass(classes.list());
  if (className && !pc) {
    throw newForbidden({ group: '', resource: 'pods' }, pod.metadata?.name ?? '', `no PriorityClass with name ${className} was found`);
  }
  if (pc) {
    priority = pc.value;
    preemptionPolicy = pc.preemptionPolicy ?? preemptionPolicy;
    mutable.priorityClassName = pc.metadata?.name ?? '';
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
  mutable.preemptionPolicy ??= preemptionPolicy;
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
