/**
 * CSINodes (storage.k8s.io/v1, cluster-scoped): the CSI drivers registered on a node (kubelets create
 * them; kubeplane's simulated nodes run no CSI driver, so none exist unless a client creates them).
 *
 * Followed (v1.33): pkg/apis/storage/validation/validation.go (ValidateCSINode with long node IDs
 * allowed, ValidateCSINodeUpdate with the MutableCSINodeAllocatableCount gate off — its reports at
 * `spec.drivers[i]` for topology keys are upstream's), pkg/registry/storage/csinode/strategy.go,
 * pkg/printers/internalversion/printers.go (printCSINode).
 */
import { CSI_NODES } from '../../../api/catalogue/index.js';
import type { CSINode } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { isQualifiedName, validateNonnegativeField } from '../../../machinery/validation/index.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { validateImmutableField, type ApiObject } from './helpers.js';
import { validateCSIDriverName } from './persistentvolume-validation.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

type CSINodeObject = ApiObject<CSINode>;
type CSINodeDriver = CSINode['spec']['drivers'][number];

/** `csiNodeIDLongerMaxLength`: the node ID limit since long IDs are allowed. */
const CSI_NODE_ID_MAX_LENGTH = 256;

/** `validateCSINodeDriver`: name, node ID, allocatable count, distinct names and topology keys. */
function validateCSINodeDriver(driver: CSINodeDriver, names: Set<string>, path: string): FieldError[] {
  const name = driver.name ?? '';
  const nodeID = driver.nodeID ?? '';
  const errs = validateCSIDriverName(name, `${path}.name`);
  if (nodeID.length === 0) errs.push(field.required(`${path}.nodeID`));
  if (nodeID.length > CSI_NODE_ID_MAX_LENGTH) errs.push(field.invalid(`${path}.nodeID`, nodeID, `must be ${CSI_NODE_ID_MAX_LENGTH} characters or less`));
  const count = driver.allocatable?.count;
  if (count !== undefined && count !== null) errs.push(...validateNonnegativeField(count, `${path}.allocatable.count`));
  if (names.has(name)) errs.push(field.duplicate(`${path}.name`, name));
  names.add(name);
  const keys = new Set<string>();
  for (const key of driver.topologyKeys ?? []) {
    if (key.length === 0) errs.push(field.required(path));
    if (keys.has(key)) errs.push(field.duplicate(path, key));
    keys.add(key);
    errs.push(...isQualifiedName(key).map((msg) => field.invalid(path, key, msg)));
  }
  return errs;
}

/** `ValidateCSINode` without the ObjectMeta checks the store runs. */
function validateCSINode(node: CSINode): FieldError[] {
  const names = new Set<string>();
  return (node.spec?.drivers ?? []).flatMap((d, i) => validateCSINodeDriver(d, names, `spec.drivers[${i}]`));
}

/** `ValidateCSINodeUpdate`: a driver already registered may not change (it may be added or removed). */
function validateCSINodeUpdate(node: CSINode, old: CSINode): FieldError[] {
  const errs = validateCSINode(node);
  for (const oldDriver of old.spec?.drivers ?? []) {
    for (const driver of node.spec?.drivers ?? []) {
      if (driver.name === oldDriver.name) errs.push(...validateImmutableField(driver, oldDriver, 'spec.drivers'));
    }
  }
  return errs;
}

/** The csinodes strategy. */
export const csiNodeStrategy: ResourceStrategy<CSINodeObject> = {
  info: resourceInfo(CSI_NODES),
  hasStatus: false,
  defaults() {},
  prepareForCreate() {},
  prepareForUpdate() {},
  validate: validateCSINode,
  validateUpdate: validateCSINodeUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  table: {
    columns: [NAME_COLUMN, column('Drivers', 'integer', 'Drivers indicates the number of CSI drivers registered on the node'), AGE_COLUMN],
    row: (node, now) => ({ cells: [node.metadata?.name ?? '', (node.spec?.drivers ?? []).length, translateTimestampSince(node.metadata?.creationTimestamp, now)] }),
  },
};
