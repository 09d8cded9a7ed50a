// The worker-thread pool (piscina) for work too large for the event loop, and the inline fast
// path for everything small. Callers decide by size; the pool starts on first use.
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { VeilError, type ErrorCode } from '@veil/common';
import { Piscina } from 'piscina';
import { detectAll, patternScanCost, type CompiledPattern } from '../domain/detect/index.js';
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

/**
 * Scan steps (text length x program instructions, summed over the caller's patterns) above which
 * a detection leaves the event loop even when its text is short: the linear-time engine scans at
 * roughly 50 million steps a second here, so this keeps an inline scan of caller patterns to
 * well under 100 ms. A 64 KB input with one `.{1000}` pattern is 65 million steps (about 1.2 s):
 * it goes to a worker. Built-in detectors have no such factor and are bounded by `threshold`.
 */
export const INLINE_PATTERN_STEPS = 4_000_000;

/** Whether a detection is cheap enough for the event loop (see INLINE_PATTERN_STEPS). */
export function detectsInline(textLength: number, patterns: readonly CompiledPattern[], threshold: number): boolean {
  if (textLength > threshold) return false;
  return textLength * patternScanCost(patterns) <= INLINE_PATTERN_STEPS;
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
      if (detectsInline(request.text.length, request.compiled, options.threshold)) {
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
