/**
 * The resource catalogue (see descriptor.ts for a row's shape and kinds.ts for the rows).
 */
import type { KindDescriptor } from './descriptor.js';
import { CATALOGUE } from './kinds.js';
import { parseGroupVersion } from './descriptor.js';

export * from './descriptor.js';
export * from './kinds.js';
export * from './groups.js';

/** Any row of the catalogue. */
export type CatalogueRow = (typeof CATALOGUE)[number];

/** The row serving `kind` in `apiVersion`, e.g. (`apps/v1`, `Deployment`), or undefined. */
export function kindFor(apiVersion: string, kindName: string): KindDescriptor | undefined {
  const { group, version } = parseGroupVersion(apiVersion);
  return (CATALOGUE as readonly KindDescriptor[]).find((d) => d.group === group && d.kind === kindName && d.versions.includes(version));
}

/** The row of `group`/`resource`, or undefined. */
export function kindOfResource(group: string, resource: string): KindDescriptor | undefined {
  return (CATALOGUE as readonly KindDescriptor[]).find((d) => d.group === group && d.resource === resource);
}
