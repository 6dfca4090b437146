/**
 * Resource names and quantities as core/v1 validation sees them: which names are standard for
 * containers, quotas and limit ranges, which count whole units, and the name and quantity checks
 * pods, ResourceQuotas and LimitRanges share.
 *
 * Followed (v1.33): pkg/apis/core/helper/helpers.go (IsStandardResourceName, IsStandardContainerResourceName,
 * IsStandardQuotaResourceName, IsIntegerResourceName, IsExtendedResourceName, IsNativeResource,
 * IsOvercommitAllowed, IsHugePageResourceName, IsStandardLimitRangeType, IsStandardResourceQuotaScope,
 * IsResourceQuotaScopeValidForResource) and pkg/apis/core/validation/validation.go (validateResourceName,
 * validateContainerResourceName, ValidateResourceQuotaResourceName, ValidateResourceQuantityValue,
 * ValidateNonnegativeQuantity).
 */
import { errorMessage, field, type FieldError } from '../../../machinery/errors/index.js';
import { goSyntaxQuantity, parseQuantity, type Quantity } from '../../../machinery/quantity/index.js';
import { IS_NEGATIVE_ERROR_MSG, isQualifiedName } from '../../../machinery/validation/index.js';

const HUGEPAGES_PREFIX = 'hugepages-';
const REQUESTS_HUGEPAGES_PREFIX = 'requests.hugepages-';
const DEFAULT_NAMESPACE_PREFIX = 'kubernetes.io/';
const REQUESTS_PREFIX = 'requests.';

const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);
const COMPUTE = ['cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage'];
const LIMITS = ['limits.cpu', 'limits.memory', 'limits.ephemeral-storage'];
const INTEGER_RESOURCES = ['pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers'];
const STANDARD_QUOTA_RESOURCES = new Set([...COMPUTE, 'requests.storage', ...LIMITS, ...INTEGER_RESOURCES]);
const STANDARD_RESOURCES = new Set([...COMPUTE, ...LIMITS, ...INTEGER_RESOURCES, 'storage', 'requests.storage']);
const INTEGER_RESOURCE_SET = new Set(INTEGER_RESOURCES);
const STANDARD_LIMIT_RANGE_TYPES = new Set(['Pod', 'Container', 'PersistentVolumeClaim']);
const STANDARD_QUOTA_SCOPES = new Set(['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity']);
const POD_COMPUTE_QUOTA_RESOURCES = new Set(['cpu', 'memory', 'limits.cpu', 'limits.memory', 'requests.cpu', 'requests.memory']);

/** `IsHugePageResourceName`: `hugepages-2Mi`. */
export const isHugePageResourceName = (name: string): boolean => name.startsWith(HUGEPAGES_PREFIX);
/** `IsNativeResource`: unqualified, or in a `kubernetes.io/` domain. */
export const isNativeResource = (name: string): boolean => !name.includes('/') || name.includes(DEFAULT_NAMESPACE_PREFIX);
/** `IsOvercommitAllowed`: native and not hugepages (requests may then be below limits). */
export const isOvercommitAllowed = (name: string): boolean => isNativeResource(name) && !isHugePageResourceName(name);
const isQuotaHugePageResourceName = (name: string): boolean => name.startsWith(HUGEPAGES_PREFIX) || name.startsWith(REQUESTS_HUGEPAGES_PREFIX);

/** `IsExtendedResourceName`: `example.com/gpu` — not native, not `requests.`-prefixed, and a qualified name once so prefixed. */
export function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith(REQUESTS_PREFIX)) return false;
  return isQualifiedName(REQUESTS_PREFIX + name).length === 0;
}

/** `IsStandardContainerResourceName`: cpu, memory, ephemeral-storage, hugepages-*. */
export const isStandardContainerResourceName = (name: string): boolean => STANDARD_CONTAINER_RESOURCES.has(name) || isHugePageResourceName(name);
/** `IsStandardQuotaResourceName`: what quota tracks. */
export const isStandardQuotaResourceName = (name: string): boolean => STANDARD_QUOTA_RESOURCES.has(name) || isQuotaHugePageResourceName(name);
/** `IsIntegerResourceName`: object counts and extended resources. */
export const isIntegerResourceName = (name: string): boolean => INTEGER_RESOURCE_SET.has(name) || isExtendedResourceName(name);
/** `IsStandardLimitRangeType`: Pod, Container, PersistentVolumeClaim. */
export const isStandardLimitRangeType = (type: string): boolean => STANDARD_LIMIT_RANGE_TYPES.has(type);
/** `IsStandardResourceQuotaScope`. */
export const isStandardResourceQuotaScope = (scope: string): boolean => STANDARD_QUOTA_SCOPES.has(scope);

/** `IsResourceQuotaScopeValidForResource`: pod-scoped scopes only apply to pods and pod compute resources; BestEffort only to pods. */
export function isResourceQuotaScopeValidForResource(scope: string, resource: string): boolean {
  switch (scope) {
    case 'Terminating':
    case 'NotTerminating':
    case 'NotBestEffort':
    case 'PriorityClass':
    case 'CrossNamespacePodAffinity':
      return resource === 'pods' || POD_COMPUTE_QUOTA_RESOURCES.has(resource);
    case 'BestEffort':
      return resource === 'pods';
    default:
      return true;
  }
}

function invalidEach(path: string, value: string, msgs: readonly string[]): FieldError[] {
  return msgs.map((msg) => field.invalid(path, value, msg));
}

/** `validateResourceName`: a qualified name; unqualified ones must be standard (`must be a standard resource type or fully qualified`). */
export function validateResourceName(name: string, path: string): FieldError[] {
  const errs = invalidEach(path, name, isQualifiedName(name));
  if (errs.length > 0) return errs;
  if (!name.includes('/') && !STANDARD_RESOURCES.has(name) && !isQuotaHugePageResourceName(name)) {
    return [field.invalid(path, name, 'must be a standard resource type or fully qualified')];
  }
  return [];
}

/** `validateContainerResourceName`: a resource name a container may request. */
export function validateContainerResourceName(name: string, path: string): FieldError[] {
  const errs = validateResourceName(name, path);
  if (!name.includes('/')) {
    if (!isStandardContainerResourceName(name)) errs.push(field.invalid(path, name, 'must be a standard resource for containers'));
  } else if (!isNativeResource(name) && !isExtendedResourceName(name)) {
    errs.push(field.invalid(path, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

/** `ValidateResourceQuotaResourceName`: unqualified names must be ones quota tracks (`must be a standard resource for quota`). */
export function validateResourceQuotaResourceName(name: string, path: string): FieldError[] {
  const errs = validateResourceName(name, path);
  if (!name.includes('/') && !isStandardQuotaResourceName(name)) errs.push(field.invalid(path, name, 'must be a standard resource for quota'));
  return errs;
}

/**
 * A quantity as decoded: `[quantity]`, or `[undefined, error]` with upstream's decoding message at
 * `path` for a malformed one (upstream refuses those while decoding the body).
 */
export function parseQuantityAt(raw: string | number, path: string): [Quantity] | [undefined, FieldError] {
  try {
    return [parseQuantity(raw)];
  } catch (err) {
    return [undefined, field.invalid(path, String(raw), errorMessage(err))];
  }
}

/**
 * `field.Invalid(path, quantity, detail)`: Go prints a Quantity value with `%#v` (see
 * {@link goSyntaxQuantity}), which the detail carries so the message reads as upstream's.
 */
export function invalidQuantity(path: string, raw: string | number, detail: string): FieldError {
  return field.invalidOmitValue(path, `${goSyntaxQuantity(raw)}: ${detail}`);
}

/**
 * `ValidateResourceQuantityValue`: not negative (`Invalid value: "-1": must be greater than or equal
 * to 0`, the canonical form), and whole for integer resources (`must be an integer`, with the
 * Quantity's Go syntax as the value).
 */
export function validateResourceQuantityValue(name: string, raw: string | number, path: string): FieldError[] {
  const [q, parseErr] = parseQuantityAt(raw, path);
  if (!q) return [parseErr];
  const errs: FieldError[] = [];
  if (q.cmp(parseQuantity(0)) < 0) errs.push(field.invalid(path, q.toString(), IS_NEGATIVE_ERROR_MSG));
  if (isIntegerResourceName(name) && q.milliValue() % 1000 !== 0) errs.push(invalidQuantity(path, raw, 'must be an integer'));
  return errs;
}

/** Names and quantities of a resource list (`hard`, `used`, a LimitRange's `max`…), in name order. */
export function validateResourceList(
  list: Readonly<Record<string, string | number>> | undefined,
  path: string,
  validateName: (name: string, path: string) => FieldError[],
): FieldError[] {
  const errs: FieldError[] = [];
  for (const name of Object.keys(list ?? {}).sort()) {
    const p = `${path}[${name}]`;
    errs.push(...validateName(name, p), ...validateResourceQuantityValue(name, (list ?? {})[name] ?? 0, p));
  }
  return errs;
}
