/**
 * Reading a Prometheus text exposition back, for tests: the samples of a scrape, and the value of one
 * series by its exact label set.
 */
import { register } from 'prom-client';

/** One sample line: `name{labels} value`. */
export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A parsed scrape, with its HELP and TYPE lines by metric name. */
export interface Exposition {
  samples: ParsedSample[];
  help: Map<string, string>;
  type: Map<string, string>;
}

/** Parses the text format (version 0.0.4). Throws on a line it cannot read. */
export function parseExposition(text: string): Exposition {
  const out: Exposition = { samples: [], help: new Map(), type: new Map() };
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const comment = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (comment) {
      (comment[1] === 'HELP' ? out.help : out.type).set(comment[2] as string, comment[3] as string);
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`unreadable exposition line: ${line}`);
    const labels: Record<string, string> = {};
    const body = m[2] ?? '';
    const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/g;
    let consumed = 0;
    if (body !== '') {
      const inner = body.slice(1, -1);
      for (let lm = re.exec(inner); lm; lm = re.exec(inner)) {
        labels[lm[1] as string] = (lm[2] as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
        consumed = re.lastIndex;
      }
      if (consumed !== inner.length) throw new Error(`unreadable labels: ${line}`);
    }
    const raw = m[3] as string;
    const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw);
    out.samples.push({ name: m[1] as string, labels, value });
  }
  return out;
}

/** The value of the series `name` with exactly `labels`, or undefined when there is none. */
export function valueOf(exp: Exposition, name: string, labels: Record<string, string> = {}): number | undefined {
  const keys = Object.keys(labels);
  for (const s of exp.samples) {
    if (s.name !== name) continue;
    const sKeys = Object.keys(s.labels);
    if (sKeys.length !== keys.length) continue;
    if (keys.every((k) => s.labels[k] === labels[k])) return s.value;
  }
  return undefined;
}

/** The series of `name` whose labels include `labels`. */
export function seriesOf(exp: Exposition, name: string, labels: Record<string, string> = {}): ParsedSample[] {
  return exp.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** Scrapes prom-client's default registry, as `/metrics` serves it. */
export async function scrape(): Promise<Exposition> {
  return parseExposition(await register.metrics());
}
