/**
 * Prometheus metrics with upstream's names, cheap enough for the hot path, exposed through
 * prom-client's default registry (served at `/metrics` with everything else registered there).
 *
 * Why not prom-client's own Counter and Histogram: even a child from `.labels(…)` hashes its label
 * values into a string and validates them on every `inc()`/`observe()` — about 1.7 µs for an
 * apiserver request's nine labels, where the request itself takes a few µs in process. Here a child is
 * a plain object: `inc()` adds to a field, `observe()` adds to a bucket; finding a child is one Map
 * lookup per label value ({@link Vec.with}), and the hot callers keep the child they found.
 *
 * The exposition follows k8s.io/component-base/metrics over client_golang, so a scrape reads as
 * kube-apiserver's does:
 * - help texts carry the stability level, `[STABLE] Counter of apiserver requests …`
 *   (component-base `annotateStabilityLevel`);
 * - labels are written sorted by name, a histogram's `le` last;
 * - `le` values are formatted as Go's `strconv.FormatFloat(v, 'g', -1, 64)` (`1e-08`,
 *   `9.999999999999999e-06`, `0.005`, `1e+06`), and buckets built by {@link exponentialBuckets} are
 *   the very doubles client_golang's `ExponentialBuckets` computes.
 *
 * Metrics are process-global, like upstream's legacyregistry: define each once at module level.
 * Defining a second metric of the same name replaces the first in the registry (a module loaded
 * twice must not throw).
 */
import { collectDefaultMetrics, register, type Metric } from 'prom-client';

/** component-base's stability levels, written in front of the help text. */
export type StabilityLevel = 'ALPHA' | 'BETA' | 'STABLE';

/** What every metric declares. */
export interface MetricOptions<L extends string> {
  /** The full name, e.g. `apiserver_request_total`. */
  name: string;
  /** Upstream's help text, without the stability prefix. */
  help: string;
  stabilityLevel: StabilityLevel;
  labelNames: readonly L[];
}

/** One exposed sample, in the shape prom-client's registry formats. */
interface Sample {
  metricName?: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * Formats a float as Go's `strconv.FormatFloat(v, 'g', -1, 64)` — the shortest digits that read back
 * as `v`, in exponent form when the exponent is below -4 or at least 6 — which is how client_golang
 * writes `le` labels.
 */
export function formatFloat(v: number): string {
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (Number.isNaN(v)) return 'NaN';
  if (v === 0) return '0';
  const [mantissa, e] = v.toExponential().split('e') as [string, string];
  const exp = Number(e);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(v);
}

/** client_golang's `ExponentialBuckets(start, factor, count)`: `start`, then each bucket times `factor`. */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  const buckets: number[] = [];
  for (let i = 0; i < count; i++) {
    buckets.push(start);
    start *= factor;
  }
  return buckets;
}

/**
 * A metric with labels: its children by label values. Subclasses say what a child is and how it is
 * exposed.
 */
abstract class Vec<C, L extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  abstract readonly type: 'counter' | 'gauge' | 'histogram';
  readonly aggregator = 'sum';
  /** label value → (next label's map | the child, for the last label). */
  private root = new Map<string, unknown>();
  /** The children with their label values, in creation order. */
  private entries: { values: readonly string[]; child: C }[] = [];
  /** The child of a metric without labels. */
  private single: C | undefined;
  /** Label indexes in name order (the exposition's order). */
  private readonly sortedIndexes: number[];

  constructor(opts: MetricOptions<L>) {
    this.name = opts.name;
    this.help = `[${opts.stabilityLevel}] ${opts.help}`;
    this.labelNames = opts.labelNames;
    this.sortedIndexes = opts.labelNames.map((_, i) => i).sort((a, b) => ((opts.labelNames[a] as string) < (opts.labelNames[b] as string) ? -1 : 1));
    if (register.getSingleMetric(this.name)) register.removeSingleMetric(this.name);
    register.registerMetric(this as unknown as Metric);
  }

  protected abstract newChild(): C;
  protected abstract samples(labels: Record<string, string>, child: C, out: Sample[]): void;

  /**
   * The child of these label values (one per label name, in {@link MetricOptions.labelNames} order),
   * created on first use. Callers on a hot path keep the child rather than asking again.
   */
  with(...values: string[]): C {
    const n = values.length;
    if (n !== this.labelNames.length) throw new Error(`${this.name}: ${n} label values for ${this.labelNames.length} labels (${this.labelNames.join(', ')})`);
    if (n === 0) return (this.single ??= this.add(values));
    let m = this.root;
    for (let i = 0; i < n - 1; i++) {
      const v = values[i] as string;
      let next = m.get(v) as Map<string, unknown> | undefined;
      if (!next) {
        next = new Map();
        m.set(v, next);
      }
      m = next;
    }
    const last = values[n - 1] as string;
    let child = m.get(last) as C | undefined;
    if (child === undefined) {
      child = this.add(values);
      m.set(last, child);
    }
    return child;
  }

  private add(values: readonly string[]): C {
    const child = this.newChild();
    this.entries.push({ values: [...values], child });
    return child;
  }

  /** Drops every child (children kept by callers keep counting, unexposed). */
  reset(): void {
    this.root = new Map();
    this.entries = [];
    this.single = undefined;
  }

  /** Called before every scrape; gauges computed at scrape time set their children here. */
  protected collect(): void {}

  /** prom-client's registry reads this at every scrape. */
  get(): { name: string; help: string; type: string; aggregator: string; values: Sample[] } {
    this.collect();
    const values: Sample[] = [];
    for (const { values: lv, child } of this.entries) {
      const labels: Record<string, string> = {};
      for (const i of this.sortedIndexes) labels[this.labelNames[i] as string] = lv[i] as string;
      this.samples(labels, child, values);
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

/** A monotonically increasing count. */
export class CounterChild {
  value = 0;

  inc(n = 1): void {
    this.value += n;
  }
}

/** A Prometheus counter vector (`…_total`). */
export class CounterVec<L extends string = string> extends Vec<CounterChild, L> {
  readonly type = 'counter';

  protected newChild(): CounterChild {
    return new CounterChild();
  }

  protected samples(labels: Record<string, string>, child: CounterChild, out: Sample[]): void {
    out.push({ labels, value: child.value });
  }
}

/** A value that goes up and down. */
export class GaugeChild {
  value = 0;

  set(v: number): void {
    this.value = v;
  }

  inc(n = 1): void {
    this.value += n;
  }

  dec(n = 1): void {
    this.value -= n;
  }
}

/** Options of a {@link GaugeVec}. */
export interface GaugeOptions<L extends string> extends MetricOptions<L> {
  /**
   * Computes the gauge at scrape time: the vector is emptied, then `collect` sets the children that
   * exist now (so series of things that went away disappear, as with upstream's `Reset` + `Set`).
   */
  collect?: (gauge: GaugeVec<L>) => void;
}

/** A Prometheus gauge vector, set as things change or computed at scrape time. */
export class GaugeVec<L extends string = string> extends Vec<GaugeChild, L> {
  readonly type = 'gauge';
  private readonly collector: ((gauge: GaugeVec<L>) => void) | undefined;

  constructor(opts: GaugeOptions<L>) {
    super(opts);
    this.collector = opts.collect;
  }

  protected override collect(): void {
    if (!this.collector) return;
    this.reset();
    this.collector(this);
  }

  protected newChild(): GaugeChild {
    return new GaugeChild();
  }

  protected samples(labels: Record<string, string>, child: GaugeChild, out: Sample[]): void {
    out.push({ labels, value: child.value });
  }
}

/** Observations counted into buckets (upper bounds inclusive), with their sum and count. */
export class HistogramChild {
  /** Observations per bucket (not cumulative); the last slot counts those above every bound. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(v: number): void {
    const bounds = this.bounds;
    const n = bounds.length;
    let i = 0;
    while (i < n && v > (bounds[i] as number)) i++;
    this.counts[i] = (this.counts[i] as number) + 1;
    this.sum += v;
    this.count++;
  }
}

/** Options of a {@link HistogramVec}. */
export interface HistogramOptions<L extends string> extends MetricOptions<L> {
  /** Upper bounds, ascending (the `+Inf` bucket is implicit). */
  buckets: readonly number[];
}

/** A Prometheus histogram vector: `_bucket{le}` (cumulative), `_sum`, `_count`. */
export class HistogramVec<L extends string = string> extends Vec<HistogramChild, L> {
  readonly type = 'histogram';
  readonly buckets: readonly number[];
  private readonly les: readonly string[];

  constructor(opts: HistogramOptions<L>) {
    super(opts);
    this.buckets = [...opts.buckets];
    this.les = [...this.buckets.map(formatFloat), '+Inf'];
  }

  protected newChild(): HistogramChild {
    return new HistogramChild(this.buckets);
  }

  protected samples(labels: Record<string, string>, child: HistogramChild, out: Sample[]): void {
    let cumulative = 0;
    const bucket = `${this.name}_bucket`;
    for (let i = 0; i < this.les.length; i++) {
      cumulative += child.counts[i] as number;
      out.push({ metricName: bucket, labels: { ...labels, le: this.les[i] as string }, value: cumulative });
    }
    out.push({ metricName: `${this.name}_sum`, labels, value: child.sum });
    out.push({ metricName: `${this.name}_count`, labels, value: child.count });
  }
}

/**
 * A set of live objects that scrape-time gauges read (queues, API servers): held weakly, so an object
 * nobody else references leaves the set without being removed explicitly.
 */
export class LiveSet<T extends object> {
  private readonly refs = new Set<WeakRef<T>>();
  private readonly byObject = new WeakMap<T, WeakRef<T>>();

  add(obj: T): void {
    if (this.byObject.has(obj)) return;
    const ref = new WeakRef(obj);
    this.byObject.set(obj, ref);
    this.refs.add(ref);
  }

  delete(obj: T): void {
    const ref = this.byObject.get(obj);
    if (!ref) return;
    this.refs.delete(ref);
    this.byObject.delete(obj);
  }

  /** The live objects, in the order they were added. */
  *[Symbol.iterator](): IterableIterator<T> {
    for (const ref of this.refs) {
      const obj = ref.deref();
      if (obj === undefined) this.refs.delete(ref);
      else yield obj;
    }
  }
}

let defaultMetricsStarted = false;

/**
 * Starts prom-client's default collectors — `process_*` (CPU, resident memory, open fds, start time)
 * and `nodejs_*` (heap, event loop lag, GC) — once per process; later calls do nothing. They take the
 * place of client_golang's process and Go collectors.
 */
export function collectProcessMetrics(): void {
  if (defaultMetricsStarted) return;
  defaultMetricsStarted = true;
  if (register.getSingleMetric('process_cpu_user_seconds_total')) return;
  collectDefaultMetrics();
}
