/** The serviceaccounts controller. */
export {
  DEFAULT_SERVICE_ACCOUNTS,
  DEFAULT_SERVICE_ACCOUNT_WORKERS,
  ServiceAccountsController,
  type ServiceAccountsControllerOptions,
} from './serviceaccounts-controller.js';
