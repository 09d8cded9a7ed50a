// Session-state lifecycle around the pure sealing module: open a continuation, build the next
// payload (counter + 1, sliding expiry) and seal it.
import { VeilError } from '@veil/common';
import type { AppDeps } from '../deps.js';
import { newSessionId, openSession, sealSession, type SessionKind, type SessionPayload } from '../domain/seal/index.js';
import type { TokenEntry } from '../domain/types.js';

export function nowSeconds(deps: AppDeps): number {
  return Math.floor(deps.now() / 1000);
}

/** Sealed backend only, until server-side sessions land. */
export function rejectSessionId(deps: AppDeps, sessionId: string | undefined): void {
  if (sessionId !== undefined && deps.config.session.backend === 'sealed') {
    throw new VeilError('VEIL_VALIDATION_FAILED', 'session_id: server-side sessions are not enabled (session.backend is sealed); send session_state');
  }
}

export function openSessionState(
  deps: AppDeps,
  blob: string,
  kinds: readonly SessionKind[],
  tenant: string | null,
): SessionPayload {
  return openSession(deps.keyRing, blob, { kinds, tenant }, nowSeconds(deps));
}

export interface NextSession {
  readonly previous: SessionPayload | undefined;
  readonly kind: SessionKind;
  readonly tenant: string | null;
  readonly language: string;
  readonly policy: string;
  readonly policyVersion: string;
  readonly entries: readonly TokenEntry[];
}

export function sealNext(deps: AppDeps, next: NextSession): { payload: SessionPayload; sessionState: string } {
  const issuedAt = nowSeconds(deps);
  const payload: SessionPayload = {
    sid: next.previous?.sid ?? newSessionId(),
    kind: next.kind,
    tenant: next.tenant,
    language: next.language,
    policy: next.policy,
    policyVersion: next.policyVersion,
    counter: (next.previous?.counter ?? 0) + 1,
    iat: issuedAt,
    exp: issuedAt + deps.config.session.ttl_seconds,
    entries: [...next.entries],
  };
  return { payload, sessionState: sealSession(deps.keyRing, payload) };
}
