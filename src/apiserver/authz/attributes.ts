/**
 * The authorizer attributes of a request, from what routing knows of it (upstream's
 * `GetAuthorizerAttributes`, k8s.io/apiserver pkg/endpoints/filters/authorization.go, over its
 * RequestInfo).
 */
import type { RequestUser } from '../../api/request.js';
import { parseFieldSelector } from '../../machinery/fields/index.js';
import { isValidPathSegmentName } from '../../machinery/validation/index.js';
import type { Attributes } from './types.js';

/** What a request is, as RequestInfo (HTTP) or a RestRequest (in process) tells it. */
export type RequestAttributes = Omit<Attributes, 'user'>;

/**
 * `info` asked by `user`. A list or watch whose field selector requires `metadata.name=<name>`
 * (`kubectl get pod web -w`) is about that name, so that a rule with resourceNames can allow it:
 * requestinfo.go fills `Name` from the selector's `RequiresExactMatch("metadata.name")` when the name
 * is a valid path segment. A selector that does not parse names nothing (the handler refuses it).
 */
export function requestAttributes(user: RequestUser | undefined, info: RequestAttributes, query: Record<string, string> | undefined): Attributes {
  let name = info.name;
  const selector = query?.['fieldSelector'];
  if (name === '' && selector && (info.verb === 'list' || info.verb === 'watch')) {
    try {
      const exact = parseFieldSelector(selector).exactMatch('metadata.name');
      if (exact !== undefined && isValidPathSegmentName(exact).length === 0) name = exact;
    } catch {
      // Not a selector: the request is refused with 400 after authorization.
    }
  }
  return { ...info, user, name };
}
