/**
 * CertificateSigningRequests (certificates.k8s.io/v1, cluster-scoped, with /approval and /status): a
 * PKCS#10 request for a signer. The requester's identity is written into the spec on create (the
 * authenticated user; reviews.ts `ADMIN_USER` for the server's own loopback calls); `/approval` changes only the conditions
 * (`kubectl certificate approve|deny`), `/status` only the certificate and the other conditions.
 * No signer runs in kubeplane: an approved request stays `Approved` until a client sets a certificate.
 *
 * Followed (v1.33): pkg/apis/certificates/validation/validation.go
 * (ValidateCertificateSigningRequestCreate/Update/StatusUpdate/ApprovalUpdate, getValidationOptions),
 * pkg/apis/core/validation/names.go (ValidateSignerName), pkg/registry/certificates/certificates/
 * strategy.go (PrepareForCreate, the status and approval strategies, populateConditionTimestamps,
 * the `spec.signerName` field selector), pkg/printers/internalversion/printers.go
 * (printCertificateSigningRequest, extractCSRStatus).
 *
 * Not done here: the diff upstream appends to `updates may not modify a condition of type …`.
 */
import { CERTIFICATE_SIGNING_REQUESTS } from '../../../api/catalogue/index.js';
import type { CertificateSigningRequest } from '../../../api/index.js';
import { field, goByteSlice, newBadRequest, type FieldError } from '../../../machinery/errors/index.js';
import { isDNS1123Label, isDNS1123Subdomain, isValidPathSegmentName } from '../../../machinery/validation/index.js';
import { formatTime } from '../../../util/clock/index.js';
import type { StorageContext, StorageExtension, UpdateStrategy } from '../extension.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { resetField, semanticDeepEqual, type ApiObject } from './helpers.js';
import { certificateError, csrError } from './pkcs10.js';
import { ADMIN_USER } from './reviews.js';
import { base64ErrorOffset } from './secrets.js';
import { AGE_COLUMN, NAME_COLUMN, column, humanDuration, translateTimestampSince } from './table-helpers.js';

type CSRObject = ApiObject<CertificateSigningRequest>;
type Condition = NonNullable<NonNullable<CertificateSigningRequest['status']>['conditions']>[number];

/** `certificates.LegacyUnknownSignerName`, refused in v1. */
const LEGACY_UNKNOWN_SIGNER_NAME = 'kubernetes.io/legacy-unknown';
/** `allValidUsages`, sorted as `sets.String.List()` reports them. */
const VALID_USAGES = [
  'signing',
  'digital signature',
  'content commitment',
  'key encipherment',
  'key agreement',
  'data encipherment',
  'cert sign',
  'crl sign',
  'encipher only',
  'decipher only',
  'any',
  'server auth',
  'client auth',
  'code signing',
  'email protection',
  's/mime',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'timestamping',
  'ocsp signing',
  'microsoft sgc',
  'netscape sgc',
].sort();
/** Condition types that may only be True. */
const TRUE_ONLY_TYPES = ['Approved', 'Denied', 'Failed'];
const APPROVAL_TYPES = ['Approved', 'Denied'];
const STATUS_VALUES = ['False', 'True', 'Unknown'];

/** `certificateValidationOptions`: what a path may change and what stored data is tolerated. */
interface ValidationOptions {
  allowSettingApprovalConditions: boolean;
  allowSettingCertificate: boolean;
  allowBothApprovedAndDenied: boolean;
  allowLegacySignerName: boolean;
  allowDuplicateConditionTypes: boolean;
  allowEmptyConditionType: boolean;
  allowArbitraryCertificate: boolean;
  allowUnknownUsages: boolean;
  allowDuplicateUsages: boolean;
}

/** A `[]byte` field's bytes (base64 on the wire; checked by {@link defaultCSR}); undefined when absent. */
function bytesOf(b64: string | undefined | null): Buffer | undefined {
  return b64 == null ? undefined : Buffer.from(b64, 'base64');
}

const conditionsOf = (csr: CertificateSigningRequest): readonly Condition[] => csr.status?.conditions ?? [];
const has = (csr: CertificateSigningRequest, type: string): boolean => conditionsOf(csr).some((c) => c.type === type);
const hasDuplicates = (values: readonly string[]): boolean => new Set(values).size !== values.length;

/** `getValidationOptions(new, old)`: create is strict; an update tolerates what the stored object already has. */
function validationOptions(csr: CertificateSigningRequest, old: CertificateSigningRequest | undefined): ValidationOptions {
  const oldTypes = old ? conditionsOf(old).map((c) => c.type) : [];
  const oldUsages = old?.spec?.usages ?? [];
  const oldCert = bytesOf(old?.status?.certificate);
  return {
    allowSettingApprovalConditions: false,
    allowSettingCertificate: false,
    allowBothApprovedAndDenied: !!old && has(old, 'Approved') && has(old, 'Denied'),
    allowLegacySignerName: old?.spec?.signerName === LEGACY_UNKNOWN_SIGNER_NAME,
    allowDuplicateConditionTypes: hasDuplicates(oldTypes),
    allowEmptyConditionType: oldTypes.includes(''),
    allowArbitraryCertificate: !!old && ((csr.status?.certificate ?? '') === (old.status?.certificate ?? '') || certificateError(oldCert ?? Buffer.alloc(0)) !== undefined),
    allowUnknownUsages: oldUsages.some((u) => !VALID_USAGES.includes(u)),
    allowDuplicateUsages: hasDuplicates(oldUsages),
  };
}

/**
 * `ValidateSignerName`: `example.com/signer-name` — a domain of DNS labels with at least one dot (at
 * most 253 bytes), a path of DNS subdomains separated by dots, 571 bytes in all.
 */
export function validateSignerName(path: string, signerName: string): FieldError[] {
  if (signerName === '') return [field.required(path)];
  const segments = signerName.split('/');
  if (segments.length !== 2) return [field.invalid(path, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const [domain, rest] = segments as [string, string];
  const errs: FieldError[] = [];
  if (domain.length > 253) errs.push(field.tooLong(path, 253));
  const domainLabels = domain.split('.');
  for (const label of domainLabels) {
    const msgs = isDNS1123Label(label);
    if (msgs.length === 0) continue;
    errs.push(...msgs.map((msg) => field.invalid(path, domain, `validating label ${JSON.stringify(label)}: ${msg}`)));
    break;
  }
  if (domainLabels.length < 2) errs.push(field.invalid(path, domain, 'should be a domain with at least two segments separated by dots'));
  for (const label of rest.split('.')) {
    const msgs = isDNS1123Subdomain(label);
    if (msgs.length === 0) continue;
    errs.push(...msgs.map((msg) => field.invalid(path, rest, `validating label ${JSON.stringify(label)}: ${msg}`)));
    break;
  }
  const max = 253 + (253 + 63 + 1) + 1;
  if (signerName.length > max) errs.push(field.tooLong(path, max));
  return errs;
}

/** `validateConditions`: types present and not repeated, statuses valid (Approved/Denied/Failed only True), Approved and Denied exclusive. */
function validateConditions(csr: CertificateSigningRequest, opts: ValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conditionsOf(csr).forEach((c, i) => {
    const path = `status.conditions[${i}]`;
    if (!opts.allowEmptyConditionType && !c.type) errs.push(field.required(`${path}.type`));
    const allowed = TRUE_ONLY_TYPES.includes(c.type) ? ['True'] : STATUS_VALUES;
    if (!c.status) errs.push(field.required(`${path}.status`));
    else if (!allowed.includes(c.status)) errs.push(field.notSupported(`${path}.status`, c.status, allowed));
    if (!opts.allowBothApprovedAndDenied) {
      if (c.type === 'Approved') approved = true;
      if (c.type === 'Denied') denied = true;
      if ((c.type === 'Approved' && denied) || (c.type === 'Denied' && approved)) {
        errs.push(field.invalid(`${path}.type`, c.type, 'Approved and Denied conditions are mutually exclusive'));
      }
    }
    if (!opts.allowDuplicateConditionTypes) {
      if (seen.has(c.type)) errs.push(field.duplicate(`${path}.type`, c.type));
      seen.add(c.type);
    }
  });
  return errs;
}

/** `validateCertificateSigningRequest` without the generic ObjectMeta checks. */
function validateCSR(csr: CertificateSigningRequest, opts: ValidationOptions): FieldError[] {
  const spec = csr.spec ?? ({} as Partial<NonNullable<CertificateSigningRequest['spec']>>);
  const errs: FieldError[] = [];
  const request = bytesOf(spec.request);
  const requestError = csrError(request ?? Buffer.alloc(0));
  if (requestError) errs.push(field.invalid('spec.request', goByteSlice(request), requestError));
  const usages = spec.usages ?? [];
  if (usages.length === 0) errs.push(field.required('spec.usages'));
  usages.forEach((u, i) => {
    if (!opts.allowUnknownUsages && !VALID_USAGES.includes(u)) errs.push(field.notSupported(`spec.usages[${i}]`, u, VALID_USAGES));
  });
  usages.forEach((u, i) => {
    if (!opts.allowDuplicateUsages && usages.indexOf(u) < i) errs.push(field.duplicate(`spec.usages[${i}]`, u));
  });
  const signerName = spec.signerName ?? '';
  if (!opts.allowLegacySignerName && signerName === LEGACY_UNKNOWN_SIGNER_NAME) {
    errs.push(field.invalid('spec.signerName', signerName, 'the legacy signerName is not allowed via this API version'));
  } else errs.push(...validateSignerName('spec.signerName', signerName));
  if (spec.expirationSeconds != null && spec.expirationSeconds < 600) {
    errs.push(field.invalid('spec.expirationSeconds', spec.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  errs.push(...validateConditions(csr, opts));
  if (!opts.allowArbitraryCertificate) {
    const certError = certificateError(bytesOf(csr.status?.certificate) ?? Buffer.alloc(0));
    if (certError) errs.push(field.invalid('status.certificate', '<certificate data>', certError));
  }
  return errs;
}

/** `ValidateCertificateSigningRequestCreate`. */
export function validateCSRCreate(csr: CertificateSigningRequest): FieldError[] {
  return validateCSR(csr, validationOptions(csr, undefined));
}

/**
 * `validateCertificateSigningRequestUpdate`: the object's validation, Approved/Denied/Failed
 * conditions never removed, Approved/Denied not added or changed but through /approval, the
 * certificate set only through /status and never changed once set.
 */
function validateCSRUpdate(csr: CertificateSigningRequest, old: CertificateSigningRequest, opts: ValidationOptions): FieldError[] {
  const errs = validateCSR(csr, opts);
  const ofType = (o: CertificateSigningRequest, t: string): Condition[] => conditionsOf(o).filter((c) => c.type === t);
  for (const t of TRUE_ONLY_TYPES) {
    if (ofType(csr, t).length < ofType(old, t).length) errs.push(field.forbidden('status.conditions', `updates may not remove a condition of type ${JSON.stringify(t)}`));
  }
  if (!opts.allowSettingApprovalConditions) {
    for (const t of APPROVAL_TYPES) {
      const [now, before] = [ofType(csr, t), ofType(old, t)];
      if (now.length > before.length) errs.push(field.forbidden('status.conditions', `updates may not add a condition of type ${JSON.stringify(t)}`));
      else if (now.length === before.length && !semanticDeepEqual(now, before)) {
        errs.push(field.forbidden('status.conditions', `updates may not modify a condition of type ${JSON.stringify(t)}`));
      }
    }
  }
  const cert = csr.status?.certificate ?? '';
  const oldCert = old.status?.certificate ?? '';
  if (cert !== oldCert) {
    if (!opts.allowSettingCertificate) errs.push(field.forbidden('status.certificate', 'updates may not set certificate content'));
    else if (oldCert !== '') errs.push(field.forbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return errs;
}

/** `populateConditionTimestamps`: missing lastUpdateTime is now; missing lastTransitionTime is kept from a stored condition of the same type and status, else now. */
function populateConditionTimestamps(csr: CSRObject, old: CertificateSigningRequest, now: number): void {
  const time = formatTime(now);
  for (const c of csr.status?.conditions ?? []) {
    c.lastUpdateTime ??= time;
    c.lastTransitionTime ??= conditionsOf(old).find((o) => o.type === c.type && o.status === c.status && o.lastTransitionTime)?.lastTransitionTime ?? time;
  }
}

/** `preserveConditionInstances`: when the update has as many conditions of `type` as stored, they stay the stored ones. */
function preserveConditions(csr: CSRObject, old: CertificateSigningRequest, type: string): void {
  const conditions = csr.status?.conditions ?? [];
  const at = conditions.flatMap((c, i) => (c.type === type ? [i] : []));
  const stored = conditionsOf(old).filter((c) => c.type === type);
  if (at.length !== stored.length) return;
  at.forEach((i, k) => (conditions[i] = structuredClone(stored[k] as Condition)));
}

/** The `/approval` subresource (csrApprovalStrategy): only the conditions change. */
export const approvalStrategy: UpdateStrategy = {
  subresource: 'approval',
  prepareForUpdate(obj, old, now) {
    const csr = obj as CSRObject;
    const stored = old as CSRObject;
    populateConditionTimestamps(csr, stored, now);
    const conditions = csr.status?.conditions;
    resetField(csr, stored, 'spec');
    csr.status = { ...stored.status, ...(conditions ? { conditions } : {}) };
    if (!conditions) delete csr.status.conditions;
  },
  validateUpdate(obj, old) {
    const csr = obj as unknown as CertificateSigningRequest;
    const stored = old as unknown as CertificateSigningRequest;
    return validateCSRUpdate(csr, stored, { ...validationOptions(csr, stored), allowSettingApprovalConditions: true });
  },
};

/** The storage extension: `/approval` served as the object (get, update, patch) with {@link approvalStrategy}. */
function csrStorage({ store }: StorageContext): StorageExtension {
  return {
    /**
     * strategy.go PrepareForCreate: the requester's identity (the admin for the server's own loopback
     * calls) replaces whatever the client sent in spec.username, uid, groups and extra.
     */
    mutateCreate(obj, _namespace, user) {
      const csr = obj as unknown as CertificateSigningRequest;
      const spec = (csr.spec ??= { request: '', signerName: '' });
      const requester = user ?? ADMIN_USER;
      spec.username = requester.username;
      if (requester.uid) spec.uid = requester.uid;
      else delete spec.uid;
      spec.groups = [...requester.groups];
      if (requester.extra && Object.keys(requester.extra).length > 0) spec.extra = structuredClone(requester.extra);
      else delete spec.extra;
    },
    subresources: {
      approval: {
        get: async (req) => ({ code: 200, body: await store.get(undefined, req.name, req.query) }),
        update: async (req) => ({ code: 200, body: (await store.update(undefined, req.name, req.body, req.query, req.warnings, approvalStrategy, undefined, req.userAgent)).obj }),
        patch: async (req) => ({ code: 200, body: (await store.patch(undefined, req.name, req.patchType, req.body, req.query, req.warnings, approvalStrategy, undefined, req.userAgent)).obj }),
      },
    },
  };
}

/**
 * `[]byte` fields arrive base64-encoded; a value that is not is a decoding error (400), as Go's JSON
 * decoder reports it.
 */
function defaultCSR(csr: CSRObject): void {
  for (const value of [csr.spec?.request, csr.status?.certificate]) {
    const at = typeof value === 'string' ? base64ErrorOffset(value) : -1;
    if (at >= 0) throw newBadRequest(`CertificateSigningRequest in version "v1" cannot be handled as a CertificateSigningRequest: illegal base64 data at input byte ${at}`);
  }
}

/** `extractCSRStatus`: `Pending`, `Approved` or `Denied` (Denied wins), then `,Failed` and `,Issued`. */
export function csrCondition(csr: CertificateSigningRequest): string {
  let status = has(csr, 'Denied') ? 'Denied' : has(csr, 'Approved') ? 'Approved' : 'Pending';
  if (has(csr, 'Failed')) status += ',Failed';
  if (csr.status?.certificate) status += ',Issued';
  return status;
}

/** `certificatesv1beta1.CertificateSigningRequestSpec{}.SwaggerDoc()["expirationSeconds"]`. */
const EXPIRATION_SECONDS_DESCRIPTION =
  'expirationSeconds is the requested duration of validity of the issued certificate. The certificate signer may issue a certificate with a different validity duration so a client must check the delta between the notBefore and and notAfter fields in the issued certificate to determine the actual duration.\n\nThe v1.22+ in-tree implementations of the well-known Kubernetes signers will honor this field as long as the requested duration is not greater than the maximum duration they will honor per the --cluster-signing-duration CLI flag to the Kubernetes controller manager.\n\nCertificate signers may not honor this field for various reasons:\n\n  1. Old signer that is unaware of the field (such as the in-tree\n     implementations prior to v1.22)\n  2. Signer whose configured maximum is shorter than the requested duration\n  3. Signer whose configured minimum is longer than the requested duration\n\nThe minimum valid value for expirationSeconds is 600, i.e. 10 minutes.';

/** The CertificateSigningRequest strategy. */
export const csrStrategy: ResourceStrategy<CSRObject> = {
  info: resourceInfo(CERTIFICATE_SIGNING_REQUESTS),
  hasStatus: true,
  /** `ValidateCertificateRequestName` accepts any name; the generic path-segment rule remains. */
  nameValidator: isValidPathSegmentName,
  defaults: defaultCSR,
  /** Status starts empty (the requester's identity is set by {@link csrStorage}'s mutateCreate). */
  prepareForCreate(csr) {
    csr.status = {};
  },
  /** Spec and status change only through the subresources. */
  prepareForUpdate(csr, old) {
    resetField(csr, old, 'spec');
    resetField(csr, old, 'status');
  },
  /** `/status` keeps the spec and the stored Approved/Denied conditions, and fills in condition times. */
  prepareForStatusUpdate(csr, old, now) {
    resetField(csr, old, 'spec');
    preserveConditions(csr, old, 'Approved');
    preserveConditions(csr, old, 'Denied');
    if (now !== undefined) populateConditionTimestamps(csr, old, now);
  },
  validate: validateCSRCreate,
  validateUpdate: (csr, old) => validateCSRUpdate(csr, old, validationOptions(csr, old)),
  validateStatusUpdate: (csr, old) => validateCSRUpdate(csr, old, { ...validationOptions(csr, old), allowSettingCertificate: true }),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: { 'spec.signerName': (csr) => csr.spec?.signerName ?? '' },
  storage: csrStorage,
  table: {
    columns: [
      NAME_COLUMN,
      AGE_COLUMN,
      column(
        'SignerName',
        'string',
        'Requested signer for the request. It is a qualified name in the form: `scope-hostname.io/name`. If empty, it will be defaulted:\n 1. If it\'s a kubelet client certificate, it is assigned\n    "kubernetes.io/kube-apiserver-client-kubelet".\n 2. If it\'s a kubelet serving certificate, it is assigned\n    "kubernetes.io/kubelet-serving".\n 3. Otherwise, it is assigned "kubernetes.io/legacy-unknown".\nDistribution of trust for signers happens out of band. You can select on this field using `spec.signerName`.',
      ),
      column('Requestor', 'string', 'Base64-encoded PKCS#10 CSR data'),
      column('RequestedDuration', 'string', EXPIRATION_SECONDS_DESCRIPTION),
      column('Condition', 'string', 'Conditions applied to the request, such as approval or denial.'),
    ],
    row: (csr, now) => ({
      cells: [
        csr.metadata?.name ?? '',
        translateTimestampSince(csr.metadata?.creationTimestamp, now),
        csr.spec?.signerName || '<none>',
        csr.spec?.username ?? '',
        csr.spec?.expirationSeconds != null ? humanDuration(csr.spec.expirationSeconds * 1000) : '<none>',
        csrCondition(csr),
      ],
    }),
  },
};
