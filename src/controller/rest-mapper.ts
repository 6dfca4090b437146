/**
 * Which resource serves a kind: the part of apimachinery's `meta.RESTMapper` the HPA and disruption
 * controllers use (`RESTMappings(groupKind)`), to find the `scale` subresource of a scaleTargetRef's
 * kind or of a pod's controller, and the resource of an Object metric's described object. No kind is named here: the mappings come from
 * the resource catalogue, or from discovery (what the API server serves now, custom resources
 * included) when the composition root passes it.
 */
import { CATALOGUE, type ResourceDescriptor } from '../client/index.js';

/** Maps a group and kind to the resources serving it, preferred version first. */
export interface RESTMapper {
  /** The resources of `kind` in `group` (`''` for core); empty when the kind is unknown. */
  mappings(group: string, kind: string): ResourceDescriptor[];
}

/** A {@link RESTMapper} over `resources()` (asked at every call, so resources served later are found). */
export function newRESTMapper(resources: () => readonly ResourceDescriptor[]): RESTMapper {
  return {
    mappings: (group, kind) => resources().filter((r) => r.group === group && r.kind === kind),
  };
}

/** The {@link RESTMapper} of the built-in resource catalogue. */
export const catalogueRESTMapper: RESTMapper = newRESTMapper(() => CATALOGUE);
