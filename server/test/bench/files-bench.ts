// File and OCR benchmark: PDF text extraction in pages per second (PDF.js through unpdf, on the
// calling thread, then the whole /v1/transform/file route with its worker pool), DOCX text
// extraction, and OCR seconds per typical screenshot (a 1280x800 PNG of 24 lines of 16 px
// text; engine start-up measured separately, then recognition and the whole image routes).
// In-process (inject), no network. Figures go to stdout as a Markdown table for BENCHMARKS.md.
// Run: make bench-files (npx tsx server/test/bench/files-bench.ts: it builds its documents with the
// test fixtures, pdf-lib a dev dependency, so it runs from the checkout and is not shipped).
import { openDocx, extractDocxText } from '../../src/files/docx.js';
import { extractPdfText } from '../../src/files/pdf.js';
import { createOcrEngine } from '../../src/services/ocr.js';
import { prepareImage } from '../../src/services/images.js';
import { buildTestApp } from '../support/harness.js';
import { makeDocx, makePdf, multipart, renderTextPng } from '../support/documents.js';

const rows: [string, string][] = [];
function record(name: string, value: string): void {
  rows.push([name, value]);
  process.stdout.write(`${name}: ${value}\n`);
}

const WORDS = 'the customer asked about the invoice and our team replied with the billing details and a summary of the account history'.split(' ');
const ENTITIES = ['jane.doe@example.com', '+1 415 555 0134', 'DE89370400440532013000', '4111 1111 1111 1111'];

/** A line of ~80 characters of prose, every third line carrying an entity. */
function line(index: number): string {
  const words: string[] = [];
  let length = 0;
  let state = index * 7919 + 1;
  while (length < 70) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const word = WORDS[state % WORDS.length]!;
    words.push(word);
    length += word.length + 1;
  }
  if (index % 3 === 0) words.push(ENTITIES[index % ENTITIES.length]!);
  return words.join(' ');
}

async function timeAsync(runs: number, fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const started = performance.now();
  for (let index = 0; index < runs; index += 1) await fn();
  return (performance.now() - started) / runs;
}

async function pdfBench(): Promise<void> {
  const pages = Array.from({ length: 50 }, (_, page) => Array.from({ length: 40 }, (_, row) => line(page * 40 + row)));
  const pdf = await makePdf(pages);
  // PDF.js takes ownership of (detaches) the bytes it is given: each run gets a copy.
  const direct = await timeAsync(5, () => extractPdfText(pdf.slice(), 10_000_000));
  record('PDF text extraction, 50 pages x 40 lines (PDF.js, one thread)', `${(50 / (direct / 1000)).toFixed(0)} pages/s (${direct.toFixed(0)} ms per document, ${(pdf.length / 1024).toFixed(0)} KB)`);

  const harness = await buildTestApp();
  try {
    const body = await multipart({}, [{ name: 'file', data: pdf, filename: 'report.pdf' }]);
    const served = await timeAsync(5, async () => {
      const response = await harness.app.inject({ method: 'POST', url: '/v1/transform/file', payload: body.payload, headers: body.headers });
      if (response.statusCode !== 200) throw new Error(`transform/file answered ${response.statusCode}`);
    });
    record('POST /v1/transform/file, same 50-page PDF (worker pool + detection + tokenization)', `${(50 / (served / 1000)).toFixed(0)} pages/s (${served.toFixed(0)} ms per request)`);

    const paragraphs = Array.from({ length: 500 }, (_, index) => line(index));
    const docx = await makeDocx(paragraphs);
    const limits = { maxEntries: 5000, maxUncompressedBytes: 100 * 1024 * 1024 };
    const docxDirect = await timeAsync(5, async () => extractDocxText(openDocx(docx, limits, false)));
    record('DOCX text extraction, 500 paragraphs (bounded unzip + mammoth)', `${docxDirect.toFixed(0)} ms per document (${(docx.length / 1024).toFixed(0)} KB)`);
  } finally {
    await harness.close();
  }
}

async function ocrBench(): Promise<void> {
  const lines = Array.from({ length: 24 }, (_, index) => line(index).slice(0, 110));
  const screenshot = await renderTextPng(lines, { width: 1280, fontSize: 16, lineHeight: 32 });
  const prepared = await prepareImage(screenshot, 25_000_000);
  const engine = createOcrEngine({ engine: 'tesseract', languages: ['eng'], timeout_secs: 120, workers: 1, max_queue: 4 });
  try {
    const startStarted = performance.now();
    await engine.recognize(await renderTextPng(['warm up']));
    record('OCR engine start (first recognition of a one-line image, tesseract.js worker + eng LSTM model)', `${((performance.now() - startStarted) / 1000).toFixed(2)} s`);
    const recognition = await timeAsync(3, () => engine.recognize(prepared.ocrInput));
    record(`OCR of a typical screenshot (${prepared.width}x${prepared.height}, 24 lines of 16 px text)`, `${(recognition / 1000).toFixed(2)} s per image`);
  } finally {
    await engine.close();
  }

  const harness = await buildTestApp();
  try {
    const body = await multipart({}, [{ name: 'image', data: screenshot, filename: 'shot.png' }]);
    for (const url of ['/v1/transform/image', '/v1/redact/image']) {
      const served = await timeAsync(3, async () => {
        const response = await harness.app.inject({ method: 'POST', url, payload: body.payload, headers: body.headers });
        if (response.statusCode !== 200) throw new Error(`${url} answered ${response.statusCode}`);
      });
      record(`POST ${url}, same screenshot (decode + OCR + detection${url.includes('redact') ? ' + PNG render' : ''})`, `${(served / 1000).toFixed(2)} s per request`);
    }
  } finally {
    await harness.close();
  }
}

async function main(): Promise<void> {
  process.stdout.write(`# Veil file and OCR benchmarks (node ${process.version})\n\n`);
  await pdfBench();
  await ocrBench();
  process.stdout.write('\n| benchmark | result |\n|---|---|\n');
  for (const [name, value] of rows) process.stdout.write(`| ${name} | ${value} |\n`);
}

await main();
