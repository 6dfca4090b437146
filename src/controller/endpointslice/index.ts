/** The endpointslice controller. */
export {
  CONTROLLER_NAME,
  DEFAULT_ENDPOINTSLICE_WORKERS,
  EndpointSliceController,
  LABEL_MANAGED_BY,
  LABEL_SERVICE_NAME,
  MAX_ENDPOINTS_PER_SLICE,
  desiredSlices,
  endpointPorts,
  podToEndpoint,
  sliceLabels,
  type EndpointSliceControllerOptions,
} from './endpointslice-controller.js';
