/**
 * NetworkPolicies (networking.k8s.io/v1): which traffic the selected pods accept and send. Stored and
 * validated only; nothing here enforces them (upstream leaves that to the network plugin too).
 *
 * Followed (v1.33): pkg/apis/networking/v1/defaults.go (SetDefaults_NetworkPolicy: policyTypes
 * `[Ingress]`, plus `Egress` when there are egress rules; SetDefaults_NetworkPolicyPort: protocol TCP),
 * pkg/apis/networking/validation/validation.go (ValidateNetworkPolicy, ValidateNetworkPolicyUpdate,
 * ValidateNetworkPolicyPort, ValidateNetworkPolicyPeer, ValidateIPBlock), pkg/registry/networking/
 * networkpolicy/strategy.go, pkg/printers/internalversion/printers.go (printNetworkPolicy).
 *
 * Not done here: upstream's tolerance, on update, of invalid label values already stored in the pod
 * selector (AllowInvalidLabelValueInSelector).
 */
import { NETWORK_POLICIES } from '../../../api/catalogue/index.js';
import type { NetworkPolicy } from '../../../api/index.js';
import { field, goStringSlice, type FieldError } from '../../../machinery/errors/index.js';
import { formatLabelSelector } from '../../../machinery/labels/index.js';
import { cidrContains, parseCIDRSloppy } from '../../../machinery/netutils/index.js';
import { isValidCIDRForLegacyField, validateLabelSelector } from '../../../machinery/validation/index.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { bumpGenerationIf, semanticDeepEqual, type ApiObject } from './helpers.js';
import { isValidPortName, isValidPortNum } from './pod-template.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

type NetworkPolicyObject = ApiObject<NetworkPolicy>;
type NetworkPolicySpec = NonNullable<NetworkPolicy['spec']>;
type Port = NonNullable<NonNullable<NetworkPolicySpec['ingress']>[number]['ports']>[number];
type Peer = NonNullable<NonNullable<NetworkPolicySpec['ingress']>[number]['from']>[number];
type IPBlock = NonNullable<Peer['ipBlock']>;

const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const POLICY_TYPES = ['Ingress', 'Egress'];

/** `SetDefaults_NetworkPolicy` and `SetDefaults_NetworkPolicyPort`. */
export function defaultNetworkPolicy(np: NetworkPolicyObject): void {
  const spec = (np.spec ??= { podSelector: {} });
  for (const rule of [...(spec.ingress ?? []), ...(spec.egress ?? [])]) for (const port of rule.ports ?? []) port.protocol ??= 'TCP';
  if ((spec.policyTypes ?? []).length === 0) spec.policyTypes = (spec.egress ?? []).length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
}

/** `ValidateNetworkPolicyPort`: protocol TCP/UDP/SCTP; a numeric port 1–65535 with an optional endPort ≥ port, or a port name without endPort. */
function validatePort(port: Port, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (port.protocol != null && !PROTOCOLS.includes(port.protocol)) errs.push(field.notSupported(`${path}.protocol`, port.protocol, PROTOCOLS));
  const { port: p, endPort } = port;
  if (p == null) {
    if (endPort != null) errs.push(field.invalid(`${path}.endPort`, endPort, 'may not be specified when `port` is not specified'));
  } else if (typeof p === 'number') {
    errs.push(...isValidPortNum(p).map((msg) => field.invalid(`${path}.port`, p, msg)));
    if (endPort != null) {
      if (endPort < p) errs.push(field.invalid(`${path}.endPort`, endPort, 'must be greater than or equal to `port`'));
      errs.push(...isValidPortNum(endPort).map((msg) => field.invalid(`${path}.endPort`, endPort, msg)));
    }
  } else {
    if (endPort != null) errs.push(field.invalid(`${path}.endPort`, endPort, 'may not be specified when `port` is non-numeric'));
    errs.push(...isValidPortName(p).map((msg) => field.invalid(`${path}.port`, p, msg)));
  }
  return errs;
}

/** `ValidateIPBlock`: a CIDR (or one already stored), and each `except` a strict subset of it. */
function validateIPBlock(block: IPBlock, path: string, validOld: readonly string[]): FieldError[] {
  if (!block.cidr) return [field.required(`${path}.cidr`)];
  const errs = isValidCIDRForLegacyField(`${path}.cidr`, block.cidr, validOld);
  const cidr = parseCIDRSloppy(block.cidr);
  if (!cidr) return errs;
  (block.except ?? []).forEach((text, i) => {
    const p = `${path}.except[${i}]`;
    errs.push(...isValidCIDRForLegacyField(p, text, validOld));
    const except = parseCIDRSloppy(text);
    if (except && (!cidrContains(cidr, except.network) || cidr.prefix >= except.prefix)) errs.push(field.invalid(p, text, 'must be a strict subset of `cidr`'));
  });
  return errs;
}

/** `ValidateNetworkPolicyPeer`: at least one of the selectors and ipBlock, and ipBlock alone. */
function validatePeer(peer: Peer, path: string, validOld: readonly string[]): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  if (peer.podSelector) {
    count++;
    errs.push(...validateLabelSelector(peer.podSelector, `${path}.podSelector`));
  }
  if (peer.namespaceSelector) {
    count++;
    errs.push(...validateLabelSelector(peer.namespaceSelector, `${path}.namespaceSelector`));
  }
  if (peer.ipBlock) {
    count++;
    errs.push(...validateIPBlock(peer.ipBlock, `${path}.ipBlock`, validOld));
  }
  if (count === 0) errs.push(field.required(path, 'must specify a peer'));
  else if (count > 1 && peer.ipBlock) errs.push(field.forbidden(path, 'may not specify both ipBlock and another peer'));
  return errs;
}

/** `ValidateNetworkPolicySpec`: the pod selector, every rule's ports and peers, at most two known policy types. */
function validateSpec(spec: NetworkPolicySpec, validOld: readonly string[]): FieldError[] {
  const errs = validateLabelSelector(spec.podSelector, 'spec.podSelector');
  const rules = [
    ...(spec.ingress ?? []).map((r, i) => ({ path: `spec.ingress[${i}]`, ports: r.ports, peers: r.from, peerKey: 'from' })),
    ...(spec.egress ?? []).map((r, i) => ({ path: `spec.egress[${i}]`, ports: r.ports, peers: r.to, peerKey: 'to' })),
  ];
  for (const rule of rules) {
    (rule.ports ?? []).forEach((port, j) => errs.push(...validatePort(port, `${rule.path}.ports[${j}]`)));
    (rule.peers ?? []).forEach((peer, j) => errs.push(...validatePeer(peer, `${rule.path}.${rule.peerKey}[${j}]`, validOld)));
  }
  const types = spec.policyTypes ?? [];
  if (types.length > POLICY_TYPES.length) {
    return [...errs, field.invalid('spec.policyTypes', goStringSlice(types, '[]networking.PolicyType'), 'may not specify more than two policyTypes')];
  }
  types.forEach((t, i) => {
    if (!POLICY_TYPES.includes(t)) errs.push(field.notSupported(`spec.policyTypes[${i}]`, t, POLICY_TYPES));
  });
  return errs;
}

/** `ValidateNetworkPolicy` without the generic ObjectMeta checks. */
export function validateNetworkPolicy(np: NetworkPolicy): FieldError[] {
  return validateSpec(np.spec ?? { podSelector: {} }, []);
}

/** The CIDRs of the stored policy's ipBlocks, which an update may keep even if they are not valid today. */
function storedCIDRs(np: NetworkPolicy): string[] {
  const peers = [...(np.spec?.ingress ?? []).flatMap((r) => r.from ?? []), ...(np.spec?.egress ?? []).flatMap((r) => r.to ?? [])];
  return peers.flatMap((p) => (p.ipBlock ? [p.ipBlock.cidr, ...(p.ipBlock.except ?? [])] : []));
}

/** `ValidateNetworkPolicyUpdate`. */
export function validateNetworkPolicyUpdate(np: NetworkPolicy, old: NetworkPolicy): FieldError[] {
  return validateSpec(np.spec ?? { podSelector: {} }, storedCIDRs(old));
}

/** `extensionsv1beta1.NetworkPolicySpec{}.SwaggerDoc()["podSelector"]`. */
const POD_SELECTOR_DESCRIPTION =
  'Selects the pods to which this NetworkPolicy object applies.  The array of ingress rules is applied to any pods selected by this field. Multiple network policies can select the same set of pods.  In this case, the ingress rules for each are combined additively. This field is NOT optional and follows standard label selector semantics. An empty podSelector matches all pods in this namespace.';

/** The NetworkPolicy strategy. */
export const networkPolicyStrategy: ResourceStrategy<NetworkPolicyObject> = {
  info: resourceInfo(NETWORK_POLICIES),
  hasStatus: false,
  defaults: defaultNetworkPolicy,
  prepareForCreate(np) {
    (np.metadata ??= {}).generation = 1;
  },
  prepareForUpdate(np, old) {
    bumpGenerationIf(np, old, !semanticDeepEqual(np.spec, old.spec));
  },
  validate: validateNetworkPolicy,
  validateUpdate: validateNetworkPolicyUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  table: {
    columns: [NAME_COLUMN, column('Pod-Selector', 'string', POD_SELECTOR_DESCRIPTION), AGE_COLUMN],
    row: (np, now) => ({ cells: [np.metadata?.name ?? '', formatLabelSelector(np.spec?.podSelector), translateTimestampSince(np.metadata?.creationTimestamp, now)] }),
  },
};
