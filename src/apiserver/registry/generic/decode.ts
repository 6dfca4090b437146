/**
 * Turning a request body into the object the registry works on, as upstream's handlers decode it
 * (k8s.io/apiserver/pkg/endpoints/handlers/create.go, update.go): a private copy, checked against the
 * endpoint's group/version/kind, with unknown fields dropped according to `fieldValidation` and the
 * kind's defaults applied. Unknown fields are never stored.
 */
import type { KubeObject } from '../../../api/index.js';
import { goQuote, newBadRequest } from '../../../machinery/errors/index.js';
import { pruneUnknownFields, rootTypeName } from '../../../api/schema/index.js';
import { decodeTypedObject, maxDepthError } from '../../../machinery/serializer/index.js';
import type { ResourceInfo, ResourceStrategy } from '../strategy.js';
import { clone } from './objects.js';
import type { FieldValidation } from './options.js';

/** `apps/v1`, or `v1` for the core group. */
export function apiVersionOf(info: Pick<ResourceInfo, 'group' | 'version'>): string {
  return info.group ? `${info.group}/${info.version}` : info.version;
}

/**
 * Drops the fields `obj` has beyond the schema of `group/version/kind` and returns their paths (e.g.
 * `spec.foo`). When `strategy` serves that group and kind and prunes by its own schema (custom
 * resources: {@link ResourceStrategy.pruneUnknownFields}), that decides; other kinds without a
 * schema keep everything.
 */
export function pruneUnknown(obj: unknown, group: string, version: string, kind: string, strategy?: ResourceStrategy): string[] {
  if (strategy?.pruneUnknownFields && strategy.info.group === group && strategy.info.kind === kind) {
    return strategy.pruneUnknownFields(obj as KubeObject, version);
  }
  const root = rootTypeName(group, version, kind);
  return root === undefined ? [] : pruneUnknownFields(obj, root);
}

/**
 * Decodes `obj` in place as Go's decoder would decode it into the kind's type (machinery/serializer
 * `decodeTypedObject`: `null` semantics, integer widths, times) and returns the decoder's complaint
 * about the first misfit, e.g. `json: cannot unmarshal string into Go struct field
 * DeploymentSpec.spec.replicas of type int32`; undefined when all fit. Kinds without a schema pass.
 */
export function decodeTyped(obj: Record<string, unknown>, group: string, version: string, kind: string): string | undefined {
  const root = rootTypeName(group, version, kind);
  return root === undefined ? undefined : decodeTypedObject(obj, root);
}

/**
 * 400 for a request body nested deeper than machinery/serializer's MAX_NESTING_DEPTH, worded as
 * upstream's decoder reports a document beyond its limit: for objects (create, update, subresource
 * bodies) `the object provided is unrecognized (must be of type Pod): couldn't get version/kind; json
 * parse error: invalid character '{' exceeded max depth`; for patches and DeleteOptions the scanner's
 * message alone. The API server checks every body with it before anything recursive touches it.
 */
export function checkNestingDepth(body: unknown, verb: string, kind: string): void {
  const err = maxDepthError(body);
  if (!err) return;
  if (verb === 'create' || verb === 'update') {
    throw newBadRequest(`the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: ${err}`);
  }
  throw newBadRequest(err);
}

/** The text of one unknown-field report: `unknown field "spec.foo"` (a Warning header or part of a strict error; Go's `%q`). */
export function unknownFieldMessage(path: string): string {
  return `unknown field ${goQuote(path)}`;
}

/**
 * Decodes a create/update body for the endpoint of `strategy`.
 * - Strict: unknown fields → 400 `Deployment in version "v1" cannot be handled as a Deployment:
 *   strict decoding error: unknown field "spec.foo", unknown field "spec.bar"` (create.go
 *   `transformDecodeError` around runtime.NewStrictDecodingError);
 * - Warn: each becomes a warning `unknown field "spec.foo"` (`addStrictDecodingWarnings`);
 * - Ignore: silently dropped.
 * - A value of the wrong JSON type or out of its integer's range, or a malformed time → 400 `… cannot
 *   be handled as a Deployment: json: cannot unmarshal string into Go struct field
 *   DeploymentSpec.spec.replicas of type int32`; `null`s decode as Go decodes them (see
 *   {@link decodeTyped}).
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
  // apiVersion and kind `null` mean unset, as when the decoder reads the type meta.
  if (obj.apiVersion === null) delete obj.apiVersion;
  if (obj.kind === null) delete obj.kind;
  if (obj.apiVersion !== undefined && obj.apiVersion !== '' && obj.apiVersion !== apiVersion) {
    throw newBadRequest(`the API version in the data (${obj.apiVersion}) does not match the expected API version (${apiVersion})`);
  }
  if (obj.kind !== undefined && obj.kind !== '' && obj.kind !== kind) {
    throw newBadRequest(`${obj.kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: the object provided is unrecognized (must be of type ${kind})`);
  }
  // Values of the wrong type fail decoding before strictness is considered, as in upstream's decoder.
  const typeError = decodeTyped(obj, info.group, version, kind);
  if (typeError) throw newBadRequest(`${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: ${typeError}`);
  const unknown = pruneUnknown(obj, info.group, version, kind, strategy);
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
