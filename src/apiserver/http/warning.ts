/**
 * `Warning` response headers, as upstream's warning recorder writes them
 * (k8s.io/apiserver/pkg/endpoints/filters/warning.go, apimachinery/pkg/util/net/http.go
 * `NewWarningHeader`): `299 - "<text>"` per distinct text, in order.
 *
 * - Quoting: `"` and `\` are escaped; tab, space and printable ASCII are kept; other control
 *   characters are dropped (a text echoing user input, such as an unknown field's name, can carry any
 *   of them).
 * - Size: once the texts add up to more than 4,096 runes, every text is cut to 256 runes and texts
 *   beyond 4,096 runes of those are dropped.
 *
 * Upstream writes the UTF-8 bytes of other characters as they are. Node's HTTP server cannot: it
 * refuses header values with characters above U+00FF and sends U+0080–U+00FF as two UTF-8 bytes. So
 * each non-ASCII character is written as `?` (`unknown field "spec.café"` → `unknown field
 * "spec.caf?"`); kubectl shows it so.
 */

/** Total runes of warning text before texts are truncated (upstream `truncateAtTotalRunes`). */
const TRUNCATE_AT_TOTAL_RUNES = 4 * 1024;
/** Runes each text is cut to once truncating (upstream `truncateItemRunes`). */
const TRUNCATE_ITEM_RUNES = 256;

/** `makeQuotedString`, with `?` for each non-ASCII character (see the module doc). */
function quoted(text: string): string {
  let out = '"';
  for (const c of text) {
    const code = c.codePointAt(0) as number;
    if (c === '"' || c === '\\') out += `\\${c}`;
    else if (code === 0x09 || (code >= 0x20 && code <= 0x7e)) out += c;
    else if (code >= 0x80) out += '?';
  }
  return `${out}"`;
}

/** One header value: `299 - "<text>"`. */
export function warningHeaderValue(text: string): string {
  return `299 - ${quoted(text)}`;
}

/** The code points of `s`: Go's runes (not graphemes: upstream counts and cuts runes). */
function runeArray(s: string): string[] {
  return Array.from(s);
}

/** The first `n` runes of `s`. */
function runes(s: string, n: number): string {
  return runeArray(s).slice(0, n).join('');
}

/**
 * The `Warning` header values for `texts`, deduplicated, in order, truncated as upstream's recorder
 * truncates them. Empty texts are skipped.
 */
export function warningHeaders(texts: readonly string[]): string[] {
  const seen = new Set<string>();
  const ordered: string[] = [];
  let headers: string[] = [];
  let written = 0;
  let truncating = false;
  for (const text of texts) {
    if (text.length === 0) continue;
    if (truncating && written >= TRUNCATE_AT_TOTAL_RUNES) break;
    if (seen.has(text)) continue;
    seen.add(text);
    ordered.push(text);
    let item = text;
    let length = runeArray(text).length;
    if (truncating && length > TRUNCATE_ITEM_RUNES) {
      item = runes(text, TRUNCATE_ITEM_RUNES);
      length = TRUNCATE_ITEM_RUNES;
    }
    if (written + length <= TRUNCATE_AT_TOTAL_RUNES || truncating) {
      written += length;
      headers.push(warningHeaderValue(item));
      continue;
    }
    // Over the limit: start truncating and replay every text so far, each cut to 256 runes.
    truncating = true;
    written = 0;
    headers = [];
    for (const t of ordered) {
      const cut = runes(t, TRUNCATE_ITEM_RUNES);
      written += runeArray(cut).length;
      headers.push(warningHeaderValue(cut));
    }
  }
  return headers;
}
