/**
 * PodTemplates (core/v1): a stored pod template, validated and defaulted as the template of a
 * workload is.
 *
 * Followed (v1.33): pkg/apis/core/v1/zz_generated.defaults.go (SetObjectDefaults_PodTemplate: the
 * PodSpec defaults applied to `template.spec`), pkg/apis/core/validation/validation.go
 * (ValidatePodTemplate, ValidatePodTemplateUpdate: the template at path `template`),
 * pkg/registry/core/podtemplate/strategy.go (generation 1 on create, bumped when the template
 * changes) and pkg/printers/internalversion/printers.go (printPodTemplate).
 */
import { POD_TEMPLATES } from '../../../api/catalogue/index.js';
import type { PodTemplate } from '../../../api/index.js';
import type { FieldError } from '../../../machinery/errors/index.js';
import { resourceInfo, type ResourceStrategy, type TableRowData } from '../strategy.js';
import { bumpGenerationIf, semanticDeepEqual, type ApiObject } from './helpers.js';
import { defaultPodTemplateSpec, validatePodTemplateSpec } from './pod-template.js';
import { NAME_COLUMN, column, formatLabels, layoutContainerCells } from './table-helpers.js';

type PodTemplateObject = ApiObject<PodTemplate>;

/** `ValidatePodTemplate` without the generic ObjectMeta checks: the template at `template`. */
export function validatePodTemplate(pt: PodTemplate): FieldError[] {
  return validatePodTemplateSpec(pt.template ?? {}, 'template');
}

/** `printPodTemplate`: Name, Containers, Images (not wide-only here), Pod Labels (`<none>` when empty). */
export function printPodTemplate(pt: PodTemplate): TableRowData {
  const [names, images] = layoutContainerCells(pt.template?.spec?.containers);
  return { cells: [pt.metadata?.name ?? '', names, images, formatLabels(pt.template?.metadata?.labels)] };
}

/** The podtemplates strategy. */
export const podTemplateStrategy: ResourceStrategy<PodTemplateObject> = {
  info: resourceInfo(POD_TEMPLATES),
  hasStatus: false,
  defaults(pt) {
    defaultPodTemplateSpec((pt.template ??= {}));
  },
  prepareForCreate(pt) {
    (pt.metadata ??= {}).generation = 1;
  },
  prepareForUpdate(pt, old) {
    bumpGenerationIf(pt, old, !semanticDeepEqual(pt.template, old.template));
  },
  validate: validatePodTemplate,
  validateUpdate: validatePodTemplate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  table: {
    columns: [
      NAME_COLUMN,
      column('Containers', 'string', 'Names of each container in the template.'),
      column('Images', 'string', 'Images referenced by each container in the template.'),
      column('Pod Labels', 'string', 'The labels for the pod template.'),
    ],
    row: printPodTemplate,
  },
};
