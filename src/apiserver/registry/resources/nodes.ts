/**
 * Nodes (core/v1, cluster-scoped).
 *
 * Followed (v1.33): pkg/registry/core/node/strategy.go (status may be set on create; update keeps
 * status, status update keeps spec; NodeToSelectableFields), pkg/apis/core/v1/defaults.go
 * (SetDefaults_NodeStatus), pkg/apis/core/validation/validation.go (ValidateNode, ValidateNodeUpdate,
 * validateNodeTaints), pkg/printers/internalversion/printers.go (printNode).
 */
import { NODES } from '../../../api/catalogue/index.js';
import type { Node, Taint } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { isQualifiedName, isValidLabelValue } from '../../../machinery/validation/index.js';
import { resetField, type ApiObject } from './helpers.js';
import { resourceInfo, type ResourceStrategy, type TableRowData } from '../strategy.js';
import { tryParseQuantity, validateTaintEffect } from './pod-template.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

type NodeObject = ApiObject<Node>;

/**
 * `validateNodeTaints`: key a qualified name, value a label value, effect required and one of
 * NoSchedule/PreferNoSchedule/NoExecute, `<key, effect>` unique. The path is upstream's
 * `metadata.taints[i]` (ValidateNode passes the metadata path), kept for identical messages.
 */
export function validateNodeTaints(taints: readonly Taint[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  taints.forEach((t, i) => {
    const p = `${path}[${i}]`;
    for (const msg of isQualifiedName(t.key)) errs.push(field.invalid(`${p}.key`, t.key, msg));
    const valueErrs = isValidLabelValue(t.value ?? '');
    if (valueErrs.length) errs.push(field.invalid(`${p}.value`, t.value ?? '', valueErrs.join(';')));
    errs.push(...validateTaintEffect(t.effect, false, `${p}.effect`));
    const key = `${t.effect}\u0000${t.key}`;
    if (seen.has(key)) errs.push({ ...field.duplicate(p, t), detail: 'taints must be unique by key and effect pair' });
    else seen.add(key);
  });
  return errs;
}

/** `ValidateNodeResources`: capacity and allocatable quantities are well-formed and not negative. */
function validateNodeResources(node: Node): FieldError[] {
  const errs: FieldError[] = [];
  for (const kind of ['capacity', 'allocatable'] as const) {
    for (const [k, q] of Object.entries(node.status?.[kind] ?? {})) {
      const [quantity, parseErr] = tryParseQuantity(q);
      const p = `status.${kind}.${k}`;
      if (parseErr !== undefined) errs.push(field.invalid(p, q, parseErr));
      else if (quantity.milliValue() < 0) errs.push(field.invalid(p, quantity.toString(), 'must be greater than or equal to 0'));
    }
  }
  return errs;
}

/** `ValidateNode` without ObjectMeta (done by the store). */
export function validateNode(node: Node): FieldError[] {
  const errs: FieldError[] = [];
  if (node.spec?.taints?.length) errs.push(...validateNodeTaints(node.spec.taints, 'metadata.taints'));
  errs.push(...validateNodeResources(node));
  return errs;
}

/**
 * `ValidateNodeUpdate`: resources valid, no duplicate addresses, podCIDRs and providerID immutable once
 * set (`node updates may not change podCIDR except from "" to valid`), taints valid.
 */
export function validateNodeUpdate(node: Node, old: Node): FieldError[] {
  const errs = validateNodeResources(node);
  const seen = new Set<string>();
  (node.status?.addresses ?? []).forEach((a, i) => {
    const key = `${a.type}\u0000${a.address}`;
    if (seen.has(key)) errs.push(field.duplicate(`status.addresses[${i}]`, a));
    seen.add(key);
  });
  const oldCIDRs = old.spec?.podCIDRs ?? [];
  const newCIDRs = node.spec?.podCIDRs ?? [];
  if (oldCIDRs.length > 0) {
    const msg = 'node updates may not change podCIDR except from "" to valid';
    if (oldCIDRs.length !== newCIDRs.length) errs.push(field.forbidden('spec.podCIDRs', msg));
    else oldCIDRs.forEach((c, i) => c !== newCIDRs[i] && errs.push(field.forbidden('spec.podCIDRs', msg)));
  }
  const oldProvider = old.spec?.providerID ?? '';
  if (oldProvider && oldProvider !== (node.spec?.providerID ?? '')) {
    errs.push(field.forbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
  }
  if (node.spec?.taints?.length) errs.push(...validateNodeTaints(node.spec.taints, 'metadata.taints'));
  if ((node.spec?.externalID ?? '') !== (old.spec?.externalID ?? '')) errs.push(field.forbidden('spec.externalID', 'may not be updated'));
  return errs;
}

/** `findNodeRoles`: `node-role.kubernetes.io/<role>` keys and a non-empty `kubernetes.io/role` value, sorted and unique. */
function findNodeRoles(node: Node): string[] {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(node.metadata?.labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/')) {
      const role = k.slice('node-role.kubernetes.io/'.length);
      if (role) roles.add(role);
    } else if (k === 'kubernetes.io/role' && v) {
      roles.add(v);
    }
  }
  return [...roles].sort();
}

/**
 * `printNode`: Status is `Ready` when the Ready condition is True, `NotReady` when it is False or Unknown,
 * `Unknown` when there is none, plus `,SchedulingDisabled` for a cordoned node; Roles or `<none>`;
 * wide cells fall back to `<none>` (addresses) and `<unknown>` (node info).
 */
export function printNode(node: Node, now: number): TableRowData {
  const status: string[] = [];
  const ready = (node.status?.conditions ?? []).filter((c) => c.type === 'Ready').at(-1);
  if (ready) status.push(ready.status === 'True' ? 'Ready' : 'NotReady');
  else status.push('Unknown');
  if (node.spec?.unschedulable) status.push('SchedulingDisabled');
  const info = node.status?.nodeInfo;
  const address = (type: string): string => node.status?.addresses?.find((a) => a.type === type)?.address ?? '<none>';
  return {
    cells: [
      node.metadata?.name ?? '',
      status.join(','),
      findNodeRoles(node).join(',') || '<none>',
      translateTimestampSince(node.metadata?.creationTimestamp, now),
      info?.kubeletVersion ?? '',
      address('InternalIP'),
      address('ExternalIP'),
      info?.osImage || '<unknown>',
      info?.kernelVersion || '<unknown>',
      info?.containerRuntimeVersion || '<unknown>',
    ],
  };
}

/** The nodes strategy. */
export const nodeStrategy: ResourceStrategy<NodeObject> = {
  info: resourceInfo(NODES),
  hasStatus: true,
  /** SetDefaults_NodeStatus: allocatable defaults to capacity. */
  defaults(node) {
    const status = node.status;
    if (status?.capacity && !status.allocatable) status.allocatable = { ...status.capacity };
  },
  /** Nodes allow every field, status included, to be set on create (the kubelet registers with its status). */
  prepareForCreate() {},
  prepareForUpdate(node, old) {
    resetField(node, old, 'status');
  },
  prepareForStatusUpdate(node, old) {
    resetField(node, old, 'spec');
  },
  validate: validateNode,
  validateUpdate: (node, old) => [...validateNode(node), ...validateNodeUpdate(node, old)],
  validateStatusUpdate: validateNodeUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {
    'spec.unschedulable': (n) => String(n.spec?.unschedulable ?? false),
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('Status', 'string', 'The status of the node'),
      column('Roles', 'string', 'The roles of the node'),
      AGE_COLUMN,
      column('Version', 'string', 'Kubelet Version reported by the node.'),
      column('Internal-IP', 'string', 'List of addresses reachable to the node.', 1),
      column('External-IP', 'string', 'List of addresses reachable to the node.', 1),
      column('OS-Image', 'string', 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).', 1),
      column('Kernel-Version', 'string', "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
      column('Container-Runtime', 'string', 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).', 1),
    ],
    row: printNode,
  },
};
