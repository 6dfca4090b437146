/**
 * RuntimeClasses (node.k8s.io/v1, cluster-scoped). Stored and validated only: simulated nodes have one
 * runtime, and the RuntimeClass admission plugin (which copies a class's overhead and scheduling into
 * pods naming it) is not run.
 *
 * Followed (v1.33): pkg/apis/node/validation/validation.go (ValidateRuntimeClass: handler a DNS label,
 * overhead as container resource limits, scheduling nodeSelector labels and unique tolerations;
 * ValidateRuntimeClassUpdate: handler immutable), pkg/registry/node/runtimeclass/strategy.go
 * (AllowCreateOnUpdate true, AllowUnconditionalUpdate false), pkg/printers/internalversion/printers.go
 * (printRuntimeClass). node.k8s.io/v1 has no defaults.
 */
import { RUNTIME_CLASSES } from '../../../api/catalogue/index.js';
import type { RuntimeClass, Toleration } from '../../../api/index.js';
import { field, goPointer, goQuote, GoSyntax, type FieldError } from '../../../machinery/errors/index.js';
import { isDNS1123Label, validateLabels } from '../../../machinery/validation/index.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { validateImmutableField, type ApiObject } from './helpers.js';
import { validateResourceRequirements, validateTolerations } from './pod-template.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

type RuntimeClassObject = ApiObject<RuntimeClass>;

/** Go's `%#v` of a core.Toleration, the bad value of a duplicate (tolerationSeconds is a pointer). */
function goToleration(t: Toleration): GoSyntax {
  return new GoSyntax(
    `core.Toleration{Key:${goQuote(t.key ?? '')}, Operator:${goQuote(t.operator ?? '')}, Value:${goQuote(t.value ?? '')}, ` +
      `Effect:${goQuote(t.effect ?? '')}, TolerationSeconds:${goPointer('int64', t.tolerationSeconds != null)}}`,
  );
}

/** runtimeclass `validateTolerations`: ValidateTolerations, and no two with the same key, operator, value and effect. */
function validateRuntimeClassTolerations(tolerations: readonly Toleration[], path: string): FieldError[] {
  const errs = validateTolerations(tolerations, path);
  const seen = new Set<string>();
  tolerations.forEach((t, i) => {
    const listKey = JSON.stringify([t.key ?? '', t.operator ?? '', t.value ?? '', t.effect ?? '']);
    if (seen.has(listKey)) errs.push(field.duplicate(`${path}[${i}]`, goToleration(t)));
    seen.add(listKey);
  });
  return errs;
}

/** `ValidateRuntimeClass` without the generic ObjectMeta checks. */
export function validateRuntimeClass(rc: RuntimeClass): FieldError[] {
  const handler = rc.handler ?? '';
  const errs = isDNS1123Label(handler).map((msg) => field.invalid('handler', handler, msg));
  if (rc.overhead) errs.push(...validateResourceRequirements({ limits: rc.overhead.podFixed ?? {} }, 'overhead'));
  if (rc.scheduling) {
    errs.push(...validateLabels(rc.scheduling.nodeSelector, 'scheduling.nodeSelector'));
    errs.push(...validateRuntimeClassTolerations(rc.scheduling.tolerations ?? [], 'scheduling.tolerations'));
  }
  return errs;
}

/** The RuntimeClass strategy. */
export const runtimeClassStrategy: ResourceStrategy<RuntimeClassObject> = {
  info: resourceInfo(RUNTIME_CLASSES),
  hasStatus: false,
  defaults() {},
  prepareForCreate() {},
  prepareForUpdate() {},
  validate: validateRuntimeClass,
  validateUpdate: (rc, old) => [...validateRuntimeClass(rc), ...validateImmutableField(rc.handler, old.handler, 'handler')],
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: false,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  table: {
    // Upstream describes Handler with `metav1.ObjectMeta{}.SwaggerDoc()["handler"]`, which is empty.
    columns: [NAME_COLUMN, column('Handler', 'string', ''), AGE_COLUMN],
    row: (rc, now) => ({ cells: [rc.metadata?.name ?? '', rc.handler ?? '', translateTimestampSince(rc.metadata?.creationTimestamp, now)] }),
  },
};
