/**
 * Pod validation: pkg/apis/core/validation/validation.go (ValidatePodCreate, ValidatePodUpdate,
 * ValidatePodStatusUpdate, ValidatePodSpecificAnnotations).
 */
import type { Container, ContainerStatus, Pod, PodSpec, Toleration } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { isDNS1123Subdomain, isQualifiedName, FIELD_IMMUTABLE_ERROR_MSG } from '../../../machinery/validation/index.js';
import { semanticDeepEqual, specDiff } from './helpers.js';
import { validateContainersOnlyForPod, validatePodSpec, validateTolerations } from './pod-template.js';


const POD_DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';

/** `ValidatePodSpecificAnnotations` (the parts that apply here): a valid int32 pod-deletion-cost. */
function validatePodAnnotations(pod: Pod): FieldError[] {
  const cost = pod.metadata?.annotations?.[POD_DELETION_COST];
  if (cost === undefined) return [];
  const n = Number(cost);
  const ok = /^[+-]?[0-9]+$/.test(cost) && n >= -2147483648 && n <= 2147483647;
  return ok ? [] : [field.invalid(`metadata.annotations[${POD_DELETION_COST}]`, cost, 'must be a 32bit integer')];
}

/** `validatePodMetadataAndSpec` without the ObjectMeta part (done by the store). */
function validatePodMetadataAndSpec(pod: Pod): FieldError[] {
  const spec = pod.spec ?? { containers: [] };
  const errs = validatePodAnnotations(pod);
  errs.push(...validatePodSpec(spec, 'spec', { resourceIsPod: true }));
  errs.push(...validateContainersOnlyForPod(spec.containers, 'spec.containers'));
  errs.push(...validateContainersOnlyForPod(spec.initContainers, 'spec.initContainers'));
  return errs;
}

/** `ValidatePodCreate`. */
export function validatePodCreate(pod: Pod): FieldError[] {
  const errs = validatePodMetadataAndSpec(pod);
  if (pod.spec?.ephemeralContainers?.length) errs.push(field.forbidden('spec.ephemeralContainers', 'cannot be set on create'));
  if (pod.spec?.nodeName && pod.spec.schedulingGates?.length) {
    errs.push(field.forbidden('spec.nodeName', 'cannot be set until all schedulingGates have been cleared'));
  }
  return errs;
}

const UPDATABLE_POD_SPEC_FIELDS = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];

/** `ValidateContainerUpdates`: same number of containers, every image set and trimmed. Returns [errors, stop]. */
function validateContainerUpdates(newC: readonly Container[], oldC: readonly Container[], path: string): [FieldError[], boolean] {
  if (newC.length !== oldC.length) return [[field.forbidden(path, 'pod updates may not add or remove containers')], true];
  const errs: FieldError[] = [];
  newC.forEach((c, i) => {
    const image = c.image ?? '';
    if (!image) errs.push(field.required(`${path}[${i}].image`));
    if (image.trim().length !== image.length) errs.push(field.invalid(`${path}[${i}].image`, image, 'must not have leading or trailing whitespace'));
  });
  return [errs, false];
}

/** `validateOnlyAddedTolerations`: every old toleration is still there (tolerationSeconds may change). */
function validateOnlyAddedTolerations(newT: readonly Toleration[], oldT: readonly Toleration[], path: string): FieldError[] {
  for (const old of oldT) {
    const found = newT.some((t) => semanticDeepEqual({ ...old, tolerationSeconds: t.tolerationSeconds }, t));
    if (!found) return [field.forbidden(path, 'existing toleration can not be modified except its tolerationSeconds')];
  }
  return validateTolerations(newT, path);
}

/**
 * `ValidatePodUpdate`: the new pod must be valid, and only images, activeDeadlineSeconds (nil → set, or
 * lowered), tolerations (additions), schedulingGates (removals) and a negative grace period raised to 1
 * may change; anything else is `spec: Forbidden: pod updates may not change fields other than …` with a
 * diff. Binding a pod (setting nodeName) goes through the binding subresource, not here.
 */
export function validatePodUpdate(pod: Pod, old: Pod): FieldError[] {
  const spec = pod.spec ?? { containers: [] };
  const oldSpec = old.spec ?? { containers: [] };
  const errs = validatePodMetadataAndSpec(pod);
  let [cErrs, stop] = validateContainerUpdates(spec.containers ?? [], oldSpec.containers ?? [], 'spec.containers');
  errs.push(...cErrs);
  if (stop) return errs;
  [cErrs, stop] = validateContainerUpdates(spec.initContainers ?? [], oldSpec.initContainers ?? [], 'spec.initContainers');
  errs.push(...cErrs);
  if (stop) return errs;

  const ads = spec.activeDeadlineSeconds;
  if (ads !== undefined && ads !== null) {
    if (ads < 0 || ads > 2147483647) {
      errs.push(field.invalid('spec.activeDeadlineSeconds', ads, 'must be between 0 and 2147483647, inclusive'));
      return errs;
    }
    if (oldSpec.activeDeadlineSeconds !== undefined && oldSpec.activeDeadlineSeconds !== null && oldSpec.activeDeadlineSeconds < ads) {
      errs.push(field.invalid('spec.activeDeadlineSeconds', ads, 'must be less than or equal to previous value'));
      return errs;
    }
  } else if (oldSpec.activeDeadlineSeconds !== undefined && oldSpec.activeDeadlineSeconds !== null) {
    errs.push(field.invalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'));
  }
  errs.push(...validateOnlyAddedTolerations(spec.tolerations ?? [], oldSpec.tolerations ?? [], 'spec.tolerations'));
  const oldGates = new Set((oldSpec.schedulingGates ?? []).map((g) => g.name));
  (spec.schedulingGates ?? []).forEach((g, i) => {
    if (!oldGates.has(g.name)) errs.push(field.forbidden(`spec.schedulingGates[${i}].name`, `only deletion is allowed, but found new scheduling gate '${g.name}'`));
  });
  if (semanticDeepEqual(spec, oldSpec)) return errs;

  const munged: PodSpec = {
    ...spec,
    containers: (spec.containers ?? []).map((c, i) => ({ ...c, image: oldSpec.containers?.[i]?.image ?? '' })),
    initContainers: (spec.initContainers ?? []).map((c, i) => ({ ...c, image: oldSpec.initContainers?.[i]?.image ?? '' })),
    activeDeadlineSeconds: oldSpec.activeDeadlineSeconds,
    schedulingGates: oldSpec.schedulingGates,
    tolerations: oldSpec.tolerations,
  };
  const oldGrace = oldSpec.terminationGracePeriodSeconds;
  if (oldGrace !== undefined && oldGrace !== null && oldGrace < 0 && munged.terminationGracePeriodSeconds === 1) {
    munged.terminationGracePeriodSeconds = oldGrace;
  }
  if (!semanticDeepEqual(munged, oldSpec)) {
    errs.push(field.forbidden('spec', `pod updates may not change fields other than ${UPDATABLE_POD_SPEC_FIELDS.join(',')}\n${specDiff('core.PodSpec', oldSpec, munged)}`));
  }
  return errs;
}

/** `ValidateContainerStateTransition`: unless restartPolicy is Always, a terminated container stays terminated. */
function validateContainerStateTransition(
  statuses: readonly ContainerStatus[],
  oldStatuses: readonly ContainerStatus[],
  path: string,
  restartPolicy: string,
): FieldError[] {
  if (restartPolicy === 'Always') return [];
  const errs: FieldError[] = [];
  oldStatuses.forEach((old, i) => {
    const term = old.state?.terminated;
    if (!term) return;
    if (term.exitCode !== 0 && restartPolicy === 'OnFailure') return;
    for (const s of statuses) {
      if (s.name === old.name && !s.state?.terminated) errs.push(field.forbidden(`${path}[${i}].state`, 'may not be transitioned to non-terminated state'));
    }
  });
  return errs;
}

/**
 * `ValidatePodStatusUpdate`: custom condition types are qualified names (reported at upstream's path
 * `metadata.conditions[i].Type`), nodeName cannot change here, nominatedNodeName is a DNS subdomain,
 * qosClass is immutable, terminated containers stay terminated unless restartPolicy is Always.
 */
export function validatePodStatusUpdate(pod: Pod, old: Pod): FieldError[] {
  const errs = validatePodAnnotations(pod);
  const system = new Set(['PodScheduled', 'Ready', 'Initialized']);
  (pod.status?.conditions ?? []).forEach((c, i) => {
    if (system.has(c.type)) return;
    for (const msg of isQualifiedName(c.type)) errs.push(field.invalid(`metadata.conditions[${i}].Type`, c.type, msg));
  });
  if ((pod.spec?.nodeName ?? '') !== (old.spec?.nodeName ?? '')) errs.push(field.forbidden('status.nodeName', 'may not be changed directly'));
  const nominated = pod.status?.nominatedNodeName ?? '';
  if (nominated && nominated !== (old.status?.nominatedNodeName ?? '')) {
    for (const msg of isDNS1123Subdomain(nominated)) errs.push(field.invalid('status.nominatedNodeName', nominated, msg));
  }
  if ((pod.status?.qosClass ?? '') !== (old.status?.qosClass ?? '')) {
    errs.push(field.invalid('status.qosClass', pod.status?.qosClass ?? '', FIELD_IMMUTABLE_ERROR_MSG));
  }
  const restartPolicy = old.spec?.restartPolicy ?? '';
  errs.push(...validateContainerStateTransition(pod.status?.containerStatuses ?? [], old.status?.containerStatuses ?? [], 'status.containerStatuses', restartPolicy));
  return errs;
}
