/**
 * `resource.Quantity` (apimachinery/pkg/api/resource/quantity.go, suffix.go, amount.go): parsing
 * `100m`, `0.5`, `128Mi`, `1e3`, exact decimal arithmetic on BigInt, and the canonical string form
 * the API server writes back (`0.5` → `500m`, `1.5Gi` → `1536Mi`, `1000m` → `1`).
 *
 * A quantity is `mantissa × 10^exp` plus the format of its suffix (DecimalSI `k M G…`, BinarySI
 * `Ki Mi Gi…`, DecimalExponent `e3`). Like upstream, parsed values are rounded away from zero to
 * nano units (`0.1n` → `1n`). Upstream's clamp of BinarySI values to int64 is not reproduced.
 */

/** The suffix family a quantity was written with; it is kept for serialization. */
export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** A parsed quantity. */
export interface Quantity {
  readonly format: QuantityFormat;
  /** `ceil(q × 1000)` (away from zero): millicores for cpu. `100m` → 100, `1` → 1000. */
  milliValue(): number;
  /** `ceil(q)` (away from zero), in base units: bytes for memory. `128Mi` → 134217728, `100m` → 1. */
  value(): number;
  /**
   * `ScaledValue(scale)`: `ceil(q × 10^-scale)` (away from zero); `scaledValue(-9)` is in nano units
   * (nanocores for cpu: `250m` → 250000000).
   */
  scaledValue(scale: number): number;
  /** Canonical form, as the API server serializes it. */
  toString(): string;
  /** `Quantity.Cmp`: -1, 0 or 1 as this quantity is less than, equal to or greater than `other`, exactly. */
  cmp(other: Quantity): -1 | 0 | 1;
  /** `Quantity.Add` on a copy: the exact sum, in this quantity's format (`other`'s when this one is zero). */
  add(other: Quantity): Quantity;
  /** `Quantity.Sub` on a copy: the exact difference, in this quantity's format (`other`'s when this one is zero). */
  sub(other: Quantity): Quantity;
}

const SPLIT_RE_STRING = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
/** `resource.ErrFormatWrong`. */
const ERR_FORMAT_WRONG = `quantities must match the regular expression '${SPLIT_RE_STRING}'`;
/** `resource.ErrSuffix`. */
const ERR_SUFFIX = "unable to parse quantity's suffix";

const QUANTITY_RE = /^([+-]?)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[-+]?[0-9]*)$/;

const DECIMAL_SUFFIXES = new Map(Object.entries({ n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 }));
const BINARY_SUFFIXES = new Map(Object.entries({ Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 }));
const DECIMAL_BY_EXP = new Map([...DECIMAL_SUFFIXES].map(([s, e]) => [e, s]));
const BINARY_BY_EXP = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const NANO_EXP = -9;
const MAX_DECIMAL_SI_EXP = 18;

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/** `a / b` for positive `b`, rounded away from zero when inexact. */
function divAwayFromZero(a: bigint, b: bigint): bigint {
  const q = a / b;
  if (q * b === a) return q;
  return a < 0n ? q - 1n : q + 1n;
}

class QuantityImpl implements Quantity {
  constructor(
    private readonly mantissa: bigint,
    private readonly exp: number,
    readonly format: QuantityFormat,
  ) {}

  /** The value × 10^-scale as an integer, rounded away from zero (upstream `ScaledValue`). */
  private scaled(scale: number): bigint {
    const shift = this.exp - scale;
    return shift >= 0 ? this.mantissa * pow10(shift) : divAwayFromZero(this.mantissa, pow10(-shift));
  }

  milliValue(): number {
    return Number(this.scaled(-3));
  }

  scaledValue(scale: number): number {
    return Number(this.scaled(scale));
  }

  cmp(other: Quantity): -1 | 0 | 1 {
    const [a, b] = this.aligned(other);
    return a.mantissa < b.mantissa ? -1 : a.mantissa > b.mantissa ? 1 : 0;
  }

  add(other: Quantity): Quantity {
    const [a, b] = this.aligned(other);
    return new QuantityImpl(a.mantissa + b.mantissa, a.exp, this.mantissa === 0n ? other.format : this.format);
  }

  sub(other: Quantity): Quantity {
    const [a, b] = this.aligned(other);
    return new QuantityImpl(a.mantissa - b.mantissa, a.exp, this.mantissa === 0n ? other.format : this.format);
  }

  /** This quantity and `other` as mantissas over one common exponent, the smaller of the two. */
  private aligned(other: Quantity): [{ mantissa: bigint; exp: number }, { mantissa: bigint; exp: number }] {
    // Every Quantity is a QuantityImpl; another implementation would be read in milli-units.
    const [m, e] = other instanceof QuantityImpl ? [other.mantissa, other.exp] : [BigInt(other.milliValue()), -3];
    const exp = Math.min(this.exp, e);
    return [
      { mantissa: this.mantissa * pow10(this.exp - exp), exp },
      { mantissa: m * pow10(e - exp), exp },
    ];
  }

  value(): number {
    return Number(this.scaled(0));
  }

  toString(): string {
    if (this.mantissa === 0n) return '0';
    if (this.format === 'BinarySI') {
      const binary = this.binaryString();
      if (binary !== undefined) return binary;
    }
    // Move every factor of 10 into the exponent, then lower the exponent to a multiple of 3:
    // 1.5 = 15e-1 → 1500e-3 → `1500m`; 15000 = 15e3 → `15k`.
    let m = this.mantissa;
    let e = this.exp;
    while (m % 10n === 0n) {
      m /= 10n;
      e++;
    }
    const r = ((e % 3) + 3) % 3;
    m *= pow10(r);
    e -= r;
    if (this.format === 'DecimalExponent') return e === 0 ? m.toString() : `${m}e${e}`;
    if (e > MAX_DECIMAL_SI_EXP) {
      m *= pow10(e - MAX_DECIMAL_SI_EXP);
      e = MAX_DECIMAL_SI_EXP;
    }
    return `${m}${DECIMAL_BY_EXP.get(e) ?? ''}`;
  }

  /**
   * BinarySI canonical form: whole numbers of at least 1024 in magnitude, divided by 1024 as often as
   * it stays exact (`1610612736` → `1536Mi`). Smaller or fractional values print as DecimalSI.
   */
  private binaryString(): string | undefined {
    if (this.exp < 0 && this.mantissa % pow10(-this.exp) !== 0n) return undefined;
    let n = this.exp >= 0 ? this.mantissa * pow10(this.exp) : this.mantissa / pow10(-this.exp);
    if (n > -1024n && n < 1024n) return undefined;
    let i = 0;
    while (i < BINARY_BY_EXP.length - 1 && n % 1024n === 0n) {
      n /= 1024n;
      i++;
    }
    return `${n}${BINARY_BY_EXP[i]}`;
  }
}

/** Interprets a suffix as upstream's `suffixHandler.interpret`. */
function interpretSuffix(suffix: string): { base: 10 | 2; exponent: number; format: QuantityFormat } | undefined {
  const dec = DECIMAL_SUFFIXES.get(suffix);
  if (dec !== undefined) return { base: 10, exponent: dec, format: 'DecimalSI' };
  const bin = BINARY_SUFFIXES.get(suffix);
  if (bin !== undefined) return { base: 2, exponent: bin, format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[+-]?\d+$/.test(suffix.slice(1))) {
    return { base: 10, exponent: Number(suffix.slice(1)), format: 'DecimalExponent' };
  }
  return undefined;
}

/**
 * `resource.ParseQuantity`. Accepts a string or a JSON number (`1`, `0.5`, as YAML manifests often
 * carry them).
 * @throws Error `quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`
 *   for malformed input, `unable to parse quantity's suffix` for an unknown suffix (`1e`, `1m3`, `--1`).
 *   Like upstream, a number part without digits is zero (`Ki`, `.` and `-` all parse as `0`).
 */
export function parseQuantity(s: string | number): Quantity {
  if (typeof s === 'number') {
    if (!Number.isFinite(s)) throw new Error(ERR_FORMAT_WRONG);
    s = String(s);
  }
  if (s.length === 0) throw new Error(ERR_FORMAT_WRONG);
  const match = QUANTITY_RE.exec(s);
  if (!match) throw new Error(ERR_FORMAT_WRONG);
  const [, sign, num = '', denom = '', suffix = ''] = match;
  const unit = interpretSuffix(suffix);
  if (!unit) throw new Error(ERR_SUFFIX);

  let mantissa = BigInt(`0${num}${denom}`);
  let exp = -denom.length;
  if (sign === '-') mantissa = -mantissa;
  if (unit.base === 10) exp += unit.exponent;
  else mantissa *= 2n ** BigInt(unit.exponent);
  // Round away from zero to nano units: "if you want some resources, you should get some".
  if (exp < NANO_EXP) {
    mantissa = divAwayFromZero(mantissa, pow10(NANO_EXP - exp));
    exp = NANO_EXP;
  }
  let format = unit.format;
  // A binary quantity below one has no binary spelling.
  if (format === 'BinarySI' && mantissa !== 0n && exp < 0 && (mantissa < 0n ? -mantissa : mantissa) < pow10(-exp)) format = 'DecimalSI';
  return new QuantityImpl(mantissa, exp, format);
}

// ---------------------------------------------------------------------------------------------
// Go's %#v of a Quantity.

/** `parseQuantityString`'s split: sign, numerator without leading zeros, denominator, suffix. */
function splitQuantity(str: string): { positive: boolean; num: string; denom: string; suffix: string } | undefined {
  const m = /^([+-]?)0*([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*(?:[-+]?[0-9]+)?)$/.exec(str);
  if (!m) return undefined;
  const [, sign = '', num = '', denom = '', suffix = ''] = m;
  return { positive: sign !== '-', num: num === '' ? '0' : num, denom, suffix };
}

/**
 * What Go's `%#v` prints for the `resource.Quantity` that decoding `raw` gives (upstream field errors
 * whose bad value is a Quantity print it so, since its `String` method has a pointer receiver):
 * `resource.Quantity{i:resource.int64Amount{value:2, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"2", Format:"DecimalSI"}`.
 * `s` holds the input only when `ParseQuantity` found it canonical (`2`, `500m`, `1Gi`; not `1.5`,
 * `1000m` or `8Gi`). Inputs outside the int64 fast path (many digits, fractional binary values)
 * hold an `*inf.Dec`, whose address Go prints and which is shown as `(…)` here.
 */
export function goSyntaxQuantity(raw: string | number): string {
  const str = String(raw).trim();
  const render = (value: bigint, scale: number, s: string, format: QuantityFormat, dec = 'nil'): string =>
    `resource.Quantity{i:resource.int64Amount{value:${value}, scale:${scale}}, d:resource.infDecAmount{Dec:(*inf.Dec)(${dec})}, s:${JSON.stringify(s)}, Format:${JSON.stringify(format)}}`;
  if (str === '0') return render(0n, 0, '0', 'DecimalSI');
  const parts = splitQuantity(str);
  const unit = parts && interpretSuffix(parts.suffix);
  if (!parts || !unit) return render(0n, 0, '', 'DecimalSI');
  const { positive, num, denom } = parts;
  let scale = 0;
  let mantissa = 1n;
  let precision: number;
  if (unit.base === 10) {
    scale = unit.exponent;
    precision = 18 - (num.length + denom.length);
  } else if (unit.exponent >= 0 && denom.length === 0) {
    mantissa = 1n << BigInt(unit.exponent);
    precision = 15 - num.length - Math.trunc((unit.exponent * 3) / 10) - 1;
  } else precision = -1;
  // Go shifts the denominator into the scale (binary values with a denominator never get here).
  scale -= denom.length;
  if (precision >= 0 && scale >= NANO_EXP) {
    const shifted = num + denom;
    const value = BigInt(shifted);
    const result = value * mantissa;
    if (result <= 2n ** 63n - 1n) {
      const signed = positive ? result : -result;
      const canonical =
        unit.format === 'BinarySI'
          ? unit.exponent % 10 === 0 && (value & 7n) !== 0n
          : scale % 3 === 0 && !shifted.endsWith('000') && !shifted.startsWith('0');
      return render(signed, scale, canonical ? str : '', unit.format);
    }
  }
  const q = parseQuantity(str);
  return render(0n, 0, '', q.format, '…');
}
