import { runBackendConformance } from '../testing/conformance.js';
import { MemoryBackend } from './index.js';

runBackendConformance('MemoryBackend', () => new MemoryBackend());
