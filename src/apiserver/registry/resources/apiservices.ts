/**
 * APIServices (apiregistration.k8s.io/v1, cluster-scoped): one per served group/version, as
 * kube-aggregator registers them, and whatever users create.
 *
 * Followed (v1.33; k8s.io/kube-aggregator v0.33.9): pkg/apis/apiregistration/v1/defaults.go
 * (SetDefaults_ServiceReference), pkg/apis/apiregistration/validation/validation.go
 * (ValidateAPIService, ValidateAPIServiceStatus), pkg/registry/apiservice/strategy.go (status reset on
 * create, local APIServices Available at once, status kept on update, the status strategy),
 * pkg/registry/apiservice/etcd/etcd.go (the Table: NAME SERVICE AVAILABLE AGE),
 * pkg/controllers/autoregister/autoregister_controller.go and cmd/kube-apiserver/app/aggregator.go
 * (the automanaged APIServices of the served group/versions), pkg/controllers/status/local/
 * local_available_controller.go (a local APIService is always Available), kube-apiextensions'
 * crdregistration_controller.go (groups kube-apiserver does not serve: priority 1000/100, synced
 * continuously).
 *
 * The served group/versions are registered at start-up and again whenever a resource is added or
 * removed at run time (`ApiServer.addResource`/`removeResource`): kube-apiserver's own groups with
 * `kube-aggregator.kubernetes.io/automanaged: onstart`, any other group with `true`; an automanaged
 * APIService whose group/version is no longer served is deleted, one a user created (no label) is
 * left alone. Unlike upstream's once-only `onstart`, every run brings automanaged specs back.
 *
 * `v1beta1.metrics.k8s.io`: on a real cluster metrics-server's manifest creates it, naming the service
 * kube-system/metrics-server (SERVICE `kube-system/metrics-server`, Available once the service
 * answers). kubeplane serves metrics.k8s.io itself, so it is registered like its other group/versions:
 * local (SERVICE `Local`), Available True at once, with metrics-server's priority 100/100
 * (api/catalogue/groups.ts).
 *
 * Not done: kubeplane does not proxy. An APIService naming a service is stored and listed, but
 * requests for its group/version are not sent there (discovery and routing follow the served kinds
 * only), and no controller checks the service: its Available condition is what clients write to
 * `/status` (none at first: AVAILABLE `Unknown`).
 */
import { API_SERVICES, apiServicePriority, CUSTOM_RESOURCE_PRIORITY } from '../../../api/catalogue/index.js';
import type { APIService } from '../../../api/index.js';
import { field, goQuote, isAlreadyExists, isConflict, isNotFound, type FieldError } from '../../../machinery/errors/index.js';
import { isDNS1035Label, isDNS1123Subdomain, isValidPathSegmentName } from '../../../machinery/validation/index.js';
import { formatTime } from '../../../util/clock/index.js';
import type { StorageContext, StorageExtension } from '../extension.js';
import type { Store } from '../generic/store.js';
import { resourceInfo, type ResourceInfo, type ResourceStrategy } from '../strategy.js';
import { resetField, semanticDeepEqual, type ApiObject } from './helpers.js';
import { isValidPortNum } from './pod-template.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

type APIServiceObject = ApiObject<APIService>;
type APIServiceCondition = NonNullable<NonNullable<APIService['status']>['conditions']>[number];

/** `autoregister.AutoRegisterManagedLabel`: how the autoregister step syncs an APIService. */
export const AUTO_REGISTER_MANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged';
/** Label value of kube-apiserver's own group/versions (synced on start). */
const MANAGE_ON_START = 'onstart';
/** Label value of other served group/versions (custom resources: synced continuously). */
const MANAGE_CONTINUOUSLY = 'true';

const MAX_GROUP_PRIORITY = 20000;
const MAX_VERSION_PRIORITY = 1000;

/** `v1.apps`; the core group's is `v1.`. */
export function apiServiceName(group: string, version: string): string {
  return `${version}.${group}`;
}

/** `NewLocalAvailableAPIServiceCondition`. */
function localAvailableCondition(now: number): APIServiceCondition {
  return { type: 'Available', status: 'True', lastTransitionTime: formatTime(now), reason: 'Local', message: 'Local APIServices are always available' };
}

/** `SetAPIServiceCondition`: add, or update in place (the transition time only when the status changes). */
function setCondition(svc: APIServiceObject, condition: APIServiceCondition): void {
  const conditions = ((svc.status ??= {}).conditions ??= []);
  const existing = conditions.find((c) => c.type === condition.type);
  if (!existing) {
    conditions.push(condition);
    return;
  }
  if (existing.status !== condition.status) {
    existing.status = condition.status;
    existing.lastTransitionTime = condition.lastTransitionTime;
  }
  existing.reason = condition.reason;
  existing.message = condition.message;
}

/** Bytes of a base64 `caBundle` (the Go field is []byte). */
function caBundleBytes(caBundle: string | undefined): number {
  return caBundle ? Buffer.from(caBundle, 'base64').length : 0;
}

/** ValidateAPIService's name function: a path segment, and exactly `<spec.version>.<spec.group>`. */
function validateAPIServiceName(name: string, svc: APIServiceObject): string[] {
  const minimal = isValidPathSegmentName(name);
  if (minimal.length > 0) return minimal;
  const required = apiServiceName(svc.spec?.group ?? '', svc.spec?.version ?? '');
  return name === required ? [] : [`must be \`spec.version+"."+spec.group\`: ${goQuote(required)}`];
}

/** The service reference rules of ValidateAPIService. */
function validateService(spec: NonNullable<APIService['spec']>): FieldError[] {
  const service = spec.service;
  if (!service) {
    const errs: FieldError[] = [];
    const bytes = caBundleBytes(spec.caBundle);
    if (bytes !== 0) errs.push(field.invalid('spec.caBundle', `${bytes} bytes`, 'local APIServices may not have a caBundle'));
    if (spec.insecureSkipTLSVerify) errs.push(field.invalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
    return errs;
  }
  const errs: FieldError[] = [];
  if (!service.namespace) errs.push(field.required('spec.service.namespace', ''));
  if (!service.name) errs.push(field.required('spec.service.name', ''));
  const port = service.port ?? 0;
  const portErrs = isValidPortNum(port);
  if (portErrs.length > 0) errs.push(field.invalid('spec.service.port', port, `port is not valid: ${portErrs.join(', ')}`));
  if (spec.insecureSkipTLSVerify && caBundleBytes(spec.caBundle) > 0) {
    errs.push(field.invalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  }
  return errs;
}

/** `ValidateAPIService` without ObjectMeta (the store validates it with {@link validateAPIServiceName}). */
export function validateAPIService(svc: APIServiceObject): FieldError[] {
  const spec = svc.spec ?? { groupPriorityMinimum: 0, versionPriority: 0 };
  const group = spec.group ?? '';
  const version = spec.version ?? '';
  const errs: FieldError[] = [];
  // The core group is the one APIService with an empty group.
  if (group === '' && version !== 'v1') errs.push(field.required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group !== '') for (const msg of isDNS1123Subdomain(group)) errs.push(field.invalid('spec.group', group, msg));
  for (const msg of isDNS1035Label(version)) errs.push(field.invalid('spec.version', version, msg));
  const groupPriority = spec.groupPriorityMinimum ?? 0;
  if (groupPriority <= 0 || groupPriority > MAX_GROUP_PRIORITY) {
    errs.push(field.invalid('spec.groupPriorityMinimum', groupPriority, `must be positive and less than ${MAX_GROUP_PRIORITY}`));
  }
  const versionPriority = spec.versionPriority ?? 0;
  if (versionPriority <= 0 || versionPriority > MAX_VERSION_PRIORITY) {
    errs.push(field.invalid('spec.versionPriority', versionPriority, `must be positive and less than ${MAX_VERSION_PRIORITY}`));
  }
  return [...errs, ...validateService(spec)];
}

/** `ValidateAPIServiceStatus`: every condition's status is True, False or Unknown. */
function validateAPIServiceStatus(svc: APIServiceObject): FieldError[] {
  const errs: FieldError[] = [];
  (svc.status?.conditions ?? []).forEach((c, i) => {
    if (c.status !== 'True' && c.status !== 'False' && c.status !== 'Unknown') {
      errs.push(field.notSupported(`status.conditions[${i}].status`, c.status, ['True', 'False', 'Unknown']));
    }
  });
  return errs;
}

/** The AVAILABLE cell: `True`, `False (Reason)`, the bare status without a reason, `Unknown` without the condition. */
function availableCell(svc: APIServiceObject): string {
  const condition = svc.status?.conditions?.find((c) => c.type === 'Available');
  if (!condition) return 'Unknown';
  if (condition.status !== 'True' && condition.reason) return `${condition.status} (${condition.reason})`;
  return condition.status;
}

// ---------------------------------------------------------------------------------------------
// Autoregister.

/**
 * The APIServices the served resources call for, by name: one per group/version, with
 * kube-apiserver's priorities for its own groups (label `onstart`) and custom resources' 1000/100
 * for any other (label `true`), as kube-apiserver's and the CRD registration controllers build them.
 */
export function desiredAPIServices(served: readonly ResourceInfo[]): Map<string, APIService> {
  const desired = new Map<string, APIService>();
  for (const { group, version } of served) {
    const name = apiServiceName(group, version);
    if (desired.has(name)) continue;
    const builtIn = apiServicePriority(group, version);
    const priority = builtIn ?? CUSTOM_RESOURCE_PRIORITY;
    desired.set(name, {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name, labels: { [AUTO_REGISTER_MANAGED_LABEL]: builtIn ? MANAGE_ON_START : MANAGE_CONTINUOUSLY } },
      spec: { ...(group ? { group } : {}), version, groupPriorityMinimum: priority.group, versionPriority: priority.version },
    });
  }
  return desired;
}

function isAutomanaged(svc: APIService): boolean {
  const how = svc.metadata?.labels?.[AUTO_REGISTER_MANAGED_LABEL];
  return how === MANAGE_ON_START || how === MANAGE_CONTINUOUSLY;
}

/**
 * One run of the autoregister step (checkAPIService for every name): creates the missing desired
 * APIServices, brings the spec of automanaged ones back to the desired one, and deletes automanaged
 * ones nothing serves (UID precondition). APIServices without the label are users' and left alone.
 * Races with other writers (created, changed or deleted meanwhile) are left to the next run.
 */
async function syncAPIServices(store: Store, served: readonly ResourceInfo[]): Promise<void> {
  const desired = desiredAPIServices(served);
  const current = new Map((await store.list(undefined, {})).items.map((o) => [o.metadata?.name ?? '', o as APIService]));
  const tolerate = (check: (err: unknown) => boolean) => (err: unknown) => {
    if (!check(err)) throw err;
  };
  for (const [name, want] of desired) {
    const have = current.get(name);
    if (!have) {
      await store.create(undefined, want, {}, []).catch(tolerate(isAlreadyExists));
    } else if (isAutomanaged(have) && !semanticDeepEqual(have.spec, want.spec)) {
      await store.update(undefined, name, { ...have, spec: want.spec }, {}, []).catch(tolerate((e) => isNotFound(e) || isConflict(e)));
    }
  }
  for (const [name, have] of current) {
    if (desired.has(name) || !isAutomanaged(have)) continue;
    const preconditions = { uid: have.metadata?.uid };
    await store.delete(undefined, name, { preconditions }, {}).catch(tolerate((e) => isNotFound(e) || isConflict(e)));
  }
}

/**
 * The autoregister step around the APIService store: at start-up (a failure fails the start, as
 * other bootstraps do), then after every run-time change of the served resources, one run at a time.
 */
function apiServiceStorage({ store, servedResources }: StorageContext): StorageExtension {
  let running: Promise<void> = Promise.resolve();
  const run = (): Promise<void> => {
    const next = running.then(() => syncAPIServices(store, servedResources()));
    running = next.catch(() => undefined);
    return next;
  };
  return {
    bootstrap: run,
    // A failed run (storage trouble) is retried with the next change or restart.
    resourcesChanged: () => run().catch(() => undefined),
  };
}

/** The APIService strategy. */
export const apiServiceStrategy: ResourceStrategy<APIServiceObject> = {
  info: resourceInfo(API_SERVICES),
  hasStatus: true,
  /** `SetDefaults_ServiceReference`: port 443. */
  defaults(svc) {
    if (svc.spec?.service) svc.spec.service.port ??= 443;
  },
  /** Status reset; a local APIService is Available at once. */
  prepareForCreate(svc, now) {
    svc.status = {};
    if (!svc.spec?.service) setCondition(svc, localAvailableCondition(now));
  },
  /**
   * Status kept (strategy.go), then what the availability controllers would write at once: a local
   * APIService is Available; one that now names a service loses the `Local` condition, since no
   * controller here checks services.
   */
  prepareForUpdate(svc, old, now = 0) {
    resetField(svc, old, 'status');
    if (!svc.spec?.service) setCondition(svc, localAvailableCondition(now));
    else if (svc.status?.conditions) svc.status.conditions = svc.status.conditions.filter((c) => !(c.type === 'Available' && c.reason === 'Local'));
  },
  validate: validateAPIService,
  nameValidator: validateAPIServiceName,
  validateUpdate: validateAPIService,
  validateStatusUpdate: validateAPIServiceStatus,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  storage: apiServiceStorage,
  table: {
    columns: [
      NAME_COLUMN,
      column('Service', 'string', 'The reference to the service that hosts this API endpoint.'),
      column('Available', 'string', 'Whether this service is available.'),
      AGE_COLUMN,
    ],
    row: (svc, now) => {
      const service = svc.spec?.service;
      return {
        cells: [
          svc.metadata?.name ?? '',
          service ? `${service.namespace ?? ''}/${service.name ?? ''}` : 'Local',
          availableCell(svc),
          translateTimestampSince(svc.metadata?.creationTimestamp, now),
        ],
      };
    },
  },
};
