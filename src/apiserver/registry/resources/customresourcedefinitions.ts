/**
 * CustomResourceDefinitions (apiextensions.k8s.io/v1, cluster-scoped, with a status subresource): the
 * objects are stored, defaulted, validated and listed, so `kubectl apply` of a CRD works and kubectl's
 * "is this kind a CRD?" check (a list of CRDs, kubectl 1.31+) gets an answer.
 *
 * The custom resources are served by the CRD lifecycle (../customresource/lifecycle.ts, this kind's
 * storage extension): it sets `status.acceptedNames` and the NamesAccepted/Established conditions,
 * serves the Established CRD's versions, and on DELETE adds the `customresourcecleanup.apiextensions.k8s.io`
 * finalizer and the Terminating condition, deletes every custom resource, then lets the CRD go.
 *
 * Followed (k8s.io/apiextensions-apiserver v0.33.9): pkg/apis/apiextensions/v1/defaults.go
 * (SetDefaults_CustomResourceDefinition, SetDefaults_CustomResourceDefinitionSpec,
 * SetDefaults_ServiceReference), pkg/registry/customresourcedefinition/strategy.go (status reset and
 * storedVersions on create, generation and storedVersions on update, the status strategy keeping the
 * spec), pkg/registry/customresourcedefinition/etcd.go (the default table convertor: Name, Created At),
 * and crd-validation.ts for the validation.
 */
import { CUSTOM_RESOURCE_DEFINITIONS } from '../../../api/catalogue/index.js';
import type { CustomResourceDefinition, CustomResourceDefinitionSpec } from '../../../api/index.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { validateCustomResourceDefinition, validateCustomResourceDefinitionStatusUpdate, validateCustomResourceDefinitionUpdate, versionsOf } from './crd-validation.js';
import { bumpGenerationIf, resetField, semanticDeepEqual, type ApiObject } from './helpers.js';
import { defaultTablePrinter } from './table-helpers.js';
import { customResourceDefinitionStorage } from '../customresource/lifecycle.js';

type CustomResourceDefinitionObject = ApiObject<CustomResourceDefinition>;

/** The name of the first version marked `storage: true`. */
function storageVersion(crd: CustomResourceDefinition): string | undefined {
  return versionsOf(crd).find((v) => v.storage === true)?.name;
}

/**
 * `SetDefaults_CustomResourceDefinition`: names.singular the lower-cased kind, names.listKind
 * `<Kind>List`, conversion strategy None, a conversion webhook service's port 443, and
 * status.storedVersions the storage version when empty.
 */
export function defaultCustomResourceDefinition(crd: CustomResourceDefinition): void {
  // A spec without its required fields still gets defaults; validation then reports them.
  const spec = (crd.spec ??= {} as CustomResourceDefinitionSpec);
  const names = (spec.names ??= { plural: '', kind: '' });
  if (!names.singular) names.singular = (names.kind ?? '').toLowerCase();
  if (!names.listKind && names.kind) names.listKind = `${names.kind}List`;
  spec.conversion ??= { strategy: 'None' };
  const service = spec.conversion.webhook?.clientConfig?.service;
  if (service) service.port ??= 443;
  const stored = storageVersion(crd);
  if (!crd.status?.storedVersions?.length && stored !== undefined) (crd.status ??= {}).storedVersions = [stored];
}

/** Adds the storage version to status.storedVersions when it is not there yet (strategy.go). */
function recordStorageVersion(crd: CustomResourceDefinitionObject): void {
  const stored = storageVersion(crd);
  if (stored === undefined) return;
  const status = (crd.status ??= {});
  const storedVersions = status.storedVersions ?? [];
  if (!storedVersions.includes(stored)) status.storedVersions = [...storedVersions, stored];
}

/** The CustomResourceDefinition strategy. */
export const customResourceDefinitionStrategy: ResourceStrategy<CustomResourceDefinitionObject> = {
  info: resourceInfo(CUSTOM_RESOURCE_DEFINITIONS),
  hasStatus: true,
  defaults: defaultCustomResourceDefinition,
  /** `PrepareForCreate`: a fresh status (Go encodes its empty acceptedNames), generation 1, the storage version stored. */
  prepareForCreate(crd) {
    crd.status = { acceptedNames: { plural: '', kind: '' } };
    (crd.metadata ??= {}).generation = 1;
    recordStorageVersion(crd);
  },
  /** `PrepareForUpdate`: status kept, generation bumped on a spec change, a new storage version stored. */
  prepareForUpdate(crd, old) {
    resetField(crd, old, 'status');
    bumpGenerationIf(crd, old, !semanticDeepEqual(crd.spec, old.spec));
    recordStorageVersion(crd);
  },
  /**
   * The status strategy's `PrepareForUpdate`: the spec is kept. Upstream resets the metadata with
   * `ResetObjectMetaForStatus(&new.ObjectMeta, &new.ObjectMeta)`, which changes nothing, so metadata
   * changes sent to `/status` are kept too.
   */
  prepareForStatusUpdate(crd, old) {
    crd.spec = old.spec;
  },
  validate: validateCustomResourceDefinition,
  validateUpdate: validateCustomResourceDefinitionUpdate,
  validateStatusUpdate: validateCustomResourceDefinitionStatusUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  table: defaultTablePrinter,
  storage: customResourceDefinitionStorage,
};
