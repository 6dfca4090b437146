/**
 * Scheduling predicates shared by the scheduler and the controllers that must agree with it (the
 * DaemonSet controller decides where daemon pods go with the same rules): node affinity and
 * taints/tolerations. kubeplane's k8s.io/component-helpers/scheduling/corev1 (nodeaffinity/
 * nodeaffinity.go) and k8s.io/api/core/v1/toleration.go (`ToleratesTaint`).
 *
 * Node selector semantics follow apimachinery's labels.Requirement:
 * - `In`: label present with one of the values; `NotIn`: label absent or not one of the values;
 * - `Exists` / `DoesNotExist`: key present / absent;
 * - `Gt` / `Lt`: label present, both it and the single value parse as base-10 integers, and compare.
 * A requirement that is malformed (Gt with two values, a non-integer) matches nothing; an empty term
 * matches nothing.
 */
import type { NodeSelectorRequirement, NodeSelectorTerm, Taint, Toleration } from '../../api/index.js';

const INTEGER = /^[+-]?\d+$/;

/** Whether one requirement holds for a label (or field) set. */
export function matchNodeSelectorRequirement(req: NodeSelectorRequirement, set: Readonly<Record<string, string>>): boolean {
  const has = Object.prototype.hasOwnProperty.call(set, req.key);
  const value = has ? set[req.key] : undefined;
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt': {
      const bound = values[0];
      if (values.length !== 1 || bound === undefined || !INTEGER.test(bound)) return false;
      if (value === undefined || !INTEGER.test(value)) return false;
      return req.operator === 'Gt' ? Number(value) > Number(bound) : Number(value) < Number(bound);
    }
    default:
      return false;
  }
}

/** Whether a term holds for a node's labels and fields (`{'metadata.name': name}`); an empty term matches nothing. */
export function matchNodeSelectorTerm(
  term: NodeSelectorTerm,
  labels: Readonly<Record<string, string>>,
  fields: Readonly<Record<string, string>>,
): boolean {
  const exprs = term.matchExpressions ?? [];
  const fieldExprs = term.matchFields ?? [];
  if (exprs.length === 0 && fieldExprs.length === 0) return false;
  return (
    exprs.every((r) => matchNodeSelectorRequirement(r, labels)) &&
    fieldExprs.every((r) => matchNodeSelectorRequirement(r, fields))
  );
}

/** Whether any term matches (ORed); no terms match nothing. */
export function matchNodeSelectorTerms(
  terms: readonly NodeSelectorTerm[],
  labels: Readonly<Record<string, string>>,
  nodeName: string,
): boolean {
  const fields = { 'metadata.name': nodeName };
  return terms.some((t) => matchNodeSelectorTerm(t, labels, fields));
}

/**
 * Upstream `Toleration.ToleratesTaint`, rule for rule:
 * - a non-empty effect must equal the taint's effect (empty matches every effect);
 * - a non-empty key must equal the taint's key (empty key, with operator Exists, matches every key);
 * - operator `Exists` matches any value; `Equal` or empty compares values; any other operator matches nothing.
 */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  switch (t.operator ?? '') {
    case '':
    case 'Equal':
      return (t.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** True when any toleration tolerates the taint (upstream `TolerationsTolerateTaint`). */
export function tolerationsTolerateTaint(tolerations: readonly Toleration[], taint: Taint): boolean {
  return tolerations.some((t) => toleratesTaint(t, taint));
}

/** The first taint with effect NoSchedule/NoExecute that is not tolerated, or undefined. */
export function findUntoleratedTaint(taints: readonly Taint[], tolerations: readonly Toleration[]): Taint | undefined {
  return taints.find(
    (taint) =>
      (taint.effect === 'NoSchedule' || taint.effect === 'NoExecute') &&
      !tolerationsTolerateTaint(tolerations, taint),
  );
}
