/**
 * The in-process transport (DESIGN.md "One process by default"): requests run through the API
 * server's own `handle`/`watch` — the same defaulting, validation, admission and storage path as HTTP —
 * with no serialization. Objects returned are the server's frozen, shared objects; callers copy before
 * changing them.
 */
import type { RestRequest, Transport, WatchEvent, WatchStream } from '../api/request.js';

/** What the transport needs of the server. */
export interface InProcessServer {
  handle(req: RestRequest): Promise<{ body: unknown }>;
  watch(req: RestRequest, onEvent: (ev: WatchEvent) => void, onClose: (err?: unknown) => void): WatchStream;
}

/**
 * A Transport over `server`. `userAgent` fills `RestRequest.userAgent` when a request has none. A
 * watch that the server rejects synchronously reports the error through `onClose` (on a microtask),
 * as the Transport contract asks.
 */
export function newInProcessTransport(server: InProcessServer, userAgent?: string): Transport {
  const withAgent = (req: RestRequest): RestRequest => (userAgent === undefined || req.userAgent !== undefined ? req : { ...req, userAgent });
  return {
    async request(req) {
      return (await server.handle(withAgent(req))).body;
    },
    watch(req, onEvent, onClose) {
      try {
        return server.watch(withAgent(req), onEvent, onClose);
      } catch (err) {
        queueMicrotask(() => onClose(err));
        return { stop: () => undefined };
      }
    },
  };
}
