/**
 * Label selectors: parsing the string grammar, converting `metav1.LabelSelector`, and matching.
 *
 * Followed: apimachinery/pkg/labels/selector.go (lexer, parser, Requirement.Matches/String,
 * NewRequirement validation) and apimachinery/pkg/apis/meta/v1/helpers.go (LabelSelectorAsSelector,
 * FormatLabelSelector). Grammar:
 *
 * ```
 * <selector>    ::= <requirement> | <requirement> "," <selector>
 * <requirement> ::= [!] KEY [ <set-restriction> | <exact-match> ]
 * <set-restriction> ::= "" | ("in" | "notin") "(" VALUE {"," VALUE} ")"
 * <exact-match> ::= ("=" | "==" | "!=") VALUE | (">" | "<") INTEGER
 * ```
 *
 * Whitespace is insignificant around tokens; `k` alone means exists, `!k` does-not-exist, `k=` equals
 * the empty string, `k in ()` is in {""}. `!=` and `notin` also match when the key is absent; `=`,
 * `in`, `gt`, `lt` never do.
 *
 * Selectors are compiled once into a closure per requirement, so {@link Selector.matches} does no
 * parsing or allocation per call.
 */
import { field, fieldErrorString, type FieldError } from '../errors/index.js';
import { isQualifiedName, isValidLabelValue } from '../validation/index.js';
import type { LabelSelector } from '../../api/index.js';

/** A selection operator, spelled as upstream's `selection.Operator` constants. */
export type Operator = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

/** One requirement of a selector, e.g. `{key: 'tier', operator: 'in', values: ['a', 'b']}`. Values are sorted. */
export interface Requirement {
  key: string;
  operator: Operator;
  values: string[];
}

/** A compiled label selector. */
export interface Selector {
  /** True when every requirement holds for `labels` (absent labels = no labels). */
  matches(labels: Record<string, string> | undefined | null): boolean;
  /** True for the selector that selects everything (no requirements). */
  empty(): boolean;
  /** Canonical string form, e.g. `app=web,tier in (a,b)`; `''` for everything and nothing. */
  toString(): string;
  /** The requirements, sorted by key (copies). */
  requirements(): Requirement[];
}

/** A malformed selector string or LabelSelector; the message follows upstream's. */
export class SelectorParseError extends Error {
  override readonly name = 'SelectorParseError';
}

type Labels = Record<string, string> | undefined | null;
type Matcher = (labels: Labels) => boolean;

/**
 * Reads a label value, treating non-string results (e.g. `constructor` inherited from
 * Object.prototype) as absent. Faster than Object.hasOwn and safe for any key.
 */
function get(labels: Labels, key: string): string | undefined {
  if (!labels) return undefined;
  const v = labels[key];
  return typeof v === 'string' ? v : undefined;
}

const INT_RE = /^[+-]?\d+$/;

/**
 * One closure per requirement. Equality tests compare `labels[key]` with a string directly: an
 * inherited property (a function) never equals a string, so no own-property check is needed.
 */
function compileRequirement(r: Requirement): Matcher {
  const { key, values } = r;
  const one = values[0] ?? '';
  const set = values.length > 1 ? new Set(values) : undefined;
  switch (r.operator) {
    case '=':
    case '==':
      return (l) => l != null && l[key] === one;
    case 'in':
      return set ? (l) => l != null && set.has(l[key] as string) : (l) => l != null && l[key] === one;
    case '!=':
      return (l) => l == null || l[key] !== one;
    case 'notin':
      return set ? (l) => l == null || !set.has(l[key] as string) : (l) => l == null || l[key] !== one;
    case 'exists':
      return (l) => get(l, key) !== undefined;
    case '!':
      return (l) => get(l, key) === undefined;
    case 'gt':
    case 'lt': {
      // Upstream parses both sides with strconv.ParseInt and never matches a label that is not an integer.
      const bound = Number(one);
      const gt = r.operator === 'gt';
      return (l) => {
        const v = get(l, key);
        if (v === undefined || !INT_RE.test(v)) return false;
        const n = Number(v);
        return gt ? n > bound : n < bound;
      };
    }
  }
}

function requirementString(r: Requirement): string {
  const values = r.values.join(',');
  switch (r.operator) {
    case '!':
      return `!${r.key}`;
    case 'exists':
      return r.key;
    case 'in':
      return `${r.key} in (${values})`;
    case 'notin':
      return `${r.key} notin (${values})`;
    case 'gt':
      return `${r.key}>${values}`;
    case 'lt':
      return `${r.key}<${values}`;
    case '=':
    case '==':
    case '!=':
      return `${r.key}${r.operator}${values}`;
  }
}

class InternalSelector implements Selector {
  private readonly reqs: readonly Requirement[];
  private readonly matchers: readonly Matcher[];
  private readonly str: string;

  /** `reqs` must already be sorted by key. */
  constructor(reqs: readonly Requirement[]) {
    this.reqs = reqs;
    this.matchers = reqs.map(compileRequirement);
    this.str = reqs.map(requirementString).join(',');
  }

  matches(labels: Labels): boolean {
    const ms = this.matchers;
    for (let i = 0; i < ms.length; i++) if (!(ms[i] as Matcher)(labels)) return false;
    return true;
  }

  empty(): boolean {
    return this.reqs.length === 0;
  }

  toString(): string {
    return this.str;
  }

  requirements(): Requirement[] {
    return this.reqs.map((r) => ({ key: r.key, operator: r.operator, values: [...r.values] }));
  }
}

/** The selector that matches every object (upstream `labels.Everything()`). */
export const everything: Selector = new InternalSelector([]);

/** The selector that matches no object (upstream `labels.Nothing()`); `empty()` is false. */
export const nothing: Selector = Object.freeze({
  matches: () => false,
  empty: () => false,
  toString: () => '',
  requirements: () => [],
});

function byKey(a: Requirement, b: Requirement): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

function sortedUnique(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}

function fail(errs: FieldError[]): never {
  const msgs = errs.map(fieldErrorString);
  throw new SelectorParseError(msgs.length === 1 ? msgs.join('') : `[${msgs.join(', ')}]`);
}

/**
 * `labels.NewRequirement`'s checks: a qualified-name key, the right number of values for the operator,
 * integer values for gt/lt and valid label values. Paths are relative (`key`, `values[0][app]`).
 */
function newRequirement(key: string, operator: Operator, values: string[], keyPath = 'key'): Requirement {
  const errs: FieldError[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length) errs.push(field.invalid(keyPath, key, keyErrs.join('; ')));
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) errs.push(field.invalid('values', values, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) errs.push(field.invalid('values', values, 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) errs.push(field.invalid('values', values, 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) errs.push(field.invalid('values', values, "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (!INT_RE.test(v)) errs.push(field.invalid(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
  }
  values.forEach((v, i) => {
    const vErrs = isValidLabelValue(v);
    if (vErrs.length) errs.push(field.invalid(`values[${i}][${key}]`, v, vErrs.join('; ')));
  });
  if (errs.length) fail(errs);
  return { key, operator, values };
}

// ---------------------------------------------------------------------------------------------
// Lexer and parser (selector.go).

const enum Tok {
  Error,
  End,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
}

interface Item {
  tok: Tok;
  lit: string;
}

const isWhitespace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecial = (c: string): boolean => c === '=' || c === '!' || c === '(' || c === ')' || c === ',' || c === '>' || c === '<';

function lex(s: string): Item[] {
  const items: Item[] = [];
  let i = 0;
  for (;;) {
    while (i < s.length && isWhitespace(s[i] as string)) i++;
    if (i >= s.length) {
      items.push({ tok: Tok.End, lit: '' });
      return items;
    }
    const c = s[i] as string;
    const next = s[i + 1];
    if (isSpecial(c)) {
      // The longest of `!=`, `==`, or a single symbol.
      if (c === '!' && next === '=') {
        items.push({ tok: Tok.NotEquals, lit: '!=' });
        i += 2;
      } else if (c === '=' && next === '=') {
        items.push({ tok: Tok.DoubleEquals, lit: '==' });
        i += 2;
      } else {
        const tok = { '=': Tok.Equals, '!': Tok.DoesNotExist, '(': Tok.OpenPar, ')': Tok.ClosedPar, ',': Tok.Comma, '>': Tok.GreaterThan, '<': Tok.LessThan }[
          c as '='
        ];
        items.push({ tok, lit: c });
        i++;
      }
      continue;
    }
    const start = i;
    while (i < s.length && !isSpecial(s[i] as string) && !isWhitespace(s[i] as string)) i++;
    const lit = s.slice(start, i);
    items.push({ tok: lit === 'in' ? Tok.In : lit === 'notin' ? Tok.NotIn : Tok.Identifier, lit });
  }
}

const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';
const BINARY_OPERATOR_TOKENS = new Map<Tok, Operator>([
  [Tok.In, 'in'],
  [Tok.NotIn, 'notin'],
  [Tok.Equals, '='],
  [Tok.DoubleEquals, '=='],
  [Tok.NotEquals, '!='],
  [Tok.GreaterThan, 'gt'],
  [Tok.LessThan, 'lt'],
]);

class Parser {
  private pos = 0;

  constructor(private readonly items: Item[]) {}

  /** In the Values context `in` and `notin` are plain identifiers (`x in (in)` is fine). */
  private lookahead(values: boolean): Item {
    const it = this.items[this.pos] as Item;
    return values && (it.tok === Tok.In || it.tok === Tok.NotIn) ? { tok: Tok.Identifier, lit: it.lit } : it;
  }

  private consume(values: boolean): Item {
    const it = this.lookahead(values);
    this.pos++;
    return it;
  }

  parse(): Requirement[] {
    const reqs: Requirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead(true);
      if (tok === Tok.End) return reqs;
      if (tok !== Tok.Identifier && tok !== Tok.DoesNotExist) {
        throw new SelectorParseError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
      try {
        reqs.push(this.parseRequirement());
      } catch (e) {
        if (e instanceof SelectorParseError) throw new SelectorParseError(`unable to parse requirement: ${e.message}`);
        throw e;
      }
      const t = this.consume(true);
      if (t.tok === Tok.End) return reqs;
      if (t.tok !== Tok.Comma) throw new SelectorParseError(`found '${t.lit}', expected: ',' or 'end of string'`);
      const t2 = this.lookahead(true);
      if (t2.tok !== Tok.Identifier && t2.tok !== Tok.DoesNotExist) {
        throw new SelectorParseError(`found '${t2.lit}', expected: identifier after ','`);
      }
    }
  }

  private parseRequirement(): Requirement {
    let t = this.consume(true);
    let notExists = false;
    if (t.tok === Tok.DoesNotExist) {
      notExists = true;
      t = this.consume(true);
    }
    if (t.tok !== Tok.Identifier) throw new SelectorParseError(`found '${t.lit}', expected: identifier`);
    const key = t.lit;
    const keyErrs = isQualifiedName(key);
    // Upstream validates the key against a nil field path, which prints as `<nil>`.
    if (keyErrs.length) fail([field.invalid('<nil>', key, keyErrs.join('; '))]);
    const after = this.lookahead(true).tok;
    if (notExists) return newRequirement(key, '!', []);
    if (after === Tok.End || after === Tok.Comma) return newRequirement(key, 'exists', []);

    const opTok = this.consume(false);
    const op = BINARY_OPERATOR_TOKENS.get(opTok.tok);
    if (op === undefined) throw new SelectorParseError(`found '${opTok.lit}', expected: ${BINARY_OPERATORS}`);
    const values = op === 'in' || op === 'notin' ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, op, sortedUnique(values));
  }

  private parseValues(): string[] {
    const open = this.consume(true);
    if (open.tok !== Tok.OpenPar) throw new SelectorParseError(`found '${open.lit}' expected: '('`);
    const first = this.lookahead(true);
    if (first.tok === Tok.ClosedPar) {
      this.consume(true);
      return [''];
    }
    if (first.tok !== Tok.Identifier && first.tok !== Tok.Comma) {
      throw new SelectorParseError(`found '${first.lit}', expected: ',', ')' or identifier`);
    }
    const values = this.parseIdentifiersList();
    if (this.consume(true).tok !== Tok.ClosedPar) throw new SelectorParseError(`found '${first.lit}', expected: ')'`);
    return values;
  }

  /** A comma-separated list where empty entries (`(,a)`, `(a,)`, `(a,,b)`) are the empty string. */
  private parseIdentifiersList(): string[] {
    const values: string[] = [];
    for (;;) {
      const t = this.consume(true);
      if (t.tok === Tok.Identifier) {
        values.push(t.lit);
        const t2 = this.lookahead(true);
        if (t2.tok === Tok.Comma) continue;
        if (t2.tok === Tok.ClosedPar) return values;
        throw new SelectorParseError(`found '${t2.lit}', expected: ',' or ')'`);
      } else if (t.tok === Tok.Comma) {
        if (values.length === 0) values.push('');
        const t2 = this.lookahead(true);
        if (t2.tok === Tok.ClosedPar) {
          values.push('');
          return values;
        }
        if (t2.tok === Tok.Comma) {
          this.consume(true);
          values.push('');
        }
      } else {
        throw new SelectorParseError(`found '${t.lit}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): string[] {
    const t = this.lookahead(true);
    if (t.tok === Tok.End || t.tok === Tok.Comma) return [''];
    const v = this.consume(true);
    if (v.tok === Tok.Identifier) return [v.lit];
    throw new SelectorParseError(`found '${v.lit}', expected: identifier`);
  }
}

/**
 * `labels.Parse`: parses a selector string such as `app=web,tier in (a,b),!canary` (what kubectl sends
 * URL-decoded in `labelSelector`). The empty string selects everything.
 * @throws SelectorParseError with upstream's message, e.g.
 *   `unable to parse requirement: found 'IN', expected: in, notin, =, ==, !=, gt, lt`.
 */
export function parseSelector(s: string): Selector {
  const reqs = new Parser(lex(s)).parse();
  if (reqs.length === 0) return everything;
  return new InternalSelector(reqs.sort(byKey));
}

/**
 * `metav1.LabelSelectorAsSelector`: `null`/`undefined` selects nothing, `{}` selects everything;
 * matchLabels become `=` requirements and matchExpressions In/NotIn/Exists/DoesNotExist.
 * @throws SelectorParseError for an unknown operator (`"Foo" is not a valid label selector operator`)
 *   or an invalid key/value/value count (NewRequirement's field errors).
 */
export function selectorFromLabelSelector(ls: LabelSelector | null | undefined): Selector {
  if (!ls) return nothing;
  const matchLabels = ls.matchLabels ?? {};
  const exprs = ls.matchExpressions ?? [];
  const reqs: Requirement[] = [];
  for (const [k, v] of Object.entries(matchLabels)) reqs.push(newRequirement(k, '=', [v]));
  for (const e of exprs) {
    let op: Operator;
    switch (e.operator) {
      case 'In':
        op = 'in';
        break;
      case 'NotIn':
        op = 'notin';
        break;
      case 'Exists':
        op = 'exists';
        break;
      case 'DoesNotExist':
        op = '!';
        break;
      default:
        throw new SelectorParseError(`${JSON.stringify(e.operator)} is not a valid label selector operator`);
    }
    reqs.push(newRequirement(e.key, op, sortedUnique(e.values ?? [])));
  }
  if (reqs.length === 0) return everything;
  return new InternalSelector(reqs.sort(byKey));
}

/**
 * `labels.SelectorFromSet` (as SelectorFromValidatedSet: the set is trusted, not validated): every
 * key must equal its value. An empty or absent set selects everything.
 */
export function selectorFromSet(set: Record<string, string> | undefined | null): Selector {
  if (!set) return everything;
  const reqs = Object.entries(set).map(([key, v]): Requirement => ({ key, operator: '=', values: [v] }));
  if (reqs.length === 0) return everything;
  return new InternalSelector(reqs.sort(byKey));
}

/**
 * `metav1.FormatLabelSelector`: `app=web,tier in (a,b)`; `<none>` when the selector is absent or
 * empty; `<error>` when it is invalid. Used by `kubectl describe`-style output and table columns.
 */
export function formatLabelSelector(ls: LabelSelector | null | undefined): string {
  let s: string;
  try {
    s = selectorFromLabelSelector(ls).toString();
  } catch {
    return '<error>';
  }
  return s === '' ? '<none>' : s;
}
