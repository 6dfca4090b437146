/**
 * A webhook's `clientConfig`: the URL and service checks of k8s.io/apiserver pkg/util/webhook/
 * validation.go (ValidateWebhookURL, ValidateWebhookService), with the URL split as Go's `url.Parse`
 * splits it (net/url: getScheme, the `?` and `#` cuts, parseAuthority, the escape and port checks),
 * since the messages quote what it finds and its errors (`parse "://x": missing protocol scheme`).
 * Used by admission webhook configurations and CustomResourceDefinition conversion webhooks.
 */
import { field, goQuote, type FieldError } from '../../../machinery/errors/index.js';
import { isDNS1123Subdomain } from '../../../machinery/validation/index.js';
import { isValidPortNum } from './pod-template.js';

/** The parts of a URL that ValidateWebhookURL reads, as Go's `url.URL` holds them. */
export interface GoURL {
  scheme: string;
  host: string;
  /** `u.User.String()`, undefined when the URL has no userinfo. */
  user: string | undefined;
  rawQuery: string;
  fragment: string;
}

/** net/url `getScheme`: the scheme and the rest, or the `missing protocol scheme` error. */
function getScheme(raw: string): [scheme: string, rest: string] | string {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as string;
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+.-]/.test(c)) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') return i === 0 ? 'missing protocol scheme' : [raw.slice(0, i), raw.slice(i + 1)];
    return ['', raw];
  }
  return ['', raw];
}

/** net/url `unescape`'s complaint about a bad `%` escape (`invalid URL escape "%zz"`), if any. */
function escapeError(s: string): string | undefined {
  const m = /%(?![0-9A-Fa-f]{2})/.exec(s);
  return m ? `invalid URL escape ${goQuote(s.slice(m.index, m.index + 3))}` : undefined;
}

/** `url.PathUnescape`-like decoding for the fragment; the raw text when it does not decode. */
function unescape(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** net/url `parseHost`'s port check: digits only after the last `:` outside brackets. */
function hostError(host: string): string | undefined {
  const bracket = host.lastIndexOf(']');
  const colon = host.lastIndexOf(':');
  if (colon > bracket && !/^\d*$/.test(host.slice(colon + 1))) return `invalid port ${goQuote(host.slice(colon))} after host`;
  return escapeError(host);
}

/** Go's `url.Parse(raw)`: the parts ValidateWebhookURL reads, or the text of the error it returns. */
export function parseGoURL(raw: string): GoURL | string {
  const hash = raw.indexOf('#');
  const u = hash < 0 ? raw : raw.slice(0, hash);
  const fragment = hash < 0 ? '' : unescape(raw.slice(hash + 1));
  const fail = (why: string): string => `parse ${goQuote(u)}: ${why}`;
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(u)) return fail('net/url: invalid control character in URL');
  const parsed = getScheme(u);
  if (typeof parsed === 'string') return fail(parsed);
  const scheme = parsed[0].toLowerCase();
  let rest = parsed[1];
  let rawQuery = '';
  const q = rest.indexOf('?');
  if (q >= 0) {
    rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  const result: GoURL = { scheme, host: '', user: undefined, rawQuery, fragment };
  if (!rest.startsWith('/')) {
    if (scheme !== '') return result;
    if ((rest.split('/')[0] ?? '').includes(':')) return fail('first path segment in URL cannot contain colon');
  }
  if ((scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    const slash = authority.indexOf('/');
    rest = slash < 0 ? '' : authority.slice(slash);
    if (slash >= 0) authority = authority.slice(0, slash);
    const at = authority.lastIndexOf('@');
    result.host = authority.slice(at + 1);
    const bad = hostError(result.host);
    if (bad) return fail(bad);
    if (at >= 0) {
      const userinfo = authority.slice(0, at);
      if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) return fail('net/url: invalid userinfo');
      result.user = userinfo;
    }
  }
  const bad = escapeError(rest);
  return bad ? fail(bad) : result;
}

const FORM = '; desired format: https://host[/path]';

/** `ValidateWebhookURL(path, url, forceHttps)`. */
export function validateWebhookURL(path: string, url: string, forceHttps: boolean): FieldError[] {
  const u = parseGoURL(url);
  if (typeof u === 'string') return [field.required(path, `url must be a valid URL: ${u}${FORM}`)];
  const errs: FieldError[] = [];
  if (forceHttps && u.scheme !== 'https') errs.push(field.invalid(path, u.scheme, `'https' is the only allowed URL scheme${FORM}`));
  if (u.host.length === 0) errs.push(field.invalid(path, u.host, `host must be specified${FORM}`));
  if (u.user !== undefined) errs.push(field.invalid(path, u.user, 'user information is not permitted in the URL'));
  if (u.fragment.length !== 0) errs.push(field.invalid(path, u.fragment, 'fragments are not permitted in the URL'));
  if (u.rawQuery.length !== 0) errs.push(field.invalid(path, u.rawQuery, 'query parameters are not permitted in the URL'));
  return errs;
}

/** `ValidateWebhookService`: name and namespace required, a valid port, a path of DNS-subdomain segments. */
export function validateWebhookService(path: string, namespace: string, name: string, urlPath: string | undefined, port: number): FieldError[] {
  const errs: FieldError[] = [];
  if (name.length === 0) errs.push(field.required(`${path}.name`, 'service name is required'));
  if (namespace.length === 0) errs.push(field.required(`${path}.namespace`, 'service namespace is required'));
  const portErrs = isValidPortNum(port);
  if (portErrs.length > 0) errs.push(field.invalid(`${path}.port`, port, `port is not valid: ${portErrs.join(', ')}`));
  if (urlPath === undefined || urlPath === '/' || urlPath === '') return errs;
  const p = `${path}.path`;
  if (urlPath === '//') return [...errs, field.invalid(p, urlPath, 'segment[0] may not be empty')];
  if (!urlPath.startsWith('/')) errs.push(field.invalid(p, urlPath, "must start with a '/'"));
  let toCheck = urlPath.slice(1);
  if (toCheck.endsWith('/')) toCheck = toCheck.slice(0, -1);
  toCheck.split('/').forEach((step, i) => {
    if (step.length === 0) errs.push(field.invalid(p, urlPath, `segment[${i}] may not be empty`));
    else for (const failure of isDNS1123Subdomain(step)) errs.push(field.invalid(p, urlPath, `segment[${i}]: ${failure}`));
  });
  return errs;
}
