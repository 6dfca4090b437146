/** The resource quota controller. */
export {
  DEFAULT_RESOURCE_QUOTA_SYNC_PERIOD_MS,
  DEFAULT_RESOURCE_QUOTA_WORKERS,
  ResourceQuotaController,
  type ResourceQuotaControllerOptions,
} from './resource-quota-controller.js';
