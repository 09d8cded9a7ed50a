// POST /v1/sessions/status and DELETE /v1/sessions (decisions.md section 5). A sealed session
// reports `stateless`; deleting one deny-lists its id for as long as any blob of the session
// could still open (services/state.ts denySession), so the presented blob and every earlier or
// later blob of the session stop working on every replica, and none can be continued. A
// server-held session reports `active` and is removed.
import { VeilError } from '@veil/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { auditFacts } from '../audit/facts.js';
import { recordIntent } from '../audit/plugin.js';
import { keyRingFor, type AppDeps } from '../deps.js';
import { openSession, SESSION_KINDS, type SessionPayload } from '../domain/seal/index.js';
import { assertNotDenied, denySession, incomingSession } from '../services/state.js';
import { StoreUnavailableError } from '../stores/types.js';
import { principalOf } from './common.js';
import { SessionStateSchema } from './schemas.js';

const HandleSchema = Type.Object(
  { session_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })), session_state: Type.Optional(SessionStateSchema) },
  { additionalProperties: false },
);
type Handle = Static<typeof HandleSchema>;

export function sessionRoutes(deps: AppDeps) {
  const open = async (request: FastifyRequest<{ Body: Handle }>, tenant: string | null): Promise<{ session: SessionPayload; serverHeld: boolean }> => {
    const { session_id: sessionId, session_state: sessionState } = request.body;
    if (sessionId === undefined && sessionState === undefined) {
      throw new VeilError('VEIL_VALIDATION_FAILED', 'session_id: send session_id or session_state');
    }
    const blob = await incomingSession(deps, sessionId, sessionState);
    const session = openSession(keyRingFor(deps, tenant), blob ?? '', { kinds: SESSION_KINDS, tenant }, Math.floor(deps.now() / 1000));
    auditFacts(request, { session_id: session.sid, policy: session.policy });
    await assertNotDenied(deps, session);
    return { session, serverHeld: sessionId !== undefined };
  };
  return function register(app: FastifyInstance): void {
    app.post<{ Body: Handle }>(
      '/v1/sessions/status',
      {
        schema: {
          body: HandleSchema,
          response: {
            200: Type.Object({
              state: Type.String(),
              session_id: Type.Optional(Type.String()),
              expires_at_unix: Type.Integer(),
              token_count: Type.Integer(),
              counter: Type.Integer(),
            }),
          },
        },
        config: { scope: 'session' },
      },
      async (request) => {
        const { session, serverHeld } = await open(request, principalOf(request).tenant);
        return {
          state: serverHeld ? 'active' : 'stateless',
          ...(serverHeld ? { session_id: session.sid } : {}),
          expires_at_unix: session.exp,
          token_count: session.entries.length,
          counter: session.counter,
        };
      },
    );
    app.delete<{ Body: Handle }>(
      '/v1/sessions',
      { schema: { body: HandleSchema, response: { 200: Type.Object({ invalidated: Type.Boolean() }) } }, config: { scope: 'session', idempotent: true } },
      async (request) => {
        const { session, serverHeld } = await open(request, principalOf(request).tenant);
        // Deny-list first: even a server-held session's sealed copy (if a client kept one)
        // must stop working; and every earlier blob of the session, whatever its expiry.
        await recordIntent(request);
        await denySession(deps, session.sid, session.tenant);
        try {
          if (serverHeld) await deps.stores.sessions?.delete(session.sid, deps.now());
        } catch (error) {
          if (error instanceof StoreUnavailableError) throw new VeilError('VEIL_REPLAY_STORE_UNAVAILABLE', undefined, error.message);
          throw error;
        }
        request.log.info({ event: 'session_invalidated', server_held: serverHeld }, 'session_invalidated');
        return { invalidated: true };
      },
    );
  };
}
