/**
 * The API Priority and Fairness objects every cluster has: the mandatory PriorityLevelConfigurations
 * and FlowSchemas (`exempt`, `catch-all`) and the suggested ones, exactly as k8s.io/apiserver
 * pkg/apis/flowcontrol/bootstrap/default.go defines them at v0.33.9, each annotated
 * `apf.kubernetes.io/autoupdate-spec: "true"`. Defaulting leaves them unchanged (upstream checks that
 * in pkg/apis/flowcontrol/internalbootstrap), so they are also the fixed values the validation of the
 * mandatory objects compares against.
 */
import type { FlowSchema, PriorityLevelConfiguration } from '../../../api/index.js';

/** `flowcontrol.AutoUpdateAnnotationKey`: the config producer keeps the spec of objects carrying `"true"` up to date. */
export const AUTO_UPDATE_ANNOTATION_KEY = 'apf.kubernetes.io/autoupdate-spec';

type PriorityLevelSpec = NonNullable<PriorityLevelConfiguration['spec']>;
type FlowSchemaSpec = NonNullable<FlowSchema['spec']>;
type PolicyRules = FlowSchemaSpec['rules'] extends (infer R)[] | undefined ? R : never;
type Subject = PolicyRules['subjects'][number];
type ResourceRule = NonNullable<PolicyRules['resourceRules']>[number];
type NonResourceRule = NonNullable<PolicyRules['nonResourceRules']>[number];

const annotations = (): Record<string, string> => ({ [AUTO_UPDATE_ANNOTATION_KEY]: 'true' });

function priorityLevel(name: string, spec: PriorityLevelSpec): PriorityLevelConfiguration {
  return { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name, annotations: annotations() }, spec };
}

/** A Limited level that queues (every suggested level): shares, lendable percent, queues, hand size; queue length 50. */
function queuingLevel(name: string, nominalConcurrencyShares: number, lendablePercent: number, queues: number, handSize: number): PriorityLevelConfiguration {
  return priorityLevel(name, {
    type: 'Limited',
    limited: { nominalConcurrencyShares, lendablePercent, limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit: 50 } } },
  });
}

function flowSchema(name: string, plName: string, matchingPrecedence: number, distinguisher: 'ByUser' | 'ByNamespace' | '', rules: PolicyRules): FlowSchema {
  const spec: FlowSchemaSpec = { priorityLevelConfiguration: { name: plName }, matchingPrecedence, rules: [rules] };
  if (distinguisher) spec.distinguisherMethod = { type: distinguisher };
  return { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name, annotations: annotations() }, spec };
}

const groups = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'Group', group: { name } }));
const users = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'User', user: { name } }));
const kubeSystemServiceAccounts = (...names: string[]): Subject[] =>
  names.map((name) => ({ kind: 'ServiceAccount', serviceAccount: { name, namespace: 'kube-system' } }));

/** `resourceRule`: `clusterScope` is omitted when false, as Go's `omitempty` writes it. */
function resourceRule(verbs: string[], apiGroups: string[], resources: string[], clusterScope: boolean): ResourceRule {
  return { verbs, apiGroups, resources, namespaces: ['*'], ...(clusterScope ? { clusterScope } : {}) };
}

const nonResourceRule = (verbs: string[], nonResourceURLs: string[]): NonResourceRule => ({ verbs, nonResourceURLs });

/** Every verb on every resource and non-resource URL, for `subjects`. */
function everything(subjects: Subject[]): PolicyRules {
  return { subjects, resourceRules: [resourceRule(['*'], ['*'], ['*'], true)], nonResourceRules: [nonResourceRule(['*'], ['*'])] };
}

const SYSTEM_MASTERS = 'system:masters';
const ALL_UNAUTHENTICATED = 'system:unauthenticated';
const ALL_AUTHENTICATED = 'system:authenticated';
const NODES = 'system:nodes';
const ALL_SERVICE_ACCOUNTS = 'system:serviceaccounts';
const KUBE_CONTROLLER_MANAGER = 'system:kube-controller-manager';
const KUBE_SCHEDULER = 'system:kube-scheduler';

/** `MandatoryPriorityLevelConfigurations`: catch-all, exempt. */
export const MANDATORY_PRIORITY_LEVEL_CONFIGURATIONS: readonly PriorityLevelConfiguration[] = [
  priorityLevel('catch-all', { type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } }),
  priorityLevel('exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } }),
];

/** `MandatoryFlowSchemas`: exempt, catch-all. */
export const MANDATORY_FLOW_SCHEMAS: readonly FlowSchema[] = [
  flowSchema('exempt', 'exempt', 1, '', everything(groups(SYSTEM_MASTERS))),
  flowSchema('catch-all', 'catch-all', 10000, 'ByUser', everything(groups(ALL_UNAUTHENTICATED, ALL_AUTHENTICATED))),
];

/** `SuggestedPriorityLevelConfigurations`. */
export const SUGGESTED_PRIORITY_LEVEL_CONFIGURATIONS: readonly PriorityLevelConfiguration[] = [
  queuingLevel('system', 30, 33, 64, 6),
  queuingLevel('node-high', 40, 25, 64, 6),
  queuingLevel('leader-election', 10, 0, 16, 4),
  queuingLevel('workload-high', 40, 50, 128, 6),
  queuingLevel('workload-low', 100, 90, 128, 6),
  queuingLevel('global-default', 20, 50, 128, 6),
];

const getCreateUpdate = ['get', 'create', 'update'];

/** `SuggestedFlowSchemas`, in upstream's order. */
export const SUGGESTED_FLOW_SCHEMAS: readonly FlowSchema[] = [
  flowSchema('system-nodes', 'system', 500, 'ByUser', everything(groups(NODES))),
  flowSchema('system-node-high', 'node-high', 400, 'ByUser', {
    subjects: groups(NODES),
    resourceRules: [resourceRule(['*'], [''], ['nodes', 'nodes/status'], true), resourceRule(['*'], ['coordination.k8s.io'], ['leases'], false)],
  }),
  flowSchema('probes', 'exempt', 2, '', {
    subjects: groups(ALL_UNAUTHENTICATED, ALL_AUTHENTICATED),
    nonResourceRules: [nonResourceRule(['get'], ['/healthz', '/readyz', '/livez'])],
  }),
  flowSchema('system-leader-election', 'leader-election', 100, 'ByUser', {
    subjects: [...users(KUBE_CONTROLLER_MANAGER, KUBE_SCHEDULER), ...kubeSystemServiceAccounts('*')],
    resourceRules: [resourceRule(getCreateUpdate, ['coordination.k8s.io'], ['leases'], false)],
  }),
  flowSchema('workload-leader-election', 'leader-election', 200, 'ByUser', {
    subjects: kubeSystemServiceAccounts('*'),
    resourceRules: [resourceRule(getCreateUpdate, [''], ['endpoints', 'configmaps'], false), resourceRule(getCreateUpdate, ['coordination.k8s.io'], ['leases'], false)],
  }),
  flowSchema('endpoint-controller', 'workload-high', 150, 'ByUser', {
    subjects: [...users(KUBE_CONTROLLER_MANAGER), ...kubeSystemServiceAccounts('endpoint-controller', 'endpointslicemirroring-controller')],
    resourceRules: [resourceRule(getCreateUpdate, [''], ['endpoints'], false)],
  }),
  flowSchema('kube-controller-manager', 'workload-high', 800, 'ByNamespace', everything(users(KUBE_CONTROLLER_MANAGER))),
  flowSchema('kube-scheduler', 'workload-high', 800, 'ByNamespace', everything(users(KUBE_SCHEDULER))),
  flowSchema('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', everything(kubeSystemServiceAccounts('*'))),
  flowSchema('service-accounts', 'workload-low', 9000, 'ByUser', everything(groups(ALL_SERVICE_ACCOUNTS))),
  flowSchema('global-default', 'global-default', 9900, 'ByUser', everything(groups(ALL_UNAUTHENTICATED, ALL_AUTHENTICATED))),
];
