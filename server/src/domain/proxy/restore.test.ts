// Restoring proxied completions: arguments stay valid JSON whatever the values hold, a stream
// restores exactly like the whole answer however its chunks cut the tokens, held text is
// released at the right moments (a choice's finish, the next tool call, the end), and chunks with
// nothing left to say are not sent.
import { DEFAULT_POLICY } from '@veil/common';
import { describe, expect, it } from 'vitest';
import { CompiledPolicy } from '../policy/index.js';
import { indexEntries, rehydrateText } from '../rehydrate.js';
import { findTokensLenient } from '../repair/index.js';
import { StreamRehydrator, type RestoreFunction } from '../stream/index.js';
import { renderToken } from '../token/index.js';
import type { TokenEntry } from '../types.js';
import { ChunkRestorer, jsonStringRestore, restoreCompletion } from './restore.js';

const ENTRIES: TokenEntry[] = [
  { id: 'p_001', type: 'person', cap: 'a1b2c3d4e5f6', value: 'Jane "JD" O\\Brien', mode: 'full' },
  { id: 'e_001', type: 'email', cap: '0123456789ab', value: 'jane@example.com', mode: 'full' },
];
const [NAME, EMAIL] = ENTRIES.map((entry) => renderToken(entry)) as [string, string];
const policy = new CompiledPolicy(DEFAULT_POLICY);
const entries = indexEntries(ENTRIES);
const text: RestoreFunction = (output) => rehydrateText({ output, entries, policy, language: 'en', caller: {}, channel: 'user_output', scan: findTokensLenient });
const json = jsonStringRestore(text, findTokensLenient);
const open = (kind: 'text' | 'json'): StreamRehydrator => new StreamRehydrator(kind === 'text' ? text : json);

const ARGS = JSON.stringify({ to: EMAIL, name: NAME, note: `${NAME} <${EMAIL}>` });
const EXPECTED_ARGS = { to: 'jane@example.com', name: 'Jane "JD" O\\Brien', note: 'Jane "JD" O\\Brien <jane@example.com>' };

function chunk(choices: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices, ...extra };
}

describe('jsonStringRestore', () => {
  it('escapes restored values as JSON string content and leaves unknown tokens alone', () => {
    expect(JSON.parse(json(ARGS).restoredText)).toEqual(EXPECTED_ARGS);
    const unknown = '{"x":"{{email:e_009:ffffffffffff}}"}';
    expect(json(unknown)).toMatchObject({ restoredText: unknown, tokensResolved: 0, tokensUnresolved: [{ reason: 'unknown' }] });
  });
});

describe('restoreCompletion', () => {
  it('restores content, refusal and arguments; leaves everything else', () => {
    const completion = {
      id: 'x',
      usage: { total_tokens: 3 },
      choices: [
        { index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: `Hi ${NAME}`, refusal: null, tool_calls: [{ id: 't', type: 'function', function: { name: 'mail', arguments: ARGS } }] } },
        { index: 1, finish_reason: 'stop', message: { role: 'assistant', content: null, refusal: `No, ${EMAIL}.` } },
      ],
    };
    const restored = restoreCompletion(completion, { text, json });
    const [first, second] = restored.value.choices as any[];
    expect(first.message.content).toBe('Hi Jane "JD" O\\Brien');
    expect(JSON.parse(first.message.tool_calls[0].function.arguments)).toEqual(EXPECTED_ARGS);
    expect(first.message.tool_calls[0].id).toBe('t');
    expect(second.message.refusal).toBe('No, jane@example.com.');
    expect(restored.value.usage).toEqual({ total_tokens: 3 });
    expect(restored.tokensResolved).toBe(6);
  });

  it('refuses an answer that is not a chat completion', () => {
    expect(() => restoreCompletion({ object: 'error' }, { text, json })).toThrow(/malformed/);
    expect(() => restoreCompletion({ choices: [1] }, { text, json })).toThrow(/malformed/);
  });
});

/** Run deltas of two choices (content and tool calls) through a ChunkRestorer, cut every `size`. */
function runStream(content: string, args: readonly string[], size: number): { chunks: Record<string, unknown>[]; restorer: ChunkRestorer } {
  const restorer = new ChunkRestorer(open);
  const chunks: Record<string, unknown>[] = [];
  const push = (value: Record<string, unknown> | undefined): void => {
    if (value !== undefined) chunks.push(value);
  };
  push(restorer.rewrite(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }])));
  for (let at = 0; at < content.length; at += size) {
    push(restorer.rewrite(chunk([{ index: 0, delta: { content: content.slice(at, at + size) }, finish_reason: null }, { index: 1, delta: { content: content.slice(at, at + size) }, finish_reason: null }])));
  }
  args.forEach((arg, callIndex) => {
    push(restorer.rewrite(chunk([{ index: 0, delta: { tool_calls: [{ index: callIndex, id: `t${callIndex}`, type: 'function', function: { name: 'f', arguments: '' } }] }, finish_reason: null }])));
    for (let at = 0; at < arg.length; at += size) {
      push(restorer.rewrite(chunk([{ index: 0, delta: { tool_calls: [{ index: callIndex, function: { arguments: arg.slice(at, at + size) } }] }, finish_reason: null }])));
    }
  });
  push(restorer.rewrite(chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }])));
  push(restorer.finish());
  return { chunks, restorer };
}

function collect(chunks: readonly Record<string, unknown>[]): { content: string[]; tools: string[] } {
  const content: string[] = [];
  const tools: string[] = [];
  for (const value of chunks) {
    for (const choice of value.choices as any[]) {
      content[choice.index] = `${content[choice.index] ?? ''}${choice.delta.content ?? ''}`;
      for (const call of choice.delta.tool_calls ?? []) tools[call.index] = `${tools[call.index] ?? ''}${call.function?.arguments ?? ''}`;
    }
  }
  return { content, tools };
}

describe('ChunkRestorer', () => {
  const content = `Dear ${NAME}, mail ${EMAIL} or {{email:e_009:ffffffffffff}}. 😀`;
  const expected = text(content).restoredText;

  it('restores every text stream exactly like the whole answer, for every chunk size', () => {
    for (let size = 1; size <= content.length; size += 1) {
      const { chunks, restorer } = runStream(content, [ARGS, ARGS], size);
      const { content: restored, tools } = collect(chunks);
      expect(restored, `size ${size}`).toEqual([expected, expected]);
      expect(tools.map((tool) => JSON.parse(tool))).toEqual([EXPECTED_ARGS, EXPECTED_ARGS]);
      for (const value of chunks) expect(JSON.stringify(value)).not.toMatch(/a1b2c3|0123456789ab/);
      expect(restorer.tokensResolved).toBe(2 * 2 + 2 * 4);
    }
  });

  it('releases a tool call\'s held arguments once the next tool call released text (session 18: not when it starts)', () => {
    const restorer = new ChunkRestorer(open);
    const start = (index: number) => chunk([{ index: 0, delta: { tool_calls: [{ index, id: `t${index}`, type: 'function', function: { name: 'f', arguments: '' } }] }, finish_reason: null }]);
    restorer.rewrite(start(0));
    const held = restorer.rewrite(chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: `{"to":"${EMAIL.slice(0, 5)}` } }] }, finish_reason: null }]));
    expect((held?.choices as any[])[0].delta.tool_calls[0].function.arguments).toBe('{"to":"');
    const next = restorer.rewrite(start(1))!;
    expect((next.choices as any[])[0].delta.tool_calls).toEqual([{ index: 1, id: 't1', type: 'function', function: { name: 'f', arguments: '' } }]);
    const text = restorer.rewrite(chunk([{ index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: '{"note":"plain words, then more plain words"' } }] }, finish_reason: null }]))!;
    const calls = (text.choices as any[])[0].delta.tool_calls;
    expect(calls[0]).toEqual({ index: 0, function: { arguments: EMAIL.slice(0, 5) } });
    expect(calls[1].index).toBe(1);
  });

  it('drops a chunk whose text is all held, keeps role, finish, usage and empty-choice chunks', () => {
    const restorer = new ChunkRestorer(open);
    expect(restorer.rewrite(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]))).toBeDefined();
    expect(restorer.rewrite(chunk([{ index: 0, delta: { content: '{{per' }, finish_reason: null }]))).toBeUndefined();
    // The held part and the new text of one stream are checked together (a split token is whole).
    expect(restorer.pendingWith(chunk([{ index: 0, delta: { content: 'son:' } }])).split('\u0000')).toContain('{{person:');
    const finished = restorer.rewrite(chunk([{ index: 0, delta: { content: 'son' }, finish_reason: 'stop' }]))!;
    expect((finished.choices as any[])[0].delta.content).toBe('{{person');
    expect(restorer.complete).toBe(true);
    expect(restorer.rewrite(chunk([], { usage: { total_tokens: 1 } }))).toEqual(chunk([], { usage: { total_tokens: 1 } }));
    expect(restorer.finish()).toBeUndefined();
  });

  it('refuses chunks it cannot read', () => {
    const restorer = new ChunkRestorer(open);
    expect(() => restorer.rewrite({ id: 'x' })).toThrow(/malformed/);
    expect(() => restorer.rewrite(chunk([{ index: 500, delta: {} }]))).toThrow(/malformed/);
    expect(() => restorer.rewrite(chunk([{ index: 0, delta: 'text' }]))).toThrow(/malformed/);
  });
});
