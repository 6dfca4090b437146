export * from './pv-controller.js';
export { findBestMatchForClaim, VersionedStore } from './index-volumes.js';
