/**
 * The one seam between serving custom resources and what is done with a CRD version's schema: the
 * structural schema (`schema/`: pruning, defaulting, OpenAPI v3 value, list-type and embedded-resource
 * validation) and the `x-kubernetes-validations` rules (`cel/`). The serving code imports these names
 * only from here; they have exactly the shapes `schema/index.ts` and `cel/index.ts` export.
 *
 * CEL compiles from the schema's JSON form (`CelStructural`), which a structural schema already is;
 * the rest works on `Structural`.
 */

export { applyDefaults, prune, toStructural, validateCustomObject, validateCustomObjectUpdate, type Structural } from './schema/index.js';

export { compileRules, validateRules, type CelStructural, type CompiledRules } from './cel/index.js';
