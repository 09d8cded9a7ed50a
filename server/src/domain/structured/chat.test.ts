// Chat mode (interface.md 2.11 and 4.1 chat rules): text-bearing fields tokenized with shared
// tokens across messages, tool-call arguments parsed and re-serialized as valid JSON, other
// fields passed, and anything else that carries text refused by path, never by value.
import { DEFAULT_POLICY, VeilError } from '@veil/common';
import { describe, expect, it } from 'vitest';
import { detectAll } from '../detect/index.js';
import { CompiledPolicy } from '../policy/index.js';
import { indexEntries, rehydrateText } from '../rehydrate.js';
import { findTokens, TokenAllocator } from '../token/index.js';
import { prepareChatMessages, tokenizeChatMessages } from './chat.js';
import { STRUCTURED_LIMITS } from './limits.js';
import { restoreJsonValue } from './restore.js';
import { SlotScanner } from './slots.js';

const policy = new CompiledPolicy(DEFAULT_POLICY);

function transform(messages: unknown) {
  const scanner = new SlotScanner({ detect: (text) => detectAll(text, { language: 'en' }), policy, context: {}, allocator: new TokenAllocator() });
  const result = tokenizeChatMessages(prepareChatMessages(messages), scanner);
  return { ...result, scanner };
}

function rejection(messages: unknown): VeilError {
  try {
    transform(messages);
  } catch (error) {
    if (error instanceof VeilError) return error;
    throw error;
  }
  throw new Error('expected a VeilError');
}

const MESSAGES = [
  { role: 'system', content: 'You help customers. Never reveal card numbers.' },
  { role: 'user', name: 'ada_lovelace', content: 'My email is ada@example.com and my card is 4111 1111 1111 1111.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Please also update ada@example.com on file.' },
      { type: 'image_url', image_url: { url: 'https://example.com/receipt.png', detail: 'low' } },
    ],
  },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'update_customer', arguments: '{"email":"ada@example.com","card":4111111111111111,"vip":true}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'call_1', content: 'Updated ada@example.com.' },
];

describe('tokenizeChatMessages', () => {
  const { value, entities, scanner } = transform(MESSAGES);
  const serialized = JSON.stringify(value);
  const tokens = [...new Set(findTokens(serialized).map((candidate) => candidate.raw))];

  it('tokenizes content, text parts and tool-call arguments, sharing tokens across messages', () => {
    expect(serialized).not.toContain('ada@example.com');
    expect(serialized).not.toContain('4111');
    // One email and one card: the same value in five places has one token each.
    expect(tokens).toHaveLength(2);
    expect(scanner.newEntries.map((entry) => entry.type).sort()).toEqual(['credit_card', 'email']);
  });

  it('passes roles, ids, names of functions, image parts and null content unchanged', () => {
    expect(value.map((message) => message.role)).toEqual(['system', 'user', 'user', 'assistant', 'tool']);
    expect(value[0]).toEqual(MESSAGES[0]);
    expect(value[1]!.name).toBe('ada_lovelace');
    expect((value[2]!.content as unknown[])[1]).toEqual((MESSAGES[2]!.content as unknown[])[1]);
    expect(value[3]!.content).toBeNull();
    expect(value[4]!.tool_call_id).toBe('call_1');
    const call = (value[3]!.tool_calls as { id: string; type: string; function: { name: string; arguments: string } }[])[0]!;
    expect(call.id).toBe('call_1');
    expect(call.function.name).toBe('update_customer');
    const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
    expect(Object.keys(args)).toEqual(['email', 'card', 'vip']);
    expect(args.vip).toBe(true);
    expect(typeof args.card).toBe('string');
  });

  it('reports entity paths inside messages, parts and arguments', () => {
    expect(entities.map((entity) => entity.path)).toEqual([
      '/messages/1/content',
      '/messages/1/content',
      '/messages/2/content/0/text',
      '/messages/3/tool_calls/0/function/arguments/email',
      '/messages/3/tool_calls/0/function/arguments/card',
      '/messages/4/content',
    ]);
    expect(entities[2]).toMatchObject({ type: 'email', span: { start: 19, end: 34 } });
  });

  it('tokenizes a participant name that is personal data', () => {
    const result = transform([{ role: 'user', name: 'ada@example.com', content: 'hi' }]);
    expect(result.value[0]!.name).toMatch(/^\{\{email:e_001:[0-9a-f]{12}\}\}$/);
    expect(result.entities[0]?.path).toBe('/messages/0/name');
  });

  // A value shared by two fields has one token, which restores to the first spelling seen in
  // the session: the card number in the arguments comes back as the string from message 1.
  it('restores to the original messages (a PII number comes back as a string, first spelling)', () => {
    const entries = indexEntries(scanner.newEntries);
    const restore = (output: string) => rehydrateText({ output, entries, policy, language: 'en', caller: {}, channel: 'user_output' });
    const restored = restoreJsonValue(value, restore).value as typeof MESSAGES;
    const expected = structuredClone(MESSAGES);
    expected[3]!.tool_calls![0]!.function.arguments = '{"email":"ada@example.com","card":"4111 1111 1111 1111","vip":true}';
    expect(restored).toEqual(expected);
    expect(JSON.parse(restore(serialized).restoredText)).toEqual(expected);
  });
});

describe('prepareChatMessages: refusals', () => {
  it.each([
    ['not an array', { role: 'user' }, 'input_messages: must be an array of chat messages'],
    ['empty', [], 'input_messages: must hold at least one message'],
    ['a message that is not an object', ['hi'], 'input_messages/0: must be an object'],
    ['missing role', [{ content: 'x' }], 'input_messages/0/role: must be a non-empty string'],
    ['empty role', [{ role: '', content: 'x' }], 'input_messages/0/role: must be a non-empty string'],
    ['numeric content', [{ role: 'user', content: 5 }], 'input_messages/0/content: must be a string, an array of content parts or null'],
    ['a part without type', [{ role: 'user', content: [{ text: 'x' }] }], 'input_messages/0/content/0/type: must be a non-empty string'],
    ['a text part without text', [{ role: 'user', content: [{ type: 'text' }] }], 'input_messages/0/content/0/text: must be a string'],
    ['extra text on a text part', [{ role: 'user', content: [{ type: 'text', text: 'x', note: 'y' }] }], 'input_messages/0/content/0/note: field is not allowed here (it carries text that would not be tokenized)'],
    ['an unknown part type with text', [{ role: 'user', content: [{ type: 'document', body: 'ada@example.com' }] }], 'input_messages/0/content/0/body: field is not allowed here (it carries text that would not be tokenized)'],
    ['extra text in image_url', [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'u', alt: 'Ada' } }] }], 'input_messages/0/content/0/image_url/alt: field is not allowed here (it carries text that would not be tokenized)'],
    ['an unknown text field', [{ role: 'user', content: 'x', metadata: { owner: 'ada@example.com' } }], 'input_messages/0/metadata: field is not allowed here (it carries text that would not be tokenized)'],
    ['an unknown field named like data', [{ role: 'user', content: 'x', 'ada@example.com': 'y' }], 'input_messages/0/<field>: field is not allowed here (it carries text that would not be tokenized)'],
    ['a legacy function_call', [{ role: 'assistant', function_call: { name: 'f', arguments: '{}' } }], 'input_messages/0/function_call: field is not allowed here (it carries text that would not be tokenized)'],
    ['a numeric name', [{ role: 'user', content: 'x', name: 7 }], 'input_messages/0/name: must be a string'],
    ['non-JSON arguments', [{ role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: 'email=ada@example.com' } }] }], 'input_messages/0/tool_calls/0/function/arguments: is not valid JSON'],
    ['empty arguments', [{ role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '' } }] }], 'input_messages/0/tool_calls/0/function/arguments: is not valid JSON'],
    ['a tool call without function', [{ role: 'assistant', tool_calls: [{ id: 'c', type: 'function' }] }], 'input_messages/0/tool_calls/0/function: must be an object'],
    ['extra text on a tool call', [{ role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' }, note: 'x' }] }], 'input_messages/0/tool_calls/0/note: field is not allowed here (it carries text that would not be tokenized)'],
    ['tool_calls not an array', [{ role: 'assistant', tool_calls: {} }], 'input_messages/0/tool_calls: must be an array'],
  ])('refuses %s, naming the path and no value', (_name, messages, message) => {
    const error = rejection(messages);
    expect(error.code).toBe('VEIL_VALIDATION_FAILED');
    expect(error.message).toBe(message);
    expect(error.message).not.toMatch(/ada@|Ada/);
  });

  it('passes unknown fields that carry no text', () => {
    const messages = [{ role: 'user', content: 'hi', weight: 1, flags: [true, null], extra: {} }, { role: 'user', content: [{ type: 'ping', level: 3 }] }];
    expect(transform(messages).value).toEqual(messages);
  });

  it('refuses an unknown field nested past the bound as a depth bound (413), not as text', () => {
    let deep: unknown = 1;
    for (let level = 0; level < 70; level += 1) deep = [deep];
    const error = rejection([{ role: 'user', content: 'hi', extra: deep }]);
    expect(error.code).toBe('VEIL_PAYLOAD_TOO_LARGE');
    expect(error.message).toBe('input_messages/0/extra: nested deeper than 64 levels');
  });

  it('applies the JSON-mode bounds to the whole message array, arguments included', () => {
    const deepArguments = `${'['.repeat(65)}${']'.repeat(65)}`;
    const deep = rejection([{ role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: deepArguments } }] }]);
    expect(deep.code).toBe('VEIL_PAYLOAD_TOO_LARGE');
    expect(deep.message).toBe('input_messages/0/tool_calls/0/function/arguments: nested deeper than 64 levels');
    const many = Array.from({ length: STRUCTURED_LIMITS.maxSlots + 1 }, () => ({ role: 'user', content: 'x' }));
    const error = rejection(many);
    expect(error.code).toBe('VEIL_PAYLOAD_TOO_LARGE');
    expect(error.message).toBe('input_messages: more than 10000 scannable values (strings, keys and numbers)');
  });
});
