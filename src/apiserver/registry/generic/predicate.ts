/**
 * Selection predicates: label and field selectors of a list or watch, compiled once
 * (apiserver/pkg/storage/selection_predicate.go `SelectionPredicate`). Every kind supports
 * `metadata.name` and `metadata.namespace`; anything else must be one of the strategy's
 * `fieldSelectors`, as upstream's per-kind field label conversion functions decide.
 */
import type { KubeObject } from '../../../api/index.js';
import { newBadRequest } from '../../../machinery/errors/index.js';
import { parseSelector, type Selector } from '../../../machinery/labels/index.js';
import { parseFieldSelector, type FieldSelector } from '../../../machinery/fields/index.js';
import type { ResourceStrategy } from '../strategy.js';

/** A compiled label + field selector. */
export interface SelectionPredicate {
  label: Selector;
  field: FieldSelector;
  /** True when both selectors select everything. */
  empty: boolean;
  matches(obj: KubeObject): boolean;
}

/**
 * Compiles `labelSelector` and `fieldSelector` for `strategy`'s kind.
 * @throws StatusError 400 for a malformed selector or `field label not supported: <field>`
 */
export function newPredicate(strategy: ResourceStrategy, labelSelector = '', fieldSelector = ''): SelectionPredicate {
  let label: Selector;
  let fields: FieldSelector;
  try {
    label = parseSelector(labelSelector);
    fields = parseFieldSelector(fieldSelector);
  } catch (err) {
    throw newBadRequest(err instanceof Error ? err.message : String(err));
  }
  const extra = strategy.fieldSelectors;
  for (const r of fields.requirements) {
    if (r.field !== 'metadata.name' && r.field !== 'metadata.namespace' && !Object.hasOwn(extra, r.field)) {
      throw newBadRequest(`field label not supported: ${r.field}`);
    }
  }
  const fieldValue = (obj: KubeObject, f: string): string | undefined => {
    if (f === 'metadata.name') return obj.metadata?.name ?? '';
    if (f === 'metadata.namespace') return obj.metadata?.namespace ?? '';
    return extra[f]?.(obj);
  };
  const labelEmpty = label.empty();
  const fieldEmpty = fields.empty();
  return {
    label,
    field: fields,
    empty: labelEmpty && fieldEmpty,
    matches: (obj) =>
      (labelEmpty || label.matches(obj.metadata?.labels)) && (fieldEmpty || fields.matches((f) => fieldValue(obj, f))),
  };
}
