/**
 * An applied configuration must be of the endpoint's group, version and kind. Follows
 * k8s.io/apimachinery pkg/util/managedfields/internal/versioncheck.go (v0.33.9).
 */
import type { KubeObject } from '../../api/index.js';
import { newBadRequest } from '../errors/index.js';
import { DelegatingManager, type Managed, type Manager, type ManagerResult } from './managed.js';
import { gvkString, parseGroupVersion } from './type-converter.js';

/** Rejects an apply of another kind or version with 400 `invalid object type: apps/v1, Kind=ReplicaSet` (versionCheckManager). */
export class VersionCheckManager extends DelegatingManager {
  constructor(
    next: Manager,
    private readonly groupVersion: string,
    private readonly kind: string,
  ) {
    super(next);
  }

  override apply(liveObj: KubeObject, appliedObj: KubeObject, managed: Managed, manager: string, force: boolean): ManagerResult {
    const got = parseGroupVersion(appliedObj.apiVersion ?? '');
    const want = parseGroupVersion(this.groupVersion);
    if (got.group !== want.group || got.version !== want.version || (appliedObj.kind ?? '') !== this.kind) {
      throw newBadRequest(`invalid object type: ${gvkString(appliedObj.apiVersion, appliedObj.kind)}`);
    }
    return this.next.apply(liveObj, appliedObj, managed, manager, force);
  }
}
