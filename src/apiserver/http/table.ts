/**
 * Server-side conversions of a response body to `meta.k8s.io` kinds, as upstream's
 * k8s.io/apiserver/pkg/endpoints/handlers/response.go (asTable, asPartialObjectMetadata[List]) and
 * k8s.io/apiserver/pkg/registry/rest/table.go (the default convertor).
 *
 * Table shape (`kubectl get` prints it):
 * `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"109"},
 *   "columnDefinitions":[…],"rows":[{"cells":["web","2/2",…],"object":{"kind":"PartialObjectMetadata",…}}]}`
 */
import { field, fieldErrorString, newBadRequest } from '../../machinery/errors/index.js';
import type { KubeObject } from '../../api/index.js';
import type { ResourceInfo, TablePrinter } from '../registry/strategy.js';
import { defaultTablePrinter } from '../registry/resources/table-helpers.js';
import { newNotAcceptableMessage } from './errors.js';
import type { ConvertTarget } from './negotiation.js';
import { materializeList, StreamedList } from './streaming.js';

/** `TableOptions.includeObject`: what each row's `object` holds. */
export type IncludeObjectPolicy = 'None' | 'Metadata' | 'Object';

/**
 * Validates the `includeObject` query parameter (absent means Metadata). Throws 400
 * `Unable to convert to Table as requested: includeObject: Unsupported value: …` (ValidateTableOptions).
 */
export function includeObjectPolicy(value: string | undefined): IncludeObjectPolicy {
  if (value === undefined || value === '' || value === 'Metadata') return 'Metadata';
  if (value === 'None' || value === 'Object') return value;
  const err = field.notSupported('includeObject', value, ['Metadata', 'None', 'Object']);
  throw newBadRequest(`Unable to convert to Table as requested: ${fieldErrorString(err)}`);
}

/** Options of one Table conversion. */
export interface TableOptions {
  /** `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`. */
  apiVersion: string;
  includeObject: IncludeObjectPolicy;
  /** Omit `columnDefinitions` (every watch event after the first, as upstream). */
  noHeaders: boolean;
  /** The object's kind and apiVersion, set on full objects (includeObject=Object) that lack them. */
  kind: string;
  objectApiVersion: string;
}

/** Table options for a request: the Table's apiVersion from the Accept, includeObject from the query. Throws 400 (see {@link includeObjectPolicy}). */
export function tableOptionsFor(target: ConvertTarget, info: ResourceInfo, query: Record<string, string>): TableOptions {
  return {
    apiVersion: target.apiVersion,
    includeObject: includeObjectPolicy(query['includeObject']),
    noHeaders: false,
    kind: info.kind,
    objectApiVersion: info.group ? `${info.group}/${info.version}` : info.version,
  };
}

type Metadata = NonNullable<KubeObject['metadata']>;

/** True for a list body (an object with an `items` array: a PodList, or what a deletecollection returns). */
export function isList(body: unknown): body is { metadata?: Metadata & { continue?: string; remainingItemCount?: number }; items: KubeObject[] } {
  return typeof body === 'object' && body !== null && Array.isArray((body as { items?: unknown }).items);
}

/** True for a `metav1.Status` body, which is never converted (upstream doTransformObject). */
export function isStatus(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { kind?: unknown }).kind === 'Status';
}

/** resourceVersion, continue and remainingItemCount of a list, when set. */
function listMetaOf(list: { metadata?: Metadata & { continue?: string; remainingItemCount?: number } }): Record<string, unknown> {
  const m = list.metadata ?? {};
  const metadata: Record<string, unknown> = {};
  if (m.resourceVersion !== undefined) metadata['resourceVersion'] = m.resourceVersion;
  if (m.continue) metadata['continue'] = m.continue;
  if (m.remainingItemCount !== undefined) metadata['remainingItemCount'] = m.remainingItemCount;
  return metadata;
}

function partialObjectMetadata(obj: KubeObject, apiVersion: string): object {
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: obj.metadata ?? {} };
}

function rowObject(obj: KubeObject, opts: TableOptions): object | undefined {
  switch (opts.includeObject) {
    case 'None':
      return undefined;
    case 'Object':
      return obj.kind && obj.apiVersion ? obj : { ...obj, kind: opts.kind, apiVersion: opts.objectApiVersion };
    case 'Metadata':
      return partialObjectMetadata(obj, opts.apiVersion);
  }
}

/** One row of a Table: the printer's cells and conditions, and the object as `includeObject` asks. */
export function tableRow(item: KubeObject, printer: TablePrinter, opts: TableOptions, now: number): Record<string, unknown> {
  const data = printer.row(item, now);
  const row: Record<string, unknown> = { cells: data.cells };
  if (data.conditions?.length) row['conditions'] = data.conditions;
  const object = rowObject(item, opts);
  if (object !== undefined) row['object'] = object;
  return row;
}

/** A list's items in the order its Table rows take: the printer's own order when it has one. */
function listRows(items: KubeObject[], printer: TablePrinter): KubeObject[] {
  const order = printer.listOrder;
  return order ? [...items].sort(order) : items;
}

/**
 * A get result (one object → one row) or a list result as a Table with `printer`, its rows made one
 * at a time as they are written (streaming.ts). `metadata.resourceVersion`, `continue` and
 * `remainingItemCount` of a list are carried over; a single object's resourceVersion becomes the
 * Table's. `now` is in ms, for ages.
 */
export function tableOf(body: unknown, printer: TablePrinter, opts: TableOptions, now: number): StreamedList<KubeObject> {
  let metadata: Record<string, unknown>;
  if (isList(body)) metadata = listMetaOf(body);
  else {
    const rv = (body as KubeObject).metadata?.resourceVersion;
    metadata = rv === undefined ? {} : { resourceVersion: rv };
  }
  const envelope: Record<string, unknown> = { kind: 'Table', apiVersion: opts.apiVersion, metadata };
  if (!opts.noHeaders) envelope['columnDefinitions'] = printer.columns;
  envelope['rows'] = [];
  const items = isList(body) ? listRows(body.items, printer) : [body as KubeObject];
  return new StreamedList(envelope, 'rows', items, (item) => tableRow(item, printer, opts, now));
}

/** {@link tableOf} as one object (a watch event's Table, a test's expectation). */
export function toTable(body: unknown, printer: TablePrinter, opts: TableOptions, now: number): object {
  return materializeList(tableOf(body, printer, opts, now));
}

/**
 * Applies a meta.k8s.io conversion to a get/list result: Table with the resource's printer (the
 * default one for subresources other than status), PartialObjectMetadata for one object,
 * PartialObjectMetadataList for a list. Tables and lists come back as a {@link StreamedList} to be
 * written piece by piece. Status bodies pass unchanged. Throws 406 for PartialObjectMetadata of a
 * list and PartialObjectMetadataList of a single object.
 */
export function convertBody(
  body: unknown,
  target: ConvertTarget,
  printer: TablePrinter,
  info: ResourceInfo,
  query: Record<string, string>,
  now: number,
): object | StreamedList<KubeObject> {
  if (isStatus(body)) return body as object;
  switch (target.kind) {
    case 'Table':
      return tableOf(body, printer, tableOptionsFor(target, info, query), now);
    case 'PartialObjectMetadata':
      if (isList(body)) throw newNotAcceptableMessage('you requested PartialObjectMetadata, but the requested object is a list');
      return partialObjectMetadata(body as KubeObject, target.apiVersion);
    case 'PartialObjectMetadataList': {
      if (!isList(body)) throw newNotAcceptableMessage('you requested PartialObjectMetadataList, but the requested object is not a list');
      const envelope = { kind: 'PartialObjectMetadataList', apiVersion: target.apiVersion, metadata: listMetaOf(body), items: [] };
      return new StreamedList(envelope, 'items', body.items, (item) => partialObjectMetadata(item, target.apiVersion));
    }
  }
}

/**
 * The printer for a resource or one of its subresources: the resource's own for the object itself and
 * its status subresource, the default one (Name, Created At) for other subresources such as scale.
 */
export function printerFor(table: TablePrinter, subresource: string | undefined): TablePrinter {
  return subresource === undefined || subresource === 'status' ? table : defaultTablePrinter;
}
