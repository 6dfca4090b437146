/** The HorizontalPodAutoscaler controller, its replica calculator, behavior arithmetic and metrics client. */
export { HorizontalController, HPA_DEFAULTS, HPA_KIND, fixedItemIntervalRateLimiter, type HorizontalControllerOptions } from './horizontal.js';
export { ReplicaCalculator, calculatePodRequests, groupPods, type PodGroups, type ReplicaCalculatorOptions, type MetricReplicas, type ResourceReplicas } from './replica-calculator.js';
export { RestMetricsClient, GO_ZERO_TIME, containerMetricsFromList, podMetricsFromList, type MetricsClient, type PodMetricsWire, type PodMetric, type PodMetricsInfo, type PodMetricsResult } from './metrics-client.js';
export { catalogueRESTMapper, newRESTMapper, type RESTMapper } from '../rest-mapper.js';
export * from './behavior.js';
export { getMetricUsageRatio, getResourceUtilizationRatio, type UtilizationRatio } from './utilization.js';
export { formatMilli, goLabelSelector, setCondition, type ConditionValue, type HPAConditionType } from './status.js';
