// The worker-thread pool (piscina) for work too large for the event loop, and the inline fast
// path for everything small. Callers decide by size; the pool starts on first use.
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { VeilError, type ErrorCode } from '@veil/common';
import { Piscina } from 'piscina';
import { detectAll, type CompiledPattern } from '../domain/detect/index.js';
import type { CustomPattern, Detection } from '../domain/types.js';
import type { OffloadResult, OffloadTask } from '../workers/offload-worker.js';

export interface DetectRequest {
  readonly text: string;
  readonly language?: string | undefined;
  /** Compiled patterns for the inline path. */
  readonly compiled: readonly CompiledPattern[];
  /** The same patterns raw, for the worker path. */
  readonly raw: readonly CustomPattern[];
}

export interface Offload {
  /** Inputs longer than this (UTF-16 units) go to a worker thread. */
  readonly threshold: number;
  /** Detection: inline when small, on a worker when large. */
  detect(request: DetectRequest): Promise<Detection[]>;
  /** Run a task on a worker; VeilErrors thrown there are rethrown here. */
  run(task: OffloadTask): Promise<unknown>;
  close(): Promise<void>;
}

function workerFile(): { filename: string; execArgv: string[] } {
  const here = import.meta.url;
  // Under the test runner the sources are TypeScript; a bootstrap registers tsx in the worker.
  if (here.endsWith('.ts')) {
    return { filename: fileURLToPath(new URL('../workers/ts-bootstrap.mjs', here)), execArgv: [] };
  }
  return { filename: fileURLToPath(new URL('../workers/offload-worker.js', here)), execArgv: [] };
}

export function createOffload(options: { threshold: number; defaultRegion: string; maxThreads?: number }): Offload {
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
  const run = async (task: OffloadTask): Promise<unknown> => {
    const result = (await getPool().run(task)) as OffloadResult;
    if (result.ok) return result.value;
    throw new VeilError(result.code as ErrorCode, result.message, result.detail);
  };
  return {
    threshold: options.threshold,
    run,
    async detect(request) {
      if (request.text.length <= options.threshold) {
        return detectAll(request.text, {
          customPatterns: request.compiled,
          defaultRegion: options.defaultRegion,
          ...(request.language !== undefined ? { language: request.language } : {}),
        });
      }
      return (await run({ op: 'detect', text: request.text, language: request.language, defaultRegion: options.defaultRegion, patterns: request.raw })) as Detection[];
    },
    async close() {
      if (pool !== undefined) await pool.destroy();
    },
  };
}
