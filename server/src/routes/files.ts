// File and image routes (interface.md 4.18, 4.19; decisions.md 5): POST /v1/transform/file,
// /v1/rehydrate/file, /v1/transform/image and /v1/redact/image, thin adapters. Multipart bodies
// are streamed with a hard size cap (file_upload.max_size_bytes: 413 the moment the cap is
// passed, nothing buffered beyond it) and their text fields validated like the JSON routes'
// schemas; the work is the files use case (usecases/files.ts: extraction on the file pool, OCR,
// the transform and rehydrate use cases, re-assembly). Filenames and part Content-Types are
// client data: they are hints for format detection only, and are never logged or echoed.
import multipart from '@fastify/multipart';
import { RESTORE_MODES, VeilError } from '@veil/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { auditFacts } from '../audit/facts.js';
import type { UseCases } from '../compose.js';
import type { ConfigSlice } from '../config/index.js';
import { CONTENT_TYPES, FILE_EXTENSIONS, type FileHint } from '../files/formats.js';
import { decodeLatin1Field } from '../domain/text/utf8.js';
import { VEIL_HEADERS } from '../plugins/response-headers.js';
import type { RestoreMode } from '../domain/types.js';
import { callOf, fingerprint, policyFact, principalOf, type CallerDeps } from './common.js';
import { rehydrateCommandOf, type RehydrateParams } from './rehydrate.js';
import { LabelSchema, LanguageSchema } from './schemas.js';
import { commandOf } from './transform.js';

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

export function fileRoutes(deps: CallerDeps & ConfigSlice<'auth' | 'file_upload' | 'server'>, useCases: Pick<UseCases, 'scopeOf' | 'files' | 'rehydrate'>) {
  return async function register(app: FastifyInstance): Promise<void> {
    const limits = deps.config.file_upload;
    // Multipart for these routes only; the size cap is applied per request in readUpload.
    await app.register(multipart, { limits: { fileSize: limits.max_size_bytes, files: 1 } });
    // Any other body type is refused here without being read (JSON is parsed by the root
    // parser and refused by readUpload).
    app.addContentTypeParser('*', (_request, _payload, done) => {
      done(new VeilError('VEIL_UNSUPPORTED_MEDIA_TYPE', 'unsupported Content-Type; send multipart/form-data'), undefined);
    });

    /** The upload of a transforming route and its command; the policy named is on record before anything can fail. */
    const transformUpload = async (request: FastifyRequest, fileField: 'file' | 'image') => {
      const upload = await readUpload(request, fileField, ['policy', 'language'], limits.max_size_bytes);
      const fields = transformFields(upload);
      auditFacts(request, policyFact(deps, fields.policy));
      return { upload, command: commandOf(deps, fields, principalOf(request)) };
    };

    app.post('/v1/transform/file', { config: { scope: 'transform' } }, async (request, reply) => {
      const { upload, command } = await transformUpload(request, 'file');
      const done = await useCases.files.transformFile(callOf(useCases, request), command, upload);
      const logFields = { event: 'file_transform_completed', format: done.format, size: done.size };
      if (done.object !== undefined) {
        request.log.info(logFields, 'file_transform_completed');
        return done.object;
      }
      request.log.info({ ...logFields, trace_id: fingerprint(done.traceId), offloaded: done.offloaded }, 'file_transform_completed');
      return reply.type('application/json; charset=utf-8').send(done.body);
    });

    app.post('/v1/rehydrate/file', { config: { scope: 'rehydrate' } }, async (request, reply) => {
      const principal = principalOf(request);
      // session_state is the one large field: bounded like a JSON body (server.body_limit_bytes).
      const upload = await readUpload(request, 'file', ['session_state', 'session_id', 'restore_mode', 'output_channel'], limits.max_size_bytes, deps.config.server.body_limit_bytes);
      const params = rehydrateFields(upload);
      const call = callOf(useCases, request);
      const base = await useCases.rehydrate.request(call, rehydrateCommandOf(deps, principal, params as RehydrateParams), '');
      const restored = await useCases.files.rehydrateFile(call, base, upload);
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
      useCases.files.requireOcr();
      const { upload, command } = await transformUpload(request, 'image');
      const done = await useCases.files.transformImage(callOf(useCases, request), command, upload.bytes);
      request.log.info({ event: 'image_transform_completed', format: done.format, trace_id: fingerprint(command.traceId), entities: done.entityCount }, 'image_transform_completed');
      return done.response;
    });

    app.post('/v1/redact/image', { config: { scope: 'transform' } }, async (request, reply) => {
      useCases.files.requireOcr();
      const { upload, command } = await transformUpload(request, 'image');
      const redacted = await useCases.files.redactImage(callOf(useCases, request), command, upload.bytes);
      request.log.info({ event: 'image_redact_completed', format: redacted.format, regions: redacted.regions }, 'image_redact_completed');
      return reply.type('image/png').header(VEIL_HEADERS.regionsRedacted, String(redacted.regions)).header(VEIL_HEADERS.entitiesRedacted, String(redacted.entities)).send(redacted.png);
    });
  };
}
