/**
 * The HTTP face of the API server: `createHttpHandler` / `startHttpServer` over an {@link ApiServerCore}.
 */
export { createHttpHandler, startHttpServer, VERSION_INFO } from './server.js';
export type { HttpServerOptions, RunningHttpServer } from './server.js';
export type { ApiServerCore, HandleResult, HttpHandlerOptions, Logger, SchemaField, SchemaSource, SchemaType } from './types.js';
export { encodeWatchEvent } from './watch.js';
export type { ObjectSerializer } from './streaming.js';
