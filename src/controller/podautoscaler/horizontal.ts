/**
 * The HorizontalPodAutoscaler controller: every sync period, for each HPA, reads the target's
 * `scale` subresource, computes the replicas each metric asks for, stabilizes and limits the
 * largest, writes the new scale when it differs, and records status, conditions and events.
 *
 * Follows kubernetes/kubernetes pkg/controller/podautoscaler/horizontal.go (v1.33):
 * `enqueueHPA`/`deleteHPA` → `processNextWorkItem` (every HPA is requeued one sync period later, by
 * a fixed-interval rate limiter: rate_limiters.go) → `reconcileKey` → `reconcileAutoscaler` →
 * `computeReplicasForMetrics` → `computeReplicasForMetric` → `computeStatusFor…Metric` (the
 * {@link ReplicaCalculator}) → `normalizeDesiredReplicas[WithBehaviors]` (behavior.ts) → scale update
 * → `setStatus` → `updateStatusIfNeeded`. Recommendations and scale events are kept in memory, as
 * upstream's are. The target's kind is resolved through a {@link RESTMapper}, so any resource with a
 * `scale` subresource can be autoscaled. Events (component `horizontal-pod-autoscaler`) and
 * conditions carry upstream's reasons and messages.
 *
 * Not reproduced: the Prometheus monitor of reconciliations; the alpha HPAConfigurableTolerance
 * (per-HPA tolerance) and HPAScaleToZero gates (both off by default in v1.33). Like upstream, the
 * status written does not carry `observedGeneration`.
 */
import type { HorizontalPodAutoscaler, LabelSelector, Pod, Scale } from '../../api/index.js';
import type { MetricSpec, MetricStatus, MetricTarget, MetricValueStatus } from 'kubernetes-types/autoscaling/v2.js';
import { parseGroupVersion, type Clientset, type ResourceDescriptor } from '../../client/index.js';
import { EventRecorder, withTypeMeta, type EventType } from '../../client/record/index.js';
import { DeletedFinalStateUnknown, type Lister, type SharedInformerFactory } from '../../informers/index.js';
import { nothing, parseSelector, selectorFromLabelSelector, type Selector } from '../../machinery/labels/index.js';
import { deepCopy, metaNamespaceKey, semanticDeepEqual, splitMetaNamespaceKey } from '../../machinery/meta/index.js';
import { parseQuantity } from '../../machinery/quantity/index.js';
import { formatTime, type Clock } from '../../util/clock/index.js';
import { stderrLogger, type Logger } from '../../util/runtime/index.js';
import { RateLimitingQueue, runWorkersWhenSynced, type RateLimiter, type SyncResult } from '../../workqueue/index.js';
import { toError } from '../controller-utils.js';
import {
  convertDesiredReplicasWithBehaviorRate,
  convertDesiredReplicasWithRules,
  stabilizeRecommendation,
  stabilizeRecommendationWithBehaviors,
  storeScaleEvent,
  type NormalizationArg,
  type TimestampedRecommendation,
  type TimestampedScaleEvent,
} from './behavior.js';
import { RestMetricsClient, type MetricsClient } from './metrics-client.js';
import { ReplicaCalculator } from './replica-calculator.js';
import { catalogueRESTMapper, type RESTMapper } from '../rest-mapper.js';
import { formatMilli, goLabelSelector, setCondition, type ConditionValue } from './status.js';

/** The HPA kind, for events. */
export const HPA_KIND = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' } as const;

/** kube-controller-manager's defaults for the HPA controller's flags (ms where a duration). */
export const HPA_DEFAULTS = Object.freeze({
  /** `--horizontal-pod-autoscaler-sync-period` */
  syncPeriodMs: 15_000,
  /** `--horizontal-pod-autoscaler-downscale-stabilization` */
  downscaleStabilizationMs: 300_000,
  /** `--horizontal-pod-autoscaler-tolerance` */
  tolerance: 0.1,
  /** `--horizontal-pod-autoscaler-cpu-initialization-period` */
  cpuInitializationPeriodMs: 300_000,
  /** `--horizontal-pod-autoscaler-initial-readiness-delay` */
  initialReadinessDelayMs: 30_000,
  /** `--concurrent-horizontal-pod-autoscaler-syncs` */
  workers: 5,
});

/** Options of {@link HorizontalController}. Durations in ms; unset ones take {@link HPA_DEFAULTS}. */
export interface HorizontalControllerOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  /** Default: a {@link RestMetricsClient} on `client` (metrics.k8s.io and the custom/external metrics APIs). */
  metricsClient?: MetricsClient;
  /** Default: the resource catalogue. The composition root passes discovery, so custom resources are found. */
  restMapper?: RESTMapper;
  syncPeriodMs?: number;
  downscaleStabilizationMs?: number;
  tolerance?: number;
  cpuInitializationPeriodMs?: number;
  initialReadinessDelayMs?: number;
  workers?: number;
  /** Default: a recorder with component `horizontal-pod-autoscaler`. */
  recorder?: EventRecorder;
  logger?: Logger;
}

/**
 * upstream `NewDefaultHPARateLimiter` (fixedItemIntervalRateLimiter): every rate-limited add waits
 * exactly one sync period, so each HPA is reconciled once per period.
 */
export function fixedItemIntervalRateLimiter<T>(intervalMs: number): RateLimiter<T> {
  return { when: () => intervalMs, forget: () => {}, numRequeues: () => 0 };
}

/** What one metric proposed (upstream `computeReplicasForMetric`'s results). */
interface MetricProposal {
  replicas: number;
  metricName: string;
  timestamp: number;
}

/** A metric failure: the error, and the ScalingActive condition it asks for. */
class MetricError extends Error {
  constructor(
    message: string,
    readonly condition: ConditionValue,
  ) {
    super(message);
  }
}

const errText = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const milliOf = (q: string | number | undefined): number => (q === undefined ? 0 : parseQuantity(q).milliValue());

/** See the module documentation. */
export class HorizontalController {
  readonly queue: RateLimitingQueue;
  /** The per-key sync; a field so tests can wrap or replace it. */
  syncHandler: (key: string) => Promise<SyncResult>;
  readonly recorder: EventRecorder;
  private readonly client: Clientset;
  private readonly clock: Clock;
  private readonly informers: SharedInformerFactory;
  private readonly hpaLister: Lister<HorizontalPodAutoscaler>;
  private readonly podLister: Lister<Pod>;
  private readonly mapper: RESTMapper;
  private readonly replicaCalc: ReplicaCalculator;
  private readonly syncPeriodMs: number;
  private readonly downscaleStabilizationMs: number;
  private readonly defaultWorkers: number;
  private readonly logger: Logger;
  /** Latest unstabilized recommendations per HPA key. */
  private readonly recommendations = new Map<string, TimestampedRecommendation[]>();
  /** Latest rescales per HPA key (only kept for HPAs with `behavior`). */
  private readonly scaleUpEvents = new Map<string, TimestampedScaleEvent[]>();
  private readonly scaleDownEvents = new Map<string, TimestampedScaleEvent[]>();
  /**
   * The pod selector of each HPA's target, by namespace and HPA key (upstream `hpaSelectors`):
   * `nothing` until the first reconcile reads it. Two HPAs selecting the same pod make both ambiguous.
   */
  private readonly hpaSelectors = new Map<string, Map<string, Selector>>();

  constructor(opts: HorizontalControllerOptions) {
    this.client = opts.client;
    this.clock = opts.clock;
    this.informers = opts.informers;
    this.mapper = opts.restMapper ?? catalogueRESTMapper;
    this.syncPeriodMs = opts.syncPeriodMs ?? HPA_DEFAULTS.syncPeriodMs;
    this.downscaleStabilizationMs = opts.downscaleStabilizationMs ?? HPA_DEFAULTS.downscaleStabilizationMs;
    this.defaultWorkers = opts.workers ?? HPA_DEFAULTS.workers;
    this.logger = opts.logger ?? stderrLogger;
    this.recorder = opts.recorder ?? new EventRecorder(opts.client, { component: 'horizontal-pod-autoscaler', clock: opts.clock, logger: this.logger });
    this.queue = new RateLimitingQueue<string>({ clock: opts.clock, name: 'horizontalpodautoscaler', rateLimiter: fixedItemIntervalRateLimiter(this.syncPeriodMs) });

    const hpas = opts.informers.autoscaling.horizontalPodAutoscalers();
    hpas.addEventHandler({
      add: (hpa) => this.enqueueHPA(hpa),
      update: (_old, cur) => this.enqueueHPA(cur),
      delete: (obj) => this.deleteHPA(obj instanceof DeletedFinalStateUnknown ? obj.obj : obj),
    });
    const pods = opts.informers.core.pods();
    this.hpaLister = hpas.lister();
    this.podLister = pods.lister();
    this.replicaCalc = new ReplicaCalculator({
      metricsClient: opts.metricsClient ?? new RestMetricsClient(opts.client, this.mapper),
      podLister: this.podLister,
      clock: opts.clock,
      tolerance: opts.tolerance ?? HPA_DEFAULTS.tolerance,
      cpuInitializationPeriodMs: opts.cpuInitializationPeriodMs ?? HPA_DEFAULTS.cpuInitializationPeriodMs,
      delayOfInitialReadinessStatusMs: opts.initialReadinessDelayMs ?? HPA_DEFAULTS.initialReadinessDelayMs,
    });
    this.syncHandler = (key) => this.sync(key);
  }

  /** Waits for the HPA and pod caches, then runs `workers` workers until `signal` aborts. */
  async run(workers: number = this.defaultWorkers, signal?: AbortSignal): Promise<void> {
    await runWorkersWhenSynced([this.informers.autoscaling.horizontalPodAutoscalers(), this.informers.core.pods()], this.queue, workers, (key) => this.syncHandler(key), {
      name: 'horizontal-pod-autoscaler',
      logger: this.logger,
      signal,
    });
  }

  // ---- event handlers ----

  /**
   * `enqueueHPA`: queued one sync period from now (a key already waiting keeps its earlier time), and
   * registered for the ambiguity check with a selector that selects nothing until reconciled.
   */
  private enqueueHPA(hpa: HorizontalPodAutoscaler): void {
    const key = metaNamespaceKey(hpa);
    this.queue.addRateLimited(key);
    const ns = hpa.metadata?.namespace ?? '';
    let selectors = this.hpaSelectors.get(ns);
    if (!selectors) this.hpaSelectors.set(ns, (selectors = new Map<string, Selector>()));
    if (!selectors.has(key)) selectors.set(key, nothing);
  }

  /** `deleteHPA`: forgets the key's selector (the queued sync finds it gone and drops its history). */
  private deleteHPA(hpa: HorizontalPodAutoscaler): void {
    const key = metaNamespaceKey(hpa);
    this.queue.forget(key);
    const ns = hpa.metadata?.namespace ?? '';
    const selectors = this.hpaSelectors.get(ns);
    selectors?.delete(key);
    if (selectors?.size === 0) this.hpaSelectors.delete(ns);
  }

  private event(hpa: HorizontalPodAutoscaler, type: EventType, reason: string, message: string): void {
    this.recorder.event(withTypeMeta(hpa, HPA_KIND.apiVersion, HPA_KIND.kind), type, reason, message);
  }

  // ---- sync ----

  /**
   * `reconcileKey` + upstream's unconditional requeue: reconciles the HPA of `key` and asks to be run
   * again one sync period later, unless the HPA is gone (its history is then dropped).
   * @throws the reconcile's error (the queue then retries one sync period later too)
   */
  async sync(key: string): Promise<SyncResult> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const hpa = this.hpaLister.namespace(namespace).get(name);
    if (!hpa) {
      this.recommendations.delete(key);
      this.scaleUpEvents.delete(key);
      this.scaleDownEvents.delete(key);
      return undefined;
    }
    await this.reconcileAutoscaler(hpa, key);
    return { requeueAfter: this.syncPeriodMs };
  }

  private set(hpa: HorizontalPodAutoscaler, type: ConditionValue['type'], status: ConditionValue['status'], reason: string, message: string): void {
    setCondition(hpa, { type, status, reason, message }, this.clock.now());
  }

  /**
   * `reconcileAutoscaler`: one evaluation of `hpaShared` (never mutated; a copy collects the new
   * status, written once at the end when it changed).
   * @throws Error for a scale that cannot be read or written, metrics that give no proposal, or a
   *   failed status update (after recording the conditions and events upstream records)
   */
  async reconcileAutoscaler(hpaShared: HorizontalPodAutoscaler, key: string): Promise<void> {
    const hpa = deepCopy(hpaShared);
    const statusOriginal = deepCopy(hpa.status);
    const spec = hpa.spec ?? { maxReplicas: 0, scaleTargetRef: { kind: '', name: '' } };
    const namespace = hpa.metadata?.namespace ?? '';
    const ref = spec.scaleTargetRef;
    const reference = `${ref.kind}/${namespace}/${ref.name}`;

    const failedGetScale = async (err: unknown, wrapped: string): Promise<never> => {
      this.event(hpa, 'Warning', 'FailedGetScale', errText(err));
      this.set(hpa, 'AbleToScale', 'False', 'FailedGetScale', `the HPA controller was unable to get the target's current scale: ${errText(err)}`);
      await this.updateStatusIfNeededLogged(statusOriginal, hpa);
      throw new Error(wrapped);
    };

    const targetGV = parseGroupVersionStrict(ref.apiVersion ?? '');
    if (targetGV instanceof Error) return failedGetScale(targetGV, `invalid API version in scale target reference: ${targetGV.message}`);
    const mappings = this.mapper.mappings(targetGV.group, ref.kind);
    if (mappings.length === 0) {
      const err = new Error(`no matches for kind "${ref.kind}" in group "${targetGV.group}"`);
      return failedGetScale(err, `unable to determine resource for scale target reference: ${err.message}`);
    }
    let scale: Scale;
    let target: ResourceDescriptor;
    try {
      ({ scale, target } = await this.scaleForResourceMappings(namespace, ref.name, mappings));
    } catch (err) {
      return failedGetScale(err, `failed to query scale subresource for ${reference}: ${errText(err)}`);
    }
    this.set(hpa, 'AbleToScale', 'True', 'SucceededGetScale', "the HPA controller was able to get the target's current scale");
    const currentReplicas = scale.spec?.replicas ?? 0;
    this.recordInitialRecommendation(currentReplicas, key);

    let metricStatuses: MetricStatus[] | undefined;
    let desiredReplicas = 0;
    let rescaleReason = '';
    const minReplicas = spec.minReplicas ?? 1;
    let rescale = true;
    let retErr: Error | undefined;

    if (currentReplicas === 0 && minReplicas !== 0) {
      // Autoscaling is off for a target scaled to zero by hand.
      desiredReplicas = 0;
      rescale = false;
      this.set(hpa, 'ScalingActive', 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero');
    } else if (currentReplicas > spec.maxReplicas) {
      rescaleReason = 'Current number of replicas above Spec.MaxReplicas';
      desiredReplicas = spec.maxReplicas;
    } else if (currentReplicas < minReplicas) {
      rescaleReason = 'Current number of replicas below Spec.MinReplicas';
      desiredReplicas = minReplicas;
    } else {
      const computed = await this.computeReplicasForMetrics(hpa, scale, spec.metrics ?? []);
      metricStatuses = computed.statuses;
      if (computed.err && computed.replicas === -1) {
        this.setCurrentReplicasAndMetricsInStatus(hpa, currentReplicas, metricStatuses);
        await this.updateStatusIfNeededLogged(statusOriginal, hpa);
        this.event(hpa, 'Warning', 'FailedComputeMetricsReplicas', computed.err.message);
        throw new Error(`failed to compute desired number of replicas based on listed metrics for ${reference}: ${computed.err.message}`);
      }
      // Some metrics failed but the others ask for more than now: scale on them, report the error after.
      retErr = computed.err;
      let rescaleMetric = '';
      if (computed.replicas > desiredReplicas) {
        desiredReplicas = computed.replicas;
        rescaleMetric = computed.metric;
      }
      if (desiredReplicas > currentReplicas) rescaleReason = `${rescaleMetric} above target`;
      if (desiredReplicas < currentReplicas) rescaleReason = 'All metrics below target';
      desiredReplicas = spec.behavior
        ? this.normalizeDesiredReplicasWithBehaviors(hpa, key, currentReplicas, desiredReplicas, minReplicas)
        : this.normalizeDesiredReplicas(hpa, key, currentReplicas, desiredReplicas, minReplicas);
      rescale = desiredReplicas !== currentReplicas;
    }

    if (rescale) {
      try {
        const update: Scale = { ...scale, metadata: { ...scale.metadata }, spec: { ...scale.spec, replicas: desiredReplicas } };
        await this.client.resource(target, namespace).updateScale(ref.name, update);
      } catch (err) {
        this.event(hpa, 'Warning', 'FailedRescale', `New size: ${desiredReplicas}; reason: ${rescaleReason}; error: ${errText(err)}`);
        this.set(hpa, 'AbleToScale', 'False', 'FailedUpdateScale', `the HPA controller was unable to update the target scale: ${errText(err)}`);
        this.setCurrentReplicasAndMetricsInStatus(hpa, currentReplicas, metricStatuses);
        await this.updateStatusIfNeededLogged(statusOriginal, hpa);
        throw new Error(`failed to rescale ${reference}: ${errText(err)}`);
      }
      this.set(hpa, 'AbleToScale', 'True', 'SucceededRescale', `the HPA controller was able to update the target scale to ${desiredReplicas}`);
      this.event(hpa, 'Normal', 'SuccessfulRescale', `New size: ${desiredReplicas}; reason: ${rescaleReason}`);
      this.storeScaleEvent(hpa, key, currentReplicas, desiredReplicas);
      this.logger.info({ hpa: key, currentReplicas, desiredReplicas, reason: rescaleReason }, 'Successfully rescaled');
    } else {
      desiredReplicas = currentReplicas;
    }

    this.setStatus(hpa, currentReplicas, desiredReplicas, metricStatuses, rescale);
    await this.updateStatusIfNeeded(statusOriginal, hpa);
    if (retErr) throw retErr;
  }

  /** `scaleForResourceMappings`: the scale of the first mapping that answers; else the first error. */
  private async scaleForResourceMappings(namespace: string, name: string, mappings: readonly ResourceDescriptor[]): Promise<{ scale: Scale; target: ResourceDescriptor }> {
    let firstErr: unknown;
    for (const [i, mapping] of mappings.entries()) {
      try {
        return { scale: await this.client.resource(mapping, namespace).getScale(name), target: mapping };
      } catch (err) {
        if (i === 0) firstErr = err;
      }
    }
    throw firstErr === undefined ? new Error('unrecognized resource') : toError(firstErr);
  }

  /** `recordInitialRecommendation`: the first evaluation remembers the current count as a recommendation. */
  private recordInitialRecommendation(currentReplicas: number, key: string): void {
    if (!this.recommendations.has(key)) this.recommendations.set(key, [{ recommendation: currentReplicas, timestamp: this.clock.now() }]);
  }

  // ---- metrics ----

  /**
   * `computeReplicasForMetrics`: the largest proposal of the metrics, its description, the statuses of
   * all metrics (a failed one leaves an empty entry, as upstream's) and the sample time. `replicas` is
   * -1 with `err` when nothing can be done: the selector is unusable, every metric failed, or some
   * failed and the others would scale down. `err` with replicas ≥ 0: some failed, scale on the rest.
   */
  private async computeReplicasForMetrics(
    hpa: HorizontalPodAutoscaler,
    scale: Scale,
    metricSpecs: readonly MetricSpec[],
  ): Promise<{ replicas: number; metric: string; statuses: MetricStatus[] | undefined; timestamp: number; err?: Error }> {
    let selector: Selector;
    try {
      selector = this.validateAndParseSelector(hpa, scale.status?.selector ?? '');
    } catch (err) {
      return { replicas: -1, metric: '', statuses: undefined, timestamp: 0, err: err as Error };
    }
    const specReplicas = scale.spec?.replicas ?? 0;
    const statusReplicas = scale.status?.replicas ?? 0;
    const statuses: MetricStatus[] = metricSpecs.map(() => ({ type: '' }));
    let invalidMetricsCount = 0;
    let invalidMetricError: MetricError | undefined;
    let replicas = 0;
    let metric = '';
    let timestamp = 0;
    for (const [i, metricSpec] of metricSpecs.entries()) {
      let proposal: MetricProposal;
      try {
        proposal = await this.computeReplicasForMetric(hpa, metricSpec, specReplicas, statusReplicas, selector, statuses, i);
      } catch (err) {
        if (invalidMetricsCount <= 0) invalidMetricError = err instanceof MetricError ? err : new MetricError(errText(err), unableCondition('InvalidMetricSourceType', err));
        invalidMetricsCount++;
        continue;
      }
      if (replicas === 0 || proposal.replicas > replicas) {
        timestamp = proposal.timestamp;
        replicas = proposal.replicas;
        metric = proposal.metricName;
      }
    }
    const err = invalidMetricError ? new Error(`invalid metrics (${invalidMetricsCount} invalid out of ${metricSpecs.length}), first error is: ${invalidMetricError.message}`) : undefined;
    // Every metric failed, or some failed and the rest would scale down (which the failed ones might forbid).
    if (invalidMetricError && (invalidMetricsCount >= metricSpecs.length || replicas < specReplicas)) {
      setCondition(hpa, invalidMetricError.condition, this.clock.now());
      return { replicas: -1, metric: '', statuses, timestamp: 0, ...(err ? { err } : {}) };
    }
    this.set(hpa, 'ScalingActive', 'True', 'ValidMetricFound', `the HPA was able to successfully calculate a replica count from ${metric}`);
    return { replicas, metric, statuses, timestamp, ...(err ? { err } : {}) };
  }

  /**
   * `validateAndParseSelector`: the scale's selector must be present, parse, and select pods no other
   * HPA selects.
   * @throws Error (after the event and ScalingActive condition upstream records)
   */
  private validateAndParseSelector(hpa: HorizontalPodAutoscaler, selector: string): Selector {
    if (selector === '') {
      const errMsg = 'selector is required';
      this.event(hpa, 'Warning', 'SelectorRequired', errMsg);
      this.set(hpa, 'ScalingActive', 'False', 'InvalidSelector', "the HPA target's scale is missing a selector");
      throw new Error(errMsg);
    }
    let parsed: Selector;
    try {
      parsed = parseSelector(selector);
    } catch (err) {
      const errMsg = `couldn't convert selector into a corresponding internal selector object: ${errText(err)}`;
      this.event(hpa, 'Warning', 'InvalidSelector', errMsg);
      this.set(hpa, 'ScalingActive', 'False', 'InvalidSelector', errMsg);
      throw new Error(errMsg);
    }
    const key = metaNamespaceKey(hpa);
    const namespace = hpa.metadata?.namespace ?? '';
    // Only HPAs registered by enqueueHPA (not deleted since) take part in the ambiguity check.
    const selectors = this.hpaSelectors.get(namespace);
    if (selectors?.has(key)) selectors.set(key, parsed);
    const pods = this.podLister.namespace(namespace).list(parsed);
    const selecting = this.hpasControllingPods(namespace, pods);
    if (selecting.length > 1) {
      const errMsg = `pods by selector ${selector} are controlled by multiple HPAs: [${selecting.join(' ')}]`;
      this.event(hpa, 'Warning', 'AmbiguousSelector', errMsg);
      this.set(hpa, 'ScalingActive', 'False', 'AmbiguousSelector', errMsg);
      throw new Error(errMsg);
    }
    return parsed;
  }

  /** `hpasControllingPodsUnderSelector`: the keys (sorted) of the HPAs in `namespace` whose selector selects any of `pods`. */
  private hpasControllingPods(namespace: string, pods: readonly Pod[]): string[] {
    const out: string[] = [];
    for (const [key, sel] of this.hpaSelectors.get(namespace) ?? []) {
      if (pods.some((p) => sel.matches(p.metadata?.labels))) out.push(key);
    }
    return out.sort();
  }

  /**
   * `computeReplicasForMetric`: one metric's proposal; sets `statuses[i]`.
   * @throws MetricError with upstream's message and the ScalingActive condition to report
   */
  private async computeReplicasForMetric(
    hpa: HorizontalPodAutoscaler,
    spec: MetricSpec,
    specReplicas: number,
    statusReplicas: number,
    selector: Selector,
    statuses: MetricStatus[],
    i: number,
  ): Promise<MetricProposal> {
    const namespace = hpa.metadata?.namespace ?? '';
    const fail = (reason: string, err: unknown, wrap: (m: string) => string): MetricError => {
      const condition = this.unableToComputeReplicaCount(hpa, reason, err);
      return new MetricError(wrap(errText(err)), condition);
    };
    switch (spec.type) {
      case 'Object': {
        const src = spec.object;
        const wrap = (m: string): string => `failed to get object metric value: ${m}`;
        let metricSelector: Selector;
        try {
          metricSelector = selectorFromLabelSelector(src?.metric?.selector);
        } catch (err) {
          throw fail('FailedGetObjectMetric', err, wrap);
        }
        if (!src) throw fail('FailedGetObjectMetric', new Error('invalid object metric source: neither a value target nor an average value target was set'), wrap);
        if (src.target?.type === 'Value' && src.target.value !== undefined) {
          let r;
          try {
            r = await this.replicaCalc.getObjectMetricReplicas(specReplicas, milliOf(src.target.value), src.metric.name, namespace, src.describedObject, selector, metricSelector);
          } catch (err) {
            throw fail('FailedGetObjectMetric', err, wrap);
          }
          statuses[i] = { type: 'Object', object: { describedObject: src.describedObject, metric: metricIdentifier(src.metric), current: { value: formatMilli(r.usage) } } };
          return { replicas: r.replicas, timestamp: r.timestamp, metricName: `${src.describedObject.kind} metric ${src.metric.name}` };
        }
        if (src.target?.type === 'AverageValue' && src.target.averageValue !== undefined) {
          let r;
          try {
            r = await this.replicaCalc.getObjectPerPodMetricReplicas(statusReplicas, milliOf(src.target.averageValue), src.metric.name, namespace, src.describedObject, metricSelector);
          } catch (err) {
            const condition = this.unableToComputeReplicaCount(hpa, 'FailedGetObjectMetric', err);
            throw new MetricError(wrap(`failed to get ${src.metric.name} object metric: ${errText(err)}`), condition);
          }
          statuses[i] = { type: 'Object', object: { describedObject: src.describedObject, metric: metricIdentifier(src.metric), current: { averageValue: formatMilli(r.usage) } } };
          return { replicas: r.replicas, timestamp: r.timestamp, metricName: `external metric ${src.metric.name}(${goLabelSelector(src.metric.selector)})` };
        }
        throw fail('FailedGetObjectMetric', new Error('invalid object metric source: neither a value target nor an average value target was set'), wrap);
      }
      case 'Pods': {
        const src = spec.pods;
        const wrap = (m: string): string => `failed to get pods metric value: ${m}`;
        let r;
        try {
          const metricSelector = selectorFromLabelSelector(src?.metric?.selector);
          r = await this.replicaCalc.getMetricReplicas(specReplicas, milliOf(src?.target?.averageValue), src?.metric?.name ?? '', namespace, selector, metricSelector);
        } catch (err) {
          throw fail('FailedGetPodsMetric', err, wrap);
        }
        statuses[i] = { type: 'Pods', pods: { metric: metricIdentifier(src?.metric), current: { averageValue: formatMilli(r.usage) } } };
        return { replicas: r.replicas, timestamp: r.timestamp, metricName: `pods metric ${src?.metric?.name ?? ''}` };
      }
      case 'Resource': {
        const src = spec.resource;
        const name = src?.name ?? '';
        let r;
        try {
          r = await this.computeStatusForResourceMetricGeneric(specReplicas, src?.target, name, namespace, '', selector, 'Resource');
        } catch (err) {
          throw fail('FailedGetResourceMetric', err, (m) => `failed to get ${name} resource metric value: ${m}`);
        }
        statuses[i] = { type: 'Resource', resource: { name, current: r.status } };
        return r;
      }
      case 'ContainerResource': {
        const src = spec.containerResource;
        const name = src?.name ?? '';
        const container = src?.container ?? '';
        let r;
        try {
          r = await this.computeStatusForResourceMetricGeneric(specReplicas, src?.target, name, namespace, container, selector, 'ContainerResource');
        } catch (err) {
          throw fail('FailedGetContainerResourceMetric', err, (m) => `failed to get ${container} container metric value: ${m}`);
        }
        statuses[i] = { type: 'ContainerResource', containerResource: { name, container, current: r.status } };
        return r;
      }
      case 'External': {
        const src = spec.external;
        const metricName = src?.metric?.name ?? '';
        const description = `external metric ${metricName}(${goLabelSelector(src?.metric?.selector)})`;
        if (src?.target?.averageValue !== undefined) {
          let r;
          try {
            r = await this.replicaCalc.getExternalPerPodMetricReplicas(statusReplicas, milliOf(src.target.averageValue), metricName, namespace, src.metric.selector);
          } catch (err) {
            const condition = this.unableToComputeReplicaCount(hpa, 'FailedGetExternalMetric', err);
            throw new MetricError(`failed to get ${metricName} external metric value: failed to get ${metricName} external metric: ${errText(err)}`, condition);
          }
          statuses[i] = { type: 'External', external: { metric: metricIdentifier(src.metric), current: { averageValue: formatMilli(r.usage) } } };
          return { replicas: r.replicas, timestamp: r.timestamp, metricName: description };
        }
        if (src?.target?.value !== undefined) {
          let r;
          try {
            r = await this.replicaCalc.getExternalMetricReplicas(specReplicas, milliOf(src.target.value), metricName, namespace, src.metric.selector, selector);
          } catch (err) {
            const condition = this.unableToComputeReplicaCount(hpa, 'FailedGetExternalMetric', err);
            throw new MetricError(`failed to get ${metricName} external metric value: failed to get external metric ${metricName}: ${errText(err)}`, condition);
          }
          statuses[i] = { type: 'External', external: { metric: metricIdentifier(src.metric), current: { value: formatMilli(r.usage) } } };
          return { replicas: r.replicas, timestamp: r.timestamp, metricName: description };
        }
        const errMsg = 'invalid external metric source: neither a value target nor an average value target was set';
        throw fail('FailedGetExternalMetric', new Error(errMsg), (m) => `failed to get ${metricName} external metric value: ${m}`);
      }
      default: {
        // Validation rejects unknown types; an object written past it must not stop the controller.
        const err = new Error(`unknown metric source type "${spec.type}"`);
        throw new MetricError(err.message, this.unableToComputeReplicaCount(hpa, 'InvalidMetricSourceType', err));
      }
    }
  }

  /**
   * `computeStatusForResourceMetricGeneric`: a Resource or ContainerResource proposal for an
   * AverageValue target (raw usage) or an Utilization target.
   * @throws Error `failed to get <resource> usage|utilization: …`, or for a target with neither
   */
  private async computeStatusForResourceMetricGeneric(
    currentReplicas: number,
    target: MetricTarget | undefined,
    resource: string,
    namespace: string,
    container: string,
    selector: Selector,
    sourceType: 'Resource' | 'ContainerResource',
  ): Promise<MetricProposal & { status: MetricValueStatus }> {
    if (target?.averageValue !== undefined) {
      let r;
      try {
        r = await this.replicaCalc.getRawResourceReplicas(currentReplicas, milliOf(target.averageValue), resource, namespace, selector, container);
      } catch (err) {
        throw new Error(`failed to get ${resource} usage: ${errText(err)}`);
      }
      return { replicas: r.replicas, timestamp: r.timestamp, metricName: `${resource} resource`, status: { averageValue: formatMilli(r.usage) } };
    }
    if (target?.averageUtilization === undefined) {
      throw new Error('invalid resource metric source: neither an average utilization target nor an average value (usage) target was set');
    }
    let r;
    try {
      r = await this.replicaCalc.getResourceReplicas(currentReplicas, target.averageUtilization, resource, namespace, selector, container);
    } catch (err) {
      throw new Error(`failed to get ${resource} utilization: ${errText(err)}`);
    }
    const metricName = sourceType === 'ContainerResource' ? `${resource} container resource utilization (percentage of request)` : `${resource} resource utilization (percentage of request)`;
    return { replicas: r.replicas, timestamp: r.timestamp, metricName, status: { averageUtilization: r.utilization, averageValue: formatMilli(r.rawUtilization) } };
  }

  /** `getUnableComputeReplicaCountCondition`: a Warning event `reason` and the ScalingActive=False condition to set. */
  private unableToComputeReplicaCount(hpa: HorizontalPodAutoscaler, reason: string, err: unknown): ConditionValue {
    this.event(hpa, 'Warning', reason, errText(err));
    return unableCondition(reason, err);
  }

  // ---- normalization ----

  /** `normalizeDesiredReplicas` (no `behavior`): downscale stabilization, then min/max and the scale-up limit. */
  private normalizeDesiredReplicas(hpa: HorizontalPodAutoscaler, key: string, currentReplicas: number, prenormalized: number, minReplicas: number): number {
    const recs = this.recommendationsOf(key);
    const stabilized = stabilizeRecommendation(recs, prenormalized, this.downscaleStabilizationMs, this.clock.now());
    if (stabilized !== prenormalized) {
      this.set(hpa, 'AbleToScale', 'True', 'ScaleDownStabilized', 'recent recommendations were higher than current one, applying the highest recent recommendation');
    } else {
      this.set(hpa, 'AbleToScale', 'True', 'ReadyForNewScale', 'recommended size matches current size');
    }
    const limited = convertDesiredReplicasWithRules(currentReplicas, stabilized, minReplicas, hpa.spec?.maxReplicas ?? 0);
    this.set(hpa, 'ScalingLimited', limited.replicas === stabilized ? 'False' : 'True', limited.reason, limited.message);
    return limited.replicas;
  }

  /** `normalizeDesiredReplicasWithBehaviors`: the behavior's stabilization windows, then its policies and min/max. */
  private normalizeDesiredReplicasWithBehaviors(hpa: HorizontalPodAutoscaler, key: string, currentReplicas: number, prenormalized: number, minReplicas: number): number {
    const behavior = hpa.spec?.behavior ?? {};
    // maybeInitScaleDownStabilizationWindow: an unset scale-down window takes the controller's flag.
    const scaleDownBehavior = { ...behavior.scaleDown };
    scaleDownBehavior.stabilizationWindowSeconds ??= Math.trunc(this.downscaleStabilizationMs / 1000);
    const args: NormalizationArg = {
      scaleUpBehavior: behavior.scaleUp ?? {},
      scaleDownBehavior,
      minReplicas,
      maxReplicas: hpa.spec?.maxReplicas ?? 0,
      currentReplicas,
      desiredReplicas: prenormalized,
    };
    const now = this.clock.now();
    const stabilized = stabilizeRecommendationWithBehaviors(args, this.recommendationsOf(key), now);
    if (stabilized.replicas !== prenormalized) this.set(hpa, 'AbleToScale', 'True', stabilized.reason, stabilized.message);
    else this.set(hpa, 'AbleToScale', 'True', 'ReadyForNewScale', 'recommended size matches current size');
    const limited = convertDesiredReplicasWithBehaviorRate({ ...args, desiredReplicas: stabilized.replicas }, this.scaleUpEvents.get(key) ?? [], this.scaleDownEvents.get(key) ?? [], now);
    this.set(hpa, 'ScalingLimited', limited.replicas === stabilized.replicas ? 'False' : 'True', limited.reason, limited.message);
    return limited.replicas;
  }

  private recommendationsOf(key: string): TimestampedRecommendation[] {
    let recs = this.recommendations.get(key);
    if (!recs) this.recommendations.set(key, (recs = []));
    return recs;
  }

  /** `storeScaleEvent`: remembered only for HPAs with `behavior` (the only ones whose policies read them). */
  private storeScaleEvent(hpa: HorizontalPodAutoscaler, key: string, prevReplicas: number, newReplicas: number): void {
    const behavior = hpa.spec?.behavior;
    if (!behavior) return;
    const up = newReplicas > prevReplicas;
    const map = up ? this.scaleUpEvents : this.scaleDownEvents;
    let events = map.get(key);
    if (!events) map.set(key, (events = []));
    storeScaleEvent(events, up ? behavior.scaleUp : behavior.scaleDown, prevReplicas, newReplicas, this.clock.now());
  }

  // ---- status ----

  private setCurrentReplicasAndMetricsInStatus(hpa: HorizontalPodAutoscaler, currentReplicas: number, metricStatuses: MetricStatus[] | undefined): void {
    this.setStatus(hpa, currentReplicas, hpa.status?.desiredReplicas ?? 0, metricStatuses, false);
  }

  /** `setStatus`: the status rebuilt from the counts, metrics and conditions; `lastScaleTime` is now after a rescale. */
  private setStatus(hpa: HorizontalPodAutoscaler, currentReplicas: number, desiredReplicas: number, metricStatuses: MetricStatus[] | undefined, rescale: boolean): void {
    const old = hpa.status;
    const lastScaleTime = rescale ? formatTime(this.clock.now()) : old?.lastScaleTime;
    hpa.status = {
      currentReplicas,
      desiredReplicas,
      ...(lastScaleTime ? { lastScaleTime } : {}),
      ...(metricStatuses ? { currentMetrics: metricStatuses } : {}),
      ...(old?.conditions ? { conditions: old.conditions } : {}),
    };
  }

  /**
   * `updateStatusIfNeeded`: writes the status subresource when it differs from `oldStatus`.
   * @throws Error `failed to update status for <name>: …` (after a FailedUpdateStatus event)
   */
  private async updateStatusIfNeeded(oldStatus: HorizontalPodAutoscaler['status'], hpa: HorizontalPodAutoscaler): Promise<void> {
    if (semanticDeepEqual(oldStatus, hpa.status)) return;
    try {
      await this.client.autoscaling.horizontalPodAutoscalers(hpa.metadata?.namespace ?? '').updateStatus(hpa);
    } catch (err) {
      this.event(hpa, 'Warning', 'FailedUpdateStatus', errText(err));
      throw new Error(`failed to update status for ${hpa.metadata?.name ?? ''}: ${errText(err)}`);
    }
  }

  /** {@link updateStatusIfNeeded} on an error path: its own failure is logged, the first error wins. */
  private async updateStatusIfNeededLogged(oldStatus: HorizontalPodAutoscaler['status'], hpa: HorizontalPodAutoscaler): Promise<void> {
    try {
      await this.updateStatusIfNeeded(oldStatus, hpa);
    } catch (err) {
      this.logger.error({ err, hpa: metaNamespaceKey(hpa) }, 'Failed to update HPA status');
    }
  }
}

/** The ScalingActive=False condition of a metric that could not be computed. */
function unableCondition(reason: string, err: unknown): ConditionValue {
  return { type: 'ScalingActive', status: 'False', reason, message: `the HPA was unable to compute the replica count: ${errText(err)}` };
}

/** A MetricIdentifier copied for a status (name and selector). */
function metricIdentifier(m: { name: string; selector?: LabelSelector } | undefined): { name: string; selector?: LabelSelector } {
  return { name: m?.name ?? '', ...(m?.selector ? { selector: m.selector } : {}) };
}

/**
 * `schema.ParseGroupVersion`: `''` is the empty group/version, `v1` the core group, `g/v` a group;
 * more than one slash is an error.
 */
function parseGroupVersionStrict(apiVersion: string): { group: string; version: string } | Error {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  if (apiVersion.split('/').length > 2) return new Error(`unexpected GroupVersion string: ${apiVersion}`);
  return parseGroupVersion(apiVersion);
}
