// The sessions use case (decisions.md section 5): report on a session and invalidate it. Open
// the presented handle (a sealed blob, or the blob a server-side id points to) under the
// caller's ring, refuse a denied or too old one, then report, or deny-list the session id for
// as long as any blob of it could still open (services/state.ts denySession) and remove a
// server-held copy. Free of Fastify: routes/sessions.ts validates and replies.
import { VeilError } from '@veil/common';
import { openSession, SESSION_KINDS, type SessionPayload } from '../domain/seal/index.js';
import { assertNotDenied, denySession, incomingSession, type StateDeps } from '../services/state.js';
import { StoreUnavailableError } from '../stores/types.js';
import type { UseCaseCall } from './transform.js';

export interface SessionsDeps {
  readonly state: StateDeps;
}

/** A session handle as a request presents it. */
export interface SessionHandleInput {
  readonly sessionId?: string | undefined;
  readonly sessionState?: string | undefined;
}

export interface SessionStatus {
  state: 'active' | 'stateless';
  session_id?: string;
  expires_at_unix: number;
  token_count: number;
  counter: number;
}

export class SessionsUseCase {
  readonly #deps: SessionsDeps;

  constructor(deps: SessionsDeps) {
    this.#deps = deps;
  }

  /** Open a presented handle of the caller's tenant; its facts recorded before the deny check, so a refusal names the session. */
  async #open(call: UseCaseCall, handle: SessionHandleInput): Promise<{ session: SessionPayload; serverHeld: boolean }> {
    if (handle.sessionId === undefined && handle.sessionState === undefined) {
      throw new VeilError('VEIL_VALIDATION_FAILED', 'session_id: send session_id or session_state');
    }
    const state = this.#deps.state;
    const blob = await incomingSession(state, handle.sessionId, handle.sessionState);
    const tenant = call.scope.tenant;
    const session = openSession(call.scope.keyRing, blob ?? '', { kinds: SESSION_KINDS, tenant }, Math.floor(call.scope.nowMs / 1000));
    call.facts({ session_id: session.sid, policy: session.policy });
    await assertNotDenied(state, session);
    return { session, serverHeld: handle.sessionId !== undefined };
  }

  async status(call: UseCaseCall, handle: SessionHandleInput): Promise<SessionStatus> {
    const { session, serverHeld } = await this.#open(call, handle);
    return {
      state: serverHeld ? 'active' : 'stateless',
      ...(serverHeld ? { session_id: session.sid } : {}),
      expires_at_unix: session.exp,
      token_count: session.entries.length,
      counter: session.counter,
    };
  }

  /** Invalidate everywhere; `beforeMutation` runs once the session is known and before anything changes (the audit write-ahead). */
  async invalidate(call: UseCaseCall, handle: SessionHandleInput, beforeMutation: () => Promise<void>): Promise<{ serverHeld: boolean }> {
    const { session, serverHeld } = await this.#open(call, handle);
    const state = this.#deps.state;
    await beforeMutation();
    // Deny-list first: even a server-held session's sealed copy (if a client kept one) must stop
    // working; and every earlier blob of the session, whatever its expiry.
    await denySession(state, session.sid, session.tenant);
    try {
      if (serverHeld) await state.stores.sessions?.delete(session.sid, state.now());
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw new VeilError('VEIL_REPLAY_STORE_UNAVAILABLE', undefined, error.message);
      throw error;
    }
    return { serverHeld };
  }
}
