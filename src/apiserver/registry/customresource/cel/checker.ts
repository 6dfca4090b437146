/**
 * A type checker and cost estimator for parsed CEL expressions over schema types — the part of
 * cel-go's checker (checker/checker.go) and cost estimator (checker/cost.go) CRD rules need, since
 * `@bufbuild/cel` 0.6 parses and evaluates but does not type-check. Errors read as cel-go's
 * (`undefined field 'foo'`, `undeclared reference to 'x' (in container '')`, `found no matching
 * overload for '_+_' applied to '(int, string)'`) and carry the offset of the expression they are about.
 *
 * The cost is an upper bound in cel-go's units (one per variable, field selection and function call,
 * string functions a tenth of the length, comprehensions the range's maximum size times their body),
 * an approximation of cel-go's estimate rather than its exact figure.
 */
import type { parse } from '@bufbuild/cel';
import { CACHED_REGEX_ENGINE } from './library.js';
import { OVERLOADS, compatible, join } from './signatures.js';
import { T, typeName, type CelT } from './types.js';

/** A parsed CEL expression node (cel.expr.Expr). */
export type Expr = ReturnType<typeof parse>['expr'];

/** A checker diagnostic: the message and the source offset of the node it is about. */
export interface CheckIssue {
  offset: number;
  message: string;
}

/** The result of checking an expression. */
export interface Checked {
  type: CelT;
  /** Estimated maximum cost of one evaluation. */
  cost: number;
  issues: CheckIssue[];
  /** Field selections on optional values (`oldSelf.x` with optionalOldSelf), which evaluation rewrites. */
  optionalSelects: Expr[];
  /** `==`/`!=` calls with a set or map list operand, which evaluation rewrites to an unordered comparison. */
  unorderedEquals: Expr[];
}

/** Type idents usable as values (`type(x) == int`). */
const TYPE_IDENTS = new Set(['int', 'uint', 'double', 'bool', 'string', 'bytes', 'list', 'map', 'null_type', 'type']);

const CREATE_LIST_COST = 10;
const CREATE_MAP_COST = 30;

interface Typed {
  type: CelT;
  cost: number;
}

/**
 * Checks `expr` with `vars` declared (e.g. `self`, `oldSelf`); `positions` maps expression ids to
 * source offsets (ParsedExpr.sourceInfo.positions), `source` is the expression's text (for positions).
 */
export function checkExpr(expr: Expr, vars: ReadonlyMap<string, CelT>, positions: Readonly<Record<string, number>>, source = ''): Checked {
  const issues: CheckIssue[] = [];
  const optionalSelects: Expr[] = [];
  const unorderedEquals: Expr[] = [];
  const scopes: Map<string, CelT>[] = [];
  const err = (e: Expr, message: string): Typed => {
    let offset = positions[String(e.id)] ?? 0;
    // cel-go places a function call at its opening parenthesis; the parser here records the name.
    if (e.exprKind.case === 'callExpr' && /^[A-Za-z]/.test(e.exprKind.value.function)) {
      const paren = source.indexOf('(', offset);
      if (paren >= 0) offset = paren;
    }
    // The parser here places a binary operator where the whitespace before it starts; cel-go places it
    // at the operator token (`self.size() > "3"`: column 13, not 12).
    while (offset < source.length && /\s/.test(source[offset] ?? '')) offset++;
    issues.push({ offset, message });
    return { type: T.dyn, cost: 0 };
  };
  const lookup = (name: string): CelT | undefined => {
    for (let i = scopes.length - 1; i >= 0; i--) {
      const t = scopes[i]?.get(name);
      if (t) return t;
    }
    return vars.get(name);
  };

  const visit = (e: Expr): Typed => {
    expandBind(e, lookup);
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr': {
        const c = k.value.constantKind;
        switch (c.case) {
          case 'int64Value': return { type: T.int, cost: 0 };
          case 'uint64Value': return { type: T.uint, cost: 0 };
          case 'doubleValue': return { type: T.double, cost: 0 };
          case 'boolValue': return { type: T.bool, cost: 0 };
          case 'stringValue': return { type: { ...T.string, maxSize: c.value.length }, cost: 0 };
          case 'bytesValue': return { type: { ...T.bytes, maxSize: c.value.length }, cost: 0 };
          case 'nullValue': return { type: T.null, cost: 0 };
          case 'durationValue': return { type: T.duration, cost: 0 };
          case 'timestampValue': return { type: T.timestamp, cost: 0 };
          case undefined: return { type: T.dyn, cost: 0 };
        }
        break;
      }
      case 'identExpr': {
        const t = lookup(k.value.name);
        if (t) return { type: t, cost: 1 };
        if (TYPE_IDENTS.has(k.value.name)) return { type: T.type, cost: 1 };
        return err(e, `undeclared reference to '${k.value.name}' (in container '')`);
      }
      case 'selectExpr': {
        const operand = k.value.operand;
        if (!operand) return err(e, 'missing operand');
        const o = visit(operand);
        const name = k.value.field;
        let t: CelT;
        if (o.type.kind === 'object') {
          const f = o.type.fields?.get(name);
          if (!f) return err(e, `undefined field '${name}'`);
          t = f;
        } else if (o.type.kind === 'optional') {
          // cel-go: selecting a field of an optional object yields an optional of the field.
          const inner = o.type.elem ?? T.dyn;
          const f = inner.kind === 'object' ? inner.fields?.get(name) : inner.kind === 'map' ? inner.value : inner.kind === 'dyn' ? T.dyn : undefined;
          if (!f) return err(e, inner.kind === 'object' ? `undefined field '${name}'` : `type '${typeName(o.type)}' does not support field selection`);
          if (k.value.testOnly) return { type: T.bool, cost: o.cost + 1 };
          optionalSelects.push(e);
          return { type: T.optional(f), cost: o.cost + 1 };
        } else if (o.type.kind === 'map') t = o.type.value ?? T.dyn;
        else if (o.type.kind === 'dyn') t = T.dyn;
        else return err(e, `type '${typeName(o.type)}' does not support field selection`);
        return { type: k.value.testOnly ? T.bool : t, cost: o.cost + 1 };
      }
      case 'callExpr': {
        const fn = k.value.function;
        let target = k.value.target;
        let name = fn;
        // `optional.none()` / `optional.of(x)`: a namespaced global function, not a member call.
        if (target && target.exprKind.case === 'identExpr' && !lookup(target.exprKind.value.name) && target.exprKind.value.name === 'optional') {
          name = `optional.${fn}`;
          target = undefined;
        }
        // Namespaced global functions: `strings.quote(s)`, `format.dns1123Label()`, `sets.contains(a, b)`.
        if (target && target.exprKind.case === 'identExpr' && !lookup(target.exprKind.value.name) && ['strings', 'format', 'sets'].includes(target.exprKind.value.name)) {
          name = `${target.exprKind.value.name}.${fn}`;
          target = undefined;
        }
        const t = target ? visit(target) : undefined;
        const args = k.value.args.map(visit);
        const argCost = (t?.cost ?? 0) + args.reduce((s, a) => s + a.cost, 0);
        const overloads = OVERLOADS.get(name);
        if (!overloads) return err(e, `undeclared reference to '${name}' (in container '')`);
        if (fn === 'matches') {
          const pattern = k.value.args[target ? 0 : 1];
          if (pattern?.exprKind.case === 'constExpr' && pattern.exprKind.value.constantKind.case === 'stringValue' && !validRegex(pattern.exprKind.value.constantKind.value)) {
            return err(pattern, 'invalid matches argument');
          }
        }
        for (const o of overloads) {
          const r = o(t?.type, args.map((a) => a.type));
          if (!r) continue;
          if ((name === '_==_' || name === '_!=_') && args.some((a) => a.type.unordered)) unorderedEquals.push(e);
          return { type: r.type, cost: argCost + r.cost };
        }
        const argList = args.map((a) => typeName(a.type)).join(', ');
        return err(e, `found no matching overload for '${name}' applied to '${t ? `${typeName(t.type)}.` : ''}(${argList})'`);
      }
      case 'listExpr': {
        const elems = k.value.elements.map(visit);
        let elem: CelT = T.dyn;
        // cel-go's HomogeneousAggregateLiterals: every element has the first one's type.
        elems.forEach((x, i) => {
          if (i === 0) elem = x.type;
          else if (!compatible(elem, x.type)) err(k.value.elements[i] as Expr, `expected type '${typeName(elem)}' but found '${typeName(x.type)}'`);
          else elem = join(elem, x.type);
        });
        return { type: T.list(elem, elems.length), cost: CREATE_LIST_COST + elems.reduce((s, x) => s + x.cost, 0) };
      }
      case 'structExpr': {
        if (k.value.messageName) return err(e, `undeclared reference to '${k.value.messageName}' (in container '')`);
        let key: CelT = T.dyn;
        let value: CelT = T.dyn;
        let cost = CREATE_MAP_COST;
        k.value.entries.forEach((entry, i) => {
          const kk = entry.keyKind.case === 'mapKey' ? visit(entry.keyKind.value) : { type: T.string, cost: 0 };
          const v = entry.value ? visit(entry.value) : { type: T.dyn, cost: 0 };
          if (i > 0 && !compatible(key, kk.type) && entry.keyKind.case === 'mapKey') err(entry.keyKind.value, `expected type '${typeName(key)}' but found '${typeName(kk.type)}'`);
          if (i > 0 && !compatible(value, v.type) && entry.value) err(entry.value, `expected type '${typeName(value)}' but found '${typeName(v.type)}'`);
          key = i === 0 ? kk.type : join(key, kk.type);
          value = i === 0 ? v.type : join(value, v.type);
          cost += kk.cost + v.cost;
        });
        return { type: T.map(key, value, k.value.entries.length), cost };
      }
      case 'comprehensionExpr': {
        const c = k.value;
        if (!c.iterRange || !c.accuInit || !c.loopCondition || !c.loopStep || !c.result) return err(e, 'malformed comprehension');
        const range = visit(c.iterRange);
        let iterType: CelT;
        let iter2Type: CelT | undefined;
        if (range.type.kind === 'list') {
          iterType = range.type.elem ?? T.dyn;
          iter2Type = range.type.elem;
        } else if (range.type.kind === 'map') {
          iterType = range.type.key ?? T.dyn;
          iter2Type = range.type.value;
        } else if (range.type.kind === 'dyn') iterType = T.dyn;
        else return err(c.iterRange, `expression of type '${typeName(range.type)}' cannot be range of a comprehension (must be list, map, or dynamic)`);
        const n = range.type.kind === 'dyn' ? 1 : range.type.maxSize;
        const init = visit(c.accuInit);
        const scope = new Map<string, CelT>([[c.accuVar, init.type], [c.iterVar, iterType]]);
        if (c.iterVar2) scope.set(c.iterVar2, iter2Type ?? T.dyn);
        scopes.push(scope);
        const cond = visit(c.loopCondition);
        const step = visit(c.loopStep);
        // The accumulator of map()/filter() starts as `[]` and takes the step's type.
        let accu = init.type;
        if (accu.kind === 'list' && step.type.kind === 'list') accu = { ...step.type, maxSize: n };
        else if (accu.kind === 'dyn' || accu.kind === 'null') accu = step.type;
        scope.set(c.accuVar, accu);
        const result = visit(c.result);
        scopes.pop();
        const type = result.type.kind === 'list' ? { ...result.type, maxSize: Math.max(result.type.maxSize, n) } : result.type;
        return { type, cost: range.cost + init.cost + n * (cond.cost + step.cost) + result.cost };
      }
      case undefined:
        return err(e, 'unsupported expression');
    }
  };

  const r = visit(expr);
  return { type: r.type, cost: r.cost, issues, optionalSelects, unorderedEquals };
}

/**
 * cel-go's `cel.bind(v, init, expr)` macro (ext.Bindings), which the parser here does not expand:
 * rewritten in place, as cel-go does, to a comprehension over an empty list whose accumulator `v`
 * is `init` and whose result is `expr`.
 */
function expandBind(e: Expr, lookup: (name: string) => CelT | undefined): void {
  if (e.exprKind.case !== 'callExpr') return;
  const { target, function: fn, args } = e.exprKind.value;
  if (fn !== 'bind' || target?.exprKind.case !== 'identExpr' || target.exprKind.value.name !== 'cel' || lookup('cel')) return;
  const [v, init, body] = args;
  if (args.length !== 3 || v?.exprKind.case !== 'identExpr' || !init || !body) return;
  const node = (exprKind: unknown): Expr => ({ $typeName: 'cel.expr.Expr', id: e.id, exprKind }) as unknown as Expr;
  const comprehension = {
    $typeName: 'cel.expr.Expr.Comprehension',
    iterVar: '#unused',
    iterVar2: '',
    iterRange: node({ case: 'listExpr', value: { $typeName: 'cel.expr.Expr.CreateList', elements: [], optionalIndices: [] } }),
    accuVar: v.exprKind.value.name,
    accuInit: init,
    loopCondition: node({ case: 'constExpr', value: { $typeName: 'cel.expr.Constant', constantKind: { case: 'boolValue', value: false } } }),
    loopStep: node({ case: 'identExpr', value: { $typeName: 'cel.expr.Expr.Ident', name: v.exprKind.value.name } }),
    result: body,
  };
  e.exprKind = { case: 'comprehensionExpr', value: comprehension } as unknown as Expr['exprKind'];
}

function validRegex(pattern: string): boolean {
  try {
    CACHED_REGEX_ENGINE.compile(pattern);
    return true;
  } catch {
    return false;
  }
}
