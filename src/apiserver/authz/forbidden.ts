/**
 * The authorization filter's answer to a request the authorizer does not allow: 403 Forbidden worded
 * as upstream's, e.g. `pods is forbidden: User "jane" cannot list resource "pods" in API group "" in
 * the namespace "default"` (kubectl prints it after `Error from server (Forbidden): `).
 *
 * Upstream (v1.33): k8s.io/apiserver pkg/endpoints/filters/authorization.go (`WithAuthorization`: only
 * Allow passes; the 403 carries the authorizer's reason — RBAC reports a binding to a missing role in
 * its reason, not as an error, so it never turns into a server error), pkg/endpoints/handlers/
 * responsewriters/errors.go (`ForbiddenStatusError`, `forbiddenMessage`, the HTML-escaping sanitizer).
 */
import { goQuote, newForbidden, type StatusError } from '../../machinery/errors/index.js';
import type { Attributes, Authorizer } from './types.js';

/** errors.go's sanitizer: `&`, `<` and `>` are escaped so a message never looks like HTML. */
function sanitize(s: string): string {
  return s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** `forbiddenMessage`: what `attrs.user` may not do. */
export function forbiddenMessage(attrs: Attributes): string {
  const username = attrs.user?.username ?? '';
  if (!attrs.resourceRequest) return `User ${goQuote(username)} cannot ${attrs.verb} path ${goQuote(attrs.path)}`;
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const where = attrs.namespace ? `in the namespace ${goQuote(attrs.namespace)}` : 'at the cluster scope';
  return `User ${goQuote(username)} cannot ${attrs.verb} resource ${goQuote(resource)} in API group ${goQuote(attrs.apiGroup)} ${where}`;
}

/** `ForbiddenStatusError`: the 403 for `attrs`, with the authorizer's reason after a colon when it gave one. */
export function forbiddenError(attrs: Attributes, reason: string): StatusError {
  const msg = sanitize(forbiddenMessage(attrs));
  return newForbidden({ group: attrs.apiGroup, resource: attrs.resource }, attrs.name, reason ? `${msg}: ${reason}` : msg);
}

/**
 * Authorizes `attrs`: resolves when the authorizer allows, else throws the 403 of {@link forbiddenError}
 * with the authorizer's reason.
 * @throws StatusError 403 Forbidden
 */
export async function authorizeOrForbid(authorizer: Authorizer, attrs: Attributes): Promise<void> {
  const res = await authorizer.authorize(attrs);
  if (res.decision === 'Allow') return;
  throw forbiddenError(attrs, res.reason);
}
