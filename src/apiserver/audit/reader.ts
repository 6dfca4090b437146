/**
 * Reading an audit policy file (`--audit-policy-file`), YAML or JSON, as upstream's
 * k8s.io/apiserver pkg/audit/policy/reader.go `LoadPolicyFromBytes` / `LoadPolicyFromFile` (v1.33):
 *
 * 1. decode strictly as audit.k8s.io/v1; when the only problems are strict ones (unknown fields,
 *    repeated YAML keys) decode again leniently and warn `Audit policy contains errors, falling back
 *    to lenient decoding: strict decoding error: unknown field "rules[0].resources[0].verbs"`;
 *    any other problem fails: `failed decoding: …` (a wrong type, a version other than v1:
 *    `no kind "Policy" is registered for version "audit.k8s.io/v1beta1" in scheme …`);
 * 2. a file without apiVersion fails: `unknown group version field audit.k8s.io/__internal,
 *    Kind=Policy in policy` (the decoder falls back to the internal version, which the reader refuses);
 * 3. validation (validation.ts) errors fail with their aggregate message;
 * 4. a policy without rules fails: `loaded illegal policy with 0 rules`.
 *
 * The file reader adds `: from file <path>`; kube-apiserver prefixes `loading audit policy file: `.
 *
 * Decoding follows the apimachinery JSON/YAML serializer: a document starting with `{` is JSON, any
 * other is YAML 1.1 (goyaml.v2: `yes`/`no`/`on`/`off` are booleans); only the first YAML document is
 * read; field names are case-sensitive. Type errors read as Go's encoding/json ones
 * (`json: cannot unmarshal number into Go struct field PolicyRule.rules.level of type v1.Level`).
 * YAML and JSON syntax errors carry this parser's wording, not goyaml's or Go's.
 */
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { fieldErrorString, goQuote } from '../../machinery/errors/index.js';
import { YAML_UNMARSHAL_ERRORS, yamlDuplicateKeys } from '../../machinery/serializer/yaml-keys.js';
import { goPathError } from './go-errors.js';
import { newPolicyRuleEvaluator } from './policy.js';
import { AUDIT_API_VERSION, type AuditPolicy, type PolicyRuleEvaluator } from './types.js';
import { validatePolicy } from './validation.js';

/** A decoded, valid policy, and the warnings of a lenient fallback (at most one, as upstream logs it). */
export interface LoadedAuditPolicy {
  policy: AuditPolicy;
  warnings: string[];
}

/** Where pkg/audit/scheme.go creates the audit scheme, as scheme errors name it. */
const AUDIT_SCHEME_NAME = 'k8s.io/apiserver/pkg/audit/scheme.go:30';

/** The type apimachinery's `SimpleMetaFactory.Interpret` decodes apiVersion and kind into, as Go prints it. */
const FIND_KIND_TYPE = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** A decoding failure; its message is upstream's error text. */
class DecodeError extends Error {}

/**
 * reader.go `LoadPolicyFromBytes`: the policy in `text`, or throws an Error with upstream's message.
 * Never throws anything but Error.
 */
export function parseAuditPolicy(text: string): LoadedAuditPolicy {
  const warnings: string[] = [];
  let decoded: { policy: AuditPolicy; groupVersion: string };
  try {
    decoded = decodePolicy(text, warnings);
  } catch (err) {
    if (err instanceof DecodeError) throw new Error(`failed decoding: ${err.message}`);
    throw err;
  }
  // The file must name audit.k8s.io/v1 (a missing apiVersion decodes as the internal version).
  if (decoded.groupVersion !== AUDIT_API_VERSION) {
    throw new Error(`unknown group version field ${decoded.groupVersion}, Kind=Policy in policy`);
  }
  const errs = validatePolicy(decoded.policy);
  if (errs.length > 0) {
    // field.ErrorList.ToAggregate: distinct messages, bracketed when more than one.
    const messages = [...new Set(errs.map(fieldErrorString))];
    throw new Error(messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`);
  }
  if (decoded.policy.rules.length === 0) throw new Error('loaded illegal policy with 0 rules');
  return { policy: decoded.policy, warnings };
}

/**
 * The evaluator of the policy in `text` (reader.go `LoadPolicyFromBytes` then checker.go
 * `NewPolicyRuleEvaluator`). Throws as {@link parseAuditPolicy}; warnings go to `onWarning`.
 */
export function loadAuditPolicy(text: string, onWarning?: (msg: string) => void): PolicyRuleEvaluator {
  const { policy, warnings } = parseAuditPolicy(text);
  for (const w of warnings) onWarning?.(w);
  return newPolicyRuleEvaluator(policy);
}

/**
 * reader.go `LoadPolicyFromFile`: `file path not specified`, `failed to read file path "<p>": open
 * <p>: no such file or directory`, or the policy's error followed by `: from file <p>`.
 */
export function loadAuditPolicyFile(path: string): LoadedAuditPolicy {
  if (path === '') throw new Error('file path not specified');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`failed to read file path ${goQuote(path)}: ${goPathError('open', path, err)}`);
  }
  try {
    return parseAuditPolicy(text);
  } catch (err) {
    throw new Error(`${(err as Error).message}: from file ${path}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Decoding.

/** The document as JSON values: JSON when it starts with `{` (apimachinery's `IsJSONBuffer`), else YAML 1.1. */
function parseDocument(text: string): unknown {
  if (text.trimStart().startsWith('{')) {
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw new DecodeError(`couldn't get version/kind; json parse error: ${(err as Error).message}`);
    }
  }
  const docs = parseAllDocuments(text, {
    version: '1.1',
    // goyaml.v2 leaves timestamp-like scalars as strings when it decodes into interface{}.
    customTags: (tags) => tags.filter((t) => typeof t === 'string' || t.tag !== 'tag:yaml.org,2002:timestamp'),
    uniqueKeys: false,
    prettyErrors: false,
    logLevel: 'silent',
  });
  const doc = Array.isArray(docs) ? docs[0] : undefined;
  if (!doc) return null;
  const [first] = doc.errors;
  if (first) {
    // goyaml.v2 names the 1-based line: `yaml: line 3: …`.
    const line = text.slice(0, first.pos[0]).split('\n').length;
    throw new DecodeError(`yaml: line ${line}: ${first.message.split('\n')[0] ?? ''}`);
  }
  return doc.toJS() as unknown;
}

/** The Go value name encoding/json's UnmarshalTypeError gives a JSON value. */
function jsonValueName(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' && v !== null && !(v instanceof Date) ? 'object' : 'string';
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/** Kinds audit.k8s.io/v1 registers besides Policy: decoding one of them as a Policy fails in conversion. */
const OTHER_AUDIT_V1_KINDS = new Set(['Event', 'EventList', 'PolicyList']);

/**
 * The serializer's decoding of `text` into a Policy: apiVersion and kind (SimpleMetaFactory), their
 * defaults, the typed decoding with strict checks, the lenient fallback. Returns the group/version
 * the document was decoded as (`audit.k8s.io/__internal` when it names none).
 */
function decodePolicy(text: string, warnings: string[]): { policy: AuditPolicy; groupVersion: string } {
  const value = parseDocument(text);
  if (value !== null && !isObject(value)) {
    throw new DecodeError(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonValueName(value)} into Go value of type ${FIND_KIND_TYPE}`);
  }
  const obj = value ?? {};
  for (const key of ['apiVersion', 'kind'] as const) {
    const v = obj[key];
    if (v !== undefined && v !== null && typeof v !== 'string') {
      throw new DecodeError(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonValueName(v)} into Go struct field .${key} of type string`);
    }
  }
  // schema.FromAPIVersionAndKind: an unparsable apiVersion (two slashes) counts as none.
  const apiVersion = typeof obj['apiVersion'] === 'string' ? obj['apiVersion'] : '';
  let [group, version] = apiVersion.split('/').length > 2 ? ['', ''] : apiVersion.includes('/') ? (apiVersion.split('/') as [string, string]) : ['', apiVersion];
  const kind = typeof obj['kind'] === 'string' && obj['kind'] !== '' ? obj['kind'] : 'Policy';
  // Defaults from the target type, the internal audit.Policy (json.go gvkWithDefaults).
  if (version === '' && group === '') [group, version] = ['audit.k8s.io', '__internal'];
  else if (version === '' && group === 'audit.k8s.io') version = '__internal';
  const groupVersion = group === '' ? version : `${group}/${version}`;
  if (version === '') throw new DecodeError(`Object 'apiVersion' is missing in '${text}'`);

  if (groupVersion === 'audit.k8s.io/__internal' && kind === 'Policy') {
    // The internal type has no JSON names: nothing but apiVersion and kind decodes into it, and the
    // reader refuses this version anyway.
    return { policy: { rules: [] }, groupVersion };
  }
  if (groupVersion !== AUDIT_API_VERSION || !(kind === 'Policy' || OTHER_AUDIT_V1_KINDS.has(kind))) {
    throw new DecodeError(`no kind ${goQuote(kind)} is registered for version ${goQuote(groupVersion)} in scheme ${goQuote(AUDIT_SCHEME_NAME)}`);
  }
  if (kind !== 'Policy') throw new DecodeError(`converting (v1.${kind}) to (audit.Policy): unknown conversion`);

  const state: DecodeState = { strict: [] };
  const decoded = decodeValue(obj, POLICY, { struct: '', fields: [], path: '' }, state) as Record<string, unknown> | undefined;
  if (state.error !== undefined) throw new DecodeError(state.error);
  const strict = [...state.strict];
  if (!text.trimStart().startsWith('{')) {
    const dups = yamlDuplicateKeys(text);
    if (dups.length > 0) strict.unshift(`${YAML_UNMARSHAL_ERRORS}${dups.map((d) => `\n  ${d}`).join('')}`);
  }
  if (strict.length > 0) {
    warnings.push(`Audit policy contains errors, falling back to lenient decoding: strict decoding error: ${strict.join(', ')}`);
  }
  const policy = { ...(decoded ?? {}) } as Partial<AuditPolicy>;
  return { policy: { ...policy, rules: policy.rules ?? [] }, groupVersion };
}

/** The shape of a Go type, as encoding/json decodes into it. `go` is the type's name in error messages. */
type Shape =
  | { t: 'string' | 'bool' | 'object'; go: string }
  | { t: 'slice'; go: string; elem: Shape }
  | { t: 'struct'; go: string; name: string; fields: Record<string, Shape> };

const STRING: Shape = { t: 'string', go: 'string' };
const STRINGS: Shape = { t: 'slice', go: '[]string', elem: STRING };
const STAGES: Shape = { t: 'slice', go: '[]v1.Stage', elem: { t: 'string', go: 'v1.Stage' } };
const GROUP_RESOURCES: Shape = {
  t: 'struct',
  go: 'v1.GroupResources',
  name: 'GroupResources',
  fields: { group: STRING, resources: STRINGS, resourceNames: STRINGS },
};
const POLICY_RULE: Shape = {
  t: 'struct',
  go: 'v1.PolicyRule',
  name: 'PolicyRule',
  fields: {
    level: { t: 'string', go: 'v1.Level' },
    users: STRINGS,
    userGroups: STRINGS,
    verbs: STRINGS,
    resources: { t: 'slice', go: '[]v1.GroupResources', elem: GROUP_RESOURCES },
    namespaces: STRINGS,
    nonResourceURLs: STRINGS,
    omitStages: STAGES,
    // *bool: the error names the pointed-to type.
    omitManagedFields: { t: 'bool', go: 'bool' },
  },
};
/** audit.k8s.io/v1 Policy; metadata (ObjectMeta) is taken as it is. */
const POLICY: Shape = {
  t: 'struct',
  go: 'v1.Policy',
  name: 'Policy',
  fields: {
    kind: STRING,
    apiVersion: STRING,
    metadata: { t: 'object', go: 'v1.ObjectMeta' },
    rules: { t: 'slice', go: '[]v1.PolicyRule', elem: POLICY_RULE },
    omitStages: STAGES,
    omitManagedFields: { t: 'bool', go: 'bool' },
  },
};

interface DecodeState {
  /** encoding/json reports the first type error and keeps decoding. */
  error?: string;
  /** sigs.k8s.io/json's strict errors: `unknown field "rules[0].foo"`. */
  strict: string[];
}

/** Where the decoder is, as encoding/json's errorContext (innermost struct, field names) and the strict path. */
interface DecodeContext {
  struct: string;
  fields: string[];
  path: string;
}

/** Go's zero value of a shape, as a slice element JSON null decodes to. */
function zeroValue(shape: Shape): unknown {
  switch (shape.t) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'object':
    case 'struct':
      return {};
    case 'slice':
      return [];
  }
}

/** Decodes `v` into `shape` (JSON null leaves the zero value: undefined). */
function decodeValue(v: unknown, shape: Shape, ctx: DecodeContext, state: DecodeState): unknown {
  if (v === null || v === undefined) return undefined;
  const mismatch = (): undefined => {
    const into = ctx.fields.length > 0 ? `Go struct field ${ctx.struct}.${ctx.fields.join('.')}` : 'Go value';
    state.error ??= `json: cannot unmarshal ${jsonValueName(v)} into ${into} of type ${shape.go}`;
    return undefined;
  };
  switch (shape.t) {
    case 'string':
      return typeof v === 'string' ? v : mismatch();
    case 'bool':
      return typeof v === 'boolean' ? v : mismatch();
    case 'object':
      return isObject(v) ? v : mismatch();
    case 'slice':
      if (!Array.isArray(v)) return mismatch();
      // A null element is the element type's zero value.
      return v.map((item, i) => decodeValue(item, shape.elem, { ...ctx, path: `${ctx.path}[${i}]` }, state) ?? zeroValue(shape.elem));
    case 'struct': {
      if (!isObject(v)) return mismatch();
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(v)) {
        const path = ctx.path === '' ? key : `${ctx.path}.${key}`;
        const fieldShape = Object.hasOwn(shape.fields, key) ? shape.fields[key] : undefined;
        if (!fieldShape) {
          state.strict.push(`unknown field ${goQuote(path)}`);
          continue;
        }
        const decoded = decodeValue(item, fieldShape, { struct: shape.name, fields: [...ctx.fields, key], path }, state);
        if (decoded !== undefined) out[key] = decoded;
      }
      return out;
    }
  }
}
