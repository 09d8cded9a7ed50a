// Images for /v1/transform/image and /v1/redact/image, with sharp (libvips; its work runs on
// libuv's thread pool, off the event loop). Size limits are enforced BEFORE decoding: the
// magic bytes must name a raster format (SVG is refused: it is XML with external references),
// the header's dimensions must stay within file_upload.max_pixels, and decoding itself runs with
// limitInputPixels as a second guard, so a 65535x65535 header or a decompression bomb never
// allocates its pixels. EXIF orientation is applied (OCR needs upright text); boxes refer to
// the upright image, which is also what a redacted PNG shows. OCR words are laid out as text
// (words by spaces, lines by newlines, paragraphs by blank lines) with each word's code-point
// span, so a detection span maps back to the union of the boxes of the words it touches.
import { VeilError } from '@veil/common';
import type { Metadata, OverlayOptions } from 'sharp';
import { luhnValid } from '../domain/detect/checksums.js';
import { sniffImage, type ImageFormat } from '../files/formats.js';
import type { OcrBox, OcrPage, OcrWord } from './ocr.js';

type Sharp = (typeof import('sharp'))['default'];
let sharpModule: Promise<Sharp> | undefined;

/** sharp (and libvips) load with the first image, not at startup: most processes never see one. */
function loadSharp(): Promise<Sharp> {
  sharpModule ??= import('sharp').then((module) => {
    // Nothing is cached between requests: each image is decoded once and its pixels dropped.
    module.default.cache(false);
    return module.default;
  });
  return sharpModule;
}

export interface PixelBox {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface PreparedImage {
  readonly format: ImageFormat;
  readonly width: number;
  readonly height: number;
  /** The upright image as PNG (alpha kept): the base of a redacted output. */
  readonly upright: Buffer;
  /** The upright image flattened onto white, greyscale PNG: the OCR input. */
  readonly ocrInput: Buffer;
}

/** Wall-clock bound on each libvips pipeline. */
const SHARP_TIMEOUT_SECONDS = 30;

function damaged(): VeilError {
  return new VeilError('VEIL_VALIDATION_FAILED', 'image: is damaged or truncated and cannot be decoded');
}

/** Check the format and the header's dimensions; no pixel is decoded. */
export async function probeImage(bytes: Uint8Array, maxPixels: number): Promise<{ format: ImageFormat; width: number; height: number; orientation: number }> {
  const format = sniffImage(bytes);
  if (format === undefined) throw new VeilError('VEIL_UNSUPPORTED_MEDIA_TYPE', 'image: unsupported image type; send PNG, JPEG, WebP, GIF or TIFF');
  const sharp = await loadSharp();
  let metadata: Metadata;
  try {
    metadata = await sharp(bytes, { limitInputPixels: false, pages: 1 }).metadata();
  } catch {
    throw damaged();
  }
  const width = metadata.width;
  const height = metadata.height;
  if (width <= 0 || height <= 0) throw damaged();
  if (width * height > maxPixels) throw new VeilError('VEIL_LIMIT_EXCEEDED', 'image: has more pixels than the limit');
  return { format, width, height, orientation: metadata.orientation ?? 1 };
}

/** Probe, then decode once (bounded) into the upright PNG and the OCR input. */
export async function prepareImage(bytes: Uint8Array, maxPixels: number): Promise<PreparedImage> {
  const probed = await probeImage(bytes, maxPixels);
  const sharp = await loadSharp();
  try {
    const upright = await sharp(bytes, { limitInputPixels: maxPixels, pages: 1, failOn: 'error' })
      .autoOrient()
      .timeout({ seconds: SHARP_TIMEOUT_SECONDS })
      .png({ compressionLevel: 1 })
      .toBuffer({ resolveWithObject: true });
    const ocrInput = await sharp(upright.data)
      .flatten({ background: '#ffffff' })
      .greyscale()
      .timeout({ seconds: SHARP_TIMEOUT_SECONDS })
      .png({ compressionLevel: 1 })
      .toBuffer();
    return { format: probed.format, width: upright.info.width, height: upright.info.height, upright: upright.data, ocrInput };
  } catch (error) {
    if (error instanceof Error && /pixel limit/i.test(error.message)) throw new VeilError('VEIL_LIMIT_EXCEEDED', 'image: has more pixels than the limit');
    throw damaged();
  }
}

export interface PlacedWord {
  /** Code-point span of the word in the OCR text. */
  readonly start: number;
  readonly end: number;
  readonly line: number;
  readonly confidence: number;
  readonly bbox: OcrBox;
}

export interface OcrText {
  readonly text: string;
  readonly words: readonly PlacedWord[];
  /** Mean word confidence, 0 to 1 (0 when nothing was read). */
  readonly meanConfidence: number;
}

function codePoints(text: string): number {
  let count = 0;
  for (const _char of text) count += 1;
  return count;
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

function unionBox(boxes: readonly OcrBox[]): OcrBox {
  return {
    x0: Math.min(...boxes.map((box) => box.x0)),
    y0: Math.min(...boxes.map((box) => box.y0)),
    x1: Math.max(...boxes.map((box) => box.x1)),
    y1: Math.max(...boxes.map((box) => box.y1)),
  };
}

const DIGITS = /^\d+$/;

/**
 * OCR often loses some of the spaces inside a long number ("4111 1111 1111 1111" read as
 * "411111111111 1111"), which leaves digit groups no card pattern expects. On each line, a run
 * of adjacent digit-only words whose digits together form a Luhn-valid 13 to 19 digit number is
 * joined into one word (boxes united), so the card detector sees one number whatever spacing
 * OCR kept. The longest valid window of a run wins; other words are kept as read.
 */
export function joinSplitNumbers(words: readonly OcrWord[]): OcrWord[] {
  const out: OcrWord[] = [];
  let index = 0;
  while (index < words.length) {
    if (!DIGITS.test(words[index]!.text)) {
      out.push(words[index]!);
      index += 1;
      continue;
    }
    let runEnd = index;
    while (runEnd < words.length && DIGITS.test(words[runEnd]!.text)) runEnd += 1;
    let joined: { end: number; word: OcrWord } | undefined;
    for (let end = runEnd; end > index + 1 && joined === undefined; end -= 1) {
      const digits = words
        .slice(index, end)
        .map((word) => word.text)
        .join('');
      if (digits.length >= 13 && digits.length <= 19 && luhnValid(digits, 0, digits.length)) {
        const parts = words.slice(index, end);
        joined = { end, word: { text: digits, confidence: Math.min(...parts.map((word) => word.confidence)), bbox: unionBox(parts.map((word) => word.bbox)) } };
      }
    }
    if (joined !== undefined) {
      out.push(joined.word);
      index = joined.end;
    } else {
      out.push(words[index]!);
      index += 1;
    }
  }
  return out;
}

export function layoutText(page: OcrPage): OcrText {
  const parts: string[] = [];
  const words: PlacedWord[] = [];
  let offset = 0;
  let line = 0;
  let confidenceSum = 0;
  const push = (text: string): void => {
    parts.push(text);
    offset += codePoints(text);
  };
  page.paragraphs.forEach((paragraph, paragraphIndex) => {
    if (paragraphIndex > 0) push('\n\n');
    paragraph.forEach((lineWords, lineIndex) => {
      if (lineIndex > 0) push('\n');
      joinSplitNumbers(lineWords).forEach((word, wordIndex) => {
        if (wordIndex > 0) push(' ');
        const start = offset;
        push(word.text);
        words.push({ start, end: offset, line, confidence: word.confidence, bbox: word.bbox });
        confidenceSum += word.confidence;
      });
      line += 1;
    });
  });
  return { text: parts.join(''), words, meanConfidence: words.length === 0 ? 0 : round3(confidenceSum / words.length / 100) };
}

function toPixelBox(box: OcrBox): PixelBox {
  return { x: box.x0, y: box.y0, width: Math.max(0, box.x1 - box.x0), height: Math.max(0, box.y1 - box.y0) };
}

export interface EntityPlacement {
  /** The union of the boxes of every word the span touches. */
  readonly bbox: PixelBox;
  /** One box per text line the span touches (what redaction fills). */
  readonly boxes: PixelBox[];
  /** The lowest OCR confidence among those words, 0 to 1. */
  readonly ocrConfidence: number;
}

/**
 * Where a detected span sits in the image. A span that covers part of a word takes the whole
 * word's box (redaction errs toward covering more).
 */
export function placeSpan(words: readonly PlacedWord[], span: { start: number; end: number }): EntityPlacement | undefined {
  const touched = words.filter((word) => word.start < span.end && span.start < word.end);
  if (touched.length === 0) return undefined;
  const byLine = new Map<number, OcrBox[]>();
  for (const word of touched) {
    const boxes = byLine.get(word.line) ?? [];
    boxes.push(word.bbox);
    byLine.set(word.line, boxes);
  }
  return {
    bbox: toPixelBox(unionBox(touched.map((word) => word.bbox))),
    boxes: [...byLine.values()].map((boxes) => toPixelBox(unionBox(boxes))),
    ocrConfidence: round3(Math.min(...touched.map((word) => word.confidence)) / 100),
  };
}

/**
 * Spans over the text the transform detected on, moved onto the OCR layout text. They differ
 * only when prompt security stripped something (hidden characters, token-shaped strings)
 * before detection; an entity's own characters are never changed by that, so each entity is
 * found again, in order, in the layout text. An entity that cannot be found fails the request:
 * a box cannot be guessed.
 */
export function alignSpans(layoutText: string, detectedText: string, spans: readonly { start: number; end: number }[]): { start: number; end: number }[] {
  if (layoutText === detectedText) return spans.map((span) => ({ start: span.start, end: span.end }));
  const detectedOffsets = utf16Offsets(detectedText);
  const layoutOffsets = utf16Offsets(layoutText);
  const codePointAt = new Map(layoutOffsets.map((offset, index) => [offset, index]));
  const aligned: { start: number; end: number }[] = [];
  let from = 0;
  for (const span of spans) {
    const needle = detectedText.slice(detectedOffsets[span.start], detectedOffsets[span.end]);
    const at = needle === '' ? -1 : layoutText.indexOf(needle, from);
    const start = codePointAt.get(at);
    const end = codePointAt.get(at + needle.length);
    if (start === undefined || end === undefined) throw new VeilError('VEIL_INTERNAL', undefined, 'ocr span alignment failed');
    aligned.push({ start, end });
    from = at + needle.length;
  }
  return aligned;
}

/** UTF-16 offset of each code point of `text`, plus the length (code point i -> offsets[i]). */
function utf16Offsets(text: string): number[] {
  const offsets: number[] = [];
  let offset = 0;
  for (const char of text) {
    offsets.push(offset);
    offset += char.length;
  }
  offsets.push(offset);
  return offsets;
}

/** Pixels added around each box so anti-aliased glyph edges are covered too. */
export const REDACTION_PADDING = 2;

/** The upright image with every box filled opaque black; same width and height, PNG. */
export async function redactImage(image: PreparedImage, boxes: readonly PixelBox[]): Promise<Buffer> {
  const overlays: OverlayOptions[] = [];
  for (const box of boxes) {
    const left = Math.max(0, Math.floor(box.x) - REDACTION_PADDING);
    const top = Math.max(0, Math.floor(box.y) - REDACTION_PADDING);
    const right = Math.min(image.width, Math.ceil(box.x + box.width) + REDACTION_PADDING);
    const bottom = Math.min(image.height, Math.ceil(box.y + box.height) + REDACTION_PADDING);
    if (right <= left || bottom <= top) continue;
    overlays.push({
      input: { create: { width: right - left, height: bottom - top, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 1 } } },
      left,
      top,
    });
  }
  const sharp = await loadSharp();
  return sharp(image.upright).composite(overlays).timeout({ seconds: SHARP_TIMEOUT_SECONDS }).png().toBuffer();
}
