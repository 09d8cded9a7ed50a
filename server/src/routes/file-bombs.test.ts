// The bomb corpus of threats.md 21 through /v1/transform/file and /v1/rehydrate/file: zip
// bombs (entry count, declared size, an entry lying about its size, an honest high-ratio
// entry, overlapping entries, a nested archive), billion laughs and external entities in
// DOCX XML, zip-slip names, truncated archives and PDFs, a circular page tree and a PDF whose
// content stream inflates to 1 GB. Each is refused (or, for the nested archive, handled
// without ever inflating the inner archive) within a bounded process RSS growth, measured here;
// a small transform sent while the worst one is parsed still answers. Time is not asserted
// (tests never time); a bound that stopped holding shows as the test's own timeout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deflateRawSync } from 'node:zlib';
import { buildTestApp, post, type TestApp } from '../../test/support/harness.js';
import {
  BILLION_LAUGHS_XML,
  circularPdf,
  deflateRepeated,
  docxEntries,
  EXTERNAL_ENTITY_XML,
  flateBombPdf,
  makeDocx,
  makePdf,
  MB,
  multipart,
  overlappingZip,
  rawZip,
  type Deflated,
} from '../../test/support/documents.js';

/** Generous bounds (the machine is shared): what matters is "seconds, not minutes; MB, not GB". */
const MAX_RSS_GROWTH_MB = 200;

let harness: TestApp;
beforeAll(async () => {
  // The parse deadline is long so that on a loaded machine the memory bound, which these bombs
  // exercise, is what stops them.
  harness = await buildTestApp({ overrides: { file_upload: { parse_memory_mb: 128, parse_timeout_secs: 25 } } });
  // Warm the parsing thread so its own start-up is not counted against the first bomb.
  const warm = await upload(await makePdf([['warm up']]), 'warm.pdf');
  expect(warm.status).toBe(200);
});
afterAll(async () => {
  await harness.close();
});

async function upload(data: Uint8Array, filename: string) {
  const body = await multipart({}, [{ name: 'file', data, filename }]);
  const response = await harness.app.inject({ method: 'POST', url: '/v1/transform/file', payload: body.payload, headers: body.headers });
  return { status: response.statusCode, body: response.json() };
}

async function measured(data: Uint8Array, filename: string) {
  const before = process.memoryUsage.rss();
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 10);
  try {
    const response = await upload(data, filename);
    return { ...response, growthMb: (peak - before) / 1024 / 1024 };
  } finally {
    clearInterval(timer);
  }
}

/** 1 GB of zeros as one raw deflate stream (~1 MB), built once, shared by the zip bombs. */
let zeros: Promise<Deflated> | undefined;
const gigabyteOfZeros = (): Promise<Deflated> => (zeros ??= deflateRepeated(0, 1024 * MB, true));

function expectBounded(result: { growthMb: number }): void {
  expect(result.growthMb).toBeLessThan(MAX_RSS_GROWTH_MB);
}

describe('bomb corpus', () => {
  const cases: { name: string; build: () => Promise<Uint8Array> | Uint8Array; filename: string; status: number; code: string }[] = [
    {
      name: 'zip bomb: more entries than allowed',
      build: () => rawZip([...docxEntries(), ...Array.from({ length: 6000 }, (_, index) => ({ name: `word/media/${index}.bin`, data: Buffer.from('x'), store: true }))]),
      filename: 'many.docx',
      status: 413,
      code: 'VEIL_LIMIT_EXCEEDED',
    },
    {
      name: 'zip bomb: declared size far past the cap',
      build: () => rawZip([...docxEntries(), { name: 'word/media/huge.bin', data: Buffer.from('x'), declaredSize: 0xfffffffe }]),
      filename: 'declared.docx',
      status: 413,
      code: 'VEIL_LIMIT_EXCEEDED',
    },
    {
      name: 'zip bomb: an XML part lying about its size (inflates to 1 GB)',
      build: async () => rawZip([docxEntries()[0]!, docxEntries()[1]!, { name: 'word/document.xml', data: Buffer.alloc(0), deflated: await gigabyteOfZeros(), declaredSize: 4096 }]),
      filename: 'liar.docx',
      status: 413,
      code: 'VEIL_LIMIT_EXCEEDED',
    },
    {
      name: 'zip bomb: an honest 1 GB entry at ~1000:1',
      build: async () => rawZip([...docxEntries(), { name: 'word/media/zeros.bin', data: Buffer.alloc(0), deflated: await gigabyteOfZeros() }]),
      filename: 'ratio.docx',
      status: 413,
      code: 'VEIL_LIMIT_EXCEEDED',
    },
    {
      name: 'zip bomb: overlapping entries sharing one stream',
      build: () => overlappingZip(4000),
      filename: 'overlap.docx',
      status: 400,
      code: 'VEIL_VALIDATION_FAILED',
    },
    { name: 'billion laughs in document.xml', build: () => rawZip(docxEntries(BILLION_LAUGHS_XML)), filename: 'lol.docx', status: 400, code: 'VEIL_VALIDATION_FAILED' },
    { name: 'external entity in document.xml', build: () => rawZip(docxEntries(EXTERNAL_ENTITY_XML)), filename: 'xxe.docx', status: 400, code: 'VEIL_VALIDATION_FAILED' },
    {
      name: 'DOCTYPE hidden in another XML part',
      build: () => rawZip([...docxEntries(), { name: 'word/styles.xml', data: Buffer.from(BILLION_LAUGHS_XML) }]),
      filename: 'styles.docx',
      status: 400,
      code: 'VEIL_VALIDATION_FAILED',
    },
    { name: 'zip-slip entry name', build: () => rawZip([...docxEntries(), { name: '../../../tmp/evil.sh', data: Buffer.from('x') }]), filename: 'slip.docx', status: 400, code: 'VEIL_VALIDATION_FAILED' },
    {
      name: 'truncated DOCX',
      build: async () => (await makeDocx(['Hello there, a fairly long paragraph of text.'])).subarray(0, 200),
      filename: 'cut.docx',
      status: 400,
      code: 'VEIL_VALIDATION_FAILED',
    },
    {
      name: 'truncated PDF',
      build: async () => {
        const pdf = await makePdf([['page one'], ['page two']]);
        return pdf.subarray(0, Math.floor(pdf.length * 0.6));
      },
      filename: 'cut.pdf',
      status: 400,
      code: 'VEIL_VALIDATION_FAILED',
    },
    { name: 'circular page tree', build: () => circularPdf(), filename: 'loop.pdf', status: 400, code: 'VEIL_VALIDATION_FAILED' },
  ];

  for (const entry of cases) {
    it(entry.name, async () => {
      const result = await measured(await entry.build(), entry.filename);
      expect(result.status).toBe(entry.status);
      expect(result.body.code).toBe(entry.code);
      expect(result.body.error).toMatch(/^file: /);
      expectBounded(result);
    });
  }

  it('a nested archive is carried as bytes, never inflated', async () => {
    const inner = rawZip([{ name: 'zeros.bin', data: Buffer.alloc(0), deflated: await gigabyteOfZeros() }]);
    const nested = rawZip([...docxEntries(), { name: 'word/embeddings/inner.zip', data: inner, store: true }]);
    const result = await measured(nested, 'nested.docx');
    expect(result.status).toBe(200);
    expect(result.body.original_format).toBe('docx');
    expectBounded(result);
  });

  it('a PDF whose content stream inflates to 1 GB is stopped by the memory bound, and small requests keep flowing', async () => {
    const bomb = await flateBombPdf(1024);
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    const pending = measured(bomb, 'bomb.pdf');
    // While the bomb is parsed on its worker, an ordinary transform still answers.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const transformed = await post(harness.app, '/v1/transform', { input: 'mail jane.doe@example.com' });
    expect(transformed.status).toBe(200);
    const result = await pending;
    expect(result.status).toBe(413);
    expect(result.body).toMatchObject({ code: 'VEIL_LIMIT_EXCEEDED', error: 'file: parsing needed more memory than the limit' });
    expectBounded(result);
  }, 60_000);

  it('the pool serves good files after every bomb', async () => {
    const response = await upload(await makePdf([['after the storm jane.doe@example.com']]), 'ok.pdf');
    expect(response.status).toBe(200);
    expect(response.body.entities.map((entity: any) => entity.type)).toEqual(['email']);
  });

  it('a deflate stream cut short is a damaged archive, not a crash', async () => {
    const entries = docxEntries();
    const broken = rawZip(entries);
    // Corrupt the document's compressed bytes in place (sizes stay consistent).
    const document = deflateRawSync(Buffer.from(entries[2]!.data));
    const at = broken.indexOf(document);
    broken.fill(0xff, at, at + Math.min(16, document.length));
    const result = await measured(broken, 'broken.docx');
    expect(result.status).toBe(400);
    expectBounded(result);
  });
});
