/**
 * Custom-object values as CEL sees them (upstream pkg/apiserver/schema/cel/values.go
 * `UnstructuredToVal` and model/…): integers are CEL `int`, numbers `double` (also when written
 * without a fraction), x-kubernetes-int-or-string stays an int or a string, `format: byte` is bytes,
 * `date`/`date-time` timestamps and `duration` durations; object properties are reachable by their
 * escaped names (`foo-bar` → `foo__dash__bar`), maps (additionalProperties) by their keys; properties
 * the schema does not declare are not visible; at a resource root `metadata` shows only name and
 * generateName.
 *
 * Set and map lists compare as ordered lists here (upstream compares them unordered / by key).
 */
import { celEnv, isCelError, parse, plan, type CelInput } from '@bufbuild/cel';
import { additionalSchema, type CelStructural } from './structural.js';
import { celNames } from './types.js';

const conversions = celEnv();
const toTimestamp = plan(conversions, parse('timestamp(x)'));
const toDuration = plan(conversions, parse('duration(x)'));

/** A CEL input for `v` under schema `s`; undefined for values CEL does not see. */
export function toCel(v: unknown, s: CelStructural | undefined, isResourceRoot = false): CelInput | undefined {
  if (v === null) return null;
  if (v === undefined || !s) return undefined;
  if (s['x-kubernetes-int-or-string']) {
    if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
    return typeof v === 'string' ? v : undefined;
  }
  if (Array.isArray(v)) {
    if (!s.items) return undefined;
    const embedded = !!s.items['x-kubernetes-embedded-resource'];
    return v.map((x) => toCel(x, s.items, embedded) ?? null);
  }
  if (typeof v === 'object') {
    const rec = v as Record<string, unknown>;
    const additional = additionalSchema(s);
    if (additional) {
      const out = new Map<string, CelInput>();
      const embedded = !!additional['x-kubernetes-embedded-resource'];
      for (const [k, x] of Object.entries(rec)) {
        const c = toCel(x, additional, embedded);
        if (c !== undefined) out.set(k, c);
      }
      return out;
    }
    const out: Record<string, CelInput> = {};
    const props = s.properties ?? {};
    for (const [k, x] of Object.entries(rec)) {
      const names = celNames(k);
      const name = names[0];
      if (name === undefined) continue;
      if (isResourceRoot && (k === 'apiVersion' || k === 'kind')) {
        if (typeof x === 'string') out[name] = x;
        continue;
      }
      if (isResourceRoot && k === 'metadata' && x !== null && typeof x === 'object') {
        const meta: Record<string, CelInput> = {};
        const m = x as Record<string, unknown>;
        if (typeof m['name'] === 'string') meta['name'] = m['name'];
        if (typeof m['generateName'] === 'string') meta['generateName'] = m['generateName'];
        out[name] = meta;
        continue;
      }
      const ps = props[k];
      const c = toCel(x, ps, !!ps?.['x-kubernetes-embedded-resource']);
      if (c !== undefined) for (const n of names) out[n] = c;
    }
    return out;
  }
  switch (typeof v) {
    case 'boolean':
      return v;
    case 'number':
      if (s.type === 'integer') return Number.isInteger(v) ? BigInt(v) : v;
      return v;
    case 'bigint':
      return s.type === 'number' ? Number(v) : v;
    case 'string':
      return stringValue(v, s);
    case 'function':
    case 'object':
    case 'symbol':
    case 'undefined':
      return undefined;
  }
}

function stringValue(v: string, s: CelStructural): CelInput {
  if (s.type !== 'string') return v;
  switch (s.format) {
    case 'byte':
      return new Uint8Array(Buffer.from(v, 'base64'));
    case 'date':
    case 'date-time': {
      const r = toTimestamp({ x: s.format === 'date' ? `${v}T00:00:00Z` : v });
      return isCelError(r) ? v : r;
    }
    case 'duration': {
      const r = toDuration({ x: v });
      return isCelError(r) ? v : r;
    }
    case undefined:
    default:
      return v;
  }
}
