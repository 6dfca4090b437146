/**
 * ControllerRevisions (apps/v1): immutable snapshots of a DaemonSet's or StatefulSet's template.
 *
 * Followed (v1.33): pkg/registry/apps/controllerrevision/strategy.go (no status, no generation;
 * unconditional updates allowed), pkg/apis/apps/validation/validation.go (ValidateControllerRevision:
 * `data: Required value: data is mandatory`, revision ≥ 0; ValidateControllerRevisionUpdate: `data`
 * immutable), pkg/printers/internalversion/printers.go (printControllerRevision: the controller as
 * `<kind>.<group>/<name>`, e.g. `daemonset.apps/fluentd`, or `<none>`).
 */
import { CONTROLLER_REVISIONS } from '../../../api/catalogue/index.js';
import type { ControllerRevision } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { getControllerOf } from '../../../machinery/meta/index.js';
import { validateNonnegativeField } from '../../../machinery/validation/index.js';
import { resourceInfo, type ResourceStrategy, type TableRowData } from '../strategy.js';
import { validateImmutableField, type ApiObject } from './helpers.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

type ControllerRevisionObject = ApiObject<ControllerRevision>;

/** `ValidateControllerRevision` (metadata is validated by the store). */
export function validateControllerRevision(cr: ControllerRevision): FieldError[] {
  const errs: FieldError[] = [];
  if (cr.data === undefined || cr.data === null) errs.push(field.required('data', 'data is mandatory'));
  errs.push(...validateNonnegativeField(cr.revision ?? 0, 'revision'));
  return errs;
}

/**
 * The Controller cell: `formatResourceName(GroupKind, name, withKind=true)` = lower-cased
 * `Kind.group` (just `kind` for core), a slash and the name.
 */
function controllerName(cr: ControllerRevision): string {
  const ref = getControllerOf(cr);
  if (!ref) return '<none>';
  const slash = ref.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
  const groupKind = group ? `${ref.kind}.${group}` : ref.kind;
  return `${groupKind.toLowerCase()}/${ref.name}`;
}

/** `printControllerRevision`: Name, Controller, Revision, Age. */
export function printControllerRevision(cr: ControllerRevision, now: number): TableRowData {
  return { cells: [cr.metadata?.name ?? '', controllerName(cr), cr.revision ?? 0, translateTimestampSince(cr.metadata?.creationTimestamp, now)] };
}

/** The controllerrevisions strategy. */
export const controllerRevisionStrategy: ResourceStrategy<ControllerRevisionObject> = {
  info: resourceInfo(CONTROLLER_REVISIONS),
  hasStatus: false,
  defaults() {},
  prepareForCreate() {},
  prepareForUpdate() {},
  validate: validateControllerRevision,
  validateUpdate: (cr, old) => [...validateControllerRevision(cr), ...validateImmutableField(cr.data, old.data, 'data')],
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  table: {
    columns: [
      NAME_COLUMN,
      column('Controller', 'string', 'Controller of the object'),
      column('Revision', 'string', 'Revision indicates the revision of the state represented by Data.'),
      AGE_COLUMN,
    ],
    row: printControllerRevision,
  },
};
