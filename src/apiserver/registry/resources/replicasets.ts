/**
 * ReplicaSets (apps/v1).
 *
 * Followed (v1.33): pkg/apis/apps/v1/defaults.go (SetDefaults_ReplicaSet), pkg/registry/apps/replicaset/
 * strategy.go (generation bump on spec change only, status strategy keeps spec, ToSelectableFields
 * `status.replicas`; selector immutable in apps/v1), pkg/apis/apps/validation/validation.go
 * (ValidateReplicaSetSpec, ValidateReplicaSetStatus), pkg/registry/apps/replicaset/storage/storage.go
 * (scale), pkg/printers/internalversion/printers.go (printReplicaSet).
 */
import { REPLICA_SETS } from '../../../api/catalogue/index.js';
import type { KubeObject, PodTemplateSpec, ReplicaSet, ReplicaSetSpec } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { formatLabelSelector } from '../../../machinery/labels/index.js';
import { validateNonnegativeField } from '../../../machinery/validation/index.js';
import { resourceInfo, type ResourceStrategy, type TableRowData } from '../strategy.js';
import { bumpGenerationIf, replicasScale, resetField, semanticDeepEqual, validateImmutableField, type ApiObject } from './helpers.js';
import { defaultPodTemplateSpec, validateSelectorAndTemplate } from './pod-template.js';
import { AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN, NAME_COLUMN, column, layoutContainerCells, translateTimestampSince } from './table-helpers.js';

type ReplicaSetObject = ApiObject<ReplicaSet>;

/** `SetDefaults_ReplicaSet` (replicas 1) plus the pod template defaults. */
export function defaultReplicaSet(rs: ReplicaSet): void {
  const spec = (rs.spec ??= {} as ReplicaSetSpec);
  spec.replicas ??= 1;
  defaultPodTemplateSpec((spec.template ??= {}));
}

/** `ValidateReplicaSetSpec`: replicas ≥ 0, minReadySeconds ≥ 0, then selector and template. */
export function validateReplicaSetSpec(rs: ReplicaSet): FieldError[] {
  const spec = rs.spec ?? ({} as Partial<ReplicaSetSpec>);
  const errs = validateNonnegativeField(spec.replicas ?? 0, 'spec.replicas');
  errs.push(...validateNonnegativeField(spec.minReadySeconds ?? 0, 'spec.minReadySeconds'));
  errs.push(...validateSelectorAndTemplate(spec.selector, spec.template, 'spec'));
  return errs;
}

/** The counts of a ReplicaSet's or a ReplicationController's status. */
interface ReplicaCounts {
  status?: { replicas?: number; fullyLabeledReplicas?: number; readyReplicas?: number; availableReplicas?: number; observedGeneration?: number };
}

/**
 * `ValidateReplicaSetStatus` (and `ValidateReplicationControllerStatus`, the same checks): counts ≥ 0,
 * none above status.replicas, available ≤ ready.
 */
export function validateReplicaSetStatus(rs: ReplicaCounts): FieldError[] {
  const s = rs.status ?? { replicas: 0 };
  const errs: FieldError[] = [];
  for (const k of ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'] as const) {
    errs.push(...validateNonnegativeField(s[k] ?? 0, `status.${k}`));
  }
  const msg = 'cannot be greater than status.replicas';
  for (const k of ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'] as const) {
    if ((s[k] ?? 0) > (s.replicas ?? 0)) errs.push(field.invalid(`status.${k}`, s[k] ?? 0, msg));
  }
  if ((s.availableReplicas ?? 0) > (s.readyReplicas ?? 0)) {
    errs.push(field.invalid('status.availableReplicas', s.availableReplicas ?? 0, 'cannot be greater than readyReplicas'));
  }
  return errs;
}

/** A ReplicaSet or a ReplicationController, as the rules and printer they share see it. */
type Replicated = ApiObject<KubeObject> & {
  spec?: { replicas?: number; template?: PodTemplateSpec | null };
  status?: { replicas: number; readyReplicas?: number };
};

/**
 * `printReplicaSet` and `printReplicationController`: Name, Desired, Current, Ready (integers), Age,
 * then the wide Containers, Images and `selector`, the selector cell each kind formats its way.
 */
export function printReplicated(obj: Replicated, now: number, selector: string): TableRowData {
  const [names, images] = layoutContainerCells(obj.spec?.template?.spec?.containers);
  return {
    cells: [
      obj.metadata?.name ?? '',
      obj.spec?.replicas ?? 0,
      obj.status?.replicas ?? 0,
      obj.status?.readyReplicas ?? 0,
      translateTimestampSince(obj.metadata?.creationTimestamp, now),
      names,
      images,
      selector,
    ],
  };
}

/** `printReplicaSet`: the Selector cell is `metav1.FormatLabelSelector` (`<none>` when empty). */
export function printReplicaSet(rs: ReplicaSetObject, now: number): TableRowData {
  return printReplicated(rs, now, formatLabelSelector(rs.spec?.selector));
}

/**
 * The create and update rules ReplicaSets and ReplicationControllers share (upstream keeps their
 * strategy.go files in step): on create, status `{replicas: 0}` and generation 1; on update, the stored
 * status, and generation + 1 when the spec changed; on a status update, the stored spec.
 */
export const replicatedRules = {
  prepareForCreate(obj: Replicated): void {
    obj.status = { replicas: 0 };
    (obj.metadata ??= {}).generation = 1;
  },
  prepareForUpdate(obj: Replicated, old: Replicated): void {
    obj.status = old.status ?? { replicas: 0 };
    bumpGenerationIf(obj, old, !semanticDeepEqual(obj.spec, old.spec));
  },
  prepareForStatusUpdate(obj: Replicated, old: Replicated): void {
    resetField(obj, old, 'spec');
  },
};

/** The replicasets strategy. */
export const replicaSetStrategy: ResourceStrategy<ReplicaSetObject> = {
  info: resourceInfo(REPLICA_SETS),
  hasStatus: true,
  defaults: defaultReplicaSet,
  ...replicatedRules,
  validate: validateReplicaSetSpec,
  validateUpdate: (rs, old) => [
    ...validateReplicaSetSpec(rs),
    ...validateImmutableField(rs.spec?.selector, old.spec?.selector, 'spec.selector'),
  ],
  validateStatusUpdate: validateReplicaSetStatus,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {
    'status.replicas': (rs) => String(rs.status?.replicas ?? 0),
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('Desired', 'integer', 'Replicas is the number of desired replicas.'),
      column('Current', 'integer', 'Replicas is the most recently observed number of replicas.'),
      column('Ready', 'integer', 'The number of ready replicas for this replica set.'),
      AGE_COLUMN,
      CONTAINERS_COLUMN,
      IMAGES_COLUMN,
      column('Selector', 'string', 'Selector is a label query over pods that should match the replica count.', 1),
    ],
    row: printReplicaSet,
  },
  scale: replicasScale,
};
