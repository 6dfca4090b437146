/**
 * Authentication: who a credential is. Token authenticators: the cluster's one bearer token, whose
 * holder is a cluster admin (`system:masters`), as the holder of an entry in kube-apiserver's
 * `--token-auth-file` with that group would be; the `--token-auth-file` itself (./tokenfile.ts); and
 * the service-account JWTs the TokenRequest API issues (./serviceaccount.ts). Whole requests — client
 * certificates first, then these tokens, then `system:anonymous` — are authenticated in ./request.ts,
 * and impersonation applied in ./impersonation.ts. TokenReview asks the token authenticators.
 *
 * Upstream: k8s.io/apiserver pkg/authentication/request/bearertoken/bearertoken.go (the `Bearer`
 * header, `invalid bearer token`), pkg/authentication/token/tokenfile (a static token), pkg/
 * authentication/group/authenticated_group_adder.go (`system:authenticated`), pkg/authentication/
 * authenticator/audiences.go (audience-agnostic tokens answer for the server's API audiences),
 * pkg/authentication/request/union/union.go (the first authenticator that knows the token wins).
 */

/** `user.Info` as TokenReview and SelfSubjectReview report it. */
export interface UserInfo {
  username: string;
  /** The user's uid (a service account's). */
  uid?: string;
  groups: string[];
  /** Further attributes (a service-account token's credential id, bound pod). */
  extra?: Record<string, string[]>;
}

/** A token's user and the audiences (of those asked) it is valid for. */
export interface AuthenticationResult {
  user: UserInfo;
  audiences: string[];
}

/** The identity behind the data directory's bearer token, and of in-process callers in the self reviews. */
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
  /**
   * The user `token` authenticates and the audiences among `audiences` (default: the server's
   * {@link API_AUDIENCES}) it is valid for; undefined when it is not a valid token for any of them.
   */
  authenticateToken(token: string, audiences?: readonly string[]): Promise<AuthenticationResult | undefined>;
}

/** `user.AllAuthenticated`, which every authenticated user is in. */
export const ALL_AUTHENTICATED = 'system:authenticated';

/**
 * A token authenticator over a token → user map (a `--token-auth-file`'s, ./tokenfile.ts, or the
 * cluster's one bearer token). Static tokens are audience-agnostic: valid for the API audiences
 * among those asked (authenticator/audiences.go).
 */
export function tokenMapAuthenticator(tokens: ReadonlyMap<string, UserInfo>): TokenAuthenticator {
  return {
    authenticateToken(token, wanted) {
      const user = tokens.get(token);
      if (!user) return Promise.resolve(undefined);
      const asked = wanted && wanted.length > 0 ? wanted : API_AUDIENCES;
      const audiences = API_AUDIENCES.filter((a) => asked.includes(a));
      if (audiences.length === 0) return Promise.resolve(undefined);
      return Promise.resolve({ user: { ...user, groups: [...user.groups] }, audiences });
    },
  };
}

/** The authenticator of the cluster's one bearer token, whose holder is {@link ADMIN_USER}. */
export function staticTokenAuthenticator(token: string): TokenAuthenticator {
  return tokenMapAuthenticator(new Map([[token, { username: ADMIN_USER.username, groups: [...ADMIN_USER.groups] }]]));
}

/**
 * The union of `authenticators` (union.go): the first that knows the token answers, with
 * `system:authenticated` added to its groups when missing (group/authenticated_group_adder.go).
 */
export function unionAuthenticator(...authenticators: TokenAuthenticator[]): TokenAuthenticator {
  return {
    async authenticateToken(token, audiences) {
      for (const a of authenticators) {
        const res = await a.authenticateToken(token, audiences);
        if (!res) continue;
        const groups = res.user.groups.includes(ALL_AUTHENTICATED) ? res.user.groups : [...res.user.groups, ALL_AUTHENTICATED];
        return { ...res, user: { ...res.user, groups } };
      }
      return undefined;
    },
  };
}

/**
 * The token of an `Authorization: Bearer <token>` header, or undefined when the header bears none, as
 * bearertoken.go reads it: the trimmed header split on single spaces, the scheme case-insensitive, the
 * token the second part (`Bearer a b` is `a`; `Bearer  a`, with the space before the token doubled,
 * bears none).
 */
export function bearerTokenOf(header: string | undefined): string | undefined {
  const parts = (header ?? '').trim().split(' ');
  if (parts.length < 2 || parts[0]?.toLowerCase() !== 'bearer') return undefined;
  const token = parts[1] as string;
  return token === '' ? undefined : token;
}
