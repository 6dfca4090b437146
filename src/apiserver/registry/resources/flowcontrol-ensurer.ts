/**
 * The API Priority and Fairness config producer's create-or-update of the bootstrap objects, as
 * pkg/registry/flowcontrol/ensurer (EnsureConfigurations with the suggested and mandatory strategies)
 * does it at start-up: a missing object is created; an existing one gets the bootstrap spec back when
 * it differs and either it is mandatory or its `apf.kubernetes.io/autoupdate-spec` annotation says
 * so (a boolean; without one, when the object was never changed: generation 1).
 */
import type { KubeObject } from '../../../api/index.js';
import { isAlreadyExists, isConflict } from '../../../machinery/errors/index.js';
import type { Store } from '../generic/store.js';
import { AUTO_UPDATE_ANNOTATION_KEY } from './flowcontrol-bootstrap.js';
import { semanticDeepEqual } from './helpers.js';

/** A bootstrap object: a name and a spec. */
interface BootstrapObject {
  metadata?: { name?: string };
  spec?: unknown;
}

const TRUE_VALUES = ['1', 't', 'T', 'TRUE', 'true', 'True'];
const FALSE_VALUES = ['0', 'f', 'F', 'FALSE', 'false', 'False'];

/** `shouldUpdateSpec`: the annotation as Go's `strconv.ParseBool` reads it, else whether generation is 1. */
export function shouldUpdateSpec(obj: KubeObject): boolean {
  const value = obj.metadata?.annotations?.[AUTO_UPDATE_ANNOTATION_KEY] ?? '';
  if (TRUE_VALUES.includes(value)) return true;
  if (FALSE_VALUES.includes(value)) return false;
  return obj.metadata?.generation === 1;
}

/**
 * Creates each of `objects` that is missing, and puts back the spec of an existing one that is not
 * `equalish` to it (default: semantically equal specs) when `mandatory` or {@link shouldUpdateSpec}.
 * A concurrent writer (409) wins; the next start-up looks again.
 */
export async function ensureBootstrapObjects<T extends BootstrapObject>(
  store: Store,
  objects: readonly T[],
  mandatory: boolean,
  equalish: (want: T, have: KubeObject) => boolean = (want, have) => semanticDeepEqual(want.spec, have['spec']),
): Promise<void> {
  await store.waitForResourceVersion('');
  for (const want of objects) {
    const name = want.metadata?.name ?? '';
    const have = store.cached(undefined, name);
    try {
      if (!have) await store.create(undefined, structuredClone(want), {}, []);
      else if ((mandatory || shouldUpdateSpec(have)) && !equalish(want, have)) {
        const annotations = { ...have.metadata?.annotations, [AUTO_UPDATE_ANNOTATION_KEY]: 'true' };
        const body = { ...structuredClone(have), metadata: { ...have.metadata, annotations }, spec: structuredClone(want.spec) };
        await store.update(undefined, name, body, {}, []);
      }
    } catch (err) {
      if (!isAlreadyExists(err) && !isConflict(err)) throw err;
    }
  }
}
