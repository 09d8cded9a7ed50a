// Red-team finding (session 17, wave16/red): an upstream's error message (an error status, or an
// error event mid-stream) was relayed to the caller past the output guard, with a session value
// in it raw. It now passes the guard like any text of the answer (guardedUpstreamError).
import { VeilError } from '@veil/common';
import { describe, expect, it } from 'vitest';
import { streamedUpstreamError, UpstreamError } from '../clients/upstream.js';
import { KnownValues, OutputGuard, type OutputGuardAction } from '../domain/guard/index.js';
import { findTokensLenient } from '../domain/repair/index.js';
import { guardedUpstreamError } from './proxy.js';

const EMAIL = 'red.seventeen.victim@corpseventeen.example';
const guardOf = (action: OutputGuardAction) => new OutputGuard({ action, detect: () => [], counts: () => true, scan: findTokensLenient, known: new KnownValues([{ type: 'email', value: EMAIL }]) });

describe('guardedUpstreamError', () => {
  it('masks a session value in an error status message and in an error event, keeping the status', () => {
    const status = guardedUpstreamError(new UpstreamError(`the upstream answered 400: The address ${EMAIL} is invalid`, 'upstream status 400', 400), guardOf('mask')) as UpstreamError;
    expect(status).toBeInstanceOf(UpstreamError);
    expect(status.message).toBe('the upstream answered 400: The address [REDACTED:email] is invalid');
    expect(status.status).toBe(400);
    const event = guardedUpstreamError(streamedUpstreamError({ error: { message: `Failed for ${EMAIL}` } }), guardOf('mask')) as UpstreamError;
    expect(event.message).not.toContain('seventeen');
  });

  it('withholds the message under block; leaves ordinary messages, other errors and an unguarded call as they were', () => {
    const blocked = guardedUpstreamError(new UpstreamError(`bad ${EMAIL}`, 'upstream status 422', 422), guardOf('block')) as UpstreamError;
    expect(blocked.message).not.toContain('seventeen');
    expect(blocked.status).toBe(422);
    const plain = new UpstreamError('the upstream answered 429: Rate limit reached', 'upstream status 429', 429, 3);
    expect(guardedUpstreamError(plain, guardOf('mask'))).toBe(plain);
    const other = new VeilError('VEIL_INTERNAL');
    expect(guardedUpstreamError(other, guardOf('mask'))).toBe(other);
    const raw = new UpstreamError(`bad ${EMAIL}`, 'x', 400);
    expect(guardedUpstreamError(raw, undefined)).toBe(raw);
  });
});
