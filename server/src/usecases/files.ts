// The file and image use cases (/v1/transform/file, /v1/rehydrate/file, /v1/transform/image,
// /v1/redact/image): the file-specific steps around the transform and rehydrate use cases,
// written once and free of HTTP (the route reads the multipart upload and replies):
//   transform file    extract on the file-parsing pool (format from the content, PDF text,
//                     DOCX, JSON), run the text or JSON transform use case on what was
//                     extracted, then re-assemble the answer (the extraction facts spliced in,
//                     a JSON file written back the way it came);
//   rehydrate file    open the session, the deny list and revocations on the event loop (the
//                     rehydrate use case's openHere), then restore on the file pool's worker
//                     (in place for text, string by string for JSON, run by run for DOCX);
//   transform image   OCR (decode within the pixel limit, recognize), the text transform of the
//                     laid-out words, each entity placed on the boxes of the words it touches;
//   redact image      the same detection and decisions without a session, every entity's boxes
//                     filled black (an entity that cannot be placed fails the request).
// A file is therefore protected exactly like the same text sent to /v1/transform.
import { VeilError } from '@veil/common';
import { serializeJson, type FileFormat, type FileHint } from '../files/formats.js';
import type { RestoredFile } from '../files/process.js';
import type { FilePool } from '../services/files.js';
import { alignSpans, layoutText, placeSpan, prepareImage, redactImage, type PixelBox } from '../services/images.js';
import { jsonString } from '../services/json-text.js';
import type { OcrEngine } from '../services/ocr.js';
import type { RehydrateRequest } from '../services/rehydrate.js';
import { withHandle } from '../services/state.js';
import type { TransformResponse } from '../services/transform.js';
import type { Executor } from './executor.js';
import type { RehydrateUseCase } from './rehydrate.js';
import type { TransformCommand, TransformUseCase, UseCaseCall } from './transform.js';

export interface FilesDeps {
  readonly transform: TransformUseCase;
  readonly rehydrate: RehydrateUseCase;
  readonly executor: Executor;
  /** The bounded pool of niced file-parsing workers (services/files.ts). */
  readonly files: FilePool;
  readonly ocr: OcrEngine;
  /** file_upload.max_pixels: an image above it is refused before it is decoded. */
  readonly maxPixels: number;
}

/** An uploaded document: its bytes (moved to the parsing thread: read their length first) and the client's hints. */
export interface FileUpload {
  readonly bytes: Buffer;
  readonly hint: FileHint;
}

/** A finished file transform: the answer (an object, or serialized text with its handle) and value-free facts for the completion event. */
export type FileTransformDone = { readonly format: FileFormat; readonly size: number } & (
  | { readonly object: Record<string, unknown>; readonly body?: undefined }
  | { readonly object?: undefined; readonly body: string; readonly traceId: string; readonly offloaded: boolean }
);

/** A finished image transform: the answer and value-free facts. */
export interface ImageTransformDone {
  readonly response: Record<string, unknown>;
  readonly format: string;
  readonly entityCount: number;
}

/** A redacted image: the PNG and its counts. */
export interface ImageRedaction {
  readonly png: Buffer;
  readonly format: string;
  readonly regions: number;
  readonly entities: number;
}

function elapsedMs(start: number): number {
  return Math.round((performance.now() - start) * 1000) / 1000;
}

/** Add top-level fields to a serialized JSON object, and one stat to its `stats` object. */
function spliceResponse(body: string, extra: Record<string, unknown>, stat: [string, number]): string {
  // In serialized JSON a quote inside a string is always escaped, so the first unescaped
  // `"stats":{` is the top-level stats object of the transform response.
  const marker = '"stats":{';
  const at = body.indexOf(marker);
  const withStat = at < 0 ? body : `${body.slice(0, at + marker.length)}${JSON.stringify(stat[0])}:${stat[1]},${body.slice(at + marker.length)}`;
  const fields = Object.entries(extra)
    .map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`)
    .join(',');
  return `${withStat.slice(0, -1)},${fields}}`;
}

export class FilesUseCase {
  readonly #deps: FilesDeps;

  constructor(deps: FilesDeps) {
    this.#deps = deps;
  }

  /** The OCR engine's name (reported on image answers). */
  get ocrEngine(): OcrEngine['engine'] {
    return this.#deps.ocr.engine;
  }

  /** The image routes refuse at once, before reading the upload, when no OCR engine is configured. */
  requireOcr(): void {
    if (this.#deps.ocr.engine === 'none') throw new VeilError('VEIL_OCR_UNAVAILABLE', 'no OCR engine is available on this server', 'ocr.engine is none');
  }

  /** Extract, transform what was extracted (text or JSON), re-assemble the answer. */
  async transformFile(call: UseCaseCall, command: TransformCommand, upload: FileUpload): Promise<FileTransformDone> {
    // Read before the bytes move to the parsing thread (their view is detached then).
    const size = upload.bytes.length;
    const started = performance.now();
    const extracted = await this.#deps.files.extract(upload.bytes, upload.hint);
    const extractionMs = elapsedMs(started);
    const extra = { original_format: extracted.format, original_size: size, ...(extracted.format === 'pdf' && extracted.pages !== undefined ? { pages: extracted.pages } : {}) };
    if (extracted.format === 'json') {
      const done = await this.#deps.transform.structured(call, command, { kind: 'json', value: extracted.value });
      // A worker's body is parsed back: the document is bounded by the limits the upload passed.
      const response = done.json !== undefined ? (JSON.parse(done.json.map(jsonString).join('')) as Record<string, unknown>) : done.object;
      const stats = response.stats as Record<string, unknown>;
      const object = {
        ...response,
        // The tokenized document, written the way the uploaded one was.
        safe_text: serializeJson(response.safe_json, extracted.indent, extracted.text.endsWith('\n')),
        stats: { ...stats, extraction_time_ms: extractionMs },
        ...extra,
      };
      return { format: extracted.format, size, object };
    }
    const done = await this.#deps.transform.text(call, command, extracted.text);
    const serialized = done.serialized !== undefined ? jsonString(done.serialized) : JSON.stringify(done.response);
    const body = withHandle(spliceResponse(serialized, extra, ['extraction_time_ms', extractionMs]), done.handle);
    return { format: extracted.format, size, body, traceId: command.traceId, offloaded: done.serialized !== undefined };
  }

  /** Open and check the session here (as /v1/rehydrate does), restore the document on the file pool. */
  async rehydrateFile(call: UseCaseCall, base: RehydrateRequest, upload: FileUpload): Promise<RestoredFile> {
    const opened = await this.#deps.rehydrate.openHere(call, base);
    const restored = await this.#deps.files.rehydrate(upload.bytes, upload.hint, this.#deps.executor.fileRestoreContext(call.scope, { ...base, revokedIds: opened.revokedIds }, opened));
    call.facts({ entity_count: restored.tokensResolved, ...(restored.outputGuard !== undefined ? { output_guard: restored.outputGuard.triggered } : {}) });
    return restored;
  }

  /** OCR an upload: probe and decode within the pixel limit, then recognize. */
  async #recognize(bytes: Buffer) {
    const image = await prepareImage(bytes, this.#deps.maxPixels);
    const started = performance.now();
    const page = await this.#deps.ocr.recognize(image.ocrInput);
    return { image, layout: layoutText(page), ocrMs: elapsedMs(started) };
  }

  /** OCR, the text transform (with its session), each entity placed on its word boxes. */
  async transformImage(call: UseCaseCall, command: TransformCommand, bytes: Buffer): Promise<ImageTransformDone> {
    this.requireOcr();
    const { image, layout, ocrMs } = await this.#recognize(bytes);
    const done = await this.#deps.transform.text(call, command, layout.text);
    // OCR text of one image is small; a worker-serialized body is parsed back to add boxes.
    const response = done.response ?? (JSON.parse(jsonString(done.serialized ?? '{}')) as TransformResponse);
    const spans = alignSpans(layout.text, done.input, response.entities.map((entity) => entity.span));
    const entities = response.entities.map((entity, index) => {
      const placement = placeSpan(layout.words, spans[index]!);
      return placement === undefined ? entity : { ...entity, bbox: placement.bbox, boxes: placement.boxes, ocr_confidence: placement.ocrConfidence };
    });
    return {
      format: image.format,
      entityCount: entities.length,
      response: {
        ...response,
        entities,
        ...done.handle,
        ocr: { engine: this.#deps.ocr.engine, mean_confidence: layout.meanConfidence },
        image: { format: image.format, width: image.width, height: image.height },
        stats: { ...response.stats, ocr_time_ms: ocrMs },
      },
    };
  }

  /**
   * OCR, then the transform's detection and policy decisions without keeping a session: nothing
   * here is ever rehydrated, so no session state is returned or stored.
   */
  async redactImage(call: UseCaseCall, command: TransformCommand, bytes: Buffer): Promise<ImageRedaction> {
    this.requireOcr();
    const { image, layout } = await this.#recognize(bytes);
    const run = await this.#deps.transform.runText(call, command, layout.text);
    // OCR text of one image is small; a worker-serialized body is parsed back to place boxes.
    const response = run.where === 'inline' ? run.outcome.response : (JSON.parse(jsonString(run.outcome.body)) as TransformResponse);
    const boxes: PixelBox[] = [];
    for (const span of alignSpans(layout.text, run.input, response.entities.map((entity) => entity.span))) {
      const placement = placeSpan(layout.words, span);
      // Every entity must be located, or the PNG would go out with a value still visible.
      if (placement === undefined) throw new VeilError('VEIL_INTERNAL', undefined, 'redaction box not found');
      boxes.push(...placement.boxes);
    }
    const png = await redactImage(image, boxes);
    return { png, format: image.format, regions: boxes.length, entities: response.entities.length };
  }
}
