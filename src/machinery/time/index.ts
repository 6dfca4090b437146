/**
 * What `metav1.Time` and `metav1.MicroTime` accept when they are decoded from JSON, with Go's error
 * text: `Time.UnmarshalJSON` parses with `time.RFC3339` (`2006-01-02T15:04:05Z07:00`), `MicroTime`'s
 * with `RFC3339Micro` (`2006-01-02T15:04:05.000000Z07:00`) (k8s.io/apimachinery/pkg/apis/meta/v1/
 * time.go, micro_time.go). The errors are Go's `time.ParseError` (go/src/time/format.go `Parse`):
 *
 * - `parsing time "2025-1-01T00:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse "1-01T00:00:00Z" as "01"`
 * - `parsing time "2025-13-01T00:00:00Z": month out of range`
 * - `parsing time "2025-01-01T00:00:00Zjunk": extra text: "junk"`
 *
 * Only the layout elements of these two layouts are implemented: a 4-digit year, 2-digit month, day,
 * minute and second, a 1- or 2-digit hour, `.000000` (exactly six digits), and a `Z` or `±hh:mm`
 * offset. As in Go, a fraction after the seconds is accepted even when the layout has none.
 */

/** `time.RFC3339`, the layout of metav1.Time. */
export const RFC3339 = '2006-01-02T15:04:05Z07:00';
/** `metav1.RFC3339Micro`, the layout of metav1.MicroTime. */
export const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';

/** A layout element: `year` … `zone` for Go's std elements, else the literal text itself. */
type Element = string;

/** The layouts as Go's nextStdChunk splits them: std elements and the literal text between them. */
const LAYOUTS: Record<string, readonly [Element, string][]> = {
  [RFC3339]: [
    ['year', '2006'], ['-', '-'], ['month', '01'], ['-', '-'], ['day', '02'], ['T', 'T'], ['hour', '15'],
    [':', ':'], ['minute', '04'], [':', ':'], ['second', '05'], ['zone', 'Z07:00'],
  ],
  [RFC3339_MICRO]: [
    ['year', '2006'], ['-', '-'], ['month', '01'], ['-', '-'], ['day', '02'], ['T', 'T'], ['hour', '15'],
    [':', ':'], ['minute', '04'], [':', ':'], ['second', '05'], ['micros', '.000000'], ['zone', 'Z07:00'],
  ],
};

/** Go's time `quote`: the string in double quotes with `"` and `\` escaped. */
function quote(s: string): string {
  return `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

const isDigit = (s: string, i: number): boolean => i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57;

/** Go's `getnum`: one or two digits (exactly two when `fixed`); undefined when malformed. */
function getnum(s: string, fixed: boolean): [number, string] | undefined {
  if (!isDigit(s, 0)) return undefined;
  if (!isDigit(s, 1)) return fixed ? undefined : [Number(s[0]), s.slice(1)];
  return [Number(s.slice(0, 2)), s.slice(2)];
}

function daysIn(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * Go's `time.Parse(layout, value)` error for one of {@link RFC3339} and {@link RFC3339_MICRO}, or
 * undefined when `value` parses. Pure; no allocation beyond the error text.
 */
export function goTimeParseError(value: string, layout: typeof RFC3339 | typeof RFC3339_MICRO): string | undefined {
  const bad = (rest: string, elem: string): string => `parsing time ${quote(value)} as ${quote(layout)}: cannot parse ${quote(rest)} as ${quote(elem)}`;
  const range = (what: string): string => `parsing time ${quote(value)}: ${what} out of range`;
  let rest = value;
  let year = 0;
  let month = 0;
  let day = 0;
  for (const [elem, text] of LAYOUTS[layout] as readonly [Element, string][]) {
    switch (elem) {
      case 'year': {
        if (rest.length < 4 || ![0, 1, 2, 3].every((i) => isDigit(rest, i))) return bad(rest, text);
        year = Number(rest.slice(0, 4));
        rest = rest.slice(4);
        break;
      }
      case 'month':
      case 'day':
      case 'hour':
      case 'minute':
      case 'second': {
        const got = getnum(rest, elem !== 'hour');
        if (!got) return bad(rest, text);
        const [n, after] = got;
        if (elem === 'month' && (n < 1 || n > 12)) return range('month');
        if (elem === 'hour' && n >= 24) return range('hour');
        if (elem === 'minute' && n >= 60) return range('minute');
        if (elem === 'second' && n >= 60) return range('second');
        if (elem === 'month') month = n;
        if (elem === 'day') day = n;
        rest = after;
        // A fraction right after the seconds is accepted even when the layout names none.
        if (elem === 'second' && layout === RFC3339 && rest.length >= 2 && (rest[0] === '.' || rest[0] === ',') && isDigit(rest, 1)) {
          let i = 2;
          while (isDigit(rest, i)) i++;
          rest = rest.slice(i);
        }
        break;
      }
      case 'micros': {
        if (rest.length < 7 || (rest[0] !== '.' && rest[0] !== ',') || ![1, 2, 3, 4, 5, 6].every((i) => isDigit(rest, i))) return bad(rest, text);
        rest = rest.slice(7);
        break;
      }
      case 'zone': {
        if (rest.startsWith('Z')) {
          rest = rest.slice(1);
          break;
        }
        if (rest.length < 6 || rest[3] !== ':' || (rest[0] !== '+' && rest[0] !== '-')) return bad(rest, text);
        const hh = getnum(rest.slice(1, 3), true);
        const mm = getnum(rest.slice(4, 6), true);
        if (!hh || !mm) return bad(rest, text);
        if (hh[0] > 24) return range('time zone offset hour');
        if (mm[0] > 60) return range('time zone offset minute');
        rest = rest.slice(6);
        break;
      }
      default: {
        if (!rest.startsWith(text)) return bad(rest, text);
        rest = rest.slice(text.length);
      }
    }
  }
  if (rest.length > 0) return `parsing time ${quote(value)}: extra text: ${quote(rest)}`;
  // Go accepts any one- or two-digit day while parsing and checks it against the month at the end.
  if (day < 1 || day > daysIn(month, year)) return range('day');
  return undefined;
}
