/**
 * The namespace conditions the namespace controller maintains while deleting a namespace's content.
 * Follows upstream pkg/controller/namespace/deletion/status_condition_utils.go
 * (`namespaceConditionUpdater`): every deletion pass sets all five condition types — `True` with a
 * failure reason for what went wrong in this pass, `False` with the "ok" reason and message otherwise.
 * An existing condition keeps its lastTransitionTime unless its status flips.
 */
import type { Namespace } from '../../api/index.js';

type NamespaceStatus = NonNullable<Namespace['status']>;
type NamespaceCondition = NonNullable<NamespaceStatus['conditions']>[number];

/** The condition types, in upstream's order. */
export const NAMESPACE_CONDITION_TYPES = [
  'NamespaceDeletionDiscoveryFailure',
  'NamespaceDeletionGroupVersionParsingFailure',
  'NamespaceDeletionContentFailure',
  'NamespaceContentRemaining',
  'NamespaceFinalizersRemaining',
] as const;
export type NamespaceConditionType = (typeof NAMESPACE_CONDITION_TYPES)[number];

const OK: Record<NamespaceConditionType, { reason: string; message: string }> = {
  NamespaceDeletionDiscoveryFailure: { reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
  NamespaceDeletionGroupVersionParsingFailure: { reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
  NamespaceDeletionContentFailure: { reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
  NamespaceContentRemaining: { reason: 'ContentRemoved', message: 'All content successfully removed' },
  NamespaceFinalizersRemaining: { reason: 'ContentRemoved', message: 'All content successfully removed' },
};

/** What one deletion pass left: objects remaining per resource and per finalizer. */
export interface ContentTotals {
  /** `<resource>.<group>` (core: `pods.`) → remaining objects. */
  resourceToNumRemaining: Map<string, number>;
  /** finalizer → remaining objects carrying it. */
  finalizersToNumRemaining: Map<string, number>;
}

/** Collects one pass's failures, then writes them into a namespace status ({@link update}). */
export class NamespaceConditionUpdater {
  private readonly newConditions: NamespaceCondition[] = [];
  private readonly deleteContentErrors: string[] = [];

  /** @param now the pass's time, formatted (`2025-01-01T00:00:00Z`), for lastTransitionTime. */
  constructor(private readonly now: string) {}

  /** Discovery failed: `DiscoveryFailed` with the error's message. */
  processDiscoverResourcesErr(message: string): void {
    this.add('NamespaceDeletionDiscoveryFailure', 'DiscoveryFailed', message);
  }

  /** Deleting one resource's content failed (collected into one `ContentDeletionFailed`). */
  processDeleteContentErr(message: string): void {
    this.deleteContentErrors.push(message);
  }

  /** `SomeResourcesRemain` / `SomeFinalizerRemain` (sic, upstream's reason) from the pass's totals; sorted for stable updates. */
  processContentTotals(totals: ContentTotals): void {
    const resources = [...totals.resourceToNumRemaining].filter(([, n]) => n > 0).map(([r, n]) => `${r} has ${n} resource instances`);
    if (totals.resourceToNumRemaining.size > 0) {
      this.add('NamespaceContentRemaining', 'SomeResourcesRemain', `Some resources are remaining: ${resources.sort().join(', ')}`);
    }
    const finalizers = [...totals.finalizersToNumRemaining].filter(([, n]) => n > 0).map(([f, n]) => `${f} in ${n} resource instances`);
    if (totals.finalizersToNumRemaining.size > 0) {
      this.add('NamespaceFinalizersRemaining', 'SomeFinalizerRemain', `Some finalizers are remaining: ${finalizers.sort().join(', ')}`);
    }
  }

  /** Writes every condition type into `status` (mutated); true when anything changed. */
  update(status: NamespaceStatus): boolean {
    if (this.deleteContentErrors.length > 0) {
      const msgs = [...this.deleteContentErrors].sort();
      this.add('NamespaceDeletionContentFailure', 'ContentDeletionFailed', `Failed to delete all resource types, ${msgs.length} remaining: ${msgs.join(', ')}`);
    }
    const conditions = (status.conditions ??= []);
    let changed = false;
    for (const type of NAMESPACE_CONDITION_TYPES) {
      const next = this.newConditions.find((c) => c.type === type) ?? { type, status: 'False', lastTransitionTime: this.now, ...OK[type] };
      const old = conditions.find((c) => c.type === type);
      if (!old) {
        conditions.push(next);
        changed = true;
      } else if (old.status !== next.status || old.reason !== next.reason || old.message !== next.message) {
        if (old.status !== next.status) old.lastTransitionTime = this.now;
        old.status = next.status;
        old.reason = next.reason;
        old.message = next.message;
        changed = true;
      }
    }
    return changed;
  }

  private add(type: NamespaceConditionType, reason: string, message: string): void {
    this.newConditions.push({ type, status: 'True', lastTransitionTime: this.now, reason, message });
  }
}
