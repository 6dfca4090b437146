/**
 * PodSpec and PodTemplateSpec defaulting and validation shared by pods, Deployments and ReplicaSets.
 *
 * Followed (v1.33):
 * - pkg/apis/core/v1/defaults.go (SetDefaults_PodSpec, SetDefaults_Container, SetDefaults_Probe,
 *   SetDefaults_HTTPGetAction, SetDefaults_Volume, SetDefaults_*VolumeSource, SetDefaults_ObjectFieldSelector)
 *   and zz_generated.defaults.go (ContainerPort.protocol `+default="TCP"`)
 * - pkg/apis/core/validation/validation.go (ValidatePodSpec, validateContainers, validateInitContainers,
 *   validateContainerCommon, validateContainerPorts, ValidateEnv, ValidateVolumeMounts,
 *   validateResourceRequirements, ValidateTolerations, ValidatePodTemplateSpec, validateContainersOnlyForPod)
 * - pkg/apis/apps/validation/validation.go (ValidatePodTemplateSpecForReplicaSet and the selector checks
 *   of ValidateReplicaSetSpec / ValidateDeploymentSpec)
 *
 * Deliberately not validated (upstream checks them; nothing in kubeplane depends on them yet): volume
 * sources, probes and lifecycle handlers, securityContext fields, affinity, topologySpreadConstraints,
 * dnsConfig contents, envFrom, resizePolicy, OS-specific fields.
 */
import type { Container, LabelSelector, PodSpec, PodTemplateSpec, Toleration } from '../../../api/index.js';
import { errorMessage, field, type FieldError } from '../../../machinery/errors/index.js';
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  validateAnnotations,
  validateLabelSelector,
  validateLabels,
} from '../../../machinery/validation/index.js';
import { selectorFromLabelSelector, selectorFromSet, type Selector } from '../../../machinery/labels/index.js';
import { parseQuantity, type Quantity } from '../../../machinery/quantity/index.js';
import { isOvercommitAllowed, validateContainerResourceName, validateResourceList } from './resource-names.js';

// ---------------------------------------------------------------------------------------------
// Quantities.

/**
 * A resource quantity (`500m`, `128Mi`, or a JSON number) parsed once: `[quantity, undefined]`, or
 * `[undefined, error message]` when malformed (upstream rejects those while decoding the request).
 */
export function tryParseQuantity(q: string | number): [Quantity, undefined] | [undefined, string] {
  try {
    return [parseQuantity(q), undefined];
  } catch (err) {
    return [undefined, errorMessage(err)];
  }
}

// ---------------------------------------------------------------------------------------------
// Defaults.

/**
 * `parsers.ParseImageName` tag rule: `Always` for an image tagged `latest` or with neither tag nor digest
 * (`nginx`, `nginx:latest`, `reg:5000/nginx`), else `IfNotPresent` (`nginx:1.9.1`, `nginx@sha256:…`).
 */
export function defaultImagePullPolicy(image: string | undefined): 'Always' | 'IfNotPresent' {
  const ref = image ?? '';
  const at = ref.indexOf('@');
  const hasDigest = at >= 0;
  const name = hasDigest ? ref.slice(0, at) : ref;
  const lastSlash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  const tag = colon > lastSlash ? name.slice(colon + 1) : '';
  if (tag === 'latest' || (tag === '' && !hasDigest && ref !== '')) return 'Always';
  return 'IfNotPresent';
}

type Probe = NonNullable<Container['livenessProbe']>;

function defaultProbe(p: Probe | undefined): void {
  if (!p) return;
  p.timeoutSeconds ||= 1;
  p.periodSeconds ||= 10;
  p.successThreshold ||= 1;
  p.failureThreshold ||= 3;
  if (p.httpGet) {
    p.httpGet.path ||= '/';
    p.httpGet.scheme ||= 'HTTP';
  }
}

/**
 * SetDefaults_Container and the generated per-field defaults: imagePullPolicy from the tag,
 * terminationMessagePath `/dev/termination-log`, terminationMessagePolicy `File`, ports' protocol `TCP`,
 * probes (timeout 1 s, period 10 s, success 1, failure 3; httpGet path `/`, scheme `HTTP`), env
 * fieldRef apiVersion `v1`, and `resources: {}` (a Go struct always serializes).
 */
export function defaultContainer(c: Container): void {
  c.imagePullPolicy ||= defaultImagePullPolicy(c.image);
  c.terminationMessagePath ||= '/dev/termination-log';
  c.terminationMessagePolicy ||= 'File';
  c.resources ??= {};
  for (const p of c.ports ?? []) p.protocol ||= 'TCP';
  for (const e of c.env ?? []) {
    const ref = e.valueFrom?.fieldRef;
    if (ref) ref.apiVersion ||= 'v1';
  }
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
}

const VOLUME_SOURCE_DEFAULT_MODE = 0o644; // 420: SecretVolumeSourceDefaultMode and friends

/**
 * SetDefaults_PodSpec plus the nested generated defaults: dnsPolicy `ClusterFirst`, restartPolicy
 * `Always`, securityContext `{}`, terminationGracePeriodSeconds 30, schedulerName `default-scheduler`;
 * every container, init container and ephemeral container; volumes without a source become `emptyDir: {}`,
 * secret/configMap/downwardAPI/projected volumes get defaultMode 420 (0644).
 */
export function defaultPodSpec(spec: PodSpec): void {
  spec.dnsPolicy ||= 'ClusterFirst';
  spec.restartPolicy ||= 'Always';
  spec.securityContext ??= {};
  spec.terminationGracePeriodSeconds ??= 30;
  spec.schedulerName ||= 'default-scheduler';
  for (const c of spec.containers ?? []) defaultContainer(c);
  for (const c of spec.initContainers ?? []) defaultContainer(c);
  for (const c of spec.ephemeralContainers ?? []) defaultContainer(c);
  for (const v of spec.volumes ?? []) {
    if (Object.keys(v).every((k) => k === 'name')) v.emptyDir = {};
    for (const src of [v.secret, v.configMap, v.downwardAPI, v.projected]) if (src) src.defaultMode ??= VOLUME_SOURCE_DEFAULT_MODE;
  }
}

/** Defaults of an embedded PodTemplateSpec: `metadata` exists (Go serializes the struct) and the spec is defaulted. */
export function defaultPodTemplateSpec(t: PodTemplateSpec): void {
  t.metadata ??= {};
  t.spec ??= { containers: [] };
  defaultPodSpec(t.spec);
}

// ---------------------------------------------------------------------------------------------
// Validation.

/** `PodValidationOptions` subset: true when the PodSpec belongs to a Pod rather than a template. */
export interface PodValidationOptions {
  resourceIsPod: boolean;
}

const MAX_INT32 = 2147483647;

/** `validation.InclusiveRangeError`: `must be between 1 and 65535, inclusive`. */
function inclusiveRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

/** `IsValidPortNum`. */
export function isValidPortNum(port: number): string[] {
  return port >= 1 && port <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

/** `IsValidPortName` (IANA_SVC_NAME). */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (port.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(port)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.startsWith('-') || port.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** `IsRelaxedEnvVarName` (RelaxedEnvironmentVariableValidation is on by default in 1.33). */
function isRelaxedEnvVarName(name: string): string[] {
  return /^[\x20-\x3c\x3e-\x7e]+$/.test(name) ? [] : ["a valid environment variable name must consist only of printable ASCII characters other than '='"];
}

function invalidEach(path: string, value: unknown, msgs: string[]): FieldError[] {
  return msgs.map((msg) => field.invalid(path, value, msg));
}

/** `validateTaintEffect(effect, allowEmpty=true)` as used by tolerations; also exported for node taints. */
export function validateTaintEffect(effect: string | undefined, allowEmpty: boolean, path: string): FieldError[] {
  if (!effect) return allowEmpty ? [] : [field.required(path)];
  if (effect === 'NoSchedule' || effect === 'PreferNoSchedule' || effect === 'NoExecute') return [];
  return [field.notSupported(path, effect, ['NoSchedule', 'PreferNoSchedule', 'NoExecute'])];
}

/** `ValidateTolerations`. */
export function validateTolerations(tolerations: readonly Toleration[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  tolerations.forEach((t, i) => {
    const p = `${path}[${i}]`;
    const key = t.key ?? '';
    if (key) errs.push(...invalidEach(`${p}.key`, key, isQualifiedName(key)));
    if (!key && t.operator !== 'Exists') {
      errs.push(field.invalid(`${p}.operator`, t.operator ?? '', 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && t.effect !== 'NoExecute') {
      errs.push(field.invalid(`${p}.effect`, t.effect ?? '', "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    switch (t.operator ?? '') {
      case 'Equal':
      case '': {
        const msgs = isValidLabelValue(t.value ?? '');
        if (msgs.length) errs.push(field.invalid(`${p}.operator`, t.value ?? '', msgs.join(';')));
        break;
      }
      case 'Exists':
        if (t.value) errs.push(field.invalid(`${p}.operator`, t.value, "value must be empty when `operator` is 'Exists'"));
        break;
      default:
        errs.push(field.notSupported(`${p}.operator`, t.operator, ['Equal', 'Exists']));
    }
    if (t.effect) errs.push(...validateTaintEffect(t.effect, true, `${p}.effect`));
  });
  return errs;
}

function validateContainerPorts(ports: NonNullable<Container['ports']>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const p = `${path}[${i}]`;
    if (port.name) {
      const msgs = isValidPortName(port.name);
      if (msgs.length) errs.push(...invalidEach(`${p}.name`, port.name, msgs));
      else if (names.has(port.name)) errs.push(field.duplicate(`${p}.name`, port.name));
      else names.add(port.name);
    }
    if (!port.containerPort) errs.push(field.required(`${p}.containerPort`));
    else errs.push(...invalidEach(`${p}.containerPort`, port.containerPort, isValidPortNum(port.containerPort)));
    if (port.hostPort) errs.push(...invalidEach(`${p}.hostPort`, port.hostPort, isValidPortNum(port.hostPort)));
    if (!port.protocol) errs.push(field.required(`${p}.protocol`));
    else if (!['SCTP', 'TCP', 'UDP'].includes(port.protocol)) errs.push(field.notSupported(`${p}.protocol`, port.protocol, ['SCTP', 'TCP', 'UDP']));
  });
  return errs;
}

/**
 * `validateResourceRequirements` for a container: names and quantities, then each request against its
 * limit at `<path>.requests` (`Invalid value: "2": must be less than or equal to cpu limit of 1`, in
 * canonical quantity form); non-overcommittable resources (hugepages, extended) need request == limit
 * and a limit. Quantities compare in milli-units.
 */
export function validateResourceRequirements(r: NonNullable<Container['resources']>, path: string): FieldError[] {
  const limits = (r.limits ?? {}) as Record<string, string | number>;
  const requests = (r.requests ?? {}) as Record<string, string | number>;
  const errs = validateResourceList(limits, `${path}.limits`, validateContainerResourceName);
  errs.push(...validateResourceList(requests, `${path}.requests`, validateContainerResourceName));
  for (const [name, q] of Object.entries(requests)) {
    const limQ = limits[name];
    if (limQ === undefined) {
      if (!isOvercommitAllowed(name)) errs.push(field.required(`${path}.limits`, 'Limit must be set for non overcommitable resources'));
      continue;
    }
    const [req] = tryParseQuantity(q);
    const [lim] = tryParseQuantity(limQ);
    if (!req || !lim) continue;
    if (req.milliValue() !== lim.milliValue() && !isOvercommitAllowed(name)) {
      errs.push(field.invalid(`${path}.requests`, req.toString(), `must be equal to ${name} limit of ${lim.toString()}`));
    } else if (req.milliValue() > lim.milliValue()) {
      errs.push(field.invalid(`${path}.requests`, req.toString(), `must be less than or equal to ${name} limit of ${lim.toString()}`));
    }
  }
  return errs;
}

/** `validateContainerCommon`: what every container kind must satisfy. */
function validateContainerCommon(c: Container, volumes: ReadonlySet<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!c.name) errs.push(field.required(`${path}.name`));
  else errs.push(...invalidEach(`${path}.name`, c.name, isDNS1123Label(c.name)));
  if (!c.image) errs.push(field.required(`${path}.image`));
  switch (c.terminationMessagePolicy ?? '') {
    case 'File':
    case 'FallbackToLogsOnError':
      break;
    case '':
      errs.push(field.required(`${path}.terminationMessagePolicy`));
      break;
    default:
      errs.push(field.notSupported(`${path}.terminationMessagePolicy`, c.terminationMessagePolicy, ['File', 'FallbackToLogsOnError']));
  }
  errs.push(...validateContainerPorts(c.ports ?? [], `${path}.ports`));
  (c.env ?? []).forEach((e, i) => {
    if (!e.name) errs.push(field.required(`${path}.env[${i}].name`));
    else errs.push(...invalidEach(`${path}.env[${i}].name`, e.name, isRelaxedEnvVarName(e.name)));
  });
  (c.volumeMounts ?? []).forEach((m, i) => {
    const p = `${path}.volumeMounts[${i}]`;
    if (!m.name) errs.push(field.required(`${p}.name`));
    else if (!volumes.has(m.name)) errs.push(field.notFound(`${p}.name`, m.name));
    if (!m.mountPath) errs.push(field.required(`${p}.mountPath`));
  });
  switch (c.imagePullPolicy ?? '') {
    case 'Always':
    case 'IfNotPresent':
    case 'Never':
      break;
    case '':
      errs.push(field.required(`${path}.imagePullPolicy`));
      break;
    default:
      errs.push(field.notSupported(`${path}.imagePullPolicy`, c.imagePullPolicy, ['Always', 'IfNotPresent', 'Never']));
  }
  errs.push(...validateResourceRequirements(c.resources ?? {}, `${path}.resources`));
  return errs;
}

/** `checkHostPortConflicts`: the same `protocol/hostIP/hostPort` twice is a Duplicate. */
function checkHostPortConflicts(containers: readonly Container[], path: string, seen = new Set<string>()): FieldError[] {
  const errs: FieldError[] = [];
  containers.forEach((c, ci) => {
    (c.ports ?? []).forEach((port, pi) => {
      if (!port.hostPort) return;
      const key = `${port.protocol ?? ''}/${port.hostIP ?? ''}/${port.hostPort}`;
      if (seen.has(key)) errs.push(field.duplicate(`${path}[${ci}].ports[${pi}].hostPort`, key));
      else seen.add(key);
    });
  });
  return errs;
}

function validateContainers(containers: readonly Container[], volumes: ReadonlySet<string>, path: string): FieldError[] {
  if (containers.length === 0) return [field.required(path)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const p = `${path}[${i}]`;
    errs.push(...validateContainerCommon(c, volumes, p));
    if (names.has(c.name)) errs.push(field.duplicate(`${p}.name`, c.name));
    else names.add(c.name);
    if (c.restartPolicy) errs.push(field.forbidden(`${p}.restartPolicy`, 'may not be set for non-init containers'));
  });
  errs.push(...checkHostPortConflicts(containers, path));
  return errs;
}

function validateInitContainers(
  initContainers: readonly Container[],
  containers: readonly Container[],
  volumes: ReadonlySet<string>,
  path: string,
): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set(containers.map((c) => c.name));
  initContainers.forEach((c, i) => {
    const p = `${path}[${i}]`;
    errs.push(...validateContainerCommon(c, volumes, p));
    if (c.restartPolicy && c.restartPolicy !== 'Always') errs.push(field.notSupported(`${p}.restartPolicy`, c.restartPolicy, ['Always']));
    if (names.has(c.name)) errs.push(field.duplicate(`${p}.name`, c.name));
    else if (c.name) names.add(c.name);
    errs.push(...checkHostPortConflicts([c], path));
    if (c.restartPolicy !== 'Always') {
      for (const k of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe'] as const) {
        if (c[k]) errs.push(field.forbidden(`${p}.${k}`, 'may not be set for init containers without restartPolicy=Always'));
      }
    }
  });
  return errs;
}

function validateVolumes(volumes: NonNullable<PodSpec['volumes']>, path: string): [Set<string>, FieldError[]] {
  const names = new Set<string>();
  const errs: FieldError[] = [];
  volumes.forEach((v, i) => {
    const p = `${path}[${i}].name`;
    if (!v.name) errs.push(field.required(p));
    else if (names.has(v.name)) errs.push(field.duplicate(p, v.name));
    else {
      errs.push(...invalidEach(p, v.name, isDNS1123Label(v.name)));
      names.add(v.name);
    }
  });
  return [names, errs];
}

function oneOf(path: string, value: string | undefined, valid: string[]): FieldError[] {
  if (!value) return [field.required(path)];
  return valid.includes(value) ? [] : [field.notSupported(path, value, valid)];
}

/** `ValidatePodSpec` (see the module comment for what is left out). */
export function validatePodSpec(spec: PodSpec, path: string, opts: PodValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  if (spec.terminationGracePeriodSeconds === undefined || spec.terminationGracePeriodSeconds === null) {
    errs.push(field.required(`${path}.terminationGracePeriodSeconds`));
  }
  const [volumes, volumeErrs] = validateVolumes(spec.volumes ?? [], `${path}.volumes`);
  errs.push(...volumeErrs);
  const containers = spec.containers ?? [];
  errs.push(...validateContainers(containers, volumes, `${path}.containers`));
  errs.push(...validateInitContainers(spec.initContainers ?? [], containers, volumes, `${path}.initContainers`));
  if (spec.hostNetwork) {
    containers.forEach((c, ci) => {
      (c.ports ?? []).forEach((port, pi) => {
        const hp = port.hostPort ?? 0;
        if ((opts.resourceIsPod || hp !== 0) && hp !== port.containerPort) {
          errs.push(field.invalid(`${path}.containers[${ci}].ports[${pi}].hostPort`, hp, 'must match `containerPort` when `hostNetwork` is true'));
        }
      });
    });
  }
  errs.push(...oneOf(`${path}.restartPolicy`, spec.restartPolicy, ['Always', 'OnFailure', 'Never']));
  errs.push(...oneOf(`${path}.dnsPolicy`, spec.dnsPolicy, ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None']));
  errs.push(...validateLabels(spec.nodeSelector, `${path}.nodeSelector`));
  if (spec.dnsPolicy === 'None') {
    if (!spec.dnsConfig) errs.push(field.required(`${path}.dnsConfig`, 'must provide `dnsConfig` when `dnsPolicy` is None'));
    else if (!spec.dnsConfig.nameservers?.length) {
      errs.push(field.required(`${path}.dnsConfig.nameservers`, 'must provide at least one DNS nameserver when `dnsPolicy` is None'));
    }
  }
  (spec.readinessGates ?? []).forEach((g, i) => {
    errs.push(...invalidEach(`${path}.readinessGates[${i}].conditionType`, g.conditionType, isQualifiedName(g.conditionType)));
  });
  const gates = new Set<string>();
  (spec.schedulingGates ?? []).forEach((g, i) => {
    errs.push(...invalidEach(`${path}.schedulingGates[${i}]`, g.name, isQualifiedName(g.name)));
    if (gates.has(g.name)) errs.push(field.duplicate(`${path}.schedulingGates[${i}]`, g.name));
    gates.add(g.name);
  });
  if (spec.serviceAccountName) errs.push(...invalidEach(`${path}.serviceAccountName`, spec.serviceAccountName, isDNS1123Subdomain(spec.serviceAccountName)));
  if (spec.nodeName) errs.push(...invalidEach(`${path}.nodeName`, spec.nodeName, isDNS1123Subdomain(spec.nodeName)));
  const ads = spec.activeDeadlineSeconds;
  if (ads !== undefined && ads !== null && (ads < 1 || ads > MAX_INT32)) {
    errs.push(field.invalid(`${path}.activeDeadlineSeconds`, ads, inclusiveRangeError(1, MAX_INT32)));
  }
  if (spec.hostname) errs.push(...invalidEach(`${path}.hostname`, spec.hostname, isDNS1123Label(spec.hostname)));
  if (spec.subdomain) errs.push(...invalidEach(`${path}.subdomain`, spec.subdomain, isDNS1123Label(spec.subdomain)));
  if (spec.tolerations?.length) errs.push(...validateTolerations(spec.tolerations, `${path}.tolerations`));
  if (spec.priorityClassName) errs.push(...invalidEach(`${path}.priorityClassName`, spec.priorityClassName, isDNS1123Subdomain(spec.priorityClassName)));
  if (spec.preemptionPolicy !== undefined) errs.push(...oneOf(`${path}.preemptionPolicy`, spec.preemptionPolicy, ['PreemptLowerPriority', 'Never']));
  return errs;
}

/** `validateContainersOnlyForPod`: a pod's images may not have leading or trailing whitespace. */
export function validateContainersOnlyForPod(containers: readonly Container[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (containers ?? []).forEach((c, i) => {
    const image = c.image ?? '';
    if (image.length !== image.trim().length) errs.push(field.invalid(`${path}[${i}].image`, image, 'must not have leading or trailing whitespace'));
  });
  return errs;
}

/** `ValidatePodTemplateSpec`: template labels and annotations, the PodSpec, no ephemeral containers. */
export function validatePodTemplateSpec(t: PodTemplateSpec, path: string): FieldError[] {
  const errs = validateLabels(t.metadata?.labels, `${path}.labels`);
  errs.push(...validateAnnotations(t.metadata?.annotations, `${path}.annotations`));
  const spec = t.spec ?? { containers: [] };
  errs.push(...validatePodSpec(spec, `${path}.spec`, { resourceIsPod: false }));
  if (spec.ephemeralContainers?.length) {
    errs.push(field.forbidden(`${path}.spec.ephemeralContainers`, 'ephemeral containers not allowed in pod template'));
  }
  return errs;
}

/**
 * The selector and template checks Deployments and ReplicaSets share (ValidateReplicaSetSpec /
 * ValidateDeploymentSpec → ValidatePodTemplateSpecForReplicaSet), in upstream's order:
 * `spec.selector: Required value`; the selector's own syntax; `spec.selector: Invalid value: …: empty
 * selector is invalid for deployment` (upstream uses that wording for ReplicaSets too); template labels
 * not matched (`spec.template.metadata.labels: Invalid value: {…}: \`selector\` does not match template
 * \`labels\``); the template; restartPolicy other than `Always` (`Unsupported value`); and
 * `activeDeadlineSeconds in ReplicaSet is not Supported`.
 */
export function validateSelectorAndTemplate(
  selector: LabelSelector | undefined,
  template: PodTemplateSpec | undefined,
  path: string,
): FieldError[] {
  const errs: FieldError[] = [];
  if (!selector) {
    errs.push(field.required(`${path}.selector`));
  } else {
    errs.push(...validateLabelSelector(selector, `${path}.selector`));
    if (Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length === 0) {
      errs.push(field.invalid(`${path}.selector`, selector, 'empty selector is invalid for deployment'));
    }
  }
  // A nil selector matches nothing (so it is also reported as not matching the template labels); an
  // empty one matches everything and skips the check.
  let compiled: Selector;
  try {
    compiled = selectorFromLabelSelector(selector);
  } catch {
    errs.push(field.invalid(`${path}.selector`, selector, 'invalid label selector'));
    return errs;
  }
  const tpath = `${path}.template`;
  if (!template) {
    errs.push(field.required(tpath));
    return errs;
  }
  const labels = template.metadata?.labels ?? {};
  if (!compiled.empty() && !compiled.matches(labels)) {
    errs.push(field.invalid(`${tpath}.metadata.labels`, labels, '`selector` does not match template `labels`'));
  }
  errs.push(...validateReplicatedTemplate(template, tpath, 'ReplicaSet'));
  return errs;
}

/**
 * The template checks of a replicated workload after its labels: the template itself, restartPolicy
 * `Always` (`Unsupported value`), and no activeDeadlineSeconds (`activeDeadlineSeconds in <kind> is
 * not Supported`).
 */
function validateReplicatedTemplate(template: PodTemplateSpec, tpath: string, kind: 'ReplicaSet' | 'ReplicationController'): FieldError[] {
  const errs = validatePodTemplateSpec(template, tpath);
  const restartPolicy = template.spec?.restartPolicy ?? '';
  if (restartPolicy !== 'Always') errs.push(field.notSupported(`${tpath}.spec.restartPolicy`, restartPolicy, ['Always']));
  if (template.spec?.activeDeadlineSeconds !== undefined && template.spec.activeDeadlineSeconds !== null) {
    errs.push(field.forbidden(`${tpath}.spec.activeDeadlineSeconds`, `activeDeadlineSeconds in ${kind} is not Supported`));
  }
  return errs;
}

/**
 * `ValidatePodTemplateSpecForRC`: the template is required; a non-empty selector (a plain label map)
 * must match its labels (`<path>.metadata.labels: Invalid value: {…}: \`selector\` does not match
 * template \`labels\``); then the template as a ReplicaSet's, worded for ReplicationControllers.
 */
export function validatePodTemplateSpecForRC(template: PodTemplateSpec | undefined | null, selector: Record<string, string> | undefined, path: string): FieldError[] {
  if (!template) return [field.required(path)];
  const errs: FieldError[] = [];
  const compiled = selectorFromSet(selector);
  const labels = template.metadata?.labels ?? {};
  if (!compiled.empty() && !compiled.matches(labels)) {
    errs.push(field.invalid(`${path}.metadata.labels`, labels, '`selector` does not match template `labels`'));
  }
  errs.push(...validateReplicatedTemplate(template, path, 'ReplicationController'));
  return errs;
}
