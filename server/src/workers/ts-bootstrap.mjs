// Test-time worker entry: the test runner executes TypeScript sources, so a worker thread
// registers tsx's loader before importing the real worker module. Production uses the compiled
// dist/workers/offload-worker.js directly and never loads this file.
import { register } from 'tsx/esm/api';

register();
const worker = await import('./offload-worker.ts');
export default worker.default;
