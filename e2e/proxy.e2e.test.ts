// The OpenAI-compatible proxy end to end: the official `openai` npm package pointed at the real
// `veil serve` process (`baseURL: <veil>/openai/v1`), which runs with the real NER sidecar and
// forwards to a local fake upstream (server/src/bench/fake-openai.ts) that echoes the user's
// text and streams it one character per chunk, so every token is split at every position. The
// upstream must never see a protected raw value; the user must get exactly the text they sent;
// failures surface as the SDK's APIError with a useful message.
import OpenAI, { APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi, type FakeOpenAi } from '../server/src/bench/fake-openai.js';
import { startVeil, settledLogs, type ServerProcess } from './support/server.js';
import { nerAvailable, startSidecar, type Sidecar } from './support/sidecar.js';

const KEY = 'proxy-e2e'.repeat(4);
const TEXT = 'Please ask Angela Merkel in Berlin to email jane.doe@example.com or call +1 415 555 0134 (card 4111 1111 1111 1111).';
const REGEX_RAW = ['jane.doe@example.com', '415 555 0134', '4111 1111 1111 1111'];
const NAMES = ['Angela Merkel', 'Merkel'];
const TOKEN = /\{\{[a-z_:]+:[a-z]+_\d+:[0-9a-f]+\}\}/g;

describe.skipIf(!nerAvailable)('the proxy with the official openai npm client and the NER sidecar', () => {
  let sidecar: Sidecar;
  let fake: FakeOpenAi;
  let veil: ServerProcess;
  let client: OpenAI;

  beforeAll(async () => {
    [sidecar, fake] = await Promise.all([startSidecar({ key: KEY }), startFakeOpenAi()]);
    veil = await startVeil({
      env: {
        VEIL_DETECTOR__MODE: 'both',
        VEIL_DETECTOR__ADVANCED_URL: sidecar.url,
        VEIL_DETECTOR__API_KEY: KEY,
        VEIL_PROXY__UPSTREAM_URL: fake.url,
        VEIL_PROXY__UPSTREAM_API_KEY: 'sk-upstream-e2e-0123456789',
      },
    });
    client = new OpenAI({ baseURL: `${veil.url}/openai/v1`, apiKey: 'not-used-by-veil', maxRetries: 0 });
  }, 120_000);
  afterAll(async () => {
    await veil.stop();
    await fake.close();
    sidecar.stop();
  });

  /** Everything the upstream received so far. */
  const upstreamText = (): string => fake.requests.map((request) => request.text).join('\n');

  it('answers a chat completion with exactly the original text; the upstream saw tokens only', async () => {
    fake.reply = () => ({});
    const completion = await client.chat.completions.create({ model: 'fake-model', messages: [{ role: 'system', content: 'You help.' }, { role: 'user', content: TEXT }] });
    expect(completion.choices[0]!.message.content).toBe(TEXT);
    for (const value of REGEX_RAW) expect(upstreamText()).not.toContain(value);
    expect(fake.requests.at(-1)!.body.messages[1].content.match(TOKEN).length).toBeGreaterThanOrEqual(3);
  });

  it('protects names through NER on chat messages', async () => {
    fake.reply = () => ({});
    const { data, response } = await client.chat.completions.create({ model: 'fake-model', messages: [{ role: 'user', content: TEXT }] }).withResponse();
    expect(data.choices[0]!.message.content).toBe(TEXT);
    const sent = fake.requests.at(-1)!.text;
    expect(response.headers.get('x-veil-warning')).toBeNull();
    for (const name of NAMES) expect(sent).not.toContain(name);
    expect(sent).toMatch(/\{\{person:p_\d+:/);
  });

  it('streams the exact original text when every token is split at every position', async () => {
    fake.reply = () => ({ chunkSizes: [1] });
    const stream = await client.chat.completions.create({ model: 'fake-model', stream: true, messages: [{ role: 'user', content: TEXT }] });
    let text = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta.content ?? '';
      expect(delta).not.toMatch(/[{}]/);
      text += delta;
    }
    expect(text).toBe(TEXT);
    for (const value of REGEX_RAW) expect(upstreamText()).not.toContain(value);
  });

  it('restores streamed tool calls through the SDK\'s stream helper', async () => {
    fake.reply = (request) => {
      const tokens: string[] = request.text.match(TOKEN) ?? [];
      const email = tokens.find((token) => token.startsWith('{{email:'));
      return { content: null, chunkSizes: [1], toolCalls: [{ name: 'send_mail', arguments: JSON.stringify({ to: email, subject: 'Hello' }) }] };
    };
    const runner = client.chat.completions.stream({
      model: 'fake-model',
      messages: [{ role: 'user', content: TEXT }],
      tools: [{ type: 'function', function: { name: 'send_mail', parameters: { type: 'object', properties: { to: { type: 'string' }, subject: { type: 'string' } } } } }],
    });
    const final = await runner.finalChatCompletion();
    const call = final.choices[0]!.message.tool_calls![0]!;
    expect(call.type).toBe('function');
    if (call.type !== 'function') return;
    expect(JSON.parse(call.function.arguments)).toEqual({ to: 'jane.doe@example.com', subject: 'Hello' });
  });

  it('restores a value revoked while the stream is open as [DELETED] from then on', async () => {
    // The same restorer and live revocation list as /v1/rehydrate/stream: the upstream holds
    // the stream open after the first mention (and enough text for the output guard to let it
    // go); the value is revoked through the API; the second mention must not come back.
    const value = 'revoke.midstream@example.com';
    const filler = 'and so on '.repeat(60);
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    fake.reply = (request) => {
      const token = (request.text.match(TOKEN) ?? []).find((candidate) => candidate.startsWith('{{email:'))!;
      const first = `First ${token}, ${filler}`;
      // Events: the role, the first part, [hold], the rest, the finish.
      return { content: `${first}again ${token}.`, chunkSizes: [first.length, 1_000_000], holdAfter: { events: 2, until: gate } };
    };
    const stream = await client.chat.completions.create({ model: 'fake-model', stream: true, messages: [{ role: 'user', content: `Write to ${value}.` }] });
    let text = '';
    try {
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        if (text.includes(value) && !text.includes('again')) {
          const revoked = await fetch(`${veil.url}/v1/revoke`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ entity_type: 'email', value }) });
          expect(revoked.status).toBe(200);
          release();
        }
      }
    } finally {
      release();
    }
    expect(text).toBe(`First ${value}, ${filler}again [DELETED].`);
    expect(upstreamText()).not.toContain(value);
  });

  it('carries the session across turns: the history sent back keeps its tokens', async () => {
    fake.reply = () => ({});
    const first = await client.chat.completions.create({ model: 'fake-model', messages: [{ role: 'user', content: 'I am jane.doe@example.com.' }] }).withResponse();
    const state = first.response.headers.get('x-veil-session-state');
    expect(state).toMatch(/^v1\./);
    const token = fake.requests.at(-1)!.text.match(TOKEN)![0];
    const second = await client.chat.completions.create(
      { model: 'fake-model', messages: [{ role: 'user', content: 'I am jane.doe@example.com.' }, first.data.choices[0]!.message, { role: 'user', content: 'Write to jane.doe@example.com.' }] },
      { headers: { 'x-veil-session-state': state! } },
    );
    expect(second.choices[0]!.message.content).toBe('Write to jane.doe@example.com.');
    expect(new Set(fake.requests.at(-1)!.text.match(TOKEN))).toEqual(new Set([token]));
  });

  it('surfaces upstream failures, before and during a stream, as APIError with a useful message', async () => {
    fake.reply = () => ({ status: 404, errorBody: { error: { message: 'The model `nope` does not exist', type: 'invalid_request_error' } } });
    const missing = await client.chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect((missing as APIError).message).toBe('404 the upstream answered 404: The model `nope` does not exist');
    expect((missing as APIError).code).toBe('VEIL_UPSTREAM_FAILED');
    expect((missing as APIError).requestID).toMatch(/^[0-9a-f-]{36}$/);

    fake.reply = () => ({ rawStream: 'data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\ndata: {"error":{"message":"overloaded"}}\n\n' });
    const stream = await client.chat.completions.create({ model: 'fake-model', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const failure = await (async () => {
      for await (const _chunk of stream) {
        // drain
      }
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(APIError);
    expect((failure as APIError).message).toBe('the upstream failed during the stream: overloaded');

    const bad = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { headers: { 'x-veil-restore-mode': 'all' } }).catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect((bad as APIError).message).toMatch(/^400 x-veil-restore-mode header: /);
  });

  it('logs no raw value and no upstream credential', async () => {
    const logs = await settledLogs(veil);
    for (const value of [...REGEX_RAW, ...NAMES, 'sk-upstream-e2e']) expect(logs).not.toContain(value);
  });
});
