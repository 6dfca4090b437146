/**
 * Connection upgrades (SPDY/3.1 and WebSocket streams of `kubectl exec`, `attach`, `port-forward`
 * and `cp`): kubeplane's containers are simulated, so there is no process to stream to. Rather than
 * dropping the connection (Node closes upgrade requests nobody handles, and kubectl then prints a bare
 * EOF), the server answers the handshake with a 400 Status saying so, which kubectl prints as
 * `error: unable to upgrade connection: <message>` (SPDY) or the Status message (WebSocket).
 * Upstream answers upgrade failures with a Status the same way (apimachinery
 * pkg/util/httpstream `Handshake` / the kubelet's streaming server errors).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

const STREAMING = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/(exec|attach|portforward)$/;

/** The message for an upgrade request to `path` (with query). */
export function upgradeRefusal(path: string): { code: number; reason: string; message: string } {
  const m = STREAMING.exec(path.split('?')[0] ?? '');
  if (!m) return { code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' };
  const op = m[3] === 'portforward' ? 'port-forward' : (m[3] as string);
  return {
    code: 400,
    reason: 'BadRequest',
    message: `${op} is not available for pod ${decodeURIComponent(m[2] as string)}: its containers are simulated by kubeplane (no processes, streams or ports to connect to)`,
  };
}

/** Answers an upgrade request with the refusal Status and closes the connection. */
export function rejectUpgrade(req: IncomingMessage, socket: Duplex): void {
  const r = upgradeRefusal(req.url ?? '');
  const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: r.message, reason: r.reason, code: r.code });
  const head = [`HTTP/1.1 ${r.code} ${r.code === 400 ? 'Bad Request' : 'Not Found'}`, 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close'];
  socket.on('error', () => undefined);
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}
