/**
 * ServiceAccounts (core/v1). No defaults and no status; the `default` account of every namespace is
 * created by the serviceaccounts controller (src/controller/serviceaccount). The `token` subresource
 * is the TokenRequest API (serviceaccount-token.ts).
 *
 * Followed (v1.33): pkg/registry/core/serviceaccount/strategy.go, pkg/apis/core/validation/validation.go
 * (ValidateServiceAccount: the generic metadata checks only, done by the store),
 * pkg/printers/internalversion/printers.go (printServiceAccount: SECRETS is the number of secrets).
 */
import { SERVICE_ACCOUNTS } from '../../../api/catalogue/index.js';
import type { ServiceAccount } from '../../../api/index.js';
import { type ApiObject } from './helpers.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';
import { createToken } from './serviceaccount-token.js';

type ServiceAccountObject = ApiObject<ServiceAccount>;

/** The serviceaccounts strategy. */
export const serviceAccountStrategy: ResourceStrategy<ServiceAccountObject> = {
  info: resourceInfo(SERVICE_ACCOUNTS),
  hasStatus: false,
  defaults() {},
  prepareForCreate() {},
  prepareForUpdate() {},
  validate: () => [],
  validateUpdate: () => [],
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  storage: (ctx) => ({ subresources: { token: { create: (req) => createToken(ctx, ctx.serviceAccountTokens, req) } } }),
  table: {
    columns: [
      NAME_COLUMN,
      column(
        'Secrets',
        'string',
        'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Pods are only limited to this list if this service account has a "kubernetes.io/enforce-mountable-secrets" annotation set to "true". The "kubernetes.io/enforce-mountable-secrets" annotation is deprecated since v1.32. Prefer separate namespaces to isolate access to mounted secrets. This field should not be used to find auto-generated service account token secrets for use outside of pods. Instead, tokens can be requested directly using the TokenRequest API, or service account token secrets can be manually created. More info: https://kubernetes.io/docs/concepts/configuration/secret',
      ),
      AGE_COLUMN,
    ],
    row: (sa, now) => ({
      cells: [sa.metadata?.name ?? '', (sa.secrets ?? []).length, translateTimestampSince(sa.metadata?.creationTimestamp, now)],
    }),
  },
};
