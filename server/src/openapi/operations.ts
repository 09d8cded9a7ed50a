// What the OpenAPI document needs beyond the route schemas (openapi/document.ts): a summary and a
// tag per operation, the error codes each one can return beyond the ones every route of its
// kind returns, and the bodies the routes read or write without a JSON schema of their own
// (multipart uploads, server-sent events, ndjson, files, PNG, metrics text) or without a
// response schema (documented here in TypeBox; schemathesis checks the real responses against
// them, see Makefile `schemathesis`). A route missing from this table fails the drift test.
import type { ErrorCode } from '@veil/common';
import { Type, type TSchema } from 'typebox';

export interface MediaDoc {
  readonly schema: TSchema;
  readonly description?: string;
}

export interface OperationDoc {
  readonly summary: string;
  readonly tag: string;
  /** Route-specific error codes (the generic ones are derived from the route: auth, body, idempotency). */
  readonly errors?: readonly ErrorCode[];
  /** Request body media types when the route has no JSON body schema (or accepts more than JSON). */
  readonly requestBody?: Readonly<Record<string, MediaDoc>>;
  readonly requestBodyRequired?: boolean;
  /** The 200 response when the route declares no response schema, or answers in another media type. */
  readonly response?: Readonly<Record<string, MediaDoc>>;
  /** Other success statuses (e.g. /readyz 503). */
  readonly otherResponses?: Readonly<Record<string, { readonly description: string; readonly content: Readonly<Record<string, MediaDoc>> }>>;
}

const Status = (values: readonly string[]) => Type.Union(values.map((value) => Type.Literal(value)));
const ComponentStatus = Type.Object({ status: Status(['healthy', 'degraded', 'unhealthy']), message: Type.String() });
const Warnings = Type.Optional(Type.Array(Type.String()));

const TRANSFORM_ERRORS: readonly ErrorCode[] = [
  'VEIL_POLICY_DENIED',
  'VEIL_SESSION_EXPIRED',
  'VEIL_SESSION_REPLAY',
  'VEIL_REPLAY_STORE_UNAVAILABLE',
  'VEIL_STORE_UNAVAILABLE',
  // The tenant's share of the session, replay or idempotency store is used up.
  'VEIL_QUOTA_EXCEEDED',
  'VEIL_DETECTION_FAILED',
  'VEIL_LIMIT_EXCEEDED',
  'VEIL_PROMPT_REJECTED',
];
const REHYDRATE_ERRORS: readonly ErrorCode[] = ['VEIL_POLICY_DENIED', 'VEIL_SESSION_EXPIRED', 'VEIL_STORE_UNAVAILABLE', 'VEIL_REPLAY_STORE_UNAVAILABLE', 'VEIL_OUTPUT_BLOCKED'];
const FILE_ERRORS: readonly ErrorCode[] = [...TRANSFORM_ERRORS, 'VEIL_NOT_READY'];
/** The OpenAI-compatible proxy: not enabled (404), the upstream's failures, the transform's errors. */
const PROXY_ERRORS: readonly ErrorCode[] = [...TRANSFORM_ERRORS, 'VEIL_NOT_FOUND', 'VEIL_UPSTREAM_FAILED'];
/** The upstream's answer as the proxy passes it on (text restored; every other field unchanged). */
const OpenAiObject = (description: string) => Type.Object({}, { additionalProperties: true, description });
const IMAGE_ERRORS: readonly ErrorCode[] = [...FILE_ERRORS, 'VEIL_OCR_UNAVAILABLE'];

/** One server-sent event as a client parses it (`data:` lines joined; the event name when given). */
const SSE: MediaDoc = {
  schema: Type.Object({
    data: Type.String({ contentMediaType: 'application/json' }),
    event: Type.Optional(Type.String()),
    id: Type.Optional(Type.String()),
    retry: Type.Optional(Type.Integer()),
  }),
  description:
    'Server-sent events: `data: <JSON>` frames. Transform frames are `{index, safe_text, entities}` (or the whole document in JSON and chat modes), rehydrate frames `{index, restored_text}`; the last frame has `complete: true` with the session handle, stats and counts. An error after the first frame is one terminal frame `{error, complete: true}`.',
};

function multipart(fileField: string, fields: Readonly<Record<string, TSchema>>, description: string): Readonly<Record<string, MediaDoc>> {
  return {
    'multipart/form-data': {
      description,
      schema: Type.Object({ [fileField]: Type.String({ contentMediaType: 'application/octet-stream', contentEncoding: 'binary' }), ...Object.fromEntries(Object.entries(fields).map(([name, schema]) => [name, Type.Optional(schema)])) }, { required: [fileField] }),
    },
  };
}

const FileTransformResponse = Type.Object({
  safe_text: Type.String(),
  entities: Type.Array(Type.Object({}, { additionalProperties: true })),
  session_state: Type.Optional(Type.String()),
  session_id: Type.Optional(Type.String()),
  original_format: Type.String(),
  original_size: Type.Integer(),
  stats: Type.Object({}, { additionalProperties: true }),
});

export const OPERATIONS: Readonly<Record<string, OperationDoc>> = {
  'GET /livez': {
    summary: 'Liveness probe (no auth)',
    tag: 'probes',
    response: { 'application/json': { schema: Type.Object({ status: Type.Literal('ok') }) } },
  },
  'GET /readyz': {
    summary: 'Readiness probe (no auth): policies loaded, NER sidecar ready when the mode needs it, audit sink healthy',
    tag: 'probes',
    response: { 'application/json': { schema: Type.Object({ status: Type.Literal('ready') }) } },
    otherResponses: { 503: { description: 'Not ready', content: { 'application/json': { schema: Type.Object({ status: Type.Literal('not_ready') }) } } } },
  },
  'GET /v1/health': {
    summary: 'Health of the service and its components',
    tag: 'system',
    response: {
      'application/json': {
        schema: Type.Object({
          status: Status(['healthy', 'degraded', 'unhealthy']),
          version: Type.String(),
          uptime_seconds: Type.Integer(),
          components: Type.Object({ detector: ComponentStatus, session: ComponentStatus, policies: ComponentStatus, audit: ComponentStatus }),
        }),
      },
    },
  },
  'GET /v1/capabilities': {
    summary: 'Entity types, languages, detectors, restore modes, channels, limits and OCR availability',
    tag: 'system',
    response: {
      'application/json': {
        schema: Type.Object({
          entity_types: Type.Array(
            Type.Object({ type: Type.String(), prefix: Type.String(), protection_level: Type.String(), source: Type.String(), languages: Type.Array(Type.String()) }),
          ),
          languages: Type.Array(Type.String()),
          detectors: Type.Array(Type.Object({ name: Type.String(), type: Status(['builtin', 'python', 'custom']) })),
          restore_modes: Type.Array(Type.String()),
          output_channels: Type.Array(Type.String()),
          ner_active: Type.Boolean(),
          max_batch_size: Type.Integer(),
          file_formats: Type.Array(Type.String()),
          max_file_size_bytes: Type.Integer(),
          ocr: Type.Object({ engine: Type.String(), languages: Type.Array(Type.String()), available: Type.Boolean() }),
        }),
      },
    },
  },
  'GET /v1/diagnostics': {
    summary: 'What the server runs with: modes, backends, policies and hashes, key-ring generations, last reloads (names, hashes and times only)',
    tag: 'system',
    response: {
      'application/json': {
        schema: Type.Object(
          { version: Type.String(), uptime_seconds: Type.Integer(), detector_mode: Type.String(), session_backend: Type.String(), policy_watch_enabled: Type.Boolean(), last_policy_reload_unix: Type.Union([Type.Number(), Type.Null()]) },
          { additionalProperties: true },
        ),
      },
    },
  },
  'GET /metrics': {
    summary: 'Prometheus metrics (text exposition format)',
    tag: 'system',
    response: { 'text/plain': { schema: Type.String() } },
  },
  'GET /openapi.json': {
    summary: 'This OpenAPI 3.1 document (limits reflect the running configuration)',
    tag: 'system',
    response: { 'application/json': { schema: Type.Object({ openapi: Type.String() }, { additionalProperties: true }) } },
  },
  'GET /openapi.html': {
    summary: 'The API reference rendered from this document (self-contained HTML)',
    tag: 'system',
    response: { 'text/html': { schema: Type.String() } },
  },
  'POST /v1/transform': { summary: 'Detect and tokenize text, a JSON document or chat messages', tag: 'transform', errors: TRANSFORM_ERRORS },
  'POST /v1/transform/stream': { summary: 'Transform, answered as server-sent events', tag: 'transform', errors: TRANSFORM_ERRORS, response: { 'text/event-stream': SSE } },
  'POST /v1/transform/file': {
    summary: 'Extract the text of a file (txt, csv, json, pdf, docx, ...) and tokenize it',
    tag: 'files',
    errors: FILE_ERRORS,
    requestBody: multipart('file', { policy: Type.String(), language: Type.String() }, 'The file and optional policy and language fields.'),
    requestBodyRequired: true,
    response: { 'application/json': { schema: FileTransformResponse } },
  },
  'POST /v1/transform/image': {
    summary: 'OCR an image and tokenize its text; entities carry bounding boxes',
    tag: 'files',
    errors: IMAGE_ERRORS,
    requestBody: multipart('image', { policy: Type.String(), language: Type.String() }, 'The image (PNG, JPEG, WebP, ...) and optional policy and language fields.'),
    requestBodyRequired: true,
    response: { 'application/json': { schema: Type.Object({ safe_text: Type.String(), entities: Type.Array(Type.Object({}, { additionalProperties: true })) }, { additionalProperties: true }) } },
  },
  'POST /v1/redact/image': {
    summary: 'OCR an image and black out the detected values',
    tag: 'files',
    errors: IMAGE_ERRORS,
    requestBody: multipart('image', { policy: Type.String(), language: Type.String() }, 'The image and optional policy and language fields.'),
    requestBodyRequired: true,
    response: { 'image/png': { schema: Type.String({ contentMediaType: 'image/png', contentEncoding: 'binary' }) } },
  },
  'POST /v1/rehydrate/file': {
    summary: 'Restore the tokens of a tokenized file; answers the file in its original format',
    tag: 'files',
    errors: [...REHYDRATE_ERRORS, 'VEIL_LIMIT_EXCEEDED'],
    requestBody: multipart(
      'file',
      { session_state: Type.String(), session_id: Type.String(), restore_mode: Type.String(), output_channel: Type.String() },
      'The tokenized file and the session handle, restore mode and output channel fields.',
    ),
    requestBodyRequired: true,
    response: { 'application/octet-stream': { schema: Type.String({ contentEncoding: 'binary' }), description: 'The restored file (Content-Type of its format; X-Veil-* headers carry the counts).' } },
  },
  'POST /v1/entity-types': { summary: 'Validate a custom entity-type name (nothing stored)', tag: 'validation' },
  'POST /v1/patterns': {
    summary: 'Validate a custom pattern, optionally against a sample (nothing stored)',
    tag: 'validation',
    response: {
      'application/json': {
        schema: Type.Object({ valid: Type.Boolean(), error: Type.Optional(Type.String()), matches: Type.Optional(Type.Array(Type.Object({ start: Type.Integer(), end: Type.Integer() }))) }),
      },
    },
  },
  'POST /v1/rehydrate': { summary: 'Restore the tokens of a model output', tag: 'rehydrate', errors: REHYDRATE_ERRORS },
  'POST /v1/rehydrate/stream': {
    summary: 'Rehydrate as server-sent events; an application/x-ndjson body streams model deltas in',
    tag: 'rehydrate',
    errors: REHYDRATE_ERRORS,
    requestBody: {
      'application/x-ndjson': {
        schema: Type.String(),
        description: 'First line: the rehydrate parameters without `output`; every further line `{"delta": "..."}`.',
      },
    },
    response: { 'text/event-stream': SSE },
  },
  'POST /v1/detect': { summary: 'Detect without transforming; raw values only with the detect_values scope', tag: 'detect', errors: ['VEIL_DETECTION_FAILED', 'VEIL_LIMIT_EXCEEDED', 'VEIL_POLICY_DENIED'] },
  'POST /v1/evaluate-policy': {
    summary: 'Dry-run the policy on entity types (and optional values)',
    tag: 'policy',
    errors: ['VEIL_POLICY_DENIED'],
    response: {
      'application/json': {
        schema: Type.Object({
          decisions: Type.Array(
            Type.Object({ entity_type: Type.String(), action: Type.String(), protection_level: Type.String(), rule_matched: Type.String(), restore_mode: Type.String(), reason: Type.Optional(Type.String()) }),
          ),
          policy_version: Type.String(),
          warnings: Warnings,
        }),
      },
    },
  },
  'POST /v1/batch/transform': { summary: 'Transform many items; per-item errors in the results', tag: 'batch', errors: TRANSFORM_ERRORS },
  'POST /v1/batch/detect': { summary: 'Detect in many items', tag: 'batch', errors: ['VEIL_DETECTION_FAILED', 'VEIL_LIMIT_EXCEEDED', 'VEIL_POLICY_DENIED'] },
  'POST /v1/rag/ingest': { summary: 'Tokenize a document into chunks with corpus-stable tokens', tag: 'rag', errors: TRANSFORM_ERRORS },
  'POST /v1/rag/ingest/batch': { summary: 'Ingest many documents', tag: 'rag', errors: TRANSFORM_ERRORS },
  'POST /v1/rag/query': { summary: 'Tokenize a query with the corpus tokens', tag: 'rag', errors: TRANSFORM_ERRORS },
  'POST /v1/rag/context': { summary: 'Build a model context from retrieved chunks', tag: 'rag', errors: [...TRANSFORM_ERRORS, 'VEIL_OUTPUT_BLOCKED'] },
  'POST /v1/rag/answer': { summary: 'Restore a model answer over retrieved chunks', tag: 'rag', errors: REHYDRATE_ERRORS },
  'POST /v1/rag/delete': { summary: 'Erase a document: revoke its values and invalidate its session', tag: 'revoke', errors: ['VEIL_SESSION_EXPIRED', 'VEIL_STORE_UNAVAILABLE', 'VEIL_REPLAY_STORE_UNAVAILABLE', 'VEIL_QUOTA_EXCEEDED', 'VEIL_POLICY_DENIED'] },
  'POST /v1/revoke': { summary: 'Revoke one value: later rehydrates restore it as [DELETED]', tag: 'revoke', errors: ['VEIL_STORE_UNAVAILABLE', 'VEIL_QUOTA_EXCEEDED'] },
  'POST /v1/revoke/bulk': { summary: 'Revoke many values at once', tag: 'revoke', errors: ['VEIL_STORE_UNAVAILABLE', 'VEIL_QUOTA_EXCEEDED'] },
  'GET /v1/revocations/count': { summary: 'Revocations in the caller’s own scope', tag: 'revoke', errors: ['VEIL_STORE_UNAVAILABLE'] },
  'POST /v1/sessions/status': { summary: 'Lifecycle state of a session', tag: 'sessions', errors: ['VEIL_SESSION_EXPIRED', 'VEIL_STORE_UNAVAILABLE', 'VEIL_REPLAY_STORE_UNAVAILABLE'] },
  'DELETE /v1/sessions': { summary: 'Invalidate a session', tag: 'sessions', errors: ['VEIL_SESSION_EXPIRED', 'VEIL_STORE_UNAVAILABLE', 'VEIL_REPLAY_STORE_UNAVAILABLE', 'VEIL_QUOTA_EXCEEDED'] },
  'POST /v1/admin/policy/validate': {
    summary: 'Validate a policy directory and preview the changes against the loaded set (no swap)',
    tag: 'admin',
    response: { 'application/json': { schema: Type.Object({ valid: Type.Boolean(), errors: Type.Array(Type.Unknown()), changes: Type.Array(Type.Unknown()) }) } },
  },
  'POST /v1/admin/policy/reload': {
    summary: 'Reload the policy directory (atomic swap when the new set is valid)',
    tag: 'admin',
    requestBody: { 'application/json': { schema: Type.Object({}, { additionalProperties: false }), description: 'No body, or an empty object.' } },
    requestBodyRequired: false,
    response: {
      'application/json': {
        schema: Type.Object({ reloaded: Type.Boolean(), changes: Type.Array(Type.Unknown()), errors: Type.Optional(Type.Array(Type.Unknown())) }),
      },
    },
  },
  'POST /openai/v1/chat/completions': {
    summary: 'OpenAI-compatible chat completions: messages tokenized, the upstream called, the answer restored (whole or streamed)',
    tag: 'proxy',
    errors: [...PROXY_ERRORS, 'VEIL_OUTPUT_BLOCKED'],
    response: {
      'application/json': { schema: OpenAiObject('A chat.completion object (`stream` false or absent): content, refusal and tool-call arguments restored.') },
      'text/event-stream': {
        schema: SSE.schema,
        description:
          'With `stream: true`: `data: {chat.completion.chunk}` events in the upstream framing, text restored chunk by chunk, then `data: [DONE]`. An error after the first event is one event `data: {"error": {message, type, code}}` and the stream ends without `[DONE]`.',
      },
    },
  },
  'POST /openai/v1/embeddings': {
    summary: 'OpenAI-compatible embeddings: input tokenized, the upstream’s answer passed unchanged',
    tag: 'proxy',
    errors: PROXY_ERRORS,
    response: { 'application/json': { schema: OpenAiObject('The upstream’s embeddings list (vectors carry no text).') } },
  },
};
