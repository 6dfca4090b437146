/**
 * Turning a request body into the object the registry works on, as upstream's handlers decode it
 * (k8s.io/apiserver/pkg/endpoints/handlers/create.go, update.go): a private copy, checked against the
 * endpoint's group/version/kind, with unknown fields dropped according to `fieldValidation` and the
 * kind's defaults applied. Unknown fields are never stored.
 */
import type { KubeObject } from '../../../api/index.js';
import { newBadRequest } from '../../../machinery/errors/index.js';
import { findTypeError, pruneUnknownFields, rootTypeName } from '../../../api/schema/index.js';
import type { ResourceInfo, ResourceStrategy } from '../strategy.js';
import { clone } from './objects.js';
import type { FieldValidation } from './options.js';

/** `apps/v1`, or `v1` for the core group. */
export function apiVersionOf(info: Pick<ResourceInfo, 'group' | 'version'>): string {
  return info.group ? `${info.group}/${info.version}` : info.version;
}

/**
 * Drops the fields `obj` has beyond the schema of `group/version/kind` and returns their paths (e.g.
 * `spec.foo`). Kinds without a schema keep everything.
 */
export function pruneUnknown(obj: unknown, group: string, version: string, kind: string): string[] {
  const root = rootTypeName(group, version, kind);
  return root === undefined ? [] : pruneUnknownFields(obj, root);
}

/**
 * The decoder's complaint about the first value of the wrong JSON type, e.g. `json: cannot unmarshal
 * string into Go struct field DeploymentSpec.spec.replicas of type int32`; undefined when all fit.
 */
export function typeErrorOf(obj: unknown, group: string, version: string, kind: string): string | undefined {
  const root = rootTypeName(group, version, kind);
  return root === undefined ? undefined : findTypeError(obj, root);
}

/** The text of one unknown-field report: `unknown field "spec.foo"` (a Warning header or part of a strict error). */
export function unknownFieldMessage(path: string): string {
  return `unknown field ${JSON.stringify(path)}`;
}

/**
 * Decodes a create/update body for the endpoint of `strategy`.
 * - Strict: unknown fields → 400 `Deployment in version "v1" cannot be handled as a Deployment:
 *   strict decoding error: unknown field "spec.foo", unknown field "spec.bar"` (create.go
 *   `transformDecodeError` around runtime.NewStrictDecodingError);
 * - Warn: each becomes a warning `unknown field "spec.foo"` (`addStrictDecodingWarnings`);
 * - Ignore: silently dropped.
 * - A value of the wrong JSON type → 400 `… cannot be handled as a Deployment: json: cannot unmarshal
 *   string into Go struct field DeploymentSpec.spec.replicas of type int32`.
 * @throws StatusError 400 for a body that is not an object or names another apiVersion/kind
 */
export function decodeBody(
  strategy: ResourceStrategy,
  body: unknown,
  validation: FieldValidation,
  warnings: string[],
  info: Pick<ResourceInfo, 'group' | 'version' | 'kind'> = strategy.info,
): KubeObject {
  const { kind, version } = info;
  const apiVersion = apiVersionOf(info);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw newBadRequest(`the object provided is unrecognized (must be of type ${kind})`);
  }
  const obj = clone(body as KubeObject);
  if (obj.apiVersion !== undefined && obj.apiVersion !== '' && obj.apiVersion !== apiVersion) {
    throw newBadRequest(`the API version in the data (${obj.apiVersion}) does not match the expected API version (${apiVersion})`);
  }
  if (obj.kind !== undefined && obj.kind !== '' && obj.kind !== kind) {
    throw newBadRequest(`${obj.kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: the object provided is unrecognized (must be of type ${kind})`);
  }
  // Values of the wrong type fail decoding before strictness is considered, as in upstream's decoder.
  const typeError = typeErrorOf(obj, info.group, version, kind);
  if (typeError) throw newBadRequest(`${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: ${typeError}`);
  const unknown = pruneUnknown(obj, info.group, version, kind);
  if (unknown.length > 0) {
    if (validation === 'Strict') {
      throw newBadRequest(
        `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: strict decoding error: ${unknown.map(unknownFieldMessage).join(', ')}`,
      );
    }
    if (validation === 'Warn') for (const p of unknown) warnings.push(unknownFieldMessage(p));
  }
  obj.apiVersion = apiVersion;
  obj.kind = kind;
  return obj;
}
