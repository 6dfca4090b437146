import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { register } from 'prom-client';
import { CounterVec, exponentialBuckets, formatFloat, GaugeVec, HistogramVec, LiveSet } from './index.js';
import { parseExposition, scrape, valueOf } from './testing/index.js';

describe('formatFloat (Go strconv.FormatFloat(v, \'g\', -1, 64), as client_golang writes le)', () => {
  const cases: [number, string][] = [
    [0.005, '0.005'],
    [0.0001, '0.0001'],
    [1e-5, '1e-05'],
    [1e-8, '1e-08'],
    [1, '1'],
    [2.5, '2.5'],
    [60, '60'],
    [100000, '100000'],
    [1e6, '1e+06'],
    [1234567, '1.234567e+06'],
    [1e21, '1e+21'],
    [Infinity, '+Inf'],
    [0, '0'],
  ];
  for (const [v, want] of cases) test(`${v} → ${want}`, () => assert.equal(formatFloat(v), want));

  test("the workqueue buckets ExponentialBuckets(10e-9, 10, 10) read as a real kube-controller-manager's le values", () => {
    assert.deepEqual(exponentialBuckets(10e-9, 10, 10).map(formatFloat), [
      '1e-08',
      '1e-07',
      '1e-06',
      '9.999999999999999e-06',
      '9.999999999999999e-05',
      '0.001',
      '0.01',
      '0.1',
      '1',
      '10',
    ]);
  });

  test('ExponentialBuckets(0.001, 2, 15): the scheduler attempt buckets', () => {
    assert.deepEqual(exponentialBuckets(0.001, 2, 15).map(formatFloat), [
      '0.001', '0.002', '0.004', '0.008', '0.016', '0.032', '0.064', '0.128', '0.256', '0.512', '1.024', '2.048', '4.096', '8.192', '16.384',
    ]);
  });
});

describe('metric vectors in the default registry', () => {
  test('a counter: HELP with the stability level, labels sorted by name, one series per label set', async () => {
    const c = new CounterVec({ name: 'test_things_total', help: 'Things.', stabilityLevel: 'STABLE', labelNames: ['zeta', 'alpha'] as const });
    c.with('z1', 'a1').inc();
    c.with('z1', 'a1').inc(2);
    c.with('z2', 'a2').inc();
    const text = await register.getSingleMetricAsString('test_things_total');
    assert.equal(text, ['# HELP test_things_total [STABLE] Things.', '# TYPE test_things_total counter', 'test_things_total{alpha="a1",zeta="z1"} 3', 'test_things_total{alpha="a2",zeta="z2"} 1'].join('\n'));
    assert.throws(() => c.with('only-one'), /2 labels/);
  });

  test('a histogram: cumulative buckets with le last (upper bounds inclusive), +Inf, _sum and _count', async () => {
    const h = new HistogramVec({ name: 'test_latency_seconds', help: 'Latency.', stabilityLevel: 'ALPHA', labelNames: ['op'] as const, buckets: [0.1, 1, 1e6] });
    const child = h.with('get');
    for (const v of [0.05, 0.1, 0.5, 2, 5e6]) child.observe(v);
    const exp = parseExposition(await register.getSingleMetricAsString('test_latency_seconds'));
    assert.equal(exp.help.get('test_latency_seconds'), '[ALPHA] Latency.');
    assert.equal(exp.type.get('test_latency_seconds'), 'histogram');
    assert.deepEqual(
      exp.samples.map((s) => [s.name, s.labels['le'] ?? '', s.value]),
      [
        ['test_latency_seconds_bucket', '0.1', 2],
        ['test_latency_seconds_bucket', '1', 3],
        ['test_latency_seconds_bucket', '1e+06', 4],
        ['test_latency_seconds_bucket', '+Inf', 5],
        ['test_latency_seconds_sum', '', 0.05 + 0.1 + 0.5 + 2 + 5e6],
        ['test_latency_seconds_count', '', 5],
      ],
    );
    assert.match(await register.getSingleMetricAsString('test_latency_seconds'), /^test_latency_seconds_bucket\{op="get",le="0\.1"\} 2$/m);
  });

  test('a gauge computed at scrape time drops series that are gone', async () => {
    const live = new Map([['a', 1], ['b', 2]]);
    new GaugeVec({
      name: 'test_live_things',
      help: 'Live things.',
      stabilityLevel: 'ALPHA',
      labelNames: ['thing'] as const,
      collect: (g) => {
        for (const [k, v] of live) g.with(k).set(v);
      },
    });
    let exp = await scrape();
    assert.equal(valueOf(exp, 'test_live_things', { thing: 'b' }), 2);
    live.delete('b');
    live.set('a', 7);
    exp = await scrape();
    assert.equal(valueOf(exp, 'test_live_things', { thing: 'b' }), undefined);
    assert.equal(valueOf(exp, 'test_live_things', { thing: 'a' }), 7);
  });

  test('defining a metric again (a module loaded twice) replaces it instead of throwing', async () => {
    const first = new CounterVec({ name: 'test_twice_total', help: 'Twice.', stabilityLevel: 'ALPHA', labelNames: [] as const });
    first.with().inc(5);
    const second = new CounterVec({ name: 'test_twice_total', help: 'Twice.', stabilityLevel: 'ALPHA', labelNames: [] as const });
    second.with().inc();
    assert.equal(valueOf(await scrape(), 'test_twice_total'), 1);
  });
});

describe('LiveSet', () => {
  test('iterates what was added and not deleted, in order', () => {
    const set = new LiveSet<{ n: number }>();
    const a = { n: 1 };
    const b = { n: 2 };
    set.add(a);
    set.add(b);
    set.add(a);
    assert.deepEqual([...set].map((x) => x.n), [1, 2]);
    set.delete(a);
    assert.deepEqual([...set].map((x) => x.n), [2]);
  });
});
