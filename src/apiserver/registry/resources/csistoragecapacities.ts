/**
 * CSIStorageCapacities (storage.k8s.io/v1, namespaced): the capacity a CSI driver reports for a
 * storage class in a topology segment. Stored and validated; nothing in kubeplane schedules by it.
 *
 * Followed (v1.33): pkg/apis/storage/validation/validation.go (ValidateCSIStorageCapacity,
 * ValidateCSIStorageCapacityUpdate), pkg/registry/storage/csistoragecapacity/strategy.go,
 * pkg/printers/internalversion/printers.go (printCSIStorageCapacity: upstream prints no AGE column).
 */
import { CSI_STORAGE_CAPACITIES } from '../../../api/catalogue/index.js';
import type { CSIStorageCapacity } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { IS_NEGATIVE_ERROR_MSG, validateLabelSelector } from '../../../machinery/validation/index.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { semanticDeepEqual, type ApiObject } from './helpers.js';
import { validateClassName } from './persistentvolume-validation.js';
import { tryParseQuantity } from './pod-template.js';
import { NAME_COLUMN, column } from './table-helpers.js';

type CSIStorageCapacityObject = ApiObject<CSIStorageCapacity>;

/** The Capacity column's description: storagev1.CSIStorageCapacity{}.SwaggerDoc()["capacity"]. */
const CAPACITY_DOC =
  "capacity is the value reported by the CSI driver in its GetCapacityResponse for a GetCapacityRequest with topology and parameters that match the previous fields.\n\nThe semantic is currently (CSI spec 1.2) defined as: The available capacity, in bytes, of the storage that can be used to provision volumes. If not set, that information is currently unavailable.";

/** `ValidateCSIStorageCapacity` without the ObjectMeta checks: node topology, class name, capacity ≥ 0. */
function validateCSIStorageCapacity(c: CSIStorageCapacity): FieldError[] {
  const errs = [...validateLabelSelector(c.nodeTopology, 'nodeTopology'), ...validateClassName(c.storageClassName ?? '', 'storageClassName')];
  if (c.capacity !== undefined && c.capacity !== null) {
    const [quantity, parseErr] = tryParseQuantity(c.capacity);
    if (parseErr !== undefined) errs.push(field.invalid('capacity', c.capacity, parseErr));
    else if (quantity.milliValue() < 0) errs.push(field.invalid('capacity', quantity.toString(), IS_NEGATIVE_ERROR_MSG));
  }
  return errs;
}

/** `ValidateCSIStorageCapacityUpdate`: nodeTopology and storageClassName are immutable. */
function validateCSIStorageCapacityUpdate(c: CSIStorageCapacity, old: CSIStorageCapacity): FieldError[] {
  const errs = validateCSIStorageCapacity(c);
  if (!semanticDeepEqual(c.nodeTopology, old.nodeTopology)) errs.push(field.invalid('nodeTopology', c.nodeTopology ?? null, 'field is immutable'));
  if (c.storageClassName !== old.storageClassName) errs.push(field.invalid('storageClassName', c.storageClassName, 'field is immutable'));
  return errs;
}

/** printCSIStorageCapacity: the capacity in canonical form, `<unset>` when unknown. */
function capacityCell(c: CSIStorageCapacity): string {
  if (c.capacity === undefined || c.capacity === null) return '<unset>';
  const [quantity] = tryParseQuantity(c.capacity);
  return quantity ? quantity.toString() : c.capacity;
}

/** The csistoragecapacities strategy. */
export const csiStorageCapacityStrategy: ResourceStrategy<CSIStorageCapacityObject> = {
  info: resourceInfo(CSI_STORAGE_CAPACITIES),
  hasStatus: false,
  defaults() {},
  prepareForCreate() {},
  prepareForUpdate() {},
  validate: validateCSIStorageCapacity,
  validateUpdate: validateCSIStorageCapacityUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  table: {
    columns: [
      NAME_COLUMN,
      column(
        'StorageClassName',
        'string',
        'storageClassName represents the name of the StorageClass that the reported capacity applies to. It must meet the same requirements as the name of a StorageClass object (non-empty, DNS subdomain). If that object no longer exists, the CSIStorageCapacity object is obsolete and should be removed by its creator. This field is immutable.',
      ),
      column('Capacity', 'string', CAPACITY_DOC),
    ],
    row: (c) => ({ cells: [c.metadata?.name ?? '', c.storageClassName ?? '', capacityCell(c)] }),
  },
};
