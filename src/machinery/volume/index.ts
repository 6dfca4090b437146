/**
 * Storage helpers shared by the PersistentVolume controller, the simulated provisioner, the volume
 * protection controllers and the scheduler's VolumeBinding plugin: kubeplane's
 * k8s.io/component-helpers/storage/volume (helpers.go, pv_helpers.go, v1.33). Pure.
 */
export * from './helpers.js';
export * from './pv-helpers.js';
export * from './storage-class.js';
