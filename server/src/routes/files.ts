// File and image routes (interface.md 4.18, 4.19; decisions.md 5): POST /v1/transform/file,
// /v1/rehydrate/file, /v1/transform/image and /v1/redact/image. Multipart bodies are streamed
// with a hard size cap (file_upload.max_size_bytes: 413 the moment the cap is passed, nothing
// buffered beyond it); parsing runs on the bounded file pool (services/files.ts), OCR on the
// tesseract workers (services/ocr.ts), pixels in sharp (services/images.ts). Detection, policy,
// tokenization, sessions, the deny list and revocations are the transform and rehydrate use
// cases (usecases/), so a file is protected exactly like the same text sent to /v1/transform. Filenames
// and part Content-Types are client data: they are hints for format detection only, and are
// never logged or echoed.
import multipart from '@fastify/multipart';
import { RESTORE_MODES, VeilError } from '@veil/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { auditFacts } from '../audit/facts.js';
import type { UseCases } from '../compose.js';
import type { AppDeps } from '../deps.js';
import { CONTENT_TYPES, FILE_EXTENSIONS, serializeJson, type FileHint } from '../files/formats.js';
import { createFilePool, type FilePool } from '../services/files.js';
import { alignSpans, layoutText, placeSpan, prepareImage, redactImage, type PixelBox } from '../services/images.js';
import { createOcrEngine, type OcrEngine } from '../services/ocr.js';
import { withHandle } from '../services/state.js';
import type { TransformResponse } from '../services/transform.js';
import { ringMaterialOf } from '../usecases/executor.js';
import { decodeLatin1Field } from '../domain/text/utf8.js';
import { jsonLimits } from '../plugins/json.js';
import { VEIL_HEADERS } from '../plugins/response-headers.js';
import type { RestoreMode } from '../domain/types.js';
import { callOf, fingerprint, ms, policyFact, principalOf } from './common.js';
import { rehydrateCommandOf, type RehydrateParams } from './rehydrate.js';
import { LabelSchema, LanguageSchema } from './schemas.js';
import { commandOf } from './transform.js';
import { jsonString } from '../services/json-text.js';

/** Multipart field names are echoed in errors only when they look like identifiers. */
const SAFE_FIELD = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const LANGUAGE = new RegExp((LanguageSchema as unknown as { pattern: string }).pattern);
const LABEL = new RegExp((LabelSchema as unknown as { pattern: string }).pattern);
/** session_state and session_id bounds, as in the JSON routes (routes/schemas.ts). */
const MAX_SESSION_STATE = 16 * 1024 * 1024;
const MAX_SESSION_ID = 128;
const MAX_POLICY_NAME = 128;

export interface Upload {
  readonly bytes: Buffer;
  readonly hint: FileHint;
  readonly fields: ReadonlyMap<string, string>;
}

function fieldName(name: string): string {
  return SAFE_FIELD.test(name) ? name : '<field>';
}

function isVeilLike(error: unknown): error is VeilError {
  return error instanceof VeilError;
}

/** @fastify/multipart and busboy errors, mapped to the envelope without their text. */
function multipartError(error: unknown, fileField: string): VeilError {
  if (isVeilLike(error)) return error;
  const code = (error as { code?: unknown }).code;
  switch (code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return new VeilError('VEIL_PAYLOAD_TOO_LARGE', `${fileField}: exceeds the upload size limit (file_upload.max_size_bytes)`);
    case 'FST_FILES_LIMIT':
      return new VeilError('VEIL_VALIDATION_FAILED', `${fileField}: send exactly one file part`);
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return new VeilError('VEIL_PAYLOAD_TOO_LARGE', 'body: too many multipart parts');
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new VeilError('VEIL_UNSUPPORTED_MEDIA_TYPE', 'unsupported Content-Type; send multipart/form-data');
    default:
      return new VeilError('VEIL_VALIDATION_FAILED', 'body: is not a valid multipart/form-data body', typeof code === 'string' ? code : 'multipart');
  }
}

/** Text fields of the transform and image routes (policy, language) are short. */
const SMALL_FIELD_BYTES = 1024;

/**
 * Read one multipart upload: exactly one file part named `fileField` (streamed, never past
 * `maxBytes`), and text fields from `allowed`, each at most once and at most `maxFieldBytes`
 * (busboy buffers a field whole, so the bound applies while reading). Anything else is refused.
 */
export async function readUpload(
  request: FastifyRequest,
  fileField: string,
  allowed: readonly string[],
  maxBytes: number,
  maxFieldBytes: number = SMALL_FIELD_BYTES,
): Promise<Upload> {
  if (!request.isMultipart()) throw new VeilError('VEIL_UNSUPPORTED_MEDIA_TYPE', `unsupported Content-Type; send multipart/form-data with a \`${fileField}\` part`);
  let file: Upload['bytes'] | undefined;
  let hint: FileHint = {};
  const fields = new Map<string, string>();
  try {
    // One field over `allowed` gets through busboy so it is refused by name, not as a count.
    // Text fields arrive as bytes (latin1: one code unit per byte) and are decoded as strict
    // UTF-8 below: busboy's own UTF-8 decoding would turn invalid bytes into U+FFFD.
    const parts = request.parts({
      limits: { fileSize: maxBytes, files: 1, fields: allowed.length + 1, parts: allowed.length + 2, fieldSize: maxFieldBytes },
      defCharset: 'latin1',
    });
    for await (const part of parts) {
      if (part.type === 'file') {
        if (part.fieldname !== fileField) throw new VeilError('VEIL_VALIDATION_FAILED', `${fieldName(part.fieldname)}: unknown field`);
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of part.file) {
          const data = chunk as Buffer;
          size += data.length;
          // busboy truncates at fileSize; stop at once rather than read the rest of the upload.
          if (part.file.truncated || size > maxBytes) {
            throw new VeilError('VEIL_PAYLOAD_TOO_LARGE', `${fileField}: exceeds the upload size limit (file_upload.max_size_bytes)`);
          }
          chunks.push(data);
        }
        if (part.file.truncated) throw new VeilError('VEIL_PAYLOAD_TOO_LARGE', `${fileField}: exceeds the upload size limit (file_upload.max_size_bytes)`);
        file = Buffer.concat(chunks, size);
        hint = { filename: part.filename, mimetype: part.mimetype };
        continue;
      }
      const name = part.fieldname;
      if (name === fileField) throw new VeilError('VEIL_VALIDATION_FAILED', `${fileField}: must be a file part`);
      if (!allowed.includes(name)) throw new VeilError('VEIL_VALIDATION_FAILED', `${fieldName(name)}: unknown field`);
      if (fields.has(name)) throw new VeilError('VEIL_VALIDATION_FAILED', `${name}: sent more than once`);
      if (part.valueTruncated) throw new VeilError('VEIL_PAYLOAD_TOO_LARGE', `${name}: is too large`);
      if (typeof part.value !== 'string') throw new VeilError('VEIL_VALIDATION_FAILED', `${name}: must be a string`);
      fields.set(name, decodeLatin1Field(part.value, name));
    }
  } catch (error) {
    throw multipartError(error, fileField);
  }
  if (file === undefined) throw new VeilError('VEIL_VALIDATION_FAILED', `${fileField}: is required`);
  if (file.length === 0) throw new VeilError('VEIL_VALIDATION_FAILED', `${fileField}: is empty`);
  return { bytes: file, hint, fields };
}

/** The `policy` and `language` fields, validated like the JSON routes' schema does. */
function transformFields(upload: Upload): { policy?: string; language?: string } {
  const policy = upload.fields.get('policy');
  const language = upload.fields.get('language');
  if (policy !== undefined && (policy.length === 0 || policy.length > MAX_POLICY_NAME)) throw new VeilError('VEIL_VALIDATION_FAILED', 'policy: must be 1 to 128 characters');
  if (language !== undefined && !LANGUAGE.test(language)) throw new VeilError('VEIL_VALIDATION_FAILED', 'language: has an invalid format');
  return { ...(policy !== undefined ? { policy } : {}), ...(language !== undefined ? { language } : {}) };
}

function rehydrateFields(upload: Upload): { session_state?: string; session_id?: string; restore_mode?: RestoreMode; output_channel?: string } {
  const sessionState = upload.fields.get('session_state');
  const sessionId = upload.fields.get('session_id');
  const restoreMode = upload.fields.get('restore_mode');
  const channel = upload.fields.get('output_channel');
  if (sessionState !== undefined && (sessionState.length === 0 || sessionState.length > MAX_SESSION_STATE)) throw new VeilError('VEIL_VALIDATION_FAILED', 'session_state: has an invalid length');
  if (sessionId !== undefined && (sessionId.length === 0 || sessionId.length > MAX_SESSION_ID)) throw new VeilError('VEIL_VALIDATION_FAILED', 'session_id: has an invalid length');
  if (restoreMode !== undefined && !(RESTORE_MODES as readonly string[]).includes(restoreMode)) throw new VeilError('VEIL_VALIDATION_FAILED', 'restore_mode: must be one of the allowed values');
  if (channel !== undefined && (channel.length > 64 || !LABEL.test(channel))) throw new VeilError('VEIL_VALIDATION_FAILED', 'output_channel: has an invalid format');
  return {
    ...(sessionState !== undefined ? { session_state: sessionState } : {}),
    ...(sessionId !== undefined ? { session_id: sessionId } : {}),
    ...(restoreMode !== undefined ? { restore_mode: restoreMode as RestoreMode } : {}),
    ...(channel !== undefined ? { output_channel: channel } : {}),
  };
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

interface ImageRun {
  readonly image: Awaited<ReturnType<typeof prepareImage>>;
  readonly layout: ReturnType<typeof layoutText>;
  readonly ocrMs: number;
}

export function fileRoutes(deps: AppDeps, useCases: UseCases) {
  return async function register(app: FastifyInstance): Promise<void> {
    const limits = deps.config.file_upload;
    const ownsFiles = deps.files === undefined;
    const ownsOcr = deps.ocr === undefined;
    const files: FilePool = deps.files ?? createFilePool({ limits, json: jsonLimits(deps.config) });
    const ocr: OcrEngine = deps.ocr ?? createOcrEngine(deps.config.ocr, (message) => app.log.warn(message));
    app.addHook('onClose', async () => {
      if (ownsFiles) await files.close();
      if (ownsOcr) await ocr.close();
    });
    // Multipart for these routes only; the size cap is applied per request in readUpload.
    await app.register(multipart, { limits: { fileSize: limits.max_size_bytes, files: 1 } });
    // Any other body type is refused here without being read (JSON is parsed by the root
    // parser and refused by readUpload).
    app.addContentTypeParser('*', (_request, _payload, done) => {
      done(new VeilError('VEIL_UNSUPPORTED_MEDIA_TYPE', 'unsupported Content-Type; send multipart/form-data'), undefined);
    });

    /** OCR an upload: probe and decode within the pixel limit, then recognize. */
    const recognize = async (bytes: Buffer): Promise<ImageRun> => {
      const image = await prepareImage(bytes, limits.max_pixels);
      const started = performance.now();
      const page = await ocr.recognize(image.ocrInput);
      return { image, layout: layoutText(page), ocrMs: ms(started) };
    };

    const requireOcr = (): void => {
      if (ocr.engine === 'none') throw new VeilError('VEIL_OCR_UNAVAILABLE', 'no OCR engine is available on this server', 'ocr.engine is none');
    };

    app.post('/v1/transform/file', { config: { scope: 'transform' } }, async (request, reply) => {
      const principal = principalOf(request);
      const upload = await readUpload(request, 'file', ['policy', 'language'], limits.max_size_bytes);
      const fields = transformFields(upload);
      auditFacts(request, policyFact(deps, fields.policy));
      // Read before the bytes move to the parsing thread (their view is detached then).
      const size = upload.bytes.length;
      const started = performance.now();
      const extracted = await files.extract(upload.bytes, upload.hint);
      const extractionMs = ms(started);
      const extra = { original_format: extracted.format, original_size: size, ...(extracted.format === 'pdf' && extracted.pages !== undefined ? { pages: extracted.pages } : {}) };
      const logFields = { event: 'file_transform_completed', format: extracted.format, size };
      const call = callOf(useCases, request);
      if (extracted.format === 'json') {
        const command = commandOf(deps, { input_json: extracted.value, ...fields }, principal);
        const done = await useCases.transform.structured(call, command, { kind: 'json', value: extracted.value });
        // A worker's body is parsed back: the document is bounded by the limits the upload passed.
        const response = done.json !== undefined ? (JSON.parse(done.json.map(jsonString).join('')) as Record<string, unknown>) : done.object;
        request.log.info(logFields, 'file_transform_completed');
        const stats = response.stats as Record<string, unknown>;
        return {
          ...response,
          // The tokenized document, written the way the uploaded one was.
          safe_text: serializeJson(response.safe_json, extracted.indent, extracted.text.endsWith('\n')),
          stats: { ...stats, extraction_time_ms: extractionMs },
          ...extra,
        };
      }
      const command = commandOf(deps, { input: extracted.text, ...fields }, principal);
      const done = await useCases.transform.text(call, command, extracted.text);
      request.log.info({ ...logFields, trace_id: fingerprint(command.traceId), offloaded: done.serialized !== undefined }, 'file_transform_completed');
      const serialized = done.serialized !== undefined ? jsonString(done.serialized) : JSON.stringify(done.response);
      return reply.type('application/json; charset=utf-8').send(withHandle(spliceResponse(serialized, extra, ['extraction_time_ms', extractionMs]), done.handle));
    });

    app.post('/v1/rehydrate/file', { config: { scope: 'rehydrate' } }, async (request, reply) => {
      const principal = principalOf(request);
      // session_state is the one large field: bounded like a JSON body (server.body_limit_bytes).
      const upload = await readUpload(request, 'file', ['session_state', 'session_id', 'restore_mode', 'output_channel'], limits.max_size_bytes, deps.config.server.body_limit_bytes);
      const params = rehydrateFields(upload);
      const call = callOf(useCases, request);
      const base = await useCases.rehydrate.request(call, rehydrateCommandOf(deps, principal, params as RehydrateParams), '');
      // Open, deny list and revocations on the event loop, exactly as /v1/rehydrate does.
      const opened = await useCases.rehydrate.openHere(call, base);
      const restored = await files.rehydrate(upload.bytes, upload.hint, {
        request: { ...base, revokedIds: opened.revokedIds },
        ring: ringMaterialOf(call.scope.keyRing),
        policies: call.scope.registry.snapshot(),
        templates: deps.config.restore_templates,
        outputProtection: opened.env.outputProtection,
        nowMs: call.scope.nowMs,
      });
      auditFacts(request, { entity_count: restored.tokensResolved, ...(restored.outputGuard !== undefined ? { output_guard: restored.outputGuard.triggered } : {}) });
      request.log.info(
        { event: 'file_rehydrate_completed', format: restored.format, trace_id: fingerprint(base.traceId ?? ''), resolved: restored.tokensResolved, unresolved: restored.tokensUnresolved.length },
        'file_rehydrate_completed',
      );
      return reply
        .type(CONTENT_TYPES[restored.format])
        .header('content-disposition', `attachment; filename="restored.${FILE_EXTENSIONS[restored.format]}"`)
        .header(VEIL_HEADERS.originalFormat, restored.format)
        .header(VEIL_HEADERS.tokensResolved, String(restored.tokensResolved))
        .header(VEIL_HEADERS.tokensUnresolved, String(restored.tokensUnresolved.length))
        .header(VEIL_HEADERS.outputGuard, restored.outputGuard === undefined ? 'disabled' : restored.outputGuard.triggered ? 'triggered' : 'clear')
        .send(Buffer.from(restored.bytes.buffer, restored.bytes.byteOffset, restored.bytes.byteLength));
    });

    app.post('/v1/transform/image', { config: { scope: 'transform' } }, async (request) => {
      requireOcr();
      const principal = principalOf(request);
      const upload = await readUpload(request, 'image', ['policy', 'language'], limits.max_size_bytes);
      const fields = transformFields(upload);
      auditFacts(request, policyFact(deps, fields.policy));
      const { image, layout, ocrMs } = await recognize(upload.bytes);
      const command = commandOf(deps, { input: layout.text, ...fields }, principal);
      const done = await useCases.transform.text(callOf(useCases, request), command, layout.text);
      // OCR text of one image is small; a worker-serialized body is parsed back to add boxes.
      const response = done.response ?? (JSON.parse(jsonString(done.serialized ?? '{}')) as TransformResponse);
      const spans = alignSpans(layout.text, done.input, response.entities.map((entity) => entity.span));
      const entities = response.entities.map((entity, index) => {
        const placement = placeSpan(layout.words, spans[index]!);
        return placement === undefined ? entity : { ...entity, bbox: placement.bbox, boxes: placement.boxes, ocr_confidence: placement.ocrConfidence };
      });
      request.log.info({ event: 'image_transform_completed', format: image.format, trace_id: fingerprint(command.traceId), entities: entities.length }, 'image_transform_completed');
      return {
        ...response,
        entities,
        ...done.handle,
        ocr: { engine: ocr.engine, mean_confidence: layout.meanConfidence },
        image: { format: image.format, width: image.width, height: image.height },
        stats: { ...response.stats, ocr_time_ms: ocrMs },
      };
    });

    app.post('/v1/redact/image', { config: { scope: 'transform' } }, async (request, reply) => {
      requireOcr();
      const principal = principalOf(request);
      const upload = await readUpload(request, 'image', ['policy', 'language'], limits.max_size_bytes);
      const fields = transformFields(upload);
      auditFacts(request, policyFact(deps, fields.policy));
      const { image, layout } = await recognize(upload.bytes);
      // The transform's detection and policy decisions, without keeping a session: nothing
      // here is ever rehydrated, so no session state is returned or stored.
      const command = commandOf(deps, { input: layout.text, ...fields }, principal);
      const run = await useCases.transform.runText(callOf(useCases, request), command, layout.text);
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
      request.log.info({ event: 'image_redact_completed', format: image.format, regions: boxes.length }, 'image_redact_completed');
      return reply
        .type('image/png')
        .header(VEIL_HEADERS.regionsRedacted, String(boxes.length))
        .header(VEIL_HEADERS.entitiesRedacted, String(response.entities.length))
        .send(png);
    });
  };
}
