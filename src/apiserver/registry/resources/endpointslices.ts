/**
 * EndpointSlices (discovery.k8s.io/v1), kept by the endpointslice controller
 * (src/controller/endpointslice) for services with a selector.
 *
 * Followed (v1.33): pkg/apis/discovery/v1/defaults.go (SetDefaults_EndpointPort: name "" and protocol
 * TCP), pkg/apis/discovery/validation/validation.go (ValidateEndpointSlice, ValidateEndpointSliceUpdate:
 * addressType is immutable), pkg/printers/internalversion/printers.go (printEndpointSlice,
 * formatDiscoveryPorts, formatDiscoveryEndpoints).
 */
import { ENDPOINT_SLICES } from '../../../api/catalogue/index.js';
import type { EndpointSlice } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { isDNS1123Subdomain } from '../../../machinery/validation/index.js';
import { validateImmutableField, type ApiObject } from './helpers.js';
import { isValidPortNum } from './pod-template.js';
import { parseIPv4 } from './service-allocator.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

type EndpointSliceObject = ApiObject<EndpointSlice>;

const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
/** Upstream's maxEndpoints / maxPorts / maxAddresses per slice. */
const MAX_ENDPOINTS = 1000;
const MAX_PORTS = 20000;
const MAX_ADDRESSES = 100;

/** SetDefaults_EndpointPort: `name: ""` and `protocol: TCP` when unset. */
export function defaultEndpointSlice(slice: EndpointSliceObject): void {
  for (const p of slice.ports ?? []) {
    p.name ??= '';
    p.protocol ??= 'TCP';
  }
}

/** `ValidateEndpointSlice`: address type, endpoints (1–100 addresses valid for the type), ports. */
export function validateEndpointSlice(slice: EndpointSlice): FieldError[] {
  const errs: FieldError[] = [];
  const type = slice.addressType ?? '';
  if (type === '') errs.push(field.required('addressType'));
  else if (!ADDRESS_TYPES.includes(type)) errs.push(field.notSupported('addressType', type, ADDRESS_TYPES));
  const endpoints = slice.endpoints ?? [];
  if (endpoints.length > MAX_ENDPOINTS) errs.push(field.tooMany('endpoints', endpoints.length, MAX_ENDPOINTS));
  endpoints.forEach((ep, i) => {
    const addrs = ep.addresses ?? [];
    if (addrs.length === 0) errs.push(field.required(`endpoints[${i}].addresses`, 'must contain at least 1 address'));
    else if (addrs.length > MAX_ADDRESSES) errs.push(field.tooMany(`endpoints[${i}].addresses`, addrs.length, MAX_ADDRESSES));
    addrs.forEach((a, j) => {
      const path = `endpoints[${i}].addresses[${j}]`;
      if (type === 'IPv4' && parseIPv4(a) === undefined) errs.push(field.invalid(path, a, 'must be a valid IPv4 address'));
      if (type === 'FQDN') for (const msg of isDNS1123Subdomain(a)) errs.push(field.invalid(path, a, msg));
    });
  });
  const ports = slice.ports ?? [];
  if (ports.length > MAX_PORTS) errs.push(field.tooMany('ports', ports.length, MAX_PORTS));
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const name = p.name ?? '';
    if (names.has(name)) errs.push(field.duplicate(`ports[${i}].name`, name));
    names.add(name);
    if (p.port != null) for (const msg of isValidPortNum(p.port)) errs.push(field.invalid(`ports[${i}].port`, p.port, msg));
    if (p.protocol == null) errs.push(field.required(`ports[${i}].protocol`));
    else if (!PROTOCOLS.includes(p.protocol)) errs.push(field.notSupported(`ports[${i}].protocol`, p.protocol, PROTOCOLS));
  });
  return errs;
}

/** The first three items, then ` + N more...`; `<unset>` for none (listWithMoreString). */
function listWithMore(items: string[]): string {
  const max = 3;
  if (items.length > max) return `${items.slice(0, max).join(',')} + ${items.length - max} more...`;
  return items.length ? items.join(',') : '<unset>';
}

/** The endpointslices strategy. */
export const endpointSliceStrategy: ResourceStrategy<EndpointSliceObject> = {
  info: resourceInfo(ENDPOINT_SLICES),
  hasStatus: false,
  defaults: defaultEndpointSlice,
  prepareForCreate() {},
  prepareForUpdate() {},
  validate: validateEndpointSlice,
  validateUpdate: (slice, old) => [...validateImmutableField(slice.addressType, old.addressType, 'addressType'), ...validateEndpointSlice(slice)],
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  table: {
    columns: [
      NAME_COLUMN,
      column('AddressType', 'string', 'addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must be the same type.'),
      column('Ports', 'string', 'ports specifies the list of network ports exposed by each endpoint in this slice.'),
      column('Endpoints', 'string', 'endpoints is a list of unique endpoints in this slice.'),
      AGE_COLUMN,
    ],
    row: (slice, now) => ({
      cells: [
        slice.metadata?.name ?? '',
        slice.addressType ?? '',
        listWithMore((slice.ports ?? []).map((p) => (p.port != null ? String(p.port) : p.name ? p.name : '*'))),
        listWithMore((slice.endpoints ?? []).flatMap((e) => e.addresses ?? [])),
        translateTimestampSince(slice.metadata?.creationTimestamp, now),
      ],
    }),
  },
};
