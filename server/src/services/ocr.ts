// The OCR engine behind /v1/transform/image and /v1/redact/image: tesseract.js, whose
// recognition runs in its own worker threads (never on the event loop). A small pool of
// long-lived workers starts on first use (about 0.3 s each) and is reused. Language data comes
// from the registry package (@tesseract.js-data/<lang>) on local disk: `langPath` points at it,
// `cacheMethod: 'none'` keeps tesseract from writing model copies into the working directory,
// and without the data file the engine is simply unavailable; it never fetches anything.
// Each recognition has a deadline; a worker that misses it is terminated and replaced. With
// `ocr.engine: none`, missing data or a worker that fails to start, requests get
// VEIL_OCR_UNAVAILABLE (501).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { VeilError } from '@veil/common';
import type Tesseract from 'tesseract.js';
import type { VeilConfig } from '../config/index.js';

export interface OcrBox {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

export interface OcrWord {
  readonly text: string;
  /** 0 to 100, as tesseract reports it. */
  readonly confidence: number;
  readonly bbox: OcrBox;
}

/** Recognized text as paragraphs of lines of words, in reading order. */
export interface OcrPage {
  readonly paragraphs: readonly (readonly (readonly OcrWord[])[])[];
}

export interface OcrEngine {
  readonly engine: 'tesseract' | 'none';
  recognize(image: Buffer): Promise<OcrPage>;
  close(): Promise<void>;
}

/** Where the data package of a language keeps its LSTM model, or undefined when not installed. */
export function languageDataPath(language: string): string | undefined {
  const require = createRequire(import.meta.url);
  let packageDir: string;
  try {
    packageDir = dirname(require.resolve(`@tesseract.js-data/${language}/package.json`));
  } catch {
    return undefined;
  }
  const langPath = join(packageDir, '4.0.0_best_int');
  return existsSync(join(langPath, `${language}.traineddata.gz`)) ? langPath : undefined;
}

/** Where the configured languages' data is, or why OCR cannot run (checked without starting it). */
export function ocrSetup(config: VeilConfig['ocr']): { langPath?: string; problem?: string } {
  if (config.engine === 'none') return { problem: 'ocr.engine is none' };
  const paths = config.languages.map((language) => ({ language, path: languageDataPath(language) }));
  const missing = paths.filter((entry) => entry.path === undefined).map((entry) => entry.language);
  if (missing.length > 0) return { problem: `no language data installed for: ${missing.join(', ')}` };
  const langPath = paths[0]!.path!;
  if (!paths.every((entry) => entry.path === langPath)) return { problem: 'ocr.languages must come from one data directory' };
  return { langPath };
}

function unavailable(detail: string): VeilError {
  return new VeilError('VEIL_OCR_UNAVAILABLE', 'no OCR engine is available on this server', detail);
}

/** Flatten tesseract's block tree into paragraphs of lines of words. */
export function pageOf(blocks: readonly Tesseract.Block[] | null): OcrPage {
  const paragraphs: OcrWord[][][] = [];
  for (const block of blocks ?? []) {
    for (const paragraph of block.paragraphs) {
      const lines: OcrWord[][] = [];
      for (const line of paragraph.lines) {
        const words = line.words
          .filter((word) => word.text.trim() !== '')
          .map((word) => ({ text: word.text.trim(), confidence: word.confidence, bbox: { x0: word.bbox.x0, y0: word.bbox.y0, x1: word.bbox.x1, y1: word.bbox.y1 } }));
        if (words.length > 0) lines.push(words);
      }
      if (lines.length > 0) paragraphs.push(lines);
    }
  }
  return { paragraphs };
}

interface Waiter {
  resolve(worker: Tesseract.Worker): void;
  reject(error: unknown): void;
}

/** Failed starts are remembered this long, so a broken engine does not cost 0.3 s per request. */
const FAILURE_COOLDOWN_MS = 30_000;

export function createOcrEngine(config: VeilConfig['ocr'], onWarning: (message: string) => void = () => undefined): OcrEngine {
  if (config.engine === 'none') {
    return {
      engine: 'none',
      recognize: () => Promise.reject(unavailable('ocr.engine is none')),
      close: () => Promise.resolve(),
    };
  }
  const { langPath, problem: setupProblem } = ocrSetup(config);
  if (setupProblem !== undefined) onWarning(`OCR unavailable: ${setupProblem}`);

  const idle: Tesseract.Worker[] = [];
  const all = new Set<Tesseract.Worker>();
  const waiters: Waiter[] = [];
  let started = 0;
  let failedAtMs: number | undefined;
  let closed = false;

  const start = async (): Promise<Tesseract.Worker> => {
    let worker: Tesseract.Worker;
    try {
      // tesseract.js loads with the first OCR request, not at startup.
      const { default: tesseract } = await import('tesseract.js');
      worker = await tesseract.createWorker([...config.languages], tesseract.OEM.LSTM_ONLY, {
        langPath: langPath!,
        cacheMethod: 'none',
        gzip: true,
        // Without a handler a worker error would be thrown on the process.
        errorHandler: () => undefined,
      });
    } catch (error) {
      failedAtMs = Date.now();
      onWarning('OCR unavailable: the tesseract worker failed to start');
      throw unavailable(error instanceof Error ? error.name : 'worker start failed');
    }
    if (closed) {
      // The server shut down while this worker was starting.
      await worker.terminate().catch(() => undefined);
      throw unavailable('engine closed');
    }
    all.add(worker);
    return worker;
  };

  const acquire = async (): Promise<Tesseract.Worker> => {
    if (closed) throw unavailable('engine closed');
    if (setupProblem !== undefined) throw unavailable(setupProblem);
    if (failedAtMs !== undefined && Date.now() - failedAtMs < FAILURE_COOLDOWN_MS) throw unavailable('recent start failure');
    const ready = idle.pop();
    if (ready !== undefined) return ready;
    if (started < config.workers) {
      started += 1;
      try {
        return await start();
      } catch (error) {
        started -= 1;
        throw error;
      }
    }
    if (waiters.length >= config.max_queue) throw new VeilError('VEIL_NOT_READY', 'the OCR engine is at capacity; retry shortly', 'ocr queue full');
    return new Promise<Tesseract.Worker>((resolve, reject) => waiters.push({ resolve, reject }));
  };

  const release = (worker: Tesseract.Worker): void => {
    const waiter = waiters.shift();
    if (waiter !== undefined) waiter.resolve(worker);
    else idle.push(worker);
  };

  /** A worker that failed or overran is dropped; a waiter gets a fresh one instead. */
  const discard = (worker: Tesseract.Worker): void => {
    started -= 1;
    all.delete(worker);
    void worker.terminate().catch(() => undefined);
    const waiter = waiters.shift();
    if (waiter === undefined || closed) return;
    started += 1;
    start().then((fresh) => waiter.resolve(fresh), (error: unknown) => {
      started -= 1;
      waiter.reject(error);
    });
  };

  return {
    engine: 'tesseract',
    async recognize(image) {
      const worker = await acquire();
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new VeilError('VEIL_LIMIT_EXCEEDED', 'image: OCR took longer than the limit', 'ocr timeout')), config.timeout_secs * 1000);
      });
      try {
        const result = await Promise.race([worker.recognize(image, {}, { blocks: true, text: false }), deadline]);
        release(worker);
        return pageOf(result.data.blocks);
      } catch (error) {
        discard(worker);
        if (error instanceof VeilError) throw error;
        throw new VeilError('VEIL_VALIDATION_FAILED', 'image: could not be read', 'ocr failure');
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      closed = true;
      for (const waiter of waiters.splice(0)) waiter.reject(unavailable('engine closed'));
      idle.length = 0;
      await Promise.all([...all].map((worker) => worker.terminate().catch(() => undefined)));
      all.clear();
    },
  };
}
