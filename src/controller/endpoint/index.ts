/** The endpoints controller and the helpers it shares with the endpointslice controller. */
export { DEFAULT_ENDPOINT_WORKERS, EndpointsController, endpointSubsets, endpointsLabels, type EndpointsControllerOptions } from './endpoints-controller.js';
export {
  LABEL_HEADLESS,
  findPort,
  handleServicesAndPods,
  hasSelector,
  isReadyForService,
  podEndpointsChanged,
  podServiceMemberships,
  shouldPodBeInEndpoints,
  shouldSetHostname,
  type ServicePodInformers,
} from './endpoint-util.js';
