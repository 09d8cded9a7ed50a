// HTTP tests of /v1/transform/image and /v1/redact/image on real rendered text (DejaVu Sans
// drawn by sharp from SVG): OCR finds the email, the phone number and the card number, the
// entities carry pixel boxes and confidences, the redacted PNG is black over every box and
// pixel-identical elsewhere; size limits hold before decoding (a 65535x65535 header, a
// decompression bomb), and without an OCR engine both routes answer 501.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../test/support/harness.js';
import { multipart, pngBomb, renderTextPng, type FilePart } from '../../test/support/documents.js';
import { REDACTION_PADDING } from '../services/images.js';

const EMAIL = 'jane.doe@example.com';
const PHONE = '+1 415 555 0134';
const CARD = '4111 1111 1111 1111';
const LINES = [`Contact: ${EMAIL}`, `Phone: ${PHONE}`, `Card: ${CARD}`, 'Thanks for your order'];

let harness: TestApp;
let png: Buffer;
beforeAll(async () => {
  harness = await buildTestApp({ overrides: { file_upload: { max_pixels: 4_000_000 } } });
  png = await renderTextPng(LINES);
});
afterAll(async () => {
  await harness.close();
});

async function send(app: TestApp, url: string, files: FilePart[], fields: Record<string, string> = {}) {
  const body = await multipart(fields, files);
  const response = await app.app.inject({ method: 'POST', url, payload: body.payload, headers: body.headers });
  let json: any;
  try {
    json = response.json();
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, body: json, raw: response.rawPayload, headers: response.headers };
}

const image = (data: Uint8Array, filename = 'shot.png'): FilePart[] => [{ name: 'image', data, filename }];

async function rgba(data: Buffer): Promise<{ pixels: Buffer; width: number; height: number }> {
  const { data: pixels, info } = await sharp(data).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { pixels, width: info.width, height: info.height };
}

describe('POST /v1/transform/image', () => {
  it('reads the text, tokenizes it and places each entity in the image', async () => {
    const response = await send(harness, '/v1/transform/image', image(png));
    expect(response.status).toBe(200);
    const body = response.body;
    const types = body.entities.map((entity: any) => entity.type);
    expect(types).toEqual(expect.arrayContaining(['email', 'phone', 'credit_card']));
    expect(body.safe_text).toContain('Thanks for your order');
    for (const value of [EMAIL, '555 0134', '4111']) expect(body.safe_text).not.toContain(value);
    expect(body.ocr.engine).toBe('tesseract');
    expect(body.ocr.mean_confidence).toBeGreaterThan(0.6);
    expect(body.ocr.mean_confidence).toBeLessThanOrEqual(1);
    const meta = await sharp(png).metadata();
    expect(body.image).toEqual({ format: 'png', width: meta.width, height: meta.height });
    expect(typeof body.session_state).toBe('string');
    expect(body.stats.ocr_time_ms).toBeGreaterThan(0);
    for (const entity of body.entities) {
      expect(entity.confidence).toBeGreaterThan(0);
      expect(entity.ocr_confidence).toBeGreaterThan(0);
      expect(entity.ocr_confidence).toBeLessThanOrEqual(1);
      const { x, y, width, height } = entity.bbox as { x: number; y: number; width: number; height: number };
      expect(width).toBeGreaterThan(0);
      expect(height).toBeGreaterThan(0);
      expect(x + width).toBeLessThanOrEqual(meta.width);
      expect(y + height).toBeLessThanOrEqual(meta.height);
      expect(entity.boxes.length).toBeGreaterThan(0);
    }
    // Each entity sits on its own rendered line, in order, left of the image's right half.
    const lineHeight = Math.round(28 * 2);
    const byType = new Map(body.entities.map((entity: any) => [entity.type, entity]));
    (['email', 'phone', 'credit_card'] as const).forEach((type, index) => {
      const box = (byType.get(type) as { bbox: { y: number; height: number } }).bbox;
      const baseline = lineHeight * (index + 1);
      expect(box.y).toBeLessThan(baseline);
      expect(box.y + box.height).toBeGreaterThan(baseline - 28);
    });
  });

  it('its session rehydrates the OCR text', async () => {
    const transformed = await send(harness, '/v1/transform/image', image(png));
    const restored = await harness.app.inject({
      method: 'POST',
      url: '/v1/rehydrate',
      payload: { output: transformed.body.safe_text, session_state: transformed.body.session_state },
    });
    expect(restored.statusCode).toBe(200);
    expect(restored.json().restored_text).toContain(EMAIL);
  });

  it('reads JPEG too', async () => {
    const jpeg = await sharp(png).jpeg({ quality: 90 }).toBuffer();
    const response = await send(harness, '/v1/transform/image', image(jpeg, 'shot.jpg'));
    expect(response.status).toBe(200);
    expect(response.body.entities.map((entity: any) => entity.type)).toContain('email');
    expect(response.body.image.format).toBe('jpeg');
  });
});

describe('POST /v1/redact/image', () => {
  it('returns a PNG of the same size, black over every entity and untouched elsewhere', async () => {
    const located = await send(harness, '/v1/transform/image', image(png));
    const boxes: { x: number; y: number; width: number; height: number }[] = located.body.entities.flatMap((entity: any) => entity.boxes);
    expect(boxes.length).toBeGreaterThanOrEqual(3);

    const response = await send(harness, '/v1/redact/image', image(png));
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('image/png');
    expect(Number(response.headers['x-veil-regions-redacted'])).toBe(boxes.length);
    const original = await rgba(png);
    const redacted = await rgba(response.raw);
    expect([redacted.width, redacted.height]).toEqual([original.width, original.height]);

    const covered = new Uint8Array(original.width * original.height);
    for (const box of boxes) {
      for (let y = box.y; y < box.y + box.height; y += 1) {
        for (let x = box.x; x < box.x + box.width; x += 1) {
          const at = (y * original.width + x) * 4;
          expect([redacted.pixels[at], redacted.pixels[at + 1], redacted.pixels[at + 2], redacted.pixels[at + 3]]).toEqual([0, 0, 0, 255]);
        }
      }
      const pad = REDACTION_PADDING;
      for (let y = Math.max(0, box.y - pad); y < Math.min(original.height, box.y + box.height + pad); y += 1) {
        for (let x = Math.max(0, box.x - pad); x < Math.min(original.width, box.x + box.width + pad); x += 1) covered[y * original.width + x] = 1;
      }
    }
    let untouched = 0;
    let changed = 0;
    for (let index = 0; index < covered.length; index += 1) {
      if (covered[index] === 1) continue;
      untouched += 1;
      if (original.pixels.compare(redacted.pixels, index * 4, index * 4 + 4, index * 4, index * 4 + 4) !== 0) changed += 1;
    }
    expect(untouched).toBeGreaterThan(covered.length / 2);
    expect(changed).toBe(0);
    // The label text ("Contact:") left of the email is still there: some dark pixels remain
    // outside the boxes.
    let dark = 0;
    for (let index = 0; index < covered.length; index += 1) if (covered[index] === 0 && redacted.pixels[index * 4]! < 100) dark += 1;
    expect(dark).toBeGreaterThan(100);
  });

  it('leaves an image without entities unchanged', async () => {
    const plain = await renderTextPng(['Nothing sensitive here']);
    const response = await send(harness, '/v1/redact/image', image(plain));
    expect(response.status).toBe(200);
    expect(response.headers['x-veil-regions-redacted']).toBe('0');
    expect((await rgba(response.raw)).pixels.equals((await rgba(plain)).pixels)).toBe(true);
  });
});

describe('image limits', () => {
  const sent = (data: Uint8Array, filename = 'x.png') => send(harness, '/v1/transform/image', image(data, filename));

  it('refuses a 65535x65535 header before decoding', async () => {
    const response = await sent(await pngBomb(65535, 65535, false));
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ code: 'VEIL_LIMIT_EXCEEDED', error: 'image: has more pixels than the limit' });
  });

  it('refuses a decompression bomb before decoding', async () => {
    const bomb = await pngBomb(20000, 20000);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const before = process.memoryUsage.rss();
    const response = await sent(bomb);
    expect(response.status).toBe(413);
    expect((process.memoryUsage.rss() - before) / 1024 / 1024).toBeLessThan(200);
  });

  it('refuses a truncated image, SVG and non-images', async () => {
    expect((await sent(png.subarray(0, Math.floor(png.length / 2)))).status).toBe(400);
    const svg = await sent(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'), 'x.svg');
    expect(svg.status).toBe(415);
    expect((await sent(Buffer.from('%PDF-1.7'), 'x.pdf')).status).toBe(415);
  });

  it('validates the multipart shape', async () => {
    const wrongField = await send(harness, '/v1/transform/image', [{ name: 'file', data: png, filename: 'x.png' }]);
    expect(wrongField.body.error).toBe('file: unknown field');
    const missing = await send(harness, '/v1/redact/image', [], { policy: 'default' });
    expect(missing.body.error).toBe('image: is required');
  });
});

describe('without an OCR engine', () => {
  it('answers 501 VEIL_OCR_UNAVAILABLE with ocr.engine none', async () => {
    const none = await buildTestApp({ overrides: { ocr: { engine: 'none' } } });
    try {
      for (const url of ['/v1/transform/image', '/v1/redact/image']) {
        const response = await send(none, url, image(png));
        expect(response.status).toBe(501);
        expect(response.body.code).toBe('VEIL_OCR_UNAVAILABLE');
      }
    } finally {
      await none.close();
    }
  });

  it('answers 501 when the language data is not installed (nothing is fetched)', async () => {
    const missing = await buildTestApp({ overrides: { ocr: { languages: ['deu'] } } });
    try {
      const response = await send(missing, '/v1/transform/image', image(png));
      expect(response.status).toBe(501);
      expect(response.body.code).toBe('VEIL_OCR_UNAVAILABLE');
      expect(missing.logs.text()).toContain('no language data installed for: deu');
    } finally {
      await missing.close();
    }
  });
});

describe('capabilities', () => {
  it('advertise the file formats and whether OCR is available', async () => {
    const capabilities = (await harness.app.inject({ method: 'GET', url: '/v1/capabilities' })).json();
    expect(capabilities.file_formats).toEqual(['text', 'markdown', 'csv', 'json', 'html', 'pdf', 'docx']);
    expect(capabilities.ocr).toEqual({ engine: 'tesseract', languages: ['eng'], available: true });
    const none = await buildTestApp({ overrides: { ocr: { engine: 'none' } } });
    try {
      expect((await none.app.inject({ method: 'GET', url: '/v1/capabilities' })).json().ocr.available).toBe(false);
    } finally {
      await none.close();
    }
  });
});

describe('logs', () => {
  it('never carry a value read from an image', () => {
    const logs = harness.logs.text();
    for (const value of [EMAIL, '555 0134', '4111 1111']) expect(logs).not.toContain(value);
  });
});
