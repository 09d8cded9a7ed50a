// SSE routes over a real listening server (interface.md 4.2, 4.4, 6.3; decisions.md 8): frames
// read incrementally with fetch, the ndjson incremental rehydrate driven over node:http with
// deltas split inside tokens, revocations and the deny list applied, errors before the stream
// as JSON envelopes and after it as one terminal frame, and no raw value in any log line.
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, post, type TestApp } from '../../test/support/harness.js';
import { transformFrames } from './stream.js';

const EMAIL = 'stream.person@example.com';
const OTHER = 'other.stream@example.org';
const SSN = '219-09-9999';
const INPUT = `Hello team. Please write to ${EMAIL} today!\n\nThe backup contact is ${OTHER}. Thanks, ${EMAIL} again.`;
let t: TestApp;
let base: string;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'veil-stream-pol-'));
  writeFileSync(
    join(dir, 'strict.yaml'),
    ['name: strict', 'version: "2.0.0"', 'rules:', '  - name: deny-ssn', '    match: {entity_type: us_ssn}', '    action: deny', '  - name: rest', '    match: {}', '    action: tokenize', '    restore_mode: full'].join('\n'),
  );
  // The output guard holds back a 256-character tail of an incremental stream (routes/guards.test.ts
  // and domain/guard/output.test.ts cover it); these short outputs test the token layer alone.
  t = await buildTestApp({ overrides: { policy: { directory: dir, default: 'strict' }, output_protection: { enabled: false } } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${String((t.app.server.address() as AddressInfo).port)}`;
});
afterAll(async () => {
  await t.close();
});

type Frame = Record<string, any>;

/** Parse `data:` frames out of an SSE text buffer; returns the frames and the unparsed rest. */
function takeFrames(buffer: string): { frames: Frame[]; rest: string } {
  const frames: Frame[] = [];
  let rest = buffer;
  let end = rest.indexOf('\n\n');
  while (end !== -1) {
    const block = rest.slice(0, end);
    rest = rest.slice(end + 2);
    const data = block
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice(6))
      .join('\n');
    if (data !== '') frames.push(JSON.parse(data) as Frame);
    end = rest.indexOf('\n\n');
  }
  return { frames, rest };
}

/** POST JSON with fetch and read the SSE body incrementally. */
async function sse(path: string, body: unknown): Promise<{ status: number; contentType: string | null; frames: Frame[]; json?: any }> {
  const response = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const contentType = response.headers.get('content-type');
  if (!(contentType ?? '').startsWith('text/event-stream')) return { status: response.status, contentType, frames: [], json: await response.json() };
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const frames: Frame[] = [];
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    const taken = takeFrames(buffer);
    frames.push(...taken.frames);
    buffer = taken.rest;
  }
  expect(buffer).toBe('');
  return { status: response.status, contentType, frames };
}

/** An ndjson request over node:http (true duplex): write lines at will, read frames as they come. */
function ndjson(path = '/v1/rehydrate/stream'): { req: ClientRequest; write: (value: unknown) => void; response: Promise<IncomingMessage> } {
  const req = httpRequest(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' } });
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    req.on('response', resolve);
    req.on('error', reject);
  });
  return { req, write: (value) => req.write(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`), response };
}

/** Reads frames off a response; `next()` resolves with the next frame as soon as it arrives. */
function frameReader(response: IncomingMessage): { next: () => Promise<Frame | undefined>; all: () => Promise<Frame[]> } {
  const queue: Frame[] = [];
  const waiters: ((frame: Frame | undefined) => void)[] = [];
  let buffer = '';
  let ended = false;
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => {
    buffer += chunk;
    const taken = takeFrames(buffer);
    buffer = taken.rest;
    for (const frame of taken.frames) {
      const waiter = waiters.shift();
      if (waiter !== undefined) waiter(frame);
      else queue.push(frame);
    }
  });
  response.on('end', () => {
    ended = true;
    for (const waiter of waiters.splice(0)) waiter(undefined);
  });
  const next = (): Promise<Frame | undefined> => {
    const queued = queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (ended) return Promise.resolve(undefined);
    return new Promise((resolve) => waiters.push(resolve));
  };
  return {
    next,
    all: async () => {
      const frames: Frame[] = [];
      for (let frame = await next(); frame !== undefined; frame = await next()) frames.push(frame);
      return frames;
    },
  };
}

async function transformed(input: string): Promise<{ safe_text: string; session_state: string }> {
  const response = await post(t.app, '/v1/transform', { input });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

describe('POST /v1/transform/stream', () => {
  it('sends one frame per segment, then the complete frame whose session restores the whole text', async () => {
    const result = await sse('/v1/transform/stream', { input: INPUT });
    expect(result.status).toBe(200);
    expect(result.contentType).toMatch(/^text\/event-stream/);
    const last = result.frames.at(-1)!;
    const segments = result.frames.slice(0, -1);
    expect(segments.length).toBeGreaterThan(1);
    expect(segments.map((frame) => frame.index)).toEqual(segments.map((_frame, index) => index));
    expect(last.complete).toBe(true);
    expect(typeof last.session_state).toBe('string');
    expect(last.stats.entities_detected).toBe(3);
    expect(Array.isArray(last.entity_context)).toBe(true);
    const safeText = segments.map((frame) => frame.safe_text).join('');
    expect(safeText).not.toContain(EMAIL);
    expect(segments.flatMap((frame) => frame.entities)).toHaveLength(3);
    const restored = await post(t.app, '/v1/rehydrate', { output: safeText, session_state: last.session_state });
    expect(restored.body.restored_text).toBe(INPUT);
    expect(t.logs.text()).not.toContain(EMAIL);
  });

  it('frames concatenate to the one-shot safe text, with surrogate pairs and entities never cut', () => {
    const input = `😀 First ${EMAIL}. Second 😀 line ${OTHER}.\n\nThird.`;
    const start = [...input.slice(0, input.indexOf(EMAIL))].length;
    const entities = [{ token: '{{email:T}}', type: 'email', protection_level: 'x', action_applied: 'tokenize', confidence: 1, detector: 'r', span: { start, end: start + EMAIL.length } }];
    const frames = transformFrames(input, entities, 16);
    expect(frames.map((frame) => frame.safe_text).join('')).toBe(input.replace(EMAIL, '{{email:T}}'));
    expect(frames.flatMap((frame) => frame.entities)).toHaveLength(1);
  });

  it('refuses before the stream with a JSON envelope: policy deny, invalid input', async () => {
    const denied = await sse('/v1/transform/stream', { input: `SSN ${SSN}` });
    expect(denied.status).toBe(403);
    expect(denied.json.code).toBe('VEIL_POLICY_DENIED');
    expect(JSON.stringify(denied.json)).not.toContain(SSN);
    const both = await sse('/v1/transform/stream', { input: 'x', input_json: { a: EMAIL } });
    expect(both.status).toBe(400);
    expect(both.json.code).toBe('VEIL_VALIDATION_FAILED');
    expect(t.logs.text()).not.toContain(SSN);
  });

  it('streams a JSON document as one frame with safe_json, then the complete frame', async () => {
    const streamed = await sse('/v1/transform/stream', { input_json: { contact: EMAIL, n: 1 } });
    expect(streamed.status).toBe(200);
    expect(streamed.frames).toHaveLength(2);
    const [first, last] = streamed.frames as any[];
    expect(first.index).toBe(0);
    expect(first.safe_json.n).toBe(1);
    expect(JSON.stringify(first)).not.toContain(EMAIL);
    expect(first.safe_text).toBe(JSON.stringify(first.safe_json));
    expect(last.complete).toBe(true);
    const restored = await post(t.app, '/v1/rehydrate', { output_json: first.safe_json, session_state: last.session_state });
    expect(restored.body.restored_json).toEqual({ contact: EMAIL, n: 1 });
  });
});

describe('POST /v1/rehydrate/stream', () => {
  it('JSON body: frames concatenate to the non-streaming restore', async () => {
    const made = await transformed(INPUT);
    const output = `Model says: ${made.safe_text}\n\nDone. Unknown {{email:zz_0000}}.`;
    const oneShot = await post(t.app, '/v1/rehydrate', { output, session_state: made.session_state });
    const result = await sse('/v1/rehydrate/stream', { output, session_state: made.session_state });
    expect(result.status).toBe(200);
    const last = result.frames.at(-1)!;
    expect(last.complete).toBe(true);
    expect(last.tokens_resolved).toBe(oneShot.body.tokens_resolved);
    expect(last.tokens_unresolved).toEqual(oneShot.body.tokens_unresolved);
    const text = result.frames.slice(0, -1).map((frame) => frame.restored_text).join('');
    expect(text).toBe(oneShot.body.restored_text);
    expect(text).toContain(EMAIL);
  });

  it('ndjson: deltas split inside tokens restore exactly once, and frames arrive before the body ends', async () => {
    const made = await transformed(INPUT);
    const output = `Sure. ${made.safe_text} End.`;
    const oneShot = await post(t.app, '/v1/rehydrate', { output, session_state: made.session_state });
    const client = ndjson();
    client.write({ session_state: made.session_state });
    const cut = output.indexOf('{{') + 5; // inside the first token
    client.write({ delta: output.slice(0, cut) });
    const response = await client.response;
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(response.headers['cache-control']).toBe('no-cache');
    const reader = frameReader(response);
    // The text before the token is released while the request is still open.
    const early = await reader.next();
    expect(early).toEqual({ index: 0, restored_text: output.slice(0, output.indexOf('{{')) });
    for (let position = cut; position < output.length; position += 3) client.write({ delta: output.slice(position, position + 3) });
    client.req.end();
    const frames = [early!, ...(await reader.all())];
    const last = frames.at(-1)!;
    expect(last.complete).toBe(true);
    expect(last.tokens_resolved).toBe(oneShot.body.tokens_resolved);
    const body = frames.slice(0, -1);
    expect(body.map((frame) => frame.index)).toEqual(body.map((_frame, index) => index));
    const text = body.map((frame) => frame.restored_text).join('');
    expect(text).toBe(oneShot.body.restored_text);
    for (const frame of body) expect(frame.restored_text).not.toMatch(/\{\{/);
    expect(t.logs.text()).not.toContain(EMAIL);
  });

  it('ndjson: a bad line mid-stream ends with one error frame; bad parameters are a JSON envelope', async () => {
    const made = await transformed(`mail ${EMAIL}`);
    const client = ndjson();
    client.write({ session_state: made.session_state });
    client.write({ delta: 'Hello there. ' });
    const response = await client.response;
    const reader = frameReader(response);
    expect((await reader.next())?.restored_text).toBe('Hello there. ');
    client.write(`{"delta": "${EMAIL}", "extra": 1}`);
    client.req.end();
    const rest = await reader.all();
    expect(rest).toHaveLength(1);
    expect(rest[0]).toEqual({ error: expect.any(String), complete: true });
    expect(JSON.stringify(rest)).not.toContain(EMAIL);

    const bad = ndjson();
    bad.write({ session_state: made.session_state, output: 'not allowed here' });
    bad.req.end();
    const badResponse = await bad.response;
    expect(badResponse.statusCode).toBe(400);
    expect(badResponse.headers['content-type']).toMatch(/^application\/json/);
    const envelope = JSON.parse((await frameText(badResponse)).trim()) as { code: string; error: string };
    expect(envelope.code).toBe('VEIL_VALIDATION_FAILED');
    expect(envelope.error).toContain('output');
    expect(t.logs.text()).not.toContain(EMAIL);
  });

  it('ndjson: a client that disconnects mid-stream is dropped and the server keeps serving', async () => {
    const made = await transformed(`mail ${EMAIL}`);
    const client = ndjson();
    client.write({ session_state: made.session_state });
    client.write({ delta: 'First part. ' });
    const response = await client.response;
    const reader = frameReader(response);
    expect((await reader.next())?.restored_text).toBe('First part. ');
    client.req.on('error', () => undefined);
    response.on('error', () => undefined);
    client.req.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const after = await sse('/v1/rehydrate/stream', { output: made.safe_text, session_state: made.session_state });
    expect(after.frames.at(-1)?.complete).toBe(true);
  });

  it('ndjson: revocations and the deny list apply exactly as /v1/rehydrate', async () => {
    const made = await transformed(`mail ${OTHER} now`);
    const revoked = await post(t.app, '/v1/revoke', { entity_type: 'email', value: OTHER });
    expect(revoked.status).toBe(200);
    const client = ndjson();
    client.write({ session_state: made.session_state });
    client.write({ delta: made.safe_text });
    client.req.end();
    const frames = await frameReader(await client.response).all();
    expect(frames.slice(0, -1).map((frame) => frame.restored_text).join('')).toBe('mail [DELETED] now');

    const deleted = await t.app.inject({ method: 'DELETE', url: '/v1/sessions', payload: { session_state: made.session_state } });
    expect(deleted.statusCode).toBe(200);
    const gone = ndjson();
    gone.write({ session_state: made.session_state });
    gone.write({ delta: made.safe_text });
    gone.req.end();
    expect((await gone.response).statusCode).toBe(410);
    expect(t.logs.text()).not.toContain(OTHER);
  });
});

async function frameText(response: IncomingMessage): Promise<string> {
  let text = '';
  response.setEncoding('utf8');
  for await (const chunk of response) text += chunk as string;
  return text;
}
