/**
 * ServiceCIDRs (networking.k8s.io/v1, cluster-scoped, with /status): the ranges service cluster IPs
 * come from. Every cluster has `kubernetes`, the range of the API server's service allocator
 * (10.96.0.0/12 here), Ready from start-up.
 *
 * Followed (v1.33): pkg/apis/networking/validation/validation.go (ValidateServiceCIDR,
 * ValidateServiceCIDRUpdate — a single-stack range may gain a second family, nothing else changes —
 * ValidateServiceCIDRStatusUpdate), pkg/registry/networking/servicecidr/strategy.go (create and update
 * of the main resource leave status as sent; /status keeps spec and metadata),
 * pkg/controlplane/controller/defaultservicecidr (the `kubernetes` ServiceCIDR with condition Ready
 * True, message `Kubernetes default Service CIDR is ready`), pkg/printers/internalversion/printers.go
 * (printServiceCIDR).
 *
 * Not done here: kube-controller-manager's ServiceCIDR controller (the
 * `networking.k8s.io/service-cidr-finalizer` finalizer and the Ready condition of other ranges), and
 * allocating services from ranges other than the default one.
 */
import { SERVICE_CIDRS } from '../../../api/catalogue/index.js';
import type { ServiceCIDR } from '../../../api/index.js';
import { field, GoSyntax, goStringSlice, isAlreadyExists, type FieldError } from '../../../machinery/errors/index.js';
import { ipFamilyOfCIDRString } from '../../../machinery/netutils/index.js';
import { FIELD_IMMUTABLE_ERROR_MSG, isValidCIDR } from '../../../machinery/validation/index.js';
import { formatTime } from '../../../util/clock/index.js';
import type { StorageContext, StorageExtension } from '../extension.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { semanticDeepEqual, type ApiObject } from './helpers.js';
import { DEFAULT_SERVICE_CIDR } from './service-allocator.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

type ServiceCIDRObject = ApiObject<ServiceCIDR>;

/** `DefaultServiceCIDRName`. */
export const DEFAULT_SERVICE_CIDR_NAME = 'kubernetes';
const READY_MESSAGE = 'Kubernetes default Service CIDR is ready';

/** `validateServiceCIDRSpec`: one or two canonical CIDRs, of different IP families. */
function validateCIDRs(cidrs: readonly string[] | undefined): FieldError[] {
  const path = 'spec.cidrs';
  const list = cidrs ?? [];
  if (list.length === 0) return [field.required(path, 'at least one CIDR required')];
  if (list.length > 2) return [field.invalid(path, new GoSyntax(`networking.ServiceCIDRSpec{CIDRs:${goStringSlice(list).text}}`), 'may only hold up to 2 values')];
  const errs = list.flatMap((cidr, i) => isValidCIDR(`${path}[${i}]`, cidr));
  const family = ipFamilyOfCIDRString(list[0] as string);
  if (list.length === 2 && family !== undefined && family === ipFamilyOfCIDRString(list[1] as string)) {
    errs.push(field.invalid(path, goStringSlice(list), 'may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64'));
  }
  return errs;
}

/** `ValidateServiceCIDR` without the generic ObjectMeta checks. */
export function validateServiceCIDR(sc: ServiceCIDR): FieldError[] {
  return validateCIDRs(sc.spec?.cidrs);
}

/** `ValidateServiceCIDRUpdate`: the CIDRs are immutable, except that a single-stack range may add a second one (of the other family). */
export function validateServiceCIDRUpdate(sc: ServiceCIDR, old: ServiceCIDR): FieldError[] {
  const cidrs = sc.spec?.cidrs ?? [];
  const oldCIDRs = old.spec?.cidrs ?? [];
  if (cidrs.length === oldCIDRs.length) {
    return oldCIDRs.flatMap((c, i) => (c === cidrs[i] ? [] : [field.invalid(`spec.cidrs[${i}]`, cidrs[i], FIELD_IMMUTABLE_ERROR_MSG)]));
  }
  if (oldCIDRs.length === 1 && cidrs.length === 2) {
    const errs = cidrs[0] === oldCIDRs[0] ? [] : [field.invalid('spec.cidrs[0]', cidrs[0], FIELD_IMMUTABLE_ERROR_MSG)];
    return [...errs, ...validateCIDRs(cidrs)];
  }
  return [field.invalid('spec.cidrs', goStringSlice(sc.spec?.cidrs), FIELD_IMMUTABLE_ERROR_MSG)];
}

/**
 * The default ServiceCIDR controller's start-up sync: creates `kubernetes` for the service range when
 * missing, Ready; sets Ready on an existing one that matches the range and has no Ready condition.
 */
function serviceCIDRStorage({ store, clock }: StorageContext): StorageExtension {
  const ready = (): NonNullable<ServiceCIDR['status']> => ({
    conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: formatTime(clock.now()), reason: '', message: READY_MESSAGE }],
  });
  return {
    bootstrap: async () => {
      const existing = store.cached(undefined, DEFAULT_SERVICE_CIDR_NAME) as ServiceCIDR | undefined;
      if (!existing) {
        const sc = { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name: DEFAULT_SERVICE_CIDR_NAME }, spec: { cidrs: [DEFAULT_SERVICE_CIDR] }, status: ready() };
        try {
          await store.create(undefined, sc, {}, []);
        } catch (err) {
          if (!isAlreadyExists(err)) throw err;
        }
        return;
      }
      const hasReady = (existing.status?.conditions ?? []).some((c) => c.type === 'Ready');
      if (existing.metadata?.deletionTimestamp || hasReady || !semanticDeepEqual(existing.spec?.cidrs, [DEFAULT_SERVICE_CIDR])) return;
      await store.update(undefined, DEFAULT_SERVICE_CIDR_NAME, { ...existing, status: ready() }, {}, [], 'status');
    },
  };
}

/** The ServiceCIDR strategy. */
export const serviceCIDRStrategy: ResourceStrategy<ServiceCIDRObject> = {
  info: resourceInfo(SERVICE_CIDRS),
  hasStatus: true,
  defaults() {},
  prepareForCreate() {},
  prepareForUpdate() {},
  validate: validateServiceCIDR,
  validateUpdate: validateServiceCIDRUpdate,
  validateStatusUpdate: () => [],
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  storage: serviceCIDRStorage,
  table: {
    columns: [
      NAME_COLUMN,
      column(
        'CIDRs',
        'string',
        'CIDRs defines the IP blocks in CIDR notation (e.g. "192.168.0.0/24" or "2001:db8::/64") from which to assign service cluster IPs. Max of two CIDRs is allowed, one of each IP family. This field is immutable.',
      ),
      AGE_COLUMN,
    ],
    row: (sc, now) => ({ cells: [sc.metadata?.name ?? '', (sc.spec?.cidrs ?? []).join(','), translateTimestampSince(sc.metadata?.creationTimestamp, now)] }),
  },
};
