// File format detection for /v1/transform/file and /v1/rehydrate/file. The content decides:
// magic bytes pick the container (PDF, ZIP, image, other binary, text), and for text the
// decoded content picks the subtype. The client's filename and part Content-Type are only a
// hint: they choose between text subtypes the content is consistent with, and a hint that
// contradicts the content (a ".pdf" that is a PNG, a ".json" that does not parse) is refused,
// so a mislabelled upload never reaches the wrong parser. Pure: no I/O.
import { VeilError } from '@veil/common';

export const FILE_FORMATS = ['text', 'markdown', 'csv', 'json', 'html', 'pdf', 'docx'] as const;
export type FileFormat = (typeof FILE_FORMATS)[number];
export type TextFormat = Extract<FileFormat, 'text' | 'markdown' | 'csv' | 'json' | 'html'>;

/** The Content-Type a restored file is sent with. */
export const CONTENT_TYPES: Readonly<Record<FileFormat, string>> = {
  text: 'text/plain; charset=utf-8',
  markdown: 'text/markdown; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
  html: 'text/html; charset=utf-8',
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

export const FILE_EXTENSIONS: Readonly<Record<FileFormat, string>> = {
  text: 'txt',
  markdown: 'md',
  csv: 'csv',
  json: 'json',
  html: 'html',
  pdf: 'pdf',
  docx: 'docx',
};

/** What the client said about the file: never trusted alone. */
export interface FileHint {
  readonly filename?: string | undefined;
  readonly mimetype?: string | undefined;
}

export type Container = 'pdf' | 'zip' | 'image' | 'binary' | 'text';

function startsWith(bytes: Uint8Array, signature: readonly number[], at = 0): boolean {
  if (bytes.length < at + signature.length) return false;
  for (let index = 0; index < signature.length; index += 1) if (bytes[at + index] !== signature[index]) return false;
  return true;
}

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];
const GIF = [0x47, 0x49, 0x46, 0x38];
const RIFF = [0x52, 0x49, 0x46, 0x46];
const WEBP = [0x57, 0x45, 0x42, 0x50];
const TIFF_LE = [0x49, 0x49, 0x2a, 0x00];
const TIFF_BE = [0x4d, 0x4d, 0x00, 0x2a];
const ZIP_LOCAL = [0x50, 0x4b, 0x03, 0x04];
const ZIP_EMPTY = [0x50, 0x4b, 0x05, 0x06];
const PDF = [0x25, 0x50, 0x44, 0x46, 0x2d]; // %PDF-
/** Common binary containers that are never text: gzip, 7z, rar, OLE2 (legacy .doc/.xls), ELF. */
const OTHER_BINARY: readonly (readonly number[])[] = [
  [0x1f, 0x8b],
  [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c],
  [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07],
  [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1],
  [0x7f, 0x45, 0x4c, 0x46],
];

export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp' | 'tiff';

/** The raster image formats the image routes decode (SVG is refused: it is XML with references). */
export function sniffImage(bytes: Uint8Array): ImageFormat | undefined {
  if (startsWith(bytes, PNG)) return 'png';
  if (startsWith(bytes, JPEG)) return 'jpeg';
  if (startsWith(bytes, GIF)) return 'gif';
  if (startsWith(bytes, RIFF) && startsWith(bytes, WEBP, 8)) return 'webp';
  if (startsWith(bytes, TIFF_LE) || startsWith(bytes, TIFF_BE)) return 'tiff';
  return undefined;
}

/** PDF readers accept the header anywhere in the first KB, so the sniffer does too. */
function hasPdfHeader(bytes: Uint8Array): boolean {
  const limit = Math.min(bytes.length - PDF.length, 1024);
  for (let at = 0; at <= limit; at += 1) if (startsWith(bytes, PDF, at)) return true;
  return false;
}

/** The container family from magic bytes; `text` means "no binary signature, no NUL". */
export function sniffContainer(bytes: Uint8Array): Container {
  if (hasPdfHeader(bytes)) return 'pdf';
  if (startsWith(bytes, ZIP_LOCAL) || startsWith(bytes, ZIP_EMPTY)) return 'zip';
  if (sniffImage(bytes) !== undefined) return 'image';
  if (OTHER_BINARY.some((signature) => startsWith(bytes, signature))) return 'binary';
  // UTF-16 text carries NULs; it is refused as binary (text files must be UTF-8).
  const probe = bytes.subarray(0, 8192);
  if (probe.includes(0)) return 'binary';
  return 'text';
}

const EXTENSION_FORMATS: Readonly<Record<string, FileFormat | 'image'>> = {
  txt: 'text',
  text: 'text',
  log: 'text',
  md: 'markdown',
  markdown: 'markdown',
  csv: 'csv',
  json: 'json',
  html: 'html',
  htm: 'html',
  pdf: 'pdf',
  docx: 'docx',
  png: 'image',
  jpg: 'image',
  jpeg: 'image',
  gif: 'image',
  webp: 'image',
  tif: 'image',
  tiff: 'image',
};

const MIME_FORMATS: Readonly<Record<string, FileFormat | 'image'>> = {
  'text/plain': 'text',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/csv': 'csv',
  'application/csv': 'csv',
  'application/json': 'json',
  'text/json': 'json',
  'text/html': 'html',
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
};

/** The format the client declared, if any (extension first, then the part's Content-Type). */
export function declaredFormat(hint: FileHint): FileFormat | 'image' | 'other' | undefined {
  const name = hint.filename ?? '';
  const dot = name.lastIndexOf('.');
  if (dot >= 0 && dot < name.length - 1) {
    const byExtension = EXTENSION_FORMATS[name.slice(dot + 1).toLowerCase()];
    if (byExtension !== undefined) return byExtension;
  }
  const mime = (hint.mimetype ?? '').split(';')[0]!.trim().toLowerCase();
  if (mime === '' || mime === 'application/octet-stream') return undefined;
  if (mime.startsWith('image/')) return 'image';
  return MIME_FORMATS[mime] ?? 'other';
}

function mismatch(): VeilError {
  return new VeilError('VEIL_UNSUPPORTED_MEDIA_TYPE', 'file: the content does not match the declared file type');
}

/**
 * Check a binary container against the declared format. Images belong to the image routes,
 * other binaries are never accepted, and a declared format that contradicts the magic bytes is
 * refused.
 */
export function checkContainer(container: Container, hint: FileHint): 'pdf' | 'zip' | 'text' {
  const declared = declaredFormat(hint);
  switch (container) {
    case 'image':
      throw new VeilError('VEIL_UNSUPPORTED_MEDIA_TYPE', 'file: images are handled by /v1/transform/image and /v1/redact/image');
    case 'binary':
      throw new VeilError('VEIL_UNSUPPORTED_MEDIA_TYPE', 'file: unsupported file type; send text, Markdown, CSV, JSON, HTML, PDF or DOCX');
    case 'pdf':
      if (declared !== undefined && declared !== 'pdf') throw mismatch();
      return 'pdf';
    case 'zip':
      if (declared !== undefined && declared !== 'docx') throw mismatch();
      return 'zip';
    case 'text':
      if (declared === 'pdf' || declared === 'docx' || declared === 'image') throw mismatch();
      return 'text';
  }
}

function firstSignificant(text: string): number {
  let at = 0;
  while (at < text.length && /\s/.test(text[at]!)) at += 1;
  return at;
}

function looksLikeHtml(text: string): boolean {
  const head = text.slice(firstSignificant(text), 2048).toLowerCase();
  if (!head.startsWith('<')) return false;
  return /^<!doctype html|^<html[\s>]|^<head[\s>]|^<body[\s>]/.test(head) || /<(?:html|body|head|div|p|table|span)[\s>]/.test(head);
}

/** Delimiter counts outside double quotes, per line, over the first lines. */
function looksLikeCsv(text: string): boolean {
  const lines = text.slice(0, 16384).split(/\r?\n/).filter((line) => line.trim() !== '').slice(0, 10);
  if (lines.length < 2) return false;
  for (const delimiter of [',', ';', '\t']) {
    const counts = lines.map((line) => {
      let count = 0;
      let quoted = false;
      for (const char of line) {
        if (char === '"') quoted = !quoted;
        else if (char === delimiter && !quoted) count += 1;
      }
      return count;
    });
    // The last sampled line may be cut short by the sample window; the others must agree.
    const body = counts.slice(0, Math.max(2, counts.length - 1));
    if (body[0]! > 0 && body.every((count) => count === body[0])) return true;
  }
  return false;
}

function looksLikeMarkdown(text: string): boolean {
  const head = text.slice(0, 16384);
  return /^(?:#{1,6} \S|```|\s{0,3}[-*+] \S|\s{0,3}\d+\. \S|> \S)/m.test(head) || /\[[^\]\n]+\]\([^)\s]+\)/.test(head);
}

function parsesAsJson(text: string): boolean {
  const at = firstSignificant(text);
  const first = text[at];
  if (first !== '{' && first !== '[') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The subtype of a decoded text file. Content that parses as a JSON document is JSON whatever
 * the label (the structured path restores it safely); otherwise a declared text subtype is kept
 * (any text can be Markdown, CSV or HTML source) and without one the content is sniffed. A file
 * declared JSON must parse.
 */
export function textFormat(text: string, hint: FileHint): TextFormat {
  const declared = declaredFormat(hint);
  if (declared === 'json') {
    if (!parsesAsJson(text)) throw new VeilError('VEIL_VALIDATION_FAILED', 'file: is not valid JSON');
    return 'json';
  }
  if (parsesAsJson(text)) return 'json';
  if (declared === 'markdown' || declared === 'csv' || declared === 'html' || declared === 'text') return declared;
  if (looksLikeHtml(text)) return 'html';
  if (looksLikeCsv(text)) return 'csv';
  if (looksLikeMarkdown(text)) return 'markdown';
  return 'text';
}

/** Strict UTF-8 (a leading BOM is remembered so a rehydrated file keeps it). */
export function decodeUtf8(bytes: Uint8Array): { text: string; bom: boolean } {
  const bom = startsWith(bytes, [0xef, 0xbb, 0xbf]);
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bom ? bytes.subarray(3) : bytes), bom };
  } catch {
    throw new VeilError('VEIL_UNSUPPORTED_MEDIA_TYPE', 'file: text files must be UTF-8');
  }
}

export function encodeUtf8(text: string, bom: boolean): Uint8Array {
  const body = Buffer.from(text, 'utf8');
  return bom ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]) : body;
}

/** Characters that render the same whether written literally or as a character reference. */
const SAFE_REFERENCE = /^[A-Za-z0-9@.+_-]$/;
const NAMED_SAFE: Readonly<Record<string, string>> = { commat: '@', period: '.', plus: '+', lowbar: '_', hyphen: '-' };

/**
 * HTML is transformed as source text in place (markup, attributes such as mailto: links, and
 * text alike), so the tokenized file is still the same HTML document. Before detection, numeric
 * and a few named character references of letters, digits and `@.+_-` are decoded: they render
 * identically, and without this `jane&#64;example.com` would hide an address from detection.
 * `&lt;`, `&amp;` and every other reference are left as they are.
 */
export function decodeSafeReferences(html: string): string {
  return html.replace(/&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-z]{4,7}));/g, (whole, decimal?: string, hex?: string, name?: string) => {
    if (name !== undefined) return NAMED_SAFE[name] ?? whole;
    const code = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex ?? '', 16);
    if (!Number.isFinite(code) || code > 0x7f) return whole;
    const char = String.fromCharCode(code);
    return SAFE_REFERENCE.test(char) ? char : whole;
  });
}

/** The indentation a JSON document was written with ('' for compact). */
export function jsonIndent(text: string): string | number {
  const match = /^[[{]\s*?\n([ \t]+)\S/.exec(text.slice(firstSignificant(text)));
  if (match === null) return '';
  const indent = match[1]!;
  return indent.includes('\t') ? '\t' : indent.length;
}

/** Serialize JSON the way the document was written (indentation, trailing newline). */
export function serializeJson(value: unknown, indent: string | number, trailingNewline: boolean): string {
  return JSON.stringify(value, null, indent) + (trailingNewline ? '\n' : '');
}
