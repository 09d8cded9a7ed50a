// The executor: the one place that decides whether work runs on the event loop or on the
// worker-thread pool (piscina), and the helpers that keep the event loop's own share of a large
// request in short slices. Every route asks `offloads(cost)` with the size of what it is about
// to process (UTF-16 units of text, or bytes of a body) and either runs the pure function
// inline or sends the typed task (workers/offload-worker.ts) to a thread; `run` is typed by the
// task, so a route cannot mistake one result for another. Loops over many items on the event
// loop call `slicer.pause()` between items, which yields to other requests once a few
// milliseconds of work have accumulated.
//
// Bounded (issue 16 item 2): at most limits.max_offload_queue tasks wait for a thread; past it a
// request gets 503 VEIL_OVERLOADED (Retry-After) instead of queueing without end. Each thread's
// heap is capped (a share of the memory budget); a task that exhausts it fails with 413
// VEIL_LIMIT_EXCEEDED and the thread is replaced.
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { VeilError, type ErrorCode } from '@veil/common';
import { Piscina } from 'piscina';
import { detectAll, patternScanCost, type CompiledPattern } from '../domain/detect/index.js';
import type { CustomPattern, Detection } from '../domain/types.js';
import type { OffloadResult, OffloadTask, OffloadValue } from '../workers/offload-worker.js';
import { OverloadedError } from './overload.js';

export interface DetectRequest {
  readonly text: string;
  readonly language?: string | undefined;
  /** Compiled patterns for the inline path. */
  readonly compiled: readonly CompiledPattern[];
  /** The same patterns raw, for the worker path. */
  readonly raw: readonly CustomPattern[];
}

/** Yields to the event loop between pieces of work once `budgetMs` have run since the last yield. */
export class Slicer {
  #since = performance.now();

  constructor(readonly budgetMs = SLICE_MS) {}

  /** Resolve at once, or after one turn of the event loop (setImmediate) when the budget is spent. */
  async pause(): Promise<void> {
    if (performance.now() - this.#since < this.budgetMs) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.#since = performance.now();
  }
}

/** Event-loop time one request may take before letting others in. */
export const SLICE_MS = 5;

export interface Offload {
  /** Work costing more than this (UTF-16 units of text, or body bytes) goes to a worker thread. */
  readonly threshold: number;
  /** The inline-or-worker decision, in one place: true when `cost` is above the threshold. */
  offloads(cost: number): boolean;
  /** Detection: inline when small, on a worker when large. */
  detect(request: DetectRequest): Promise<Detection[]>;
  /** Run a task on a worker; VeilErrors thrown there are rethrown here. */
  run<T extends OffloadTask>(task: T): Promise<OffloadValue<T>>;
  /** A fresh slicer for one request's loop on the event loop. */
  slicer(): Slicer;
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
  return patternsInline(textLength, patterns);
}

/** Whether the caller's patterns scan a text of `textLength` quickly enough for the event loop (INLINE_PATTERN_STEPS). */
export function patternsInline(textLength: number, patterns: readonly CompiledPattern[]): boolean {
  return textLength * patternScanCost(patterns) <= INLINE_PATTERN_STEPS;
}

/**
 * What one anchor character adds to a JSON document's strings when a transform weighs it
 * (jsonCost with textCost): an ASCII digit or the punctuation values are written with
 * (`@ : / . + - _ =`). Transforming costs per value found, not per byte, and a text dense with
 * values costs 10-80 times more per byte than prose: 63 KB of distinct phone numbers, dates, IPv4
 * addresses, SSNs, URLs or emails took 37-260 ms inline on the loaded 2-core VM (a fresh server:
 * ~300 ms for the phone numbers) against ~3-4 ms for 64 KB of prose (BENCHMARKS.md, "Session 7
 * (wave6/large)"). Values are 25-70 % anchors, prose a few per cent: at 5, a document of values
 * stays inline only up to a fifth to a half of the threshold, prose up to ~90 % of it.
 */
export const ANCHOR_WEIGHT = 5;

/**
 * A text transform's inline budget, in thresholds: its text stays on the event loop while its
 * cost (textCost with TEXT_ANCHOR_WEIGHT) is within this many times
 * transform.offload_threshold_bytes. Prose transforms at ~40-60 ns a character (the 100 KB
 * benchmark text, ~570 values in it, in ~4-5 ms), so the hop to a worker (two copies and a thread
 * wake-up, ~0.5-1 ms, and a p99 that waits on a niced thread) costs a large request a fifth of
 * its time; what the loop must not run is a text dense with values (BENCHMARKS.md, "Session 8
 * (wave7/large)").
 */
export const TEXT_INLINE_FACTOR = 4;

/**
 * What one anchor character adds to a text transform's cost (in prose characters). Measured
 * inline per anchor character, the costliest class (distinct phone numbers: libphonenumber
 * validates and formats each) runs at ~60-70 times a prose character; URLs, dates, IPv4, SSNs and
 * emails at 10-40 times, bare numbers at ~1. At 24 with TEXT_INLINE_FACTOR 4 the costliest text
 * the loop keeps is ~14 KB of phone numbers (as under the old rule), ~25 KB of URLs, and up to
 * 256 KiB of prose; the benchmark's 100 KB text (a value every ~180 characters) costs ~240,000 of
 * the 262,144 allowed.
 */
export const TEXT_ANCHOR_WEIGHT = 24;

/**
 * A JSON body stays on the event loop to be parsed up to this many thresholds of bytes: parsing
 * is ~0.1 ms for the 100 KB benchmark body and at most ~2-3 ms for 128 KiB of small values
 * (bounded by limits.max_json_values), against a worker round trip of ~0.5-1 ms for any size.
 * A larger body is decoded, checked, parsed and fingerprinted on a worker.
 */
export const PARSE_INLINE_FACTOR = 2;

/**
 * 1 for an anchor character's UTF-16 code unit, else 0, for every code unit: the count is a
 * branch-free typed-array load per character. A holey array of booleans read beyond its end for
 * letters cost ~2.3 times as much (~390 vs ~165 µs for the 100 KB benchmark text, ~4 % of that
 * transform; BENCHMARKS.md, "Session 9 (wave8/large)").
 */
const ANCHORS = (() => {
  const table = new Uint8Array(0x10000);
  for (let code = 48; code <= 57; code += 1) table[code] = 1;
  for (const char of '@:/.+-_=') table[char.charCodeAt(0)] = 1;
  return table;
})();

/**
 * A text at least this long is counted over its UTF-8 bytes, COUNT_SLICE units at a time: a
 * typed-array loop over bytes ran at about a third of the time of the `charCodeAt` loop over
 * the 100 KB benchmark text (medians 117-122 vs 356-362 µs; BENCHMARKS.md "Session 11
 * (wave10/hot)"), and encoding a slice of a one-byte string is a copy. Shorter texts (a JSON
 * document's strings) keep the character loop: a slice and a write cost more than they save.
 */
const BYTES_COUNT_FROM = 4096;
const COUNT_SLICE = 16_384;
/** UTF-8 of one slice (at most 3 bytes per UTF-16 unit), reused: the event loop counts one text at a time. */
const countScratch = Buffer.allocUnsafe(COUNT_SLICE * 3);
/**
 * ANCHORS for bytes. UTF-8 writes every character outside ASCII (and a lone surrogate, as
 * U+FFFD) as bytes of 0x80 and above, none of them an anchor, so a text's anchor bytes are
 * exactly its anchor characters.
 */
const ANCHOR_BYTES = ANCHORS.subarray(0, 256);

/**
 * A text's size as a transform's inline-or-worker decision weighs it: its length plus `weight`
 * per anchor character, counted only until it passes `stopAt` (deciding never costs more than
 * the budget's worth of reading). The value is the character-at-a-time rule's, stop included:
 * that rule stops at the first anchor that takes the total past `stopAt`, whose count depends
 * only on the length, `stopAt` and `weight`.
 */
export function textCost(text: string, stopAt: number, weight = ANCHOR_WEIGHT): number {
  const length = text.length;
  if (length < BYTES_COUNT_FROM || !(weight > 0)) {
    let total = length;
    for (let index = 0; index < length && total <= stopAt; index += 1) total += ANCHORS[text.charCodeAt(index)]! * weight;
    return total;
  }
  // The anchor that takes the total past stopAt (0: the length alone is past it, nothing is read).
  const most = Math.floor((stopAt - length) / weight) + 1;
  if (most <= 0) return length;
  let anchors = 0;
  for (let from = 0; from < length && anchors < most; from += COUNT_SLICE) {
    const bytes = countScratch.write(text.slice(from, from + COUNT_SLICE), 0, 'utf8');
    for (let index = 0; index < bytes; index += 1) anchors += ANCHOR_BYTES[countScratch[index]!]!;
  }
  return length + Math.min(anchors, most) * weight;
}

/**
 * Whether a transform of `text` stays on the event loop by its built-in detection cost: textCost
 * with TEXT_ANCHOR_WEIGHT within TEXT_INLINE_FACTOR thresholds. A text that would stay within it
 * even if every character were an anchor is not read, so the 1 KB hot path pays nothing for the
 * count.
 */
export function transformsInline(text: string, threshold: number): boolean {
  const budget = threshold * TEXT_INLINE_FACTOR;
  return text.length * (1 + TEXT_ANCHOR_WEIGHT) <= budget || textCost(text, budget, TEXT_ANCHOR_WEIGHT) <= budget;
}

export interface OffloadOptions {
  readonly threshold: number;
  /** detector.default_region (national phone numbers when the language names no region). */
  readonly defaultRegion: string;
  readonly maxThreads?: number;
  /** Tasks that may wait for a free thread (limits.max_offload_queue). */
  readonly maxQueue?: number;
  /** Old-generation heap of each thread, MiB (a share of the memory budget). */
  readonly heapMb?: number;
}

/** A piscina failure as the client should see it: overload, a task too large for its heap, or internal. */
function poolFailure(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  if (error.message === 'Task queue is at limit' || error.message === 'No task queue available and all Workers are busy') {
    return new OverloadedError('limits.max_offload_queue reached');
  }
  if ((error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new VeilError('VEIL_LIMIT_EXCEEDED', 'the request needs more memory than a worker may use', 'worker heap limit');
  }
  return error;
}

export function createOffload(options: OffloadOptions): Offload {
  let pool: Piscina | undefined;
  const getPool = (): Piscina => {
    if (pool === undefined) {
      const { filename, execArgv } = workerFile();
      pool = new Piscina({
        filename,
        execArgv,
        minThreads: 1,
        maxThreads: options.maxThreads ?? Math.max(1, availableParallelism()),
        maxQueue: options.maxQueue ?? 64,
        idleTimeout: 60_000,
        ...(options.heapMb !== undefined ? { resourceLimits: { maxOldGenerationSizeMb: options.heapMb } } : {}),
      });
    }
    return pool;
  };
  const run = async <T extends OffloadTask>(task: T): Promise<OffloadValue<T>> => {
    let result: OffloadResult;
    try {
      result = (await getPool().run(task)) as OffloadResult;
    } catch (error) {
      throw poolFailure(error);
    }
    if (result.ok) return result.value as OffloadValue<T>;
    throw new VeilError(result.code as ErrorCode, result.message, result.detail);
  };
  const offloads = (cost: number): boolean => cost > options.threshold;
  return {
    threshold: options.threshold,
    offloads,
    run,
    slicer: () => new Slicer(),
    async detect(request) {
      if (detectsInline(request.text.length, request.compiled, options.threshold)) {
        return detectAll(request.text, {
          customPatterns: request.compiled,
          defaultRegion: options.defaultRegion,
          ...(request.language !== undefined ? { language: request.language } : {}),
        });
      }
      return run({ op: 'detect', text: request.text, language: request.language, defaultRegion: options.defaultRegion, patterns: request.raw });
    },
    async close() {
      if (pool !== undefined) await pool.destroy();
    },
  };
}

/** JSON text a worker (or an earlier step) already serialized, spliced into an answer as it is. */
export class RawJson {
  constructor(readonly json: string) {}
}

/**
 * A JSON array built item by item on the event loop, pausing between items (a large batch
 * answer is never serialized in one go). Returns `prefix` + the items joined + `suffix`.
 */
export async function serializeSliced(slicer: Slicer, prefix: string, items: readonly unknown[], suffix: string): Promise<string> {
  const parts: string[] = [];
  for (const item of items) {
    parts.push(item instanceof RawJson ? item.json : JSON.stringify(item));
    await slicer.pause();
  }
  return `${prefix}${parts.join(',')}${suffix}`;
}

/** `fields` added in front of a serialized JSON object's own members. */
export function withLeadingFields(json: string, fields: Record<string, unknown>): string {
  const members = Object.entries(fields)
    .map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`)
    .join(',');
  const rest = json.slice(1);
  return `{${members}${rest.startsWith('}') ? '' : ','}${rest}`;
}

/**
 * The size of a parsed JSON value as the executor weighs it (string and key lengths, or what
 * `weigh` makes of a string: textCost for a transform; a few units per other value), counted only
 * until it passes `stopAt`: deciding costs at most the threshold's worth of walking, however large
 * the document.
 */
export function jsonCost(value: unknown, stopAt: number, weigh: (text: string, stopAt: number) => number = (text) => text.length): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && total <= stopAt) {
    const current = stack.pop();
    if (typeof current === 'string') total += weigh(current, stopAt - total) + 2;
    else if (Array.isArray(current)) {
      total += 2;
      for (const item of current as unknown[]) {
        total += 1;
        if (total > stopAt) break;
        stack.push(item);
      }
    } else if (typeof current === 'object' && current !== null) {
      total += 2;
      for (const key in current) {
        if (!Object.hasOwn(current, key)) continue;
        total += key.length + 3;
        if (total > stopAt) break;
        stack.push((current as Record<string, unknown>)[key]);
      }
    } else total += 4;
  }
  return total;
}
