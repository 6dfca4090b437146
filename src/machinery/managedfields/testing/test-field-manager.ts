/**
 * The field manager of upstream's tests, holding a live object: k8s.io/apimachinery
 * pkg/util/managedfields/internal/testing/testfieldmanager.go and managedfieldstest (v0.33.9).
 * Objects are never converted (FakeObjectConvertor), defaults never set, the empty object is
 * `{apiVersion, kind}` (FakeObjectCreater), and the chain is the default one without the cap on
 * update managers unless `chain` wraps it. Types come from our built-in schema instead of
 * upstream's swagger.json.
 */
import { parse } from 'yaml';
import type { KubeObject } from '../../../api/index.js';
import { FakeClock } from '../../../util/clock/index.js';
import { FieldManager } from '../field-manager.js';
import { LastAppliedManager, LastAppliedUpdater } from '../last-applied.js';
import type { ManagedFieldsEntry, Manager } from '../managed.js';
import { ManagedFieldsUpdater } from '../managed-fields-updater.js';
import { BuildManagerInfoManager } from '../build-manager-info.js';
import { SkipNonAppliedManager } from '../skip-non-applied.js';
import { StripMetaManager } from '../strip-meta.js';
import { StructuredMergeManager } from '../structured-merge.js';
import { builtinTypeConverter, type TypeConverter } from '../type-converter.js';
import { VersionCheckManager } from '../version-check.js';
import { sameVersionObjectConverter } from '../version-converter.js';

/** A YAML (or JSON) document as an object, as sigs.k8s.io/yaml reads it. */
export function obj(text: string): KubeObject {
  return parse(text) as KubeObject;
}

/** The test field manager (TestFieldManagerImpl). */
export class TestFieldManager {
  readonly clock = new FakeClock();
  private readonly fieldManager: FieldManager;
  private readonly emptyObj: KubeObject;
  private liveObj: KubeObject;

  constructor(
    readonly apiVersion: string,
    readonly kind: string,
    opts: { subresource?: string; typeConverter?: TypeConverter; chain?: (m: Manager) => Manager } = {},
  ) {
    const typeConverter = opts.typeConverter ?? builtinTypeConverter();
    const subresource = opts.subresource ?? '';
    const creater = (): KubeObject => ({ apiVersion, kind });
    let m: Manager = new StructuredMergeManager({ typeConverter, objectConverter: sameVersionObjectConverter, defaulter: () => undefined, groupVersion: apiVersion, hubVersion: apiVersion });
    m = new VersionCheckManager(
      new LastAppliedUpdater(
        new LastAppliedManager(
          new SkipNonAppliedManager(new BuildManagerInfoManager(new ManagedFieldsUpdater(new StripMetaManager(m), this.clock), apiVersion, subresource), creater),
          typeConverter,
          sameVersionObjectConverter,
          apiVersion,
        ),
      ),
      apiVersion,
      kind,
    );
    if (opts.chain !== undefined) m = opts.chain(m);
    this.fieldManager = new FieldManager({ manager: m, subresource });
    this.emptyObj = creater();
    this.liveObj = structuredClone(this.emptyObj);
  }

  /** Back to the empty object. */
  reset(): void {
    this.liveObj = structuredClone(this.emptyObj);
  }

  /** A copy of the live object. */
  live(): KubeObject {
    return structuredClone(this.liveObj);
  }

  /** Apply on top of the live object; the live object changes only on success. Throws what the field manager throws. */
  apply(o: KubeObject, manager: string, force: boolean): void {
    this.liveObj = this.fieldManager.apply(this.liveObj, o, manager, force);
  }

  /** Record an update of the live object to `o`. */
  update(o: KubeObject, manager: string): void {
    this.liveObj = this.fieldManager.update(this.liveObj, o, manager);
  }

  /** The live object's managedFields (empty when none). */
  managedFields(): ManagedFieldsEntry[] {
    return (this.liveObj.metadata?.managedFields ?? []);
  }
}
