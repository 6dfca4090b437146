/**
 * Randomness, for everything in kubeplane. Nothing outside this module calls `Math.random()` or
 * `crypto.randomUUID()` (DESIGN.md); components take a {@link Rand} in their options so a simulation
 * with a seed is reproducible.
 */
import { randomUUID } from 'node:crypto';

/** A source of random numbers. */
export interface Rand {
  /** Uniform float in [0, 1). */
  float(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** A random RFC 4122 version-4 UUID string. */
  uuid(): string;
}

/**
 * The alphabet of upstream's `rand.String` (apimachinery/pkg/util/rand): no vowels (no accidental
 * words) and no confusable characters. Used for generateName suffixes and pod-template-hash encoding.
 */
export const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** `n` characters from {@link SAFE_ALPHABET}, as upstream's `rand.String(n)` (generateName uses n = 5). */
export function randomString(rand: Rand, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += SAFE_ALPHABET.charAt(rand.int(SAFE_ALPHABET.length));
  return s;
}

/** Real randomness (Math.random and crypto UUIDs). */
class RealRand implements Rand {
  float(): number {
    return Math.random();
  }
  int(n: number): number {
    return Math.floor(Math.random() * n);
  }
  uuid(): string {
    return randomUUID();
  }
}

/** The process-wide real random source. */
export const realRand: Rand = new RealRand();

/**
 * A deterministic generator (mulberry32) for tests and reproducible simulations. UUIDs are built from
 * its stream, so two runs with the same seed produce the same uids and names.
 */
export class SeededRand implements Rand {
  private state: number;

  constructor(seed = 1) {
    this.state = seed >>> 0;
  }

  float(): number {
    // mulberry32: 32-bit state, period 2^32; plenty for simulations.
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  uuid(): string {
    const hex: string[] = [];
    for (let i = 0; i < 32; i++) hex.push(this.int(16).toString(16));
    hex[12] = '4';
    hex[16] = (8 + this.int(4)).toString(16);
    const s = hex.join('');
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
  }
}
