/**
 * Field selectors (`fieldSelector=spec.nodeName=n1,status.phase!=Failed`), following
 * apimachinery/pkg/fields/selector.go: terms are split on unescaped commas and AND-ed; each term is
 * `field=value`, `field==value` or `field!=value` split at the first operator; values may escape `\`,
 * `,` and `=` with a backslash. Which fields a resource supports is the registry's business.
 */
import { SelectorParseError } from '../labels/index.js';

export { SelectorParseError };

/** One term: `=` (also for `==`) or `!=`. Values are unescaped. */
export interface FieldRequirement {
  field: string;
  operator: '=' | '!=';
  value: string;
}

/** A parsed field selector. */
export interface FieldSelector {
  /** The terms, sorted as upstream sorts them (by their raw text). */
  requirements: FieldRequirement[];
  /**
   * True when every term holds. `get(field)` returns the object's value for a field, `undefined` when
   * absent; absent compares as `''` (upstream's `fields.Set.Get`), so `spec.nodeName=` matches unbound pods.
   */
  matches(get: (field: string) => string | undefined): boolean;
  /** True when there are no terms (selects everything). */
  empty(): boolean;
  /** `RequiresExactMatch`: the value of the first `=` term on `field`, for index lookups; else undefined. */
  exactMatch(field: string): string | undefined;
  /** Canonical form, values re-escaped: `metadata.name=a\,b,spec.nodeName!=n1`. */
  toString(): string;
}

/** `fields.EscapeValue`: backslash-escapes `\`, `,` and `=`. */
export function escapeValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** `fields.UnescapeValue`. @throws SelectorParseError on a bad or unterminated escape or a bare `,`/`=`. */
export function unescapeValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') throw new SelectorParseError(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      inSlash = false;
    } else if (c === '\\') {
      inSlash = true;
    } else if (c === ',' || c === '=') {
      // Upstream prints the rune with %v, i.e. its code point: `unescaped character in value: 61`.
      throw new SelectorParseError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (inSlash) throw new SelectorParseError('invalid field selector: unterminated escape sequence');
  return out;
}

/** `splitTerms`: split on commas not preceded by a backslash escape; escapes are kept for unescapeValue. */
function splitTerms(s: string): string[] {
  if (s === '') return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

/** `splitTerm`: the first `!=`, `==` or `=` (checked in that order at each position) splits the term. */
function splitTerm(term: string): { lhs: string; op: '!=' | '==' | '='; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of ['!=', '==', '='] as const) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

class TermsSelector implements FieldSelector {
  constructor(readonly requirements: FieldRequirement[]) {}

  matches(get: (field: string) => string | undefined): boolean {
    for (const r of this.requirements) {
      const v = get(r.field) ?? '';
      if ((v === r.value) !== (r.operator === '=')) return false;
    }
    return true;
  }

  empty(): boolean {
    return this.requirements.length === 0;
  }

  exactMatch(field: string): string | undefined {
    return this.requirements.find((r) => r.operator === '=' && r.field === field)?.value;
  }

  toString(): string {
    return this.requirements.map((r) => `${r.field}${r.operator}${escapeValue(r.value)}`).join(',');
  }
}

/**
 * `fields.ParseSelector`. The empty string selects everything; empty terms (`a=b,,c=d`) are skipped.
 * @throws SelectorParseError `invalid selector: 'x'; can't understand 'x'` for a term without an
 *   operator, or an escape error from {@link unescapeValue}.
 */
export function parseFieldSelector(s: string): FieldSelector {
  const parts = splitTerms(s).sort();
  const reqs: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const t = splitTerm(part);
    if (!t) throw new SelectorParseError(`invalid selector: '${s}'; can't understand '${part}'`);
    reqs.push({ field: t.lhs, operator: t.op === '!=' ? '!=' : '=', value: unescapeValue(t.rhs) });
  }
  return new TermsSelector(reqs);
}
