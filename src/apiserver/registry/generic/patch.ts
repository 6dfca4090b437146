/**
 * Applying a PATCH body to the current object (k8s.io/apiserver/pkg/endpoints/handlers/patch.go),
 * with upstream's error statuses:
 * - JSON patch: a body that is not a list of operations → 400; more than 10000 operations → 413;
 *   an operation that cannot be applied (failed `test`, missing path) → 422 Invalid `the server
 *   rejected our request due to an error in our request` (`NewGenericServerResponse(422, …)`);
 * - merge patch: a body that is not a JSON object → 400;
 * - strategic merge patch: malformed directives → 400, lists of lists → 422
 *   (`interpretStrategicMergePatchError`); other failures, which upstream passes through
 *   unclassified as 500s, are the patch's fault and answered 400 with the same message (ADR 5);
 *   kinds without a schema → 415 as upstream answers for custom resources;
 * - anything else → 415; server-side apply (`application/apply-patch+yaml`) is the field manager's
 *   (store-write.ts).
 */
import type { KubeObject } from '../../../api/index.js';
import type { PatchType } from '../../../api/request.js';
import { StatusError, newBadRequest, newRequestEntityTooLarge, newUnsupportedMediaType } from '../../../machinery/errors/index.js';
import { PatchError, applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from '../../../machinery/patch/index.js';
import { strictDuplicateKeyErrors, YAML_UNMARSHAL_ERRORS } from '../../../machinery/serializer/yaml-keys.js';
import type { FieldValidation } from './options.js';

/** The patch types served, in the order upstream's installer lists them in a 415. */
export const SUPPORTED_PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
] as const;

/** A served patch type. */
export type SupportedPatchType = (typeof SUPPORTED_PATCH_TYPES)[number];

/** The patch types {@link applyPatch} applies to an object; server-side apply is the field manager's merge. */
export type ObjectPatchType = Exclude<SupportedPatchType, 'application/apply-patch+yaml'>;

/** upstream `maxJSONPatchOperations`. */
const MAX_JSON_PATCH_OPERATIONS = 10000;

/** 422 Invalid as `NewGenericServerResponse(http.StatusUnprocessableEntity, "", GroupResource{}, "", msg, 0, false)` builds it. */
function unprocessable(): StatusError {
  return new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'the server rejected our request due to an error in our request',
    reason: 'Invalid',
    details: {},
    code: 422,
  });
}

/**
 * Runs a patch function, turning its PatchError into upstream's status: 400 BadRequest with the
 * message (also for the strategic-merge errors upstream leaks as 500s, ADR 5), or 422 with the
 * generic message (upstream drops the detail).
 */
function withPatchErrors<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (!(err instanceof PatchError)) throw err;
    if (err.code === 422) throw unprocessable();
    throw newBadRequest(err.message);
  }
}

/**
 * @throws StatusError 415 unless `patchType` is one of {@link SUPPORTED_PATCH_TYPES} and of the kind's
 * `accepted` types (a strategy's `patchTypes`), listing the accepted ones.
 */
export function checkPatchType(
  patchType: PatchType | undefined,
  accepted: readonly string[] = SUPPORTED_PATCH_TYPES,
): asserts patchType is SupportedPatchType {
  const type = patchType ?? '';
  if (!(SUPPORTED_PATCH_TYPES as readonly string[]).includes(type) || !accepted.includes(type)) {
    throw newUnsupportedMediaType(type, accepted);
  }
}

/**
 * Applies `patch` to `doc` (a private copy of the current object) and returns the result.
 * `rootType` is the schema type name for strategic merge patches.
 */
export function applyPatch(doc: KubeObject, patchType: ObjectPatchType, patch: unknown, rootType: string | undefined): unknown {
  switch (patchType) {
    case 'application/json-patch+json': {
      if (Array.isArray(patch) && patch.length > MAX_JSON_PATCH_OPERATIONS) {
        throw newRequestEntityTooLarge(`The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patch.length}`);
      }
      return withPatchErrors(() => applyJsonPatch(doc, patch));
    }
    case 'application/merge-patch+json':
      if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) throw newBadRequest('error decoding patch: the patch must be a JSON object');
      return applyMergePatch(doc, patch);
    case 'application/strategic-merge-patch+json': {
      // Kinds without a Go struct (upstream: custom resources) cannot take a strategic merge patch.
      if (rootType === undefined) throw newUnsupportedMediaType(patchType, ['application/json-patch+json', 'application/merge-patch+json']);
      return withPatchErrors(() => applyStrategicMergePatch(doc, patch, rootType));
    }
  }
}

/**
 * The strict check of an apply configuration's text after its merge (patch.go
 * `applyPatchToCurrentObject`): with `Strict`, a key repeated in one mapping fails the request with
 * 400 `error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 1:
 * key "replicas" already set in map`; with `Warn`, each such line is a warning; `Ignore` skips it.
 * @throws StatusError 400 as above
 */
export function checkDuplicateKeys(patch: object, validation: FieldValidation, warnings: string[]): void {
  if (validation === 'Ignore') return;
  const errs = strictDuplicateKeyErrors(patch);
  if (errs.length === 0) return;
  if (validation === 'Warn') {
    warnings.push(...errs);
    return;
  }
  throw newBadRequest(`error strict decoding YAML: error converting YAML to JSON: ${YAML_UNMARSHAL_ERRORS}\n  ${errs.join('\n  ')}`);
}
