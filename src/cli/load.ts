/**
 * `kubeplane load <kind>/<name> --cpu Q [--memory Q] [-n ns] [--clear]`: sets the total simulated load
 * on a workload of a running cluster. The load is recorded as annotations on the workload object
 * (`kubeplane.io/cpu-load`, `kubeplane.io/memory-load`), written with a JSON merge patch through the
 * API with the kubeconfig, and the metrics API divides it over the workload's Ready pods (see
 * machinery/usage). A quantity of 0 removes that resource's load; `--clear` removes both. The load
 * belongs on the top workload (a Deployment, not its ReplicaSets; a CronJob, not its Jobs).
 */
import type { KubeObject, OwnerReference } from '../api/index.js';
import { parseGroupVersion, type Clientset, type ResourceClient } from '../client/index.js';
import { getControllerOf } from '../machinery/meta/index.js';
import { CPU_LOAD_ANNOTATION, MEMORY_LOAD_ANNOTATION, parseUsage, type UsageResource } from '../machinery/usage/index.js';

/** A workload kind `kubeplane load` takes: its `kind.group` for messages and its client. */
interface LoadKind {
  /** `deployment.apps`, as kubectl names objects in its messages. */
  display: string;
  client: (c: Clientset, namespace: string) => ResourceClient<KubeObject>;
}

const asObjects = <T>(rc: ResourceClient<T>): ResourceClient<KubeObject> => rc as unknown as ResourceClient<KubeObject>;

const DEPLOYMENT: LoadKind = { display: 'deployment.apps', client: (c, ns) => asObjects(c.apps.deployments(ns)) };
const REPLICA_SET: LoadKind = { display: 'replicaset.apps', client: (c, ns) => asObjects(c.apps.replicaSets(ns)) };
const STATEFUL_SET: LoadKind = { display: 'statefulset.apps', client: (c, ns) => asObjects(c.apps.statefulSets(ns)) };
const DAEMON_SET: LoadKind = { display: 'daemonset.apps', client: (c, ns) => asObjects(c.apps.daemonSets(ns)) };
const REPLICATION_CONTROLLER: LoadKind = { display: 'replicationcontroller', client: (c, ns) => asObjects(c.core.replicationControllers(ns)) };
const JOB: LoadKind = { display: 'job.batch', client: (c, ns) => asObjects(c.batch.jobs(ns)) };
const CRON_JOB: LoadKind = { display: 'cronjob.batch', client: (c, ns) => asObjects(c.batch.cronJobs(ns)) };

/** The kind names kubectl accepts for each workload (plural, singular, short name, `kind.group`). */
const LOAD_KINDS: Readonly<Record<string, LoadKind>> = {
  deployments: DEPLOYMENT,
  deployment: DEPLOYMENT,
  deploy: DEPLOYMENT,
  'deployment.apps': DEPLOYMENT,
  replicasets: REPLICA_SET,
  replicaset: REPLICA_SET,
  rs: REPLICA_SET,
  'replicaset.apps': REPLICA_SET,
  statefulsets: STATEFUL_SET,
  statefulset: STATEFUL_SET,
  sts: STATEFUL_SET,
  'statefulset.apps': STATEFUL_SET,
  daemonsets: DAEMON_SET,
  daemonset: DAEMON_SET,
  ds: DAEMON_SET,
  'daemonset.apps': DAEMON_SET,
  replicationcontrollers: REPLICATION_CONTROLLER,
  replicationcontroller: REPLICATION_CONTROLLER,
  rc: REPLICATION_CONTROLLER,
  jobs: JOB,
  job: JOB,
  'job.batch': JOB,
  cronjobs: CRON_JOB,
  cronjob: CRON_JOB,
  cj: CRON_JOB,
  'cronjob.batch': CRON_JOB,
};

/** What `kubeplane load` was asked: quantities as given (`0` removes), or `clear`. */
export interface LoadRequest {
  cpu?: string;
  memory?: string;
  clear?: boolean;
}

/** A parsed `<kind>/<name>`. @throws Error for another shape or a kind that is not a workload */
export function parseWorkloadRef(ref: string): { kind: LoadKind; name: string } {
  const slash = ref.indexOf('/');
  const kindName = slash < 0 ? '' : ref.slice(0, slash).toLowerCase();
  const name = slash < 0 ? '' : ref.slice(slash + 1);
  if (!kindName || !name || name.includes('/')) throw new Error(`invalid workload ${JSON.stringify(ref)}: want <kind>/<name>, e.g. deploy/web`);
  const kind = LOAD_KINDS[kindName];
  if (!kind) throw new Error(`kubeplane load takes deployments, replicasets, statefulsets, daemonsets, replicationcontrollers, jobs and cronjobs, not ${JSON.stringify(kindName)}`);
  return { kind, name };
}

/**
 * The JSON merge patch of the request: each given resource's annotation set to its quantity, or
 * removed (null) for a zero quantity or `--clear`.
 * @throws Error for a malformed or negative quantity, or a request that changes nothing
 */
export function loadPatch(req: LoadRequest): { patch: { metadata: { annotations: Record<string, string | null> } }; summary: string } {
  const annotations: Record<string, string | null> = {};
  const parts: string[] = [];
  const one = (resource: UsageResource, annotation: string, value: string | undefined): void => {
    if (req.clear) {
      annotations[annotation] = null;
      return;
    }
    if (value === undefined) return;
    const amount = parseUsage(value, resource);
    if (amount === undefined) throw new Error(`invalid --${resource} ${JSON.stringify(value)}: want a non-negative quantity such as ${resource === 'cpu' ? '500m or 2' : '256Mi'}`);
    annotations[annotation] = amount === 0 ? null : value.trim();
    parts.push(amount === 0 ? `${resource} removed` : `${resource}=${value.trim()}`);
  };
  one('cpu', CPU_LOAD_ANNOTATION, req.cpu);
  one('memory', MEMORY_LOAD_ANNOTATION, req.memory);
  if (Object.keys(annotations).length === 0) throw new Error('give --cpu, --memory or --clear');
  return { patch: { metadata: { annotations } }, summary: req.clear ? 'load cleared' : `load set: ${parts.join(', ')}` };
}

/** `deployment.apps/web` for a controller reference, as kubectl names objects. */
function refName(ref: OwnerReference): string {
  const { group } = parseGroupVersion(ref.apiVersion);
  return `${ref.kind.toLowerCase()}${group ? `.${group}` : ''}/${ref.name}`;
}

/**
 * Patches the workload's load annotations; returns the one-line confirmation, e.g.
 * `deployment.apps/web load set: cpu=1, memory=512Mi`. An object with a controller (a Deployment's
 * ReplicaSet, a CronJob's Job) is refused: the load is read from the top workload only (see
 * machinery/usage). Throws the API error (NotFound …) or the argument errors of
 * {@link parseWorkloadRef} and {@link loadPatch}.
 */
export async function setLoad(client: Clientset, namespace: string, ref: string, req: LoadRequest): Promise<string> {
  const { kind, name } = parseWorkloadRef(ref);
  const { patch, summary } = loadPatch(req);
  const objects = kind.client(client, namespace);
  const controller = getControllerOf(await objects.get(name));
  if (controller) throw new Error(`${kind.display}/${name} is controlled by ${refName(controller)}: set the load there`);
  await objects.patch(name, 'application/merge-patch+json', patch, { fieldManager: 'kubeplane-load' });
  return `${kind.display}/${name} ${summary}`;
}
