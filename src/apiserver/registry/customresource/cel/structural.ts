/**
 * The part of a structural schema CEL needs (upstream k8s.io/apiextensions-apiserver
 * pkg/apiserver/schema Structural, as pkg/apiserver/schema/cel and k8s.io/apiserver pkg/cel/common
 * read it). Declared here, as a structurally compatible subset, so `cel/` compiles on its own; the
 * full `Structural` of `schema/` satisfies it.
 */

/** One `x-kubernetes-validations` entry (apiextensions ValidationRule). */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  /** `FieldValueInvalid` (default), `FieldValueForbidden`, `FieldValueRequired` or `FieldValueDuplicate`. */
  reason?: string;
  /** A JSONPath-like path relative to the node (`.spec.x`, `['a.b']`, `.list[0]`) the error is reported at. */
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** A structural schema node, as far as CEL is concerned. */
export interface CelStructural {
  type?: string;
  format?: string;
  properties?: Readonly<Record<string, CelStructural>>;
  required?: readonly string[];
  items?: CelStructural;
  /** A schema, or `true`/`false` (only a schema makes the node a map for CEL). */
  additionalProperties?: CelStructural | boolean;
  nullable?: boolean;
  enum?: readonly unknown[];
  default?: unknown;
  maxLength?: number;
  maxItems?: number;
  maxProperties?: number;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: readonly string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: readonly ValidationRule[];
}

/** The schema of `additionalProperties` when it is one (not a boolean). */
export function additionalSchema(s: CelStructural): CelStructural | undefined {
  const a = s.additionalProperties;
  return typeof a === 'object' && a !== null ? a : undefined;
}
