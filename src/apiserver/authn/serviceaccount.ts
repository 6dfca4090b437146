/**
 * Service-account tokens: the JWTs the TokenRequest API issues (`kubectl create token`) and the
 * authenticator that accepts them as the service account's identity.
 *
 * Upstream (v1.33): pkg/serviceaccount/jwt.go (`JWTTokenGenerator`: a JWS signed with the
 * service-account key, `kid` the SHA-256 of the public key's DER; `JWTTokenAuthenticator`: issuer
 * pre-check, signature, audiences, then the validator), pkg/serviceaccount/claims.go (`Claims` and the
 * bound-token `validator`: expiry with go-jose's one-minute leeway, the service account still there
 * with the same uid, a bound pod or secret still there with the same uid), k8s.io/apiserver
 * pkg/authentication/serviceaccount/util.go (`system:serviceaccount:<ns>:<name>`, the groups, the
 * `authentication.kubernetes.io/*` extra keys), cmd/kubeadm (the issuer
 * `https://kubernetes.default.svc.cluster.local`, which is also the API audience).
 *
 * Not done: legacy (secret-based, non-expiring) tokens, node-bound tokens and the node claims, the
 * `warnafter` bookkeeping beyond putting the claim in the token, external (JWKS) issuers.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { decodeJwt, errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { parseTime, type Clock } from '../../util/clock/index.js';
import type { Rand } from '../../util/random/index.js';
import { API_AUDIENCES, type AuthenticationResult, type TokenAuthenticator, type UserInfo } from './index.js';

/** kubeadm's `--service-account-issuer`: the `iss` of every token this server issues. */
export const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/** claims.go `WarnOnlyBoundTokenExpirationSeconds`: what the kube-api-access volume asks for (1 h 7 s). */
export const WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS = 60 * 60 + 7;
/** claims.go `ExpirationExtensionSeconds`: how long such a pod-bound token really lives (1 year). */
export const EXPIRATION_EXTENSION_SECONDS = 24 * 365 * 60 * 60;
/** go-jose's `jwt.DefaultLeeway`: exp and nbf are checked one minute leniently. */
export const DEFAULT_LEEWAY_SECONDS = 60;

/** util.go's extra keys. */
export const POD_NAME_KEY = 'authentication.kubernetes.io/pod-name';
export const POD_UID_KEY = 'authentication.kubernetes.io/pod-uid';
export const CREDENTIAL_ID_KEY = 'authentication.kubernetes.io/credential-id';

/** `serviceaccount.MakeUsername`: `system:serviceaccount:<namespace>:<name>`. */
export function makeUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** `serviceaccount.MakeGroupNames`: `system:serviceaccounts` and `system:serviceaccounts:<namespace>`. */
export function makeGroupNames(namespace: string): string[] {
  return ['system:serviceaccounts', `system:serviceaccounts:${namespace}`];
}

/** A name and uid, as the `kubernetes.io` private claims reference objects. */
export interface ObjectRef {
  name: string;
  uid: string;
}

/** The `kubernetes.io` private claim (claims.go `kubernetes`). */
export interface KubernetesClaims {
  namespace: string;
  serviceaccount: ObjectRef;
  pod?: ObjectRef;
  secret?: ObjectRef;
  /** Seconds since the epoch after which the token is stale but still accepted (pod-bound 3607 s tokens). */
  warnafter?: number;
}

/** What a token is issued for (the arguments of claims.go `Claims`). */
export interface TokenClaimsInput {
  namespace: string;
  serviceAccount: ObjectRef;
  pod?: ObjectRef;
  secret?: ObjectRef;
  /** Lifetime in seconds. */
  expirationSeconds: number;
  /** Seconds after issue when the token counts as stale (0: none). */
  warnAfterSeconds?: number;
  audiences: readonly string[];
}

/** The claims of a token: registered ones (seconds since the epoch) and the `kubernetes.io` one. */
export interface ServiceAccountClaims extends JWTPayload {
  iss: string;
  sub: string;
  aud: string[];
  exp: number;
  iat: number;
  nbf: number;
  jti: string;
  'kubernetes.io': KubernetesClaims;
}

/**
 * claims.go `Claims`: the registered claims (`sub` the service account's username, `aud`, `iat` =
 * `nbf` = `nowMs` in whole seconds, `exp` `expirationSeconds` later, `jti` a fresh uuid) and the
 * `kubernetes.io` claim naming the namespace, the service account and the bound pod or secret.
 */
export function claims(input: TokenClaimsInput, nowMs: number, jti: string, issuer = SERVICE_ACCOUNT_ISSUER): ServiceAccountClaims {
  const now = Math.floor(nowMs / 1000);
  const k8s: KubernetesClaims = { namespace: input.namespace, serviceaccount: { ...input.serviceAccount } };
  if (input.pod) k8s.pod = { ...input.pod };
  else if (input.secret) k8s.secret = { ...input.secret };
  if (input.warnAfterSeconds) k8s.warnafter = now + input.warnAfterSeconds;
  return {
    iss: issuer,
    sub: makeUsername(input.namespace, input.serviceAccount.name),
    aud: [...input.audiences],
    exp: now + input.expirationSeconds,
    iat: now,
    nbf: now,
    jti,
    'kubernetes.io': k8s,
  };
}

/** The objects the validator checks a token's references against (upstream `ServiceAccountTokenGetter`). */
export interface ServiceAccountTokenGetter {
  /** The object, or undefined when it does not exist. */
  getServiceAccount(namespace: string, name: string): Promise<ReferencedObject | undefined>;
  getPod(namespace: string, name: string): Promise<ReferencedObject | undefined>;
  getSecret(namespace: string, name: string): Promise<ReferencedObject | undefined>;
}

/** What the validator reads of a referenced object. */
export interface ReferencedObject {
  metadata?: { uid?: string; deletionTimestamp?: string | null };
}

/** Options of {@link ServiceAccountTokens}. */
export interface ServiceAccountTokensOptions {
  /**
   * The signing key, a PEM private key (RSA: RS256, EC P-256: ES256), as kube-apiserver's
   * `--service-account-signing-key-file`. Without one a P-256 key is generated on first use and lives
   * as long as the server (tokens do not survive a restart).
   */
  privateKeyPem?: string;
  clock: Clock;
  rand: Rand;
  /** `--service-account-issuer` (default {@link SERVICE_ACCOUNT_ISSUER}). */
  issuer?: string;
  /** `--api-audiences` (default {@link API_AUDIENCES}): the default `aud` and what tokens must be for. */
  apiAudiences?: readonly string[];
}

/** A signing key with its JWS algorithm and key id. */
interface SigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  alg: 'RS256' | 'ES256';
  kid: string;
}

/** The JWS algorithm of a key, as jwt.go `signerFromRSAPrivateKey` / `signerFromECDSAPrivateKey` pick it. @throws Error for another key type */
function algorithmOf(key: KeyObject): 'RS256' | 'ES256' {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  throw new Error(`service-account signing key: unsupported key type ${key.asymmetricKeyType ?? 'unknown'} (want RSA or EC P-256)`);
}

/** jwt.go `keyIDFromPublicKey`: base64url (no padding) of the SHA-256 of the public key's PKIX DER. */
function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('base64url');
}

function signingKeyOf(privateKey: KeyObject): SigningKey {
  const publicKey = createPublicKey(privateKey);
  return { privateKey, publicKey, alg: algorithmOf(privateKey), kid: keyIdOf(publicKey) };
}

/**
 * The server's service-account token issuer and authenticator, over one signing key.
 */
export class ServiceAccountTokens {
  private key: SigningKey | undefined;
  readonly issuer: string;
  readonly apiAudiences: readonly string[];

  /** @throws Error when `privateKeyPem` is not an RSA or EC P-256 private key */
  constructor(private readonly opts: ServiceAccountTokensOptions) {
    this.issuer = opts.issuer ?? SERVICE_ACCOUNT_ISSUER;
    this.apiAudiences = opts.apiAudiences ?? API_AUDIENCES;
    if (opts.privateKeyPem !== undefined) this.key = signingKeyOf(createPrivateKey(opts.privateKeyPem));
  }

  private signingKey(): SigningKey {
    // A P-256 key takes well under a millisecond to make; RSA would cost every test server ~100 ms.
    this.key ??= signingKeyOf(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey);
    return this.key;
  }

  /**
   * Issues a token (jwt.go `GenerateToken`): the claims of `input` at the clock's now, signed.
   * Returns the compact JWS and its claims.
   */
  async generateToken(input: TokenClaimsInput): Promise<{ token: string; claims: ServiceAccountClaims }> {
    const key = this.signingKey();
    const c = claims(input, this.opts.clock.now(), this.opts.rand.uuid(), this.issuer);
    const token = await new SignJWT(c).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(key.privateKey);
    return { token, claims: c };
  }

  /** The authenticator of this server's tokens, checking references through `getter`. */
  authenticator(getter: ServiceAccountTokenGetter): TokenAuthenticator {
    return { authenticateToken: (token, audiences) => this.authenticate(getter, token, audiences) };
  }

  /**
   * jwt.go `AuthenticateToken` + claims.go `Validate`. Undefined for anything that is not a valid
   * token of this issuer: not a JWT, another issuer, a bad signature, no audience in common with
   * `audiences` (default the API audiences), expired or not yet valid (one minute of leeway), a
   * service account, pod or secret gone, deleted more than a minute ago, or with another uid.
   */
  private async authenticate(getter: ServiceAccountTokenGetter, token: string, audiences: readonly string[] | undefined): Promise<AuthenticationResult | undefined> {
    // hasCorrectIssuer: a token of another issuer is not ours to judge (nor to spend a verify on).
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      return undefined;
    }
    if (unverified.iss !== this.issuer || !this.key) return undefined;
    const nowMs = this.opts.clock.now();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.key.publicKey, {
        algorithms: [this.key.alg],
        issuer: this.issuer,
        currentDate: new Date(nowMs),
        clockTolerance: DEFAULT_LEEWAY_SECONDS,
      }));
    } catch (err) {
      if (err instanceof joseErrors.JOSEError) return undefined;
      throw err;
    }
    const wanted = audiences && audiences.length > 0 ? audiences : this.apiAudiences;
    const tokenAudiences = typeof payload.aud === 'string' ? [payload.aud] : (payload.aud ?? []);
    const common = wanted.filter((a) => tokenAudiences.includes(a));
    if (common.length === 0) return undefined;
    const k8s = payload['kubernetes.io'] as Partial<KubernetesClaims> | undefined;
    // A bound token must carry an expiry and the kubernetes.io claim (legacy tokens are not issued here).
    if (payload.exp === undefined || !k8s?.namespace || !k8s.serviceaccount?.name) return undefined;
    const user = await this.validate(getter, k8s as KubernetesClaims, nowMs, payload.jti);
    return user ? { user, audiences: common } : undefined;
  }

  /** claims.go `validator.Validate` after the time checks: the referenced objects, then the user. */
  private async validate(getter: ServiceAccountTokenGetter, k8s: KubernetesClaims, nowMs: number, jti: string | undefined): Promise<UserInfo | undefined> {
    const invalidIfDeletedBefore = nowMs - DEFAULT_LEEWAY_SECONDS * 1000;
    const live = (obj: ReferencedObject | undefined, ref: ObjectRef): boolean => {
      if (!obj) return false;
      const deleted = obj.metadata?.deletionTimestamp;
      if (deleted && (parseTime(deleted) ?? 0) < invalidIfDeletedBefore) return false;
      return (obj.metadata?.uid ?? '') === ref.uid;
    };
    const ns = k8s.namespace;
    if (!live(await getter.getServiceAccount(ns, k8s.serviceaccount.name), k8s.serviceaccount)) return undefined;
    if (k8s.secret && !live(await getter.getSecret(ns, k8s.secret.name), k8s.secret)) return undefined;
    if (k8s.pod && !live(await getter.getPod(ns, k8s.pod.name), k8s.pod)) return undefined;
    const extra: Record<string, string[]> = {};
    if (k8s.pod) {
      extra[POD_NAME_KEY] = [k8s.pod.name];
      extra[POD_UID_KEY] = [k8s.pod.uid];
    }
    if (jti) extra[CREDENTIAL_ID_KEY] = [`JTI=${jti}`];
    return {
      username: makeUsername(ns, k8s.serviceaccount.name),
      uid: k8s.serviceaccount.uid,
      groups: makeGroupNames(ns),
      ...(Object.keys(extra).length > 0 ? { extra } : {}),
    };
  }
}
