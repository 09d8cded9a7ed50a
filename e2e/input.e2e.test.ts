// Input handling against the real `veil serve` process (issue 15, item 15): request bytes that
// are not UTF-8 are refused (400) on every JSON route, in ndjson stream bodies and in multipart
// text fields, without echoing them; a request naming an unknown entity type is a 400 naming
// the field; and every depth or structure bound answers the same 413 VEIL_PAYLOAD_TOO_LARGE.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startVeil, type ServerProcess } from './support/server.js';

const EMAIL = 'e2e.input.canary@example.com';
/** Bytes that are not UTF-8 (a lone continuation byte, an overlong form, a truncated sequence). */
const BAD = [Buffer.from([0xff]), Buffer.from([0xc0, 0xaf]), Buffer.from([0xe2, 0x82])];

let server: ServerProcess;
beforeAll(async () => {
  server = await startVeil({ env: { VEIL_SESSION_SECRET: '7c'.repeat(32) } });
});
afterAll(async () => {
  await server.stop();
});

interface Answer {
  readonly status: number;
  readonly text: string;
  readonly body: any;
}

async function send(path: string, body: Buffer, contentType: string): Promise<Answer> {
  const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, text, body: parsed };
}

/** `{"<field>":"<prefix><bad bytes><EMAIL>"}` plus `extra` members, as raw bytes. */
function jsonWithBadBytes(bad: Buffer, before: string, after: string): Buffer {
  return Buffer.concat([Buffer.from(before), bad, Buffer.from(after)]);
}

/** A multipart body written by hand, so a field can carry bytes FormData would re-encode. */
function multipart(parts: { name: string; value: Buffer; filename?: string }[]): { body: Buffer; type: string } {
  const boundary = 'veil-e2e-boundary-4c1f';
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
    const type = part.filename !== undefined ? 'Content-Type: text/plain\r\n' : '';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`), part.value, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` };
}

function expectRefused(answer: Answer, status: number, code: string, message?: string | RegExp): void {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.body).toMatchObject({ code, request_id: expect.any(String) });
  if (message !== undefined) expect(answer.body.error).toMatch(message);
  expect(answer.text).not.toContain(EMAIL);
  expect(answer.text).not.toContain('\ufffd');
}

describe('invalid UTF-8 request bytes (real process)', () => {
  // Every JSON route reads its body through the one parser; each gets a body that would be
  // valid (or at least parse) once its bad bytes became U+FFFD.
  const routes: [string, (bad: Buffer) => Buffer][] = [
    ['/v1/transform', (bad) => jsonWithBadBytes(bad, '{"input":"mail ', ` ${EMAIL}"}`)],
    ['/v1/transform/stream', (bad) => jsonWithBadBytes(bad, '{"input":"mail ', ` ${EMAIL}"}`)],
    ['/v1/detect', (bad) => jsonWithBadBytes(bad, '{"input":"mail ', ` ${EMAIL}"}`)],
    ['/v1/batch/transform', (bad) => jsonWithBadBytes(bad, '{"items":[{"text":"mail ', ` ${EMAIL}"}]}`)],
    ['/v1/batch/detect', (bad) => jsonWithBadBytes(bad, '{"items":[{"text":"mail ', ` ${EMAIL}"}]}`)],
    ['/v1/rehydrate', (bad) => jsonWithBadBytes(bad, '{"output":"x', `","session_state":"v1.x.y"}`)],
    ['/v1/rehydrate/stream', (bad) => jsonWithBadBytes(bad, '{"output":"x', `","session_state":"v1.x.y"}`)],
    ['/v1/evaluate-policy', (bad) => jsonWithBadBytes(bad, '{"entities":[{"type":"email","value":"', `${EMAIL}"}]}`)],
    ['/v1/revoke', (bad) => jsonWithBadBytes(bad, '{"entity_type":"email","value":"', `${EMAIL}"}`)],
    ['/v1/rag/ingest', (bad) => jsonWithBadBytes(bad, '{"text":"mail ', ` ${EMAIL}"}`)],
    ['/v1/rag/query', (bad) => jsonWithBadBytes(bad, '{"query":"mail ', ` ${EMAIL}"}`)],
    ['/v1/sessions/status', (bad) => jsonWithBadBytes(bad, '{"session_state":"v1.', `"}`)],
    ['/v1/entity-types', (bad) => jsonWithBadBytes(bad, '{"name":"ticket', `"}`)],
    ['/v1/patterns', (bad) => jsonWithBadBytes(bad, '{"pattern":"a', `","sample":"${EMAIL}"}`)],
  ];
  for (const [path, build] of routes) {
    it(`${path} refuses a JSON body that is not UTF-8 (400, nothing echoed)`, async () => {
      for (const bad of BAD) {
        expectRefused(await send(path, build(bad), 'application/json'), 400, 'VEIL_VALIDATION_FAILED', /^body: is not valid UTF-8$/);
      }
    });
  }

  it('still accepts valid multibyte UTF-8 and the escaped replacement character', async () => {
    const ok = await send('/v1/transform', Buffer.from(`{"input":"café ☕ \\ufffd ${EMAIL}"}`), 'application/json');
    expect(ok.status).toBe(200);
    expect(ok.body.safe_text).toMatch(/^café ☕ \ufffd \{\{email:/);
  });

  it('refuses an ndjson stream whose parameters line or a later delta is not UTF-8', async () => {
    const made = await postJson(`${server.url}/v1/transform`, { input: `mail ${EMAIL}` });
    expect(made.status).toBe(200);
    const params = JSON.stringify({ session_state: made.body.session_state });
    const first = await send('/v1/rehydrate/stream', Buffer.concat([Buffer.from('{"session_state":"'), BAD[0]!, Buffer.from('"}\n')]), 'application/x-ndjson');
    expectRefused(first, 400, 'VEIL_VALIDATION_FAILED', /^body: is not valid UTF-8$/);
    // After the stream started (headers received), a bad delta is refused by its last frame.
    let push!: ReadableStreamDefaultController<Uint8Array>;
    const stream = new ReadableStream<Uint8Array>({ start: (controller) => void (push = controller) });
    push.enqueue(Buffer.from(`${params}\n`));
    const response = await fetch(`${server.url}/v1/rehydrate/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: stream,
      duplex: 'half',
    });
    expect(response.status).toBe(200);
    push.enqueue(Buffer.concat([Buffer.from('{"delta":"Hello "}\n{"delta":"more '), BAD[1]!, Buffer.from(` ${EMAIL}"}\n`)]));
    push.close();
    const text = await response.text();
    const frames = text
      .split('\n\n')
      .filter((block) => block.startsWith('data: '))
      .map((block) => JSON.parse(block.slice(6)) as Record<string, unknown>);
    expect(frames.at(-1)).toEqual({ error: 'body: is not valid UTF-8', complete: true });
    const later = { text };
    expect(later.text).not.toContain(EMAIL);
  });

  it('refuses multipart text fields that are not UTF-8 and keeps valid ones', async () => {
    const file = { name: 'file', value: Buffer.from(`mail ${EMAIL}\n`), filename: 'a.txt' };
    const bad = multipart([{ name: 'language', value: Buffer.concat([Buffer.from('e'), BAD[0]!]) }, file]);
    expectRefused(await send('/v1/transform/file', bad.body, bad.type), 400, 'VEIL_VALIDATION_FAILED', /^language: is not valid UTF-8/);
    const good = multipart([{ name: 'language', value: Buffer.from('en') }, file]);
    const transformed = await send('/v1/transform/file', good.body, good.type);
    expect(transformed.status).toBe(200);
    const state = Buffer.from(transformed.body.session_state as string);
    const badState = multipart([
      { name: 'session_state', value: Buffer.concat([state.subarray(0, 20), BAD[2]!, state.subarray(20)]) },
      { name: 'file', value: Buffer.from(transformed.body.safe_text as string), filename: 'a.txt' },
    ]);
    expectRefused(await send('/v1/rehydrate/file', badState.body, badState.type), 400, 'VEIL_VALIDATION_FAILED', /^session_state: is not valid UTF-8/);
  });
});

describe('unknown entity types (real process)', () => {
  it('/v1/detect refuses an entity_types filter naming no type, and accepts request pattern types', async () => {
    const misspelt = await postJson(`${server.url}/v1/detect`, { input: `mail ${EMAIL}`, entity_types: ['email', 'emial'] });
    expectRefused(misspelt, 400, 'VEIL_VALIDATION_FAILED', /^entity_types\[1\]: unknown entity type/);
    expect(misspelt.text).not.toContain('emial');
    const undefinedCustom = await postJson(`${server.url}/v1/detect`, { input: 'ticket TK-1234', entity_types: ['custom:ticket'] });
    expectRefused(undefinedCustom, 400, 'VEIL_VALIDATION_FAILED', /^entity_types\[0\]: unknown entity type/);
    const defined = await postJson(`${server.url}/v1/detect`, {
      input: 'ticket TK-1234',
      entity_types: ['custom:ticket'],
      custom_patterns: [{ entity_type: 'ticket', pattern: 'TK-[0-9]{4}' }],
    });
    expect(defined.status).toBe(200);
    expect(defined.body.entities.map((entity: { type: string }) => entity.type)).toEqual(['custom:ticket']);
  });

  it('/v1/transform refuses protection_overrides naming no type, in every input mode', async () => {
    const bodies = [
      { input: `mail ${EMAIL}`, protection_overrides: { emial: 'masked' } },
      { input_json: { to: EMAIL }, protection_overrides: { emial: 'masked' } },
      { input_messages: [{ role: 'user', content: EMAIL }], protection_overrides: { 'custom:ticket': 'none' } },
      // A bare custom name never matched (detections are typed custom:<name>): refused too.
      { input: 'TK-1234', custom_patterns: [{ entity_type: 'ticket', pattern: 'TK-[0-9]{4}' }], protection_overrides: { ticket: 'none' } },
    ];
    for (const body of bodies) {
      expectRefused(await postJson(`${server.url}/v1/transform`, body), 400, 'VEIL_VALIDATION_FAILED', /^protection_overrides: unknown entity type/);
    }
    const stream = await postJson(`${server.url}/v1/transform/stream`, bodies[0]);
    expectRefused(stream, 400, 'VEIL_VALIDATION_FAILED', /^protection_overrides: unknown entity type/);
    const known = await postJson(`${server.url}/v1/transform`, {
      input: `TK-1234 ${EMAIL}`,
      custom_patterns: [{ entity_type: 'ticket', pattern: 'TK-[0-9]{4}' }],
      protection_overrides: { email: 'masked', 'custom:ticket': 'none' },
    });
    expect(known.status).toBe(200);
  });

  it('/v1/evaluate-policy refuses a type that is none, naming the entity', async () => {
    const refused = await postJson(`${server.url}/v1/evaluate-policy`, { entities: [{ type: 'email' }, { type: 'credit_cards' }] });
    expectRefused(refused, 400, 'VEIL_VALIDATION_FAILED', /^entities\[1\]\.type: unknown entity type/);
    const custom = await postJson(`${server.url}/v1/evaluate-policy`, { entities: [{ type: 'email' }, { type: 'custom:ticket' }] });
    expect(custom.status).toBe(200);
    expect(custom.body.decisions).toHaveLength(2);
  });
});

describe('depth and structure bounds: one answer, 413 VEIL_PAYLOAD_TOO_LARGE (real process)', () => {
  const nest = (levels: number, leaf: unknown = EMAIL): unknown => {
    let value = leaf;
    for (let level = 0; level < levels; level += 1) value = [value];
    return value;
  };

  it('answers every depth bound alike and names the bound, never a value', async () => {
    const made = await postJson(`${server.url}/v1/transform`, { input_json: { to: EMAIL } });
    const cases: [string, string, string, RegExp][] = [
      ['body nesting', '/v1/transform', `{"input":"x","context":${'['.repeat(200)}${']'.repeat(200)}}`, /^body: nested deeper than 128 levels$/],
      ['input_json', '/v1/transform', JSON.stringify({ input_json: nest(70) }), /^input_json: nested deeper than 64 levels$/],
      [
        'tool-call arguments',
        '/v1/transform',
        JSON.stringify({ input_messages: [{ role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: JSON.stringify(nest(70)) } }] }] }),
        /^input_messages\/0\/tool_calls\/0\/function\/arguments: nested deeper than 64 levels$/,
      ],
      [
        'tool-call arguments far past the bound',
        '/v1/transform',
        JSON.stringify({ input_messages: [{ role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: `${'['.repeat(100_000)}${']'.repeat(100_000)}` } }] }] }),
        /^input_messages\/0\/tool_calls\/0\/function\/arguments: nested deeper than 64 levels$/,
      ],
      ['an unknown chat field', '/v1/transform', JSON.stringify({ input_messages: [{ role: 'user', content: 'hi', extra: nest(70, 1) }] }), /^input_messages\/0\/extra: nested deeper than 64 levels$/],
      ['output_json', '/v1/rehydrate', JSON.stringify({ output_json: nest(70), session_state: made.body.session_state }), /nested deeper than 64 levels$/],
    ];
    for (const [name, path, body, message] of cases) {
      const answer = await send(path, Buffer.from(body), 'application/json');
      expect(answer.status, name).toBe(413);
      expectRefused(answer, 413, 'VEIL_PAYLOAD_TOO_LARGE', message);
    }
  });

  it('applies it to ndjson lines, batch items and structure budgets', async () => {
    const line = await send('/v1/rehydrate/stream', Buffer.from(`${'['.repeat(200)}${']'.repeat(200)}\n`), 'application/x-ndjson');
    expectRefused(line, 413, 'VEIL_PAYLOAD_TOO_LARGE', /^body: nested deeper than 128 levels$/);
    const batch = await postJson(`${server.url}/v1/batch/transform`, { items: [{ input_json: nest(70) }, { text: 'fine' }] });
    expect(batch.status).toBe(200);
    expect(batch.body.results[0]).toMatchObject({ code: 'VEIL_PAYLOAD_TOO_LARGE', error: 'input_json: nested deeper than 64 levels' });
    const slots = await postJson(`${server.url}/v1/transform`, { input_json: Array.from({ length: 10_001 }, () => 'x') });
    expectRefused(slots, 413, 'VEIL_PAYLOAD_TOO_LARGE', /^input_json: more than 10000 scannable values/);
  });
});
