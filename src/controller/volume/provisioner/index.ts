export * from './simulated-provisioner.js';
