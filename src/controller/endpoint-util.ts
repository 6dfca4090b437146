/**
 * What the endpoints and endpointslice controllers share: which services select a pod, whether a pod
 * belongs in a service's endpoints, the port a service port targets on a pod, and whether a pod
 * change can matter to endpoints at all.
 *
 * Followed (v1.33): pkg/controller/util/endpoint/controller_utils.go (ShouldPodBeInEndpoints,
 * GetPodServiceMemberships, podEndpointsChanged, ShouldSetHostname), pkg/api/v1/pod/util.go (FindPort).
 */
import type { Pod, Service, ServicePort } from '../api/index.js';
import { selectorFromSet } from '../machinery/labels/index.js';
import { DeletedFinalStateUnknown, type Lister, type SharedIndexInformer } from '../informers/index.js';
import { metaNamespaceKey } from '../machinery/meta/index.js';
import { isPodReady } from './controller-utils.js';

/** The label marking endpoints of headless services (`v1.IsHeadlessService`). */
export const LABEL_HEADLESS = 'service.kubernetes.io/headless';

/** True for a service the endpoint controllers manage: a selector, and not ExternalName. */
export function hasSelector(svc: Service): boolean {
  return svc.spec?.selector != null && svc.spec.type !== 'ExternalName';
}

/**
 * `ShouldPodBeInEndpoints`: a pod with an IP that is not finished (Succeeded/Failed; a pod whose
 * restartPolicy Never/OnFailure lets it finish counts as such too once it has) and, unless
 * `includeTerminating`, not being deleted.
 */
export function shouldPodBeInEndpoints(pod: Pod, includeTerminating: boolean): boolean {
  if (!pod.status?.podIP) return false;
  const phase = pod.status.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  if (!includeTerminating && pod.metadata?.deletionTimestamp) return false;
  return true;
}

/**
 * `FindPort`: the port number a service port targets on the pod: a number as is; a name looked up
 * among the containers' ports of the same protocol. Undefined when the name is not found.
 */
export function findPort(pod: Pod, svcPort: ServicePort): number | undefined {
  const target = svcPort.targetPort ?? svcPort.port;
  if (typeof target === 'number') return target;
  const asNumber = Number(target);
  if (target !== '' && Number.isInteger(asNumber)) return asNumber;
  const protocol = svcPort.protocol ?? 'TCP';
  for (const c of pod.spec?.containers ?? []) {
    for (const p of c.ports ?? []) if (p.name === target && (p.protocol ?? 'TCP') === protocol) return p.containerPort;
  }
  return undefined;
}

/** `GetPodServiceMemberships`: keys (`ns/name`) of the services of the pod's namespace whose selector matches it. */
export function podServiceMemberships(services: Lister<Service>, pod: Pod): Set<string> {
  const ns = pod.metadata?.namespace ?? '';
  const keys = new Set<string>();
  for (const svc of services.namespace(ns).list()) {
    // Selector-less services are not managed by the endpoint controllers.
    if (!hasSelector(svc)) continue;
    if (selectorFromSet(svc.spec?.selector).matches(pod.metadata?.labels)) keys.add(`${ns}/${svc.metadata?.name ?? ''}`);
  }
  return keys;
}

/**
 * `podEndpointsChanged`: whether an update of a pod can change endpoints (IPs, readiness, deletion,
 * node, hostname/subdomain, container ports) — and whether its labels changed, which can move it
 * between services. Status heartbeats and other updates need no resync.
 */
export function podEndpointsChanged(oldPod: Pod, newPod: Pod): { labelsChanged: boolean; changed: boolean } {
  const labelsChanged = JSON.stringify(oldPod.metadata?.labels ?? {}) !== JSON.stringify(newPod.metadata?.labels ?? {});
  if (labelsChanged) return { labelsChanged, changed: true };
  const changed =
    oldPod.status?.podIP !== newPod.status?.podIP ||
    isPodReady(oldPod) !== isPodReady(newPod) ||
    !!oldPod.metadata?.deletionTimestamp !== !!newPod.metadata?.deletionTimestamp ||
    oldPod.spec?.nodeName !== newPod.spec?.nodeName ||
    oldPod.spec?.hostname !== newPod.spec?.hostname ||
    oldPod.spec?.subdomain !== newPod.spec?.subdomain ||
    oldPod.status?.phase !== newPod.status?.phase ||
    JSON.stringify(oldPod.spec?.containers?.map((c) => c.ports)) !== JSON.stringify(newPod.spec?.containers?.map((c) => c.ports));
  return { labelsChanged, changed };
}

/** `ShouldSetHostname`: the pod has a hostname and its subdomain is the service's name, in the same namespace. */
export function shouldSetHostname(pod: Pod, svc: Service): boolean {
  return !!pod.spec?.hostname && pod.spec.subdomain === svc.metadata?.name && pod.metadata?.namespace === svc.metadata?.namespace;
}

/** The ready-or-publishable decision of both controllers: Ready pods, or all when `publishNotReadyAddresses`. */
export function isReadyForService(pod: Pod, svc: Service): boolean {
  return isPodReady(pod) || svc.spec?.publishNotReadyAddresses === true;
}

/** The informers both endpoint controllers watch. */
export interface ServicePodInformers {
  core: {
    services(): SharedIndexInformer<Service>;
    pods(): SharedIndexInformer<Pod>;
  };
}

/**
 * Registers the service and pod handlers the endpoints and endpointslice controllers share
 * (`onServiceUpdate`/`onServiceDelete`, `addPod`/`updatePod`/`deletePod`): every service change
 * enqueues the service; a pod change that can matter enqueues the services selecting the pod, and on
 * a label change also those that selected it before.
 */
export function handleServicesAndPods(informers: ServicePodInformers, enqueue: (key: string) => void): void {
  const services = informers.core.services().lister();
  const unwrap = <T>(obj: T | DeletedFinalStateUnknown<T>): T => (obj instanceof DeletedFinalStateUnknown ? obj.obj : obj);
  informers.core.services().addEventHandler({
    add: (svc) => enqueue(metaNamespaceKey(svc)),
    update: (_old, svc) => enqueue(metaNamespaceKey(svc)),
    delete: (obj) => enqueue(metaNamespaceKey(unwrap(obj))),
  });
  const enqueuePod = (pod: Pod): void => podServiceMemberships(services, pod).forEach(enqueue);
  informers.core.pods().addEventHandler({
    add: enqueuePod,
    update: (oldPod, pod) => {
      const { labelsChanged, changed } = podEndpointsChanged(oldPod, pod);
      if (!changed) return;
      const keys = podServiceMemberships(services, pod);
      if (labelsChanged) podServiceMemberships(services, oldPod).forEach((k) => keys.add(k));
      keys.forEach(enqueue);
    },
    delete: (obj) => enqueuePod(unwrap(obj)),
  });
}
