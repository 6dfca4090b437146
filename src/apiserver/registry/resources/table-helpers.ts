/**
 * Shared pieces of the server-side Table printers (pkg/printers/internalversion/printers.go): ages as
 * `duration.HumanDuration` (staging/src/k8s.io/apimachinery/pkg/util/duration/duration.go), the
 * container name/image cells and the column definitions every kind repeats.
 */
import type { Container, KubeObject } from '../../../api/index.js';
import { formatTime, parseTime } from '../../../util/clock/index.js';
import type { TableColumnDefinition, TablePrinter } from '../strategy.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * `duration.HumanDuration`: a duration in ms as ~2–3 significant figures. Up to 2 s in the future counts
 * as now (clock skew): -1999 ms → `0s`, -2000 ms → `<invalid>`. Then `0s`…`119s`; `2m`…`9m59s` (seconds
 * shown only when non-zero); `10m`…`179m`; `3h`…`7h59m`; `8h`…`47h`; `2d`…`7d23h`; `8d`…`729d`;
 * `2y`…`7y364d`; then whole years. Units truncate: 119.9 s → `119s`, 2 h 59 min 59 s → `179m`.
 */
export function humanDuration(ms: number): string {
  // Go's int(d.Seconds()) truncates toward zero, so -1.5 s is -1.
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.floor(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}

/**
 * `translateTimestampSince`: the age of an RFC 3339 timestamp at `now` (ms), or `<unknown>` when the
 * timestamp is missing or unparsable.
 */
export function translateTimestampSince(timestamp: string | null | undefined, now: number): string {
  const t = parseTime(timestamp);
  return t === undefined ? '<unknown>' : humanDuration(now - t);
}

/** `layoutContainerCells`: container names and images, each comma-joined (`nginx,sidecar`). */
export function layoutContainerCells(containers: readonly Container[] | undefined): [names: string, images: string] {
  const list = containers ?? [];
  return [list.map((c) => c.name).join(','), list.map((c) => c.image ?? '').join(',')];
}

/** `labels.FormatLabels`: `k=v` pairs sorted by key and comma-joined, `<none>` when empty. */
export function formatLabels(set: Readonly<Record<string, string>> | undefined): string {
  const keys = Object.keys(set ?? {}).sort();
  return keys.length === 0 ? '<none>' : keys.map((k) => `${k}=${set?.[k] ?? ''}`).join(',');
}

/** `metav1.ObjectMeta{}.SwaggerDoc()["name"]`. */
const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';

/** `metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]`. */
const AGE_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** Builds a column definition; `priority` 1 marks wide-only columns. */
export function column(
  name: string,
  type: TableColumnDefinition['type'],
  description: string,
  priority = 0,
  format = '',
): TableColumnDefinition {
  return { name, type, format, description, priority };
}

/** The `Name` column every printer starts with (`format: name`). */
export const NAME_COLUMN: TableColumnDefinition = column('Name', 'string', NAME_DESCRIPTION, 0, 'name');
/** The `Age` column. */
export const AGE_COLUMN: TableColumnDefinition = column('Age', 'string', AGE_DESCRIPTION);
/**
 * The `Created At` cell: `creationTimestamp.Time.UTC().Format(time.RFC3339)`, so a missing timestamp
 * prints Go's zero time.
 */
export function createdAtCell(timestamp: string | null | undefined): string {
  const t = parseTime(timestamp);
  return t === undefined ? '0001-01-01T00:00:00Z' : formatTime(t);
}

/** The wide-only `Containers` column of workload printers. */
export const CONTAINERS_COLUMN: TableColumnDefinition = column('Containers', 'string', 'Names of each container in the template.', 1);
/** The wide-only `Images` column of workload printers. */
export const IMAGES_COLUMN: TableColumnDefinition = column('Images', 'string', 'Images referenced by each container in the template.', 1);

/**
 * Upstream's default table convertor (k8s.io/apiserver/pkg/registry/rest/table.go): Name and Created At
 * (the RFC 3339 creationTimestamp), for kinds printers.go has no printer for (Roles, ClusterRoles,
 * LimitRanges, CRDs) and
 * for subresources such as scale.
 */
export const defaultTablePrinter: TablePrinter = {
  columns: [
    column(
      'Name',
      'string',
      'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically.',
      0,
      'name',
    ),
    column('Created At', 'date', 'CreationTimestamp is a timestamp representing the server time when this object was created. It is represented in RFC3339 form and is in UTC.'),
  ],
  row: (obj) => ({ cells: [obj.metadata?.name ?? '', createdAtCell(obj.metadata?.creationTimestamp)] }),
};

/** Name and Age only: the printer of kinds that are created but never listed (reviews, bindings). */
export const NAME_AGE_TABLE: TablePrinter = {
  columns: [NAME_COLUMN, AGE_COLUMN],
  row: (obj: KubeObject, now: number) => ({ cells: [obj.metadata?.name ?? '', translateTimestampSince(obj.metadata?.creationTimestamp, now)] }),
};
