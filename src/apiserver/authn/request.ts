/**
 * Who sent an HTTP request: a verified client certificate, else a bearer token, else — when
 * `--anonymous-auth` allows it and the request bore no credentials at all — `system:anonymous`.
 *
 * Upstream (v1.33): pkg/kubeapiserver/authenticator/config.go (the order: x509 client certificates,
 * then the bearer-token authenticators; `system:authenticated` added to whoever they name; anonymous
 * last, through a fail-on-error union, so a request with a bad certificate or token is refused rather
 * than served anonymously), k8s.io/apiserver pkg/authentication/request/x509/x509.go (`CommonNameUserConversion`:
 * the subject's CN is the user, its Organizations the groups; a certificate without a CN names no one),
 * pkg/authentication/request/anonymous/anonymous.go, pkg/authentication/request/union/union.go.
 */
import { ALL_AUTHENTICATED, bearerTokenOf, INVALID_BEARER_TOKEN, type TokenAuthenticator, type UserInfo } from './index.js';

/** `user.Anonymous`. */
export const ANONYMOUS_USER = 'system:anonymous';
/** `user.AllUnauthenticated`, the group of the anonymous user. */
export const ALL_UNAUTHENTICATED = 'system:unauthenticated';

/** A TLS client certificate as the connection presented it. */
export interface ClientCertificate {
  /** The subject's CommonName ('' when it has none). */
  commonName: string;
  /** The subject's Organization values, in order. */
  organizations: string[];
  /** Whether it chains to the client CA; when not, `error` says why (Node's `authorizationError`). */
  verified: boolean;
  error?: string;
}

/** The credentials of one request. */
export interface RequestCredentials {
  /** The `Authorization` header. */
  authorization: string | undefined;
  /** The client certificate, when the client presented one. */
  clientCertificate?: ClientCertificate;
}

/** The outcome: the user, or the reason for 401. */
export type RequestAuthentication = { user: UserInfo } | { error: string };

/** The request authenticator's parts. */
export interface RequestAuthenticatorOptions {
  /** The bearer-token authenticators, as one union. */
  tokens: TokenAuthenticator;
  /** Whether client certificates verified against the client CA authenticate (`--client-ca-file`). */
  clientCertificates: boolean;
  /** `--anonymous-auth`: requests without credentials are `system:anonymous`. */
  anonymous: boolean;
}

function withAuthenticatedGroup(user: UserInfo): UserInfo {
  return user.groups.includes(ALL_AUTHENTICATED) ? user : { ...user, groups: [...user.groups, ALL_AUTHENTICATED] };
}

/**
 * Authenticates one request. A certificate that does not verify, or a bearer token no authenticator
 * knows, is an error unless the other credential authenticates (union.go collects errors and goes on).
 * Never throws.
 */
export async function authenticateRequest(opts: RequestAuthenticatorOptions, creds: RequestCredentials): Promise<RequestAuthentication> {
  const errors: string[] = [];
  const cert = creds.clientCertificate;
  if (opts.clientCertificates && cert) {
    if (!cert.verified) errors.push(`verifying certificate failed: ${cert.error ?? 'certificate signed by unknown authority'}`);
    else if (cert.commonName !== '') return { user: withAuthenticatedGroup({ username: cert.commonName, groups: [...cert.organizations] }) };
  }
  const token = bearerTokenOf(creds.authorization);
  if (token !== undefined) {
    const res = await opts.tokens.authenticateToken(token);
    if (res) return { user: withAuthenticatedGroup(res.user) };
    errors.push(INVALID_BEARER_TOKEN);
  }
  if (errors.length > 0) return { error: errors.join(', ') };
  if (opts.anonymous) return { user: { username: ANONYMOUS_USER, groups: [ALL_UNAUTHENTICATED] } };
  return { error: 'no credentials' };
}

/**
 * The client certificate of a TLS socket (node:tls `TLSSocket`), or undefined when the client sent
 * none or the connection is plain HTTP.
 */
export function clientCertificateOf(socket: unknown): ClientCertificate | undefined {
  const tls = socket as { getPeerCertificate?: () => { subject?: Record<string, string | string[] | undefined> } | null; authorized?: boolean; authorizationError?: Error | string };
  if (typeof tls.getPeerCertificate !== 'function') return undefined;
  const peer = tls.getPeerCertificate();
  if (!peer?.subject) return undefined;
  const values = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  const cert: ClientCertificate = { commonName: values(peer.subject['CN'])[0] ?? '', organizations: values(peer.subject['O']), verified: tls.authorized === true };
  if (!cert.verified && tls.authorizationError !== undefined) cert.error = String(tls.authorizationError);
  return cert;
}
