/**
 * The objects the bench sections create: one place for the `bench` Deployment they roll out.
 */
import type { Deployment } from '../src/api/index.js';

/**
 * Deployment `bench` of `replicas` pods labelled `app=bench`, one container `c` running `image`;
 * `spec` adds or overrides spec fields (a strategy), `namespace` sets metadata.namespace.
 */
export function benchDeployment(replicas: number, opts: { image?: string; namespace?: string; spec?: Partial<NonNullable<Deployment['spec']>> } = {}): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'bench', ...(opts.namespace ? { namespace: opts.namespace } : {}) },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'bench' } },
      template: { metadata: { labels: { app: 'bench' } }, spec: { containers: [{ name: 'c', image: opts.image ?? 'nginx' }] } },
      ...opts.spec,
    },
  };
}
