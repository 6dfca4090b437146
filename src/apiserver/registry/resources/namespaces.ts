/**
 * Namespaces (core/v1, cluster-scoped).
 *
 * Followed (v1.33): pkg/registry/core/namespace/strategy.go (PrepareForCreate adds the `kubernetes`
 * finalizer and sets phase Active; updates keep spec.finalizers and status; status and finalize
 * strategies; NamespaceToSelectableFields, including the legacy `name` field), pkg/apis/core/v1/defaults.go
 * (SetDefaults_Namespace, SetDefaults_NamespaceStatus), pkg/apis/core/validation/validation.go
 * (ValidateNamespace, ValidateNamespaceStatusUpdate, ValidateNamespaceFinalizeUpdate, validateFinalizerName),
 * pkg/printers/internalversion/printers.go (printNamespace).
 */
import { NAMESPACES } from '../../../api/catalogue/index.js';
import type { Namespace } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName } from '../../../machinery/validation/index.js';
import { resetField, type ApiObject } from './helpers.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { namespaceStorage } from './namespace-storage.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

type NamespaceObject = ApiObject<Namespace>;

/** The label every namespace carries with its own name (`v1.LabelMetadataName`). */
export const LABEL_METADATA_NAME = 'kubernetes.io/metadata.name';
/** The finalizer the namespace controller removes once the namespace is empty (`api.FinalizerKubernetes`). */
export const FINALIZER_KUBERNETES = 'kubernetes';

/**
 * `validateFinalizerName`: a qualified name, and an unqualified one (no `/`) must be the standard
 * `kubernetes` (`name is neither a standard finalizer name nor is it fully qualified`).
 */
function validateFinalizerName(name: string, path: string): FieldError[] {
  const errs = isQualifiedName(name).map((msg) => field.invalid(path, name, msg));
  if (!name.includes('/') && name !== FINALIZER_KUBERNETES) {
    errs.push(field.invalid(path, name, 'name is neither a standard finalizer name nor is it fully qualified'));
  }
  return errs;
}

/**
 * `ValidateNamespace` without the generic ObjectMeta checks: the name must be a DNS-1123 label (reported
 * only when it is a valid subdomain, since the store already reports subdomain violations with the
 * generic name rule) and each spec finalizer valid (at upstream's unindexed path `spec.finalizers`).
 */
export function validateNamespace(ns: Namespace): FieldError[] {
  const errs: FieldError[] = [];
  const name = ns.metadata?.name ?? '';
  if (name && isDNS1123Subdomain(name).length === 0) {
    for (const msg of isDNS1123Label(name)) errs.push(field.invalid('metadata.name', name, msg));
  }
  for (const f of ns.spec?.finalizers ?? []) errs.push(...validateFinalizerName(f, 'spec.finalizers'));
  return errs;
}

/** `ValidateNamespaceStatusUpdate`: phase `Active` without a deletionTimestamp, `Terminating` with one. */
export function validateNamespaceStatusUpdate(ns: Namespace): FieldError[] {
  const phase = ns.status?.phase ?? '';
  if (!ns.metadata?.deletionTimestamp) {
    return phase === 'Active' ? [] : [field.invalid('status.Phase', phase, "may only be 'Active' if `deletionTimestamp` is empty")];
  }
  return phase === 'Terminating' ? [] : [field.invalid('status.Phase', phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")];
}

/**
 * The `finalize` subresource (PUT /api/v1/namespaces/{name}/finalize) updates with these two functions: status comes from the stored object (namespaceFinalizeStrategy.PrepareForUpdate) and
 * each spec finalizer must be valid (ValidateNamespaceFinalizeUpdate, indexed paths).
 */
export function prepareForFinalizeUpdate(ns: Namespace, old: Namespace): void {
  resetField(ns, old, 'status');
}

/** See {@link prepareForFinalizeUpdate}. */
export function validateFinalizeUpdate(ns: Namespace): FieldError[] {
  return (ns.spec?.finalizers ?? []).flatMap((f, i) => validateFinalizerName(f, `spec.finalizers[${i}]`));
}

/** The namespaces strategy. */
export const namespaceStrategy: ResourceStrategy<NamespaceObject> = {
  info: resourceInfo(NAMESPACES),
  hasStatus: true,
  /** SetDefaults_Namespace (the name label, when the name is known) and SetDefaults_NamespaceStatus (phase Active). */
  defaults(ns) {
    const meta = ns.metadata;
    if (meta?.name) (meta.labels ??= {})[LABEL_METADATA_NAME] = meta.name;
    const status = (ns.status ??= {});
    status.phase ||= 'Active';
  },
  prepareForCreate(ns) {
    ns.status = { phase: 'Active' };
    const spec = (ns.spec ??= {});
    const finalizers = spec.finalizers ?? [];
    if (!finalizers.includes(FINALIZER_KUBERNETES)) spec.finalizers = [...finalizers, FINALIZER_KUBERNETES];
    // Canonicalize: a generated name is only known now, and the label always follows the name.
    const meta = (ns.metadata ??= {});
    if (meta.name) (meta.labels ??= {})[LABEL_METADATA_NAME] = meta.name;
  },
  prepareForUpdate(ns, old) {
    const spec = (ns.spec ??= {});
    resetField(spec, old.spec, 'finalizers');
    resetField(ns, old, 'status');
    const meta = (ns.metadata ??= {});
    if (meta.name) (meta.labels ??= {})[LABEL_METADATA_NAME] = meta.name;
  },
  prepareForStatusUpdate(ns, old) {
    resetField(ns, old, 'spec');
  },
  validate: validateNamespace,
  validateUpdate: validateNamespace,
  validateStatusUpdate: validateNamespaceStatusUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {
    'status.phase': (ns) => ns.status?.phase ?? '',
    // Upstream calls this a bug kept for backward compatibility.
    name: (ns) => ns.metadata?.name ?? '',
  },
  returnDeletedObject: true,
  storage: (ctx) =>
    namespaceStorage(ctx, {
      subresource: 'finalize',
      prepareForUpdate: (ns, old) => prepareForFinalizeUpdate(ns as NamespaceObject, old as NamespaceObject),
      validateUpdate: (ns) => validateFinalizeUpdate(ns as NamespaceObject),
    }),
  table: {
    columns: [NAME_COLUMN, column('Status', 'string', 'The status of the namespace'), AGE_COLUMN],
    row: (ns, now) => ({
      cells: [ns.metadata?.name ?? '', ns.status?.phase ?? '', translateTimestampSince(ns.metadata?.creationTimestamp, now)],
    }),
  },
};
