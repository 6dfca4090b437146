/**
 * `POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token`: the TokenRequest API
 * (authentication.k8s.io/v1 TokenRequest), what `kubectl create token` calls.
 *
 * Upstream (v1.33): pkg/registry/core/serviceaccount/storage/token.go (`TokenREST.Create`),
 * pkg/apis/authentication/v1/defaults.go (expirationSeconds 3600), pkg/apis/authentication/validation
 * (`ValidateTokenRequest`: at least 10 minutes, at most 2^32 seconds). No
 * `--service-account-max-token-expiration` (kubeadm sets none) and no node-bound tokens.
 */
import type { KubeObject } from '../../../api/index.js';
import { deepFreeze } from '../../../machinery/meta/index.js';
import { field, newBadRequest, newConflict, newInvalid, type FieldError } from '../../../machinery/errors/index.js';
import { formatTime } from '../../../util/clock/index.js';
import { EXPIRATION_EXTENSION_SECONDS, WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS, type ServiceAccountTokens } from '../../authn/serviceaccount.js';
import type { StorageContext, SubresourceRequest } from '../extension.js';

const TOKEN_REQUEST_GK = { group: 'authentication.k8s.io', kind: 'TokenRequest' };

/** `SetDefaults_TokenRequestSpec`: one hour. */
export const DEFAULT_TOKEN_EXPIRATION_SECONDS = 3600;
/** `ValidateTokenRequest`'s bounds, in seconds. */
export const MIN_TOKEN_EXPIRATION_SECONDS = 10 * 60;
export const MAX_TOKEN_EXPIRATION_SECONDS = 2 ** 32;

/** The TokenRequest spec as sent. */
interface TokenRequestSpec {
  audiences?: string[] | null;
  expirationSeconds?: number | null;
  boundObjectRef?: { kind?: string; apiVersion?: string; name?: string; uid?: string } | null;
}

/** `ValidateTokenRequest`. */
export function validateTokenRequest(spec: { expirationSeconds: number }): FieldError[] {
  const errs: FieldError[] = [];
  const exp = spec.expirationSeconds;
  if (exp < MIN_TOKEN_EXPIRATION_SECONDS) errs.push(field.invalid('spec.expirationSeconds', exp, 'may not specify a duration less than 10 minutes'));
  if (exp > MAX_TOKEN_EXPIRATION_SECONDS) errs.push(field.invalid('spec.expirationSeconds', exp, 'may not specify a duration larger than 2^32 seconds'));
  return errs;
}

/** Go's `schema.GroupVersionKind.String()`: `apps/v1, Kind=Deployment`, `/v1, Kind=ConfigMap`. */
function gvkString(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  const [group, version] = slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
  return `${group}/${version}, Kind=${kind}`;
}

/**
 * TokenREST.Create: the body's name and namespace must match the URL's (422), the service account
 * must exist (404), a bound Pod must run as it (400) and a bound Pod or Secret must exist (404) with
 * the uid given (409); the token is issued for spec.audiences (default the API audiences) for
 * spec.expirationSeconds (default 3600, 422 outside [600, 2^32]); a pod-bound token of 3607 s for
 * the API audiences really lives a year and is stale after 3607 s (the kube-api-access volume's).
 * Answers 201 with the TokenRequest, its status holding the token and its expirationTimestamp.
 * @throws StatusError as described
 */
export async function createToken(ctx: StorageContext, tokens: ServiceAccountTokens, req: SubresourceRequest): Promise<{ code: number; body: unknown }> {
  const namespace = req.namespace ?? '';
  const name = req.name;
  const body = req.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw newBadRequest('the object provided is unrecognized (must be of type TokenRequest)');
  const tr = body as { metadata?: { name?: string; namespace?: string }; spec?: TokenRequestSpec | null };
  const meta = tr.metadata ?? {};
  if (meta.name && meta.name !== name) throw newInvalid(TOKEN_REQUEST_GK, name, [field.invalid('metadata.name', meta.name, 'must match the service account name if specified')]);
  if (meta.namespace && meta.namespace !== namespace) {
    throw newInvalid(TOKEN_REQUEST_GK, name, [field.invalid('metadata.namespace', meta.namespace, 'must match the service account namespace if specified')]);
  }
  const sa = await ctx.store.get(namespace, name, {});
  const spec = tr.spec ?? {};
  const audiences = spec.audiences && spec.audiences.length > 0 ? [...spec.audiences] : [...tokens.apiAudiences];
  const expirationSeconds = spec.expirationSeconds ?? DEFAULT_TOKEN_EXPIRATION_SECONDS;
  const now = ctx.clock.now();
  const errs = validateTokenRequest({ expirationSeconds });
  if (errs.length > 0) throw newInvalid(TOKEN_REQUEST_GK, '', errs);

  let pod: KubeObject | undefined;
  let secret: KubeObject | undefined;
  const ref = spec.boundObjectRef ?? undefined;
  if (ref) {
    const apiVersion = ref.apiVersion ?? '';
    const kind = ref.kind ?? '';
    const core = !apiVersion.includes('/');
    let bound: KubeObject;
    if (core && kind === 'Pod') {
      bound = pod = await storeOrFail(ctx, 'pods').get(namespace, ref.name ?? '', {});
      const podSA = (pod.spec as { serviceAccountName?: string } | undefined)?.serviceAccountName ?? '';
      if (podSA !== name) throw newBadRequest(`cannot bind token for serviceaccount ${JSON.stringify(name)} to pod running with different serviceaccount name.`);
    } else if (core && kind === 'Secret') {
      bound = secret = await storeOrFail(ctx, 'secrets').get(namespace, ref.name ?? '', {});
    } else {
      throw newBadRequest(`cannot bind token to object of type ${gvkString(apiVersion, kind)}`);
    }
    if (ref.uid && ref.uid !== bound.metadata?.uid) {
      throw newConflict(
        { group: '', resource: kind },
        ref.name ?? '',
        `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
      );
    }
  }

  // The kube-api-access volume's tokens warn after 3607 s but live a year (safe transition to bound tokens).
  let exp = expirationSeconds;
  let warnAfterSeconds = 0;
  if (pod && expirationSeconds === WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS && audiences.every((a) => tokens.apiAudiences.includes(a))) {
    warnAfterSeconds = exp;
    exp = EXPIRATION_EXTENSION_SECONDS;
  }
  const refOf = (o: KubeObject | undefined) => (o ? { name: o.metadata?.name ?? '', uid: o.metadata?.uid ?? '' } : undefined);
  const { token } = await tokens.generateToken({
    namespace,
    serviceAccount: { name: sa.metadata?.name ?? name, uid: sa.metadata?.uid ?? '' },
    ...(pod ? { pod: refOf(pod) } : {}),
    ...(secret ? { secret: refOf(secret) } : {}),
    expirationSeconds: exp,
    warnAfterSeconds,
    audiences,
  });
  const outSpec: Record<string, unknown> = { audiences, expirationSeconds };
  if (ref) outSpec['boundObjectRef'] = { ...ref };
  return {
    code: 201,
    body: deepFreeze({
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { name, namespace, creationTimestamp: formatTime(now) },
      spec: outSpec,
      status: { token, expirationTimestamp: formatTime(now + expirationSeconds * 1000) },
    }),
  };
}

/** The store of a core resource. @throws Error when the server does not serve it (a server built with a subset of the kinds) */
function storeOrFail(ctx: StorageContext, resource: string): NonNullable<ReturnType<StorageContext['storeOf']>> {
  const store = ctx.storeOf('', resource);
  if (!store) throw new Error(`${resource} are not served`);
  return store;
}
