/**
 * The subset of client-go's JSONPath (k8s.io/client-go/util/jsonpath) that CRD printer columns and
 * selectable fields use, evaluated on plain JSON values with missing keys allowed (upstream's table
 * convertor calls `AllowMissingKeys(true)`): `.a.b`, `['a.b']`, `[0]`, `[-1]`, `[*]`, `.*`, slices
 * `[1:3]`, recursive descent `..name`, and filters `[?(@.type=="Ready")]` with `==`, `!=`, `<`, `<=`,
 * `>`, `>=` against string, number and boolean literals, or a bare `[?(@.path)]` existence test.
 * Unions, regular expressions and templates with text around `{…}` are not supported.
 */

/** One step of a parsed path. */
type Step =
  | { kind: 'field'; name: string }
  | { kind: 'recursive'; name: string }
  | { kind: 'wildcard' }
  | { kind: 'index'; index: number }
  | { kind: 'slice'; start?: number; end?: number; step?: number }
  | { kind: 'filter'; path: Step[]; op?: string; value?: unknown };

/** A parsed JSONPath expression; {@link JsonPath.find} evaluates it. */
export class JsonPath {
  private constructor(private readonly steps: Step[]) {}

  /**
   * Parses an expression such as `.spec.replicas` or `{.spec.replicas}` (braces optional).
   * @throws Error on syntax the subset does not know
   */
  static parse(expr: string): JsonPath {
    let text = expr.trim();
    if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1).trim();
    if (text.startsWith('$')) text = text.slice(1);
    return new JsonPath(new Parser(text).steps());
  }

  /** Every value the path selects in `data`, in document order; missing keys select nothing. */
  find(data: unknown): unknown[] {
    return evaluate(this.steps, [data]);
  }
}

class Parser {
  private pos = 0;
  constructor(private readonly text: string) {}

  steps(until?: (c: string) => boolean): Step[] {
    const out: Step[] = [];
    while (this.pos < this.text.length) {
      const c = this.text[this.pos] as string;
      if (until?.(c)) break;
      if (c === '.') {
        if (this.text[this.pos + 1] === '.') {
          this.pos += 2;
          out.push({ kind: 'recursive', name: this.identifier() });
          continue;
        }
        this.pos++;
        if (this.text[this.pos] === '*') {
          this.pos++;
          out.push({ kind: 'wildcard' });
          continue;
        }
        if (this.pos >= this.text.length || this.text[this.pos] === '[') continue;
        out.push({ kind: 'field', name: this.identifier() });
      } else if (c === '[') {
        out.push(this.bracket());
      } else if (out.length === 0 && /[A-Za-z_]/.test(c)) {
        // `spec.replicas` without the leading dot.
        out.push({ kind: 'field', name: this.identifier() });
      } else {
        throw new Error(`unrecognized character in action: ${JSON.stringify(c)}`);
      }
    }
    return out;
  }

  private identifier(): string {
    const start = this.pos;
    while (this.pos < this.text.length && !/[.[\]\s()=!<>,]/.test(this.text[this.pos] as string)) this.pos++;
    const name = this.text.slice(start, this.pos);
    if (!name) throw new Error(`invalid field name at ${start}`);
    return name;
  }

  private bracket(): Step {
    const close = this.text.indexOf(']', this.pos);
    if (close < 0) throw new Error('unterminated array');
    this.pos++;
    const c = this.text[this.pos];
    if (c === '?') {
      if (this.text[this.pos + 1] !== '(') throw new Error('invalid filter');
      this.pos += 2;
      const step = this.filter();
      this.expect(')');
      this.expect(']');
      return step;
    }
    const inner = this.text.slice(this.pos, close).trim();
    this.pos = close + 1;
    if (inner === '*') return { kind: 'wildcard' };
    const quoted = /^'(.*)'$/.exec(inner) ?? /^"(.*)"$/.exec(inner);
    if (quoted) return { kind: 'field', name: quoted[1] as string };
    if (/^-?\d+$/.test(inner)) return { kind: 'index', index: Number(inner) };
    const slice = /^(-?\d*):(-?\d*)(?::(-?\d*))?$/.exec(inner);
    if (slice) {
      const num = (s: string | undefined): number | undefined => (s ? Number(s) : undefined);
      const step: Step = { kind: 'slice' };
      const [start, end, by] = [num(slice[1]), num(slice[2]), num(slice[3])];
      if (start !== undefined) step.start = start;
      if (end !== undefined) step.end = end;
      if (by !== undefined) step.step = by;
      return step;
    }
    throw new Error(`invalid array index ${inner}`);
  }

  private filter(): Step {
    this.skipSpaces();
    if (this.text[this.pos] !== '@') throw new Error('filter must start with @');
    this.pos++;
    const path = this.steps((c) => c === ')' || c === ' ' || c === '=' || c === '!' || c === '<' || c === '>');
    this.skipSpaces();
    const op = /^(==|!=|<=|>=|<|>)/.exec(this.text.slice(this.pos))?.[1];
    if (!op) return { kind: 'filter', path };
    this.pos += op.length;
    this.skipSpaces();
    return { kind: 'filter', path, op, value: this.literal() };
  }

  private literal(): unknown {
    const rest = this.text.slice(this.pos);
    const str = /^(['"])(.*?)\1/.exec(rest);
    if (str) {
      this.pos += str[0].length;
      return str[2];
    }
    const word = /^[^)\s]+/.exec(rest)?.[0] ?? '';
    this.pos += word.length;
    this.skipSpaces();
    if (word === 'true' || word === 'false') return word === 'true';
    if (word !== '' && !Number.isNaN(Number(word))) return Number(word);
    throw new Error(`unrecognized filter value ${word}`);
  }

  private skipSpaces(): void {
    while (this.text[this.pos] === ' ') this.pos++;
  }

  private expect(c: string): void {
    this.skipSpaces();
    if (this.text[this.pos] !== c) throw new Error(`expected ${c} at ${this.pos}`);
    this.pos++;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function evaluate(steps: readonly Step[], values: unknown[]): unknown[] {
  let current = values;
  for (const step of steps) current = current.flatMap((v) => apply(step, v));
  return current;
}

function apply(step: Step, v: unknown): unknown[] {
  switch (step.kind) {
    case 'field':
      return isObject(v) && Object.hasOwn(v, step.name) ? [v[step.name]] : [];
    case 'recursive':
      return descend(v, step.name);
    case 'wildcard':
      return Array.isArray(v) ? v : isObject(v) ? Object.keys(v).sort().map((k) => v[k]) : [];
    case 'index': {
      if (!Array.isArray(v)) return [];
      const i = step.index < 0 ? v.length + step.index : step.index;
      return i >= 0 && i < v.length ? [v[i]] : [];
    }
    case 'slice': {
      if (!Array.isArray(v)) return [];
      const norm = (i: number): number => Math.min(Math.max(i < 0 ? v.length + i : i, 0), v.length);
      const start = norm(step.start ?? 0);
      const end = norm(step.end ?? v.length);
      const by = step.step ?? 1;
      const out: unknown[] = [];
      for (let i = start; i < end && by > 0; i += by) out.push(v[i]);
      return out;
    }
    case 'filter': {
      const items = Array.isArray(v) ? v : isObject(v) ? Object.values(v) : [];
      return items.filter((item) => matches(step, item));
    }
  }
}

/** `..name`: the `name` of `v` and of everything under it, depth first. */
function descend(v: unknown, name: string): unknown[] {
  const out: unknown[] = [];
  if (isObject(v)) {
    if (Object.hasOwn(v, name)) out.push(v[name]);
    for (const k of Object.keys(v).sort()) out.push(...descend(v[k], name));
  } else if (Array.isArray(v)) {
    for (const item of v) out.push(...descend(item, name));
  }
  return out;
}

function matches(step: Extract<Step, { kind: 'filter' }>, item: unknown): boolean {
  const found = evaluate(step.path, [item]);
  if (step.op === undefined) return found.length > 0;
  if (found.length === 0) return false;
  const left = found[0];
  const right = step.value;
  switch (step.op) {
    case '==':
      return left === right;
    case '!=':
      return left !== right;
    default: {
      if (typeof left !== typeof right || (typeof left !== 'number' && typeof left !== 'string')) return false;
      const l = left;
      const r = right as number | string;
      return step.op === '<' ? l < r : step.op === '<=' ? l <= r : step.op === '>' ? l > r : l >= r;
    }
  }
}
