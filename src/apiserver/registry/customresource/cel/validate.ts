/**
 * Evaluation of compiled `x-kubernetes-validations` rules on a custom object (upstream
 * k8s.io/apiextensions-apiserver pkg/apiserver/schema/cel/validation.go `Validator.Validate`):
 * `self` is the value at each node with rules, `oldSelf` the correlated old value (object
 * properties and map values by key, items of `x-kubernetes-list-type: map` lists by their keys);
 * transition rules are skipped without an old value unless `optionalOldSelf`; null values are not
 * validated; one cost budget (`RuntimeCELCostBudget`) covers the whole object. Ratcheting
 * (CRDValidationRatcheting, on by default): a failed rule that does not use oldSelf is not an error
 * when its node — or, where the node has no correlated old value, its nearest correlated ancestor —
 * equals the old value (upstream turns those into warnings; they are dropped here).
 *
 * Runtime cost: `@bufbuild/cel` does not meter evaluation, so each evaluation is charged the
 * checker's cost estimate computed with the actual sizes of `self`/`oldSelf` (strings' lengths,
 * lists' and maps' element counts) instead of the schema's bounds — an upper bound of cel-go's
 * actual cost, not its exact figure.
 */
import { isDeepStrictEqual } from 'node:util';
import { isCelError, type CelInput, type CelValue } from '@bufbuild/cel';
import { field, NIL_PATH, type FieldError } from '../../../../machinery/errors/index.js';
import { checkExpr } from './checker.js';
import type { CompiledNode, CompiledRule, CompiledRules } from './compile.js';
import { OPTIONAL_TAG, optionalValue } from './library.js';
import { T, type CelT } from './types.js';
import { toCel } from './values.js';

/** Upstream celconfig.RuntimeCELCostBudget: the cost all rules of one object may spend. */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
/** Upstream celconfig.MaxEvaluatedMessageExpressionSizeBytes. */
export const MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES = 5 * 1024;

interface State {
  budget: number;
  errors: FieldError[];
  /** Set when the budget ran out: no further rules run. */
  stopped: boolean;
}

/**
 * Evaluates the rules on a custom object (`old` undefined on create; transition rules need it).
 * Errors: `<path>: Invalid value: "object": <message or "failed rule: <rule>">` (the value is the
 * node's schema type), the rule's `reason` choosing Forbidden/Required/Duplicate; evaluation errors
 * `… : <error> evaluating rule: <rule>`. The root's path is `<nil>` as upstream's nil field.Path.
 * `budget` overrides {@link RUNTIME_CEL_COST_BUDGET} (tests).
 */
export function validateRules(rules: CompiledRules, obj: unknown, old: unknown, budget = RUNTIME_CEL_COST_BUDGET): FieldError[] {
  const st: State = { budget, errors: [], stopped: false };
  if (rules.root) walk(rules.root, obj, old, '', st, old !== undefined && isDeepStrictEqual(obj, old));
  return st.errors;
}

const child = (path: string, name: string): string => (path ? `${path}.${name}` : name);
const shown = (path: string): string => path || NIL_PATH;

function walk(node: CompiledNode, value: unknown, old: unknown, path: string, st: State, ratchet: boolean): void {
  if (value === null || value === undefined || st.stopped) return;
  if (node.rules.length > 0) evaluateNode(node, value, old, path, st, ratchet);
  /** A child's ratcheting: its own equality when it has an old value, else its nearest correlated ancestor's. */
  const sub = (v: unknown, o: unknown): boolean => (o === undefined ? ratchet : isDeepStrictEqual(v, o));
  if (st.stopped) return;
  if (Array.isArray(value)) {
    if (!node.items) return;
    const keys = node.schema['x-kubernetes-list-type'] === 'map' ? node.schema['x-kubernetes-list-map-keys'] ?? [] : undefined;
    const oldByKey = new Map<string, unknown>();
    if (keys && Array.isArray(old)) for (const o of old) oldByKey.set(mapKey(o, keys), o);
    value.forEach((v, i) => {
      const o = keys ? oldByKey.get(mapKey(v, keys)) : undefined;
      walk(node.items as CompiledNode, v, o, `${path}[${i}]`, st, sub(v, o));
    });
    return;
  }
  if (typeof value !== 'object') return;
  const rec = value as Record<string, unknown>;
  const oldRec = old !== null && typeof old === 'object' && !Array.isArray(old) ? (old as Record<string, unknown>) : undefined;
  if (node.additionalProperties) {
    for (const [k, v] of Object.entries(rec)) walk(node.additionalProperties, v, oldRec?.[k], `${path}[${k}]`, st, sub(v, oldRec?.[k]));
    return;
  }
  const atomic = node.schema['x-kubernetes-map-type'] === 'atomic';
  for (const [k, n] of node.properties) {
    const o = atomic ? undefined : oldRec?.[k];
    if (k in rec) walk(n, rec[k], o, child(path, k), st, sub(rec[k], o));
  }
}

function mapKey(item: unknown, keys: readonly string[]): string {
  const rec = item !== null && typeof item === 'object' ? (item as Record<string, unknown>) : {};
  return JSON.stringify(keys.map((k) => rec[k] ?? null));
}

/** The type of a CEL value with its actual sizes as bounds (for the runtime cost estimate). */
function actualType(v: CelInput | undefined, declared: CelT | undefined): CelT {
  const d = declared ?? T.dyn;
  if (typeof v === 'string') return { ...d, maxSize: v.length };
  if (Array.isArray(v)) {
    let elem = d.elem ?? T.dyn;
    for (const x of v as CelInput[]) {
      const t = actualType(x, d.elem);
      if (t.maxSize > elem.maxSize || elem === d.elem) elem = t;
    }
    return { ...d, elem, maxSize: v.length };
  }
  if (v instanceof Map) {
    let value = d.value ?? T.dyn;
    for (const x of v.values()) {
      const t = actualType(x as CelInput, d.value);
      if (t.maxSize > value.maxSize || value === d.value) value = t;
    }
    return { ...d, value, maxSize: v.size };
  }
  if (v !== null && typeof v === 'object' && d.kind === 'object' && d.fields) {
    const rec = v as Record<string, CelInput>;
    const fields = new Map<string, CelT>();
    for (const [k, ft] of d.fields) fields.set(k, k in rec ? actualType(rec[k], ft) : ft);
    return { ...d, fields };
  }
  return d;
}

function ruleErrorString(rule: CompiledRule['rule']): string {
  return rule.message ? rule.message.trim() : rule.rule.trim();
}

function ruleMessageOrDefault(rule: CompiledRule['rule']): string {
  return rule.message ? rule.message.trim() : `failed rule: ${ruleErrorString(rule)}`;
}

/** cel-go's wording of evaluation errors the `@bufbuild/cel` evaluator words differently. */
function celGoError(message: string): string {
  let m = /^field not found: (.*)$/.exec(message);
  if (m) return `no such key: ${m[1]}`;
  if (/^(int|uint) divide by zero$/.test(message)) return 'division by zero';
  if (/^(int|uint) modulus by zero$/.test(message)) return 'modulus by zero';
  if (/^(int|uint) overflow during /.test(message)) return 'integer overflow';
  m = /^index (-?\d+) out of bounds/.exec(message);
  if (m) return `index out of bounds: ${m[1]}`;
  if (message.startsWith('found no matching overload')) return `no such overload`;
  return message;
}

function fieldErrorForReason(path: string, type: string, detail: string, reason: string | undefined): FieldError {
  switch (reason) {
    case 'FieldValueForbidden': return field.forbidden(path, detail);
    case 'FieldValueRequired': return field.required(path, detail);
    case 'FieldValueDuplicate': return field.duplicate(path, type);
    case 'FieldValueInvalid':
    case undefined:
    default: return field.invalid(path, type, detail);
  }
}

function evaluateNode(node: CompiledNode, value: unknown, old: unknown, path: string, st: State, ratchet: boolean): void {
  const type = node.schema.type ?? '';
  const p = shown(path);
  if (st.budget <= 0) {
    st.errors.push(field.invalid(p, type, 'validation failed due to running out of cost budget, no further validation rules will be run'));
    st.stopped = true;
    return;
  }
  const self = toCel(value, node.schema, node.isResourceRoot) ?? null;
  const oldSelf = old === undefined || old === null ? undefined : toCel(old, node.schema, node.isResourceRoot) ?? undefined;
  const selfType = actualType(self, node.type);
  const oldType = oldSelf === undefined ? selfType : actualType(oldSelf, node.type);
  for (const c of node.rules) {
    if (c.error) {
      st.errors.push(field.invalid(p, type, `rule compile error: ${c.error}`));
      continue;
    }
    if (!c.program || !c.expr) continue;
    if (c.usesOldSelf && oldSelf === undefined && !c.rule.optionalOldSelf) continue;
    const vars = new Map<string, CelT>([['self', selfType], ['oldSelf', c.rule.optionalOldSelf ? T.optional(oldType) : oldType]]);
    const cost = Math.max(1, checkExpr(c.expr, vars, c.positions ?? {}).cost);
    if (cost > st.budget) {
      st.errors.push(field.invalid(p, type, 'validation failed due to running out of cost budget, no further validation rules will be run'));
      st.stopped = true;
      return;
    }
    st.budget -= cost;
    const bindings: Record<string, CelInput> = { self };
    if (c.rule.optionalOldSelf) bindings['oldSelf'] = optionalValue(oldSelf) as CelInput;
    else if (oldSelf !== undefined) bindings['oldSelf'] = oldSelf;
    let result: ReturnType<NonNullable<CompiledRule['program']>>;
    try {
      result = c.program(bindings);
    } catch (e) {
      // The evaluator is not expected to throw; a bug must not fail the request with a 500.
      st.errors.push(field.invalid(p, type, `${e instanceof Error ? e.message : String(e)} evaluating rule: ${ruleErrorString(c.rule)}`));
      continue;
    }
    if (isCelError(result)) {
      const msg = celGoError(result.message);
      if (msg === 'no such overload') {
        st.errors.push(field.invalid(p, type, `'${msg}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(c.rule)}`));
      } else {
        st.errors.push(field.invalid(p, type, `${msg} evaluating rule: ${ruleErrorString(c.rule)}`));
      }
      continue;
    }
    if (result === true || (ratchet && !c.usesOldSelf)) continue;
    const errPath = c.fieldPath ? child(path, c.fieldPath.replace(/^\./, '')) : p;
    let message = ruleMessageOrDefault(c.rule);
    if (c.messageProgram) {
      const m = evaluateMessage(c, bindings, st);
      if (m !== undefined) message = m;
    }
    st.errors.push(fieldErrorForReason(errPath, type, message, c.rule.reason));
  }
}

/** Evaluates a rule's messageExpression; undefined (use the rule's message) when it fails or is empty. */
function evaluateMessage(c: CompiledRule, bindings: Record<string, CelInput>, st: State): string | undefined {
  // messageExpression sees oldSelf unwrapped even for optionalOldSelf rules (upstream uses the plain activation).
  const b = { ...bindings };
  if (c.rule.optionalOldSelf) {
    const o = bindings['oldSelf'] as Record<string, CelValue[]> | undefined;
    const inner = o?.[OPTIONAL_TAG]?.[0];
    if (inner === undefined) delete b['oldSelf'];
    else b['oldSelf'] = inner;
  }
  st.budget -= 1;
  let r: ReturnType<NonNullable<CompiledRule['messageProgram']>>;
  try {
    r = (c.messageProgram as NonNullable<CompiledRule['messageProgram']>)(b);
  } catch {
    return undefined;
  }
  if (isCelError(r) || typeof r !== 'string') return undefined;
  const trimmed = r.trim();
  if (!trimmed || trimmed.length > MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES || trimmed.includes('\n')) return undefined;
  return trimmed;
}
