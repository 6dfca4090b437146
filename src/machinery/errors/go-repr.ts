/**
 * Go's `%#v` of the few structs upstream validation puts in a message as the bad value (field.Invalid
 * with a struct prints it so, apimachinery pkg/util/validation/field/errors.go `ErrorBody`). Pointers
 * that are set print an address in Go, which means nothing here: `(*int64)(…)` stands for it.
 */
import type { ObjectMeta, OwnerReference } from '../../api/index.js';
import { goPointer, goQuote, goStringSlice } from './index.js';

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/**
 * `time.Time.GoString`: `time.Date(2025, time.January, 2, 3, 4, 5, 0, time.Local)` (a decoded
 * metav1.Time is in the server's Local zone, UTC here), the zero time `time.Date(1, time.January,
 * 1, 0, 0, 0, 0, time.UTC)`.
 */
export function goTime(timestamp: string | null | undefined): string {
  const t = timestamp ? new Date(timestamp) : undefined;
  if (!t || Number.isNaN(t.getTime())) return 'time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)';
  const fields = [t.getUTCFullYear(), `time.${MONTHS[t.getUTCMonth()] ?? ''}`, t.getUTCDate(), t.getUTCHours(), t.getUTCMinutes(), t.getUTCSeconds(), 0];
  return `time.Date(${fields.join(', ')}, time.Local)`;
}

/** `%#v` of a `map[string]string`: `map[string]string{"a":"b"}` (keys sorted), `map[string]string(nil)` when absent. */
export function goStringMap(m: Readonly<Record<string, string>> | undefined): string {
  if (!m) return 'map[string]string(nil)';
  const entries = Object.keys(m)
    .sort()
    .map((k) => `${goQuote(k)}:${goQuote(m[k] ?? '')}`);
  return `map[string]string{${entries.join(', ')}}`;
}

/** `%#v` of a struct: `pkg.Type{A:…, B:…}` from its fields in declaration order, each already rendered. */
export function goStruct(type: string, fields: readonly (readonly [string, string])[]): string {
  return `${type}{${fields.map(([k, v]) => `${k}:${v}`).join(', ')}}`;
}

function goOwnerReference(ref: OwnerReference): string {
  return goStruct('v1.OwnerReference', [
    ['APIVersion', goQuote(ref.apiVersion)],
    ['Kind', goQuote(ref.kind)],
    ['Name', goQuote(ref.name)],
    ['UID', goQuote(ref.uid)],
    ['Controller', goPointer('bool', ref.controller != null)],
    ['BlockOwnerDeletion', goPointer('bool', ref.blockOwnerDeletion != null)],
  ]);
}

/** `%#v` of a metav1.ObjectMeta, field by field in its declaration order. */
export function goObjectMeta(m: ObjectMeta): string {
  const refs = m.ownerReferences;
  return goStruct('v1.ObjectMeta', [
    ['Name', goQuote(m.name ?? '')],
    ['GenerateName', goQuote(m.generateName ?? '')],
    ['Namespace', goQuote(m.namespace ?? '')],
    ['SelfLink', goQuote(m.selfLink ?? '')],
    ['UID', goQuote(m.uid ?? '')],
    ['ResourceVersion', goQuote(m.resourceVersion ?? '')],
    ['Generation', String(m.generation ?? 0)],
    ['CreationTimestamp', goTime(m.creationTimestamp)],
    ['DeletionTimestamp', m.deletionTimestamp ? goTime(m.deletionTimestamp) : '<nil>'],
    ['DeletionGracePeriodSeconds', goPointer('int64', m.deletionGracePeriodSeconds != null)],
    ['Labels', goStringMap(m.labels)],
    ['Annotations', goStringMap(m.annotations)],
    ['OwnerReferences', refs ? `[]v1.OwnerReference{${refs.map(goOwnerReference).join(', ')}}` : '[]v1.OwnerReference(nil)'],
    ['Finalizers', goStringSlice(m.finalizers).text],
    ['ManagedFields', m.managedFields ? '[]v1.ManagedFieldsEntry{…}' : '[]v1.ManagedFieldsEntry(nil)'],
  ]);
}
