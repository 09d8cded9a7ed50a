// HTTP tests of /v1/transform/file and /v1/rehydrate/file through inject: every format round-
// trips (text, Markdown, CSV, JSON, HTML, PDF via its extracted text, DOCX with tokens split
// across runs), limits and refusals (413 while streaming, 415 by content, multipart shape),
// password-protected PDFs, and the canary scan of the logs (no value, no filename).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../test/support/harness.js';
import { docxParagraphs, makeDocx, makePdf, multipart, renderTextPng, type FilePart } from '../../test/support/documents.js';
import { encryptPdf, hasQpdf } from '../../test/support/qpdf.js';

const EMAIL = 'files.canary.person@example.com';
const PHONE = '+1 415 555 0134';
const IBAN = 'DE89370400440532013000';
const FILENAME_CANARY = 'secret-filename-canary';

let harness: TestApp;
beforeAll(async () => {
  harness = await buildTestApp({ overrides: { file_upload: { max_size_bytes: 2 * 1024 * 1024 } } });
});
afterAll(async () => {
  await harness.close();
});

async function send(url: string, fields: Record<string, string>, files: FilePart[]) {
  const body = await multipart(fields, files);
  const response = await harness.app.inject({ method: 'POST', url, payload: body.payload, headers: body.headers });
  let json: any;
  try {
    json = response.json();
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, body: json, raw: response.rawPayload, headers: response.headers };
}

async function transformFile(data: Uint8Array, filename: string, fields: Record<string, string> = {}) {
  return send('/v1/transform/file', fields, [{ name: 'file', data, filename }]);
}

async function rehydrateFile(data: Uint8Array, filename: string, sessionState: string, fields: Record<string, string> = {}) {
  return send('/v1/rehydrate/file', { session_state: sessionState, ...fields }, [{ name: 'file', data, filename }]);
}

function expectProtected(safeText: string): void {
  for (const value of [EMAIL, IBAN, '555 0134']) expect(safeText).not.toContain(value);
}

describe('text formats round-trip in place', () => {
  // [format, file name, original, expected restore]: values inside a link target or an HTML
  // attribute come back as their label (docs/policies.md "URLs and markup"), the rest verbatim.
  const markdown = (target: string): string => `# Contact\n\n- email: ${EMAIL}\n- phone: ${PHONE}\n\n[bank](${target}) IBAN ${IBAN}\n`;
  const html = (href: string): string => `<!doctype html><html><body><p>Mail <a href="mailto:${href}">${EMAIL}</a>, call ${PHONE}, IBAN ${IBAN}</p></body></html>`;
  const cases: [string, string, string, string][] = [
    ['text', 'note.txt', `Hello, write to ${EMAIL} or call ${PHONE}.\nIBAN ${IBAN}\n`, `Hello, write to ${EMAIL} or call ${PHONE}.\nIBAN ${IBAN}\n`],
    // A site's own address (not a documentation name such as *.example, which identifies no one).
    ['markdown', 'note.md', markdown('https://jane-roe-savings.net'), markdown('[web address]')],
    ['csv', 'people.csv', `name,email,phone,iban\nJane,${EMAIL},${PHONE},${IBAN}\n`, `name,email,phone,iban\nJane,${EMAIL},${PHONE},${IBAN}\n`],
    ['html', 'page.html', html(EMAIL), html('[email address]')],
  ];
  for (const [format, filename, original, expected] of cases) {
    it(format, async () => {
      const bytes = Buffer.from(original, 'utf8');
      const transformed = await transformFile(bytes, `${FILENAME_CANARY}-${filename}`);
      expect(transformed.status).toBe(200);
      expect(transformed.body.original_format).toBe(format);
      expect(transformed.body.original_size).toBe(bytes.length);
      expect(transformed.body.stats.extraction_time_ms).toBeGreaterThanOrEqual(0);
      expect(typeof transformed.body.session_state).toBe('string');
      const types = new Set(transformed.body.entities.map((entity: any) => entity.type));
      for (const type of ['email', 'iban']) expect(types).toContain(type);
      expectProtected(transformed.body.safe_text);

      const restored = await rehydrateFile(Buffer.from(transformed.body.safe_text, 'utf8'), filename, transformed.body.session_state);
      expect(restored.status).toBe(200);
      expect(restored.headers['x-veil-original-format']).toBe(format);
      expect(String(restored.headers['content-type'])).toContain(format === 'text' ? 'text/plain' : format === 'markdown' ? 'text/markdown' : `text/${format}`);
      expect(restored.raw.toString('utf8')).toBe(expected);
      expect(Number(restored.headers['x-veil-tokens-resolved'])).toBeGreaterThanOrEqual(3);
    });
  }

  it('detects an address hidden behind character references in HTML', async () => {
    const html = `<html><body><p>jane&#46;doe&#64;example.com</p></body></html>`;
    const transformed = await transformFile(Buffer.from(html), 'page.html');
    expect(transformed.status).toBe(200);
    expect(transformed.body.entities.map((entity: any) => entity.type)).toContain('email');
    expect(transformed.body.safe_text).not.toContain('example.com');
  });
});

describe('JSON files', () => {
  it('takes the structured path and restores with the same layout', async () => {
    const original = `{\n  "customer": {\n    "email": "${EMAIL}",\n    "iban": "${IBAN}"\n  },\n  "count": 2\n}\n`;
    const transformed = await transformFile(Buffer.from(original), 'data.json');
    expect(transformed.status).toBe(200);
    expect(transformed.body.original_format).toBe('json');
    expectProtected(transformed.body.safe_text);
    expect(transformed.body.entities.every((entity: any) => typeof entity.path === 'string')).toBe(true);
    // The tokenized document is still JSON, written with the original indentation.
    expect(transformed.body.safe_text).toMatch(/^\{\n {2}"customer": \{\n {4}"email": "\{\{email:/);
    const restored = await rehydrateFile(Buffer.from(transformed.body.safe_text), 'data.json', transformed.body.session_state);
    expect(restored.status).toBe(200);
    expect(restored.raw.toString('utf8')).toBe(original);
  });
});

describe('PDF', () => {
  it('extracts embedded text; its tokenized text rehydrates as a text file', async () => {
    const pdf = await makePdf([[`Invoice for ${EMAIL}`, `Call ${PHONE}`], [`Pay to IBAN ${IBAN}`]]);
    const transformed = await transformFile(pdf, 'invoice.pdf');
    expect(transformed.status).toBe(200);
    expect(transformed.body).toMatchObject({ original_format: 'pdf', original_size: pdf.length, pages: 2 });
    expectProtected(transformed.body.safe_text);
    const restored = await rehydrateFile(Buffer.from(transformed.body.safe_text), 'invoice.txt', transformed.body.session_state);
    expect(restored.status).toBe(200);
    expect(restored.raw.toString('utf8')).toBe(`Invoice for ${EMAIL}\nCall ${PHONE}\n\nPay to IBAN ${IBAN}`);
  });

  it('refuses to rebuild a PDF on rehydrate', async () => {
    const pdf = await makePdf([['x']]);
    const transformed = await transformFile(Buffer.from(`mail ${EMAIL}`), 'a.txt');
    const response = await rehydrateFile(pdf, 'a.pdf', transformed.body.session_state);
    expect(response.status).toBe(415);
    expect(response.body.code).toBe('VEIL_UNSUPPORTED_MEDIA_TYPE');
  });

  it.skipIf(!hasQpdf())('rejects a password-protected PDF with a clear parse error', async () => {
    const encrypted = encryptPdf(await makePdf([[`secret ${EMAIL}`]]));
    const response = await transformFile(encrypted, 'locked.pdf');
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VEIL_VALIDATION_FAILED');
    expect(response.body.error).toMatch(/password-protected/);
  });
});

describe('DOCX', () => {
  it('round-trips with tokens split across runs', async () => {
    const paragraphs = [`Dear customer ${EMAIL},`, `please call ${PHONE}.`, `IBAN: ${IBAN}`];
    const docx = await makeDocx(paragraphs);
    const transformed = await transformFile(docx, 'letter.docx');
    expect(transformed.status).toBe(200);
    expect(transformed.body.original_format).toBe('docx');
    expectProtected(transformed.body.safe_text);
    // What a model or editor hands back: a DOCX of the tokenized text, each token cut in
    // three runs with different formatting.
    const tokenized: string[] = transformed.body.safe_text.split('\n\n').map((line: string) => line.trim()).filter((line: string) => line !== '');
    expect(tokenized).toHaveLength(3);
    const runs = tokenized.map((line) => {
      const match = /\{\{[^}]+\}\}/.exec(line)!;
      const token = match[0];
      return [line.slice(0, match.index), token.slice(0, 7), token.slice(7, 18), token.slice(18) + line.slice(match.index + token.length)];
    });
    const restored = await rehydrateFile(await makeDocx(runs), 'reply.docx', transformed.body.session_state);
    expect(restored.status).toBe(200);
    expect(String(restored.headers['content-type'])).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(await docxParagraphs(restored.raw)).toEqual(paragraphs);
    expect(restored.headers['x-veil-tokens-resolved']).toBe('3');
  });

  it('applies the restore mode and channel to every run', async () => {
    const transformed = await transformFile(await makeDocx([`Mail ${EMAIL}`]), 'a.docx');
    const masked = await rehydrateFile(await makeDocx([transformed.body.safe_text.trim()]), 'a.docx', transformed.body.session_state, { restore_mode: 'masked' });
    expect(masked.status).toBe(200);
    expect((await docxParagraphs(masked.raw)).join('')).not.toContain(EMAIL);
    const logSafe = await rehydrateFile(await makeDocx([transformed.body.safe_text.trim()]), 'a.docx', transformed.body.session_state, { output_channel: 'log_safe' });
    expect((await docxParagraphs(logSafe.raw)).join('')).not.toContain(EMAIL);
  });
});

describe('output protection on file rehydrate', () => {
  const STRAY = 'stray.model.value@example.org';

  it('masks a raw value the model wrote, in text and in DOCX runs', async () => {
    const transformed = await transformFile(Buffer.from(`mail ${EMAIL}`), 'a.txt');
    const token = transformed.body.entities[0].token as string;
    const text = await rehydrateFile(Buffer.from(`to ${token}, cc ${STRAY}`), 'reply.txt', transformed.body.session_state);
    expect(text.status).toBe(200);
    expect(text.headers['x-veil-output-guard']).toBe('triggered');
    expect(text.raw.toString('utf8')).toContain(EMAIL);
    expect(text.raw.toString('utf8')).not.toContain(STRAY);

    const docx = await rehydrateFile(await makeDocx([['To ', token.slice(0, 10), token.slice(10)], ['cc ', STRAY]]), 'reply.docx', transformed.body.session_state);
    expect(docx.status).toBe(200);
    expect(docx.headers['x-veil-output-guard']).toBe('triggered');
    const paragraphs = await docxParagraphs(docx.raw);
    expect(paragraphs[0]).toBe(`To ${EMAIL}`);
    expect(paragraphs[1]).not.toContain(STRAY);
    expect(paragraphs[1]!.startsWith('cc ')).toBe(true);
  });

  it('reports a clean file as clear', async () => {
    const transformed = await transformFile(Buffer.from(`mail ${EMAIL}`), 'a.txt');
    const restored = await rehydrateFile(Buffer.from(transformed.body.safe_text), 'a.txt', transformed.body.session_state);
    expect(restored.headers['x-veil-output-guard']).toBe('clear');
  });
});

describe('limits and refusals', () => {
  it('answers 413 for an upload over file_upload.max_size_bytes', async () => {
    const response = await transformFile(Buffer.alloc(3 * 1024 * 1024, 0x61), 'big.txt');
    expect(response.status).toBe(413);
    expect(response.body.code).toBe('VEIL_PAYLOAD_TOO_LARGE');
  });

  it('answers 415 by content: binaries, images, mislabelled files, non-multipart bodies', async () => {
    expect((await transformFile(Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0]), 'a.txt')).status).toBe(415);
    expect((await transformFile(await renderTextPng(['hi']), 'a.png')).body.error).toMatch(/transform\/image/);
    expect((await transformFile(Buffer.from('plain text'), 'a.pdf')).status).toBe(415);
    expect((await transformFile(Buffer.from([0x68, 0xff, 0xfe, 0x69]), 'a.txt')).status).toBe(415);
    const json = await harness.app.inject({ method: 'POST', url: '/v1/transform/file', payload: { file: 'x' } });
    expect(json.statusCode).toBe(415);
    const raw = await harness.app.inject({ method: 'POST', url: '/v1/transform/file', payload: '%PDF-1.7', headers: { 'content-type': 'application/pdf' } });
    expect(raw.statusCode).toBe(415);
    expect(raw.json().code).toBe('VEIL_UNSUPPORTED_MEDIA_TYPE');
  });

  it('validates the multipart shape and fields', async () => {
    expect((await send('/v1/transform/file', { policy: 'default' }, [])).body.error).toBe('file: is required');
    expect((await send('/v1/transform/file', { extra: 'x' }, [{ name: 'file', data: Buffer.from('x') }])).body.error).toBe('extra: unknown field');
    expect((await send('/v1/transform/file', {}, [{ name: 'other', data: Buffer.from('x') }])).body.error).toBe('other: unknown field');
    expect((await send('/v1/transform/file', {}, [{ name: 'file', data: Buffer.from('a') }, { name: 'file', data: Buffer.from('b') }])).status).toBe(400);
    expect((await send('/v1/transform/file', { language: 'not a language' }, [{ name: 'file', data: Buffer.from('x') }])).body.error).toBe('language: has an invalid format');
    expect((await send('/v1/transform/file', { policy: 'no-such-policy' }, [{ name: 'file', data: Buffer.from('x') }])).status).toBe(400);
    expect((await send('/v1/transform/file', {}, [{ name: 'file', data: Buffer.alloc(0) }])).body.error).toBe('file: is empty');
    const long = await send('/v1/transform/file', { policy: 'p'.repeat(2000) }, [{ name: 'file', data: Buffer.from('x') }]);
    expect(long.status).toBe(413);
    expect(long.body.error).toBe('policy: is too large');
    const restored = await send('/v1/rehydrate/file', { session_state: 'v1.bogus.blob' }, [{ name: 'file', data: Buffer.from('x') }]);
    expect(restored.status).toBe(410);
    const mode = await send('/v1/rehydrate/file', { session_state: 'x', restore_mode: 'everything' }, [{ name: 'file', data: Buffer.from('x') }]);
    expect(mode.body.error).toBe('restore_mode: must be one of the allowed values');
    const missing = await send('/v1/rehydrate/file', {}, [{ name: 'file', data: Buffer.from('x') }]);
    expect(missing.body.error).toBe('session_state: is required');
  });

  it('never logs a value or a filename', () => {
    const logs = harness.logs.text();
    for (const canary of [EMAIL, IBAN, '555 0134', FILENAME_CANARY]) expect(logs).not.toContain(canary);
  });
});
