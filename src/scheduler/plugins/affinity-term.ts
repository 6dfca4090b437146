/**
 * Pod (anti-)affinity terms compiled once per pod: the label selector (with `matchLabelKeys` /
 * `mismatchLabelKeys` merged in), the namespaces the term names and its namespace selector, and the
 * topology key. PodInfo carries them so the InterPodAffinity plugin never re-parses a selector while
 * filtering.
 *
 * Follows upstream pkg/scheduler/framework/types.go (`AffinityTerm`, `WeightedAffinityTerm`,
 * `newAffinityTerm`, `getNamespacesFromPodAffinityTerm`, `AffinityTerm.Matches`) and, for
 * matchLabelKeys/mismatchLabelKeys, the merge v1.33's kube-apiserver applies at pod creation
 * (pkg/registry/core/pod/strategy.go `applyMatchLabelKeysAndMismatchLabelKeys`): `key In (value)` /
 * `key NotIn (value)` for each listed key the pod has a label for.
 */
import type { Affinity, LabelSelector, LabelSelectorRequirement, Pod } from '../../api/index.js';
import { nothing, selectorFromLabelSelector, type Selector } from '../../machinery/labels/index.js';

type PodAffinityTerm = NonNullable<NonNullable<Affinity['podAffinity']>['requiredDuringSchedulingIgnoredDuringExecution']>[number];
type WeightedPodAffinityTerm = NonNullable<NonNullable<Affinity['podAffinity']>['preferredDuringSchedulingIgnoredDuringExecution']>[number];

/** One compiled term. */
export interface AffinityTerm {
  /** Namespaces named by the term; the owning pod's own namespace when neither namespaces nor namespaceSelector is set. */
  namespaces: ReadonlySet<string>;
  /** `namespaceSelector` (nil ⇒ nothing, `{}` ⇒ every namespace). */
  namespaceSelector: Selector;
  selector: Selector;
  topologyKey: string;
}

/** A preferred term with its weight (1–100). */
export interface WeightedAffinityTerm extends AffinityTerm {
  weight: number;
}

/** The four term lists of a pod; each empty (and shared) when unset. */
export interface PodAffinityTerms {
  requiredAffinityTerms: readonly AffinityTerm[];
  requiredAntiAffinityTerms: readonly AffinityTerm[];
  preferredAffinityTerms: readonly WeightedAffinityTerm[];
  preferredAntiAffinityTerms: readonly WeightedAffinityTerm[];
}

const NO_TERMS: readonly never[] = Object.freeze([]);

/** Label selector with `matchLabelKeys` (In) and `mismatchLabelKeys` (NotIn) merged from the pod's labels. */
function mergedSelector(term: PodAffinityTerm, labels: Readonly<Record<string, string>>): LabelSelector | undefined {
  const extra: LabelSelectorRequirement[] = [];
  for (const key of term.matchLabelKeys ?? []) {
    const v = labels[key];
    if (v !== undefined) extra.push({ key, operator: 'In', values: [v] });
  }
  for (const key of term.mismatchLabelKeys ?? []) {
    const v = labels[key];
    if (v !== undefined) extra.push({ key, operator: 'NotIn', values: [v] });
  }
  // A nil labelSelector stays nil (matches nothing) unless keys add requirements, as the apiserver's merge.
  if (extra.length === 0) return term.labelSelector ?? undefined;
  return { ...term.labelSelector, matchExpressions: [...(term.labelSelector?.matchExpressions ?? []), ...extra] };
}

/** A selector, or `nothing` when it does not parse (API validation rejects those; a term that cannot match is the safe reading). */
function safeSelector(ls: LabelSelector | null | undefined): Selector {
  try {
    return selectorFromLabelSelector(ls);
  } catch {
    return nothing;
  }
}

function newAffinityTerm(pod: Pod, term: PodAffinityTerm): AffinityTerm {
  const ns = pod.metadata?.namespace ?? '';
  const names = term.namespaces ?? [];
  return {
    namespaces: new Set(names.length === 0 && term.namespaceSelector == null ? [ns] : names),
    namespaceSelector: safeSelector(term.namespaceSelector),
    selector: safeSelector(mergedSelector(term, pod.metadata?.labels ?? {})),
    topologyKey: term.topologyKey,
  };
}

function required(pod: Pod, terms: readonly PodAffinityTerm[] | undefined): readonly AffinityTerm[] {
  return terms && terms.length > 0 ? terms.map((t) => newAffinityTerm(pod, t)) : NO_TERMS;
}

function preferred(pod: Pod, terms: readonly WeightedPodAffinityTerm[] | undefined): readonly WeightedAffinityTerm[] {
  if (!terms || terms.length === 0) return NO_TERMS;
  // Upstream skips zero weights: they would add nothing.
  return terms.filter((t) => t.weight !== 0).map((t) => ({ ...newAffinityTerm(pod, t.podAffinityTerm), weight: t.weight }));
}

const NONE: PodAffinityTerms = Object.freeze({
  requiredAffinityTerms: NO_TERMS,
  requiredAntiAffinityTerms: NO_TERMS,
  preferredAffinityTerms: NO_TERMS,
  preferredAntiAffinityTerms: NO_TERMS,
});

/** Compiles the pod's podAffinity / podAntiAffinity terms (allocation-free for pods without any). */
export function newPodAffinityTerms(pod: Pod): PodAffinityTerms {
  const a = pod.spec?.affinity;
  if (!a?.podAffinity && !a?.podAntiAffinity) return NONE;
  return {
    requiredAffinityTerms: required(pod, a.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution),
    requiredAntiAffinityTerms: required(pod, a.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution),
    preferredAffinityTerms: preferred(pod, a.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution),
    preferredAntiAffinityTerms: preferred(pod, a.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution),
  };
}

/**
 * True when `term` selects `pod`: the pod's namespace is one the term names, or its labels
 * (`nsLabels`; undefined when the namespace is unknown, read as no labels, as upstream's
 * `GetNamespaceLabelsSnapshot`) match the namespace selector; and the pod's labels match.
 */
export function termMatches(term: AffinityTerm, pod: Pod, nsLabels: Readonly<Record<string, string>> | undefined): boolean {
  const ns = pod.metadata?.namespace ?? '';
  if (!term.namespaces.has(ns) && !term.namespaceSelector.matches(nsLabels ?? {})) return false;
  return term.selector.matches(pod.metadata?.labels);
}
