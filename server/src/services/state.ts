// Session handles and the store checks around them: where an incoming session comes from
// (a sealed blob, or a server-side id), replay protection and the deny list for continuations,
// and what handle a response carries. Store outages fail closed with the documented codes.
import { VeilError } from '@veil/common';
import type { AppDeps } from '../deps.js';
import { StoreUnavailableError } from '../stores/types.js';

function serverSide(deps: AppDeps): boolean {
  return deps.config.session.backend !== 'sealed';
}

async function replayStore<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw new VeilError('VEIL_REPLAY_STORE_UNAVAILABLE', undefined, error.message);
    throw error;
  }
}

async function sessionStore<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw new VeilError('VEIL_STORE_UNAVAILABLE', undefined, error.message);
    throw error;
  }
}

/**
 * The sealed blob behind a request: `session_state` as given, or the blob a server-side
 * session id points to. `session_id` under the sealed backend is refused.
 */
export async function incomingSession(deps: AppDeps, sessionId: string | undefined, sessionState: string | undefined): Promise<string | undefined> {
  if (sessionId === undefined) return sessionState;
  if (!serverSide(deps) || deps.stores.sessions === undefined) {
    throw new VeilError('VEIL_VALIDATION_FAILED', 'session_id: server-side sessions are not enabled (session.backend is sealed); send session_state');
  }
  if (sessionState !== undefined) throw new VeilError('VEIL_VALIDATION_FAILED', 'session_id: send either session_id or session_state, not both');
  const store = deps.stores.sessions;
  const blob = await sessionStore(() => store.get(sessionId, deps.now()));
  if (blob === undefined) throw new VeilError('VEIL_SESSION_EXPIRED');
  return blob;
}

/** An invalidated session (DELETE /v1/sessions, rag/delete) stops working everywhere. */
export async function assertNotDenied(deps: AppDeps, sid: string): Promise<void> {
  const denied = await replayStore(() => deps.stores.replay.isDenied(sid, deps.now()));
  if (denied) throw new VeilError('VEIL_SESSION_EXPIRED');
}

/** A continuation must carry a counter strictly above any seen for its session. */
export async function recordContinuation(deps: AppDeps, meta: { sid: string; counter: number; expiresAtMs: number }): Promise<void> {
  await assertNotDenied(deps, meta.sid);
  const advanced = await replayStore(() => deps.stores.replay.advance(meta.sid, meta.counter, meta.expiresAtMs, deps.now()));
  if (!advanced) throw new VeilError('VEIL_SESSION_REPLAY', 'session continuation replayed: continue from the latest session_state');
}

/** The handle a response carries: the blob itself, or a server-side id after storing it. */
export async function outgoingHandle(
  deps: AppDeps,
  meta: { sid: string; expiresAtMs: number },
  sessionState: string,
): Promise<{ session_state: string } | { session_id: string }> {
  const store = deps.stores.sessions;
  if (!serverSide(deps) || store === undefined) return { session_state: sessionState };
  await sessionStore(() => store.put(meta.sid, sessionState, meta.expiresAtMs, deps.now()));
  return { session_id: meta.sid };
}

/** Splice the session handle into a body serialized on a worker thread. */
export function withHandle(body: string, handle: { session_state: string } | { session_id: string }): string {
  const [key, value] = 'session_id' in handle ? ['session_id', handle.session_id] : ['session_state', handle.session_state];
  return `${body.slice(0, -1)},${JSON.stringify(key)}:${JSON.stringify(value)}}`;
}
