/**
 * events.k8s.io/v1 Events: a view of core/v1 Events, which store them (one `/registry/events` key
 * space), converted as pkg/apis/events/v1/conversion.go maps the fields:
 * regarding ↔ involvedObject, note ↔ message, reportingController ↔ reportingComponent,
 * deprecatedSource / deprecatedFirstTimestamp / deprecatedLastTimestamp / deprecatedCount ↔ source /
 * firstTimestamp / lastTimestamp / count; eventTime, series, action, reason, type, related and
 * reportingInstance keep their names.
 *
 * Known difference: upstream's event strategy validates an events.k8s.io/v1 write with that
 * version's stricter rules (eventTime, reportingController, reportingInstance and action required);
 * here the core/v1 validation applies to both.
 */
import { EVENTS_V1 } from '../../../api/catalogue/index.js';
import type { KubeObject } from '../../../api/index.js';
import { resourceInfo, versionView, type ResourceStrategy, type VersionConversion } from '../strategy.js';
import { eventStrategy } from './events.js';

/** [core/v1 field, events.k8s.io/v1 field] for the fields whose names differ. */
const RENAMED: readonly (readonly [string, string])[] = [
  ['involvedObject', 'regarding'],
  ['message', 'note'],
  ['reportingComponent', 'reportingController'],
  ['source', 'deprecatedSource'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
];

/** Moves each present field `from` → `to` of the pairs. */
function rename(obj: KubeObject, pairs: readonly (readonly [string, string])[]): KubeObject {
  const out = obj as Record<string, unknown>;
  for (const [from, to] of pairs) {
    if (from in out) {
      out[to] = out[from];
      delete out[from];
    }
  }
  return obj;
}

/** The conversion of the events.k8s.io/v1 view. */
export const eventsV1Conversion: VersionConversion = {
  toStorage: (obj) => rename(obj, RENAMED.map(([core, v1]) => [v1, core] as const)),
  fromStorage: (obj) => rename(obj, RENAMED),
};

/** events.k8s.io/v1 Events: core Events through {@link eventsV1Conversion}. */
export const eventsV1Strategy: ResourceStrategy = versionView(eventStrategy as unknown as ResourceStrategy, resourceInfo(EVENTS_V1), eventsV1Conversion);
