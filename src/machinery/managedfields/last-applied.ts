/**
 * The client-side apply annotation (`kubectl.kubernetes.io/last-applied-configuration`) and server-
 * side apply by `kubectl`: fields kubectl applied client-side can be taken over without a conflict,
 * and the annotation is kept in step with what is applied server-side. Follows k8s.io/apimachinery
 * pkg/util/managedfields/internal/lastapplied.go, lastappliedmanager.go and lastappliedupdater.go (v0.33.9).
 */
import type { KubeObject } from '../../api/index.js';
import type { FieldSet } from '../fieldpath/index.js';
import { valueToJson, type Value } from '../fieldpath/index.js';
import { Conflicts } from '../merge/index.js';
import { DelegatingManager, type Managed, type Manager, type ManagerResult } from './managed.js';
import { parseGroupVersion, type TypeConverter } from './type-converter.js';
import type { ObjectConverter } from './version-converter.js';

/** The annotation kubectl's client-side apply keeps its configuration in. */
export const LAST_APPLIED_CONFIG_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** The manager name kubectl applies with; only its applies touch the annotation. */
const KUBECTL = 'kubectl';

/** Upstream's limit on the total size of an object's annotations (TotalAnnotationSizeLimitB): 256 KiB. */
const TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * 1024;

/** Set the annotation in place (SetLastApplied); left out when the annotations would exceed their size limit. */
export function setLastApplied(obj: KubeObject, value: string): void {
  obj.metadata ??= {};
  const annotations: Record<string, string> = { ...(obj.metadata.annotations ?? {}) };
  annotations[LAST_APPLIED_CONFIG_ANNOTATION] = value;
  let size = 0;
  for (const [k, v] of Object.entries(annotations)) size += Buffer.byteLength(k) + Buffer.byteLength(v);
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT_B) delete annotations[LAST_APPLIED_CONFIG_ANNOTATION];
  obj.metadata.annotations = annotations;
}

function hasLastApplied(obj: KubeObject): boolean {
  const v = obj.metadata?.annotations?.[LAST_APPLIED_CONFIG_ANNOTATION];
  return v !== undefined && v.length > 0;
}

/**
 * The annotation's value for an applied configuration (buildLastApplied): the configuration without
 * the annotation, as encoding/json writes an unstructured object (keys sorted, HTML escaped) plus a newline.
 */
export function buildLastApplied(obj: KubeObject): string {
  const copy = structuredClone(obj);
  if (copy.metadata?.annotations !== undefined) {
    // Upstream deletes from the map it read; an annotations map left empty stays, as `{}`.
    const annotations = { ...copy.metadata.annotations };
    delete annotations[LAST_APPLIED_CONFIG_ANNOTATION];
    copy.metadata.annotations = annotations;
  }
  return valueToJson(copy as Value) + '\n';
}

/** After a successful apply by `kubectl` of an object that has the annotation, the annotation is the applied configuration (lastAppliedUpdater). */
export class LastAppliedUpdater extends DelegatingManager {
  override apply(liveObj: KubeObject, appliedObj: KubeObject, managed: Managed, manager: string, force: boolean): ManagerResult {
    const r = this.next.apply(liveObj, appliedObj, managed, manager, force);
    if (manager === KUBECTL && r.object !== undefined && hasLastApplied(r.object)) {
      setLastApplied(r.object, buildLastApplied(appliedObj));
    }
    return r;
  }
}

/**
 * An apply by `kubectl` whose conflicts are all on fields the live object still has as the
 * last-applied configuration says (so kubectl itself set them client-side) is forced
 * (lastAppliedManager); otherwise the conflicts outside those fields are reported.
 */
export class LastAppliedManager extends DelegatingManager {
  constructor(
    next: Manager,
    private readonly typeConverter: TypeConverter,
    private readonly objectConverter: ObjectConverter,
    private readonly groupVersion: string,
  ) {
    super(next);
  }

  override apply(liveObj: KubeObject, appliedObj: KubeObject, managed: Managed, manager: string, force: boolean): ManagerResult {
    try {
      return this.next.apply(liveObj, appliedObj, managed, manager, force);
    } catch (e) {
      if (manager !== KUBECTL || !(e instanceof Conflicts)) throw e;
      let allowed: FieldSet;
      try {
        allowed = this.allowedConflictsFromLastApplied(liveObj);
      } catch {
        throw e;
      }
      const conflictSet = e.toSet();
      if (!conflictSet.difference(allowed).empty()) throw new Conflicts(e.conflicts.filter((c) => !allowed.has(c.path)));
      return this.next.apply(liveObj, appliedObj, managed, manager, true);
    }
  }

  /** The fields of the last-applied configuration whose values the live object still has. Throws when there is no usable annotation. */
  private allowedConflictsFromLastApplied(liveObj: KubeObject): FieldSet {
    const lastApplied = liveObj.metadata?.annotations?.[LAST_APPLIED_CONFIG_ANNOTATION];
    if (lastApplied === undefined || lastApplied === '') throw new Error('no last applied annotation');
    const liveTyped = this.typeConverter.objectToTyped(this.objectConverter.convert(liveObj, this.groupVersion));
    let lastAppliedObj: unknown;
    try {
      lastAppliedObj = JSON.parse(lastApplied);
    } catch (err) {
      throw new Error(`failed to decode last applied obj: ${(err as Error).message} in '${lastApplied}'`, { cause: err });
    }
    if (typeof lastAppliedObj !== 'object' || lastAppliedObj === null || Array.isArray(lastAppliedObj)) throw new Error(`failed to decode last applied obj in '${lastApplied}'`);
    const apiVersion = (lastAppliedObj as KubeObject).apiVersion ?? '';
    const gv = parseGroupVersion(this.groupVersion);
    const want = gv.group === '' ? gv.version : `${gv.group}/${gv.version}`;
    if (apiVersion !== want) throw new Error(`expected version of last applied to match live object '${want}', but got '${apiVersion}'`);
    const lastTyped = this.typeConverter.objectToTyped(lastAppliedObj);
    const comparison = lastTyped.compare(liveTyped);
    return lastTyped.toFieldSet().difference(comparison.modified).difference(comparison.added).difference(comparison.removed);
  }
}
