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

/** The structural form of a CRD version's openAPIV3Schema (upstream pkg/apiserver/schema `Structural`). */
export type Structural = Record<string, unknown>;

/**
 * The structural schema of `openAPIV3Schema` (upstream `structuralschema.NewStructural`).
 * @throws Error when the schema is not structural (callers pass only validated CRDs' schemas)
 */
export const toStructural: (openAPIV3Schema: unknown) => Structural = (schema) => (schema ?? {}) as Structural;

/**
 * Removes, in place, the fields `s` does not know and returns their paths, sorted (apiVersion, kind
 * and metadata at the resource root are kept) (upstream `structuralpruning.PruneWithOptions`).
 */
export const prune: (obj: unknown, s: Structural, opts: { isResourceRoot: boolean }) => string[] = () => [];

/** Applies the schema's `default`s in place (upstream `structuraldefaulting.Default`); after pruning. */
export const applyDefaults: (obj: unknown, s: Structural) => void = () => undefined;

/** OpenAPI v3 value validation, list-type and embedded-resource checks of a whole custom object. */
export const validateCustomObject: (obj: Record<string, unknown>, s: Structural) => FieldError[] = () => [];

/** The same for an update (ratcheting: list-type checks only where the list changed). */
export const validateCustomObjectUpdate: (obj: Record<string, unknown>, old: Record<string, unknown>, s: Structural) => FieldError[] = () => [];

/** CEL rules compiled from a structural schema (every `x-kubernetes-validations` in it). */
export type CompiledRules = object;

/**
 * Compiles every `x-kubernetes-validations` rule of `s`; compile and cost errors carry upstream's CRD
 * validation paths under `schemaPath`.
 */
export const compileRules: (s: Structural, schemaPath: string) => { rules: CompiledRules; errors: FieldError[] } = () => ({ rules: {}, errors: [] });

/** Evaluates the rules on a custom object (`old` undefined on create; transition rules need it). */
export const validateRules: (rules: CompiledRules, obj: unknown, old: unknown) => FieldError[] = () => [];
