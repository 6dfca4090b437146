/** The endpoints controller (its helpers shared with the endpointslice controller are in ../endpoint-util.ts). */
export { DEFAULT_ENDPOINT_WORKERS, EndpointsController, endpointSubsets, endpointsLabels, type EndpointsControllerOptions } from './endpoints-controller.js';
