/**
 * IPAddresses (networking.k8s.io/v1, cluster-scoped): one object per allocated service IP, named by
 * the IP in canonical form, pointing at its owner through `spec.parentRef`.
 *
 * Followed (v1.33): pkg/apis/networking/validation/validation.go (ValidateIPAddressName,
 * ValidateIPAddress, validateIPAddressParentReference, ValidateIPAddressUpdate),
 * pkg/registry/networking/ipaddress/strategy.go, pkg/printers/internalversion/printers.go
 * (printIPAddress: two columns, NAME and PARENTREF; the row also carries the age, which kubectl does not show).
 *
 * Not done here: upstream's service IP allocator (MultiCIDRServiceAllocator, GA and on in 1.33)
 * creates an IPAddress for every ClusterIP it hands out and deletes it when the Service goes; the
 * allocator here derives what is in use from the stored Services (service-allocator.ts) and creates none.
 */
import { IP_ADDRESSES } from '../../../api/catalogue/index.js';
import type { IPAddress } from '../../../api/index.js';
import { field, GoSyntax, goQuote, type FieldError } from '../../../machinery/errors/index.js';
import { isDNS1123Subdomain, isValidIP, isValidPathSegmentName } from '../../../machinery/validation/index.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { semanticDeepEqual, type ApiObject } from './helpers.js';
import { NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

type IPAddressObject = ApiObject<IPAddress>;
type ParentReference = NonNullable<IPAddress['spec']>['parentRef'];

/** `ValidateIPAddressName`: the name is an IP address in canonical form (`IsValidIP`'s messages). */
export function validateIPAddressName(name: string): string[] {
  return isValidIP('metadata.name', name).map((e) => e.detail);
}

/** `validateIPAddressParentReference`: required; group a DNS subdomain when set; resource and name required path segments; namespace a path segment when set. */
function validateParentReference(ref: ParentReference | undefined | null): FieldError[] {
  const path = 'spec.parentRef';
  if (ref == null) return [field.required(path)];
  const errs: FieldError[] = [];
  if (ref.group) errs.push(...isDNS1123Subdomain(ref.group).map((msg) => field.invalid(`${path}.group`, ref.group, msg)));
  for (const key of ['resource', 'name'] as const) {
    const value = ref[key] ?? '';
    if (value === '') errs.push(field.required(`${path}.${key}`));
    else errs.push(...isValidPathSegmentName(value).map((msg) => field.invalid(`${path}.${key}`, value, msg)));
  }
  if (ref.namespace) errs.push(...isValidPathSegmentName(ref.namespace).map((msg) => field.invalid(`${path}.namespace`, ref.namespace, msg)));
  return errs;
}

/** `ValidateIPAddress` without the generic ObjectMeta checks (the name rule is {@link validateIPAddressName}). */
export function validateIPAddress(ip: IPAddress): FieldError[] {
  return validateParentReference(ip.spec?.parentRef);
}

/** Go's `%#v` of the internal `networking.ParentReference`, as an immutable-field error shows it (`"null"` when nil, as ErrorBody prints a nil pointer). */
function goParentReference(ref: ParentReference | undefined | null): string {
  if (ref == null) return goQuote('null');
  const f = (v: string | undefined): string => goQuote(v ?? '');
  return `networking.ParentReference{Group:${f(ref.group)}, Resource:${f(ref.resource)}, Namespace:${f(ref.namespace)}, Name:${f(ref.name)}}`;
}

/** `ValidateIPAddressUpdate` (after the create rules): the parent reference is immutable. */
function validateIPAddressUpdate(ip: IPAddress, old: IPAddress): FieldError[] {
  const errs = validateIPAddress(ip);
  if (!semanticDeepEqual(ip.spec?.parentRef, old.spec?.parentRef)) errs.push(field.invalid('spec.parentRef', new GoSyntax(goParentReference(ip.spec?.parentRef)), 'field is immutable'));
  return errs;
}

/** `printIPAddress`'s PARENTREF cell: `services/default/kubernetes`, `<group-resource>/<name>` for cluster-scoped parents, or `<none>`. */
function parentRefCell(ip: IPAddress): string {
  const ref = ip.spec?.parentRef;
  if (!ref) return '<none>';
  const gr = ref.group ? `${ref.resource}.${ref.group}` : ref.resource;
  return `${gr.toLowerCase()}${ref.namespace ? `/${ref.namespace}` : ''}/${ref.name}`;
}

/** The IPAddress strategy. */
export const ipAddressStrategy: ResourceStrategy<IPAddressObject> = {
  info: resourceInfo(IP_ADDRESSES),
  hasStatus: false,
  nameValidator: validateIPAddressName,
  defaults() {},
  prepareForCreate() {},
  prepareForUpdate() {},
  validate: validateIPAddress,
  validateUpdate: validateIPAddressUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  table: {
    columns: [NAME_COLUMN, column('ParentRef', 'string', 'ParentRef references the resource that an IPAddress is attached to. An IPAddress must reference a parent object.')],
    row: (ip, now) => ({ cells: [ip.metadata?.name ?? '', parentRefCell(ip), translateTimestampSince(ip.metadata?.creationTimestamp, now)] }),
  },
};
