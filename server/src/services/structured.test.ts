// The JSON and chat transforms end to end without HTTP: one sealed session per document that
// the rehydrate service opens and restores, continuations that keep tokens, bounds and message
// validation before the session is even opened, and the same response fields as text mode.
import { VeilError } from '@veil/common';
import { describe, expect, it } from 'vitest';
import { compileCustomPatterns } from '../domain/detect/index.js';
import { findTokensLenient } from '../domain/repair/index.js';
import { KeyRing } from '../domain/seal/index.js';
import { restoreJsonValue } from '../domain/structured/index.js';
import { loadPolicyRegistry } from './policies.js';
import { openForRehydrate, restoreOpened, type RehydrateEnvironment } from './rehydrate.js';
import { runChatTransform, runJsonTransform } from './structured.js';
import type { TransformEnvironment } from './transform.js';

const keyRing = new KeyRing('k1', [{ kid: 'k1', key: Buffer.alloc(32, 7) }]);
const registry = loadPolicyRegistry({ nowUnix: 0 });
const NOW = 1_750_000_000_000;
const env: TransformEnvironment = {
  keyRing,
  policy: (name) => registry.get(name),
  compilePatterns: (raw) => compileCustomPatterns(raw, 'custom_patterns'),
  defaultLanguage: 'en',
  defaultRegion: 'US',
  ttlSeconds: 3600,
  contextStrategy: 'full',
  maxContextTokens: 4096,
  nowMs: NOW,
};
const rehydrateEnv: RehydrateEnvironment = { keyRing, policy: (name) => registry.get(name), nowMs: NOW };
const base = { context: {}, tenant: null };

function rehydrate(output: string, sessionState: string): string {
  const session = openForRehydrate(rehydrateEnv, sessionState, null);
  return restoreOpened(rehydrateEnv, session, { output, sessionState, channel: 'user_output', caller: {}, tenant: null }).restored_text;
}

function error(run: () => unknown): VeilError {
  try {
    run();
  } catch (caught) {
    if (caught instanceof VeilError) return caught;
    throw caught;
  }
  throw new Error('expected a VeilError');
}

describe('runJsonTransform', () => {
  const document = { customer: { email: 'ada@example.com', card: 4111111111111111, tags: ['vip'] }, 'ada@example.com': 1 };
  const outcome = runJsonTransform(env, { ...base, inputJson: document, traceId: 'trace-1' });
  const { response } = outcome;

  it('returns safe_json, safe_text and the text-mode response fields', () => {
    expect(response.safe_text).toBe(JSON.stringify(response.safe_json));
    expect(response.safe_text).not.toContain('ada@example.com');
    expect(response.trace_id).toBe('trace-1');
    expect(response.stats).toMatchObject({ entities_detected: 3, entities_transformed: 3, entities_blocked: 0 });
    expect(response.entity_summary).toEqual({ email: 2, credit_card: 1 });
    expect(response.entity_context?.map((item) => item.type).sort()).toEqual(['credit_card', 'email']);
    expect(response.entities.map((entity) => [entity.path, entity.in_key ?? false])).toEqual([
      ['/customer/email', false],
      ['/customer/card', false],
      [expect.stringMatching(/^\/\{\{email:e_001:[0-9a-f]{12}\}\}$/), true],
    ]);
    expect(outcome.meta.continued).toBe(false);
  });

  it('seals one session that restores the whole document', () => {
    const restored = JSON.parse(rehydrate(response.safe_text, outcome.sessionState)) as unknown;
    expect(restored).toEqual({ customer: { email: 'ada@example.com', card: '4111111111111111', tags: ['vip'] }, 'ada@example.com': 1 });
  });

  it('continues a session: known values keep their tokens, new ones count on', () => {
    const next = runJsonTransform(env, { ...base, inputJson: { again: 'ada@example.com', other: 'bob@example.com' }, sessionState: outcome.sessionState });
    const safe = next.response.safe_json as { again: string; other: string };
    expect(safe.again).toBe((response.safe_json as { customer: { email: string } }).customer.email);
    expect(safe.other).toMatch(/^\{\{email:e_002:/);
    expect(next.meta.continued).toBe(true);
    expect(next.meta.counter).toBe(2);
  });

  it('checks the bounds before opening the session', () => {
    let deep: unknown = 1;
    for (let level = 0; level < 65; level += 1) deep = [deep];
    expect(error(() => runJsonTransform(env, { ...base, inputJson: deep, sessionState: 'not-a-blob' })).code).toBe('VEIL_PAYLOAD_TOO_LARGE');
    expect(error(() => runJsonTransform(env, { ...base, inputJson: {}, sessionState: 'not-a-blob' })).code).toBe('VEIL_SESSION_EXPIRED');
  });
});

describe('runChatTransform', () => {
  const messages = [
    { role: 'user', content: 'I am ada@example.com, card 4111 1111 1111 1111.' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"email":"ada@example.com"}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: 'Found ada@example.com' }] },
  ];
  const outcome = runChatTransform(env, { ...base, inputMessages: messages });
  const { response } = outcome;

  it('returns safe_messages with shared tokens and paths per message', () => {
    expect(response.safe_text).toBe(JSON.stringify(response.safe_messages));
    expect(response.safe_text).not.toContain('ada@example.com');
    expect(response.entities.map((entity) => entity.path)).toEqual([
      '/messages/0/content',
      '/messages/0/content',
      '/messages/1/tool_calls/0/function/arguments/email',
      '/messages/2/content/0/text',
    ]);
    expect(new Set(response.entities.filter((entity) => entity.type === 'email').map((entity) => entity.token)).size).toBe(1);
  });

  it('restores every message from one session, structure-aware or as text', () => {
    const session = openForRehydrate(rehydrateEnv, outcome.sessionState, null);
    const restore = (output: string) => {
      const body = restoreOpened(rehydrateEnv, session, { output, sessionState: outcome.sessionState, channel: 'user_output', caller: {}, tenant: null });
      return { restoredText: body.restored_text, tokensResolved: body.tokens_resolved, tokensUnresolved: body.tokens_unresolved };
    };
    expect(restoreJsonValue(response.safe_messages, restore).value).toEqual(messages);
    expect(JSON.parse(rehydrate(response.safe_text, outcome.sessionState))).toEqual(messages);
  });

  it('validates the messages before opening the session', () => {
    const refused = error(() => runChatTransform(env, { ...base, inputMessages: [{ role: 'user', note: 'x' }], sessionState: 'not-a-blob' }));
    expect(refused.code).toBe('VEIL_VALIDATION_FAILED');
    expect(refused.message).toBe('input_messages/0/note: field is not allowed here (it carries text that would not be tokenized)');
  });

  it('tokens a model mangles in its reply still restore through the repair scan', () => {
    const token = response.entities[0]!.token;
    const mangled = token.replace('{{', '{{ ').replace('email', 'EMAIL').replace('}}', ' }}');
    expect(findTokensLenient(`Hi ${mangled}`)[0]?.token?.id).toBe('e_001');
  });
});
