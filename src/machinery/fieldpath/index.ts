/**
 * Field paths and field sets of server-side apply: a TypeScript port of the behaviour of
 * sigs.k8s.io/structured-merge-diff/v4 `fieldpath` (v4.6.0), including the FieldsV1 encoding of
 * `metadata.managedFields[].fieldsV1`.
 */
export * from './value.js';
export * from './element.js';
export * from './path.js';
export * from './set.js';
export * from './serialize.js';
export * from './managers.js';
export * from './fromvalue.js';
