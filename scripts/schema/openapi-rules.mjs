/**
 * The rules by which upstream's OpenAPI generator, k8s.io/kube-openapi pkg/generators (the version
 * k8s.io/api v0.33.9 builds with, c8a335a9a2ff), turns Go comments and struct tags into schema facts:
 * descriptions (`generateDescription`), comment markers (gengo's `ExtractCommentTags`), which fields
 * are required (`isOptional`), enum descriptions (enum.go) and definition names (k8s.io/apiserver's
 * `openapi.DefinitionNamer`, via kube-openapi's `util.ToRESTFriendlyName`).
 */

/**
 * gengo's ExtractCommentTags("+", lines): every `+name[=value]` line, values in order.
 * `+listMapKey=a` twice gives `{listMapKey: ['a', …]}`; a bare `+optional` gives `{optional: ['']}`.
 * @param {string[]} lines
 * @returns {Map<string, string[]>}
 */
export function commentTags(lines) {
  const out = new Map();
  for (const raw of lines) {
    const line = raw.replace(/^ +| +$/g, '');
    if (!line.startsWith('+')) continue;
    const eq = line.indexOf('=');
    const name = eq < 0 ? line.slice(1) : line.slice(1, eq);
    const value = eq < 0 ? '' : line.slice(eq + 1);
    out.set(name, [...(out.get(name) ?? []), value]);
  }
  return out;
}

/**
 * kube-openapi's generateDescription: lines after a `---` line are dropped, as are marker lines
 * (`+…`) and one-line TODOs; a blank line is a paragraph break (`\n\n`); a line indented with a space
 * or a tab is kept on its own line (`\n<line>\n`, for examples and code); other lines are joined with
 * spaces. Returns undefined for an empty description.
 * @param {string[]} lines
 * @returns {string | undefined}
 */
export function description(lines) {
  let buffer = '';
  const delPrevChar = () => {
    if (buffer.length > 0) buffer = buffer.slice(0, -1);
  };
  for (let line of lines) {
    if (line === '---') break;
    line = line.replace(/ +$/, '');
    const leading = line.replace(/^ +/, '');
    if (line.length === 0) {
      delPrevChar();
      buffer += '\n\n';
    } else if (leading.startsWith('TODO') || leading.startsWith('+')) {
      continue;
    } else if (line.startsWith(' ') || line.startsWith('\t')) {
      delPrevChar();
      buffer += `\n${line}\n`;
    } else {
      buffer += `${line} `;
    }
  }
  const text = buffer.trim();
  return text.length > 0 ? text : undefined;
}

/**
 * The lines kube-openapi appends to the comment of a field whose type is an enum (enum.go
 * `DescriptionLines`): a blank line, `Possible enum values:`, then `` - `"Value"` comment`` per value,
 * the comment being the constant's doc with its leading name removed, sorted.
 * @param {{ name: string, value: string, doc: string[] }[]} values
 * @returns {string[]}
 */
export function enumDescriptionLines(values) {
  if (values.length === 0) return [];
  const lines = values.map((v) => {
    const comment = v.doc.join(' ').trim();
    const rest = (comment.startsWith(v.name) ? comment.slice(v.name.length) : comment).trim().replace(/\s+/g, ' ');
    return ` - \`${JSON.stringify(v.value)}\` ${rest}`;
  });
  lines.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return ['', 'Possible enum values:', ...lines];
}

/**
 * kube-openapi's isOptional, negated: a field is in the schema's `required` list when it is marked
 * `+required`, or when it is neither marked `+optional` nor tagged `omitempty`.
 * @param {Map<string, string[]>} tags
 * @param {boolean} omitempty
 */
export function isRequired(tags, omitempty) {
  if (tags.has('required') && tags.has('optional')) throw new Error('a field cannot be both +optional and +required');
  if (tags.has('required')) return true;
  if (tags.has('optional')) return false;
  return !omitempty;
}

/**
 * The OpenAPI definition name of a Go type: the import path with its first element's domain
 * reversed and slashes made dots, then the type name. `k8s.io/api/core/v1` `Pod` →
 * `io.k8s.api.core.v1.Pod`; `k8s.io/kube-aggregator/pkg/apis/apiregistration/v1` `APIService` →
 * `io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService`.
 * @param {string} importPath
 * @param {string} typeName
 */
export function definitionName(importPath, typeName) {
  const [domain, ...rest] = importPath.split('/');
  return [...domain.split('.').reverse(), ...rest, typeName].join('.');
}
