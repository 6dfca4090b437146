/**
 * The two kinds the ReplicaSet controller keeps pods for. Upstream runs ReplicationControllers through
 * the ReplicaSet code by converting them (pkg/controller/replication/replication_controller.go
 * `NewReplicationManager` and conversion.go: informer, lister and client adapters that turn a
 * ReplicationController into a ReplicaSet and back). Here the controller reads an object only through
 * the fields both kinds share — `spec.replicas`, `spec.minReadySeconds`, `spec.template`, the status
 * counts and conditions, which have the same names and meaning — and through {@link ReplicatedKind}
 * for what differs: the API it reaches the objects by, the owner kind it writes into pods, its names,
 * and the selector, a set of labels on a ReplicationController (`selector: {app: web}`) and a
 * LabelSelector on a ReplicaSet. A ReplicationController is therefore typed as a ReplicaSet inside the
 * controller, its selector read through {@link ReplicatedKind.selector} only.
 */
import type { LabelSelector, ReplicaSet, ReplicationController } from '../../api/index.js';
import type { Clientset, ResourceClient } from '../../client/index.js';
import type { SharedIndexInformer, SharedInformerFactory } from '../../informers/index.js';
import type { ControllerKind } from '../controller-ref-manager.js';

/** What differs between the kinds the controller runs for. */
export interface ReplicatedKind {
  /** The owner reference written into the pods, and the kind events are about. */
  readonly controllerKind: ControllerKind;
  /** The event source component: `replicaset-controller` or `replication-controller`. */
  readonly component: string;
  /** The work queue's name (upstream's: `replicaset`, `replicationmanager`). */
  readonly queueName: string;
  /** The kind's shared informer, its objects seen as ReplicaSets (module doc). */
  informer(informers: SharedInformerFactory): SharedIndexInformer<ReplicaSet>;
  /** The kind's client in `namespace`, its objects seen as ReplicaSets. */
  client(client: Clientset, namespace: string | undefined): ResourceClient<ReplicaSet>;
  /** The pod selector as a LabelSelector (a ReplicationController's label set becomes `matchLabels`). */
  selector(obj: ReplicaSet): LabelSelector | undefined;
}

/** apps/v1 ReplicaSet (pkg/controller/replicaset). */
export const REPLICA_SET: ReplicatedKind = {
  controllerKind: { apiVersion: 'apps/v1', kind: 'ReplicaSet' },
  component: 'replicaset-controller',
  queueName: 'replicaset',
  informer: (informers) => informers.apps.replicaSets(),
  client: (client, namespace) => client.apps.replicaSets(namespace),
  selector: (rs) => rs.spec?.selector,
};

/** v1 ReplicationController (pkg/controller/replication, the ReplicaSet code behind adapters). */
export const REPLICATION_CONTROLLER: ReplicatedKind = {
  controllerKind: { apiVersion: 'v1', kind: 'ReplicationController' },
  component: 'replication-controller',
  queueName: 'replicationmanager',
  informer: (informers) => informers.core.replicationControllers() as unknown as SharedIndexInformer<ReplicaSet>,
  client: (client, namespace) => client.core.replicationControllers(namespace) as unknown as ResourceClient<ReplicaSet>,
  // conversion.go `convertRCtoRS`: a nil selector stays nil (it selects nothing), a set becomes matchLabels.
  selector: (rs) => {
    const set = (rs as unknown as ReplicationController).spec?.selector;
    return set ? { matchLabels: { ...set } } : undefined;
  },
};
