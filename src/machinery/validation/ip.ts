/**
 * IP and CIDR validation with upstream's messages (apimachinery/pkg/util/validation/ip.go at v0.33.9).
 * The `…ForLegacyField` variants are what 1.33 applies to fields that predate strict IP validation
 * (NetworkPolicy ipBlock, Ingress status): StrictIPCIDRValidation is alpha and off in 1.33, so they
 * only require the value to parse. New fields (IPAddress names, ServiceCIDR cidrs) are strict.
 */
import { field, type FieldError } from '../errors/index.js';
import { cidrHasLeadingZeros, formatCIDR, formatIP, hasLeadingZeros, is4In6, ipEqual, parseCIDRSloppy, parseIPSloppy } from '../netutils/index.js';

const INVALID_IP = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';
const INVALID_CIDR = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';

/** `IsValidIPForLegacyField(path, value, strictValidation=false, validOldIPs)`: the value parses, or was already stored. */
export function isValidIPForLegacyField(path: string, value: string, validOld: readonly string[] = []): FieldError[] {
  if (validOld.includes(value)) return [];
  return parseIPSloppy(value) ? [] : [field.invalid(path, value, INVALID_IP)];
}

/**
 * `IsValidIP`: a valid address without leading zeros, not IPv4-mapped IPv6, in canonical form
 * (`must be in canonical form ("2001:db8::1")`).
 */
export function isValidIP(path: string, value: string): FieldError[] {
  const ip = parseIPSloppy(value);
  if (!ip) return [field.invalid(path, value, INVALID_IP)];
  const errs: FieldError[] = [];
  if (hasLeadingZeros(value)) errs.push(field.invalid(path, value, 'must not have leading 0s'));
  if (is4In6(ip)) errs.push(field.invalid(path, value, 'must not be an IPv4-mapped IPv6 address'));
  if (errs.length > 0) return errs;
  const canonical = formatIP(ip);
  return value === canonical ? [] : [field.invalid(path, value, `must be in canonical form (${JSON.stringify(canonical)})`)];
}

/** `IsValidCIDRForLegacyField(path, value, strictValidation=false, validOldCIDRs)`: the value parses, or was already stored. */
export function isValidCIDRForLegacyField(path: string, value: string, validOld: readonly string[] = []): FieldError[] {
  if (validOld.includes(value)) return [];
  return parseCIDRSloppy(value) ? [] : [field.invalid(path, value, INVALID_CIDR)];
}

/**
 * `IsValidCIDR`: a valid subnet without leading zeros, not IPv4-mapped, with no bits set beyond the
 * prefix length, in canonical form.
 */
export function isValidCIDR(path: string, value: string): FieldError[] {
  const n = parseCIDRSloppy(value);
  if (!n) return [field.invalid(path, value, INVALID_CIDR)];
  if (cidrHasLeadingZeros(value)) return [field.invalid(path, value, 'must not have leading 0s in IP or prefix length')];
  if (is4In6(n.ip)) return [field.invalid(path, value, 'must not have an IPv4-mapped IPv6 address')];
  if (!ipEqual(n.ip, n.network)) return [field.invalid(path, value, 'must not have bits set beyond the prefix length')];
  const canonical = formatCIDR(n);
  return value === canonical ? [] : [field.invalid(path, value, `must be in canonical form (${JSON.stringify(canonical)})`)];
}
