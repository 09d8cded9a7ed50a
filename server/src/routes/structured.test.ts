// JSON and chat input through HTTP (interface.md 4.1): structure preserved, keys and values
// tokenized, PII numbers as string tokens, one session for the document, the exactly-one-input
// rule, bounds failing closed, and rejected chat fields naming the path, never a value.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, post, type TestApp } from '../../test/support/harness.js';

const EMAIL = 'json.person@example.com';
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('input_type json', () => {
  it('tokenizes every string and key, keeps the structure, and restores through one session', async () => {
    const document = {
      customer: { email: EMAIL, phones: [{ phone: '+1 415 555 0134' }], vip: true, visits: 3, note: null },
      [EMAIL]: 'key holder',
      card: 4111111111111111,
    };
    const response = await post(t.app, '/v1/transform', { input_type: 'json', input_json: document });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const safe = response.body.safe_json;
    expect(JSON.stringify(safe)).not.toContain(EMAIL);
    expect(safe.customer.vip).toBe(true);
    expect(safe.customer.visits).toBe(3);
    expect(safe.customer.note).toBeNull();
    expect(safe.customer.phones).toHaveLength(1);
    expect(typeof safe.card).toBe('string');
    expect(response.body.safe_text).toBe(JSON.stringify(safe));
    const emailTokens = new Set(response.body.entities.filter((entity: any) => entity.type === 'email').map((entity: any) => entity.token));
    expect(emailTokens.size).toBe(1);
    const keyEntity = response.body.entities.find((entity: any) => entity.in_key === true);
    expect(keyEntity.type).toBe('email');
    expect(response.body.entities.find((entity: any) => entity.path === '/customer/email')).toBeDefined();

    const restored = await post(t.app, '/v1/rehydrate', { output: response.body.safe_text, session_state: response.body.session_state });
    const back = JSON.parse(restored.body.restored_text);
    expect(back.customer.email).toBe(EMAIL);
    expect(back[EMAIL]).toBe('key holder');
    expect(back.card).toBe('4111111111111111');
  });

  it('enforces the exactly-one-input rule and the bounds', async () => {
    expect((await post(t.app, '/v1/transform', { input: 'x', input_json: {} })).status).toBe(400);
    expect((await post(t.app, '/v1/transform', {})).status).toBe(400);
    expect((await post(t.app, '/v1/transform', { input_type: 'json', input: 'x' })).status).toBe(400);
    const nullDocument = await post(t.app, '/v1/transform', { input_json: null });
    expect(nullDocument.status).toBe(200);
    expect(nullDocument.body.safe_json).toBeNull();
    let deep: unknown = EMAIL;
    for (let level = 0; level < 70; level += 1) deep = [deep];
    const tooDeep = await post(t.app, '/v1/transform', { input_json: deep });
    expect(tooDeep.status).toBe(413);
    expect(tooDeep.body.code).toBe('VEIL_PAYLOAD_TOO_LARGE');
    const tooMany = await post(t.app, '/v1/transform', { input_json: Array.from({ length: 10_001 }, (_, index) => `v${index}`) });
    expect(tooMany.body.code).toBe('VEIL_PAYLOAD_TOO_LARGE');
    expect(JSON.stringify(tooDeep.body)).not.toContain(EMAIL);
  });
});

describe('input_type chat_messages', () => {
  it('tokenizes content, parts and tool-call arguments; the same value shares a token across messages', async () => {
    const messages = [
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', content: `My mail is ${EMAIL}` },
      { role: 'user', content: [{ type: 'text', text: `again ${EMAIL}` }, { type: 'image_url', image_url: { url: 'https://img.example/x.png' } }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'send', arguments: JSON.stringify({ to: EMAIL, body: 'hi' }) } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'sent' },
    ];
    const response = await post(t.app, '/v1/transform', { input_type: 'chat_messages', input_messages: messages });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const safe = response.body.safe_messages;
    expect(safe).toHaveLength(5);
    expect(JSON.stringify(safe)).not.toContain(EMAIL);
    expect(safe[2].content[1]).toEqual(messages[2]!.content![1]);
    expect(safe[4].tool_call_id).toBe('call_1');
    const args = JSON.parse(safe[3].tool_calls[0].function.arguments);
    expect(args.body).toBe('hi');
    const tokens = new Set(response.body.entities.map((entity: any) => entity.token));
    expect(tokens.size).toBe(1);
    expect(args.to).toBe([...tokens][0]);
    const restored = await post(t.app, '/v1/rehydrate', { output: `Reply to ${args.to}`, session_state: response.body.session_state });
    expect(restored.body.restored_text).toBe(`Reply to ${EMAIL}`);
  });

  it('rejects unknown text-bearing fields and non-JSON arguments without echoing values', async () => {
    const extra = await post(t.app, '/v1/transform', { input_messages: [{ role: 'user', content: 'x', secret_field: `canary ${EMAIL}` }] });
    expect(extra.status).toBe(400);
    expect(JSON.stringify(extra.body)).not.toContain(EMAIL);
    const badArgs = await post(t.app, '/v1/transform', {
      input_messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: `not json ${EMAIL}` } }] }],
    });
    expect(badArgs.status).toBe(400);
    expect(JSON.stringify(badArgs.body)).not.toContain(EMAIL);
    expect((await post(t.app, '/v1/transform', { input_messages: [{ role: '', content: 'x' }] })).status).toBe(400);
    expect(t.logs.text()).not.toContain(EMAIL);
  });
});

describe('rehydrate with output_json', () => {
  it('restores every string of a tokenized document and keeps it valid JSON when values hold quotes', async () => {
    const tricky = 'ticket "A\\B" 42';
    const document = { contact: EMAIL, [EMAIL]: 'key', notes: [tricky] };
    const made = await post(t.app, '/v1/transform', {
      input_json: document,
      custom_patterns: [{ entity_type: 'ticket', pattern: 'ticket "[A-Z]\\\\[A-Z]" [0-9]+' }],
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(JSON.stringify(made.body.safe_json)).not.toContain('A\\\\B');
    const restored = await post(t.app, '/v1/rehydrate', { output_json: made.body.safe_json, session_state: made.body.session_state });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body.restored_json).toEqual(document);
    expect(JSON.parse(restored.body.restored_text)).toEqual(document);
    expect(restored.body.tokens_resolved).toBe(3);
    const both = await post(t.app, '/v1/rehydrate', { output: 'x', output_json: {}, session_state: made.body.session_state });
    expect(both.status).toBe(400);
    const neither = await post(t.app, '/v1/rehydrate', { session_state: made.body.session_state });
    expect(neither.status).toBe(400);
  });
});
