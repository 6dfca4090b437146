#!/usr/bin/env node
/**
 * Generates src/api/schema/types.json, the field schema of every Kubernetes type, from the models of
 * @kubernetes/client-node (a devDependency). Run by hand after upgrading that package:
 *
 *     node scripts/gen-schema.mjs
 *
 * Sources:
 * - node_modules/@kubernetes/client-node/dist/gen/models/*.js: each model class has a static
 *   `attributeTypeMap` of `{name, baseName, type, format}`; `baseName` is the JSON field name and
 *   `type` a TypeScript-ish spelling (`Array<V1Container>`, `{ [key: string]: string; }`, `Date`).
 * - node_modules/kubernetes-types/**.d.ts: which string fields are `resource.Quantity` (client-node
 *   types them as plain strings), and which fields are required (declared without `?`).
 * - PATCH_OVERLAY below: the `patchStrategy`/`patchMergeKey` struct tags of k8s.io/api (v1.33), from
 *   shared/reference/apiserver.md §8.3, which client-node's models do not carry.
 * - ROOT_APIS below: which API group/version each client-node API class serves, to map
 *   (group, version, kind) to the model of a top-level object.
 *
 * Output format (compact; decoded by src/api/schema/index.ts):
 *   { "types": { "<Model>": { "<jsonField>": "<type>" } },
 *     "required": { "<Model>": ["<jsonField>", …] },
 *     "patch": { "<Model>.<jsonField>": "<strategy>[:<mergeKey>]" },
 *     "roots": { "<apiVersion>": { "<Kind>": "<Model>" } } }   (apiVersion `v1` for core, `apps/v1`, …)
 * where <type> is a model name, `string`, `int32`, `int64`, `integer` (no width known), `number`,
 * `boolean`, `IntOrString`, `Quantity`,
 * `Time` (metav1.Time, RFC 3339 seconds), `MicroTime` (metav1.MicroTime, microseconds) or `any`
 * (free-form), prefixed by `[]` for a list or `{}` for a map with string keys.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const modelsDir = join(root, 'node_modules/@kubernetes/client-node/dist/gen/models');
const apisDir = join(root, 'node_modules/@kubernetes/client-node/dist/gen/apis');
const kubeTypesDir = join(root, 'node_modules/kubernetes-types');
const outFile = join(root, 'src/api/schema/types.json');

/** client-node API class → served group and version. */
const ROOT_APIS = [
  { api: 'CoreV1Api', group: '', version: 'v1' },
  { api: 'AppsV1Api', group: 'apps', version: 'v1' },
  { api: 'BatchV1Api', group: 'batch', version: 'v1' },
  { api: 'AutoscalingV1Api', group: 'autoscaling', version: 'v1' },
  { api: 'AutoscalingV2Api', group: 'autoscaling', version: 'v2' },
  { api: 'CoordinationV1Api', group: 'coordination.k8s.io', version: 'v1' },
  { api: 'PolicyV1Api', group: 'policy', version: 'v1' },
  { api: 'EventsV1Api', group: 'events.k8s.io', version: 'v1' },
  { api: 'AuthorizationV1Api', group: 'authorization.k8s.io', version: 'v1' },
];

/** meta/v1 kinds, accepted under any group (DeleteOptions bodies, Status responses, watch events). */
const META_ROOTS = {
  Status: 'V1Status',
  DeleteOptions: 'V1DeleteOptions',
  WatchEvent: 'V1WatchEvent',
  APIResourceList: 'V1APIResourceList',
  APIGroup: 'V1APIGroup',
  APIGroupList: 'V1APIGroupList',
  APIVersions: 'V1APIVersions',
};

/** Kinds that show up in API classes but belong to meta/v1. */
const META_KINDS = new Set(Object.keys(META_ROOTS));

/**
 * Subresource bodies that appear in an API class of another group: pods/eviction takes a policy/v1
 * Eviction, <resource>/scale an autoscaling/v1 Scale, serviceaccounts/token an authentication.k8s.io/v1 TokenRequest.
 */
const SUBRESOURCE_KINDS = { Eviction: 'policy/v1', Scale: 'autoscaling/v1', TokenRequest: 'authentication.k8s.io/v1' };

/** k8s.io/api struct tags (v1.33): `[model, field, strategy, mergeKey?]`. */
const PATCH_OVERLAY = [
  ['V1PodSpec', 'containers', 'merge', 'name'],
  ['V1PodSpec', 'initContainers', 'merge', 'name'],
  ['V1PodSpec', 'ephemeralContainers', 'merge', 'name'],
  ['V1PodSpec', 'volumes', 'merge,retainKeys', 'name'],
  ['V1PodSpec', 'imagePullSecrets', 'merge', 'name'],
  ['V1PodSpec', 'hostAliases', 'merge', 'ip'],
  ['V1PodSpec', 'topologySpreadConstraints', 'merge', 'topologyKey'],
  ['V1PodSpec', 'schedulingGates', 'merge', 'name'],
  ['V1PodSpec', 'resourceClaims', 'merge,retainKeys', 'name'],
  ['V1Container', 'env', 'merge', 'name'],
  ['V1Container', 'ports', 'merge', 'containerPort'],
  ['V1Container', 'volumeMounts', 'merge', 'mountPath'],
  ['V1Container', 'volumeDevices', 'merge', 'devicePath'],
  ['V1EphemeralContainer', 'env', 'merge', 'name'],
  ['V1EphemeralContainer', 'ports', 'merge', 'containerPort'],
  ['V1EphemeralContainer', 'volumeMounts', 'merge', 'mountPath'],
  ['V1EphemeralContainer', 'volumeDevices', 'merge', 'devicePath'],
  ['V1PodStatus', 'podIPs', 'merge', 'ip'],
  ['V1PodStatus', 'hostIPs', 'merge', 'ip'],
  ['V1PodStatus', 'resourceClaimStatuses', 'merge,retainKeys', 'name'],
  ['V1NodeStatus', 'addresses', 'merge', 'type'],
  ['V1NodeSpec', 'podCIDRs', 'merge'],
  ['V1ServiceSpec', 'ports', 'merge', 'port'],
  ['V1ServiceAccount', 'secrets', 'merge', 'name'],
  ['V1ObjectMeta', 'finalizers', 'merge'],
  ['V1ObjectMeta', 'ownerReferences', 'merge', 'uid'],
  ['V1DeploymentSpec', 'strategy', 'retainKeys'],
  ['V1DaemonSetSpec', 'updateStrategy', 'retainKeys'],
];

/** Normalizes one client-node attribute type to our type string. */
function normalize(type, format, models) {
  const list = /^Array<(.+)>$/.exec(type);
  if (list) return `[]${normalize(list[1], format, models)}`;
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    // map[string][]string (e.g. SubjectAccessReviewSpec.extra) has no spelling of its own: free-form.
    const inner = normalize(map[1], format, models);
    return inner.startsWith('[]') ? '{}any' : `{}${inner}`;
  }
  switch (type) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'number':
      // Keep the Go width: the decoder's type errors name it (`… of type int32`).
      if (format === 'double' || format === 'float') return 'number';
      return format === 'int32' || format === 'int64' ? format : 'integer';
    case 'Date':
      return 'Time';
    case 'V1MicroTime':
      return 'MicroTime';
    case 'IntOrString':
      return 'IntOrString';
    case 'any':
      return 'any';
    default:
      if (!models.has(type)) throw new Error(`unknown type ${type}`);
      return type;
  }
}

/** `[group dir, version, interface, field]` of every Quantity field in kubernetes-types. */
function quantityFields() {
  const out = [];
  for (const groupDir of readdirSync(kubeTypesDir, { withFileTypes: true })) {
    if (!groupDir.isDirectory() || groupDir.name === 'node_modules') continue;
    for (const file of readdirSync(join(kubeTypesDir, groupDir.name))) {
      if (!file.endsWith('.d.ts')) continue;
      const lines = readFileSync(join(kubeTypesDir, groupDir.name, file), 'utf8').split('\n');
      let iface = '';
      lines.forEach((line, i) => {
        const decl = /^export interface (\w+)/.exec(line);
        if (decl) iface = decl[1];
        const f = /^ {4}(\w+)\??: (.*)$/.exec(line);
        if (!f || !iface) return;
        const scalar = f[2] === 'Quantity;';
        const map = f[2] === '{' && /^\s*\[name: string\]: Quantity;/.test(lines[i + 1] ?? '');
        if (scalar || map) out.push([groupDir.name, file.replace('.d.ts', ''), iface, f[1]]);
      });
    }
  }
  return out;
}

/**
 * `[group dir, version, interface, field]` of every required field in kubernetes-types (declared
 * without `?`: upstream's OpenAPI lists it in `required`, i.e. its Go field has no `omitempty`).
 */
function requiredFields() {
  const out = [];
  for (const groupDir of readdirSync(kubeTypesDir, { withFileTypes: true })) {
    if (!groupDir.isDirectory() || groupDir.name === 'node_modules') continue;
    for (const file of readdirSync(join(kubeTypesDir, groupDir.name))) {
      if (!file.endsWith('.d.ts')) continue;
      let iface = '';
      for (const line of readFileSync(join(kubeTypesDir, groupDir.name, file), 'utf8').split('\n')) {
        const decl = /^export interface (\w+)/.exec(line);
        if (decl) iface = decl[1];
        const f = /^ {4}(\w+): /.exec(line);
        if (f && iface) out.push([groupDir.name, file.replace('.d.ts', ''), iface, f[1]]);
      }
    }
  }
  return out;
}

const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);

/** The client-node model of a kubernetes-types interface that has `fieldName`, if any. */
function modelOf(types, groupDir, version, iface, fieldName) {
  return [`${cap(version)}${iface}`, `${cap(groupDir)}${cap(version)}${iface}`].find((c) => types[c]?.[fieldName] !== undefined);
}

async function main() {
  const classes = new Map();
  for (const file of readdirSync(modelsDir).sort()) {
    if (!file.endsWith('.js')) continue;
    const mod = await import(pathToFileURL(join(modelsDir, file)).href);
    for (const [name, value] of Object.entries(mod)) {
      if (typeof value === 'function' && Array.isArray(value.attributeTypeMap)) classes.set(name, value.attributeTypeMap);
    }
  }

  const types = {};
  for (const [name, attrs] of [...classes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const fields = {};
    for (const a of attrs) fields[a.baseName] = normalize(a.type, a.format, classes);
    types[name] = fields;
  }

  let quantities = 0;
  for (const [groupDir, version, iface, fieldName] of quantityFields()) {
    const model = modelOf(types, groupDir, version, iface, fieldName);
    if (!model) continue; // a type or field client-node no longer has
    const t = types[model][fieldName];
    if (t !== 'string' && t !== '{}string') throw new Error(`${model}.${fieldName} is ${t}, expected a string Quantity`);
    types[model][fieldName] = t.replace('string', 'Quantity');
    quantities++;
  }

  const required = {};
  for (const [groupDir, version, iface, fieldName] of requiredFields()) {
    const model = modelOf(types, groupDir, version, iface, fieldName);
    if (model) (required[model] ??= []).push(fieldName);
  }
  for (const fields of Object.values(required)) fields.sort();

  const patch = {};
  const addPatch = (model, fieldName, strategy, key) => {
    const t = types[model]?.[fieldName];
    if (t === undefined) throw new Error(`patch overlay names unknown field ${model}.${fieldName}`);
    if (key !== undefined) {
      const elem = t.replace(/^\[\]/, '');
      if (!t.startsWith('[]') || types[elem]?.[key] === undefined) throw new Error(`merge key ${key} is not a field of ${model}.${fieldName} elements`);
    }
    patch[`${model}.${fieldName}`] = key === undefined ? strategy : `${strategy}:${key}`;
  };
  for (const [model, fieldName, strategy, key] of PATCH_OVERLAY) addPatch(model, fieldName, strategy, key);
  // Every status.conditions list whose elements carry a `type` merges by type: k8s.io/api tags all of
  // those of the served groups so (PodStatus, NodeStatus, DeploymentStatus, JobStatus, …).
  for (const [model, fields] of Object.entries(types)) {
    const t = fields.conditions;
    if (model.endsWith('Status') && t?.startsWith('[]') && types[t.slice(2)]?.type !== undefined) addPatch(model, 'conditions', 'merge', 'type');
  }

  // Keyed by apiVersion: `v1` for core, `apps/v1`, …
  const roots = { 'meta.k8s.io/v1': META_ROOTS };
  const rootsOf = (apiVersion) => (roots[apiVersion] ??= {});
  for (const { api, group, version } of ROOT_APIS) {
    const text = readFileSync(join(apisDir, `${api}.d.ts`), 'utf8');
    const versionPrefix = cap(version);
    for (const m of text.matchAll(/(?:body: |HttpInfo<)(\w+)/g)) {
      const model = m[1];
      const f = types[model];
      if (!f || f.apiVersion === undefined || f.kind === undefined) continue;
      const at = model.indexOf(versionPrefix);
      const kind = model.slice(at + versionPrefix.length);
      if (at < 0 || META_KINDS.has(kind)) continue;
      rootsOf(SUBRESOURCE_KINDS[kind] ?? (group ? `${group}/${version}` : version))[kind] = model;
    }
  }
  for (const [apiVersion, kinds] of Object.entries(roots)) {
    roots[apiVersion] = Object.fromEntries(Object.entries(kinds).sort(([a], [b]) => (a < b ? -1 : 1)));
  }

  // One line per type keeps diffs readable while the file stays compact.
  const lines = Object.entries(types).map(([name, fields]) => `${JSON.stringify(name)}:${JSON.stringify(fields)}`);
  const requiredLines = Object.keys(required)
    .sort()
    .map((name) => `${JSON.stringify(name)}:${JSON.stringify(required[name])}`);
  const body = `{"types":{\n${lines.join(',\n')}\n},\n"required":{\n${requiredLines.join(',\n')}\n},\n"patch":${JSON.stringify(patch, null, 1)},\n"roots":${JSON.stringify(roots, null, 1)}}\n`;
  writeFileSync(outFile, body);
  console.log(
    `wrote ${outFile}: ${lines.length} types, ${quantities} Quantity fields, ${Object.keys(patch).length} patch strategies, ` +
      `${Object.values(roots).reduce((n, r) => n + Object.keys(r).length, 0)} root kinds`,
  );
}

await main();
