/**
 * The pod table printer: pkg/printers/internalversion/printers.go (printPod).
 */
import type { ContainerStatus, Pod, PodCondition } from '../../../api/index.js';
import { formatTime, parseTime } from '../../../util/clock/index.js';
import type { TableRowData } from '../strategy.js';
import { translateTimestampSince } from './table-helpers.js';


/** The primary pod IP: `status.podIPs[0].ip`, or the v1 `status.podIP` a client set alone (v1 conversion fills podIPs from it). */
export function podIP(pod: Pod): string {
  return pod.status?.podIPs?.[0]?.ip || pod.status?.podIP || '';
}

function lastTerminationFinishedAt(s: ContainerStatus): number | undefined {
  return parseTime(s.lastState?.terminated?.finishedAt);
}

function hasCondition(conditions: readonly PodCondition[] | undefined, type: string): boolean {
  return (conditions ?? []).some((c) => c.type === type && c.status === 'True');
}

/**
 * `printPod`'s cells: name, `ready/total`, the status reason, restarts (`2 (5m ago)` when the last
 * termination time is known), age, IP, node, nominated node and readiness gates (`<none>` when empty).
 * The status reason is, in order: status.reason or the phase; `SchedulingGated`; the first unfinished
 * init container (`Init:<reason>`, `Init:Signal:N`, `Init:ExitCode:N`, `Init:i/n`); then containers from
 * last to first (waiting reason, terminated reason, `Signal:N`/`ExitCode:N`), with `Completed` turned
 * back into `Running`/`NotReady` while a container still runs; finally `Unknown` for a deleted pod on a
 * lost node or `Terminating` for a deleted non-terminal pod.
 */
export function printPod(pod: Pod, now: number): TableRowData {
  const spec = pod.spec ?? { containers: [] };
  const status = pod.status ?? {};
  let restarts = 0;
  let restartableInitRestarts = 0;
  let totalContainers = (spec.containers ?? []).length;
  let readyContainers = 0;
  let lastRestart = 0;
  let lastRestartableInitRestart = 0;
  let reason: string = status.reason || status.phase || '';
  if ((status.conditions ?? []).some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) reason = 'SchedulingGated';

  const row: TableRowData = { cells: [] };
  if (status.phase === 'Succeeded') {
    row.conditions = [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
  } else if (status.phase === 'Failed') {
    row.conditions = [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
  }

  const initContainers = spec.initContainers ?? [];
  const restartable = new Set(initContainers.filter((c) => c.restartPolicy === 'Always').map((c) => c.name));
  totalContainers += restartable.size;

  let initializing = false;
  const initStatuses = status.initContainerStatuses ?? [];
  for (let i = 0; i < initStatuses.length; i++) {
    const c = initStatuses[i] as ContainerStatus;
    restarts += c.restartCount ?? 0;
    const finished = lastTerminationFinishedAt(c);
    if (finished !== undefined && finished > lastRestart) lastRestart = finished;
    const isRestartable = restartable.has(c.name);
    if (isRestartable) {
      restartableInitRestarts += c.restartCount ?? 0;
      if (finished !== undefined && finished > lastRestartableInitRestart) lastRestartableInitRestart = finished;
    }
    const term = c.state?.terminated;
    const waiting = c.state?.waiting;
    if (term && term.exitCode === 0) continue;
    if (isRestartable && c.started) {
      if (c.ready) readyContainers++;
      continue;
    }
    if (term) {
      if (!term.reason) reason = term.signal ? `Init:Signal:${term.signal}` : `Init:ExitCode:${term.exitCode}`;
      else reason = `Init:${term.reason}`;
    } else if (waiting?.reason && waiting.reason !== 'PodInitializing') {
      reason = `Init:${waiting.reason}`;
    } else {
      reason = `Init:${i}/${initContainers.length}`;
    }
    initializing = true;
    break;
  }

  if (!initializing || hasCondition(status.conditions, 'Initialized')) {
    restarts = restartableInitRestarts;
    lastRestart = lastRestartableInitRestart;
    let hasRunning = false;
    const statuses = status.containerStatuses ?? [];
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i] as ContainerStatus;
      restarts += c.restartCount ?? 0;
      const finished = lastTerminationFinishedAt(c);
      if (finished !== undefined && finished > lastRestart) lastRestart = finished;
      const term = c.state?.terminated;
      if (c.state?.waiting?.reason) reason = c.state.waiting.reason;
      else if (term?.reason) reason = term.reason;
      else if (term) reason = term.signal ? `Signal:${term.signal}` : `ExitCode:${term.exitCode}`;
      else if (c.ready && c.state?.running) {
        hasRunning = true;
        readyContainers++;
      }
    }
    if (reason === 'Completed' && hasRunning) reason = hasCondition(status.conditions, 'Ready') ? 'Running' : 'NotReady';
  }

  if (pod.metadata?.deletionTimestamp && status.reason === 'NodeLost') reason = 'Unknown';
  else if (pod.metadata?.deletionTimestamp && status.phase !== 'Succeeded' && status.phase !== 'Failed') reason = 'Terminating';

  let restartsCell = String(restarts);
  if (restarts !== 0 && lastRestart !== 0) restartsCell = `${restarts} (${translateTimestampSince(formatTime(lastRestart), now)} ago)`;

  let readinessGates = '<none>';
  const gates = spec.readinessGates ?? [];
  if (gates.length > 0) {
    let trueConditions = 0;
    for (const g of gates) {
      const cond = (status.conditions ?? []).find((c) => c.type === g.conditionType);
      if (cond?.status === 'True') trueConditions++;
    }
    readinessGates = `${trueConditions}/${gates.length}`;
  }
  row.cells = [
    pod.metadata?.name ?? '',
    `${readyContainers}/${totalContainers}`,
    reason,
    restartsCell,
    translateTimestampSince(pod.metadata?.creationTimestamp, now),
    podIP(pod) || '<none>',
    spec.nodeName || '<none>',
    status.nominatedNodeName || '<none>',
    readinessGates,
  ];
  return row;
}
