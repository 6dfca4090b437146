/**
 * The pieces of an audit event taken from the HTTP request, as upstream builds them
 * (k8s.io/apiserver pkg/audit/request.go, v1.33): source IPs, the user agent (truncated), the audit
 * ID header, the request and response bodies without managedFields, the message of a failed
 * authentication (pkg/endpoints/filters/authn_audit.go), and timestamps as metav1.MicroTime.
 */
import { formatIP, parseIPSloppy, type IP } from '../../machinery/netutils/index.js';
import { formatMicroTime } from '../../util/clock/index.js';
import { AUDIT_ID_HEADER } from './types.js';

/** Request headers as node:http gives them (lower-case names); `IncomingHttpHeaders` fits. */
export type AuditHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** Go's `Header.Get`: the first value of a header (names are matched lower-case). */
export function headerValue(headers: AuditHeaders, name: string): string {
  const v = headers[name.toLowerCase()];
  return (Array.isArray(v) ? v[0] : v) ?? '';
}

/**
 * The audit ID a client chose (audit_init.go: the `Audit-ID` request header, kept as sent, however
 * long), or undefined when it sent none: the server then makes one (a UUID) and echoes it either way.
 */
export function auditIDFromHeaders(headers: AuditHeaders): string | undefined {
  const id = headerValue(headers, AUDIT_ID_HEADER);
  return id === '' ? undefined : id;
}

/**
 * apimachinery pkg/util/net/http.go `SourceIPs`: the valid addresses of `X-Forwarded-For` (in order),
 * then `X-Real-Ip` unless already listed, then the connection's remote address unless it is the last
 * one listed. `remoteAddress` is node's `socket.remoteAddress` (`::ffff:10.0.0.1` prints as
 * `10.0.0.1`, as Go's net.IP does) or Go's `host:port` form.
 */
export function sourceIPs(headers: AuditHeaders, remoteAddress: string | undefined): string[] {
  const ips: IP[] = [];
  const forwardedFor = headerValue(headers, 'X-Forwarded-For');
  if (forwardedFor !== '') {
    for (const part of forwardedFor.split(',')) {
      const ip = parseIPSloppy(part.trim());
      if (ip) ips.push(ip);
    }
  }
  const realIP = headerValue(headers, 'X-Real-Ip');
  if (realIP !== '') {
    const ip = parseIPSloppy(realIP);
    if (ip && !ips.some((x) => sameIP(x, ip))) ips.push(ip);
  }
  const remote = remoteAddressIP(remoteAddress ?? '');
  const last = ips[ips.length - 1];
  if (remote && (!last || !sameIP(remote, last))) ips.push(remote);
  return ips.map(formatIP);
}

/** `net.IP.Equal`: an IPv4 address equals its IPv4-mapped IPv6 form. */
function sameIP(a: IP, b: IP): boolean {
  return formatIP(a) === formatIP(b);
}

/** `net.SplitHostPort` then the host, or the whole address when it has no port. */
function remoteAddressIP(addr: string): IP | undefined {
  const bracketed = /^\[([^\]]*)\]:[^:]*$/.exec(addr);
  let host: string | undefined;
  if (bracketed) host = bracketed[1];
  else if (addr.split(':').length === 2) host = addr.slice(0, addr.indexOf(':'));
  return (host !== undefined ? parseIPSloppy(host) : undefined) ?? parseIPSloppy(addr);
}

/** request.go `maxUserAgentLength` (bytes) and `userAgentTruncateSuffix`. */
export const MAX_USER_AGENT_LENGTH = 1024;
export const USER_AGENT_TRUNCATE_SUFFIX = '...TRUNCATED';

/** request.go `maybeTruncateUserAgent`: the first 1024 bytes and `...TRUNCATED` when longer. */
export function maybeTruncateUserAgent(ua: string): string {
  const bytes = Buffer.from(ua, 'utf8');
  if (bytes.length <= MAX_USER_AGENT_LENGTH) return ua;
  return bytes.subarray(0, MAX_USER_AGENT_LENGTH).toString('utf8') + USER_AGENT_TRUNCATE_SUFFIX;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `obj` without `metadata.managedFields`: the same object when it has none (objects are shared and frozen). */
function removeManagedFields(obj: unknown): unknown {
  if (!isObject(obj) || !isObject(obj['metadata']) || !('managedFields' in obj['metadata'])) return obj;
  const metadata = { ...obj['metadata'] };
  delete metadata['managedFields'];
  return { ...obj, metadata };
}

/**
 * request.go `copyWithoutManagedFields`: an object, each item of a list, and each row object of a
 * Table lose `metadata.managedFields`. `obj` is not changed; parts without managedFields are shared.
 */
export function copyWithoutManagedFields(obj: unknown): unknown {
  const stripped = removeManagedFields(obj);
  if (!isObject(stripped)) return stripped;
  let out: Record<string, unknown> = stripped;
  const items = out['items'];
  if (Array.isArray(items) && items.some((i) => removeManagedFields(i) !== i)) {
    out = { ...out, items: items.map(removeManagedFields) };
  }
  const rows = out['rows'];
  if (out['kind'] === 'Table' && Array.isArray(rows)) {
    const stripRow = (row: unknown): unknown => {
      if (!isObject(row)) return row;
      const object = removeManagedFields(row['object']);
      return object === row['object'] ? row : { ...row, object };
    };
    if (rows.some((r) => stripRow(r) !== r)) out = { ...out, rows: rows.map(stripRow) };
  }
  return out;
}

/**
 * An instant (ms since the epoch, fractions kept to the microsecond) as metav1.MicroTime's JSON:
 * RFC 3339 in UTC with exactly six fractional digits, `2024-01-01T00:00:00.123456Z`.
 */
export function formatAuditTime(ms: number): string {
  const micros = Math.round(ms * 1000);
  const whole = Math.floor(micros / 1000);
  return formatMicroTime(whole).replace(/000Z$/, `${String(micros - whole * 1000).padStart(3, '0')}Z`);
}

/** Go's `time.RFC3339Nano` of a MicroTime string: trailing zeros of the fraction dropped (`…00.12Z`, `…00Z`). */
export function rfc3339Nano(microTime: string): string {
  return microTime.replace(/\.(\d*?)0*Z$/, (_m, digits: string) => (digits === '' ? 'Z' : `.${digits}Z`));
}

/** What {@link authenticationFailedMessage} looks at. */
export interface AuthenticationAttempt {
  headers: AuditHeaders;
  /** The query string's `access_token` parameter, when present. */
  accessToken?: string | undefined;
  /** True when the TLS client sent certificates. */
  clientCertificate?: boolean | undefined;
}

/** Go's `Request.BasicAuth` succeeds: `Basic <base64 of user:password>` (the scheme in any case). */
function hasBasicAuth(authorization: string): boolean {
  const prefix = 'basic ';
  if (authorization.length < prefix.length || authorization.slice(0, prefix.length).toLowerCase() !== prefix) return false;
  const encoded = authorization.slice(prefix.length);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return false;
  return Buffer.from(encoded, 'base64').toString('latin1').includes(':');
}

/**
 * authn_audit.go `getAuthMethods`: `Authentication failed, attempted: basic, bearer, access_token,
 * x509` (the methods the request tried), or `Authentication failed, no credentials provided`.
 */
export function authenticationFailedMessage(attempt: AuthenticationAttempt): string {
  const methods: string[] = [];
  const authorization = headerValue(attempt.headers, 'Authorization');
  if (hasBasicAuth(authorization)) methods.push('basic');
  const parts = authorization.trim().split(' ');
  if (parts.length > 1 && (parts[0] as string).toLowerCase() === 'bearer') methods.push('bearer');
  if ((attempt.accessToken ?? '').trim() !== '') methods.push('access_token');
  if (attempt.clientCertificate) methods.push('x509');
  return methods.length > 0 ? `Authentication failed, attempted: ${methods.join(', ')}` : 'Authentication failed, no credentials provided';
}
