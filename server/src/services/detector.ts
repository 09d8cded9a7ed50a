// Detection service: runs small inputs inline (microseconds, no hand-off cost) and large ones on
// a pool of worker threads so the event loop stays free for small requests.
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { detectAll, type CompiledPattern } from '../domain/detect/index.js';
import type { CustomPattern, Detection } from '../domain/types.js';
import type { DetectTask } from '../workers/detect-worker.js';

export interface DetectRequest {
  readonly text: string;
  readonly language?: string | undefined;
  /** Compiled patterns for the inline path. */
  readonly compiled: readonly CompiledPattern[];
  /** The same patterns raw, for the worker path. */
  readonly raw: readonly CustomPattern[];
}

export interface DetectorService {
  detect(request: DetectRequest): Promise<Detection[]>;
  close(): Promise<void>;
}

export interface DetectorServiceOptions {
  /** Inputs longer than this (UTF-16 units) go to a worker thread. */
  readonly offloadThreshold: number;
  readonly maxThreads?: number;
}

function workerFile(): { filename: string; execArgv: string[] } {
  const here = import.meta.url;
  // Under the test runner the sources are TypeScript; load the worker through tsx there.
  if (here.endsWith('.ts')) {
    return { filename: fileURLToPath(new URL('../workers/detect-worker.ts', here)), execArgv: ['--import', 'tsx'] };
  }
  return { filename: fileURLToPath(new URL('../workers/detect-worker.js', here)), execArgv: [] };
}

export function createDetectorService(options: DetectorServiceOptions): DetectorService {
  let pool: Piscina | undefined;
  const getPool = (): Piscina => {
    if (pool === undefined) {
      const { filename, execArgv } = workerFile();
      pool = new Piscina({
        filename,
        execArgv,
        minThreads: 1,
        maxThreads: options.maxThreads ?? Math.max(1, availableParallelism()),
        idleTimeout: 60_000,
      });
    }
    return pool;
  };
  return {
    async detect(request) {
      if (request.text.length <= options.offloadThreshold) {
        return detectAll(request.text, {
          customPatterns: request.compiled,
          ...(request.language !== undefined ? { language: request.language } : {}),
        });
      }
      const task: DetectTask = { text: request.text, language: request.language, patterns: request.raw };
      return (await getPool().run(task)) as Detection[];
    },
    async close() {
      if (pool !== undefined) await pool.destroy();
    },
  };
}
