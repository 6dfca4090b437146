/**
 * PriorityLevelConfigurations (flowcontrol.apiserver.k8s.io/v1, cluster-scoped, with status), with
 * upstream's mandatory and suggested levels created at start-up (flowcontrol-bootstrap.ts). Served and
 * validated only: no request is queued or limited by them (API Priority and Fairness is not enforced).
 *
 * Followed (v1.33): pkg/apis/flowcontrol/v1/defaults.go (SetDefaults_LimitedPriorityLevelConfiguration,
 * SetDefaults_ExemptPriorityLevelConfiguration, SetDefaults_QueuingConfiguration),
 * pkg/apis/flowcontrol/validation/validation.go (ValidatePriorityLevelConfiguration for a v1 request,
 * with AllowZeroLimitedNominalConcurrencyShares as the 1.30+ strategy sets it;
 * ValidateIfMandatoryPriorityLevelConfigurationObject; ValidatePriorityLevelQueuingConfiguration with
 * k8s.io/apiserver's shufflesharding.RequiredEntropyBits; the status checks), pkg/registry/flowcontrol/
 * prioritylevelconfiguration/strategy.go, pkg/registry/flowcontrol/ensurer (plcSpecEqualish: the
 * `exempt` level's `spec.exempt` is the operator's), pkg/printers/internalversion/printers.go
 * (printPriorityLevelConfiguration).
 *
 * Not done: the spec of a mandatory level that fails its fixed value is printed as JSON in the message,
 * where upstream prints Go's `%#v` with pointer addresses.
 */
import { PRIORITY_LEVEL_CONFIGURATIONS } from '../../../api/catalogue/index.js';
import type { KubeObject, PriorityLevelConfiguration } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import type { StorageContext, StorageExtension } from '../extension.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { MANDATORY_PRIORITY_LEVEL_CONFIGURATIONS, SUGGESTED_PRIORITY_LEVEL_CONFIGURATIONS } from './flowcontrol-bootstrap.js';
import { ensureBootstrapObjects } from './flowcontrol-ensurer.js';
import { semanticDeepEqual, specStatusPreparation, type ApiObject } from './helpers.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

interface QueuingConfiguration {
  queues?: number;
  handSize?: number;
  queueLengthLimit?: number;
}

interface LimitedPriorityLevelConfiguration {
  nominalConcurrencyShares?: number;
  limitResponse?: { type?: string; queuing?: QueuingConfiguration };
  lendablePercent?: number;
  borrowingLimitPercent?: number;
}

interface ExemptPriorityLevelConfiguration {
  nominalConcurrencyShares?: number;
  lendablePercent?: number;
}

interface PriorityLevelSpec {
  type?: string;
  limited?: LimitedPriorityLevelConfiguration;
  exempt?: ExemptPriorityLevelConfiguration;
}

/** A condition of a FlowSchema or PriorityLevelConfiguration status (`type` is all their validation reads). */
interface FlowcontrolCondition {
  type?: string;
}

type PriorityLevelObject = ApiObject<KubeObject> & { spec?: PriorityLevelSpec; status?: { conditions?: FlowcontrolCondition[] } };

/** `PriorityLevelConfigurationDefault*`. */
const DEFAULT_NOMINAL_CONCURRENCY_SHARES = 30;
const DEFAULT_HAND_SIZE = 8;
const DEFAULT_QUEUES = 64;
const DEFAULT_QUEUE_LENGTH_LIMIT = 50;
/** `priorityLevelConfigurationQueuingMaxQueues` (10^7) and shufflesharding's `MaxHashBits`. */
const MAX_QUEUES = 10_000_000;
const MAX_HASH_BITS = 60;
const ENABLEMENTS = ['Exempt', 'Limited'];
const LIMIT_RESPONSE_TYPES = ['Queue', 'Reject'];
/** `flowcontrolv1beta3.PriorityLevelPreserveZeroConcurrencySharesKey`, forbidden outside v1beta3 requests. */
const PRESERVE_ZERO_SHARES_KEY = 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares';
const MANDATORY = new Map(MANDATORY_PRIORITY_LEVEL_CONFIGURATIONS.map((pl) => [pl.metadata?.name ?? '', pl]));

/** `SetObjectDefaults_PriorityLevelConfiguration` (v1). */
export function defaultPriorityLevel(pl: PriorityLevelObject): void {
  const limited = pl.spec?.limited;
  if (limited) {
    limited.nominalConcurrencyShares ??= DEFAULT_NOMINAL_CONCURRENCY_SHARES;
    limited.lendablePercent ??= 0;
    const q = limited.limitResponse?.queuing;
    if (q) {
      if (!q.handSize) q.handSize = DEFAULT_HAND_SIZE;
      if (!q.queues) q.queues = DEFAULT_QUEUES;
      if (!q.queueLengthLimit) q.queueLengthLimit = DEFAULT_QUEUE_LENGTH_LIMIT;
    }
  }
  const exempt = pl.spec?.exempt;
  if (exempt) {
    exempt.nominalConcurrencyShares ??= 0;
    exempt.lendablePercent ??= 0;
  }
}

/** `shufflesharding.RequiredEntropyBits`: ⌈log2(deckSize) × handSize⌉. */
function requiredEntropyBits(deckSize: number, handSize: number): number {
  return Math.ceil(Math.log2(deckSize) * handSize);
}

/** `ValidatePriorityLevelQueuingConfiguration`: positive queue length, queues ≤ 10^7, a hand that fits the deck and 60 hash bits. */
function validateQueuing(q: QueuingConfiguration, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const queueLengthLimit = q.queueLengthLimit ?? 0;
  const queues = q.queues ?? 0;
  const handSize = q.handSize ?? 0;
  if (queueLengthLimit <= 0) errs.push(field.invalid(`${path}.queueLengthLimit`, queueLengthLimit, 'must be positive'));
  if (queues <= 0) errs.push(field.invalid(`${path}.queues`, queues, 'must be positive'));
  else if (queues > MAX_QUEUES) errs.push(field.invalid(`${path}.queues`, queues, `must not be greater than ${MAX_QUEUES}`));
  if (handSize <= 0) errs.push(field.invalid(`${path}.handSize`, handSize, 'must be positive'));
  else if (handSize > queues) errs.push(field.invalid(`${path}.handSize`, handSize, `should not be greater than queues (${queues})`));
  else if (requiredEntropyBits(queues, handSize) > MAX_HASH_BITS) {
    errs.push(
      field.invalid(`${path}.handSize`, handSize, `required entropy bits of deckSize ${queues} and handSize ${handSize} should not be greater than ${MAX_HASH_BITS}`),
    );
  }
  return errs;
}

/** `ValidateLimitResponse`: Reject without queuing, Queue with a valid one. */
function validateLimitResponse(lr: LimitedPriorityLevelConfiguration['limitResponse'], path: string): FieldError[] {
  const type = lr?.type ?? '';
  if (type === 'Reject') return lr?.queuing ? [field.forbidden(`${path}.queuing`, 'must be nil if limited.limitResponse.type is not Limited')] : [];
  if (type === 'Queue') {
    return lr?.queuing ? validateQueuing(lr.queuing, `${path}.queuing`) : [field.required(`${path}.queuing`, 'must not be empty if limited.limitResponse.type is Limited')];
  }
  return [field.notSupported(`${path}.type`, type, LIMIT_RESPONSE_TYPES)];
}

/** lendablePercent in 0..100 (both kinds of level). */
function validateLendablePercent(value: number | undefined, path: string): FieldError[] {
  return value != null && (value < 0 || value > 100) ? [field.invalid(path, value, 'must be between 0 and 100, inclusive')] : [];
}

/** `ValidateLimitedPriorityLevelConfiguration` (v1, zero shares allowed). */
function validateLimited(l: LimitedPriorityLevelConfiguration, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const shares = l.nominalConcurrencyShares ?? 0;
  if (shares < 0) errs.push(field.invalid(`${path}.nominalConcurrencyShares`, shares, 'must be a non-negative integer'));
  errs.push(...validateLimitResponse(l.limitResponse, `${path}.limitResponse`));
  errs.push(...validateLendablePercent(l.lendablePercent, `${path}.lendablePercent`));
  if (l.borrowingLimitPercent != null && l.borrowingLimitPercent < 0) {
    errs.push(field.invalid(`${path}.borrowingLimitPercent`, l.borrowingLimitPercent, 'if specified, must be a non-negative integer'));
  }
  return errs;
}

/** `ValidateExemptPriorityLevelConfiguration`. */
function validateExempt(e: ExemptPriorityLevelConfiguration, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (e.nominalConcurrencyShares != null && e.nominalConcurrencyShares < 0) {
    errs.push(field.invalid(`${path}.nominalConcurrencyShares`, e.nominalConcurrencyShares, 'must be a non-negative integer'));
  }
  return [...errs, ...validateLendablePercent(e.lendablePercent, `${path}.lendablePercent`)];
}

/** `ValidatePriorityLevelConfigurationSpec`: type Exempt exactly for `exempt`; the member of the type set, the other absent. */
function validateSpec(spec: PriorityLevelSpec, name: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = spec.type ?? '';
  if ((name === 'exempt') !== (type === 'Exempt')) errs.push(field.invalid('spec.type', type, "type must be 'Exempt' if and only if name is 'exempt'"));
  if (type === 'Exempt') {
    if (spec.limited) errs.push(field.forbidden('spec.limited', 'must be nil if the type is not Limited'));
    if (spec.exempt) errs.push(...validateExempt(spec.exempt, 'spec.exempt'));
  } else if (type === 'Limited') {
    if (spec.exempt) errs.push(field.forbidden('spec.exempt', 'must be nil if the type is Limited'));
    if (spec.limited) errs.push(...validateLimited(spec.limited, 'spec.limited'));
    else errs.push(field.required('spec.limited', 'must not be empty when type is Limited'));
  } else errs.push(field.notSupported('spec.type', type, ENABLEMENTS));
  return errs;
}

/** plcSpecEqualish / the mandatory check: `exempt`'s `spec.exempt` is the operator's to set. */
function mandatorySpecEqual(name: string, spec: PriorityLevelSpec | undefined, fixed: PriorityLevelSpec | undefined): boolean {
  return semanticDeepEqual(name === 'exempt' ? { ...spec, exempt: fixed?.exempt } : spec, fixed);
}

/** `ValidateIfMandatoryPriorityLevelConfigurationObject`. */
function validateMandatory(pl: PriorityLevelObject): FieldError[] {
  const name = pl.metadata?.name ?? '';
  const mandatory = MANDATORY.get(name);
  if (!mandatory || mandatorySpecEqual(name, pl.spec, mandatory.spec)) return [];
  const what = name === 'exempt' ? `spec of '${name}' except the 'spec.exempt' field must equal the fixed value` : `spec of '${name}' must equal the fixed value`;
  return [field.invalid('spec', pl.spec ?? {}, what)];
}

/** `ValidateFlowSchemaStatus` / `ValidatePriorityLevelConfigurationStatus`: condition types set and unique. */
export function validateFlowcontrolConditions(conditions: readonly FlowcontrolCondition[] | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (conditions ?? []).forEach((c, i) => {
    const type = c.type ?? '';
    if (seen.has(type)) errs.push(field.duplicate(`status.conditions[${i}].type`, type));
    seen.add(type);
    if (type === '') errs.push(field.required(`status.conditions[${i}].type`, 'must not be empty'));
  });
  return errs;
}

/** `ValidatePriorityLevelConfiguration` for a v1 request, without the generic ObjectMeta checks. */
export function validatePriorityLevelConfiguration(pl: PriorityLevelObject): FieldError[] {
  const errs: FieldError[] = [];
  if (pl.metadata?.annotations?.[PRESERVE_ZERO_SHARES_KEY] !== undefined) {
    errs.push(field.forbidden('metadata.annotations', `annotation '${PRESERVE_ZERO_SHARES_KEY}' is forbidden`));
  }
  errs.push(...validateSpec(pl.spec ?? {}, pl.metadata?.name ?? ''));
  errs.push(...validateMandatory(pl));
  return [...errs, ...validateFlowcontrolConditions(pl.status?.conditions)];
}

/** The config producer's part for priority levels: suggested, then mandatory (before the schemas that name them). */
function priorityLevelStorage({ store }: StorageContext): StorageExtension {
  const equalish = (want: PriorityLevelConfiguration, have: KubeObject): boolean =>
    mandatorySpecEqual(want.metadata?.name ?? '', have['spec'] as PriorityLevelSpec | undefined, want.spec);
  return {
    bootstrap: async () => {
      await ensureBootstrapObjects(store, SUGGESTED_PRIORITY_LEVEL_CONFIGURATIONS, false);
      await ensureBootstrapObjects(store, MANDATORY_PRIORITY_LEVEL_CONFIGURATIONS, true, equalish);
    },
  };
}

/** printPriorityLevelConfiguration: shares and queuing of a Limited level, `<none>` otherwise. */
function priorityLevelCells(pl: PriorityLevelObject): unknown[] {
  const limited = pl.spec?.limited;
  const q = limited?.limitResponse?.queuing;
  return [limited ? (limited.nominalConcurrencyShares ?? 0) : '<none>', q?.queues ?? '<none>', q?.handSize ?? '<none>', q?.queueLengthLimit ?? '<none>'];
}

/** The PriorityLevelConfiguration strategy. */
export const priorityLevelConfigurationStrategy: ResourceStrategy<PriorityLevelObject> = {
  info: resourceInfo(PRIORITY_LEVEL_CONFIGURATIONS),
  hasStatus: true,
  defaults: defaultPriorityLevel,
  ...specStatusPreparation(() => ({})),
  validate: validatePriorityLevelConfiguration,
  validateUpdate: validatePriorityLevelConfiguration,
  validateStatusUpdate: (pl) => validateFlowcontrolConditions(pl.status?.conditions),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  storage: priorityLevelStorage,
  table: {
    columns: [
      NAME_COLUMN,
      column(
        'Type',
        'string',
        '`type` indicates whether this priority level is subject to limitation on request execution.  A value of `"Exempt"` means that requests of this priority level are not subject to a limit (and thus are never queued) and do not detract from the capacity made available to other priority levels.  A value of `"Limited"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the server\'s limited capacity is made available exclusively to this priority level. Required.',
      ),
      column(
        'NominalConcurrencyShares',
        'string',
        '`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level. This is the number of execution seats available at this priority level. This is used both for requests dispatched from this priority level as well as requests dispatched from other priority levels borrowing seats from this level. The server\'s concurrency limit (ServerCL) is divided among the Limited priority levels in proportion to their NCS values:\n\nNominalCL(i)  = ceil( ServerCL * NCS(i) / sum_ncs ) sum_ncs = sum[priority level k] NCS(k)\n\nBigger numbers mean a larger nominal concurrency limit, at the expense of every other priority level.\n\nIf not specified, this field defaults to a value of 30.\n\nSetting this field to zero supports the construction of a "jail" for this priority level that is used to hold some request(s)',
      ),
      column(
        'Queues',
        'string',
        '`queues` is the number of queues for this priority level. The queues exist independently at each apiserver. The value must be positive.  Setting it to 1 effectively precludes shufflesharding and thus makes the distinguisher method of associated flow schemas irrelevant.  This field has a default value of 64.',
      ),
      column(
        'HandSize',
        'string',
        "`handSize` is a small positive number that configures the shuffle sharding of requests into queues.  When enqueuing a request at this priority level the request's flow identifier (a string pair) is hashed and the hash value is used to shuffle the list of queues and deal a hand of the size specified here.  The request is put into one of the shortest queues in that hand. `handSize` must be no larger than `queues`, and should be significantly smaller (so that a few heavy flows do not saturate most of the queues).  See the user-facing documentation for more extensive guidance on setting this field.  This field has a default value of 8.",
      ),
      column(
        'QueueLengthLimit',
        'string',
        '`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time; excess requests are rejected.  This value must be positive.  If not specified, it will be defaulted to 50.',
      ),
      AGE_COLUMN,
    ],
    row: (pl, now) => ({
      cells: [pl.metadata?.name ?? '', pl.spec?.type ?? '', ...priorityLevelCells(pl), translateTimestampSince(pl.metadata?.creationTimestamp, now)],
    }),
  },
};
