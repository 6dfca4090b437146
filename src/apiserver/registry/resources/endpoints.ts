/**
 * Endpoints (core/v1), kept by the endpoints controller (src/controller/endpoint) for services with a
 * selector.
 *
 * Followed (v1.33): pkg/apis/core/v1/defaults.go (SetDefaults_Endpoints: port protocol TCP),
 * pkg/apis/core/validation/validation.go (ValidateEndpoints, validateEndpointSubsets, validateEndpointPort),
 * pkg/printers/internalversion/printers.go (printEndpoints, formatEndpoints).
 */
import { ENDPOINTS } from '../../../api/catalogue/index.js';
import type { Endpoints, EndpointSubset } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { isDNS1123Label } from '../../../machinery/validation/index.js';
import { type ApiObject } from './helpers.js';
import { isValidPortNum } from './pod-template.js';
import { parseIPv4 } from './service-allocator.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

type EndpointsObject = ApiObject<Endpoints>;

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

/** SetDefaults_Endpoints: each port's protocol is TCP when unset. */
export function defaultEndpoints(ep: EndpointsObject): void {
  for (const ss of ep.subsets ?? []) for (const p of ss.ports ?? []) if (!p.protocol) p.protocol = 'TCP';
}

/**
 * `validateEndpointSubsets`: at least one address per subset (ready or not), valid IPv4 addresses,
 * ports named when there are several (DNS labels, unique), numbers 1–65535 and TCP/UDP/SCTP.
 */
export function validateEndpoints(ep: Endpoints): FieldError[] {
  const errs: FieldError[] = [];
  (ep.subsets ?? []).forEach((ss: EndpointSubset, i) => {
    const path = `subsets[${i}]`;
    const addresses = ss.addresses ?? [];
    const notReady = ss.notReadyAddresses ?? [];
    if (addresses.length === 0 && notReady.length === 0) errs.push(field.required(path, 'must specify `addresses` or `notReadyAddresses`'));
    for (const [kind, list] of [['addresses', addresses], ['notReadyAddresses', notReady]] as const) {
      list.forEach((a, j) => {
        if (parseIPv4(a.ip) === undefined) errs.push(field.invalid(`${path}.${kind}[${j}].ip`, a.ip, 'must be a valid IP address'));
      });
    }
    const ports = ss.ports ?? [];
    const names = new Set<string>();
    ports.forEach((p, j) => {
      const pp = `${path}.ports[${j}]`;
      const name = p.name ?? '';
      if (ports.length > 1 && name === '') errs.push(field.required(`${pp}.name`));
      else if (name !== '') {
        for (const msg of isDNS1123Label(name)) errs.push(field.invalid(`${pp}.name`, name, msg));
        if (names.has(name)) errs.push(field.duplicate(`${pp}.name`, name));
        names.add(name);
      }
      for (const msg of isValidPortNum(p.port)) errs.push(field.invalid(`${pp}.port`, p.port, msg));
      if (!p.protocol) errs.push(field.required(`${pp}.protocol`));
      else if (!PROTOCOLS.includes(p.protocol)) errs.push(field.notSupported(`${pp}.protocol`, p.protocol, PROTOCOLS));
    });
  });
  return errs;
}

/** `formatEndpoints`: `ip:port` pairs (bare IPs for port-less subsets), the first 3 and `+ N more...`; `<none>`. */
export function formatEndpoints(ep: Endpoints): string {
  const subsets = ep.subsets ?? [];
  if (subsets.length === 0) return '<none>';
  const max = 3;
  const list: string[] = [];
  let count = 0;
  let more = false;
  for (const ss of subsets) {
    const addresses = ss.addresses ?? [];
    const ports = ss.ports ?? [];
    const pairs = ports.length === 0 ? [undefined] : ports.map((p) => p.port);
    for (const port of pairs) {
      count += addresses.length;
      for (const a of addresses) {
        if (list.length === max) {
          more = true;
          break;
        }
        list.push(port === undefined ? a.ip : `${a.ip}:${port}`);
      }
    }
  }
  const joined = list.join(',');
  return more ? `${joined} + ${count - max} more...` : joined;
}

/** The endpoints strategy. */
export const endpointsStrategy: ResourceStrategy<EndpointsObject> = {
  info: resourceInfo(ENDPOINTS),
  hasStatus: false,
  defaults: defaultEndpoints,
  prepareForCreate() {},
  prepareForUpdate() {},
  validate: validateEndpoints,
  validateUpdate: validateEndpoints,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  table: {
    columns: [NAME_COLUMN, column('Endpoints', 'string', 'Endpoints of the service'), AGE_COLUMN],
    row: (ep, now) => ({ cells: [ep.metadata?.name ?? '', formatEndpoints(ep), translateTimestampSince(ep.metadata?.creationTimestamp, now)] }),
  },
};
