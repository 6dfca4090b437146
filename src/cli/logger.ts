/**
 * Logging for the CLI: pino, written to stderr as readable lines (`05:43:48 INFO  apiserver: listening`)
 * by a small synchronous formatter, so logs stay readable without a worker-thread transport.
 */
import { pino, type Logger } from 'pino';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO ', 40: 'WARN ', 50: 'ERROR', 60: 'FATAL' };
const SKIP = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'component']);

/** Formats one pino JSON line as `HH:MM:SS LEVEL component: message key=value …`. */
export function formatLogLine(line: string): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = typeof rec.time === 'number' ? new Date(rec.time).toISOString().slice(11, 19) : '';
  const level = LEVELS[rec.level as number] ?? String(rec.level);
  const component = typeof rec.component === 'string' ? `${rec.component}: ` : '';
  const fields = Object.entries(rec)
    .filter(([k]) => !SKIP.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return `${time} ${level} ${component}${typeof rec.msg === 'string' ? rec.msg : ''}${fields ? ' ' + fields : ''}\n`;
}

/** A pino logger at `level` writing readable lines to stderr. */
export function createLogger(level: string): Logger {
  return pino(
    { level, base: undefined },
    {
      write(chunk: string): void {
        // A closed stderr (its reader gone) takes no more lines: each would fail again.
        if (process.stderr.destroyed) return;
        process.stderr.write(formatLogLine(chunk.trimEnd()));
      },
    },
  );
}
