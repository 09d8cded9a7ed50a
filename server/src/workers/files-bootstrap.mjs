// Test-time entry for the file-parsing worker: the test runner executes TypeScript sources, so
// the worker thread registers tsx's loader before importing the real worker module. Production
// uses the compiled dist/workers/files-worker.js directly and never loads this file.
import { register } from 'tsx/esm/api';

register();
const worker = await import('./files-worker.ts');
export default worker.default;
