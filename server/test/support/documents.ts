// Real test documents, generated: PDFs (pdf-lib; encrypted ones with qpdf in qpdf.ts), DOCX archives
// (JSZip writing a minimal valid WordprocessingML package), PNGs with rendered text (sharp
// drawing SVG <text> with an installed font, fonts-dejavu-core), and the bomb corpus of
// threats.md 21 built byte by byte (zip bombs, XML entity expansion, zip-slip, lying and
// overlapping archive entries, oversized and decompression-bomb PNGs, truncated, circular and
// flate-bomb PDFs). Shared by the unit, HTTP and e2e tests and the file benchmark.
import { crc32, createDeflate, createDeflateRaw, deflateRawSync, deflateSync } from 'node:zlib';
import JSZip from 'jszip';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';

// ---------------------------------------------------------------------------------------------
// PDF

/** One page per entry, each a list of lines (Helvetica 12 pt on A4). */
export async function makePdf(pages: readonly (readonly string[])[]): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = document.addPage([595, 842]);
    lines.forEach((line, index) => page.drawText(line, { x: 50, y: 790 - index * 18, size: 12, font }));
  }
  return document.save();
}

/** A PDF from raw object bodies (object n is objects[n-1]), with a correct xref table. */
export function rawPdf(objects: readonly (string | Buffer)[]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n')];
  let offset = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    const chunk = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`), Buffer.isBuffer(body) ? body : Buffer.from(body), Buffer.from('\nendobj\n')]);
    offsets.push(offset);
    parts.push(chunk);
    offset += chunk.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((at) => `${String(at).padStart(10, '0')} 00000 n \n`).join('')}`;
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${offset}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** A page tree whose Pages node lists itself as a kid. */
export function circularPdf(): Buffer {
  return rawPdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>', '<< /Type /Pages /Kids [2 0 R] /Count 1 /Parent 2 0 R >>']);
}

export interface Deflated {
  readonly compressed: Buffer;
  readonly size: number;
  readonly crc: number;
}

/**
 * `length` bytes of one repeated byte, deflated as a stream (zlib format, or raw deflate for
 * ZIP entries), so building a 1 GB bomb never holds 1 GB here.
 */
export async function deflateRepeated(byte: number, length: number, raw = false): Promise<Deflated> {
  const full = Buffer.alloc(1024 * 1024, byte);
  const stream = raw ? createDeflateRaw({ level: 9 }) : createDeflate({ level: 9 });
  const output: Buffer[] = [];
  stream.on('data', (data: Buffer) => output.push(data));
  const done = new Promise<void>((resolve, reject) => {
    stream.once('end', resolve);
    stream.once('error', reject);
  });
  let crc = 0;
  for (let written = 0; written < length; written += full.length) {
    const chunk = full.subarray(0, Math.min(full.length, length - written));
    crc = crc32(chunk, crc);
    if (!stream.write(chunk)) await new Promise((resolve) => stream.once('drain', resolve));
  }
  stream.end();
  await done;
  return { compressed: Buffer.concat(output), size: length, crc };
}

export const MB = 1024 * 1024;

/** One page whose content stream inflates to `inflatedMb` MB of spaces (a flate bomb). */
export async function flateBombPdf(inflatedMb: number): Promise<Buffer> {
  const content = (await deflateRepeated(0x20, inflatedMb * MB)).compressed;
  const stream = Buffer.concat([Buffer.from(`<< /Length ${content.length} /Filter /FlateDecode >>\nstream\n`), content, Buffer.from('\nendstream')]);
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>',
    stream,
  ]);
}

// ---------------------------------------------------------------------------------------------
// DOCX

const W_NS = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

export const CONTENT_TYPES_XML =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
  '<Default Extension="png" ContentType="image/png"/>' +
  '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';

const ROOT_RELS =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
  '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A paragraph is a string (one run) or a list of runs (alternate runs are bold). */
export type DocxParagraph = string | readonly string[];

export function documentXml(paragraphs: readonly DocxParagraph[]): string {
  const body = paragraphs
    .map((paragraph) => {
      const runs = typeof paragraph === 'string' ? [paragraph] : paragraph;
      const xml = runs.map((run, index) => `<w:r>${index % 2 === 1 ? '<w:rPr><w:b/></w:rPr>' : ''}<w:t xml:space="preserve">${escapeXml(run)}</w:t></w:r>`).join('');
      return `<w:p>${xml}</w:p>`;
    })
    .join('');
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W_NS}"><w:body>${body}</w:body></w:document>`;
}

/** A minimal valid DOCX; `extra` adds or replaces entries (name -> content). */
export async function makeDocx(paragraphs: readonly DocxParagraph[], extra: Readonly<Record<string, string | Uint8Array>> = {}): Promise<Buffer> {
  const zip = new JSZip();
  zip.file('[Content_Types].xml', CONTENT_TYPES_XML);
  zip.file('_rels/.rels', ROOT_RELS);
  zip.file('word/document.xml', documentXml(paragraphs));
  for (const [name, content] of Object.entries(extra)) zip.file(name, content);
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/** The text of every `w:t` run of a DOCX's document.xml, paragraph by paragraph. */
export async function docxParagraphs(bytes: Uint8Array): Promise<string[]> {
  const zip = await JSZip.loadAsync(bytes);
  const xml = await zip.file('word/document.xml')!.async('string');
  return [...xml.matchAll(/<w:p>([\s\S]*?)<\/w:p>/g)].map((match) =>
    [...match[1]!.matchAll(/<w:t[^>]*>([^<]*)<\/w:t>/g)].map((run) => run[1]!.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')).join(''),
  );
}

export const BILLION_LAUGHS_XML =
  '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">' +
  '<!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">' +
  '<!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;"><!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">' +
  '<!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;"><!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">' +
  '<!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;"><!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">]>' +
  `<w:document xmlns:w="${W_NS}"><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>`;

export const EXTERNAL_ENTITY_XML =
  '<?xml version="1.0"?><!DOCTYPE doc [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>' +
  `<w:document xmlns:w="${W_NS}"><w:body><w:p><w:r><w:t>&xxe;</w:t></w:r></w:p></w:body></w:document>`;

// ---------------------------------------------------------------------------------------------
// Hand-built ZIP archives (for entries JSZip would refuse to write).

export interface RawZipEntry {
  readonly name: string;
  readonly data: Uint8Array;
  /** Already-deflated content (raw deflate) standing for `data`, which is then ignored. */
  readonly deflated?: Deflated;
  /** Deflate (default) or store. */
  readonly store?: boolean;
  /** Lie in both headers about the uncompressed size. */
  readonly declaredSize?: number;
}

function localHeader(name: Buffer, method: number, crc: number, compressed: number, declared: number): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(0x0800, 6);
  header.writeUInt16LE(method, 8);
  header.writeUInt32LE(crc >>> 0, 14);
  header.writeUInt32LE(compressed, 18);
  header.writeUInt32LE(declared, 22);
  header.writeUInt16LE(name.length, 26);
  return Buffer.concat([header, name]);
}

function centralHeader(name: Buffer, method: number, crc: number, compressed: number, declared: number, offset: number): Buffer {
  const header = Buffer.alloc(46);
  header.writeUInt32LE(0x02014b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(20, 6);
  header.writeUInt16LE(0x0800, 8);
  header.writeUInt16LE(method, 10);
  header.writeUInt32LE(crc >>> 0, 16);
  header.writeUInt32LE(compressed, 20);
  header.writeUInt32LE(declared, 24);
  header.writeUInt16LE(name.length, 28);
  header.writeUInt32LE(offset, 42);
  return Buffer.concat([header, name]);
}

function endOfDirectory(count: number, size: number, offset: number): Buffer {
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(count, 8);
  eocd.writeUInt16LE(count, 10);
  eocd.writeUInt32LE(size, 12);
  eocd.writeUInt32LE(offset, 16);
  return eocd;
}

export function rawZip(entries: readonly RawZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const method = entry.store === true ? 0 : 8;
    const body = entry.deflated?.compressed ?? (entry.store === true ? Buffer.from(entry.data) : deflateRawSync(entry.data));
    const declared = entry.declaredSize ?? entry.deflated?.size ?? entry.data.length;
    const crc = entry.deflated?.crc ?? crc32(entry.data);
    const local = Buffer.concat([localHeader(name, method, crc, body.length, declared), body]);
    centrals.push(centralHeader(name, method, crc, body.length, declared, offset));
    locals.push(local);
    offset += local.length;
  }
  const directory = Buffer.concat(centrals);
  return Buffer.concat([...locals, directory, endOfDirectory(entries.length, directory.length, offset)]);
}

/** The minimal DOCX entries, for building malicious variants with rawZip. */
export function docxEntries(document: string = documentXml(['hello'])): RawZipEntry[] {
  return [
    { name: '[Content_Types].xml', data: Buffer.from(CONTENT_TYPES_XML) },
    { name: '_rels/.rels', data: Buffer.from(ROOT_RELS) },
    { name: 'word/document.xml', data: Buffer.from(document) },
  ];
}

/**
 * The overlapping-entry bomb: many central records whose data is one shared deflate stream
 * (each record points at the same local header), so inflating "every file" re-inflates it.
 */
export function overlappingZip(copies: number): Buffer {
  const base = docxEntries();
  const kernel = deflateRawSync(Buffer.alloc(1024 * 1024, 0x61));
  const name = Buffer.from('word/media/a.bin');
  const crc = crc32(Buffer.alloc(1024 * 1024, 0x61));
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of base) {
    const entryName = Buffer.from(entry.name);
    const body = deflateRawSync(entry.data);
    const crcEntry = crc32(entry.data);
    centrals.push(centralHeader(entryName, 8, crcEntry, body.length, entry.data.length, offset));
    const local = Buffer.concat([localHeader(entryName, 8, crcEntry, body.length, entry.data.length), body]);
    locals.push(local);
    offset += local.length;
  }
  const shared = offset;
  const local = Buffer.concat([localHeader(name, 8, crc, kernel.length, 1024 * 1024), kernel]);
  locals.push(local);
  offset += local.length;
  for (let index = 0; index < copies; index += 1) centrals.push(centralHeader(Buffer.from(`word/media/a${index}.bin`), 8, crc, kernel.length, 1024 * 1024, shared));
  const directory = Buffer.concat(centrals);
  return Buffer.concat([...locals, directory, endOfDirectory(base.length + copies, directory.length, offset)]);
}

// ---------------------------------------------------------------------------------------------
// PNG

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length, 0);
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed) >>> 0, 0);
  return Buffer.concat([length, typed, crc]);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A PNG of `width` x `height` 1-bit grey pixels, all zero: tiny on disk, huge decoded. */
export async function pngBomb(width: number, height: number, withData = true): Promise<Buffer> {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 1; // bit depth
  header[9] = 0; // greyscale
  const rowBytes = Math.ceil(width / 8) + 1;
  // Every row is a filter byte 0 and zero pixels: all zeros, deflated as a stream.
  const idat = withData ? (await deflateRepeated(0, rowBytes * height)).compressed : deflateSync(Buffer.alloc(rowBytes));
  return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', header), pngChunk('IDAT', idat), pngChunk('IEND', Buffer.alloc(0))]);
}

function escapeSvg(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export interface RenderOptions {
  readonly width?: number;
  readonly fontSize?: number;
  readonly lineHeight?: number;
}

/** Black DejaVu Sans text on white, one line per entry, as PNG. */
export async function renderTextPng(lines: readonly string[], options: RenderOptions = {}): Promise<Buffer> {
  const fontSize = options.fontSize ?? 28;
  const lineHeight = options.lineHeight ?? Math.round(fontSize * 2);
  const width = options.width ?? 1000;
  const height = lineHeight * (lines.length + 1);
  const text = lines
    .map((line, index) => `<text x="24" y="${lineHeight * (index + 1)}" font-family="DejaVu Sans" font-size="${fontSize}" fill="#000" xml:space="preserve">${escapeSvg(line)}</text>`)
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#fff"/>${text}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

// ---------------------------------------------------------------------------------------------
// Multipart

export interface FilePart {
  readonly name: string;
  readonly data: Uint8Array;
  readonly filename?: string;
  readonly type?: string;
}

/** A multipart/form-data body (for inject) from text fields and file parts. */
export async function multipart(fields: Readonly<Record<string, string>>, files: readonly FilePart[]): Promise<{ payload: Buffer; headers: Record<string, string> }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const file of files) form.append(file.name, new Blob([file.data], file.type !== undefined ? { type: file.type } : {}), file.filename ?? 'upload.bin');
  const response = new Response(form);
  return { payload: Buffer.from(await response.arrayBuffer()), headers: { 'content-type': response.headers.get('content-type')! } };
}
