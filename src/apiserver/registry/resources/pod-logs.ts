/**
 * GET pods/<name>/log: the log of a simulated container, computed from the pod's spec and status —
 * what its `command`/`args` print (src/machinery/simcontainer), each line at the container's
 * `startedAt` + the line's offset; lines not yet printed at the current time are left out.
 *
 * Options as `PodLogOptions` (pkg/apis/core/types.go): `container`, `previous` (the run before, from
 * `lastState.terminated`), `sinceSeconds`, `sinceTime`, `timestamps` (RFC 3339 with nanoseconds and a
 * space before each line), `tailLines`, `limitBytes`, `follow` (the remaining lines are streamed on the
 * server's clock until the program ends or the request goes away; a server — an unknown command
 * under restartPolicy Always — never ends, so its stream stays open until the request goes away).
 * A program that is not simulated logs one start-up line at the start of each run (simcontainer).
 *
 * Errors follow upstream (pkg/registry/core/pod/strategy.go `LogLocation`; the kubelet's
 * pkg/kubelet/kubelet_pods.go `validateContainerLogStatus`), all 400 BadRequest:
 * `a container name must be specified for pod p, choose one of: [a b]`, `container c is not valid for
 * pod p`, `pod p does not have a host assigned`, `previous terminated container "c" in pod "p" not
 * found`, `container "c" in pod "p" is waiting to start: ContainerCreating`.
 */
import type { Container, ContainerStatus, Pod } from '../../../api/index.js';
import { newBadRequest } from '../../../machinery/errors/index.js';
import { runPodContainer, type OutputLine } from '../../../machinery/simcontainer/index.js';
import { parseTime, type Clock } from '../../../util/clock/index.js';

type Query = Record<string, string>;

/** One run of a container: when it started, and when it ended (undefined while it runs). */
interface Run {
  startedAt: number;
  finishedAt: number | undefined;
}

/** A streamed log body (follow): chunks of text; the HTTP layer writes them as they come and calls `return` when the client goes. */
export type LogStream = AsyncIterable<string>;

const intParam = (query: Query, name: string): number | undefined => {
  const v = query[name];
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n)) throw newBadRequest(`invalid value for ${name}: ${JSON.stringify(v)}`);
  return n;
};
const boolParam = (query: Query, name: string): boolean => query[name] === 'true' || query[name] === '1';

/** Formats ms as RFC 3339 with nanoseconds (the kubelet's `RFC3339Nano` log timestamps, zero-padded). */
export function formatNanoTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
}

/** The container the request is about (the only one when unnamed). @throws StatusError 400 */
function selectContainer(pod: Pod, query: Query): Container {
  const name = pod.metadata?.name ?? '';
  const spec = pod.spec;
  const containers = spec?.containers ?? [];
  const all = [...containers, ...(spec?.initContainers ?? []), ...((spec?.ephemeralContainers ?? []) as Container[])];
  const wanted = query['container'];
  if (!wanted) {
    if (containers.length === 1) return containers[0] as Container;
    const inits = (spec?.initContainers ?? []).map((c) => c.name);
    const initPart = inits.length > 0 ? ` or one of the init containers: [${inits.join(' ')}]` : '';
    throw newBadRequest(`a container name must be specified for pod ${name}, choose one of: [${containers.map((c) => c.name).join(' ')}]${initPart}`);
  }
  const c = all.find((x) => x.name === wanted);
  if (!c) throw newBadRequest(`container ${wanted} is not valid for pod ${name}`);
  return c;
}

/** The run whose log is asked for. @throws StatusError 400 */
function selectRun(pod: Pod, c: Container, previous: boolean): Run {
  const name = pod.metadata?.name ?? '';
  if (!pod.spec?.nodeName) throw newBadRequest(`pod ${name} does not have a host assigned`);
  const statuses = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.ephemeralContainerStatuses ?? [])];
  const s: ContainerStatus | undefined = statuses.find((x) => x.name === c.name);
  const last = s?.lastState?.terminated;
  if (previous) {
    const started = parseTime(last?.startedAt);
    if (!last || started === undefined) throw newBadRequest(`previous terminated container ${JSON.stringify(c.name)} in pod ${JSON.stringify(name)} not found`);
    return { startedAt: started, finishedAt: parseTime(last.finishedAt) ?? started };
  }
  const running = parseTime(s?.state?.running?.startedAt);
  if (running !== undefined) return { startedAt: running, finishedAt: undefined };
  const done = s?.state?.terminated;
  if (done && parseTime(done.startedAt) !== undefined) {
    const started = parseTime(done.startedAt) as number;
    return { startedAt: started, finishedAt: parseTime(done.finishedAt) ?? started };
  }
  // Waiting to restart (CrashLoopBackOff): the kubelet serves the latest container, the one that exited.
  const lastStarted = parseTime(last?.startedAt);
  if (last && lastStarted !== undefined) return { startedAt: lastStarted, finishedAt: parseTime(last.finishedAt) ?? lastStarted };
  const reason = s?.state?.waiting?.reason || 'ContainerCreating';
  throw newBadRequest(`container ${JSON.stringify(c.name)} in pod ${JSON.stringify(name)} is waiting to start: ${reason}`);
}

/** The program's lines with absolute times (ms); the run's end (ms, Infinity if it never ends). */
function linesOf(pod: Pod, c: Container, run: Run): { lines: Array<{ at: number; text: string }>; endsAt: number } {
  const program = runPodContainer(pod, c);
  const endsAt = run.finishedAt ?? run.startedAt + program.durationMs;
  const lines = program.output.map((l: OutputLine) => ({ at: run.startedAt + l.offsetMs, text: l.text })).filter((l) => l.at <= endsAt);
  return { lines, endsAt };
}

/**
 * The log of the pod's container as the request asks: a string (text/plain), or with `follow` and a
 * run that has not ended, a {@link LogStream}. @throws StatusError 400 (see the module doc)
 */
export function podLog(pod: Pod, query: Query, clock: Clock): string | LogStream {
  const c = selectContainer(pod, query);
  const run = selectRun(pod, c, boolParam(query, 'previous'));
  const tailLines = intParam(query, 'tailLines');
  const sinceSeconds = intParam(query, 'sinceSeconds');
  const limitBytes = intParam(query, 'limitBytes');
  if (tailLines !== undefined && tailLines < 0) throw newBadRequest('tailLines: Invalid value: must be greater than or equal to 0');
  if (sinceSeconds !== undefined && sinceSeconds < 1) throw newBadRequest('sinceSeconds: Invalid value: must be greater than 0');
  if (limitBytes !== undefined && limitBytes < 1) throw newBadRequest('limitBytes: Invalid value: must be greater than 0');
  const timestamps = boolParam(query, 'timestamps');
  const now = clock.now();
  const since = sinceSeconds !== undefined ? now - sinceSeconds * 1000 : parseTime(query['sinceTime']);
  const { lines, endsAt } = linesOf(pod, c, run);
  const format = (l: { at: number; text: string }): string => `${timestamps ? `${formatNanoTime(l.at)} ` : ''}${l.text}\n`;
  let past = lines.filter((l) => l.at <= now && (since === undefined || l.at >= since));
  if (tailLines !== undefined) past = tailLines === 0 ? [] : past.slice(-tailLines);
  const text = past.map(format).join('');
  const limit = (s: string): string => (limitBytes === undefined ? s : Buffer.from(s).subarray(0, limitBytes).toString());
  if (!boolParam(query, 'follow') || endsAt <= now) return limit(text);
  const future = lines.filter((l) => l.at > now);
  return followStream(text, future.map((l) => ({ at: l.at, text: format(l) })), endsAt, clock, limitBytes);
}

/** Streams `first`, then each line at its time on `clock`, ending at `endsAt` (never for Infinity) or at `limitBytes`. */
async function* followStream(first: string, future: Array<{ at: number; text: string }>, endsAt: number, clock: Clock, limitBytes: number | undefined): AsyncGenerator<string> {
  let left = limitBytes ?? Infinity;
  const emit = (s: string): string => {
    const b = Buffer.from(s);
    const out = b.length <= left ? s : b.subarray(0, left).toString();
    left -= Math.min(b.length, left);
    return out;
  };
  if (first) yield emit(first);
  for (const l of future) {
    if (left <= 0) return;
    const wait = l.at - clock.now();
    if (wait > 0) await clock.sleep(wait);
    yield emit(l.text);
  }
  if (left <= 0 || endsAt === Infinity) {
    if (endsAt === Infinity && left > 0) await new Promise<never>(() => undefined);
    return;
  }
  const wait = endsAt - clock.now();
  if (wait > 0) await clock.sleep(wait);
}
