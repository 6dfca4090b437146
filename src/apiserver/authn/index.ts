/**
 * Authentication: who a bearer token is. kubeplane has one identity, whoever holds the cluster's
 * bearer token, and it is a cluster admin (`system:masters`), as the holder of an entry in
 * kube-apiserver's `--token-auth-file` with that group would be. The HTTP server authenticates every
 * request with it, and TokenReview asks it about any token.
 *
 * Upstream: k8s.io/apiserver pkg/authentication/request/bearertoken/bearertoken.go (the `Bearer`
 * header, `invalid bearer token`), pkg/authentication/token/tokenfile (a static token), pkg/
 * authentication/group/authenticated_group_adder.go (`system:authenticated`), pkg/authentication/
 * authenticator/audiences.go (audience-agnostic tokens answer for the server's API audiences).
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** `user.Info` as TokenReview and SelfSubjectReview report it. */
export interface UserInfo {
  username: string;
  groups: string[];
}

/** The identity behind the bearer token (`kubectl auth whoami`). */
export const ADMIN_USER: Readonly<UserInfo> = Object.freeze({ username: 'kubeplane-admin', groups: ['system:masters', 'system:authenticated'] });

/** `user.SystemPrivilegedGroup`: members may do everything (the superuser authorizer, RBAC's cluster-admin binding). */
export const SYSTEM_MASTERS = 'system:masters';

/**
 * kube-apiserver's `--api-audiences`, which default to its `--service-account-issuer`; kubeadm and
 * kind clusters use this one. A static token is audience-agnostic: it is valid for these.
 */
export const API_AUDIENCES: readonly string[] = ['https://kubernetes.default.svc.cluster.local'];

/** bearertoken.go's error when no token authenticator recognised the token. */
export const INVALID_BEARER_TOKEN = 'invalid bearer token';

/** What a token authenticates as. */
export interface TokenAuthenticator {
  /** The user `token` authenticates, or undefined when it is not a valid token. */
  authenticateToken(token: string): UserInfo | undefined;
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** The authenticator of the cluster's one bearer token: compared in constant time, it is {@link ADMIN_USER}. */
export function staticTokenAuthenticator(token: string): TokenAuthenticator {
  const expected = digest(token);
  return {
    authenticateToken: (candidate) => (timingSafeEqual(digest(candidate), expected) ? { username: ADMIN_USER.username, groups: [...ADMIN_USER.groups] } : undefined),
  };
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), or undefined. */
export function bearerTokenOf(header: string | undefined): string | undefined {
  if (!header || !/^bearer /i.test(header)) return undefined;
  return header.slice(7).trim();
}
