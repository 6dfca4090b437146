/**
 * Events (core/v1). The core/v1 API keeps the legacy rules: no defaults, no status, PUT may create,
 * and only `legacyValidateEvent` applies (no Normal/Warning check, which is events.k8s.io/v1's).
 *
 * Followed (v1.33): pkg/registry/core/event/strategy.go (AllowCreateOnUpdate true, EventToSelectableFields,
 * DefaultGarbageCollectionPolicy Unsupported — events have no dependents, so Background behaves the
 * same), pkg/apis/core/validation/events.go (ValidateEventCreate/Update for core/v1 = legacyValidateEvent),
 * pkg/printers/internalversion/printers.go (printEvent, formatEventSource).
 */
import { EVENTS } from '../../../api/catalogue/index.js';
import type { Event } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { isDNS1123Subdomain, isQualifiedName } from '../../../machinery/validation/index.js';
import { parseTime } from '../../../util/clock/index.js';
import { type ApiObject } from './helpers.js';
import { resourceInfo, type ResourceStrategy, type TableRowData } from '../strategy.js';
import { column, translateTimestampSince } from './table-helpers.js';

type EventObject = ApiObject<Event>;

/** Go's len(s) in bytes. */
function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/**
 * `legacyValidateEvent`. Without eventTime (old-style events): involvedObject.namespace must equal the
 * event's namespace, or be empty in `default` (`involvedObject.namespace: Invalid value: "x": does not
 * match event.namespace`). With eventTime: an empty involvedObject.namespace needs namespace `default` or
 * `kube-system`, reportingController (a qualified name), reportingInstance (≤ 128), action (≤ 128) and
 * reason (≤ 128) are required, message ≤ 1024. Always: the namespace is a DNS subdomain.
 */
export function validateEvent(ev: Event): FieldError[] {
  const errs: FieldError[] = [];
  const ns = ev.metadata?.namespace ?? '';
  const involvedNs = ev.involvedObject?.namespace ?? '';
  const mismatch = (): FieldError => field.invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace');
  if (!ev.eventTime) {
    if (!involvedNs) {
      if (ns !== '' && ns !== 'default') errs.push(mismatch());
    } else if (ns !== involvedNs) {
      errs.push(mismatch());
    }
  } else {
    if (!involvedNs && ns !== 'default' && ns !== 'kube-system') errs.push(mismatch());
    const controller = ev.reportingComponent ?? '';
    if (!controller) errs.push(field.required('reportingController'));
    for (const msg of isQualifiedName(controller)) errs.push(field.invalid('reportingController', controller, msg));
    const limited = [
      ['reportingInstance', ev.reportingInstance ?? '', 128],
      ['action', ev.action ?? '', 128],
      ['reason', ev.reason ?? '', 128],
    ] as const;
    for (const [name, value, limit] of limited) {
      if (!value) errs.push(field.required(name));
      if (byteLength(value) > limit) errs.push(field.invalid(name, '', `can have at most ${limit} characters`));
    }
    if (byteLength(ev.message ?? '') > 1024) errs.push(field.invalid('message', '', 'can have at most 1024 characters'));
  }
  for (const msg of isDNS1123Subdomain(ns)) errs.push(field.invalid('namespace', ns, msg));
  return errs;
}

/**
 * `printEvent`: Last Seen (lastTimestamp, else first seen; the series' last observation for series
 * events), Type, Reason, Object (`kind/name` with the kind lower-cased), Subobject, Source
 * (`component, host`, falling back to reportingComponent/reportingInstance), Message (trimmed), First Seen
 * (firstTimestamp, else eventTime), Count (series count, else count, else 1) and Name.
 */
export function printEvent(ev: Event, now: number): TableRowData {
  const firstSeen = parseTime(ev.firstTimestamp) !== undefined ? translateTimestampSince(ev.firstTimestamp, now) : translateTimestampSince(ev.eventTime, now);
  let lastSeen = parseTime(ev.lastTimestamp) !== undefined ? translateTimestampSince(ev.lastTimestamp, now) : firstSeen;
  let count = ev.count ?? 0;
  if (ev.series) {
    lastSeen = translateTimestampSince(ev.series.lastObservedTime, now);
    count = ev.series.count ?? 0;
  } else if (count === 0) {
    count = 1; // singleton events of the new API carry no count
  }
  const kind = (ev.involvedObject?.kind ?? '').toLowerCase();
  const target = ev.involvedObject?.name ? `${kind}/${ev.involvedObject.name}` : kind;
  const component = ev.source?.component || ev.reportingComponent || '';
  const instance = ev.source?.host || ev.reportingInstance || '';
  return {
    cells: [
      lastSeen,
      ev.type ?? '',
      ev.reason ?? '',
      target,
      ev.involvedObject?.fieldPath ?? '',
      instance ? `${component}, ${instance}` : component,
      (ev.message ?? '').trim(),
      firstSeen,
      count,
      ev.metadata?.name ?? '',
    ],
  };
}

/** The events strategy (core/v1). */
export const eventStrategy: ResourceStrategy<EventObject> = {
  info: resourceInfo(EVENTS),
  hasStatus: false,
  defaults() {},
  prepareForCreate() {},
  prepareForUpdate() {},
  validate: validateEvent,
  validateUpdate: validateEvent,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {
    'involvedObject.kind': (e) => e.involvedObject?.kind ?? '',
    'involvedObject.namespace': (e) => e.involvedObject?.namespace ?? '',
    'involvedObject.name': (e) => e.involvedObject?.name ?? '',
    'involvedObject.uid': (e) => e.involvedObject?.uid ?? '',
    'involvedObject.apiVersion': (e) => e.involvedObject?.apiVersion ?? '',
    'involvedObject.resourceVersion': (e) => e.involvedObject?.resourceVersion ?? '',
    'involvedObject.fieldPath': (e) => e.involvedObject?.fieldPath ?? '',
    reason: (e) => e.reason ?? '',
    reportingComponent: (e) => e.reportingComponent ?? '',
    source: (e) => e.source?.component ?? '',
    type: (e) => e.type ?? '',
  },
  table: {
    columns: [
      column('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.'),
      column('Type', 'string', 'Type of this event (Normal, Warning), new types could be added in the future'),
      column('Reason', 'string', "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
      column('Object', 'string', 'The object that this event is about.'),
      column('Subobject', 'string', 'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].', 1),
      column('Source', 'string', 'The component reporting this event. Should be a short machine understandable string.', 1),
      column('Message', 'string', 'A human-readable description of the status of this operation.'),
      column('First Seen', 'string', 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)', 1),
      column('Count', 'string', 'The number of times this event has occurred.', 1),
      column('Name', 'string', 'Name must be unique within a namespace.', 1, 'name'),
    ],
    row: printEvent,
  },
};

