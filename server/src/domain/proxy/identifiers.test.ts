// Red-team finding (session 11, wave10/red): identifiers of a proxied answer (a tool or function
// name, a tool call id, the answer's id and model, a role) passed the output guard unread, so a
// card or an e-mail address the model (or the upstream) wrote there reached the caller raw. Now
// the guard reads them; an identifier cannot be masked (a masked name no longer names the tool
// the client dispatches), so a raw value there refuses the answer (VEIL_OUTPUT_BLOCKED) under
// `mask` and `block`, whole and streamed, and a streamed identifier arrives whole (a later chunk
// may repeat it, not change it). Ordinary ids and names pass.
import { DEFAULT_POLICY, isVeilError } from '@veil/common';
import { describe, expect, it } from 'vitest';
import { detectAll } from '../detect/index.js';
import { OutputGuard, StreamOutputGuard } from '../guard/index.js';
import { CompiledPolicy } from '../policy/index.js';
import { indexEntries, rehydrateText } from '../rehydrate.js';
import { findTokensLenient } from '../repair/index.js';
import { StreamRehydrator, type RestoreFunction } from '../stream/index.js';
import { createOutputGuard } from '../../services/output-guard.js';
import type { LoadedPolicy } from '../../services/policies.js';
import { ChunkRestorer, jsonStringRestore, restoreCompletion } from './restore.js';

const policy = new CompiledPolicy(DEFAULT_POLICY);
const restore: RestoreFunction = (output) => rehydrateText({ output, entries: indexEntries([]), policy, language: 'en', caller: {}, channel: 'user_output', scan: findTokensLenient });
const json = jsonStringRestore(restore, findTokensLenient);
const guardOf = (action: 'mask' | 'block' | 'warn' = 'mask'): OutputGuard =>
  new OutputGuard({ action, detect: (text) => detectAll(text), counts: (detection) => detection.type !== 'url', scan: findTokensLenient });

const CARD = '4111111111111111';
const EMAIL = 'jane.doe@corp.example';

function whole(message: Record<string, unknown>, guard: OutputGuard, envelope: Record<string, unknown> = {}) {
  return restoreCompletion(
    { id: 'chatcmpl-1', model: 'gpt-4o', ...envelope, choices: [{ index: 0, finish_reason: 'tool_calls', message }] },
    { text: (value) => restore(guard.guard(value)), json: (value) => json(guard.guard(value)), guarded: true, identifier: (value) => guard.guardIdentifier(value, 'answer identifier') },
  );
}

function chunk(delta: Record<string, unknown>, finish: string | null = null, envelope: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', ...envelope, choices: [{ index: 0, delta, finish_reason: finish }] };
}

function streamed(chunks: readonly Record<string, unknown>[], guard: OutputGuard): { sent: string; error?: unknown } {
  const open = (): StreamRehydrator => new StreamRehydrator(restore, { guard: new StreamOutputGuard(guard, findTokensLenient) });
  const restorer = new ChunkRestorer(open, { guarded: true, identifier: (value) => guard.guardIdentifier(value, 'answer identifier') });
  const sent: unknown[] = [];
  try {
    for (const one of chunks) sent.push(restorer.rewrite(one));
    sent.push(restorer.finish());
  } catch (error) {
    return { sent: JSON.stringify(sent), error };
  }
  return { sent: JSON.stringify(sent) };
}

const blocked = (error: unknown): boolean => isVeilError(error) && error.code === 'VEIL_OUTPUT_BLOCKED';

const call = (name: string, id = 'call_abc123') => ({ id, type: 'function', function: { name, arguments: '{}' } });

/** Where a value can sit in an answer's identifiers. */
const PLACES: readonly [string, (value: string) => { message: Record<string, unknown>; envelope?: Record<string, unknown> }][] = [
  ['a function name', (value) => ({ message: { role: 'assistant', content: null, tool_calls: [call(`send_${value}`)] } })],
  ['a tool call id', (value) => ({ message: { role: 'assistant', content: null, tool_calls: [call('lookup', `call_${value}`)] } })],
  ['a legacy function_call name', (value) => ({ message: { role: 'assistant', content: null, function_call: { name: value, arguments: '{}' } } })],
  ['the role', (value) => ({ message: { role: value, content: 'ok' } })],
  ['an audio id', (value) => ({ message: { role: 'assistant', audio: { id: value, data: 'QUJD', transcript: 'hi' } } })],
  ['the answer id', (value) => ({ message: { role: 'assistant', content: 'ok' }, envelope: { id: value } })],
  ['the model', (value) => ({ message: { role: 'assistant', content: 'ok' }, envelope: { model: value } })],
];

describe('a whole answer', () => {
  it.each(PLACES.flatMap(([place, build]) => [CARD, EMAIL].map((value) => [place, value, build] as const)))('%s holding %s is refused', (_place, value, build) => {
    const { message, envelope } = build(value);
    let error: unknown;
    try {
      whole(message, guardOf(), envelope);
    } catch (caught) {
      error = caught;
    }
    expect(blocked(error)).toBe(true);
    expect((error as Error).message).not.toContain(value);
  });

  it('under warn the value is counted and kept', () => {
    const guard = guardOf('warn');
    whole({ role: 'assistant', content: null, tool_calls: [call(`send_${CARD}`)] }, guard);
    expect(guard.triggered).toBe(true);
  });

  it("a session's own value there counts whatever its type (a phone number of the session)", () => {
    const production = createOutputGuard(
      { mode: 'strict', action: 'mask', exemptTypes: [], defaultRegion: 'US' },
      {
        policy: { compiled: policy, patterns: [] } as unknown as LoadedPolicy,
        language: 'en',
        caller: {},
        entries: [{ id: 'ph_001', type: 'phone', cap: '0123456789ab', value: '+1 415 555 0134', mode: 'full' }],
      },
    );
    expect(() => whole({ role: 'assistant', content: null, tool_calls: [call('dial_4155550134')] }, production)).toThrow(/identifier/);
    // A digit run that is no session value and proves nothing (an id with a date) passes.
    expect(() => whole({ role: 'assistant', content: null, tool_calls: [call('lookup', 'call_20260127_0001')] }, production)).not.toThrow();
  });

  it('ordinary ids and names pass unchanged', () => {
    const message = {
      role: 'assistant',
      content: null,
      tool_calls: [
        call('get_weather', 'call_Bx8CjcvOU2jLn4n570S5qMJK'),
        call('lookup_customer_by_email', 'toolu_01A09q90qw90lq917835lq9'),
        call('search_docs_v2', 'call_20260127_0001'),
      ],
    };
    // The default guard (strict, mask), as `veil serve` builds it.
    const production = createOutputGuard(
      { mode: 'strict', action: 'mask', exemptTypes: [], defaultRegion: 'US' },
      { policy: { compiled: policy, patterns: [] } as unknown as LoadedPolicy, language: 'en', caller: {} },
    );
    const out = whole(message, production, { id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT', model: 'gpt-4o-2024-08-06', system_fingerprint: 'fp_6b68a8204b' });
    expect((out.value.choices as { message: unknown }[])[0]!.message).toEqual(message);
    expect(out.value.id).toBe('chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT');
  });
});

describe('a streamed answer', () => {
  it.each([CARD, EMAIL])('a function name holding %s is refused before anything of it is sent', (value) => {
    const result = streamed([chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: `send_${value}`, arguments: '' } }] }), chunk({}, 'tool_calls')], guardOf());
    expect(blocked(result.error)).toBe(true);
    expect(result.sent).not.toContain(value);
  });

  it('a chunk envelope (id, model) holding a value is refused', () => {
    expect(blocked(streamed([chunk({ role: 'assistant', content: 'hi' }, null, { model: EMAIL })], guardOf()).error)).toBe(true);
    expect(blocked(streamed([chunk({ role: 'assistant', content: 'hi' }, null, { id: `chatcmpl-${CARD}` })], guardOf()).error)).toBe(true);
  });

  it('an identifier spread over chunks (each piece passing the guard alone) is malformed', () => {
    const piece = (name: string) => chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name, arguments: '' } }] });
    const result = streamed([chunk({ role: 'assistant' }), piece('4111 1111'), piece(' 1111 1111'), chunk({}, 'tool_calls')], guardOf());
    expect(isVeilError(result.error) && result.error.code === 'VEIL_UPSTREAM_FAILED').toBe(true);
    expect(result.sent).not.toContain('1111 1111');
  });

  it('a repeated identical identifier (upstreams that resend id and name) passes', () => {
    const part = (args: string) => chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: args } }] });
    const result = streamed([chunk({ role: 'assistant' }), part('{"city":'), part('"Paris"}'), chunk({}, 'tool_calls')], guardOf());
    expect(result.error).toBeUndefined();
    expect(result.sent).toContain('get_weather');
  });

  it('identifiers in a delta after the finish_reason are read too', () => {
    const result = streamed([chunk({ role: 'assistant', content: 'ok' }), chunk({}, 'stop'), chunk({ tool_calls: [{ index: 0, id: `call_${CARD}` }] })], guardOf());
    expect(blocked(result.error)).toBe(true);
  });
});
