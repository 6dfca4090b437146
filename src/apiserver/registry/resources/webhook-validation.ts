/**
 * Validation of a webhook's client config: its URL and its service reference, with upstream's paths and
 * messages. Used by CustomResourceDefinition conversion webhooks (and fit for admission webhooks).
 *
 * Followed (k8s.io/apiserver v0.33.9): pkg/util/webhook/validation.go (ValidateWebhookURL,
 * ValidateWebhookService), with Go's net/url.Parse for the parts of a URL those checks read (scheme,
 * user information, host, query, fragment) and its most common parse errors (control characters, a
 * missing scheme, a colon in the first path segment, a port that is not a number).
 *
 * Not checked here: `caBundle` (upstream parses it as PEM certificates with crypto/x509).
 */
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { isDNS1123Subdomain } from '../../../machinery/validation/index.js';
import { isValidPortNum } from './pod-template.js';

/** The parts of Go's `url.URL` the webhook checks read. */
interface GoURL {
  scheme: string;
  /** `url.User.String()` when the authority has user information. */
  user?: string;
  host: string;
  rawQuery: string;
  fragment: string;
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/;

/** `url.Parse`, reduced to what ValidateWebhookURL reads; an Error carries Go's `url.Error` text. */
export function parseGoURL(raw: string): GoURL | Error {
  const [beforeFragment = '', ...fragments] = raw.split('#');
  const fail = (why: string): Error => new Error(`parse ${JSON.stringify(beforeFragment)}: ${why}`);
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(raw)) return fail('net/url: invalid control character in URL');
  let rest = beforeFragment;
  let scheme = '';
  const colon = rest.indexOf(':');
  if (colon === 0) return fail('missing protocol scheme');
  if (colon > 0 && SCHEME.test(rest.slice(0, colon))) {
    scheme = rest.slice(0, colon).toLowerCase();
    rest = rest.slice(colon + 1);
  }
  let rawQuery = '';
  const q = rest.indexOf('?');
  if (q >= 0) {
    rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  const url: GoURL = { scheme, host: '', rawQuery, fragment: fragments.join('#') };
  if (!rest.startsWith('/')) {
    if (scheme) return url; // opaque: `https:host` has no host
    if ((rest.split('/')[0] ?? '').includes(':')) return fail('first path segment in URL cannot contain colon');
  }
  if ((scheme || !rest.startsWith('///')) && rest.startsWith('//')) {
    const authority = rest.slice(2).split('/')[0] ?? '';
    const at = authority.lastIndexOf('@');
    if (at >= 0) url.user = authority.slice(0, at);
    url.host = authority.slice(at + 1);
    const port = /^(?:\[[^\]]*\]|[^:]*)(:.*)?$/.exec(url.host)?.[1];
    if (port !== undefined && !/^:[0-9]*$/.test(port)) return fail(`invalid port ${JSON.stringify(port)} after host`);
  }
  return url;
}

const FORM = '; desired format: https://host[/path]';

/** `ValidateWebhookURL`: a parseable URL with a host, https when `forceHttps`, no user information, query or fragment. */
export function validateWebhookURL(path: string, url: string, forceHttps: boolean): FieldError[] {
  const u = parseGoURL(url);
  if (u instanceof Error) return [field.required(path, `url must be a valid URL: ${u.message}${FORM}`)];
  const errs: FieldError[] = [];
  if (forceHttps && u.scheme !== 'https') errs.push(field.invalid(path, u.scheme, `'https' is the only allowed URL scheme${FORM}`));
  if (!u.host) errs.push(field.invalid(path, u.host, `host must be specified${FORM}`));
  if (u.user !== undefined) errs.push(field.invalid(path, u.user, 'user information is not permitted in the URL'));
  if (u.fragment) errs.push(field.invalid(path, u.fragment, 'fragments are not permitted in the URL'));
  if (u.rawQuery) errs.push(field.invalid(path, u.rawQuery, 'query parameters are not permitted in the URL'));
  return errs;
}

/**
 * `ValidateWebhookService`: name and namespace required, a valid port, and a path of non-empty
 * DNS-subdomain segments starting with `/` (`/` alone, or none, is fine).
 */
export function validateWebhookService(path: string, namespace: string, name: string, urlPath: string | undefined, port: number): FieldError[] {
  const errs: FieldError[] = [];
  if (!name) errs.push(field.required(`${path}.name`, 'service name is required'));
  if (!namespace) errs.push(field.required(`${path}.namespace`, 'service namespace is required'));
  const portErrs = isValidPortNum(port);
  if (portErrs.length > 0) errs.push(field.invalid(`${path}.port`, port, `port is not valid: ${portErrs.join(', ')}`));
  if (urlPath === undefined || urlPath === '/' || urlPath === '') return errs;
  if (urlPath === '//') return [...errs, field.invalid(`${path}.path`, urlPath, 'segment[0] may not be empty')];
  if (!urlPath.startsWith('/')) errs.push(field.invalid(`${path}.path`, urlPath, "must start with a '/'"));
  let check = urlPath.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (!step) errs.push(field.invalid(`${path}.path`, urlPath, `segment[${i}] may not be empty`));
    else for (const msg of isDNS1123Subdomain(step)) errs.push(field.invalid(`${path}.path`, urlPath, `segment[${i}]: ${msg}`));
  });
  return errs;
}
