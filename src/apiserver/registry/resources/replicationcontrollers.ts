/**
 * ReplicationControllers (core/v1), with the status and scale subresources. No controller acts on
 * them yet: their pods are not created and their status stays as the status subresource writes it.
 *
 * Followed (v1.33): pkg/apis/core/v1/defaults.go (SetDefaults_ReplicationController: selector and
 * labels from the template's labels, replicas 1) with the PodSpec defaults of the template,
 * pkg/apis/core/validation/validation.go (ValidateReplicationControllerSpec,
 * ValidatePodTemplateSpecForRC, ValidateNonEmptySelector, ValidateReplicationControllerStatus),
 * pkg/registry/core/replicationcontroller/strategy.go (status reset on create, generation bump on
 * spec change, status strategy keeps spec, `status.replicas` field selector, Orphan as the default
 * garbage collection policy in v1), pkg/registry/core/replicationcontroller/storage/storage.go
 * (scale, whose selector is `labels.SelectorFromSet(spec.selector)`) and
 * pkg/printers/internalversion/printers.go (printReplicationController).
 */
import { REPLICATION_CONTROLLERS } from '../../../api/catalogue/index.js';
import type { ReplicationController } from '../../../api/index.js';
import type { ReplicationControllerSpec } from 'kubernetes-types/core/v1.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { selectorFromSet } from '../../../machinery/labels/index.js';
import { validateNonnegativeField } from '../../../machinery/validation/index.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { replicasScaleWith, type ApiObject } from './helpers.js';
import { defaultPodTemplateSpec, validatePodTemplateSpecForRC } from './pod-template.js';
import { printReplicated, replicatedRules, validateReplicaSetStatus } from './replicasets.js';
import { AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN, NAME_COLUMN, column, formatLabels } from './table-helpers.js';

type ReplicationControllerObject = ApiObject<ReplicationController>;

/**
 * `SetDefaults_ReplicationController`: when the template has labels, an empty selector and empty
 * object labels become copies of them; replicas 1. Then the template's PodSpec defaults.
 */
export function defaultReplicationController(rc: ReplicationControllerObject): void {
  const spec = (rc.spec ??= {});
  const labels = spec.template?.metadata?.labels;
  if (labels) {
    if (Object.keys(spec.selector ?? {}).length === 0) spec.selector = { ...labels };
    const meta = (rc.metadata ??= {});
    if (Object.keys(meta.labels ?? {}).length === 0) meta.labels = { ...labels };
  }
  spec.replicas ??= 1;
  if (spec.template) defaultPodTemplateSpec(spec.template);
}

/**
 * `ValidateReplicationControllerSpec`: minReadySeconds ≥ 0, a non-empty selector (`spec.selector:
 * Required value`), replicas ≥ 0, then the template (`ValidatePodTemplateSpecForRC`).
 */
export function validateReplicationControllerSpec(rc: ReplicationController): FieldError[] {
  const spec: ReplicationControllerSpec = rc.spec ?? {};
  const errs = validateNonnegativeField(spec.minReadySeconds ?? 0, 'spec.minReadySeconds');
  if (Object.keys(spec.selector ?? {}).length === 0) errs.push(field.required('spec.selector'));
  errs.push(...validateNonnegativeField(spec.replicas ?? 0, 'spec.replicas'));
  errs.push(...validatePodTemplateSpecForRC(spec.template, spec.selector, 'spec.template'));
  return errs;
}

/** The replicationcontrollers strategy. */
export const replicationControllerStrategy: ResourceStrategy<ReplicationControllerObject> = {
  info: resourceInfo(REPLICATION_CONTROLLERS),
  hasStatus: true,
  defaults: defaultReplicationController,
  ...replicatedRules,
  validate: validateReplicationControllerSpec,
  validateUpdate: validateReplicationControllerSpec,
  // ValidateReplicationControllerStatus is ValidateReplicaSetStatus's twin, field for field.
  validateStatusUpdate: validateReplicaSetStatus,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Orphan',
  fieldSelectors: {
    'status.replicas': (rc) => String(rc.status?.replicas ?? 0),
  },
  table: {
    columns: [
      NAME_COLUMN,
      column(
        'Desired',
        'integer',
        'Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller',
      ),
      column('Current', 'integer', 'Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller'),
      column('Ready', 'integer', 'The number of ready replicas for this replication controller.'),
      AGE_COLUMN,
      CONTAINERS_COLUMN,
      IMAGES_COLUMN,
      column(
        'Selector',
        'string',
        'Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
        1,
      ),
    ],
    // printReplicationController: the Selector cell is `labels.FormatLabels` (`<none>` when empty).
    row: (rc, now) => printReplicated(rc, now, formatLabels(rc.spec?.selector)),
  },
  // ScaleREST's selector is `labels.SelectorFromSet(spec.selector)`: `app=web,tier=fe`.
  scale: replicasScaleWith((rc) => selectorFromSet(rc.spec?.selector).toString()),
};
