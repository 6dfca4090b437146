/**
 * Go's `time.ParseDuration` (src/time/format.go), for the durations Kubernetes takes in URLs and
 * flags: `?timeout=30s`, `--request-timeout=1m0s`. The result is in **milliseconds** (possibly
 * fractional: `1500us` is 1.5).
 */

/** Milliseconds per unit, as Go's `unitMap` (both micro signs included). */
const unitMs: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  'µs': 1e-3, // U+00B5 micro sign
  'μs': 1e-3, // U+03BC Greek mu
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Go durations are int64 nanoseconds: about 292 years. */
const MAX_MS = 9_223_372_036_854.775;

/** Go's `quote`: double quotes, `"` and `\` escaped, control and non-ASCII bytes as `\xHH`. */
function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    if (c < 0x20 || c >= 0x80) {
      for (const b of Buffer.from(ch, 'utf8')) out += `\\x${b.toString(16).padStart(2, '0')}`;
    } else {
      out += ch === '"' || ch === '\\' ? `\\${ch}` : ch;
    }
  }
  return `${out}"`;
}

/**
 * Parses a duration such as `300ms`, `-1.5h` or `2h45m`: an optional sign, then one or more decimal
 * numbers each with a unit (ns, us, µs, ms, s, m, h). `0` needs no unit. Returns milliseconds.
 * @throws Error with Go's message: `time: invalid duration "x"`, `time: missing unit in duration "1"`,
 *   `time: unknown unit "d" in duration "1d"`.
 */
export function parseDuration(s: string): number {
  const invalid = (): Error => new Error(`time: invalid duration ${quote(s)}`);
  let rest = s;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest.startsWith('-')) sign = -1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw invalid();
  let total = 0;
  while (rest !== '') {
    const num = /^(\d*)(?:\.(\d*))?/.exec(rest) as RegExpExecArray;
    const [whole, int = '', frac] = num;
    if (int === '' && (frac === undefined || frac === '')) throw invalid();
    rest = rest.slice(whole.length);
    const unit = /^[^\d.]*/.exec(rest)?.[0] ?? '';
    if (unit === '') throw new Error(`time: missing unit in duration ${quote(s)}`);
    const ms = unitMs[unit];
    if (ms === undefined) throw new Error(`time: unknown unit ${quote(unit)} in duration ${quote(s)}`);
    rest = rest.slice(unit.length);
    total += Number(`${int || '0'}.${frac ?? ''}0`) * ms;
    if (total > MAX_MS) throw invalid();
  }
  return sign * total;
}
