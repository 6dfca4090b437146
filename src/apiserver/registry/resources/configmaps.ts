/**
 * ConfigMaps (core/v1). No defaults and no status.
 *
 * Followed (v1.33): pkg/registry/core/configmap/strategy.go (AllowCreateOnUpdate false,
 * AllowUnconditionalUpdate true), pkg/apis/core/validation/validation.go (ValidateConfigMap,
 * ValidateConfigMapUpdate), pkg/printers/internalversion/printers.go (printConfigMap: DATA counts data
 * and binaryData keys).
 */
import { CONFIG_MAPS } from '../../../api/catalogue/index.js';
import type { ConfigMap } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { type ApiObject } from './helpers.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { MAX_SECRET_SIZE, base64Size, validateDataKeys, validateImmutableData } from './config-data.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

type ConfigMapObject = ApiObject<ConfigMap>;

/**
 * `ValidateConfigMap`: valid keys in data and binaryData, no key in both (`data[k]: Invalid value:
 * "k": duplicate of key present in binaryData`), at most 1 MiB in all (`: Too long: may not be more than
 * 1048576 bytes`, reported at the root path as upstream does).
 */
export function validateConfigMap(cm: ConfigMap): FieldError[] {
  const data = cm.data ?? {};
  const binary = cm.binaryData ?? {};
  const errs = validateDataKeys(data, 'data');
  for (const key of Object.keys(data).sort()) {
    if (Object.prototype.hasOwnProperty.call(binary, key)) errs.push(field.invalid(`data[${key}]`, key, 'duplicate of key present in binaryData'));
  }
  errs.push(...validateDataKeys(binary, 'binaryData'));
  let total = 0;
  for (const v of Object.values(data)) total += Buffer.byteLength(v, 'utf8');
  for (const v of Object.values(binary)) total += base64Size(v);
  if (total > MAX_SECRET_SIZE) errs.push(field.tooLong('', MAX_SECRET_SIZE));
  return errs;
}

/** The configmaps strategy. */
export const configMapStrategy: ResourceStrategy<ConfigMapObject> = {
  info: resourceInfo(CONFIG_MAPS),
  hasStatus: false,
  defaults() {},
  prepareForCreate() {},
  prepareForUpdate() {},
  validate: validateConfigMap,
  validateUpdate: (cm, old) => [...validateImmutableData(cm, old, ['data', 'binaryData']), ...validateConfigMap(cm)],
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  table: {
    columns: [
      NAME_COLUMN,
      column(
        'Data',
        'string',
        "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
      ),
      AGE_COLUMN,
    ],
    row: (cm, now) => ({
      cells: [
        cm.metadata?.name ?? '',
        Object.keys(cm.data ?? {}).length + Object.keys(cm.binaryData ?? {}).length,
        translateTimestampSince(cm.metadata?.creationTimestamp, now),
      ],
    }),
  },
};
