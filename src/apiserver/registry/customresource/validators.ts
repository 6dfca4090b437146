/**
 * The one seam between serving custom resources and what is done with a CRD version's schema: the
 * structural schema (`schema/`: pruning, defaulting, OpenAPI v3 value, list-type and embedded-resource
 * validation) and the `x-kubernetes-validations` rules (`cel/`). The serving code imports these names
 * only from here; they have exactly the shapes `schema/index.ts` and `cel/index.ts` export.
 *
 * Until those modules are merged, the functions here are placeholders that keep everything, default
 * nothing and find nothing wrong (a CRD with `x-kubernetes-preserve-unknown-fields: true` everywhere
 * behaves this way upstream). Merging replaces the bodies below with
 * `export { … } from './schema/index.js'` and `export { … } from './cel/index.js'`.
 */
import type { FieldError } from '../../../machinery/errors/index.js';
import type { Structural } from './schema/index.js';

export { applyDefaults, prune, toStructural, validateCustomObject, validateCustomObjectUpdate, type Structural } from './schema/index.js';

/** CEL rules compiled from a structural schema (every `x-kubernetes-validations` in it). */
export type CompiledRules = object;

/**
 * Compiles every `x-kubernetes-validations` rule of `s`; compile and cost errors carry upstream's CRD
 * validation paths under `schemaPath`.
 */
export const compileRules: (s: Structural, schemaPath: string) => { rules: CompiledRules; errors: FieldError[] } = () => ({ rules: {}, errors: [] });

/** Evaluates the rules on a custom object (`old` undefined on create; transition rules need it). */
export const validateRules: (rules: CompiledRules, obj: unknown, old: unknown) => FieldError[] = () => [];
