/**
 * The Kubernetes CEL format library (upstream k8s.io/apiserver pkg/cel/library/format.go):
 * `format.dns1123Label().validate(s)` and `format.named('dns1123Label')` — a validate() result is
 * an optional list of error strings, none when the string is valid.
 */
import { CelScalar, celFunc, celMethod, mapType, type CelFunc, type CelMap } from '@bufbuild/cel';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '../../../../machinery/validation/index.js';
import { OPTIONAL_TAG, optionalValue } from './library.js';

export const FORMAT_TAG = '@kubeplane.format';

/** `maskTrailingDash`: a generateName prefix may end with `-`. */
const prefix = (check: (s: string) => string[]) => (s: string): string[] => check(s.length > 1 && s.endsWith('-') ? `${s.slice(0, -1)}a` : s);

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function validDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const d = new globalThis.Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.getUTCDate() === Number(m[3]);
}

/** Go's url.ParseRequestURI: an absolute URI or an absolute path. */
function requestURIErrors(s: string): string[] {
  if (s.startsWith('/')) return [];
  try {
    new URL(s);
    return /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s) ? [] : [`parse "${s}": invalid URI for request`];
  } catch {
    return [`parse "${s}": invalid URI for request`];
  }
}

/** The named formats, as upstream's ConstantFormats. */
export const FORMATS: ReadonlyMap<string, (s: string) => string[]> = new Map<string, (s: string) => string[]>([
  ['dns1123Label', isDNS1123Label],
  ['dns1123Subdomain', isDNS1123Subdomain],
  ['dns1035Label', isDNS1035Label],
  ['qualifiedName', isQualifiedName],
  ['dns1123LabelPrefix', prefix(isDNS1123Label)],
  ['dns1123SubdomainPrefix', prefix(isDNS1123Subdomain)],
  ['dns1035LabelPrefix', prefix(isDNS1035Label)],
  ['labelValue', isValidLabelValue],
  ['uri', requestURIErrors],
  ['uuid', (s) => (UUID.test(s) ? [] : ['does not match the UUID format'])],
  ['byte', (s) => (BASE64.test(s) ? [] : ['invalid base64'])],
  ['date', (s) => (validDate(s) ? [] : ['invalid date'])],
  ['datetime', (s) => (DATETIME.test(s) && !Number.isNaN(new globalThis.Date(s).getTime()) ? [] : ['invalid datetime'])],
]);

const MAP = mapType(CelScalar.STRING, CelScalar.DYN);

/** The format functions for the evaluator. */
export const FORMAT_FUNCS: readonly CelFunc[] = [
  ...[...FORMATS.keys()].map((name) => celFunc(`format.${name}`, [], MAP, () => ({ [FORMAT_TAG]: name }))),
  celFunc('format.named', [CelScalar.STRING], MAP, (name: string) => optionalValue(FORMATS.has(name) ? { [FORMAT_TAG]: name } : undefined) as Record<string, never>),
  celMethod('validate', MAP, [CelScalar.STRING], MAP, function (this: CelMap, s: string) {
    const name = this.get(FORMAT_TAG);
    const check = typeof name === 'string' ? FORMATS.get(name) : undefined;
    if (!check) throw new Error('no such overload');
    const errs = check(s);
    return { [OPTIONAL_TAG]: errs.length === 0 ? [] : [errs] };
  }),
];
