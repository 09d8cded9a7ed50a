// Unit tests of the OCR layout (word spans, split card numbers re-joined, span -> boxes) and of
// the OCR engine's bounds: a recognition past its deadline fails with 413 and the engine keeps
// working with a fresh worker; a full queue answers 503; a missing engine answers 501.
import { afterAll, describe, expect, it } from 'vitest';
import { createOcrEngine, type OcrPage, type OcrWord } from './ocr.js';
import { alignSpans, joinSplitNumbers, layoutText, placeSpan, prepareImage } from './images.js';
import { renderTextPng } from '../../test/support/documents.js';

const word = (text: string, x0: number, y0 = 10, confidence = 90): OcrWord => ({ text, confidence, bbox: { x0, y0, x1: x0 + text.length * 10, y1: y0 + 20 } });

describe('OCR layout', () => {
  it('lays words out as text with code-point spans', () => {
    const page: OcrPage = { paragraphs: [[[word('Mail:', 0), word('jané@example.com', 60)], [word('Bye', 0, 40)]], [[word('P2', 0, 100)]]] };
    const layout = layoutText(page);
    expect(layout.text).toBe('Mail: jané@example.com\nBye\n\nP2');
    expect(layout.words.map((placed) => [placed.start, placed.end, placed.line])).toEqual([
      [0, 5, 0],
      [6, 22, 0],
      [23, 26, 1],
      [28, 30, 2],
    ]);
    expect(layout.meanConfidence).toBe(0.9);
  });

  it('joins digit groups that OCR split or merged into one Luhn-valid number', () => {
    const joined = joinSplitNumbers([word('Card:', 0), word('411111111111', 60), word('1111', 200), word('exp', 260), word('12', 300)]);
    expect(joined.map((item) => item.text)).toEqual(['Card:', '4111111111111111', 'exp', '12']);
    expect(joined[1]!.bbox).toEqual({ x0: 60, y0: 10, x1: 240, y1: 30 });
    // Not a valid card: the groups stay as read.
    expect(joinSplitNumbers([word('1234', 0), word('5678', 50), word('9012', 100), word('3456', 150)]).map((item) => item.text)).toEqual(['1234', '5678', '9012', '3456']);
    // A trailing number outside the card is left alone.
    expect(joinSplitNumbers([word('4111', 0), word('1111', 50), word('1111', 100), word('1111', 150), word('2024', 200)]).map((item) => item.text)).toEqual([
      '4111111111111111',
      '2024',
    ]);
  });

  it('moves spans from the screened text back onto the layout text', () => {
    const layout = 'Mail {{x:y_001:0123456789ab}} jané@example.com and bob@example.com';
    const screened = 'Mail [removed] jané@example.com and bob@example.com';
    const spans = [
      { start: 15, end: 31 },
      { start: 36, end: 51 },
    ];
    expect(alignSpans(layout, screened, spans)).toEqual([
      { start: 30, end: 46 },
      { start: 51, end: 66 },
    ]);
    expect(alignSpans(layout, layout, spans)).toEqual(spans);
    expect(() => alignSpans('abc', 'xyz', [{ start: 0, end: 1 }])).toThrow();
  });

  it('maps a span to the union of the words it touches, one box per line', () => {
    const page: OcrPage = { paragraphs: [[[word('Address:', 0), word('1', 100), word('Main', 120)], [word('Street', 0, 40), word('end', 80, 40, 50)]]] };
    const layout = layoutText(page);
    const start = layout.text.indexOf('1 Main');
    const end = layout.text.indexOf('Street') + 'Street'.length;
    const placement = placeSpan(layout.words, { start, end })!;
    expect(placement.boxes).toEqual([
      { x: 100, y: 10, width: 60, height: 20 },
      { x: 0, y: 40, width: 60, height: 20 },
    ]);
    expect(placement.bbox).toEqual({ x: 0, y: 10, width: 160, height: 50 });
    expect(placement.ocrConfidence).toBe(0.9);
    // Part of a word takes the whole word.
    expect(placeSpan(layout.words, { start: 2, end: 4 })!.bbox).toEqual({ x: 0, y: 10, width: 80, height: 20 });
    expect(placeSpan(layout.words, { start: 500, end: 501 })).toBeUndefined();
  });
});

describe('OCR engine bounds', () => {
  const engines: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    await Promise.all(engines.map((engine) => engine.close()));
  });

  it('fails a recognition past its deadline with 413, replaces the worker and keeps working', async () => {
    const long = await prepareImage(await renderTextPng(Array.from({ length: 400 }, (_, index) => `line ${index} of a long page of text to read slowly`), { fontSize: 20 }), 1e8);
    const small = await prepareImage(await renderTextPng(['hello world']), 1e8);
    const engine = createOcrEngine({ engine: 'tesseract', languages: ['eng'], timeout_secs: 3, workers: 1, max_queue: 4 });
    engines.push(engine);
    // 400 lines take far longer than 3 s to read, one line on a fresh worker far less, even on a
    // loaded machine. The deadline's own error (not a result) proves the recognition was cut; no wall-clock
    // assertion, which a loaded machine would break.
    await expect(engine.recognize(long.ocrInput)).rejects.toMatchObject({ code: 'VEIL_LIMIT_EXCEEDED', message: 'image: OCR took longer than the limit' });
    expect(layoutText(await engine.recognize(small.ocrInput)).text).toBe('hello world');
  });

  it('answers 503 when the queue is full', async () => {
    const tight = createOcrEngine({ engine: 'tesseract', languages: ['eng'], timeout_secs: 60, workers: 1, max_queue: 0 });
    engines.push(tight);
    const image = (await prepareImage(await renderTextPng(['queue test']), 1e8)).ocrInput;
    const results = await Promise.allSettled([tight.recognize(image), tight.recognize(image)]);
    expect(results[0].status).toBe('fulfilled');
    expect(results[1]).toMatchObject({ status: 'rejected', reason: { code: 'VEIL_NOT_READY' } });
  });

  it('is unavailable with engine none or without language data', async () => {
    const none = createOcrEngine({ engine: 'none', languages: ['eng'], timeout_secs: 60, workers: 1, max_queue: 4 });
    await expect(none.recognize(Buffer.alloc(1))).rejects.toMatchObject({ code: 'VEIL_OCR_UNAVAILABLE' });
    const warnings: string[] = [];
    const missing = createOcrEngine({ engine: 'tesseract', languages: ['xyz'], timeout_secs: 60, workers: 1, max_queue: 4 }, (message) => warnings.push(message));
    await expect(missing.recognize(Buffer.alloc(1))).rejects.toMatchObject({ code: 'VEIL_OCR_UNAVAILABLE' });
    expect(warnings).toEqual(['OCR unavailable: no language data installed for: xyz']);
  });
});
