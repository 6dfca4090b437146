/**
 * How upstream prints a list of errors in authorization messages: `utilerrors.NewAggregate(errs).Error()`
 * (k8s.io/apimachinery/pkg/util/errors/errors.go) and Go's `%q` / `%v` of a `[]string` / `[]error`.
 */
import { goQuote } from '../../machinery/errors/index.js';

/**
 * `utilerrors.NewAggregate(errs).Error()` of errors given by their messages: undefined for none (a nil
 * aggregate), a single message as it is, several deduplicated in order and joined as `[a, b]` — or
 * alone, without brackets, when they are all the same message.
 */
export function aggregateMessages(messages: readonly string[]): string | undefined {
  if (messages.length === 0) return undefined;
  if (messages.length === 1) return messages[0];
  const seen = [...new Set(messages)];
  return seen.length === 1 ? seen[0] : `[${seen.join(', ')}]`;
}

/** Go's `%q` of a `[]string`: `["a" "b"]`, `[]` when empty. */
export function goQuoteList(values: readonly string[] | undefined): string {
  return `[${(values ?? []).map(goQuote).join(' ')}]`;
}
