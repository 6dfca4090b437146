/**
 * `x-kubernetes-validations`: CEL rules of a CRD's structural schema, compiled when the CRD is
 * validated and evaluated on custom objects (upstream k8s.io/apiextensions-apiserver
 * pkg/apiserver/schema/cel). Parsing and evaluation use `@bufbuild/cel` 0.6; type checking, cost
 * estimation and the Kubernetes library are ours (checker.ts, signatures.ts, library.ts, format.ts).
 *
 * Wiring (as upstream): run {@link compileRules} on a version's schema only when the schema has no
 * other errors; keep the CompiledRules per served version; {@link validateRules} after OpenAPI
 * validation on create (old undefined) and update.
 *
 * Known differences from upstream, by design or not yet done:
 * - Syntax errors carry `@bufbuild/cel`'s parser wording after `Syntax error:`; positions are the
 *   parser's (calls at their `(` as cel-go).
 * - Costs (static and runtime) are estimates in cel-go's units, not its exact figures; the runtime
 *   cost is the static estimate re-computed with the actual sizes of self/oldSelf.
 * - Not supported (compile errors): the `.?` / `[?` optional syntax, two-variable
 *   comprehensions, `math.*`, `base64.*`, `ip`/`cidr`/`isIP`, `semver`, quantity `add`/`sub`,
 *   `lists` ext functions, `reverse`, `strings.quote`'s cel-go escaping rules.
 * - `matches` uses JavaScript regular expressions (RE2's leading flag group supported).
 * - Ratcheted errors are dropped rather than returned as warnings.
 */
export { compileRules, STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT } from './compile.js';
export type { CompiledRules, CompiledRule, CompiledNode } from './compile.js';
export { validateRules, RUNTIME_CEL_COST_BUDGET } from './validate.js';
export type { CelStructural, ValidationRule } from './structural.js';
