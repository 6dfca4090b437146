/**
 * Manager names become identifiers with the operation, version and subresource. Follows
 * k8s.io/apimachinery pkg/util/managedfields/internal/buildmanagerinfo.go (v0.33.9).
 */
import type { KubeObject } from '../../api/index.js';
import { buildManagerIdentifier, type Managed, type Manager, type ManagerResult } from './managed.js';

/** Turns `kubectl` into `{"manager":"kubectl","operation":"Update","apiVersion":"apps/v1"}` (buildManagerInfoManager); an empty name is `unknown`. */
export class BuildManagerInfoManager implements Manager {
  constructor(
    private readonly next: Manager,
    private readonly groupVersion: string,
    private readonly subresource: string,
  ) {}

  private info(manager: string, operation: 'Apply' | 'Update'): string {
    return buildManagerIdentifier({ manager: manager === '' ? 'unknown' : manager, operation, apiVersion: this.groupVersion, subresource: this.subresource });
  }

  update(liveObj: KubeObject, newObj: KubeObject, managed: Managed, manager: string): ManagerResult {
    return this.next.update(liveObj, newObj, managed, this.info(manager, 'Update'));
  }

  apply(liveObj: KubeObject, appliedObj: KubeObject, managed: Managed, manager: string, force: boolean): ManagerResult {
    return this.next.apply(liveObj, appliedObj, managed, this.info(manager, 'Apply'), force);
  }
}
