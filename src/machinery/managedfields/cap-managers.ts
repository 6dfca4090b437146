/**
 * At most so many Update managers: the oldest are merged into `ancient-changes`, one per version.
 * Follows k8s.io/apimachinery pkg/util/managedfields/internal/capmanagers.go (v0.33.9).
 */
import type { KubeObject } from '../../api/index.js';
import { parseTime } from '../../util/clock/index.js';
import { compareStrings } from '../fieldpath/index.js';
import { buildManagerIdentifier, DelegatingManager, type Managed, type Manager, type ManagerResult } from './managed.js';

/** Upstream's default cap (DefaultMaxUpdateManagers). */
export const DEFAULT_MAX_UPDATE_MANAGERS = 10;

/** The manager the oldest updates are merged into. */
export const ANCIENT_CHANGES_MANAGER = 'ancient-changes';

function seconds(t: string | undefined): number {
  const ms = parseTime(t);
  return ms === undefined ? 0 : Math.floor(ms / 1000);
}

/** Caps Update managers after each update (capManagersManager); applies are left alone. */
export class CapManagersManager extends DelegatingManager {
  constructor(
    next: Manager,
    private readonly maxUpdateManagers: number = DEFAULT_MAX_UPDATE_MANAGERS,
  ) {
    super(next);
  }

  override update(liveObj: KubeObject, newObj: KubeObject, managed: Managed, manager: string): ManagerResult {
    const r = this.next.update(liveObj, newObj, managed, manager);
    capUpdateManagers(r.managed, this.maxUpdateManagers);
    return r;
  }
}

/**
 * Oldest Update managers first (by time in seconds, then name): the first one of each version is
 * kept until a second one of that version comes, then both go into that version's `ancient-changes`
 * bucket (taking the newest merged time), until at most `max` Update managers are left. In place.
 */
export function capUpdateManagers(managed: Managed, max: number): void {
  const updaters = [...managed.fields].filter(([, vs]) => !vs.applied).map(([m]) => m);
  if (updaters.length <= max) return;
  updaters.sort((a, b) => seconds(managed.times.get(a)) - seconds(managed.times.get(b)) || compareStrings(a, b));
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const manager = updaters[i] as string;
    const vs = managed.fields.get(manager);
    if (vs === undefined) continue;
    const time = managed.times.get(manager);
    const version = vs.apiVersion;
    const bucket = buildManagerIdentifier({ manager: ANCIENT_CHANGES_MANAGER, operation: 'Update', apiVersion: version });
    const first = firstOfVersion.get(version);
    if (first === undefined) {
      firstOfVersion.set(version, manager);
      continue;
    }
    if (!managed.fields.has(bucket)) {
      const s = managed.fields.get(first);
      managed.fields.delete(first);
      if (s !== undefined) managed.fields.set(bucket, s);
    }
    const current = managed.fields.get(bucket);
    managed.fields.set(bucket, { set: current === undefined ? vs.set : vs.set.union(current.set), apiVersion: vs.apiVersion, applied: vs.applied });
    managed.fields.delete(manager);
    length--;
    managed.times.set(bucket, time);
  }
}
