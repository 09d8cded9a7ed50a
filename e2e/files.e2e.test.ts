// End to end against the real `veil serve` process: every file format round-trips through
// /v1/transform/file and /v1/rehydrate/file over HTTP (multipart), the image routes work on
// real rendered text, a PDF bomb is refused while the process keeps serving, and the process's
// own log output never contains a value it was sent.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docxParagraphs, flateBombPdf, makeDocx, makePdf, renderTextPng } from '../server/test/support/documents.js';
import { postJson, startVeil, settledLogs, type ServerProcess } from './support/server.js';

const SECRET = '6a'.repeat(32);
const EMAIL = 'e2e.files.canary@example.com';
const PHONE = '+1 415 555 0199';
const IBAN = 'GB82WEST12345698765432';

let server: ServerProcess;
beforeAll(async () => {
  server = await startVeil({ env: { VEIL_SESSION_SECRET: SECRET, VEIL_FILE_UPLOAD__PARSE_MEMORY_MB: '128' } });
});
afterAll(async () => {
  await server.stop();
});

async function upload(path: string, fields: Record<string, string>, field: string, data: Uint8Array, filename: string) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append(field, new Blob([data]), filename);
  const response = await fetch(`${server.url}${path}`, { method: 'POST', body: form });
  const raw = Buffer.from(await response.arrayBuffer());
  let body: any;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, raw, body };
}

function expectProtected(text: string): void {
  for (const value of [EMAIL, IBAN, '555 0199']) expect(text).not.toContain(value);
}

describe('files over HTTP (real process)', () => {
  const textCases: [string, string, string][] = [
    ['text', 'a.txt', `Reach ${EMAIL} or ${PHONE}; IBAN ${IBAN}.\n`],
    ['markdown', 'a.md', `## Customer\n\n* ${EMAIL}\n* ${PHONE}\n* IBAN ${IBAN}\n`],
    ['csv', 'a.csv', `email,phone,iban\n${EMAIL},${PHONE},${IBAN}\n`],
    ['html', 'a.html', `<html><body><p>${EMAIL}</p><p>${PHONE}</p><p>IBAN ${IBAN}</p></body></html>\n`],
    ['json', 'a.json', `{\n  "email": "${EMAIL}",\n  "phone": "${PHONE}",\n  "iban": "${IBAN}"\n}\n`],
  ];
  for (const [format, filename, original] of textCases) {
    it(`${format} round-trips`, async () => {
      const transformed = await upload('/v1/transform/file', {}, 'file', Buffer.from(original), filename);
      expect(transformed.status).toBe(200);
      expect(transformed.body.original_format).toBe(format);
      expectProtected(transformed.body.safe_text);
      const restored = await upload('/v1/rehydrate/file', { session_state: transformed.body.session_state }, 'file', Buffer.from(transformed.body.safe_text), filename);
      expect(restored.status).toBe(200);
      expect(restored.raw.toString('utf8')).toBe(original);
    });
  }

  it('pdf round-trips through its extracted text', async () => {
    const pdf = await makePdf([[`Customer ${EMAIL}`, `Phone ${PHONE}`], [`IBAN ${IBAN}`]]);
    const transformed = await upload('/v1/transform/file', {}, 'file', pdf, 'statement.pdf');
    expect(transformed.status).toBe(200);
    expect(transformed.body).toMatchObject({ original_format: 'pdf', pages: 2, original_size: pdf.length });
    expectProtected(transformed.body.safe_text);
    const restored = await upload('/v1/rehydrate/file', { session_state: transformed.body.session_state }, 'file', Buffer.from(transformed.body.safe_text), 'statement.txt');
    expect(restored.raw.toString('utf8')).toBe(`Customer ${EMAIL}\nPhone ${PHONE}\n\nIBAN ${IBAN}`);
  });

  it('docx round-trips, runs restored', async () => {
    const paragraphs = [`To: ${EMAIL}`, `Phone: ${PHONE}`, `IBAN ${IBAN}`];
    const transformed = await upload('/v1/transform/file', {}, 'file', await makeDocx(paragraphs), 'letter.docx');
    expect(transformed.status).toBe(200);
    expectProtected(transformed.body.safe_text);
    const lines: string[] = transformed.body.safe_text.split('\n\n').map((line: string) => line.trim()).filter((line: string) => line !== '');
    // Split every token across two runs, as an editor changing formatting mid-token would.
    const runs = lines.map((line) => {
      const at = line.indexOf('{{') + 5;
      return [line.slice(0, at), line.slice(at)];
    });
    const restored = await upload('/v1/rehydrate/file', { session_state: transformed.body.session_state }, 'file', await makeDocx(runs), 'reply.docx');
    expect(restored.status).toBe(200);
    expect(restored.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(await docxParagraphs(restored.raw)).toEqual(paragraphs);
  });

  it('refuses a PDF flate bomb and keeps serving', async () => {
    const bomb = await flateBombPdf(1024);
    const response = await upload('/v1/transform/file', {}, 'file', bomb, 'bomb.pdf');
    expect(response.status).toBe(413);
    expect(response.body.code).toBe('VEIL_LIMIT_EXCEEDED');
    const after = await postJson(`${server.url}/v1/transform`, { input: `mail ${EMAIL}` });
    expect(after.status).toBe(200);
  });

  it('answers 413 for an upload over the size limit while streaming', async () => {
    const big = Buffer.alloc(60 * 1024 * 1024, 0x61);
    const response = await upload('/v1/transform/file', {}, 'file', big, 'big.txt');
    expect(response.status).toBe(413);
    expect(response.body.code).toBe('VEIL_PAYLOAD_TOO_LARGE');
  });
});

describe('images over HTTP (real process)', () => {
  it('transform/image finds the values and redact/image blacks them out', async () => {
    const png = await renderTextPng([`Email: ${EMAIL}`, `Phone: ${PHONE}`, 'Card: 4111 1111 1111 1111']);
    const transformed = await upload('/v1/transform/image', {}, 'image', png, 'shot.png');
    expect(transformed.status).toBe(200);
    expect(transformed.body.entities.map((entity: any) => entity.type)).toEqual(expect.arrayContaining(['email', 'phone', 'credit_card']));
    expectProtected(transformed.body.safe_text);
    expect(transformed.body.ocr).toMatchObject({ engine: 'tesseract' });

    const redacted = await upload('/v1/redact/image', {}, 'image', png, 'shot.png');
    expect(redacted.status).toBe(200);
    expect(redacted.headers.get('content-type')).toBe('image/png');
    const meta = await sharp(redacted.raw).metadata();
    const original = await sharp(png).metadata();
    expect([meta.width, meta.height]).toEqual([original.width, original.height]);
    const { data, info } = await sharp(redacted.raw).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    for (const entity of transformed.body.entities as { bbox: { x: number; y: number; width: number; height: number } }[]) {
      const centerX = Math.floor(entity.bbox.x + entity.bbox.width / 2);
      const centerY = Math.floor(entity.bbox.y + entity.bbox.height / 2);
      const at = (centerY * info.width + centerX) * 3;
      expect([data[at], data[at + 1], data[at + 2]]).toEqual([0, 0, 0]);
    }
  });

  it('the process logged no value and no filename', async () => {
    const logs = await settledLogs(server);
    for (const value of [EMAIL, IBAN, '555 0199', 'statement.pdf', 'letter.docx']) expect(logs).not.toContain(value);
  });
});
