/**
 * Combining authorizers, and the built-in ones.
 *
 * Followed (v1.33): k8s.io/apiserver pkg/authorization/union/union.go (New, NewRuleResolvers) and
 * pkg/authorization/authorizerfactory/builtin.go (NewAlwaysAllowAuthorizer, NewAlwaysDenyAuthorizer,
 * NewPrivilegedGroups).
 *
 * The union asks each authorizer in turn: the first `Allow` or `Deny` is the answer (with that
 * authorizer's reason and error); `NoOpinion` goes on to the next; when all have no opinion, the answer
 * is `NoOpinion` with every non-empty reason joined by newlines and every error aggregated. The union
 * answers synchronously as long as its authorizers do.
 *
 * These follow upstream, where every request has a user: the privileged-groups authorizer gives no
 * opinion (with an error) for an undefined user. The in-process loopback caller, which has none, is
 * the server's to let through without asking.
 */
import type { RequestUser } from '../../api/request.js';
import { aggregateMessages } from './aggregate.js';
import type { Attributes, AuthorizationResult, Authorizer, RuleResolver, SubjectRules } from './types.js';

/** An authorizer that also lists rules (SelfSubjectRulesReview). */
export type RuleResolvingAuthorizer = Authorizer & RuleResolver;

/** `union.New`: the authorizers asked in order. */
export function unionAuthorizer(...authorizers: readonly Authorizer[]): Authorizer {
  return { authorize: (attrs) => unionAuthorize(authorizers, attrs) };
}

function unionAuthorize(authorizers: readonly Authorizer[], attrs: Attributes): AuthorizationResult | Promise<AuthorizationResult> {
  const errors: string[] = [];
  const reasons: string[] = [];
  /** Records one answer; returns it when it decides. */
  const take = (result: AuthorizationResult): AuthorizationResult | undefined => {
    if (result.error !== undefined) errors.push(result.error);
    if (result.reason !== '') reasons.push(result.reason);
    return result.decision === 'NoOpinion' ? undefined : result;
  };
  const noOpinion = (): AuthorizationResult => {
    const result: AuthorizationResult = { decision: 'NoOpinion', reason: reasons.join('\n') };
    const error = aggregateMessages(errors);
    if (error !== undefined) result.error = error;
    return result;
  };
  const from = (start: number): AuthorizationResult | Promise<AuthorizationResult> => {
    for (let i = start; i < authorizers.length; i++) {
      const authorizer = authorizers[i];
      if (authorizer === undefined) continue;
      const answer = authorizer.authorize(attrs);
      if (answer instanceof Promise) return answer.then((result) => take(result) ?? from(i + 1));
      const decided = take(answer);
      if (decided !== undefined) return decided;
    }
    return noOpinion();
  };
  return from(0);
}

/** `union.NewRuleResolvers`: every resolver's rules, concatenated in order; incomplete if any is; errors aggregated. */
export function unionRuleResolver(...resolvers: readonly RuleResolver[]): RuleResolver {
  return {
    rulesFor: (user, namespace) => {
      const answers = resolvers.map((r) => r.rulesFor(user, namespace));
      if (answers.some((a) => a instanceof Promise)) return Promise.all(answers.map((a) => Promise.resolve(a))).then(combineRules);
      return combineRules(answers as SubjectRules[]);
    },
  };
}

function combineRules(answers: readonly SubjectRules[]): SubjectRules {
  const out: SubjectRules = {
    resourceRules: answers.flatMap((a) => a.resourceRules),
    nonResourceRules: answers.flatMap((a) => a.nonResourceRules),
    incomplete: answers.some((a) => a.incomplete),
  };
  const error = aggregateMessages(answers.flatMap((a) => (a.error === undefined ? [] : [a.error])));
  if (error !== undefined) out.error = error;
  return out;
}

/** `NewAlwaysAllowAuthorizer`: allows everything; its rules are `*` on everything. */
export function alwaysAllowAuthorizer(): RuleResolvingAuthorizer {
  return {
    authorize: () => ({ decision: 'Allow', reason: '' }),
    rulesFor: () => ({
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    }),
  };
}

/** `NewAlwaysDenyAuthorizer`: no opinion on anything (reason `Everything is forbidden.`); no rules. */
export function alwaysDenyAuthorizer(): RuleResolvingAuthorizer {
  return {
    authorize: () => ({ decision: 'NoOpinion', reason: 'Everything is forbidden.' }),
    rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
  };
}

/**
 * `NewPrivilegedGroups`: allows a user in one of the groups (kube-apiserver puts one for
 * `system:masters` (types.ts SYSTEM_PRIVILEGED_GROUP) first in its chain); no opinion otherwise, and for no user reason `Error` and error `no user on request.`.
 */
export function privilegedGroupsAuthorizer(groups: readonly string[]): Authorizer {
  return {
    authorize: (attrs) => {
      const user: RequestUser | undefined = attrs.user;
      if (user === undefined) return { decision: 'NoOpinion', reason: 'Error', error: 'no user on request.' };
      return user.groups.some((g) => groups.includes(g)) ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: '' };
    },
  };
}
