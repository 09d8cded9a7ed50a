// POST /v1/sessions/status and DELETE /v1/sessions (decisions.md section 5). A sealed session
// reports `stateless`; deleting one deny-lists its id for as long as any blob of the session
// could still open (services/state.ts denySession), so the presented blob and every earlier or
// later blob of the session stop working on every replica, and none can be continued. A
// server-held session reports `active` and is removed. Thin adapters over usecases/sessions.ts.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { recordIntent } from '../plugins/audit.js';
import type { UseCases } from '../compose.js';
import { callOf } from './common.js';
import { SessionStateSchema } from './schemas.js';

const HandleSchema = Type.Object(
  { session_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })), session_state: Type.Optional(SessionStateSchema) },
  { additionalProperties: false },
);
type Handle = Static<typeof HandleSchema>;

/** The body's handle as the use case takes it. */
function handleOf(body: Handle) {
  return { sessionId: body.session_id, sessionState: body.session_state };
}

export function sessionRoutes(useCases: UseCases) {
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
      async (request) => useCases.sessions.status(callOf(useCases, request), handleOf(request.body)),
    );
    app.delete<{ Body: Handle }>(
      '/v1/sessions',
      { schema: { body: HandleSchema, response: { 200: Type.Object({ invalidated: Type.Boolean() }) } }, config: { scope: 'session', idempotent: true } },
      async (request) => {
        const { serverHeld } = await useCases.sessions.invalidate(callOf(useCases, request), handleOf(request.body), () => recordIntent(request));
        request.log.info({ event: 'session_invalidated', server_held: serverHeld }, 'session_invalidated');
        return { invalidated: true };
      },
    );
  };
}
