/**
 * Impersonation (`kubectl --as=jane --as-group=dev`): a request whose `Impersonate-*` headers name
 * another identity runs as it, once the requester is authorized to `impersonate` each part of it.
 *
 * Upstream (v1.33): k8s.io/apiserver pkg/endpoints/filters/impersonation.go (`WithImpersonation`,
 * `buildImpersonationRequests`): `Impersonate-User` (a `system:serviceaccount:<ns>:<name>` user is
 * the service account: `impersonate` on `serviceaccounts` in its namespace, and its groups unless
 * groups are given), each `Impersonate-Group` (`groups`), each value of `Impersonate-Extra-<key>`
 * (`userextras/<key>` in authentication.k8s.io; the key lower-cased and %-decoded) and
 * `Impersonate-Uid` (`uids` in authentication.k8s.io). Groups, extras or a uid without a user are a
 * bad request (upstream answers them with a 500; here 400, as no server fault is involved). The
 * impersonated user gets `system:authenticated` unless it is `system:anonymous` (which gets
 * `system:unauthenticated`) or the groups given name either.
 */
import { newBadRequest } from '../../machinery/errors/index.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../../machinery/validation/index.js';
import { authorizeOrForbid } from '../authz/forbidden.js';
import type { Attributes, Authorizer } from '../authz/types.js';
import { ALL_AUTHENTICATED, type UserInfo } from './index.js';
import { ALL_UNAUTHENTICATED, ANONYMOUS_USER } from './request.js';
import { makeGroupNames, makeUsername } from './serviceaccount.js';

/** The headers, lower-cased as node:http gives them. */
export const IMPERSONATE_USER_HEADER = 'impersonate-user';
export const IMPERSONATE_GROUP_HEADER = 'impersonate-group';
export const IMPERSONATE_UID_HEADER = 'impersonate-uid';
export const IMPERSONATE_EXTRA_PREFIX = 'impersonate-extra-';

/**
 * Request headers with lower-case names and every value of a repeated header (node:http's
 * `headersDistinct`; `headers` would join repeated ones with `, `).
 */
export type Headers = Record<string, string | string[] | undefined>;

const AUTHENTICATION_GROUP = 'authentication.k8s.io';

function all(v: string | string[] | undefined): string[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

/**
 * `serviceaccount.SplitUsername`: the namespace and name of `system:serviceaccount:<ns>:<name>`, or
 * undefined — also when the namespace is not a valid namespace name (a DNS label) or the name not a
 * valid service-account name (a DNS subdomain): such a user is an ordinary user.
 */
function splitServiceAccount(username: string): [string, string] | undefined {
  const prefix = 'system:serviceaccount:';
  if (!username.startsWith(prefix)) return undefined;
  const parts = username.slice(prefix.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  if (isDNS1123Label(namespace).length > 0 || isDNS1123Subdomain(name).length > 0) return undefined;
  return [namespace, name];
}

function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/** True when the request asks to impersonate anyone. */
export function wantsImpersonation(headers: Headers): boolean {
  return Object.keys(headers).some((h) => h === IMPERSONATE_USER_HEADER || h === IMPERSONATE_GROUP_HEADER || h === IMPERSONATE_UID_HEADER || h.startsWith(IMPERSONATE_EXTRA_PREFIX));
}

/**
 * The user a request runs as: `requestor` itself when the headers impersonate no one, else the
 * impersonated user once `authorizer` allows `requestor` to impersonate each of its parts (in header
 * order: user, groups, extras, uid).
 * @throws StatusError 403 Forbidden for the first part not allowed (`users "jane" is forbidden: User
 *   "bob" cannot impersonate resource "users" in API group "" at the cluster scope`), 400 for groups,
 *   extras or a uid without a user.
 */
export async function impersonate(requestor: UserInfo, headers: Headers, authorizer: Authorizer): Promise<UserInfo> {
  if (!wantsImpersonation(headers)) return requestor;
  const checks: Attributes[] = [];
  const check = (apiGroup: string, resource: string, name: string, namespace = '', subresource = ''): void => {
    checks.push({ user: requestor, verb: 'impersonate', resourceRequest: true, path: '', namespace, apiGroup, apiVersion: '', resource, subresource, name });
  };
  const requested = all(headers[IMPERSONATE_USER_HEADER])[0] ?? '';
  const groupsGiven = all(headers[IMPERSONATE_GROUP_HEADER]);
  let username = '';
  let groups: string[] = [];
  if (requested !== '') {
    const sa = splitServiceAccount(requested);
    if (sa) {
      check('', 'serviceaccounts', sa[1], sa[0]);
      username = makeUsername(sa[0], sa[1]);
      if (groupsGiven.length === 0) groups = makeGroupNames(sa[0]);
    } else {
      check('', 'users', requested);
      username = requested;
    }
  }
  for (const g of groupsGiven) {
    check('', 'groups', g);
    groups.push(g);
  }
  const extra: Record<string, string[]> = {};
  for (const [header, value] of Object.entries(headers)) {
    if (!header.startsWith(IMPERSONATE_EXTRA_PREFIX)) continue;
    const key = unescapeExtraKey(header.slice(IMPERSONATE_EXTRA_PREFIX.length));
    for (const v of all(value)) {
      check(AUTHENTICATION_GROUP, 'userextras', v, '', key);
      (extra[key] ??= []).push(v);
    }
  }
  const uid = all(headers[IMPERSONATE_UID_HEADER])[0] ?? '';
  if (uid !== '') check(AUTHENTICATION_GROUP, 'uids', uid);
  if (requested === '') throw newBadRequest(`requested ${checks.map((c) => `${c.resource}/${c.name}`).join(', ')} without impersonating a user`);
  for (const attrs of checks) await authorizeOrForbid(authorizer, attrs);

  if (username !== ANONYMOUS_USER) {
    if (!groups.includes(ALL_AUTHENTICATED) && !groups.includes(ALL_UNAUTHENTICATED)) groups.push(ALL_AUTHENTICATED);
  } else if (!groups.includes(ALL_UNAUTHENTICATED)) {
    groups.push(ALL_UNAUTHENTICATED);
  }
  const user: UserInfo = { username, groups };
  if (uid !== '') user.uid = uid;
  if (Object.keys(extra).length > 0) user.extra = extra;
  return user;
}
