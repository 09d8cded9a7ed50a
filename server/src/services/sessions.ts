// Session-backend rules shared by the routes. Only the sealed backend exists in this build.
import { VeilError } from '@veil/common';
import type { AppDeps } from '../deps.js';

/** Sealed backend only, until server-side sessions land. */
export function rejectSessionId(deps: AppDeps, sessionId: string | undefined): void {
  if (sessionId !== undefined && deps.config.session.backend === 'sealed') {
    throw new VeilError('VEIL_VALIDATION_FAILED', 'session_id: server-side sessions are not enabled (session.backend is sealed); send session_state');
  }
}
