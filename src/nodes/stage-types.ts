/**
 * The shape of a stage (see stages.ts): what it selects, when it fires and what it does. Its own module
 * so that the default stages and the failure stages (failure-stages.ts), which the defaults include,
 * both depend on it without depending on each other.
 */
import type { Node, Pod } from '../api/index.js';
import type { PodReferenceLookup } from './pod-references.js';

/**
 * An event a stage records about its object, as the kubelet would (source `kubelet`, host = the node).
 * `fieldPath` names the container for container events (`spec.containers{nginx}`).
 */
export interface StageEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  fieldPath?: string;
}

/** What a stage does when it fires. */
export interface StageResult {
  /** Fields to set in `.status` (shallow merge over the current status), written with PUT …/status. */
  status?: object;
  /** Delete the object (pods: `gracePeriodSeconds: 0` with a uid precondition, as the kubelet does). */
  delete?: boolean;
  /** Events to record about the object, in order. */
  events?: StageEvent[];
}

/** What a stage can read besides the object. */
export interface StageContext {
  /** Current time, ms. */
  now: number;
  /** For pod stages: the simulated node the pod is bound to; for node stages: the node itself. */
  node: SimulatedNodeInfo;
  /** Allocates (or returns the already allocated) pod IP from the node's pod CIDR. Throws when the CIDR is full. */
  allocatePodIP(pod: Pod): string;
  /** The objects pods refer to (ConfigMaps, Secrets); absent = references are not checked. */
  lookup?: PodReferenceLookup;
}

/** What the simulator knows of a node it runs. */
export interface SimulatedNodeInfo {
  name: string;
  /** InternalIP, e.g. `10.0.0.2`. */
  internalIP: string;
  /** Images pulled on this node so far (pull policy IfNotPresent uses them); absent = none. */
  images?: Set<string>;
}

export interface Stage<T = Pod | Node> {
  name: string;
  resource: 'Pod' | 'Node';
  /**
   * Whether the stage applies to the object now. `lookup` reads what pods refer to (absent in tests
   * that do not check references: then everything referred to counts as present).
   */
  selector: (obj: T, lookup?: PodReferenceLookup) => boolean;
  /**
   * Delay after the object entered this state, ms: fixed, or computed from the object and the time
   * it entered the state (ms), e.g. a back-off that grows with the restart count.
   */
  delayMs: number | ((obj: T, now: number) => number);
  /** Extra random delay in [0, jitterMs), ms. */
  jitterMs?: number;
  /**
   * Upper bound for this object's delay, ms, computed when the stage is selected at `now` (ms): e.g.
   * a pod's deletion grace period, or the time left before its activeDeadlineSeconds.
   */
  delayLimitMs?: (obj: T, now: number) => number | undefined;
  next: (obj: T, ctx: StageContext) => StageResult;
}

export type PodStage = Stage<Pod> & { resource: 'Pod' };
export type NodeStage = Stage<Node> & { resource: 'Node' };
/** A stage of either kind; the simulator routes it by `resource`. */
export type AnyStage = PodStage | NodeStage;
