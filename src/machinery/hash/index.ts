/**
 * Template hashing for `pod-template-hash` and `controller-revision-hash`, after upstream's
 * `controller.ComputeHash` (pkg/controller/controller_utils.go), `hashutil`'s FNV-32a and
 * apimachinery/pkg/util/rand.SafeEncodeString.
 *
 * Byte parity with upstream is deliberately not a goal (shared/reference/controllers.md §1.6): upstream
 * hashes go-spew's dump of the Go struct, which cannot be reproduced from JSON. What holds instead:
 * the hash is deterministic (canonical JSON with sorted keys, so key order never matters), changes with
 * any change of the template, changes with the collision count, and uses the same alphabet and length
 * (≤ 10 characters) as upstream.
 */
import { SAFE_ALPHABET } from '../../util/random/index.js';

const FNV32_OFFSET = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;

function fnv32aBytes(h: number, bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; i++) {
    h ^= bytes[i] as number;
    h = Math.imul(h, FNV32_PRIME);
  }
  return h >>> 0;
}

const encoder = new TextEncoder();

/**
 * FNV-1 (not 1a), 32 bits, over the UTF-8 bytes of `data`, continuing from `h` (default: the offset
 * basis); an unsigned integer. Go's `fnv.New32()`, which `history.HashControllerRevision` uses.
 */
export function fnv32(data: string, h: number = FNV32_OFFSET): number {
  const bytes = encoder.encode(data);
  for (let i = 0; i < bytes.length; i++) {
    h = Math.imul(h, FNV32_PRIME);
    h ^= bytes[i] as number;
  }
  return h >>> 0;
}

/** FNV-1a, 32 bits, over the UTF-8 bytes of `data`; an unsigned integer. `fnv32a('')` is 2166136261. */
export function fnv32a(data: string): number {
  return fnv32aBytes(FNV32_OFFSET, encoder.encode(data));
}

/** `rand.SafeEncodeString`: each character `c` becomes `SAFE_ALPHABET[c % 27]`; digits 0–9 → `4 5 6 7 8 9 b c d f`. */
export function safeEncodeString(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) out += SAFE_ALPHABET.charAt(s.charCodeAt(i) % SAFE_ALPHABET.length);
  return out;
}

/** JSON with object keys sorted at every level; `undefined` values are skipped as JSON.stringify does. */
export function canonicalJSON(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? 'null' : canonicalJSON(x))).join(',')}]`;
  const o = v as Record<string, unknown>;
  const parts: string[] = [];
  for (const k of Object.keys(o).sort()) {
    if (o[k] !== undefined) parts.push(`${JSON.stringify(k)}:${canonicalJSON(o[k])}`);
  }
  return `{${parts.join(',')}}`;
}

/**
 * `controller.ComputeHash(template, collisionCount)`: FNV-32a of the canonical JSON of `template`, then,
 * when `collisionCount` is given, of 8 more bytes (the count as little-endian uint32, then 4 zeros, as
 * upstream writes them), printed in decimal and safe-encoded, e.g. `7d4b5c9f8`.
 */
export function computeHash(template: unknown, collisionCount?: number): string {
  let h = fnv32aBytes(FNV32_OFFSET, encoder.encode(canonicalJSON(template)));
  if (collisionCount !== undefined) {
    const extra = new Uint8Array(8);
    new DataView(extra.buffer).setUint32(0, collisionCount >>> 0, true);
    h = fnv32aBytes(h, extra);
  }
  return safeEncodeString(String(h));
}
