/** Ported from k8s.io/apimachinery pkg/util/managedfields/internal/versionconverter_test.go (v0.33.9), plus missing versions. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../api/index.js';
import { builtinSchema } from '../merge/index.js';
import { builtinTypeConverter, NoCorrespondingTypeError, schemaTypeConverter } from './type-converter.js';
import { newVersionConverter, type ObjectConverter } from './version-converter.js';

const objForGroupVersion = (apiVersion: string): KubeObject => ({ apiVersion, kind: 'Deployment' });

describe('versionconverter_test.go', () => {
  it('TestVersionConverter', () => {
    const asked: string[] = [];
    // fakeObjectConvertorForTestSchema: the fixed object of each version, whatever the input.
    const oc: ObjectConverter = {
      convert: (_obj, apiVersion) => {
        asked.push(apiVersion);
        return objForGroupVersion(apiVersion);
      },
    };
    const tc = builtinTypeConverter();
    const vc = newVersionConverter(tc, oc, 'apps/__internal');
    const output = vc.convert(tc.objectToTyped(objForGroupVersion('apps/v1beta1')), 'apps/v1');
    assert.deepEqual(tc.typedToObject(output), objForGroupVersion('apps/v1'));
    assert.deepEqual(asked, ['apps/__internal', 'apps/v1'], 'through the hub version of the object group');
  });

  it('the same version is not converted', () => {
    const oc: ObjectConverter = { convert: () => assert.fail('not called') };
    const tc = builtinTypeConverter();
    const input = tc.objectToTyped(objForGroupVersion('apps/v1'));
    assert.equal(newVersionConverter(tc, oc, 'apps/__internal').convert(input, 'apps/v1'), input);
  });

  it('CRDs convert through the hub itself; a version without a type is a missing version', () => {
    const asked: string[] = [];
    const oc: ObjectConverter = {
      convert: (obj, apiVersion) => {
        asked.push(apiVersion);
        return { ...obj, apiVersion };
      },
    };
    const tc = schemaTypeConverter(builtinSchema(), (apiVersion) => (apiVersion === 'example.com/v2' ? undefined : { namedType: '__untyped_deduced_' }));
    const vc = newVersionConverter(tc, oc, 'example.com/v1', true);
    let err: unknown;
    try {
      vc.convert(tc.objectToTyped({ apiVersion: 'example.com/v1beta1', kind: 'Widget' }), 'example.com/v2');
    } catch (e) {
      err = e;
    }
    assert.deepEqual(asked, ['example.com/v1', 'example.com/v2']);
    assert.ok(err instanceof NoCorrespondingTypeError);
    assert.equal(err.message, 'no corresponding type for example.com/v2, Kind=Widget');
    assert.equal(vc.isMissingVersionError(err), true);
    assert.equal(vc.isMissingVersionError(new Error('other')), false);
  });
});
