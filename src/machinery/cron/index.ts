/**
 * Cron schedules as Kubernetes reads them: `cron.ParseStandard` of github.com/robfig/cron/v3
 * (parser.go, v3.0.1, vendored by Kubernetes v1.33), which the CronJob validation runs on
 * `spec.schedule` and whose error text becomes the 422 message (`spec.schedule: Invalid value:
 * "61 * * * *": end of range (61) above maximum (59): 61`); and Go's `time.LoadLocation`, which
 * decides which `spec.timeZone` names exist.
 *
 * Why not an npm cron library: the validation must accept exactly what robfig/cron accepts (five
 * fields, `?`, names, `@every`, a `TZ=`/`CRON_TZ=` prefix) and word its errors the same way; the
 * libraries accept other grammars (seconds, `L`, `W`, `#`) and word errors their own way.
 *
 * The parsed {@link CronSchedule} keeps what robfig's `SpecSchedule.Next` needs (the allowed values
 * of each field and whether day-of-month and day-of-week were `*`), for the CronJob controller (a
 * later issue) to compute activation times from.
 */
import { goQuote } from '../errors/index.js';
import { parseDuration } from '../duration/index.js';

/** One field of a spec schedule: the values it allows, ascending, and whether it was `*` or `?` (robfig's starBit). */
export interface CronField {
  values: readonly number[];
  star: boolean;
}

/** A parsed schedule: five fields (robfig `SpecSchedule`, seconds fixed at 0) or `@every <duration>` (robfig `ConstantDelaySchedule`). */
export type CronSchedule =
  | {
      kind: 'spec';
      minute: CronField;
      hour: CronField;
      dom: CronField;
      month: CronField;
      dow: CronField;
      /** The `TZ=`/`CRON_TZ=` location; undefined when the schedule names none (the process' local zone). */
      location?: string;
    }
  | { kind: 'every'; /** Milliseconds, as robfig `Every` keeps them: whole seconds, at least one. */ everyMs: number; location?: string };

interface Bounds {
  min: number;
  max: number;
  names?: Readonly<Record<string, number>>;
}

const MINUTES: Bounds = { min: 0, max: 59 };
const HOURS: Bounds = { min: 0, max: 23 };
const DOM: Bounds = { min: 1, max: 31 };
const MONTHS: Bounds = {
  min: 1,
  max: 12,
  names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 },
};
const DOW: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };

/** A schedule robfig rejects; `message` is its error text. */
export class CronParseError extends Error {
  override readonly name = 'CronParseError';
}

const fail = (message: string): never => {
  throw new CronParseError(message);
};

const INT64_MAX = 2n ** 63n - 1n;

/** Go's `strconv.Atoi` error text: `strconv.Atoi: parsing "x": invalid syntax` / `value out of range`. */
function atoi(s: string): bigint {
  const err = (why: string): never => fail(`strconv.Atoi: parsing ${goQuote(s)}: ${why}`);
  let digits = s;
  let negative = false;
  if (digits.startsWith('+') || digits.startsWith('-')) {
    negative = digits.startsWith('-');
    digits = digits.slice(1);
  }
  if (digits === '') return err('invalid syntax');
  let n = 0n;
  const limit = negative ? INT64_MAX + 1n : INT64_MAX;
  for (const ch of digits) {
    if (ch < '0' || ch > '9') return err('invalid syntax');
    n = n * 10n + BigInt(ch.charCodeAt(0) - 48);
    // ParseInt stops at the first overflow, before looking at the characters after it.
    if (n > limit) return err('value out of range');
  }
  return negative ? -n : n;
}

/** robfig `mustParseInt`: a non-negative decimal integer. */
function mustParseInt(expr: string): bigint {
  let num: bigint;
  try {
    num = atoi(expr);
  } catch (e) {
    return fail(`failed to parse int from ${expr}: ${(e as Error).message}`);
  }
  if (num < 0n) fail(`negative number (${num}) not allowed: ${expr}`);
  return num;
}

/** robfig `parseIntOrName`: a month or weekday name (any case) where the field has names, else a number. */
function parseIntOrName(expr: string, names: Bounds['names']): bigint {
  const named = names?.[expr.toLowerCase()];
  return named !== undefined ? BigInt(named) : mustParseInt(expr);
}

/** robfig `getRange`: `*`, `?`, `n`, `n-m`, each optionally `/step`; adds the allowed values to `into`. */
function getRange(expr: string, r: Bounds, into: Set<number>): boolean {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = (rangeAndStep[0] ?? '').split('-');
  const first = lowAndHigh[0] ?? '';
  let start: bigint;
  let end: bigint;
  let star = false;
  if (first === '*' || first === '?') {
    start = BigInt(r.min);
    end = BigInt(r.max);
    star = true;
  } else {
    start = parseIntOrName(first, r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1] ?? '', r.names);
    else return fail(`too many hyphens: ${expr}`);
  }
  let step = 1n;
  if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1] ?? '');
    // "N/step" means "N-max/step".
    if (lowAndHigh.length === 1) end = BigInt(r.max);
    if (step > 1n) star = false;
  } else if (rangeAndStep.length > 2) {
    fail(`too many slashes: ${expr}`);
  }
  if (start < BigInt(r.min)) fail(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > BigInt(r.max)) fail(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) fail(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0n) fail(`step of range should be a positive number: ${expr}`);
  for (let i = Number(start); i <= Number(end); i += Number(step)) into.add(i);
  return star;
}

/** robfig `getField`: comma-separated ranges (empty pieces skipped, as Go's `strings.FieldsFunc`). */
function getField(field: string, r: Bounds): CronField {
  const values = new Set<number>();
  let star = false;
  for (const expr of field.split(',').filter((p) => p !== '')) star = getRange(expr, r, values) || star;
  return { values: [...values].sort((a, b) => a - b), star };
}

const allOf = (r: Bounds): CronField => ({ values: Array.from({ length: r.max - r.min + 1 }, (_, i) => r.min + i), star: true });
const only = (v: number): CronField => ({ values: [v], star: false });

/** robfig `parseDescriptor`: `@yearly` `@annually` `@monthly` `@weekly` `@daily` `@midnight` `@hourly`, `@every <duration>`. */
function parseDescriptor(descriptor: string, location: string | undefined): CronSchedule {
  const loc = location === undefined ? {} : { location };
  const at = (hour: CronField, dom: CronField, month: CronField, dow: CronField): CronSchedule => ({ kind: 'spec', minute: only(0), hour, dom, month, dow, ...loc });
  switch (descriptor) {
    case '@yearly':
    case '@annually':
      return at(only(0), only(1), only(1), allOf(DOW));
    case '@monthly':
      return at(only(0), only(1), allOf(MONTHS), allOf(DOW));
    case '@weekly':
      return at(only(0), allOf(DOM), allOf(MONTHS), only(0));
    case '@daily':
    case '@midnight':
      return at(only(0), allOf(DOM), allOf(MONTHS), allOf(DOW));
    case '@hourly':
      return at(allOf(HOURS), allOf(DOM), allOf(MONTHS), allOf(DOW));
  }
  const every = '@every ';
  if (descriptor.startsWith(every)) {
    let ms: number;
    try {
      ms = parseDuration(descriptor.slice(every.length));
    } catch (e) {
      return fail(`failed to parse duration ${descriptor}: ${(e as Error).message}`);
    }
    // robfig `Every`: below one second means one second; fractions of a second are dropped.
    return { kind: 'every', everyMs: Math.max(1000, ms - (ms % 1000)), ...loc };
  }
  return fail(`unrecognized descriptor: ${descriptor}`);
}

/** Go's `strings.Fields`: split on Unicode white space, empty strings dropped. */
function goFields(s: string): string[] {
  return s.split(/[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u).filter((f) => f !== '');
}

/**
 * `cron.ParseStandard`: a schedule of five fields (minute, hour, day of month, month, day of week)
 * or a descriptor, optionally after `TZ=<zone> ` or `CRON_TZ=<zone> `.
 * @throws CronParseError with robfig's message: `empty spec string`, `expected exactly 5 fields,
 *   found 1: [foo]`, `failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax`, `end of
 *   range (61) above maximum (59): 61`, `provided bad location Mars/Base: unknown time zone
 *   Mars/Base`, `unrecognized descriptor: @often`…
 */
export function parseStandard(standardSpec: string): CronSchedule {
  let spec = standardSpec;
  if (spec === '') fail('empty spec string');
  let location: string | undefined;
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const eq = spec.indexOf('=');
    const space = spec.indexOf(' ');
    // Without a space robfig slices out of range and panics (a 500 upstream); here the whole rest is
    // the zone and no fields follow it.
    const end = space < 0 ? spec.length : space;
    location = spec.slice(eq + 1, end);
    const why = loadLocationError(location);
    if (why !== undefined) fail(`provided bad location ${location}: ${why}`);
    spec = spec.slice(end).trim();
  }
  if (spec.startsWith('@')) return parseDescriptor(spec, location);
  const fields = goFields(spec);
  if (fields.length !== 5) fail(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  const [minute = '', hour = '', dom = '', month = '', dow = ''] = fields;
  return {
    kind: 'spec',
    minute: getField(minute, MINUTES),
    hour: getField(hour, HOURS),
    dom: getField(dom, DOM),
    month: getField(month, MONTHS),
    dow: getField(dow, DOW),
    ...(location === undefined ? {} : { location }),
  };
}

/** The error `parseStandard` would throw for `spec`, or undefined when it parses. */
export function scheduleError(spec: string): string | undefined {
  try {
    parseStandard(spec);
    return undefined;
  } catch (e) {
    if (e instanceof CronParseError) return e.message;
    throw e;
  }
}

let zones: ReadonlySet<string> | undefined;

/** The IANA zone names ICU knows (canonical names only; aliases such as `US/Eastern` are not listed). */
function knownZones(): ReadonlySet<string> {
  zones ??= new Set(Intl.supportedValuesOf('timeZone'));
  return zones;
}

/**
 * Go's `time.LoadLocation` as an error text: undefined when `name` is a zone (also `""` and `UTC`,
 * which are UTC, and `Local`); `time: invalid location name` for names with `..` or a leading slash;
 * else `unknown time zone <name>`.
 *
 * Zones come from ICU (Node's `Intl`), not Go's tz database: the same IANA names, with two
 * differences. ICU lacks a few oddities Go's database has (`Factory`); and ICU matches names in any
 * case while Go's file lookup does not, so a name must be a canonical ICU name as written, or an
 * alias whose every part begins with a capital (`US/Eastern`, `Etc/GMT+5`, `EST`) and that is not a
 * mis-cased canonical name (`america/new_york` is unknown to Go).
 */
export function loadLocationError(name: string): string | undefined {
  if (name === '' || name === 'UTC' || name === 'Local') return undefined;
  if (name.includes('..') || name.startsWith('/') || name.startsWith('\\')) return 'time: invalid location name';
  const unknown = `unknown time zone ${name}`;
  if (knownZones().has(name)) return undefined;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return unknown;
  }
  if (resolved === name) return undefined;
  if (resolved.toLowerCase() === name.toLowerCase()) return unknown;
  return name.split('/').every((part) => /^[A-Z]/.test(part)) ? undefined : unknown;
}

export { nextActivation, goDate, wallTime, zoneOffset, formatRFC3339In, type WallTime } from './next.js';
