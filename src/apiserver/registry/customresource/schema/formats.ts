/**
 * The string formats custom-object validation checks: the set upstream keeps
 * (k8s.io/apiextensions-apiserver pkg/apiserver/validation/formats.go, StripUnsupportedFormatsPostProcess:
 * any other format, e.g. `int32` or `int64`, is dropped from the schema and not checked) and their
 * checkers in k8s.io/kube-openapi pkg/validation/strfmt (default.go, time.go, date.go, duration.go,
 * bson.go) and its govalidator copy.
 */
import { parseCIDRSloppy, parseIPSloppy } from '../../../../machinery/netutils/index.js';

/** `2006-01-02` as Go's time.Parse checks it (month 1–12, day valid for the month). */
function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return d <= (days[mo - 1] as number);
}

/** strfmt `IsDateTime`: a date, `t`, then `hh:mm:ss[.frac](z|±hh:mm)`, case-insensitive. */
function isDateTime(str: string): boolean {
  if (str.length < 4) return false;
  const parts = str.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0] as string)) return false;
  const m = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/.exec(parts[1] as string);
  if (!m) return false;
  return (m[1] as string) <= '23' && (m[2] as string) <= '59' && (m[3] as string) <= '59';
}

const DURATION_UNITS = new Set(['ns', 'nano', 'us', 'µs', 'micro', 'ms', 'milli', 's', 'sec', 'm', 'min', 'h', 'hr', 'hour', 'd', 'day', 'w', 'wk', 'week']);

/** Go's `time.ParseDuration` (`1h30m`, `-1.5s`, `0`). */
function isGoDuration(s: string): boolean {
  return s === '0' || /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/.test(s);
}

/** strfmt `ParseDuration`: Go's syntax, else `<n> <unit>` with the long unit names (plural allowed). */
function isDuration(s: string): boolean {
  if (isGoDuration(s)) return true;
  const m = /^(\d+)\s*([A-Za-zµ]+)$/.exec(s.trim());
  if (!m) return false;
  const unit = (m[2] as string).toLowerCase();
  return DURATION_UNITS.has(unit) || (unit.endsWith('s') && DURATION_UNITS.has(unit.slice(0, -1)));
}

/** Go's `url.ParseRequestURI`: an absolute URI (`scheme:...`) or an absolute path, no spaces or control characters. */
function isRequestURI(s: string): boolean {
  if (s === '' || /\s/.test(s) || Array.from(s).some((c) => (c.codePointAt(0) as number) < 0x20 || c === '\x7f')) return false;
  if (s.startsWith('/')) return true;
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/.exec(s);
  if (!m) return false;
  const rest = m[2] as string;
  if (rest.startsWith('//')) {
    const host = rest.slice(2).split(/[/?#]/)[0] as string;
    return !/[\s<>"{}|\\^`]/.test(host);
  }
  return true;
}

/** `net/mail.ParseAddress`, loosely: `local@domain` or `Name <local@domain>`. */
function isEmail(s: string): boolean {
  const addr = /^[^<>]*<([^<>]+)>$/.exec(s)?.[1] ?? s;
  return /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+$/.test(addr.trim());
}

const HOSTNAME = /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;

function isHostname(s: string): boolean {
  return HOSTNAME.test(s) && Buffer.byteLength(s) <= 255 && s.split('.').every((p) => Buffer.byteLength(p) <= 63);
}

/** Go's `net.ParseMAC`: 6, 8 or 20 octets as `xx:xx…`, `xx-xx…` or `xxxx.xxxx…`. */
function isMAC(s: string): boolean {
  const n = (count: number): string => `{${count - 1}}`;
  const lens = [6, 8, 20];
  return lens.some(
    (l) =>
      new RegExp(`^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2})${n(l)}$`).test(s) ||
      new RegExp(`^[0-9a-fA-F]{2}(-[0-9a-fA-F]{2})${n(l)}$`).test(s) ||
      new RegExp(`^[0-9a-fA-F]{4}(\\.[0-9a-fA-F]{4})${n(l / 2)}$`).test(s),
  );
}

function isISBN(str: string, version: 10 | 13): boolean {
  const s = str.replace(/[\s-]+/g, '');
  if (version === 10) {
    if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(s)) return false;
    let sum = 0;
    for (let i = 0; i < 9; i++) sum += (i + 1) * Number(s[i]);
    sum += s[9] === 'X' ? 100 : 10 * Number(s[9]);
    return sum % 11 === 0;
  }
  if (!/^[0-9]{13}$/.test(s)) return false;
  const factor = [1, 3];
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (factor[i % 2] as number) * Number(s[i]);
  return (10 - (sum % 10)) % 10 === Number(s[12]);
}

function isCreditCard(str: string): boolean {
  const s = str.replace(/[^0-9]+/g, '');
  if (!/^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/.test(s)) return false;
  let sum = 0;
  let double = false;
  for (let i = s.length - 1; i >= 0; i--) {
    let d = Number(s[i]);
    if (double) {
      d *= 2;
      if (d >= 10) d = (d % 10) + 1;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

const CHECKERS: Record<string, (s: string) => boolean> = {
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  uri: isRequestURI,
  email: isEmail,
  hostname: isHostname,
  ipv4: (s) => parseIPSloppy(s) !== undefined && s.includes('.'),
  ipv6: (s) => parseIPSloppy(s) !== undefined && s.includes(':'),
  cidr: (s) => parseCIDRSloppy(s) !== undefined,
  mac: isMAC,
  uuid: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  uuid3: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  uuid4: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(s),
  uuid5: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(s),
  isbn: (s) => isISBN(s, 10) || isISBN(s, 13),
  isbn10: (s) => isISBN(s, 10),
  isbn13: (s) => isISBN(s, 13),
  creditcard: isCreditCard,
  ssn: (s) => s.length === 11 && /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(s),
  hexcolor: (s) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(s),
  rgbcolor: (s) =>
    /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/.test(s),
  byte: (s) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/.test(s),
  password: () => true,
  date: isDate,
  duration: isDuration,
  datetime: isDateTime,
};

/** go-openapi's name normalization: `date-time` and `datetime` are one format. */
function normalize(format: string): string {
  return format.replaceAll('-', '');
}

/** True when upstream validates `format` (after StripUnsupportedFormatsPostProcess); `int32`, `float` … are not. */
export function isSupportedFormat(format: string): boolean {
  return Object.hasOwn(CHECKERS, normalize(format));
}

/** True when `value` is a valid string of the supported `format` (see {@link isSupportedFormat}). */
export function checkFormat(format: string, value: string): boolean {
  const c = CHECKERS[normalize(format)];
  return c === undefined || c(value);
}
