/**
 * Structured merges of server-side apply: a TypeScript port of the behaviour of
 * sigs.k8s.io/structured-merge-diff/v4 (v4.6.0) `schema`, `typed` and `merge`, plus the adapter
 * from our Go-type schema (src/api/schema) to its schema model.
 */
export * from './schema.js';
export * from './schema-adapter.js';
export * from './typed.js';
export * from './conflict.js';
export * from './update.js';
