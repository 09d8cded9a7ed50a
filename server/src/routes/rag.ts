// The RAG routes (interface.md 4.9 to 4.14): POST /v1/rag/ingest, /v1/rag/ingest/batch,
// /v1/rag/query, /v1/rag/context, /v1/rag/answer, /v1/rag/delete. Schemas here (TypeBox,
// unknown fields rejected), the work in the RAG use case (usecases/rag.ts). Ingest, ingest/batch and delete are
// idempotent routes (interface.md section 8). The ingest, query and context results carry the
// session handle the backend uses (a sealed blob, or a server-side id); chunk_session_state is
// always a sealed blob because the caller stores it beside its chunk.
//
// Clearance (context and answer, the routes that return or restore classified material): the
// caller may read chunks and values up to its credential's access_level (API-key entry field,
// token claim `access_level`); a credential without one reads only the lowest level. The body's
// access_level can lower that, never raise it. In dev mode (no credentials) the clearance is the
// top level, lowered by the body, as before. Query returns nothing classified (only the caller's
// own query, tokenized), and chunk blobs are opened by no restoring route but context.
import { isVeilError, VeilError } from '@veil/common';
import { Ajv, type ValidateFunction } from 'ajv';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { auditFacts, recordIntent } from '../audit/index.js';
import type { NerLog } from '../services/ner.js';
import type { UseCases } from '../compose.js';
import { CHUNKING_STRATEGIES, MAX_CHUNK_SIZE, MIN_CHUNK_SIZE } from '../domain/rag/chunking.js';
import { ClassificationLattice } from '../domain/rag/classification.js';
import { validationMessage } from '../plugins/errors.js';
import { chargeRateLimit, chargeRateLimitAfter } from '../plugins/rate-limit.js';
import { bodySize } from '../plugins/json.js';
import {
  MAX_CONTEXT_CHUNKS,
  type IngestResponse,
  type RagScope,
  type Sealed,
} from '../services/rag.js';
import { withHandle } from '../services/state.js';
import { RawJson, serializeSliced } from '../services/offload.js';
import { callerOf, effectiveContext, fingerprint, principalOf, type CallerDeps, type ConfigSlice, type Principal } from './common.js';
import { scopeOf } from './revoke.js';
import { ContextSchema, LabelSchema, LanguageSchema, OutputGuardSchema, PolicyNameSchema, PromptSecuritySchema, SessionStateSchema } from './schemas.js';

/** A corpus id: 1 to 128 characters, letters and digits first, then also `.`, `_`, `:`, `-`. */
export const CORPUS_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$';
const CorpusIdSchema = Type.String({ pattern: CORPUS_ID_PATTERN });
const SessionIdSchema = Type.String({ minLength: 1, maxLength: 128 });
/** A classification label as callers send it; unknown labels rank most restrictive. */
const ClassificationSchema = Type.String({ minLength: 1, maxLength: 128 });

const DocumentMetadataSchema = Type.Object(
  {
    document_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    classification: Type.Optional(ClassificationSchema),
    owner: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 64 })),
  },
  { additionalProperties: false },
);

export const IngestBodySchema = Type.Object(
  {
    text: Type.String({ minLength: 1 }),
    chunking_strategy: Type.Optional(Type.Union(CHUNKING_STRATEGIES.map((strategy) => Type.Literal(strategy)))),
    chunk_size: Type.Optional(Type.Integer({ minimum: MIN_CHUNK_SIZE, maximum: MAX_CHUNK_SIZE })),
    chunk_overlap: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_CHUNK_SIZE })),
    policy: Type.Optional(PolicyNameSchema),
    language: Type.Optional(LanguageSchema),
    document_metadata: Type.Optional(DocumentMetadataSchema),
    corpus_id: Type.Optional(CorpusIdSchema),
  },
  { additionalProperties: false },
);
type IngestBody = Static<typeof IngestBodySchema>;

const IngestResultSchema = Type.Object({
  chunks: Type.Array(
    Type.Object({
      chunk_index: Type.Integer(),
      safe_text: Type.String(),
      entity_count: Type.Integer(),
      start_offset: Type.Integer(),
      end_offset: Type.Integer(),
      chunk_session_state: Type.String(),
    }),
  ),
  session_state: Type.Optional(Type.String()),
  session_id: Type.Optional(Type.String()),
  total_entities: Type.Integer(),
  warnings: Type.Optional(Type.Array(Type.String())),
  document_metadata: Type.Optional(
    Type.Object({
      document_id: Type.Optional(Type.String()),
      classification: Type.Optional(Type.String()),
      owner: Type.Optional(Type.String()),
      tags: Type.Optional(Type.Array(Type.String())),
    }),
  ),
  prompt_security: Type.Optional(PromptSecuritySchema),
});

/** Items are validated one by one (so one malformed document fails only itself). */
function ingestBatchBodySchema(maxItems: number) {
  return Type.Object({ items: Type.Array(Type.Object({}), { minItems: 1, maxItems }) }, { additionalProperties: false });
}

const IngestBatchResponseSchema = Type.Object({
  results: Type.Array(
    Type.Object({
      index: Type.Integer(),
      result: Type.Optional(IngestResultSchema),
      error: Type.Optional(Type.String()),
      code: Type.Optional(Type.String()),
    }),
  ),
});

const QueryBodySchema = Type.Object(
  {
    query: Type.String({ minLength: 1 }),
    policy: Type.Optional(PolicyNameSchema),
    language: Type.Optional(LanguageSchema),
    corpus_id: Type.Optional(CorpusIdSchema),
  },
  { additionalProperties: false },
);
type QueryBody = Static<typeof QueryBodySchema>;

const QueryResponseSchema = Type.Object({
  safe_query: Type.String(),
  session_state: Type.Optional(Type.String()),
  session_id: Type.Optional(Type.String()),
  entities_detected: Type.Integer(),
  warnings: Type.Optional(Type.Array(Type.String())),
  prompt_security: Type.Optional(PromptSecuritySchema),
});

const ContextBodySchema = Type.Object(
  {
    chunks: Type.Array(Type.String(), { maxItems: MAX_CONTEXT_CHUNKS }),
    session_state: Type.Optional(SessionStateSchema),
    session_id: Type.Optional(SessionIdSchema),
    policy: Type.Optional(PolicyNameSchema),
    language: Type.Optional(LanguageSchema),
    access_level: Type.Optional(ClassificationSchema),
    chunk_classifications: Type.Optional(Type.Array(Type.Union([ClassificationSchema, Type.Null()]), { maxItems: MAX_CONTEXT_CHUNKS })),
    document_sessions: Type.Optional(Type.Array(SessionStateSchema, { maxItems: MAX_CONTEXT_CHUNKS })),
    corpus_id: Type.Optional(CorpusIdSchema),
  },
  { additionalProperties: false },
);
type ContextBody = Static<typeof ContextBodySchema>;

const ContextResponseSchema = Type.Object({
  safe_chunks: Type.Array(Type.String()),
  session_state: Type.Optional(Type.String()),
  session_id: Type.Optional(Type.String()),
  entities_detected: Type.Integer(),
  chunks_filtered: Type.Optional(Type.Integer()),
  warnings: Type.Optional(Type.Array(Type.String())),
  prompt_security: Type.Optional(PromptSecuritySchema),
});

const AnswerBodySchema = Type.Object(
  {
    answer: Type.String(),
    session_state: Type.Optional(SessionStateSchema),
    session_id: Type.Optional(SessionIdSchema),
    output_channel: Type.Optional(LabelSchema),
    /** As on /v1/rehydrate: caller role and purpose count only under auth.mode dev. */
    context: Type.Optional(ContextSchema),
    /** Lowers the caller's clearance for this answer (never raises it). */
    access_level: Type.Optional(ClassificationSchema),
  },
  { additionalProperties: false },
);
type AnswerBody = Static<typeof AnswerBodySchema>;

const AnswerResponseSchema = Type.Object({
  restored_answer: Type.String(),
  tokens_resolved: Type.Integer(),
  tokens_unresolved: Type.Array(Type.Object({ token: Type.String(), reason: Type.String() })),
  output_guard: Type.Optional(OutputGuardSchema),
  warnings: Type.Optional(Type.Array(Type.String())),
});

const DeleteBodySchema = Type.Object(
  { session_state: Type.Optional(SessionStateSchema), session_id: Type.Optional(SessionIdSchema) },
  { additionalProperties: false },
);
type DeleteBody = Static<typeof DeleteBodySchema>;

const DeleteResponseSchema = Type.Object({
  deleted: Type.Boolean(),
  session_invalidated: Type.Boolean(),
  entities_purged: Type.Integer(),
  message: Type.String(),
  manifest: Type.Object({
    session_fingerprint: Type.String(),
    entities_revoked: Type.Integer(),
    timestamp_unix: Type.Integer(),
    status: Type.String(),
  }),
});

/** Ingest stores values where the caller's vector store is: policy rules see destination vector_store. */
function ingestScope(deps: ConfigSlice<'auth'>, principal: Principal): RagScope {
  return { tenant: principal.tenant, context: effectiveContext(deps, principal, { destination: 'vector_store' }) };
}

/** Queries and contexts go to the model: destination external_llm (the default). */
function modelScope(deps: ConfigSlice<'auth'>, principal: Principal): RagScope {
  return { tenant: principal.tenant, context: effectiveContext(deps, principal, undefined) };
}

/** The caller's clearance rank (see the header): the credential's level, lowered by `requested`. */
function clearanceOf(deps: ConfigSlice<'auth' | 'rag'>, principal: Principal, requested: string | undefined): number {
  const lattice = new ClassificationLattice(deps.config.rag.classification_levels);
  return lattice.clearanceRank({ unrestricted: deps.config.auth.mode === 'dev', credential: principal.accessLevel }, requested);
}

/** A request refused by a guard (block actions) still records that the guard triggered. */
async function recordingGuards<T>(request: FastifyRequest, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isVeilError(error) && error.code === 'VEIL_PROMPT_REJECTED') auditFacts(request, { prompt_security: true });
    if (isVeilError(error) && error.code === 'VEIL_OUTPUT_BLOCKED') auditFacts(request, { output_guard: true });
    throw error;
  }
}

/** The session's policy for the audit event, when it has one. */
function policyOf(session: { readonly policy?: string | undefined }): { policy?: string } {
  return session.policy !== undefined ? { policy: session.policy } : {};
}

function promptFact(summary: { readonly triggered: boolean } | undefined): { prompt_security?: boolean } {
  return summary !== undefined ? { prompt_security: summary.triggered } : {};
}

type Handle = { session_state: string } | { session_id: string };

/**
 * A sealed result with its session handle: an object (inline; the handle after `first`, as in the
 * interface's field order), or the JSON a worker serialized with the handle spliced in.
 */
function withSessionHandle<T extends object>(response: T | string, handle: Handle, first: keyof T): Record<string, unknown> | string {
  if (typeof response === 'string') return withHandle(response, handle);
  const { [first]: lead, ...rest } = response;
  return { [first]: lead, ...handle, ...rest };
}

/** Send an answer built as an object (Fastify serializes it) or already serialized. */
function answer(reply: FastifyReply, result: Record<string, unknown> | string): FastifyReply | Record<string, unknown> {
  return typeof result === 'string' ? reply.type('application/json; charset=utf-8').send(result) : result;
}

export function ragRoutes(deps: CallerDeps & ConfigSlice<'auth' | 'rag' | 'limits'>, useCases: Pick<UseCases, 'scopeOf' | 'executor' | 'rag'>) {
  const ingest = async (body: IngestBody, principal: Principal, log: NerLog, large = false): Promise<{ result: Record<string, unknown> | string; sealed: Sealed<IngestResponse> }> => {
    const sealed = await useCases.rag.ingest(
      {
        text: body.text,
        strategy: body.chunking_strategy ?? 'paragraph',
        chunkSize: body.chunk_size,
        chunkOverlap: body.chunk_overlap,
        policy: body.policy,
        language: body.language,
        metadata: body.document_metadata,
        corpusId: body.corpus_id,
      },
      { ...ingestScope(deps, principal), log, offload: large },
    );
    return { result: withSessionHandle(sealed.response, sealed.handle, 'chunks'), sealed };
  };

  const itemValidator = (): ValidateFunction => {
    const ajv = new Ajv({ removeAdditional: false, coerceTypes: false, useDefaults: true, allErrors: false, strict: false });
    return ajv.compile(IngestBodySchema);
  };
  let validateItem: ValidateFunction | undefined;

  const itemError = (log: FastifyBaseLogger, index: number, error: unknown): { error: string; code: string } => {
    if (isVeilError(error)) {
      log.info({ event: 'rag_ingest_item_failed', index, code: error.code }, 'rag_ingest_item_failed');
      return { error: error.message, code: error.code };
    }
    // Unexpected failures: the error class only (messages can quote input).
    log.error({ event: 'rag_ingest_item_failed', index, code: 'VEIL_INTERNAL', error_type: error instanceof Error ? error.name : typeof error }, 'rag_ingest_item_failed');
    return { error: 'internal error', code: 'VEIL_INTERNAL' };
  };

  return function register(app: FastifyInstance): void {
    app.post<{ Body: IngestBody }>(
      '/v1/rag/ingest',
      { schema: { body: IngestBodySchema, response: { 200: IngestResultSchema } }, config: { scope: 'rag', idempotent: true } },
      async (request, reply) => {
        const { result, sealed } = await recordingGuards(request, () => ingest(request.body, principalOf(request), request.log));
        // Each chunk sealed is work like a small transform: charged after the fact.
        chargeRateLimitAfter(request, sealed.units ?? 0);
        auditFacts(request, {
          policy: request.body.policy ?? deps.policies.registry.defaultName,
          session_id: sealed.session.sid,
          ...sealed.facts,
          ...promptFact(sealed.promptSecurity),
        });
        request.log.debug({ event: 'rag_ingest_completed', entities: sealed.facts.entity_count ?? 0 }, 'rag_ingest_completed');
        return answer(reply, result);
      },
    );

    app.post<{ Body: { items: object[] } }>(
      '/v1/rag/ingest/batch',
      {
        schema: { body: ingestBatchBodySchema(deps.config.limits.max_batch_size), response: { 200: IngestBatchResponseSchema } },
        config: { scope: 'rag', idempotent: true },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        // One unit per document (the request itself paid the first).
        chargeRateLimit(request, request.body.items.length - 1);
        validateItem ??= itemValidator();
        const slicer = useCases.executor.slicer();
        // A batch large as a whole runs every document's pure half on a worker.
        const large = useCases.executor.offloads(bodySize(request));
        const results: unknown[] = [];
        let failed = 0;
        for (const [index, item] of request.body.items.entries()) {
          await slicer.pause();
          try {
            if (!validateItem(item)) throw new VeilError('VEIL_VALIDATION_FAILED', validationMessage(validateItem.errors?.[0]));
            const { result, sealed } = await recordingGuards(request, () => ingest(item as IngestBody, principal, request.log, large));
            chargeRateLimitAfter(request, sealed.units ?? 0);
            auditFacts(request, { ...sealed.facts, ...promptFact(sealed.promptSecurity) });
            results.push(typeof result === 'string' ? new RawJson(`{"index":${index},"result":${result}}`) : { index, result });
          } catch (error) {
            failed += 1;
            results.push({ index, ...itemError(request.log, index, error) });
          }
        }
        auditFacts(request, { item_count: results.length, items_failed: failed });
        request.log.debug({ event: 'rag_ingest_batch_completed', items: results.length, failed }, 'rag_ingest_batch_completed');
        return answer(reply, await serializeSliced(slicer, '{"results":[', results, ']}'));
      },
    );

    app.post<{ Body: QueryBody }>(
      '/v1/rag/query',
      { schema: { body: QueryBodySchema, response: { 200: QueryResponseSchema } }, config: { scope: 'rag' } },
      async (request, reply) => {
        const body = request.body;
        const sealed = await recordingGuards(request, () =>
          useCases.rag.query({ query: body.query, policy: body.policy, language: body.language, corpusId: body.corpus_id }, { ...modelScope(deps, principalOf(request)), log: request.log }),
        );
        auditFacts(request, { ...policyOf(sealed.session), session_id: sealed.session.sid, ...sealed.facts, ...promptFact(sealed.promptSecurity) });
        request.log.debug({ event: 'rag_query_completed', entities: sealed.facts.entity_count ?? 0 }, 'rag_query_completed');
        return answer(reply, withSessionHandle(sealed.response, sealed.handle, 'safe_query'));
      },
    );

    app.post<{ Body: ContextBody }>(
      '/v1/rag/context',
      { schema: { body: ContextBodySchema, response: { 200: ContextResponseSchema } }, config: { scope: 'rag' } },
      async (request, reply) => {
        const body = request.body;
        // One unit per chunk to merge (the request itself paid the first).
        chargeRateLimit(request, body.chunks.length - 1);
        const principal = principalOf(request);
        const clearance = clearanceOf(deps, principal, body.access_level);
        const sessionState = await useCases.rag.incoming(body.session_id, body.session_state);
        const sealed = await recordingGuards(request, () => useCases.rag.context(
          {
            chunks: body.chunks,
            sessionState,
            policy: body.policy,
            language: body.language,
            clearance,
            chunkClassifications: body.chunk_classifications,
            documentSessions: body.document_sessions,
            corpusId: body.corpus_id,
          },
          { ...modelScope(deps, principal), log: request.log },
        ));
        auditFacts(request, { ...policyOf(sealed.session), session_id: sealed.session.sid, ...sealed.facts, ...promptFact(sealed.promptSecurity) });
        request.log.debug({ event: 'rag_context_completed', chunks: body.chunks.length, tokens: sealed.session.entries }, 'rag_context_completed');
        return answer(reply, withSessionHandle(sealed.response, sealed.handle, 'safe_chunks'));
      },
    );

    app.post<{ Body: AnswerBody }>(
      '/v1/rag/answer',
      { schema: { body: AnswerBodySchema, response: { 200: AnswerResponseSchema } }, config: { scope: 'rag' } },
      async (request, reply) => {
        const body = request.body;
        const principal = principalOf(request);
        const clearance = clearanceOf(deps, principal, body.access_level);
        const sessionState = await useCases.rag.incoming(body.session_id, body.session_state);
        const answered = await recordingGuards(request, () =>
          useCases.rag.answer({
            answer: body.answer,
            sessionState,
            channel: body.output_channel ?? 'user_output',
            caller: callerOf(deps, principal, body.context),
            tenant: principal.tenant,
            clearance,
          }),
        );
        auditFacts(request, {
          ...policyOf(answered.session),
          session_id: answered.session.sid,
          entity_count: answered.tokensResolved,
          ...(answered.outputGuardTriggered !== undefined ? { output_guard: answered.outputGuardTriggered } : {}),
        });
        request.log.debug({ event: 'rag_answer_completed', resolved: answered.tokensResolved }, 'rag_answer_completed');
        return typeof answered.response === 'string' ? reply.type('application/json; charset=utf-8').send(answered.response) : answered.response;
      },
    );

    app.post<{ Body: DeleteBody }>(
      '/v1/rag/delete',
      { schema: { body: DeleteBodySchema, response: { 200: DeleteResponseSchema } }, config: { scope: 'revoke', idempotent: true } },
      async (request) => {
        const body = request.body;
        const principal = principalOf(request);
        // An untenanted caller writes unscoped revocations: it needs global_revoke (4.15).
        scopeOf(principal);
        const sessionState = await useCases.rag.incoming(body.session_id, body.session_state);
        const { response, session } = await useCases.rag.delete({
          sessionState,
          serverHeld: body.session_id !== undefined,
          tenant: principal.tenant,
          fingerprint,
          beforeMutation: async (opened) => {
            auditFacts(request, { policy: opened.policy, session_id: opened.sid });
            await recordIntent(request);
          },
        });
        auditFacts(request, { policy: session.policy, session_id: session.sid, entity_count: response.manifest.entities_revoked });
        request.log.debug(
          { event: 'rag_delete_completed', session: response.manifest.session_fingerprint, revoked: response.manifest.entities_revoked, status: response.manifest.status },
          'rag_delete_completed',
        );
        return response;
      },
    );
  };
}
