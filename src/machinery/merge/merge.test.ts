/**
 * fieldpath/set_test.go TestEnsureNamedFieldsAreMembers (it needs a schema), merge/obsolete_versions_test.go,
 * conflicts
 * (sigs.k8s.io/structured-merge-diff/v4 merge/conflict_test.go and k8s.io/apimachinery
 * pkg/util/managedfields/internal/conflict_test.go, ported), validation texts, and server-side apply
 * on a built-in kind through the schema adapter: the field sets and FieldsV1 upstream records for a
 * Deployment, conflicts after a scale, force, shared ownership and pruning.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FieldSet, keyByFields, makePath, managedFieldsDifference, setToJson, type ManagedFields, type PathPart, type Value } from '../fieldpath/index.js';
import { parse } from 'yaml';
import { Parser, State } from './testing/fixture.js';
import { applyConflictMessage, builtinSchema, schemaFromDocument, conflictCauses, conflictsFromManagers, Conflicts, TypedValue, typeRefFor, Updater, ValidationErrors, zeroObject } from './index.js';

const P = makePath;
const NS = (...paths: PathPart[][]): FieldSet => FieldSet.of(...paths.map((p) => P(...p)));
const vs = (set: FieldSet, apiVersion = 'v1', applied = false) => ({ set, apiVersion, applied });

describe('fieldpath/set_test.go TestEnsureNamedFieldsAreMembers', () => {
  // set_test.go's nestedSchema: a type whose `named` and `list` fields are named, other keys map keys.
  const schema = schemaFromDocument(
    parse(`types:
- name: type
  map:
    elementType:
      namedType: type
    fields:
      - name: named
        type:
          namedType: type
      - name: list
        type:
          list:
            elementRelationShip: associative
            keys: ["name"]
            elementType:
              namedType: type
      - name: value
        type:
          scalar: numeric
`) as { types: { name: string }[] },
  );
  const tv = new TypedValue(null, schema, { namedType: 'type' });
  const table: [FieldSet, FieldSet][] = [
    [NS(['named', 'named', 'value']), NS(['named', 'named', 'value'], ['named', 'named'], ['named'])],
    [NS(['named', 'a', 'named', 'value'], ['a', 'named', 'value'], ['a', 'b', 'value']), NS(['named', 'a', 'named', 'value'], ['named', 'a', 'named'], ['named'], ['a', 'named', 'value'], ['a', 'named'], ['a', 'b', 'value'])],
    [NS(['named', 'list', keyByFields('name', 'a'), 'named', 'a', 'value']), NS(['named', 'list', keyByFields('name', 'a'), 'named', 'a', 'value'], ['named', 'list', keyByFields('name', 'a'), 'named'], ['named', 'list'], ['named'])],
  ];
  table.forEach(([set, want], i) => {
    test(`case ${i}`, () => {
      const got = tv.ensureNamedFieldsAreMembers(set);
      assert.ok(got.equals(want), `want\n${want.toString()}\ngot\n${got.toString()}`);
    });
  });
});

describe('merge/conflict_test.go', () => {
  const bobAndAlice = (): ManagedFields =>
    new Map([
      ['Bob', vs(NS(['key'], ['list', keyByFields('key', 'a', 'id', 2), 'id']))],
      ['Alice', vs(NS(['value'], ['list', keyByFields('key', 'a', 'id', 2), 'key']))],
    ]);

  test('TestNewFromSets', () => {
    assert.equal(conflictsFromManagers(bobAndAlice()).message, 'conflicts with "Alice":\n- .value\n- .list[id=2,key="a"].key\nconflicts with "Bob":\n- .key\n- .list[id=2,key="a"].id');
  });

  test('TestToSet', () => {
    const want = NS(['key'], ['value'], ['list', keyByFields('key', 'a', 'id', 2), 'id'], ['list', keyByFields('key', 'a', 'id', 2), 'key']);
    assert.ok(conflictsFromManagers(bobAndAlice()).toSet().equals(want));
  });

  test('TestConflictsFromManagers', () => {
    const c = conflictsFromManagers(new Map([['Bob', vs(NS(['obj', 'template', 'obj', 'list', keyByFields('name', 'a'), 'id'], ['obj', 'template', 'obj', 'list', keyByFields('name', 'a'), 'key']))]]));
    assert.equal(c.message, 'conflicts with "Bob":\n- .obj.template.obj.list[name="a"].id\n- .obj.template.obj.list[name="a"].key');
  });

  test('one conflict prints on one line', () => {
    assert.equal(new Conflicts([{ manager: 'kubectl', path: P('spec', 'replicas') }]).message, 'conflict with "kubectl": .spec.replicas');
  });
});

describe('apimachinery internal/conflict_test.go TestNewConflictError', () => {
  const foo = '{"manager":"foo","operation":"Update","apiVersion":"v1","time":"2001-02-03T04:05:06Z"}';
  test('one Update manager with a time', () => {
    const conflicts = [{ manager: foo, path: P('spec', 'replicas') }];
    assert.equal(applyConflictMessage(conflicts), 'Apply failed with 1 conflict: conflict with "foo" using v1 at 2001-02-03T04:05:06Z: .spec.replicas');
    assert.deepEqual(conflictCauses(conflicts), [{ type: 'FieldManagerConflict', message: 'conflict with "foo" using v1 at 2001-02-03T04:05:06Z', field: '.spec.replicas' }]);
  });

  test('two managers, sorted, an Apply manager without version', () => {
    const conflicts = [
      { manager: foo, path: P('spec', 'replicas') },
      { manager: '{"manager":"bar","operation":"Apply"}', path: P('metadata', 'labels', 'app') },
    ];
    assert.equal(applyConflictMessage(conflicts), 'Apply failed with 2 conflicts: conflicts with "bar":\n- .metadata.labels.app\nconflicts with "foo" using v1 at 2001-02-03T04:05:06Z:\n- .spec.replicas');
    assert.deepEqual(
      conflictCauses(conflicts).map((c) => c.message),
      ['conflict with "foo" using v1 at 2001-02-03T04:05:06Z', 'conflict with "bar"'],
    );
  });

  test('a subresource manager', () => {
    const conflicts = [{ manager: '{"manager":"foo","operation":"Update","subresource":"scale","apiVersion":"v1","time":"2001-02-03T04:05:06Z"}', path: P('spec', 'replicas') }];
    assert.equal(applyConflictMessage(conflicts), 'Apply failed with 1 conflict: conflict with "foo" with subresource "scale" using v1 at 2001-02-03T04:05:06Z: .spec.replicas');
  });

  test('a manager without time (as identifiers are) and a plain name', () => {
    assert.equal(applyConflictMessage([{ manager: '{"manager":"kubectl","operation":"Update","apiVersion":"apps/v1"}', path: P('spec', 'replicas') }]), 'Apply failed with 1 conflict: conflict with "kubectl" using apps/v1: .spec.replicas');
    assert.equal(applyConflictMessage([{ manager: 'plain', path: P('a') }]), 'Apply failed with 1 conflict: conflict with "plain": .a');
  });
});

type Obj = Record<string, Value>;
const deploymentType = typeRefFor('io.k8s.api.apps.v1.Deployment');
const typed = (v: Value, allowDuplicates = false): TypedValue => {
  const tv = new TypedValue(v, builtinSchema(), deploymentType);
  tv.validate({ allowDuplicates });
  return tv;
};

/** The Deployment of `kubectl create deployment web --image=nginx` style applies. */
function deployment(replicas: number, image: string, extraContainer?: Obj): Obj {
  const containers: Value[] = [{ name: 'nginx', image, ports: [{ containerPort: 80 }] }];
  if (extraContainer !== undefined) containers.push(extraContainer);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', labels: { app: 'web' } },
    spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers } } },
  };
}

describe('server-side apply of a Deployment through the schema adapter', () => {
  test('the applied set: atomic selector, list-map keys with the protocol default, no "." on struct fields', () => {
    const set = typed(deployment(2, 'nginx:1.27')).toFieldSet();
    assert.equal(
      setToJson(set),
      '{"f:apiVersion":{},"f:kind":{},"f:metadata":{"f:labels":{"f:app":{}},"f:name":{}},"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{}}}}}}}}}',
    );
  });

  test('an Update that creates: compared with the zero Deployment, maps and new pointers get ".", structs that existed do not', () => {
    const live = typed(zeroObject('io.k8s.api.apps.v1.Deployment'), true);
    const { managers } = new Updater().update(live, typed(deployment(1, 'nginx')), 'apps/v1', new Map(), 'kubectl-create');
    const set = managers.get('kubectl-create')?.set ?? new FieldSet();
    assert.equal(
      setToJson(set),
      '{"f:apiVersion":{},"f:kind":{},"f:metadata":{"f:labels":{".":{},"f:app":{}},"f:name":{}},"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{".":{},"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{}}}}}}}}}',
    );
    assert.deepEqual(zeroObject('io.k8s.api.apps.v1.Deployment'), { metadata: { creationTimestamp: null }, spec: { selector: null, template: { metadata: { creationTimestamp: null }, spec: { containers: null } }, strategy: {} }, status: {} });
  });

  test('conflict after a scale by another manager; force moves ownership; same value is shared', () => {
    const u = new Updater();
    const first = u.apply(typed(null), typed(deployment(2, 'nginx')), 'apps/v1', new Map(), 'applier', false);
    assert.ok(first.object !== undefined);
    let live = first.object;
    // `kubectl scale` (manager "kubectl") changes replicas.
    const scaledValue = structuredClone(live.value) as Obj;
    (scaledValue.spec as Obj).replicas = 5;
    const scaled = u.update(live, typed(scaledValue, true), 'apps/v1', first.managers, 'kubectl');
    live = scaled.object;
    assert.ok(scaled.managers.get('kubectl')?.set.equals(NS(['spec', 'replicas'])));
    assert.equal(scaled.managers.get('applier')?.set.has(P('spec', 'replicas')), false);

    // Re-applying replicas 2 conflicts with "kubectl" on .spec.replicas.
    assert.throws(
      () => u.apply(live, typed(deployment(2, 'nginx')), 'apps/v1', scaled.managers, 'applier', false),
      (e) => e instanceof Conflicts && e.message === 'conflict with "kubectl": .spec.replicas',
    );
    // Applying the live value (5) is no conflict: both own it.
    const shared = u.apply(live, typed(deployment(5, 'nginx')), 'apps/v1', scaled.managers, 'applier', false);
    assert.equal(shared.object, undefined, 'nothing changed');
    assert.ok(shared.managers.get('kubectl')?.set.has(P('spec', 'replicas')));
    assert.ok(shared.managers.get('applier')?.set.has(P('spec', 'replicas')));
    // Force takes the field: kubectl's set empties and the manager goes away.
    const forced = u.apply(live, typed(deployment(3, 'nginx')), 'apps/v1', scaled.managers, 'applier', true);
    assert.equal(((forced.object?.value as Obj).spec as Obj).replicas, 3);
    assert.equal(forced.managers.has('kubectl'), false);
    assert.equal(forced.managers.get('applier')?.applied, true);
  });

  test('a container no longer applied is removed, unless another manager owns it', () => {
    const u = new Updater();
    const sidecar = { name: 'sidecar', image: 'busybox' };
    const first = u.apply(typed(null), typed(deployment(1, 'nginx', sidecar)), 'apps/v1', new Map(), 'applier', false);
    const live = first.object ?? typed(null);
    const pruned = u.apply(live, typed(deployment(1, 'nginx')), 'apps/v1', first.managers, 'applier', false);
    const names = (tv: TypedValue | undefined): unknown => (((((tv?.value as Obj).spec as Obj).template as Obj).spec as Obj).containers as Obj[]).map((c) => c.name);
    assert.deepEqual(names(pruned.object), ['nginx']);

    // Another applier also applies the sidecar: it stays.
    const other = u.apply(live, typed({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { template: { spec: { containers: [sidecar] } } } }), 'apps/v1', first.managers, 'other', false);
    assert.equal(other.object, undefined, 'the sidecar is already there as applied');
    assert.ok(other.managers.get('other')?.set.has(P('spec', 'template', 'spec', 'containers', keyByFields('name', 'sidecar'))));
    const kept = u.apply(live, typed(deployment(1, 'nginx')), 'apps/v1', other.managers, 'applier', false);
    assert.equal(kept.object, undefined, 'nothing to prune: "other" owns the sidecar');
    assert.equal(kept.managers.get('applier')?.set.has(P('spec', 'template', 'spec', 'containers', keyByFields('name', 'sidecar'))), false);
  });

  test('duplicate list-map keys in an applied configuration fail validation with upstream text', () => {
    const d = deployment(1, 'nginx', { name: 'nginx', image: 'other' });
    assert.throws(() => typed(d), (e) => e instanceof ValidationErrors && e.message === '.spec.template.spec.containers: duplicate entries for key [name="nginx"]');
    // Live objects may hold duplicates (AllowDuplicates); their set owns the duplicated item whole.
    const set = typed(d, true).toFieldSet();
    assert.ok(set.has(P('spec', 'template', 'spec', 'containers', keyByFields('name', 'nginx'))));
    assert.equal(set.has(P('spec', 'template', 'spec', 'containers', keyByFields('name', 'nginx'), 'image')), false);
    assert.throws(() => typed({ spec: { replicas: 'two' } }), /\.spec\.replicas: expected numeric \(int or float\), got string/);
  });

  test('lists without +listType are atomic; patchMergeKey lists are map lists; set lists by value', () => {
    const atom = builtinSchema().resolve(typeRefFor('io.k8s.api.core.v1.Container'));
    const fieldType = (name: string) => atom?.map?.fields?.find((f) => f.name === name)?.type.inlined?.list;
    assert.equal(fieldType('args')?.elementRelationship, 'atomic');
    assert.deepEqual(fieldType('ports')?.keys, ['containerPort', 'protocol']);
    assert.deepEqual(fieldType('env')?.keys, ['name']);
    const meta = builtinSchema().resolve(typeRefFor('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'));
    const finalizers = meta?.map?.fields?.find((f) => f.name === 'finalizers')?.type.inlined?.list;
    assert.equal(finalizers?.elementRelationship, 'associative');
    assert.equal(finalizers?.keys, undefined);
    assert.throws(() => typeRefFor('io.k8s.api.apps.v1.NoSuchKind'), /no type found matching/);
  });
});

describe('merge/obsolete_versions_test.go', () => {
  /** specificVersionConverter: converts nothing, and only to the versions it accepts; any failure is a missing version. */
  const specificVersionConverter = (accepted: string[]) => ({
    accepted,
    convert(tv: TypedValue, version: string): TypedValue {
      if (!this.accepted.includes(version)) throw new Error(`Unknown version: ${version}`);
      return tv;
    },
    isMissingVersionError: (e: unknown) => e !== undefined,
  });

  test('TestObsoleteVersions: managers of a version that no longer exists are dropped', () => {
    const converter = specificVersionConverter(['v1', 'v2']);
    const state = new State(Parser.of(null, null), converter);
    state.update('{"v1": 0}', 'v1', 'v1');
    state.update('{"v1": 0, "v2": 0}', 'v2', 'v2');
    converter.accepted = ['v2', 'v3'];
    state.update('{"v1": 0, "v2": 0, "v3": 0}', 'v3', 'v3');
    const want: ManagedFields = new Map([
      ['v2', vs(NS(['v2']), 'v2')],
      ['v3', vs(NS(['v3']), 'v3')],
    ]);
    assert.equal(managedFieldsDifference(state.managers, want).size, 0, [...state.managers.keys()].join(','));
  });

  test('TestApplyObsoleteVersion: nothing is pruned for a set recorded in a version that no longer exists', () => {
    const converter = specificVersionConverter(['v1']);
    const schema = `types:
- name: sets
  map:
    fields:
    - name: list
      type:
        list:
          elementType:
            scalar: string
          elementRelationship: associative`;
    const state = new State(Parser.of(schema, 'sets'), converter);
    state.apply('{"list": ["a", "b", "c", "d"]}', 'v1', 'apply', false);
    converter.accepted = ['v2'];
    state.apply('{"list": ["a"]}', 'v2', 'apply', false);
    assert.deepEqual(state.liveIn('v2').value, { list: ['a', 'b', 'c', 'd'] });
  });
});
