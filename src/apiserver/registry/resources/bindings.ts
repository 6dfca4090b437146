/**
 * Bindings (core/v1, namespaced, create only): `POST /api/v1/namespaces/<ns>/bindings` with a Binding
 * `{metadata: {name: <pod>}, target: {kind: 'Node', name: <node>}}` binds the pod named by the
 * Binding, exactly as `POST pods/<name>/binding` does — the same code (pod-storage.ts `bindPod`), as
 * upstream's LegacyBindingREST hands the object's name to BindingREST. Nothing is stored under
 * `bindings`; every verb but create answers 405.
 *
 * Followed (v1.33): pkg/registry/core/pod/storage/storage.go (LegacyBindingREST, BindingREST),
 * pkg/registry/core/rest/storage_core.go (`bindings` served by the pod storage),
 * apiserver/pkg/registry/generic/registry/store.go NamespaceKeyFunc (`Name parameter required.`).
 */
import { BINDINGS, PODS } from '../../../api/catalogue/index.js';
import type { Binding } from '../../../api/index.js';
import { newBadRequest, newNotFoundPath } from '../../../machinery/errors/index.js';
import type { StorageContext, StorageExtension } from '../extension.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { STORES_NOTHING, type ApiObject } from './helpers.js';
import { bindPod } from './pod-storage.js';
import { NAME_AGE_TABLE } from './table-helpers.js';

/** The name of the pod a Binding binds: its own name (`meta.Accessor(obj).GetName()`), '' when absent. */
function boundPodName(body: unknown): string {
  const name = (body as { metadata?: { name?: unknown } } | null)?.metadata?.name;
  return typeof name === 'string' ? name : '';
}

/** The create of a Binding: the pods store binds the pod (answers 201 with a Success Status). */
function bindingStorage({ clock, storeOf }: StorageContext): StorageExtension {
  return {
    create: async (req) => {
      const pods = storeOf(PODS.group, PODS.resource);
      if (!pods) throw newNotFoundPath();
      const name = boundPodName(req.body);
      if (!name) throw newBadRequest('Name parameter required.');
      return { code: 201, body: await bindPod(pods, clock, req.namespace, name, req.body, req.query) };
    },
  };
}

/** The bindings strategy: only `storage` matters (the create above); the rest is never reached. */
export const bindingStrategy: ResourceStrategy<ApiObject<Binding>> = {
  ...STORES_NOTHING,
  info: resourceInfo(BINDINGS),
  storage: bindingStorage,
  table: NAME_AGE_TABLE,
};
