/**
 * Compilation of `x-kubernetes-validations` rules (upstream k8s.io/apiextensions-apiserver
 * pkg/apiserver/schema/cel/compilation.go `Compile`, and the CEL part of
 * pkg/apis/apiextensions/validation/validation.go: per-rule and CRD-wide estimated cost limits,
 * transition rules on uncorrelatable schema, optionalOldSelf without oldSelf).
 */
import { celEnv, parse, plan } from '@bufbuild/cel';
import { GoSyntax, field, goPointer, goQuote, type FieldError } from '../../../../machinery/errors/index.js';
import { goStruct } from '../../../../machinery/errors/go-repr.js';
import { validFieldPath, type JSONSchema } from '../../resources/crd-schema.js';
import { checkExpr, type CheckIssue, type Expr } from './checker.js';
import { FORMAT_FUNCS } from './format.js';
import { CACHED_REGEX_ENGINE, KUBERNETES_FUNCS, OPTIONAL_SELECT, UNORDERED_EQUALS } from './library.js';
import { additionalSchema, type CelStructural, type ValidationRule } from './structural.js';
import { T, schemaType, type CelT } from './types.js';

/** Largest estimated cost of one rule (times how many times it may run), upstream StaticEstimatedCostLimit. */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** Largest estimated total cost of a CRD's rules, upstream StaticEstimatedCRDCostLimit. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;

/** An evaluator of one compiled expression. */
export type Program = ReturnType<typeof plan>;

/** One rule, compiled. */
export interface CompiledRule {
  rule: ValidationRule;
  /** Absent when the rule did not compile (then `error` says why). */
  program?: Program;
  /** The parsed rule (the runtime cost estimate re-checks it with actual sizes). */
  expr?: Expr;
  positions?: Readonly<Record<string, number>>;
  messageProgram?: Program;
  usesOldSelf: boolean;
  /** Estimated cost of one evaluation. */
  cost: number;
  /** `fieldPath` normalized as a field path relative to the node (`spec.x`), when set. */
  fieldPath?: string;
  error?: string;
}

/** The compiled rules of one schema node and of the nodes below it that have rules. */
export interface CompiledNode {
  schema: CelStructural;
  isResourceRoot: boolean;
  /** The CEL type of `self` at this node. */
  type: CelT | undefined;
  rules: CompiledRule[];
  properties: Map<string, CompiledNode>;
  items?: CompiledNode;
  additionalProperties?: CompiledNode;
}

/** CEL rules compiled from a structural schema (every `x-kubernetes-validations` in it). */
export interface CompiledRules {
  root: CompiledNode | undefined;
}

/** The environment rules are planned in: CEL's standard library plus Kubernetes'. */
export const CEL_ENV = celEnv({ funcs: [...KUBERNETES_FUNCS, ...FORMAT_FUNCS], re2: CACHED_REGEX_ENGINE });

const VALIDATIONS = 'x-kubernetes-validations';

/** `apiextensions.ValidationRule` as Go's `%#v` prints it (the bad value of upstream's rule errors). */
export function goValidationRule(r: ValidationRule): GoSyntax {
  return new GoSyntax(goStruct('apiextensions.ValidationRule', [
    ['Rule', goQuote(r.rule)],
    ['Message', goQuote(r.message ?? '')],
    ['MessageExpression', goQuote(r.messageExpression ?? '')],
    ['Reason', goPointer('apiextensions.FieldValueErrorReason', r.reason !== undefined)],
    ['FieldPath', goQuote(r.fieldPath ?? '')],
    ['OptionalOldSelf', goPointer('bool', r.optionalOldSelf !== undefined)],
  ]));
}

/** cel-go's `Issues.String()`: `ERROR: <input>:1:6: msg` with the source line and a caret under the column. */
export function formatIssues(source: string, issues: readonly CheckIssue[]): string {
  return issues
    .map(({ offset, message }) => {
      const before = source.slice(0, offset);
      const line = before.split('\n').length;
      const lineStart = before.lastIndexOf('\n') + 1;
      const col = offset - lineStart + 1;
      const text = source.slice(lineStart).split('\n')[0] ?? '';
      return `ERROR: <input>:${line}:${col}: ${message}\n | ${text}\n | ${'.'.repeat(col - 1)}^`;
    })
    .join('\n');
}

type Parsed = ReturnType<typeof parse>;

/** Parses `source`; a syntax error becomes a cel-go-style issue (the parser's own wording). */
function parseSource(source: string): Parsed | CheckIssue {
  try {
    return parse(source);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    const m = /^<input>:(\d+):(\d+): ([\s\S]*)$/.exec(msg);
    if (!m) return { offset: 0, message: `Syntax error: ${msg}` };
    const lines = source.split('\n');
    let offset = 0;
    for (let i = 0; i < Number(m[1]) - 1; i++) offset += (lines[i]?.length ?? 0) + 1;
    return { offset: offset + Number(m[2]) - 1, message: `Syntax error: ${m[3]}` };
  }
}

function usesIdent(e: Expr, name: string): boolean {
  let found = false;
  const walk = (x: Expr | undefined): void => {
    if (!x || found) return;
    const k = x.exprKind;
    switch (k.case) {
      case 'identExpr': if (k.value.name === name) found = true; break;
      case 'selectExpr': walk(k.value.operand); break;
      case 'callExpr': walk(k.value.target); k.value.args.forEach(walk); break;
      case 'listExpr': k.value.elements.forEach(walk); break;
      case 'structExpr': k.value.entries.forEach((en) => { if (en.keyKind.case === 'mapKey') walk(en.keyKind.value); walk(en.value); }); break;
      case 'comprehensionExpr': [k.value.iterRange, k.value.accuInit, k.value.loopCondition, k.value.loopStep, k.value.result].forEach(walk); break;
      case 'constExpr':
      case undefined:
        break;
    }
  };
  walk(e);
  return found;
}

/** Compiles one rule against the type of `self` (upstream compileRule). */
export function compileRule(rule: ValidationRule, selfType: CelT, schema: CelStructural): CompiledRule {
  const out: CompiledRule = { rule, usesOldSelf: false, cost: 0 };
  const source = rule.rule;
  if (!source.trim()) return out;
  const parsed = parseSource(source);
  if (!('expr' in parsed)) {
    out.error = `compilation failed: ${formatIssues(source, [parsed])}`;
    return out;
  }
  out.usesOldSelf = usesIdent(parsed.expr, 'oldSelf');
  const oldSelfType = rule.optionalOldSelf ? T.optional(selfType) : selfType;
  const vars = new Map<string, CelT>([['self', selfType], ['oldSelf', oldSelfType]]);
  const positions = parsed.sourceInfo?.positions ?? {};
  const checked = checkExpr(parsed.expr, vars, positions, source);
  out.cost = checked.cost;
  if (checked.issues.length > 0) {
    out.error = `compilation failed: ${formatIssues(source, checked.issues)}`;
    return out;
  }
  if (checked.type.kind !== 'bool' && checked.type.kind !== 'dyn') {
    out.error = 'cel expression must evaluate to a bool';
    return out;
  }
  for (const sel of checked.optionalSelects) rewriteOptionalSelect(sel);
  for (const eq of checked.unorderedEquals) rewriteUnorderedEquals(eq);
  out.expr = parsed.expr;
  out.positions = positions;
  out.program = plan(CEL_ENV, parsed);
  if (rule.fieldPath) {
    const m = validFieldPath(rule.fieldPath, schema as unknown as JSONSchema);
    if (!(m instanceof Error)) out.fieldPath = m.path;
  }
  return out;
}

/**
 * Rewrites `x.f` (x optional) in place to `x.kubeplaneOptionalSelect('f')`: `@bufbuild/cel` has no
 * optional types, so the evaluator sees optionals as tagged maps (library.ts).
 */
function rewriteOptionalSelect(e: Expr): void {
  if (e.exprKind.case !== 'selectExpr' || !e.exprKind.value.operand) return;
  const { operand, field: name } = e.exprKind.value;
  const arg = { $typeName: 'cel.expr.Expr', id: e.id, exprKind: { case: 'constExpr', value: { $typeName: 'cel.expr.Constant', constantKind: { case: 'stringValue', value: name } } } };
  e.exprKind = { case: 'callExpr', value: { $typeName: 'cel.expr.Expr.Call', target: operand, function: OPTIONAL_SELECT, args: [arg as unknown as Expr] } } as unknown as Expr['exprKind'];
}

/** compileRule, with an unexpected failure (a bug here or in the CEL library) as upstream's internal compile error. */
function compileRuleSafely(rule: ValidationRule, selfType: CelT, schema: CelStructural): CompiledRule {
  try {
    return compileRule(rule, selfType, schema);
  } catch (e) {
    return { rule, usesOldSelf: false, cost: 0, error: `unexpected compilation error: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** Rewrites `a == b` (`a != b`) on set/map lists in place to `kubeplaneUnorderedEquals(a, b)` (negated). */
function rewriteUnorderedEquals(e: Expr): void {
  if (e.exprKind.case !== 'callExpr') return;
  const call = e.exprKind.value;
  const negate = call.function === '_!=_';
  const eq = { ...call, function: UNORDERED_EQUALS };
  if (!negate) {
    call.function = UNORDERED_EQUALS;
    return;
  }
  const inner = { $typeName: 'cel.expr.Expr', id: e.id, exprKind: { case: 'callExpr', value: eq } };
  e.exprKind = { case: 'callExpr', value: { ...call, function: '!_', args: [inner as unknown as Expr] } } as unknown as Expr['exprKind'];
}

interface MessageExpressionResult {
  program?: Program;
  cost: number;
  error?: string;
}

function compileMessageExpression(source: string, selfType: CelT): MessageExpressionResult {
  const parsed = parseSource(source);
  if (!('expr' in parsed)) return { cost: 0, error: `messageExpression compilation failed: ${formatIssues(source, [parsed])}` };
  // messageExpression sees self and oldSelf as the rule does (oldSelf is never optional here).
  const vars = new Map<string, CelT>([['self', selfType], ['oldSelf', selfType]]);
  const checked = checkExpr(parsed.expr, vars, parsed.sourceInfo?.positions ?? {}, source);
  if (checked.issues.length > 0) return { cost: checked.cost, error: `messageExpression compilation failed: ${formatIssues(source, checked.issues)}` };
  if (checked.type.kind !== 'string' && checked.type.kind !== 'dyn') return { cost: checked.cost, error: 'messageExpression must evaluate to a string' };
  return { cost: checked.cost, program: plan(CEL_ENV, parsed) };
}

/** Go's `%f` / `%.1f` factor of upstream getCostErrorMessage. */
export function costErrorMessage(costName: string, cost: number, limit: number): string {
  const f = cost / limit;
  const factor = f > 100 ? 'more than 100x' : f < 1.5 ? `${f.toFixed(6)}x` : `${f.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

interface Walk {
  errors: FieldError[];
  costs: { path: string; cost: number }[];
}

/**
 * Compiles every rule; compile/cost errors with upstream's CRD-validation paths and messages
 * (`<schemaPath>.x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{…}:
 * compilation failed: ERROR: <input>:1:6: undefined field 'foo'…`). `schemaPath` is the path of
 * the openAPIV3Schema (`spec.validation.openAPIV3Schema`, `spec.versions[0].schema.openAPIV3Schema`).
 *
 * Differences from upstream, documented: syntax errors carry `@bufbuild/cel`'s parser wording after
 * `Syntax error:` (cel-go prints ANTLR's `mismatched input …`); costs are estimates of cel-go's
 * figures (see checker.ts), so the "exceeds budget by factor of" numbers differ.
 */
export function compileRules(s: CelStructural, schemaPath: string): { rules: CompiledRules; errors: FieldError[] } {
  const w: Walk = { errors: [], costs: [] };
  const root = compileNode(s, schemaPath, true, 1, undefined, w);
  const total = w.costs.reduce((a, c) => a + c.cost, 0);
  if (total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    const mostExpensive = [...w.costs].sort((a, b) => b.cost - a.cost).slice(0, 4);
    for (const c of mostExpensive) w.errors.push(field.forbidden(c.path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'));
    w.errors.push(field.forbidden(schemaPath, costErrorMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', total, STATIC_ESTIMATED_CRD_COST_LIMIT)));
  }
  return { rules: { root }, errors: w.errors };
}

function compileNode(s: CelStructural, path: string, isResourceRoot: boolean, cardinality: number, uncorrelatable: string | undefined, w: Walk): CompiledNode | undefined {
  const type = schemaType(s, isResourceRoot);
  const node: CompiledNode = { schema: s, isResourceRoot, type, rules: [], properties: new Map() };
  const rules = s[VALIDATIONS] ?? [];
  if (rules.length > 0 && type) {
    rules.forEach((rule, i) => {
      const rulePath = `${path}.${VALIDATIONS}[${i}]`;
      const c = compileRuleSafely(rule, type, s);
      node.rules.push(c);
      const cost = c.cost * cardinality;
      if (cost > STATIC_ESTIMATED_COST_LIMIT) w.errors.push(field.forbidden(`${rulePath}.rule`, costErrorMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT)));
      w.costs.push({ path: `${rulePath}.rule`, cost });
      if (c.error) w.errors.push(field.invalid(`${rulePath}.rule`, goValidationRule(rule), c.error));
      if (rule.messageExpression?.trim()) {
        let m: MessageExpressionResult;
        try {
          m = compileMessageExpression(rule.messageExpression, type);
        } catch (e) {
          m = { cost: 0, error: `unexpected messageExpression compilation error: ${e instanceof Error ? e.message : String(e)}` };
        }
        if (m.error) w.errors.push(field.invalid(`${rulePath}.messageExpression`, goValidationRule(rule), m.error));
        else {
          c.messageProgram = m.program;
          const mcost = m.cost * cardinality;
          if (mcost > STATIC_ESTIMATED_COST_LIMIT) {
            w.errors.push(field.forbidden(`${rulePath}.messageExpression`, costErrorMessage('estimated messageExpression cost', mcost, STATIC_ESTIMATED_COST_LIMIT)));
          }
          w.costs.push({ path: `${rulePath}.messageExpression`, cost: mcost });
        }
      }
      if (c.usesOldSelf) {
        if (uncorrelatable !== undefined) {
          w.errors.push(field.invalid(`${rulePath}.rule`, rule.rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable}`));
        }
      } else if (rule.optionalOldSelf !== undefined) {
        w.errors.push(field.invalid(`${rulePath}.optionalOldSelf`, rule.optionalOldSelf, 'may not be set if oldSelf is not used in rule'));
      }
    });
  }
  let any = node.rules.length > 0;
  // Properties of an atomic map and items of a non-map list have no old value to compare with.
  const propsUncorrelatable = uncorrelatable ?? (s['x-kubernetes-map-type'] === 'atomic' ? path : undefined);
  for (const [k, p] of Object.entries(s.properties ?? {})) {
    const child = compileNode(p, `${path}.properties[${k}]`, !!p['x-kubernetes-embedded-resource'], cardinality, propsUncorrelatable, w);
    if (child) {
      node.properties.set(k, child);
      any = true;
    }
  }
  if (s.items) {
    const size = type?.kind === 'list' ? type.maxSize : 1;
    const unc = uncorrelatable ?? (s['x-kubernetes-list-type'] === 'map' ? undefined : path);
    node.items = compileNode(s.items, `${path}.items`, !!s.items['x-kubernetes-embedded-resource'], cardinality * Math.max(1, size), unc, w);
    any ||= node.items !== undefined;
  }
  const additional = additionalSchema(s);
  if (additional) {
    const size = type?.kind === 'map' ? type.maxSize : 1;
    node.additionalProperties = compileNode(additional, `${path}.additionalProperties`, !!additional['x-kubernetes-embedded-resource'], cardinality * Math.max(1, size), uncorrelatable, w);
    any ||= node.additionalProperties !== undefined;
  }
  return any ? node : undefined;
}
