/**
 * Converting typed values between API versions for the merge Updater (managers whose sets were
 * recorded in another version). Follows k8s.io/apimachinery
 * pkg/util/managedfields/internal/versionconverter.go (v0.33.9).
 */
import type { KubeObject } from '../../api/index.js';
import type { Converter, TypedValue } from '../merge/index.js';
import { NoCorrespondingTypeError, parseGroupVersion, type TypeConverter } from './type-converter.js';

/**
 * Converts objects of one kind between its API versions (runtime.ObjectConvertor), supplied by the
 * API server. `convert` returns the object in `apiVersion` (`apps/v1`) and throws when it cannot;
 * `isMissingVersionError` says an error means that version is not served (its managers are dropped).
 */
export interface ObjectConverter {
  convert(obj: KubeObject, apiVersion: string): KubeObject;
  isMissingVersionError?(e: unknown): boolean;
}

/** The converter that only relabels `apiVersion` (one-version kinds and tests). */
export const sameVersionObjectConverter: ObjectConverter = {
  convert: (obj, apiVersion) => (obj.apiVersion === apiVersion ? obj : { ...obj, apiVersion }),
};

function groupVersionString(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/**
 * The merge Converter over an object converter (newVersionConverter / newCRDVersionConverter): an
 * object goes to the hub version and from there to the requested one. For built-in kinds the hub
 * is the hub's version in the object's own group; for custom resources (`crd`) the hub itself.
 */
export function newVersionConverter(typeConverter: TypeConverter, objectConverter: ObjectConverter, hubVersion: string, crd = false): Converter {
  const hub = parseGroupVersion(hubVersion);
  return {
    convert(tv: TypedValue, version: string): TypedValue {
      const obj = typeConverter.typedToObject(tv);
      const from = parseGroupVersion(obj.apiVersion ?? '');
      const to = parseGroupVersion(version);
      if (from.group === to.group && from.version === to.version) return tv;
      const hubGv = crd ? hubVersion : groupVersionString(from.group, hub.version);
      const internal = objectConverter.convert(obj, hubGv);
      const converted = objectConverter.convert(internal, groupVersionString(to.group, to.version));
      return typeConverter.objectToTyped(converted);
    },
    isMissingVersionError: (e: unknown) => e instanceof NoCorrespondingTypeError || objectConverter.isMissingVersionError?.(e) === true,
  };
}
