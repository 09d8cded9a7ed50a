// Unit tests of the file layer without HTTP: format detection from content (not from the
// client's labels), the bounded ZIP reader against crafted archives, DOCX text extraction, and
// the run-level DOCX restore that merges a token split across runs.
import { describe, expect, it } from 'vitest';
import { VeilError } from '@veil/common';
import { checkContainer, decodeSafeReferences, decodeUtf8, jsonIndent, sniffContainer, textFormat } from './formats.js';
import { extractDocxText, openDocx, restoreDocx, restoreWordXml, type Restorer } from './docx.js';
import { extractFile, rehydrateFile } from './process.js';
import { InflateBudget, inflateEntry, isSafeEntryName, readZipDirectory, ZipError } from './zip.js';
import {
  BILLION_LAUGHS_XML,
  docxEntries,
  docxParagraphs,
  documentXml,
  EXTERNAL_ENTITY_XML,
  makeDocx,
  makePdf,
  overlappingZip,
  rawZip,
  renderTextPng,
} from '../../test/support/documents.js';

const LIMITS = { maxEntries: 100, maxUncompressedBytes: 8 * 1024 * 1024 };
const FILE_LIMITS = { maxTextChars: 1_000_000, maxUncompressedBytes: 8 * 1024 * 1024, maxArchiveEntries: 100, json: { maxDepth: 128, maxKeys: 1000, maxValues: 5000 } };
const utf8 = (text: string): Uint8Array => Buffer.from(text, 'utf8');

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof VeilError) return error.code;
    if (error instanceof ZipError) return `zip:${error.problem}`;
    throw error;
  }
  return undefined;
}

describe('format detection', () => {
  it('picks the container from magic bytes, whatever the client says', async () => {
    expect(sniffContainer(await makePdf([['x']]))).toBe('pdf');
    expect(sniffContainer(await makeDocx(['x']))).toBe('zip');
    expect(sniffContainer(await renderTextPng(['x']))).toBe('image');
    expect(sniffContainer(utf8('plain text'))).toBe('text');
    expect(sniffContainer(Buffer.from([0x1f, 0x8b, 8, 0]))).toBe('binary');
    expect(sniffContainer(Buffer.from('h\0e\0l\0l\0o\0', 'latin1'))).toBe('binary');
  });

  it('refuses a declared type that contradicts the content', () => {
    expect(codeOf(() => checkContainer('image', { filename: 'scan.pdf' }))).toBe('VEIL_UNSUPPORTED_MEDIA_TYPE');
    expect(codeOf(() => checkContainer('text', { filename: 'report.pdf' }))).toBe('VEIL_UNSUPPORTED_MEDIA_TYPE');
    expect(codeOf(() => checkContainer('zip', { mimetype: 'application/pdf' }))).toBe('VEIL_UNSUPPORTED_MEDIA_TYPE');
    expect(codeOf(() => checkContainer('binary', {}))).toBe('VEIL_UNSUPPORTED_MEDIA_TYPE');
    expect(checkContainer('pdf', { filename: 'a.pdf', mimetype: 'application/octet-stream' })).toBe('pdf');
    expect(checkContainer('text', { filename: 'notes.md' })).toBe('text');
  });

  it('sniffs text subtypes from content and keeps consistent hints', () => {
    expect(textFormat('{"a": 1}', {})).toBe('json');
    expect(textFormat('<!doctype html><html><body>x</body></html>', {})).toBe('html');
    expect(textFormat('name,email\nJane,j@example.com\nJoe,k@example.com\n', {})).toBe('csv');
    expect(textFormat('# Title\n\nSome *text*.', {})).toBe('markdown');
    expect(textFormat('just a note', {})).toBe('text');
    expect(textFormat('just a note', { filename: 'a.md' })).toBe('markdown');
    // JSON content always takes the structured path, whatever the label says.
    expect(textFormat('{"a": 1}', { filename: 'a.txt' })).toBe('json');
    expect(codeOf(() => textFormat('not json', { mimetype: 'application/json' }))).toBe('VEIL_VALIDATION_FAILED');
  });

  it('accepts UTF-8 only, remembering a BOM', () => {
    expect(decodeUtf8(Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0x69]))).toEqual({ text: 'hi', bom: true });
    expect(codeOf(() => decodeUtf8(Buffer.from([0x68, 0xff, 0x69])))).toBe('VEIL_UNSUPPORTED_MEDIA_TYPE');
  });

  it('decodes only harmless character references in HTML', () => {
    expect(decodeSafeReferences('jane&#64;example&#x2E;com &commat; &lt;b&gt; &#60; &amp;')).toBe('jane@example.com @ &lt;b&gt; &#60; &amp;');
  });

  it('reads the indentation of a JSON document', () => {
    expect(jsonIndent('{\n  "a": 1\n}')).toBe(2);
    expect(jsonIndent('[\n\t1\n]')).toBe('\t');
    expect(jsonIndent('{"a":1}')).toBe('');
  });
});

describe('bounded zip reader', () => {
  it('reads a well-formed archive and inflates within the budget', async () => {
    const bytes = await makeDocx(['hello']);
    const entries = readZipDirectory(bytes, LIMITS);
    expect(entries.map((entry) => entry.name)).toContain('word/document.xml');
    const budget = new InflateBudget(LIMITS.maxUncompressedBytes);
    const document = entries.find((entry) => entry.name === 'word/document.xml')!;
    expect(inflateEntry(bytes, document, budget).toString('utf8')).toContain('hello');
  });

  it('rejects unsafe names (zip-slip)', () => {
    for (const name of ['../evil.txt', 'word/../../evil', '/etc/passwd', 'C:/x', 'a\\b', 'a/./b']) expect(isSafeEntryName(name)).toBe(false);
    expect(isSafeEntryName('word/document.xml')).toBe(true);
    const bytes = rawZip([...docxEntries(), { name: '../../evil.sh', data: utf8('x') }]);
    expect(codeOf(() => readZipDirectory(bytes, LIMITS))).toBe('zip:unsafe');
  });

  it('counts entries and declared sizes before inflating anything', () => {
    const many = rawZip(Array.from({ length: 150 }, (_, index) => ({ name: `f${index}.xml`, data: utf8('<a/>') })));
    expect(codeOf(() => readZipDirectory(many, LIMITS))).toBe('zip:limit');
    const huge = rawZip([...docxEntries(), { name: 'word/media/big.bin', data: utf8('x'), declaredSize: 0xfffffffe }]);
    expect(codeOf(() => readZipDirectory(huge, LIMITS))).toBe('zip:limit');
  });

  it('stops inflating an entry that lies about its size', () => {
    const liar = rawZip([{ name: 'word/document.xml', data: Buffer.alloc(32 * 1024 * 1024, 0x61), declaredSize: 1000 }]);
    const entries = readZipDirectory(liar, LIMITS);
    expect(codeOf(() => inflateEntry(liar, entries[0]!, new InflateBudget(LIMITS.maxUncompressedBytes)))).toBe('zip:limit');
  });

  it('rejects overlapping entries and truncated archives', async () => {
    expect(codeOf(() => readZipDirectory(overlappingZip(50), LIMITS))).toMatch(/^zip:(unsafe|damaged)$/);
    const bytes = await makeDocx(['hello']);
    expect(codeOf(() => readZipDirectory(bytes.subarray(0, Math.floor(bytes.length / 2)), LIMITS))).toBe('zip:damaged');
  });

  it('detects a corrupted entry by its checksum', () => {
    const bytes = Buffer.from(rawZip([{ name: 'a.txt', data: utf8('hello world'), store: true }]));
    const entries = readZipDirectory(bytes, LIMITS);
    bytes[entries[0]!.dataStart] = 0x48; // 'h' -> 'H'
    expect(codeOf(() => inflateEntry(bytes, entries[0]!, new InflateBudget(1000)))).toBe('zip:damaged');
  });
});

describe('DOCX', () => {
  it('extracts text with mammoth from the checked parts', async () => {
    const bytes = await makeDocx(['Email jane.doe@example.com', ['Call ', '+1 415 555 0134', ' now']], { 'word/media/image1.png': await renderTextPng(['x']) });
    const text = await extractDocxText(openDocx(bytes, LIMITS, false));
    expect(text).toContain('Email jane.doe@example.com');
    expect(text).toContain('Call +1 415 555 0134 now');
  });

  it('refuses DOCTYPE and entity declarations outright', () => {
    for (const xml of [BILLION_LAUGHS_XML, EXTERNAL_ENTITY_XML]) {
      const bytes = rawZip(docxEntries(xml));
      expect(() => openDocx(bytes, LIMITS, false)).toThrow(/DOCTYPE/);
    }
  });

  it('restores a token split across runs into the run where it starts', () => {
    const token = '{{email:em_001:0123456789ab}}';
    const xml = documentXml([['Write to ', token.slice(0, 9), token.slice(9, 20), `${token.slice(20)} today`], 'untouched']);
    const restore: Restorer = (text) =>
      text === token ? { restoredText: 'jane@example.com', tokensResolved: 1, tokensUnresolved: [] } : { restoredText: text, tokensResolved: 0, tokensUnresolved: [{ token: text, reason: 'unknown' }] };
    const result = restoreWordXml(xml, restore);
    expect(result.tokensResolved).toBe(1);
    const runs = [...result.xml.matchAll(/<w:t[^>]*>([^<]*)<\/w:t>/g)].map((match) => match[1]);
    expect(runs).toEqual(['Write to ', 'jane@example.com', '', ' today', 'untouched']);
  });

  it('escapes restored values and keeps unresolved tokens verbatim', () => {
    const token = '{{email:em_001:0123456789ab}}';
    const unknown = '{{email:em_002:ffffffffffff}}';
    const xml = documentXml([`${token} and ${unknown}`]);
    const restore: Restorer = (text) =>
      text === token ? { restoredText: 'a<b>&c', tokensResolved: 1, tokensUnresolved: [] } : { restoredText: text, tokensResolved: 0, tokensUnresolved: [{ token: text, reason: 'unknown' }] };
    const result = restoreWordXml(xml, restore);
    expect(result.xml).toContain('a&lt;b&gt;&amp;c and {{email:em_002:ffffffffffff}}');
    expect(result.tokensUnresolved).toEqual([{ token: unknown, reason: 'unknown' }]);
  });

  it('writes a restored archive that keeps its other entries', async () => {
    const token = '{{phone:ph_001:0123456789ab}}';
    const media = await renderTextPng(['media']);
    const bytes = await makeDocx([['Call ', token.slice(0, 12), token.slice(12)]], { 'word/media/image1.png': media });
    const restored = await restoreDocx(openDocx(bytes, LIMITS, true), (text) => ({ restoredText: text === token ? '+1 415 555 0134' : text, tokensResolved: text === token ? 1 : 0, tokensUnresolved: [] }));
    expect(await docxParagraphs(restored.bytes)).toEqual(['Call +1 415 555 0134']);
    const reopened = openDocx(restored.bytes, LIMITS, true);
    expect(reopened.contents.get('word/media/image1.png')?.equals(media)).toBe(true);
  });
});

describe('extract and rehydrate by format', () => {
  const identity: Restorer = (text) => ({ restoredText: text.replace(/\{\{email:em_001:0123456789ab\}\}/g, 'a"b@example.com'), tokensResolved: 0, tokensUnresolved: [] });

  it('extracts PDF text page by page', async () => {
    const pdf = await makePdf([['Page one jane.doe@example.com'], ['Page two DE89370400440532013000']]);
    const extracted = await extractFile(pdf, { filename: 'x.pdf' }, FILE_LIMITS);
    expect(extracted).toMatchObject({ format: 'pdf', pages: 2 });
    expect(extracted.text).toBe('Page one jane.doe@example.com\n\nPage two DE89370400440532013000');
  });

  it('caps the extracted text', async () => {
    const pdf = await makePdf([Array.from({ length: 5 }, () => 'x'.repeat(40)), Array.from({ length: 5 }, () => 'y'.repeat(40))]);
    await expect(extractFile(pdf, {}, { ...FILE_LIMITS, maxTextChars: 250 })).rejects.toMatchObject({ code: 'VEIL_LIMIT_EXCEEDED' });
    await expect(extractFile(utf8('z'.repeat(300)), {}, { ...FILE_LIMITS, maxTextChars: 250 })).rejects.toMatchObject({ code: 'VEIL_LIMIT_EXCEEDED' });
  });

  it('restores JSON string by string, so a quote in a value cannot break the document', async () => {
    const document = '{\n  "to": "{{email:em_001:0123456789ab}}",\n  "n": 1\n}\n';
    const restored = await rehydrateFile(utf8(document), { filename: 'a.json' }, FILE_LIMITS, identity);
    expect(restored.format).toBe('json');
    const text = Buffer.from(restored.bytes).toString('utf8');
    expect(JSON.parse(text)).toEqual({ to: 'a"b@example.com', n: 1 });
    expect(text).toBe('{\n  "to": "a\\"b@example.com",\n  "n": 1\n}\n');
  });

  it('keeps a BOM and restores plain text in place', async () => {
    const restored = await rehydrateFile(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8('to {{email:em_001:0123456789ab}}')]), {}, FILE_LIMITS, identity);
    expect(restored.format).toBe('text');
    expect(Buffer.from(restored.bytes).toString('utf8')).toBe('\uFEFFto a"b@example.com');
  });

  it('does not rebuild PDFs', async () => {
    await expect(rehydrateFile(await makePdf([['x']]), {}, FILE_LIMITS, identity)).rejects.toMatchObject({ code: 'VEIL_UNSUPPORTED_MEDIA_TYPE' });
  });
});
