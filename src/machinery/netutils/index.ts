/**
 * IP addresses and CIDRs as Go parses and prints them: k8s.io/utils/net `ParseIPSloppy` and
 * `ParseCIDRSloppy` (Go 1.16's net.ParseIP/ParseCIDR, which accept IPv4 octets with leading zeros),
 * the stricter `net/netip` `ParseAddr`/`ParsePrefix`, and `net.IP.String()` / `net.IPNet.String()`
 * (dotted IPv4; RFC 5952 IPv6: lower case, no leading zeros, the first longest run of two or more
 * zero groups as `::`). Addresses are byte arrays of 4 (IPv4) or 16 (IPv6) bytes. Pure.
 */

/** An IP address: 4 bytes for IPv4 text, 16 for IPv6 text (IPv4-mapped ones included). */
export type IP = Uint8Array;

/** A parsed CIDR: the address as written, the prefix length and the masked network address. */
export interface IPNet {
  /** The address before the slash, as parsed. */
  ip: IP;
  /** Prefix length in bits. */
  prefix: number;
  /** `ip` masked to `prefix` bits, in `ip`'s length. */
  network: IP;
}

/** How an address was written, for netip's stricter rules. */
interface Parsed {
  ip: IP;
  /** An IPv4 octet with a leading zero, or an IPv6 group of more than four digits. */
  leadingZeros: boolean;
}

const DECIMAL = /^[0-9]+$/;
const HEX = /^[0-9a-fA-F]+$/;

function parseIPv4(s: string): Parsed | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const ip = new Uint8Array(4);
  let leadingZeros = false;
  for (let i = 0; i < 4; i++) {
    const p = parts[i] as string;
    if (!DECIMAL.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    if (p.length > 1 && p.startsWith('0')) leadingZeros = true;
    ip[i] = n;
  }
  return { ip, leadingZeros };
}

/**
 * Hex groups of an IPv6 address as 16-bit words; `last` allows an embedded IPv4 address as the final
 * group (two words). Undefined when a group is malformed.
 */
function ipv6Words(text: string, last: boolean, out: { leadingZeros: boolean }): number[] | undefined {
  if (text === '') return [];
  const groups = text.split(':');
  const words: number[] = [];
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i] as string;
    if (last && i === groups.length - 1 && g.includes('.')) {
      const v4 = parseIPv4(g);
      if (!v4) return undefined;
      out.leadingZeros ||= v4.leadingZeros;
      words.push(((v4.ip[0] as number) << 8) | (v4.ip[1] as number), ((v4.ip[2] as number) << 8) | (v4.ip[3] as number));
      continue;
    }
    if (!HEX.test(g) || g.length > 6) return undefined;
    const n = parseInt(g, 16);
    if (n > 0xffff) return undefined;
    if (g.length > 4) out.leadingZeros = true;
    words.push(n);
  }
  return words;
}

/** Go's parseIPv6: hex groups, at most one `::` standing for one or more zero groups, an embedded IPv4 address at the end; no zones. */
function parseIPv6(s: string): Parsed | undefined {
  const flags = { leadingZeros: false };
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const head = ipv6Words(halves[0] as string, halves.length === 1, flags);
  const tail = halves.length === 2 ? ipv6Words(halves[1] as string, true, flags) : [];
  if (!head || !tail) return undefined;
  let words: number[];
  if (halves.length === 2) {
    if (head.length + tail.length >= 8) return undefined;
    words = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  } else if (head.length === 8) words = head;
  else return undefined;
  const ip = new Uint8Array(16);
  words.forEach((w, i) => {
    ip[2 * i] = w >> 8;
    ip[2 * i + 1] = w & 0xff;
  });
  return { ip, leadingZeros: flags.leadingZeros };
}

function parse(s: string): Parsed | undefined {
  return s.includes(':') ? parseIPv6(s) : parseIPv4(s);
}

/** `netutils.ParseIPSloppy`: the address, or undefined when `s` is not one (zones are not accepted). */
export function parseIPSloppy(s: string): IP | undefined {
  return parse(s)?.ip;
}

/** True when `s` parses (sloppily) but netip.ParseAddr would refuse it: leading zeros. */
export function hasLeadingZeros(s: string): boolean {
  return parse(s)?.leadingZeros ?? false;
}

/** `ip.To4()`: the 4 bytes of an IPv4 or IPv4-mapped IPv6 address, else undefined. */
export function to4(ip: IP): IP | undefined {
  if (ip.length === 4) return ip;
  for (let i = 0; i < 10; i++) if (ip[i] !== 0) return undefined;
  return ip[10] === 0xff && ip[11] === 0xff ? ip.subarray(12) : undefined;
}

/** `netip.Addr.Is4In6`: an IPv4-mapped IPv6 address written as IPv6 (`::ffff:1.2.3.4`). */
export function is4In6(ip: IP): boolean {
  return ip.length === 16 && to4(ip) !== undefined;
}

/** `net.IP.String()`: `10.0.0.1`, `2001:db8::1` (IPv4-mapped addresses print as IPv4). */
export function formatIP(ip: IP): string {
  const v4 = to4(ip);
  if (v4) return Array.from(v4).join('.');
  const words = Array.from({ length: 8 }, (_, i) => ((ip[2 * i] as number) << 8) | (ip[2 * i + 1] as number));
  let start = -1;
  let end = -1;
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i >= 2 && j - i > end - start) {
      start = i;
      end = j;
    }
  }
  const hex = (ws: number[]): string => ws.map((w) => w.toString(16)).join(':');
  if (start < 0) return hex(words);
  return `${hex(words.slice(0, start))}::${hex(words.slice(end))}`;
}

function mask(ip: IP, prefix: number): IP {
  const out = new Uint8Array(ip.length);
  for (let i = 0; i < ip.length; i++) {
    const bits = Math.max(0, Math.min(8, prefix - 8 * i));
    out[i] = (ip[i] as number) & ((0xff << (8 - bits)) & 0xff);
  }
  return out;
}

/**
 * `netutils.ParseCIDRSloppy`: `a.b.c.d/n` or `x:y::z/n` with 0 ≤ n ≤ 32 (128); the prefix length may
 * have leading zeros, the address bits beyond it may be set (`10.0.0.1/8`). Undefined when invalid.
 */
export function parseCIDRSloppy(s: string): IPNet | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIPSloppy(s.slice(0, slash));
  const bits = s.slice(slash + 1);
  if (!ip || !DECIMAL.test(bits)) return undefined;
  const prefix = Number(bits);
  if (prefix > 8 * ip.length) return undefined;
  return { ip, prefix, network: mask(ip, prefix) };
}

/** True when netip.ParsePrefix would refuse a CIDR {@link parseCIDRSloppy} accepts: leading zeros in the address or the prefix length. */
export function cidrHasLeadingZeros(s: string): boolean {
  const slash = s.indexOf('/');
  const bits = s.slice(slash + 1);
  return hasLeadingZeros(s.slice(0, slash)) || (bits.length > 1 && bits.startsWith('0'));
}

/** `net.IPNet.String()`: the masked network and the prefix length, `10.96.0.0/12`. */
export function formatCIDR(n: IPNet): string {
  // An IPv4-mapped network prints in IPv4 form with the prefix counted from its IPv4 bits.
  const v4 = n.network.length === 16 ? to4(n.network) : undefined;
  if (v4 && n.prefix >= 96) return `${formatIP(v4)}/${n.prefix - 96}`;
  return `${formatIP(n.network)}/${n.prefix}`;
}

/** True when `a` and `b` hold the same bytes. */
export function ipEqual(a: IP, b: IP): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** `IPNet.Contains(ip)`: `ip` is in the network (IPv4-mapped addresses compare as IPv4). */
export function cidrContains(n: IPNet, ip: IP): boolean {
  const v4 = n.network.length === 16 && n.prefix >= 96 ? to4(n.network) : undefined;
  const network = v4 ?? n.network;
  const prefix = v4 ? n.prefix - 96 : n.prefix;
  const addr = to4(ip) ?? ip;
  if (addr.length !== network.length) return false;
  return ipEqual(mask(addr, prefix), network);
}

/** `netutils.IPFamilyOfCIDRString`: `4`, `6`, or undefined when `s` is not a CIDR. */
export function ipFamilyOfCIDRString(s: string): 4 | 6 | undefined {
  const n = parseCIDRSloppy(s);
  if (!n) return undefined;
  return to4(n.ip) ? 4 : 6;
}
