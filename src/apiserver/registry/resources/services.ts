/**
 * Services (core/v1). Cluster IPs and node ports are allocated by the store's begin hooks
 * ({@link ServiceAllocator}); this strategy defaults, validates and prints.
 *
 * Followed (v1.33): pkg/apis/core/v1/defaults.go (SetDefaults_Service), pkg/registry/core/service/strategy.go
 * (PrepareForCreate resets status; updates keep it; the status strategy keeps spec; SelectableFields
 * spec.clusterIP and spec.type), pkg/apis/core/validation/validation.go (ValidateService,
 * ValidateServiceUpdate, ValidateServiceStatusUpdate), pkg/printers/internalversion/printers.go
 * (printService, getServiceExternalIP, makePortString).
 */
import { SERVICES } from '../../../api/catalogue/index.js';
import type { Service, ServicePort } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { selectorFromSet } from '../../../machinery/labels/index.js';
import { isDNS1123Label, isDNS1123Subdomain, validateLabels } from '../../../machinery/validation/index.js';
import { resetField, type ApiObject } from './helpers.js';
import { isValidPortName, isValidPortNum } from './pod-template.js';
import { parseIPv4, serviceStorage } from './service-allocator.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

type ServiceObject = ApiObject<Service>;

const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const SESSION_AFFINITIES = ['ClientIP', 'None'];
const TRAFFIC_POLICIES = ['Cluster', 'Local'];

/** A LoadBalancer or NodePort service, or a ClusterIP one with external IPs (service.ExternallyAccessible). */
function externallyAccessible(svc: Service): boolean {
  const spec = svc.spec ?? {};
  return spec.type === 'LoadBalancer' || spec.type === 'NodePort' || (spec.type === 'ClusterIP' && (spec.externalIPs ?? []).length > 0);
}

/**
 * SetDefaults_Service: sessionAffinity `None` (which drops sessionAffinityConfig), type `ClusterIP`,
 * each port's protocol `TCP` and targetPort its port when unset or 0/"", externalTrafficPolicy
 * `Cluster` for externally accessible services, internalTrafficPolicy `Cluster` for ClusterIP, NodePort
 * and LoadBalancer, allocateLoadBalancerNodePorts true for LoadBalancer.
 */
export function defaultService(svc: ServiceObject): void {
  const spec = (svc.spec ??= {});
  if (!spec.sessionAffinity) spec.sessionAffinity = 'None';
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (!spec.type) spec.type = 'ClusterIP';
  for (const p of spec.ports ?? []) {
    if (!p.protocol) p.protocol = 'TCP';
    if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  if (externallyAccessible(svc) && !spec.externalTrafficPolicy) spec.externalTrafficPolicy = 'Cluster';
  if (spec.internalTrafficPolicy == null && (spec.type === 'NodePort' || spec.type === 'LoadBalancer' || spec.type === 'ClusterIP')) {
    spec.internalTrafficPolicy = 'Cluster';
  }
  if (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts == null) spec.allocateLoadBalancerNodePorts = true;
}

/** A port's identity for duplicate detection: port number and protocol. */
function portKey(p: ServicePort): string {
  return `${p.port}/${p.protocol ?? 'TCP'}`;
}

function validatePorts(svc: Service): FieldError[] {
  const errs: FieldError[] = [];
  const spec = svc.spec ?? {};
  const ports = spec.ports ?? [];
  const names = new Set<string>();
  const keys = new Set<string>();
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    const path = `spec.ports[${i}]`;
    const name = p.name ?? '';
    if (ports.length > 1 && name === '') errs.push(field.required(`${path}.name`));
    else if (name !== '') {
      for (const msg of isDNS1123Label(name)) errs.push(field.invalid(`${path}.name`, name, msg));
      if (names.has(name)) errs.push(field.duplicate(`${path}.name`, name));
      names.add(name);
    }
    for (const msg of isValidPortNum(p.port)) errs.push(field.invalid(`${path}.port`, p.port, msg));
    if (!p.protocol) errs.push(field.required(`${path}.protocol`));
    else if (!PROTOCOLS.includes(p.protocol)) errs.push(field.notSupported(`${path}.protocol`, p.protocol, PROTOCOLS));
    const target = p.targetPort;
    if (typeof target === 'number') for (const msg of isValidPortNum(target)) errs.push(field.invalid(`${path}.targetPort`, target, msg));
    else if (typeof target === 'string') for (const msg of isValidPortName(target)) errs.push(field.invalid(`${path}.targetPort`, target, msg));
    if (p.nodePort && spec.type === 'ClusterIP') errs.push(field.forbidden(`${path}.nodePort`, "may not be used when `type` is 'ClusterIP'"));
    if (p.nodePort) {
      for (const msg of isValidPortNum(p.nodePort)) errs.push(field.invalid(`${path}.nodePort`, p.nodePort, msg));
      const nk = `${p.nodePort}/${p.protocol ?? 'TCP'}`;
      if (nodePorts.has(nk)) errs.push(field.duplicate(`${path}.nodePort`, p.nodePort));
      nodePorts.add(nk);
    }
    const key = portKey(p);
    if (keys.has(key)) errs.push(field.duplicate(path, { port: p.port, protocol: p.protocol ?? 'TCP' }));
    keys.add(key);
  });
  return errs;
}

/**
 * `ValidateService` (the parts a single-stack cluster exercises): the type, ports (required unless
 * headless or ExternalName; names, numbers, protocols, target ports, node ports only for NodePort and
 * LoadBalancer, duplicates), ExternalName's `externalName` and empty cluster IP, cluster IP syntax
 * (`must be empty, 'None', or a valid IP address`), headless only for ClusterIP, the selector's labels,
 * sessionAffinity and traffic policies.
 */
export function validateService(svc: Service): FieldError[] {
  const errs: FieldError[] = [];
  const spec = svc.spec ?? {};
  const type = spec.type ?? '';
  if (!SERVICE_TYPES.includes(type)) errs.push(field.notSupported('spec.type', type, SERVICE_TYPES));
  const headless = spec.clusterIP === 'None';
  if (type === 'ExternalName') {
    if (spec.clusterIP) errs.push(field.forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
    const name = (spec.externalName ?? '').replace(/\.$/, '');
    if (name === '') errs.push(field.required('spec.externalName'));
    else for (const msg of isDNS1123Subdomain(name)) errs.push(field.invalid('spec.externalName', spec.externalName, msg));
  } else {
    (spec.clusterIPs ?? (spec.clusterIP ? [spec.clusterIP] : [])).forEach((ip, i) => {
      if (ip === 'None' && i === 0) return;
      if (parseIPv4(ip) === undefined) errs.push(field.invalid(`spec.clusterIPs[${i}]`, ip, "must be empty, 'None', or a valid IP address"));
    });
    if (headless && type !== 'ClusterIP') errs.push(field.invalid('spec.clusterIPs[0]', 'None', `may not be set to 'None' for ${type} services`));
    if ((spec.ports ?? []).length === 0 && !headless) errs.push(field.required('spec.ports'));
  }
  errs.push(...validatePorts(svc));
  errs.push(...validateLabels(spec.selector ?? undefined, 'spec.selector'));
  if (spec.sessionAffinity && !SESSION_AFFINITIES.includes(spec.sessionAffinity)) {
    errs.push(field.notSupported('spec.sessionAffinity', spec.sessionAffinity, SESSION_AFFINITIES));
  }
  if (spec.externalTrafficPolicy && !TRAFFIC_POLICIES.includes(spec.externalTrafficPolicy)) {
    errs.push(field.notSupported('spec.externalTrafficPolicy', spec.externalTrafficPolicy, TRAFFIC_POLICIES));
  }
  if (spec.internalTrafficPolicy && !TRAFFIC_POLICIES.includes(spec.internalTrafficPolicy)) {
    errs.push(field.notSupported('spec.internalTrafficPolicy', spec.internalTrafficPolicy, TRAFFIC_POLICIES));
  }
  for (const [i, ip] of (spec.externalIPs ?? []).entries()) {
    if (parseIPv4(ip) === undefined) errs.push(field.invalid(`spec.externalIPs[${i}]`, ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
  }
  return errs;
}

/**
 * `ValidateServiceUpdate`: the cluster IP may not change once set (`spec.clusterIPs[0]: Invalid value:
 * "10.96.0.2": may not change once set`), except when the type changes to or from ExternalName.
 */
export function validateServiceUpdate(svc: Service, old: Service): FieldError[] {
  const errs: FieldError[] = [];
  const spec = svc.spec ?? {};
  const oldSpec = old.spec ?? {};
  if (spec.type !== 'ExternalName' && oldSpec.type !== 'ExternalName' && oldSpec.clusterIP && spec.clusterIP !== oldSpec.clusterIP) {
    errs.push(field.invalid('spec.clusterIPs[0]', spec.clusterIP ?? '', 'may not change once set'));
  }
  return [...errs, ...validateService(svc)];
}

/** `makePortString`: `80/TCP,443:30443/TCP`, or `<none>`. */
function makePortString(ports: readonly ServicePort[] | undefined): string {
  const list = ports ?? [];
  if (list.length === 0) return '<none>';
  return list.map((p) => (p.nodePort ? `${p.port}:${p.nodePort}/${p.protocol ?? ''}` : `${p.port}/${p.protocol ?? ''}`)).join(',');
}

/** `getServiceExternalIP` (wide or not, the same here): external IPs, load balancer ingress, `<pending>` or `<none>`. */
function externalIPCell(svc: Service): string {
  const spec = svc.spec ?? {};
  const external = spec.externalIPs ?? [];
  switch (spec.type) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const ingress = (svc.status?.loadBalancer?.ingress ?? []).map((i) => i.ip || i.hostname || '').filter(Boolean);
      const all = [...ingress, ...external];
      return all.length ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return spec.externalName ?? '';
    case undefined:
    default:
      return '<unknown>';
  }
}

/** The services strategy. */
export const serviceStrategy: ResourceStrategy<ServiceObject> = {
  info: resourceInfo(SERVICES),
  hasStatus: true,
  defaults: defaultService,
  prepareForCreate(svc) {
    svc.status = { loadBalancer: {} };
  },
  prepareForUpdate(svc, old) {
    resetField(svc, old, 'status');
  },
  prepareForStatusUpdate(svc, old) {
    resetField(svc, old, 'spec');
  },
  validate: validateService,
  validateUpdate: validateServiceUpdate,
  validateStatusUpdate: () => [],
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  storage: serviceStorage,
  fieldSelectors: {
    'spec.clusterIP': (svc) => svc.spec?.clusterIP ?? '',
    'spec.type': (svc) => svc.spec?.type ?? '',
  },
  table: {
    columns: [
      NAME_COLUMN,
      column('Type', 'string', 'type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer.'),
      column('Cluster-IP', 'string', 'clusterIP is the IP address of the service and is usually assigned randomly.'),
      column('External-IP', 'string', 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.'),
      column('Port(s)', 'string', 'The list of ports that are exposed by this service.'),
      AGE_COLUMN,
      column('Selector', 'string', 'Route service traffic to pods with label keys and values matching this selector.', 1),
    ],
    row: (svc, now) => {
      const spec = svc.spec ?? {};
      const selector = spec.selector && Object.keys(spec.selector).length > 0 ? selectorFromSet(spec.selector).toString() : '<none>';
      return {
        cells: [
          svc.metadata?.name ?? '',
          spec.type ?? '',
          spec.clusterIP || '<none>',
          externalIPCell(svc),
          makePortString(spec.ports),
          translateTimestampSince(svc.metadata?.creationTimestamp, now),
          selector,
        ],
      };
    },
  },
};
