export * from './pv-protection-controller.js';
