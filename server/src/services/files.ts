// The file-parsing pool: a piscina pool of niced worker threads (workers/files-worker.ts),
// separate from the transform offload pool so a slow PDF never queues small transforms. Every
// task is bounded three ways (threats.md 21):
//   - time: a deadline aborts the task, and piscina terminates the thread that was running it;
//   - heap: each thread runs with a V8 old-generation limit (resourceLimits);
//   - everything else: ArrayBuffers (PDF.js decodes streams into them) are outside the V8 heap
//     limit, so a watchdog samples the process RSS while tasks run and aborts a task whose
//     growth since it started exceeds the budget.
// A terminated thread takes its memory with it and the pool starts a fresh one; other requests
// are unaffected. Failures become VEIL_LIMIT_EXCEEDED (413) with a message naming the bound.
import { fileURLToPath } from 'node:url';
import { VeilError, type ErrorCode } from '@veil/common';
import { Piscina } from 'piscina';
import type { VeilConfig } from '../config/index.js';
import type { FileHint } from '../files/formats.js';
import type { Extracted, FileLimits, RestoredFile } from '../files/process.js';
import { MAX_BODY_DEPTH, type JsonStructureLimits } from '../domain/json-depth.js';
import type { FilesResult, FilesTask } from '../workers/files-worker.js';
import type { OutputProtectionSettings } from './output-guard.js';
import type { RehydrateRequest } from './rehydrate.js';
import type { RestoreTemplates } from '../domain/restore/index.js';
import type { PolicySnapshot, RingMaterial } from '../workers/offload-worker.js';

export interface FileRehydrateContext {
  readonly request: RehydrateRequest;
  readonly ring: RingMaterial;
  readonly policies: PolicySnapshot;
  readonly templates?: RestoreTemplates | undefined;
  readonly outputProtection?: OutputProtectionSettings | undefined;
  readonly nowMs: number;
}

export interface FilePool {
  extract(bytes: Uint8Array, hint: FileHint): Promise<Extracted>;
  rehydrate(bytes: Uint8Array, hint: FileHint, context: FileRehydrateContext): Promise<RestoredFile>;
  close(): Promise<void>;
}

export interface FilePoolOptions {
  readonly limits: VeilConfig['file_upload'];
  /** JSON structure bounds of JSON files (plugins/json.ts jsonLimits); default: the configuration's defaults. */
  readonly json?: JsonStructureLimits | undefined;
  /** Worker module; tests substitute one that misbehaves on purpose. */
  readonly filename?: string | undefined;
  /** RSS sampling period of the watchdog. */
  readonly watchIntervalMs?: number | undefined;
}

function defaultWorkerFile(): string {
  const here = import.meta.url;
  // Under the test runner the sources are TypeScript; a bootstrap registers tsx in the worker.
  if (here.endsWith('.ts')) return fileURLToPath(new URL('../workers/files-bootstrap.mjs', here));
  return fileURLToPath(new URL('../workers/files-worker.js', here));
}

type AbortReason = 'timeout' | 'memory';

interface Running {
  readonly controller: AbortController;
  /** The lowest RSS seen since the task started: growth is measured from it, so memory freed
   * elsewhere while the task runs does not widen its budget. */
  floorRss: number;
  reason?: AbortReason;
}

/** The default JSON bounds (limits.max_json_object_keys and limits.max_json_values defaults). */
const DEFAULT_JSON_LIMITS: JsonStructureLimits = { maxDepth: MAX_BODY_DEPTH, maxKeys: 10_000, maxValues: 200_000 };

export function fileLimitsOf(limits: VeilConfig['file_upload'], json: JsonStructureLimits = DEFAULT_JSON_LIMITS): FileLimits {
  return {
    maxTextChars: limits.max_text_chars,
    json,
    maxUncompressedBytes: limits.max_uncompressed_bytes,
    maxArchiveEntries: limits.max_archive_entries,
  };
}

/**
 * Bytes whose buffer can be transferred to the worker (no copy made by the hop). An upload of
 * more than a few KB owns its ArrayBuffer and is moved as is (the caller's view is detached
 * afterwards: read its length before); a small one shares Node's pool and is copied.
 */
function transferable(bytes: Uint8Array): Uint8Array {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) return bytes;
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return copy;
}

export function createFilePool(options: FilePoolOptions): FilePool {
  const limits = options.limits;
  const budgetBytes = limits.parse_memory_mb * 1024 * 1024;
  const running = new Set<Running>();
  let watchdog: NodeJS.Timeout | undefined;
  let pool: Piscina | undefined;

  const getPool = (): Piscina => {
    pool ??= new Piscina({
      filename: options.filename ?? defaultWorkerFile(),
      minThreads: 0,
      maxThreads: limits.parse_workers,
      idleTimeout: 60_000,
      maxQueue: Math.max(16, limits.parse_workers * 16),
      resourceLimits: { maxOldGenerationSizeMb: limits.parse_memory_mb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
    });
    return pool;
  };

  const sample = (): void => {
    const rss = process.memoryUsage.rss();
    for (const task of running) {
      task.floorRss = Math.min(task.floorRss, rss);
      if (task.reason === undefined && rss - task.floorRss > budgetBytes) {
        task.reason = 'memory';
        task.controller.abort('memory');
      }
    }
  };

  const run = async (task: FilesTask): Promise<unknown> => {
    const controller = new AbortController();
    const entry: Running = { controller, floorRss: process.memoryUsage.rss() };
    running.add(entry);
    watchdog ??= setInterval(sample, options.watchIntervalMs ?? 50);
    watchdog.unref();
    const deadline = setTimeout(() => {
      entry.reason ??= 'timeout';
      controller.abort('timeout');
    }, limits.parse_timeout_secs * 1000);
    let result: FilesResult;
    try {
      result = (await getPool().run(task, { signal: controller.signal, transferList: [task.bytes.buffer as ArrayBuffer] })) as FilesResult;
    } catch (error) {
      if (entry.reason === 'timeout') throw new VeilError('VEIL_LIMIT_EXCEEDED', 'file: parsing took longer than the limit', 'parse timeout');
      const code = (error as { code?: unknown }).code;
      if (entry.reason === 'memory' || code === 'ERR_WORKER_OUT_OF_MEMORY') {
        throw new VeilError('VEIL_LIMIT_EXCEEDED', 'file: parsing needed more memory than the limit', 'parse memory');
      }
      if (error instanceof Error && /queue is at limit/i.test(error.message)) {
        throw new VeilError('VEIL_NOT_READY', 'file parsing is at capacity; retry shortly', 'file queue full');
      }
      throw new VeilError('VEIL_INTERNAL', undefined, error instanceof Error ? error.name : 'file worker failure');
    } finally {
      clearTimeout(deadline);
      running.delete(entry);
      if (running.size === 0 && watchdog !== undefined) {
        clearInterval(watchdog);
        watchdog = undefined;
      }
    }
    if (result.ok) return result.value;
    throw new VeilError(result.code as ErrorCode, result.message, result.detail);
  };

  return {
    async extract(bytes, hint) {
      return (await run({ op: 'extract', bytes: transferable(bytes), hint, limits: fileLimitsOf(limits, options.json) })) as Extracted;
    },
    async rehydrate(bytes, hint, context) {
      return (await run({ op: 'rehydrate', bytes: transferable(bytes), hint, limits: fileLimitsOf(limits, options.json), ...context })) as RestoredFile;
    },
    async close() {
      if (watchdog !== undefined) clearInterval(watchdog);
      if (pool !== undefined) await pool.destroy();
    },
  };
}
