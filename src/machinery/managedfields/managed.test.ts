/**
 * Ported from k8s.io/apimachinery pkg/util/managedfields/internal/managedfields_test.go,
 * fields_test.go and pathelement_test.go (v0.33.9).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { FieldSet, makePath } from '../fieldpath/index.js';
import { buildManagerIdentifier, decodeManagedFields, EMPTY_FIELDS, encodeManagedFields, entryGoString, fieldsToSet, setToFields, sortEncodedManagedFields, type ManagedFieldsEntry } from './managed.js';
import { newPathElement, pathElementString } from './pathelement.js';

const valid = '- apiVersion: v1\n  fieldsType: FieldsV1\n  fieldsV1:\n    f:field: {}\n  manager: foo\n  operation: Apply\n';

function decodeYaml(y: string): void {
  decodeManagedFields(parse(y));
}

describe('managedfields_test.go', () => {
  it('TestHasFieldsType', () => {
    decodeYaml(valid);
    assert.throws(() => decodeYaml(valid.replace('FieldsV1\n', 'FieldsV2\n')), /^Error: invalid fieldsType "FieldsV2" in managed fields entry 0$/);
    assert.throws(() => decodeYaml(valid.replace('  fieldsType: FieldsV1\n', '')), /^Error: missing fieldsType in managed fields entry 0$/);
  });

  it('TestHasAPIVersion', () => {
    decodeYaml(valid);
    assert.throws(() => decodeYaml(valid.replace('- apiVersion: v1\n  fieldsType', '- fieldsType')), /^Error: apiVersion must not be empty$/);
  });

  it('TestHasOperation', () => {
    decodeYaml(valid);
    assert.throws(() => decodeYaml(valid.replace('operation: Apply', 'operation: Invalid')), /^Error: operation must be `Apply` or `Update`$/);
    assert.throws(() => decodeYaml(valid.replace('  operation: Apply\n', '')), /operation must be `Apply` or `Update`/);
  });

  const roundTrips = [
    'null\n',
    `- apiVersion: v1
  fieldsType: FieldsV1
  fieldsV1:
    v:3:
      f:alsoPi: {}
    v:3.1415:
      f:pi: {}
    v:false:
      f:notTrue: {}
  manager: foo
  operation: Update
  time: "2001-02-03T04:05:06Z"
- apiVersion: v1beta1
  fieldsType: FieldsV1
  fieldsV1:
    i:5:
      f:i: {}
  manager: foo
  operation: Update
  time: "2011-12-13T14:15:16Z"
`,
    `- apiVersion: v1
  fieldsType: FieldsV1
  fieldsV1:
    f:spec:
      f:containers:
        k:{"name":"c"}:
          f:image: {}
          f:name: {}
  manager: foo
  operation: Apply
`,
    `- apiVersion: v1
  fieldsType: FieldsV1
  fieldsV1:
    f:apiVersion: {}
    f:kind: {}
    f:metadata:
      f:labels:
        f:app: {}
      f:name: {}
    f:spec:
      f:replicas: {}
      f:selector:
        f:matchLabels:
          f:app: {}
      f:template:
        f:medatada:
          f:labels:
            f:app: {}
        f:spec:
          f:containers:
            k:{"name":"nginx"}:
              .: {}
              f:image: {}
              f:name: {}
              f:ports:
                i:0:
                  f:containerPort: {}
  manager: foo
  operation: Update
`,
    `- apiVersion: v1
  fieldsType: FieldsV1
  fieldsV1:
    f:allowVolumeExpansion: {}
    f:apiVersion: {}
    f:kind: {}
    f:metadata:
      f:name: {}
      f:parameters:
        f:resturl: {}
        f:restuser: {}
        f:secretName: {}
        f:secretNamespace: {}
    f:provisioner: {}
  manager: foo
  operation: Apply
`,
    `- apiVersion: v1
  fieldsType: FieldsV1
  fieldsV1:
    f:apiVersion: {}
    f:kind: {}
    f:metadata:
      f:name: {}
    f:spec:
      f:group: {}
      f:names:
        f:kind: {}
        f:plural: {}
        f:shortNames:
          i:0: {}
        f:singular: {}
      f:scope: {}
      f:versions:
        k:{"name":"v1"}:
          f:name: {}
          f:served: {}
          f:storage: {}
  manager: foo
  operation: Update
`,
    `- apiVersion: v1
  fieldsType: FieldsV1
  fieldsV1:
    f:spec:
      f:replicas: {}
  manager: foo
  operation: Update
  subresource: scale
`,
  ];
  for (const [i, text] of roundTrips.entries()) {
    it(`TestRoundTripManagedFields #${i}`, () => {
      const encoded = encodeManagedFields(decodeManagedFields(parse(text)));
      assert.deepEqual(encoded ?? null, parse(text));
      // Keys come in metav1.ManagedFieldsEntry's order, and FieldsV1 keys sorted.
      for (const e of encoded ?? []) {
        const keys = Object.keys(e);
        const order = ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource'];
        assert.deepEqual(keys, order.filter((k) => keys.includes(k)));
      }
    });
  }

  for (const [entry, expected] of [
    ['apiVersion: v1\nfieldsV1:\n  f:apiVersion: {}\nmanager: foo\noperation: Update\ntime: "2001-02-03T04:05:06Z"\n', '{"manager":"foo","operation":"Update","apiVersion":"v1"}'],
    ['apiVersion: v1\nfieldsV1:\n  f:apiVersion: {}\nmanager: foo\noperation: Apply\ntime: "2001-02-03T04:05:06Z"\n', '{"manager":"foo","operation":"Apply"}'],
    ['apiVersion: v1\nfieldsV1:\n  f:apiVersion: {}\nmanager: foo\noperation: Apply\nsubresource: scale\ntime: "2001-02-03T04:05:06Z"\n', '{"manager":"foo","operation":"Apply","subresource":"scale"}'],
  ] as const) {
    it(`TestBuildManagerIdentifier ${expected}`, () => {
      assert.equal(buildManagerIdentifier(parse(entry) as ManagedFieldsEntry), expected);
    });
  }

  const A = (manager: string, time?: string, subresource?: string): ManagedFieldsEntry => ({ manager, operation: 'Apply', ...(time !== undefined ? { time } : {}), ...(subresource !== undefined ? { subresource } : {}) });
  const U = (manager: string, time?: string): ManagedFieldsEntry => ({ manager, operation: 'Update', ...(time !== undefined ? { time } : {}) });
  const t1 = '2001-01-01T01:00:00Z';
  const t2 = '2002-01-01T01:00:00Z';
  const t3 = '2003-01-01T01:00:00Z';
  const sortCases: [string, ManagedFieldsEntry[], ManagedFieldsEntry[]][] = [
    ['empty', [], []],
    ['remains untouched', [A('a'), U('a', t1)], [A('a'), U('a', t1)]],
    ['manager without time first', [A('a'), A('a', t1)], [A('a'), A('a', t1)]],
    ['manager without time first name last', [A('a', t1), A('b'), A('a')], [A('a'), A('b'), A('a', t1)]],
    ['apply first', [U('a', t1), A('a')], [A('a'), U('a', t1)]],
    ['newest last', [U('c', t1), A('a'), U('c', t2), A('b')], [A('a'), A('b'), U('c', t1), U('c', t2)]],
    ['manager last', [U('c', t1), A('a'), U('d', t1), A('b')], [A('a'), A('b'), U('c', t1), U('d', t1)]],
    [
      'manager sorted',
      [U('c', t1), A('a'), A('g'), U('f', t2), A('i'), U('d', t2), A('h'), U('e', t3), A('b')],
      [A('a'), A('b'), A('g'), A('h'), A('i'), U('c', t1), U('d', t2), U('f', t2), U('e', t3)],
    ],
    [
      'sort drops nanoseconds',
      [U('c', '1999-12-31T00:00:00.000000001Z'), U('a', '1999-12-31T00:00:00.000000002Z'), U('b', '1999-12-31T00:00:00.000000003Z')],
      [U('a', '1999-12-31T00:00:00.000000002Z'), U('b', '1999-12-31T00:00:00.000000003Z'), U('c', '1999-12-31T00:00:00.000000001Z')],
    ],
    ['entries with subresource field', [A('a', undefined, 'status'), A('a', undefined, 'scale'), A('a')], [A('a'), A('a', undefined, 'scale'), A('a', undefined, 'status')]],
  ];
  for (const [name, input, expected] of sortCases) {
    it(`TestSortEncodedManagedFields ${name}`, () => {
      assert.deepEqual(sortEncodedManagedFields(input), expected);
    });
  }

  it('decoding errors name the entry as Go prints it', () => {
    assert.throws(
      () => decodeManagedFields([{ manager: 'foo', operation: 'Update', apiVersion: 'v1', time: '2001-02-03T04:05:06Z', fieldsType: 'FieldsV1', fieldsV1: { 'k:{invalid json}': {} } }]),
      /^Error: error decoding versioned set from \{foo Update v1 2001-02-03 04:05:06 \+0000 UTC FieldsV1 \{"k:\{invalid json\}":\{\}\} \}: error decoding set: /,
    );
    assert.equal(entryGoString({ manager: 'm', operation: 'Apply', apiVersion: 'v1' }), '{m Apply v1 <nil>  <nil> }');
  });

  it('identifiers escape as encoding/json does', () => {
    assert.equal(buildManagerIdentifier({ manager: 'a<b>&"c', operation: 'Update', apiVersion: 'apps/v1', subresource: 'status' }), '{"manager":"a\\u003cb\\u003e\\u0026\\"c","operation":"Update","apiVersion":"apps/v1","subresource":"status"}');
  });
});

describe('fields_test.go', () => {
  it('TestFieldsRoundTrip', () => {
    for (const f of [{ 'f:metadata': { '.': {}, 'f:name': {} } }, EMPTY_FIELDS]) assert.deepEqual(setToFields(fieldsToSet(f)), f);
  });

  it('TestFieldsToSetError', () => {
    assert.throws(() => fieldsToSet({ 'k:{invalid json}': { 'f:name': {}, '.': {} } }));
  });

  it('TestSetToFieldsError', () => {
    assert.throws(() => setToFields(FieldSet.of([{}, ...makePath('ok')])), /invalid PathElement/);
  });
});

describe('pathelement_test.go', () => {
  for (const s of ['i:0', 'i:1234', 'f:', 'f:spec', 'f:more-complicated-string', 'k:{"name":"my-container"}', 'k:{"port":"8080","protocol":"TCP"}', 'k:{"optionalField":null}', 'k:{"jsonField":{"A":1,"B":null,"C":"D","E":{"F":"G"}}}', 'k:{"listField":["1","2","3"]}', 'v:null', 'v:"some-string"', 'v:1234', 'v:{"some":"json"}']) {
    it(`TestPathElementRoundTrip ${s}`, () => {
      const pe = newPathElement(s);
      assert.ok(pe !== undefined);
      assert.equal(pathElementString(pe), s);
    });
  }

  it('TestPathElementIgnoreUnknown', () => {
    assert.equal(newPathElement('r:Hello'), undefined);
  });

  for (const s of ['', 'no-colon', 'i:index is not a number', 'i:1.23', 'i:', 'v:invalid json', 'v:', 'k:invalid json', 'k:{"name":invalid}']) {
    it(`TestNewPathElementError ${JSON.stringify(s)}`, () => {
      assert.throws(() => newPathElement(s));
    });
  }
});

describe('decoded sets are shared for frozen FieldsV1 (ours, not upstream\'s)', () => {
  const entries = (fieldsV1: object): ManagedFieldsEntry[] => [{ manager: 'm', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1 }];
  const setOf = (e: ManagedFieldsEntry[]): FieldSet | undefined => decodeManagedFields(e).fields.get(buildManagerIdentifier(e[0] as ManagedFieldsEntry))?.set;

  it('a frozen FieldsV1 decodes to the same set each time; an unfrozen one is parsed again', () => {
    const frozen = Object.freeze({ 'f:data': Object.freeze({ 'f:a': Object.freeze({}) }) });
    const first = setOf(entries(frozen));
    assert.ok(first);
    assert.equal(setOf(entries(frozen)), first);
    const open = { 'f:data': { 'f:a': {} } };
    assert.notEqual(setOf(entries(open)), setOf(entries(open)));
  });

  it('an encoded set, once its FieldsV1 is frozen with the object, decodes to that set; unchanged sets keep their FieldsV1', () => {
    const managed = decodeManagedFields(entries({ 'f:data': { 'f:b': {} } }));
    const encoded = encodeManagedFields(managed) as ManagedFieldsEntry[];
    const fieldsV1 = encoded[0]?.fieldsV1 as object;
    Object.freeze(fieldsV1);
    const set = setOf(encoded);
    assert.equal(set, managed.fields.values().next().value?.set);
    assert.equal((encodeManagedFields(decodeManagedFields(encoded)) as ManagedFieldsEntry[])[0]?.fieldsV1, fieldsV1);
  });
});
