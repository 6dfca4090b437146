/**
 * The Table of a custom resource version (k8s.io/apiextensions-apiserver pkg/registry/customresource/
 * tableconvertor/tableconvertor.go, and pkg/apiserver/helpers.go `serveDefaultColumnsIfEmpty`): Name,
 * then the version's `additionalPrinterColumns` (an `Age` date column of the creationTimestamp when
 * there are none), each cell the first value its JSONPath selects:
 * - `string` columns print it as client-go's JSONPath printer does (strings as they are, numbers and
 *   booleans as text, objects and arrays as compact JSON);
 * - `integer` truncates a number, `number` keeps it, `boolean` takes a boolean, anything else is null;
 * - `date` columns print an RFC 3339 string as an age (`5m`), `<invalid>` when it does not parse.
 */
import type { CustomResourceColumnDefinition } from '../../../api/index.js';
import type { KubeObject } from '../../../api/index.js';
import { parseTime } from '../../../util/clock/index.js';
import { AGE_COLUMN, NAME_COLUMN, humanDuration } from '../resources/table-helpers.js';
import type { TableColumnDefinition, TablePrinter } from '../strategy.js';
import { JsonPath } from './jsonpath.js';

/** The columns served when a version declares none (`serveDefaultColumnsIfEmpty`). */
export const DEFAULT_COLUMNS: readonly CustomResourceColumnDefinition[] = [
  { name: 'Age', type: 'date', description: AGE_COLUMN.description, jsonPath: '.metadata.creationTimestamp' },
];

/**
 * The printer of a version with `columns` (its additionalPrinterColumns). A column whose JSONPath
 * does not parse prints nothing (CRD validation refuses such paths; upstream then serves no columns).
 */
export function customResourceTable(columns: readonly CustomResourceColumnDefinition[] | undefined): TablePrinter {
  const cols = columns && columns.length > 0 ? columns : DEFAULT_COLUMNS;
  const paths = cols.map((c) => {
    try {
      return JsonPath.parse(c.jsonPath);
    } catch {
      return undefined;
    }
  });
  const definitions: TableColumnDefinition[] = [
    NAME_COLUMN,
    ...cols.map((c) => ({
      name: c.name,
      type: c.type as TableColumnDefinition['type'],
      format: c.format ?? '',
      description: c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
      priority: c.priority ?? 0,
    })),
  ];
  return {
    columns: definitions,
    row(obj: KubeObject, now: number) {
      const cells: unknown[] = [obj.metadata?.name ?? ''];
      cols.forEach((c, i) => {
        const found = paths[i]?.find(obj) ?? [];
        cells.push(found.length === 0 ? null : cellFor(c.type, found[0], now));
      });
      return { cells };
    },
  };
}

/**
 * One cell: a `string` column prints the value as client-go's JSONPath printer does (strings as they
 * are, other values as compact JSON); other types go through {@link cellForJSONValue}.
 */
export function cellFor(type: string, value: unknown, now: number): unknown {
  if (value === null || value === undefined) return null;
  if (type === 'string') return typeof value === 'string' ? value : JSON.stringify(value);
  return cellForJSONValue(type, value, now);
}

/**
 * tableconvertor.go `cellForJSONValue`: `integer` truncates a number, `number` keeps it, `boolean` and
 * `string` take only their own type, `date` prints an RFC 3339 string as an age at `now` (ms):
 * `<unknown>` for an empty or zero time, `<invalid>` for one that does not parse or lies in the
 * future; anything else is null.
 */
export function cellForJSONValue(type: string, value: unknown, now: number): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'string':
      return typeof value === 'string' ? value : null;
    case 'date': {
      if (typeof value !== 'string') return null;
      // metav1.Time.UnmarshalQueryParameter: "" is the zero time.
      if (value === '' || value === '0001-01-01T00:00:00Z') return '<unknown>';
      const t = parseTime(value);
      return t === undefined ? '<invalid>' : humanDuration(now - t);
    }
    default:
      return null;
  }
}
