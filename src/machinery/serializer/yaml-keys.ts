/**
 * Duplicate keys in a YAML (or JSON) document as upstream's strict YAML decoding reports them.
 *
 * Server-side apply decodes its body with sigs.k8s.io/yaml: leniently first (a repeated key keeps
 * its last value, as JSON.parse does), and — with `fieldValidation=Strict` or `Warn` — a second time
 * with `yaml.UnmarshalStrict`, whose goyaml.v2 decoder reports each key a mapping sets twice
 * (apiserver pkg/endpoints/handlers/patch.go `applyPatcher.applyPatchToCurrentObject`; the text is
 * goyaml.v2 decode.go `setMapIndex`): `line 7: key "replicas" already set in map`. The line is the
 * repeated key's value's (1-based), and a value's own duplicates are reported before its key's,
 * because goyaml.v2 decodes the value before it sets the key.
 *
 * kubectl sends apply bodies as one-line JSON, so its duplicates are on `line 1`; clients that send
 * YAML see the lines of their file.
 */
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { goQuote } from '../errors/index.js';

/** The prefix goyaml.v2 gives its list of strict errors (`yaml.TypeError`), each then on its own line indented by two spaces. */
export const YAML_UNMARSHAL_ERRORS = 'yaml: unmarshal errors:';

/**
 * goyaml.v2's strict errors for `text`'s repeated mapping keys, in its order:
 * `['line 3: key "a" already set in map', …]`; empty when no mapping repeats a key, or when `text`
 * is not YAML (the lenient decoding reports that). Merge keys (`<<`) and aliases are not checked, as
 * goyaml.v2 does not check them.
 */
export function yamlDuplicateKeys(text: string): string[] {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: false, logLevel: 'silent' });
  if (doc.errors.length > 0) return [];
  const out: string[] = [];
  const lineOf = (node: Node): number => lineCounter.linePos(node.range?.[0] ?? 0).line;
  const walk = (node: unknown): void => {
    if (isSeq(node)) {
      for (const item of node.items) walk(item);
      return;
    }
    if (!isMap(node)) return;
    const seen = new Set<string>();
    for (const pair of node.items) {
      const key = pair.key;
      walk(pair.value);
      if (!isScalar(key) || isAlias(key) || key.value === '<<') continue;
      const id = `${typeof key.value}:${String(key.value)}`;
      if (seen.has(id)) {
        const at = isScalar(pair.value) || isMap(pair.value) || isSeq(pair.value) ? pair.value : key;
        out.push(`line ${lineOf(at)}: key ${goKey(key.value)} already set in map`);
      }
      seen.add(id);
    }
  };
  walk(doc.contents);
  return out;
}

/** Go's `%#v` of a decoded scalar key: a string quoted, a number or boolean as is, null as `<nil>`. */
function goKey(v: unknown): string {
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return '<nil>';
}

/** Each string token of a JSON text, with the colon that makes it a member name when there is one. */
const JSON_STRING = /"(?:[^"\\]|\\[^])*"(\s*:)?/g;

/**
 * Whether the JSON `text` that JSON.parse decoded as `value` may name a member twice in one object:
 * the member names in the text outnumber the keys `value` kept (JSON.parse keeps the last of each).
 * A cheap first check (one regular-expression pass and one walk) before {@link yamlDuplicateKeys},
 * which parses the text again.
 */
export function jsonMayRepeatKeys(text: string, value: unknown): boolean {
  let names = 0;
  for (const m of text.matchAll(JSON_STRING)) if (m[1] !== undefined) names++;
  return names !== keyCount(value);
}

/** The number of keys of every object in `value`, nested ones included. */
function keyCount(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let n = 0;
  if (Array.isArray(value)) {
    for (const v of value) n += keyCount(v);
    return n;
  }
  for (const k in value) n += 1 + keyCount((value as Record<string, unknown>)[k]);
  return n;
}

/** The text each decoded apply configuration came from, for the strict check after the merge. */
const sources = new WeakMap<object, { text: string; json: boolean }>();

/**
 * Records that `value` was decoded from `text` (JSON when `json`), so that
 * {@link strictDuplicateKeyErrors} can check it later without the request body.
 */
export function recordSource(value: object, text: string, json: boolean): void {
  sources.set(value, { text, json });
}

/**
 * goyaml.v2's strict errors (as {@link yamlDuplicateKeys}) of the text `value` was decoded from;
 * empty when it repeats no key or was not decoded from text (an in-process request's object).
 */
export function strictDuplicateKeyErrors(value: object): string[] {
  const src = sources.get(value);
  if (!src) return [];
  if (src.json && !jsonMayRepeatKeys(src.text, value)) return [];
  return yamlDuplicateKeys(src.text);
}
