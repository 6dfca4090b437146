export * from './pvc-protection-controller.js';
