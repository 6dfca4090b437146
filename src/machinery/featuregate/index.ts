/**
 * Feature gates: the alpha and beta features of Kubernetes that kubeplane implements behind a switch,
 * with the default they have in v1.33, set from `kubeplane up --feature-gates=Name=true,...` as
 * kube-apiserver and kube-controller-manager are.
 *
 * Follows k8s.io/component-base/featuregate/feature_gate.go: `Set` parses `key=value` pairs separated
 * by commas (blanks ignored, values as Go's strconv.ParseBool), with its error texts ("missing bool
 * value for X", "invalid value of X=y, err: strconv.ParseBool: parsing \"y\": invalid syntax",
 * "unrecognized feature gate: X", "cannot set feature gate X to false, feature is locked to true").
 * As upstream's `utilfeature.DefaultFeatureGate`, {@link defaultFeatureGate} is one process-wide gate
 * that the API strategies and the controllers read: a process serves one configuration. Tests that
 * change it restore it with {@link FeatureGate.reset}.
 *
 * Only gates kubeplane acts on are known; naming any other is "unrecognized", so a user never
 * believes a switch took effect when nothing reads it.
 */

/** How far a feature is (upstream `prerelease`). */
export type PreRelease = 'ALPHA' | 'BETA' | 'GA' | 'Deprecated';

/** A known feature: its v1.33 default, stage and whether it may be changed. */
export interface FeatureSpec {
  default: boolean;
  preRelease: PreRelease;
  lockToDefault?: boolean;
}

/**
 * The gates kubeplane honours, as in v1.33's pkg/features/kube_features.go:
 * - `MaxUnavailableStatefulSet` (alpha, off): StatefulSet `updateStrategy.rollingUpdate.maxUnavailable`
 *   is kept by the API and obeyed by the controller; off, the API drops a new value and the controller
 *   updates one pod at a time.
 * - `ListFromCacheSnapshot` (alpha, off in v1.33; beta and on from v1.34): lists at an exact
 *   resourceVersion and continue tokens are served from snapshots of the watch cache instead of
 *   storage when the cache still reaches that revision. On by default here, as from v1.34: the answers
 *   are the same either way, only their cost differs, and paging 100k pods by 500 from SQLite costs
 *   80 times what it costs from the cache (ADR 15).
 * - `WatchList` (beta, off in v1.33: on in 1.32, switched back off in 1.33): a watch may ask for
 *   `sendInitialEvents` (the streaming list); off, such a watch is 422 Invalid.
 */
export const KNOWN_FEATURES = {
  MaxUnavailableStatefulSet: { default: false, preRelease: 'ALPHA' },
  ListFromCacheSnapshot: { default: true, preRelease: 'ALPHA' },
  WatchList: { default: false, preRelease: 'BETA' },
} as const satisfies Record<string, FeatureSpec>;

/** A known feature's name. */
export type Feature = keyof typeof KNOWN_FEATURES;

/** Go's strconv.ParseBool: 1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False. */
function parseBool(s: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
  return undefined;
}

/** Which known features are on. */
export class FeatureGate {
  private enabledFeatures = new Map<Feature, boolean>();

  /** Whether `feature` is on (its v1.33 default unless set). */
  enabled(feature: Feature): boolean {
    return this.enabledFeatures.get(feature) ?? KNOWN_FEATURES[feature].default;
  }

  /**
   * Sets gates from a flag value, `Name=true,Other=false` (upstream `Set`). Throws an Error with
   * upstream's text on a missing or non-boolean value, an unknown name or a locked gate; nothing is
   * changed then.
   */
  set(value: string): void {
    const parsed = new Map<Feature, boolean>();
    for (const pair of value.split(',')) {
      if (pair.length === 0) continue;
      const eq = pair.indexOf('=');
      const key = (eq < 0 ? pair : pair.slice(0, eq)).trim();
      if (eq < 0) throw new Error(`missing bool value for ${key}`);
      const raw = pair.slice(eq + 1).trim();
      const on = parseBool(raw);
      if (on === undefined) throw new Error(`invalid value of ${key}=${raw}, err: strconv.ParseBool: parsing "${raw}": invalid syntax`);
      if (!Object.hasOwn(KNOWN_FEATURES, key)) throw new Error(`unrecognized feature gate: ${key}`);
      const feature = key as Feature;
      const spec: FeatureSpec = KNOWN_FEATURES[feature];
      if (spec.lockToDefault && spec.default !== on) throw new Error(`cannot set feature gate ${key} to ${on}, feature is locked to ${spec.default}`);
      parsed.set(feature, on);
    }
    for (const [f, on] of parsed) this.enabledFeatures.set(f, on);
  }

  /** Back to every default (for tests). */
  reset(): void {
    this.enabledFeatures.clear();
  }

  /** `Name=true,...` of the gates set away from nothing, sorted (upstream `String`). */
  toString(): string {
    return [...this.enabledFeatures].map(([f, on]) => `${f}=${on}`).sort().join(',');
  }
}

/** The process-wide gate (upstream `utilfeature.DefaultFeatureGate`). */
export const defaultFeatureGate = new FeatureGate();
