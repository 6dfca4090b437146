/** Deterministic identifiers for simulated runtime objects (container ids, image digests, machine ids). */
import { createHash } from 'node:crypto';

/** Hex SHA-256 of a string (64 characters). */
export function sha256Hex(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}
