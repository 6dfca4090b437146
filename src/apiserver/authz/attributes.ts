/**
 * The authorizer attributes of a request, from what routing knows of it (upstream's
 * `GetAuthorizerAttributes`, k8s.io/apiserver pkg/endpoints/filters/authorization.go, over its
 * RequestInfo).
 */
import type { RequestUser } from '../../api/request.js';
import type { Attributes } from './types.js';

/** What a request is, as RequestInfo (HTTP) or a RestRequest (in process) tells it. */
export type RequestAttributes = Omit<Attributes, 'user'>;

/**
 * `info` asked by `user`. A list or watch selecting one object by `fieldSelector=metadata.name=<name>`
 * (`kubectl get pod web -w`) is about that name, so that a rule with resourceNames can allow it
 * (requestinfo.go fills `Name` from the field selector for this reason).
 */
export function requestAttributes(user: RequestUser | undefined, info: RequestAttributes, query: Record<string, string> | undefined): Attributes {
  let name = info.name;
  if (name === '' && (info.verb === 'list' || info.verb === 'watch')) {
    const m = /^metadata\.name==?([^,]*)$/.exec(query?.['fieldSelector'] ?? '');
    if (m) name = m[1] as string;
  }
  return { ...info, user, name };
}
