/**
 * Content negotiation: what the client asked for in `Accept`, and what a `Content-Type` names.
 * Follows k8s.io/apiserver/pkg/endpoints/handlers/negotiation/negotiate.go: media ranges are tried in
 * the client's order of preference (q-value, then position) and the first one the server can produce
 * wins. Responses are JSON, or Kubernetes protobuf for the kinds that have a protobuf message when
 * the client prefers it ({@link outputFormat}); an `Accept` may additionally ask for a conversion of
 * the JSON body (`as=Table;g=meta.k8s.io;v=v1`, `as=APIGroupDiscoveryList;g=apidiscovery.k8s.io;v=v2`).
 */

/** One media range of an Accept header, e.g. `application/json;as=Table;v=v1;g=meta.k8s.io`. */
export interface MediaRange {
  /** `type/subtype`, lowercased, e.g. `application/json`. */
  mediaType: string;
  /** Parameters other than q, with lowercased names. */
  params: Record<string, string>;
  q: number;
}

/** Parses an Accept header into media ranges sorted by preference (highest q first, ties in order). */
export function parseAccept(header: string | undefined): MediaRange[] {
  if (!header) return [];
  const ranges: (MediaRange & { pos: number })[] = [];
  header.split(',').forEach((part, pos) => {
    const [typePart, ...paramParts] = part.split(';');
    const mediaType = (typePart ?? '').trim().toLowerCase();
    if (!mediaType) return;
    const params: Record<string, string> = {};
    let q = 1;
    for (const p of paramParts) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      const key = p.slice(0, eq).trim().toLowerCase();
      const value = p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
      if (key === 'q') q = Number.isFinite(Number(value)) ? Number(value) : 0;
      else params[key] = value;
    }
    if (q > 0) ranges.push({ mediaType, params, q, pos });
  });
  ranges.sort((a, b) => b.q - a.q || a.pos - b.pos);
  return ranges.map(({ mediaType, params, q }) => ({ mediaType, params, q }));
}

/** True when a media range accepts plain JSON. */
function acceptsJson(r: MediaRange): boolean {
  return r.mediaType === 'application/json' || r.mediaType === '*/*' || r.mediaType === 'application/*';
}

/** A conversion of the response body that the client asked for (meta.k8s.io). */
export interface ConvertTarget {
  kind: 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';
  /** `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`. */
  apiVersion: string;
}

const convertKinds = new Set(['Table', 'PartialObjectMetadata', 'PartialObjectMetadataList']);

/**
 * The meta.k8s.io conversion the Accept header asks for, or undefined for the plain object. kubectl
 * sends `application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json`
 * for `get`; the first range the server can serve decides.
 */
export function convertTarget(accept: string | undefined): ConvertTarget | undefined {
  for (const r of parseAccept(accept)) {
    const as = r.params['as'];
    if (as === undefined) {
      if (acceptsJson(r)) return undefined;
      continue;
    }
    if (r.mediaType !== 'application/json' || r.params['g'] !== 'meta.k8s.io' || !convertKinds.has(as)) continue;
    const v = r.params['v'];
    if (v !== 'v1' && v !== 'v1beta1') continue;
    return { kind: as as ConvertTarget['kind'], apiVersion: `meta.k8s.io/${v}` };
  }
  return undefined;
}

/**
 * The aggregated-discovery version the Accept header asks for (`v2` or `v2beta1`), or undefined for
 * legacy discovery (client-go `discovery_client.go` chooses its parser by the response Content-Type).
 */
export function aggregatedDiscoveryVersion(accept: string | undefined): 'v2' | 'v2beta1' | undefined {
  for (const r of parseAccept(accept)) {
    const as = r.params['as'];
    if (as === undefined) {
      if (acceptsJson(r)) return undefined;
      continue;
    }
    if (r.mediaType !== 'application/json' || r.params['g'] !== 'apidiscovery.k8s.io' || as !== 'APIGroupDiscoveryList') continue;
    const v = r.params['v'];
    if (v === 'v2' || v === 'v2beta1') return v;
  }
  return undefined;
}

/** The Content-Type of a converted response, e.g. `application/json;as=Table;v=v1;g=meta.k8s.io`. */
export function convertedContentType(t: ConvertTarget): string {
  return `application/json;as=${t.kind};v=${t.apiVersion.slice('meta.k8s.io/'.length)};g=meta.k8s.io`;
}

/** `type/subtype` of a Content-Type header, lowercased and without parameters; `''` when absent. */
export function mediaTypeOf(contentType: string | undefined): string {
  if (!contentType) return '';
  const semi = contentType.indexOf(';');
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/** The media type of Kubernetes protobuf. */
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

/** How a resource response is encoded. */
export type OutputFormat = 'json' | 'protobuf';

/**
 * The encoding of a resource response, as upstream's `NegotiateOutputMediaType` picks it: the
 * client's most preferred media range that the endpoint can produce. `protobufServed` is false for
 * kinds without a protobuf message (custom resources: the CRD handler leaves protobuf out of its
 * serializers), whose protobuf ranges are skipped. A JSON range with a meta.k8s.io conversion
 * (`as=Table…`) counts as JSON; protobuf ranges with one (the metadata client's
 * `application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList…`) are skipped, so its JSON
 * fallback serves it. `;stream=watch` is allowed on any range, as upstream's endpoint restrictions do.
 *
 * Returns undefined — 406 NotAcceptable — when every range asks for protobuf and it is not served;
 * a header naming nothing this server knows (`text/html`) is answered in JSON, as before
 * negotiation covered protobuf.
 */
export function outputFormat(accept: string | undefined, protobufServed: boolean): OutputFormat | undefined {
  const ranges = parseAccept(accept);
  for (const r of ranges) {
    const as = r.params['as'];
    if (r.mediaType === PROTOBUF_MEDIA_TYPE) {
      if (protobufServed && as === undefined) return 'protobuf';
      continue;
    }
    if (as !== undefined) {
      if (r.mediaType === 'application/json' && r.params['g'] === 'meta.k8s.io' && convertKinds.has(as)) return 'json';
      continue;
    }
    if (acceptsJson(r)) return 'json';
  }
  return ranges.length > 0 && ranges.every((r) => r.mediaType === PROTOBUF_MEDIA_TYPE) ? undefined : 'json';
}
