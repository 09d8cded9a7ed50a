// Red-team probes of the restore side, session 16 (wave15/red; docs/api.md "Session 16"), against
// the real `veil serve` process (the red team's local mock upstream only). The restore paths not
// probed before: an answer restored from a shared batch session (`/v1/batch/transform` then
// `/v1/rehydrate`), a RAG answer (`/v1/rag/answer`) and a DOCX file (`/v1/rehydrate/file`). The
// model writes a session value raw, encoded (base64, URL, HTML entities), or split across two
// members (strings of a document, paragraphs, table cells) or into a part of the archive that is
// no text run (the document's properties, deleted text, an image's alternative text). At the end
// no probed value is in the logs.
import JSZip from 'jszip';
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { FakeOpenAi } from '../server/src/bench/fake-openai.js';
import { documentXml, makeDocx } from '../server/test/support/documents.js';
import { useRedTeam } from './support/red-team.js';
import { postJson, settledLogs, type ServerProcess } from './support/server.js';

const LOCAL = 'red.sixteen.victim';
const DOMAIN = 'corpsixteen.example';
const EMAIL = `${LOCAL}@${DOMAIN}`;
const BASE64 = Buffer.from(`mail ${EMAIL} now`).toString('base64');
const URL_ENCODED = encodeURIComponent(EMAIL).replaceAll('.', '%2E');
const ENTITIES = [...EMAIL].map((char) => `&#${char.codePointAt(0)};`).join('');
const W_NS = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

let veil: ServerProcess;
let fake: FakeOpenAi;
let client: OpenAI;
useRedTeam((team) => ({ veil, fake, client } = team));

/** Every spelling of the value a restored answer must not hold. */
function expectNoValue(text: string): void {
  for (const form of [EMAIL, LOCAL, DOMAIN, BASE64, URL_ENCODED, ENTITIES]) expect(text).not.toContain(form);
}

/** Answers a model could write with the value, each alone holding it whole or encoded. */
const ANSWERS = [`Write to ${EMAIL}.`, `Encoded: ${BASE64}`, `Link: mailto:${URL_ENCODED}`, `<p>${ENTITIES}</p>`];

describe('red team 16: batch answers', () => {
  it('an answer restored from a shared batch session: raw, encoded, split over two strings of a document', { timeout: 120_000 }, async () => {
    const batch = await postJson(`${veil.url}/v1/batch/transform`, { session_mode: 'shared', items: [{ text: `Write to ${EMAIL}.` }, { input_json: { note: 'second item' } }] });
    expect(batch.status).toBe(200);
    const results = batch.body.results as { session_state?: string }[];
    const state = results[1]!.session_state!;
    expect(typeof state).toBe('string');
    for (const output of ANSWERS) {
      const restored = await postJson(`${veil.url}/v1/rehydrate`, { output, session_state: state });
      expect(restored.status).toBe(200);
      expectNoValue(restored.body.restored_text as string);
    }
    const json = await postJson(`${veil.url}/v1/rehydrate`, { output_json: { rows: [{ user: LOCAL }, { host: DOMAIN }] }, session_state: state });
    expect(json.status).toBe(200);
    expectNoValue(JSON.stringify(json.body.restored_json));
  });
});

describe('red team 16: RAG answers', () => {
  it('an answer restored from a context session: raw, encoded, split over two paragraphs', { timeout: 120_000 }, async () => {
    const ingest = await postJson(`${veil.url}/v1/rag/ingest`, { text: `Account owner ${EMAIL}.`, corpus_id: 'red16' });
    expect(ingest.status).toBe(200);
    const query = await postJson(`${veil.url}/v1/rag/query`, { query: `Who owns ${EMAIL}?`, corpus_id: 'red16' });
    const chunks = ingest.body.chunks as { safe_text: string; chunk_session_state: string }[];
    const context = await postJson(`${veil.url}/v1/rag/context`, {
      chunks: chunks.map((chunk) => chunk.safe_text),
      document_sessions: chunks.map((chunk) => chunk.chunk_session_state),
      corpus_id: 'red16',
      session_state: query.body.session_state,
    });
    expect(context.status).toBe(200);
    for (const answer of [...ANSWERS, `The owner is ${LOCAL}\n\n@${DOMAIN}`]) {
      const restored = await postJson(`${veil.url}/v1/rag/answer`, { answer, session_state: context.body.session_state });
      expect(restored.status).toBe(200);
      expectNoValue(restored.body.restored_answer as string);
    }
  });
});

describe('red team 16: DOCX files', () => {
  async function state(): Promise<string> {
    const response = await postJson(`${veil.url}/v1/transform`, { input: `Write to ${EMAIL}.` });
    expect(response.status).toBe(200);
    return response.body.session_state as string;
  }

  async function restoreDocx(sessionState: string, bytes: Uint8Array): Promise<JSZip> {
    const form = new FormData();
    form.append('session_state', sessionState);
    form.append('file', new Blob([bytes]), 'reply.docx');
    const response = await fetch(`${veil.url}/v1/rehydrate/file`, { method: 'POST', body: form });
    expect(response.status).toBe(200);
    return JSZip.loadAsync(Buffer.from(await response.arrayBuffer()));
  }

  /** The text of every XML part of the archive, entities decoded. */
  async function allText(zip: JSZip): Promise<string> {
    const parts: string[] = [];
    for (const file of Object.values(zip.files)) {
      if (!file.dir) parts.push(await file.async('string'));
    }
    return parts.join('\n');
  }

  it('a value raw or encoded in a paragraph, split across two paragraphs or two table cells', { timeout: 120_000 }, async () => {
    const sessionState = await state();
    const table = `<w:tbl><w:tr><w:tc><w:p><w:r><w:t>${LOCAL}</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>@${DOMAIN}</w:t></w:r></w:p></w:tc></w:tr></w:tbl>`;
    const document = documentXml([...ANSWERS.map((answer) => answer.replaceAll('&', '&amp;')), `Write to ${LOCAL}`, `@${DOMAIN} today.`]).replace('</w:body>', `${table}</w:body>`);
    const zip = await restoreDocx(sessionState, await makeDocx([], { 'word/document.xml': document }));
    const xml = await zip.file('word/document.xml')!.async('string');
    expectNoValue(xml);
    expect(xml).toContain('[REDACTED:email]');
  });

  it('a value in the parts and attributes that are no text run: properties, deleted text, alternative text', { timeout: 120_000 }, async () => {
    const sessionState = await state();
    const core =
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/">' +
      `<dc:creator>${EMAIL}</dc:creator><dc:title>Notes</dc:title></cp:coreProperties>`;
    const body =
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W_NS}" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"><w:body>` +
      `<w:p><w:del w:id="1" w:author="Editor"><w:r><w:delText>Write to ${EMAIL}</w:delText></w:r></w:del></w:p>` +
      `<w:p><w:r><w:drawing><wp:inline><wp:docPr id="1" name="Picture 1" descr="Photo of ${EMAIL}"/></wp:inline></w:drawing></w:r></w:p>` +
      '<w:p><w:r><w:t>An ordinary paragraph.</w:t></w:r></w:p></w:body></w:document>';
    const zip = await restoreDocx(sessionState, await makeDocx([], { 'word/document.xml': body, 'docProps/core.xml': core, 'word/afchunk.txt': `Write to ${EMAIL}.` }));
    expectNoValue(await allText(zip));
    expect(await zip.file('word/document.xml')!.async('string')).toContain('An ordinary paragraph.');
  });
});

describe('red team 16: the known-values check\'s remaining forms', () => {
  it('a whole proxied answer split in the reverse order: the end in the arguments, the start in the content', { timeout: 120_000 }, async () => {
    fake.reply = () => ({ content: `@${DOMAIN} is the domain.`, toolCalls: [{ id: 'call_1', name: 'send_mail', arguments: JSON.stringify({ user: LOCAL }) }] });
    const answer = await client.chat.completions.create({ model: 'fake-model', messages: [{ role: 'user', content: `Mail ${EMAIL} please.` }] });
    const message = answer.choices[0]!.message;
    expectNoValue(message.content ?? '');
    expectNoValue((message.tool_calls![0] as { function: { arguments: string } }).function.arguments);
  });

  it('the value in hex, base32, or base64 glued to a word or cut mid-group', { timeout: 120_000 }, async () => {
    const made = await postJson(`${veil.url}/v1/transform`, { input: `Write to ${EMAIL}.` });
    const state = made.body.session_state as string;
    const hex = Buffer.from(EMAIL).toString('hex');
    const glued = `data${Buffer.from(EMAIL).toString('base64')}`;
    const cut = Buffer.from(`To: ${EMAIL} now`).toString('base64').slice(2);
    for (const form of [hex, hex.toUpperCase(), glued, cut]) {
      const restored = await postJson(`${veil.url}/v1/rehydrate`, { output: `See ${form} here.`, session_state: state });
      expect(restored.status).toBe(200);
      expect(restored.body.restored_text).toBe('See [REDACTED:email] here.');
    }
  });
});

describe('red team 16: logs', () => {
  it('logs no probed value', { timeout: 120_000 }, async () => {
    const logs = await settledLogs(veil);
    for (const value of [EMAIL, LOCAL, DOMAIN, BASE64]) expect(logs).not.toContain(value);
  });
});
