/**
 * `x-kubernetes-validations`: CEL rules of a CRD's structural schema, compiled when the CRD is
 * validated and evaluated on custom objects (upstream k8s.io/apiextensions-apiserver
 * pkg/apiserver/schema/cel). Evaluation uses `@bufbuild/cel`; type checking, cost estimation and
 * the Kubernetes library are ours (checker.ts, signatures.ts, library.ts).
 */
export { compileRules, STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT } from './compile.js';
export type { CompiledRules, CompiledRule, CompiledNode } from './compile.js';
export { validateRules, RUNTIME_CEL_COST_BUDGET } from './validate.js';
export type { CelStructural, ValidationRule } from './structural.js';
