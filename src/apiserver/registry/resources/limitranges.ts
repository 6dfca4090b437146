/**
 * LimitRanges (core/v1). Stored and validated; the LimitRanger admission plugin that would apply
 * them to pods is not done here.
 *
 * Followed (v1.33): pkg/apis/core/v1/defaults.go (SetDefaults_LimitRangeItem: for Container items,
 * default from max, defaultRequest from default then min), pkg/apis/core/validation/validation.go
 * (ValidateLimitRange, validateLimitRangeTypeName, validateLimitRangeResourceName),
 * pkg/registry/core/limitrange/strategy.go (a nameless LimitRange gets a UUID name; PUT may create)
 * and pkg/registry/core/limitrange/storage/storage.go (no printer: upstream's default table
 * convertor, Name and Created At).
 *
 * Upstream walks Go maps, so the order of its errors varies; here resource names are taken in
 * sorted order.
 */
import { LIMIT_RANGES } from '../../../api/catalogue/index.js';
import type { LimitRange } from '../../../api/index.js';
import type { LimitRangeItem } from 'kubernetes-types/core/v1.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { parseQuantity, type Quantity } from '../../../machinery/quantity/index.js';
import { isQualifiedName } from '../../../machinery/validation/index.js';
import type { StorageContext, StorageExtension } from '../extension.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import type { ApiObject } from './helpers.js';
import { invalidQuantity, isOvercommitAllowed, isStandardLimitRangeType, parseQuantityAt, validateContainerResourceName, validateResourceName } from './resource-names.js';
import { defaultTablePrinter } from './table-helpers.js';

type LimitRangeObject = ApiObject<LimitRange>;
type Quantities = Record<string, string | number>;

/** `resource.MaxMilliValue`: above it, ratios are computed in whole units rather than milli-units. */
const MAX_MILLI_VALUE = Number((2n ** 63n - 1n) / 1000n);

/** `SetDefaults_LimitRangeItem`: a Container item's missing default from max, then defaultRequest from default, then from min. */
export function defaultLimitRangeItem(item: LimitRangeItem): void {
  if (item.type !== 'Container') return;
  const defaults: Quantities = { ...item.default };
  const requests: Quantities = { ...item.defaultRequest };
  for (const [k, v] of Object.entries(item.max ?? {})) if (!(k in defaults)) defaults[k] = v;
  for (const [k, v] of Object.entries(defaults)) if (!(k in requests)) requests[k] = v;
  for (const [k, v] of Object.entries(item.min ?? {})) if (!(k in requests)) requests[k] = v;
  // An empty ResourceList is omitted when Go serializes it.
  // Values are strings or, from JSON numbers, numbers; they are copied as they came.
  if (Object.keys(defaults).length > 0) item.default = defaults as Record<string, string>;
  if (Object.keys(requests).length > 0) item.defaultRequest = requests as Record<string, string>;
}

/** `validateLimitRangeTypeName`: a qualified name; unqualified ones must be Pod, Container or PersistentVolumeClaim. */
function validateLimitRangeTypeName(type: string, path: string): FieldError[] {
  const msgs = isQualifiedName(type);
  if (msgs.length > 0) return msgs.map((m) => field.invalid(path, type, m));
  if (!type.includes('/') && !isStandardLimitRangeType(type)) return [field.invalid(path, type, 'must be a standard limit type or fully qualified')];
  return [];
}

/** One limit's quantities by kind, parsed; raw values are kept for error values. */
type Bound = 'max' | 'min' | 'default' | 'defaultRequest' | 'maxLimitRequestRatio';
interface Parsed {
  q: Quantity;
  raw: string | number;
}

/**
 * Validates the names of `item[bound]` (container resource names for Pod and Container items) and
 * parses its quantities into `into[bound]`.
 */
function collectBound(item: LimitRangeItem, bound: Bound, path: string, into: Map<Bound, Map<string, Parsed>>): FieldError[] {
  const validateName = item.type === 'Pod' || item.type === 'Container' ? validateContainerResourceName : validateResourceName;
  const parsed = new Map<string, Parsed>();
  const errs: FieldError[] = [];
  const list: Quantities = item[bound] ?? {};
  for (const k of Object.keys(list).sort()) {
    const p = `${path}.${bound}[${k}]`;
    errs.push(...validateName(k, p));
    const raw = list[k] ?? 0;
    const [q, parseErr] = parseQuantityAt(raw, p);
    if (q) parsed.set(k, { q, raw });
    else errs.push(parseErr);
  }
  into.set(bound, parsed);
  return errs;
}

/** Go's `%f`: six decimals, `+Inf`, `NaN`. */
function goFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : '-Inf';
  return x.toFixed(6);
}

/** `maxLimitRequestRatio` against max/min, in milli-units unless a value is too large for them. */
function ratioAboveMaxOverMin(ratio: Quantity, min: Quantity, max: Quantity): [above: boolean, limit: number] {
  const milli = ratio.value() < MAX_MILLI_VALUE && min.value() < MAX_MILLI_VALUE && max.value() < MAX_MILLI_VALUE;
  const ratioValue = milli ? ratio.milliValue() / 1000 : ratio.value();
  const limit = milli ? max.milliValue() / min.milliValue() : max.value() / min.value();
  return [ratioValue > limit, limit];
}

/** The comparisons between one resource's bounds in one limit, in upstream's order. */
function compareBounds(k: string, b: Map<Bound, Map<string, Parsed>>, path: string): FieldError[] {
  const [min, max, def, req, ratio] = (['min', 'max', 'default', 'defaultRequest', 'maxLimitRequestRatio'] as const).map((bound) => b.get(bound)?.get(k));
  const errs: FieldError[] = [];
  /** An error at `<bound>[k]` whose value is `value`'s Quantity. */
  const fail = (bound: Bound, value: Parsed, detail: string): void => void errs.push(invalidQuantity(`${path}.${bound}[${k}]`, value.raw, detail));
  const str = (p: Parsed): string => p.q.toString();
  if (min && max && min.q.cmp(max.q) > 0) fail('min', min, `min value ${str(min)} is greater than max value ${str(max)}`);
  if (req && min && min.q.cmp(req.q) > 0) fail('defaultRequest', req, `min value ${str(min)} is greater than default request value ${str(req)}`);
  if (req && max && req.q.cmp(max.q) > 0) fail('defaultRequest', req, `default request value ${str(req)} is greater than max value ${str(max)}`);
  if (req && def && req.q.cmp(def.q) > 0) fail('defaultRequest', req, `default request value ${str(req)} is greater than default limit value ${str(def)}`);
  if (def && min && min.q.cmp(def.q) > 0) fail('default', min, `min value ${str(min)} is greater than default value ${str(def)}`);
  if (def && max && def.q.cmp(max.q) > 0) fail('default', max, `default value ${str(def)} is greater than max value ${str(max)}`);
  if (ratio && ratio.q.cmp(parseQuantity(1)) < 0) fail('maxLimitRequestRatio', ratio, `ratio ${str(ratio)} is less than 1`);
  if (ratio && min && max) {
    const [above, limit] = ratioAboveMaxOverMin(ratio.q, min.q, max.q);
    if (above) fail('maxLimitRequestRatio', ratio, `ratio ${str(ratio)} is greater than max/min = ${goFloat(limit)}`);
  }
  if (!isOvercommitAllowed(k) && def && req && def.q.cmp(req.q) !== 0) {
    fail('defaultRequest', req, `default value ${str(def)} must equal to defaultRequest value ${str(req)} in ${k}`);
  }
  return errs;
}

/** One item of `spec.limits` (`types` holds the types seen before it). */
function validateLimitRangeItem(item: LimitRangeItem, path: string, types: Set<string>): FieldError[] {
  const type = item.type ?? '';
  const errs = validateLimitRangeTypeName(type, `${path}.type`);
  if (types.has(type)) errs.push(field.duplicate(`${path}.type`, type));
  types.add(type);
  const bounds = new Map<Bound, Map<string, Parsed>>();
  errs.push(...collectBound(item, 'max', path, bounds), ...collectBound(item, 'min', path, bounds));
  if (type === 'Pod') {
    const forbidden = "may not be specified when `type` is 'Pod'";
    if (Object.keys(item.default ?? {}).length > 0) errs.push(field.forbidden(`${path}.default`, forbidden));
    if (Object.keys(item.defaultRequest ?? {}).length > 0) errs.push(field.forbidden(`${path}.defaultRequest`, forbidden));
  } else {
    errs.push(...collectBound(item, 'default', path, bounds), ...collectBound(item, 'defaultRequest', path, bounds));
  }
  if (type === 'PersistentVolumeClaim' && item.min?.['storage'] === undefined && item.max?.['storage'] === undefined) {
    errs.push(field.required(`${path}.limits`, 'either minimum or maximum storage value is required, but neither was provided'));
  }
  errs.push(...collectBound(item, 'maxLimitRequestRatio', path, bounds));
  const keys = new Set([...bounds.values()].flatMap((m) => [...m.keys()]));
  for (const k of [...keys].sort()) errs.push(...compareBounds(k, bounds, path));
  return errs;
}

/** `ValidateLimitRange` without the generic ObjectMeta checks. */
export function validateLimitRange(lr: LimitRange): FieldError[] {
  const types = new Set<string>();
  return (lr.spec?.limits ?? []).flatMap((item, i) => validateLimitRangeItem(item, `spec.limits[${i}]`, types));
}

/** PrepareForCreate's `if len(limitRange.Name) == 0 { limitRange.Name = string(uuid.NewUUID()) }`, before names are generated. */
function limitRangeStorage({ rand }: StorageContext): StorageExtension {
  return {
    mutateCreate(obj) {
      const meta = (obj.metadata ??= {});
      if (!meta.name) meta.name = rand.uuid();
    },
  };
}

/** The limitranges strategy. */
export const limitRangeStrategy: ResourceStrategy<LimitRangeObject> = {
  info: resourceInfo(LIMIT_RANGES),
  hasStatus: false,
  defaults(lr) {
    for (const item of lr.spec?.limits ?? []) defaultLimitRangeItem(item);
  },
  prepareForCreate() {},
  prepareForUpdate() {},
  validate: validateLimitRange,
  validateUpdate: validateLimitRange,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  storage: limitRangeStorage,
  table: defaultTablePrinter,
};
