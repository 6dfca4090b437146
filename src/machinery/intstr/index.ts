/**
 * `intstr.IntOrString` (apimachinery/pkg/util/intstr/intstr.go): a field that holds either an integer
 * or a string, e.g. `maxSurge: 1` or `maxSurge: "25%"`.
 */

/** An integer or a string such as `"25%"` or a named port `"http"`. */
export type IntOrString = number | string;

/** True for a string ending in `%`. */
export function isPercent(v: IntOrString | undefined | null): v is string {
  return typeof v === 'string' && v.endsWith('%');
}

/** Go's strconv.Atoi syntax: optional sign, decimal digits. */
const ATOI_RE = /^[+-]?\d+$/;

/**
 * `GetScaledValueFromIntOrPercent`: an integer is returned as is; `"N%"` is N percent of `total`,
 * rounded up (`roundUp`) or down. Worked example: `"25%"` of 10 is 2.5, so 3 rounding up (maxSurge)
 * and 2 rounding down (maxUnavailable).
 * @throws Error `nil value for IntOrString` (undefined),
 *   `invalid value for IntOrString: invalid type: string is not a percentage` (`"5"`),
 *   `invalid value for IntOrString: invalid value "x%": strconv.Atoi: parsing "x": invalid syntax`.
 */
export function getScaledValueFromIntOrPercent(v: IntOrString | undefined | null, total: number, roundUp: boolean): number {
  if (v === undefined || v === null) throw new Error('nil value for IntOrString');
  if (typeof v === 'number') return Math.trunc(v);
  if (typeof v !== 'string') throw new Error('invalid value for IntOrString: invalid type: neither int nor percentage');
  if (!v.endsWith('%')) throw new Error('invalid value for IntOrString: invalid type: string is not a percentage');
  const s = v.slice(0, -1);
  if (!ATOI_RE.test(s)) {
    throw new Error(`invalid value for IntOrString: invalid value ${JSON.stringify(v)}: strconv.Atoi: parsing ${JSON.stringify(s)}: invalid syntax`);
  }
  const scaled = (Number(s) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}
