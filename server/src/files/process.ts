// What a file-parsing worker does with an upload: detect the format from its content, extract
// its text (transform), or restore the tokens inside it and write it back in the same format
// (rehydrate). Errors leave as VeilErrors whose messages name the `file` field and the problem,
// never the content. Runs on a worker thread (workers/files-worker.ts); free of Fastify.
import { VeilError } from '@veil/common';
import { DocxError, extractDocxText, openDocx, restoreDocx, type Restorer } from './docx.js';
import { guardJsonValue, type OutputGuard, type OutputGuardSummary } from '../domain/guard/index.js';
import { checkContainer, decodeSafeReferences, decodeUtf8, encodeUtf8, jsonIndent, serializeJson, sniffContainer, textFormat, type FileFormat, type FileHint } from './formats.js';
import { extractPdfText, PdfError } from './pdf.js';
import { parseJsonBounded, type JsonStructureLimits } from '../domain/json-depth.js';
import { restoreJsonValue } from '../domain/structured/index.js';
import type { UnresolvedToken } from '../domain/rehydrate.js';

export interface FileLimits {
  readonly maxTextChars: number;
  /** The request body's JSON structure bounds, applied to a JSON file before it is parsed. */
  readonly json: JsonStructureLimits;
  readonly maxUncompressedBytes: number;
  readonly maxArchiveEntries: number;
}

export type Extracted =
  | { readonly format: Exclude<FileFormat, 'json'>; readonly text: string; readonly pages?: number }
  | { readonly format: 'json'; readonly text: string; readonly value: unknown; readonly indent: string | number };

function docxFailure(error: unknown): unknown {
  if (!(error instanceof DocxError)) return error;
  switch (error.problem) {
    case 'limit':
      return new VeilError('VEIL_LIMIT_EXCEEDED', `file: ${error.message}`);
    case 'unsupported':
      return new VeilError('VEIL_UNSUPPORTED_MEDIA_TYPE', `file: ${error.message}`);
    case 'unsafe':
    case 'damaged':
      return new VeilError('VEIL_VALIDATION_FAILED', `file: ${error.message}`);
  }
}

function pdfFailure(error: unknown): unknown {
  if (!(error instanceof PdfError)) return error;
  return new VeilError(error.problem === 'limit' ? 'VEIL_LIMIT_EXCEEDED' : 'VEIL_VALIDATION_FAILED', `file: ${error.message}`);
}

function checkTextSize(text: string, limits: FileLimits): void {
  if (text.length > limits.maxTextChars) throw new VeilError('VEIL_LIMIT_EXCEEDED', 'file: yields more text than the limit');
}


/** Decode a text upload and decide its subtype. */
function decodeText(bytes: Uint8Array, hint: FileHint, limits: FileLimits): { text: string; bom: boolean; format: ReturnType<typeof textFormat> } {
  const { text, bom } = decodeUtf8(bytes);
  checkTextSize(text, limits);
  return { text, bom, format: textFormat(text, hint) };
}

export async function extractFile(bytes: Uint8Array, hint: FileHint, limits: FileLimits): Promise<Extracted> {
  const container = checkContainer(sniffContainer(bytes), hint);
  switch (container) {
    case 'pdf':
      try {
        const pdf = await extractPdfText(bytes, limits.maxTextChars);
        return { format: 'pdf', text: pdf.text, pages: pdf.pages };
      } catch (error) {
        throw pdfFailure(error);
      }
    case 'zip':
      try {
        const opened = openDocx(bytes, { maxEntries: limits.maxArchiveEntries, maxUncompressedBytes: limits.maxUncompressedBytes }, false);
        const text = await extractDocxText(opened);
        checkTextSize(text, limits);
        return { format: 'docx', text };
      } catch (error) {
        throw docxFailure(error);
      }
    case 'text': {
      const decoded = decodeText(bytes, hint, limits);
      switch (decoded.format) {
        case 'json':
          return { format: 'json', text: decoded.text, value: parseJsonBounded(decoded.text, limits.json, 'file'), indent: jsonIndent(decoded.text) };
        case 'html':
          return { format: 'html', text: decodeSafeReferences(decoded.text) };
        case 'text':
        case 'markdown':
        case 'csv':
          return { format: decoded.format, text: decoded.text };
      }
    }
  }
}

export interface RestoredFile {
  readonly format: FileFormat;
  readonly bytes: Uint8Array;
  readonly tokensResolved: number;
  readonly tokensUnresolved: readonly UnresolvedToken[];
  /** Present when output protection is enabled (counts only). */
  readonly outputGuard?: OutputGuardSummary;
}


/**
 * Restore a tokenized file in its own format. Text formats are restored in place (the values
 * go back where their tokens are); JSON is restored string by string and serialized again, so
 * a value holding a quote or a backslash cannot break the document; DOCX run by run. PDF is not
 * rebuilt: its text was extracted, and the extracted text is what carries tokens. The output
 * guard (output_protection) sees the file's text as the model wrote it, before any restore,
 * exactly as /v1/rehydrate does.
 */
export async function rehydrateFile(bytes: Uint8Array, hint: FileHint, limits: FileLimits, restore: Restorer, guard?: OutputGuard): Promise<RestoredFile> {
  const restored = await restoreByFormat(bytes, hint, limits, restore, guard);
  return guard !== undefined ? { ...restored, outputGuard: guard.summary() } : restored;
}

async function restoreByFormat(bytes: Uint8Array, hint: FileHint, limits: FileLimits, restore: Restorer, guard: OutputGuard | undefined): Promise<RestoredFile> {
  const guardText = guard !== undefined ? (text: string) => guard.guard(text, 'file') : undefined;
  const container = checkContainer(sniffContainer(bytes), hint);
  switch (container) {
    case 'pdf':
      throw new VeilError(
        'VEIL_UNSUPPORTED_MEDIA_TYPE',
        'file: PDF files are not rebuilt; rehydrate the extracted text (a .txt file here, or /v1/rehydrate)',
      );
    case 'zip':
      try {
        const opened = openDocx(bytes, { maxEntries: limits.maxArchiveEntries, maxUncompressedBytes: limits.maxUncompressedBytes }, true);
        const restored = await restoreDocx(opened, restore, guardText, guard !== undefined ? (members) => guard.acrossMembers(members, 'file') : undefined);
        return { format: 'docx', bytes: restored.bytes, tokensResolved: restored.tokensResolved, tokensUnresolved: restored.tokensUnresolved };
      } catch (error) {
        throw docxFailure(error);
      }
    case 'text': {
      const decoded = decodeText(bytes, hint, limits);
      if (decoded.format === 'json') {
        const document = parseJsonBounded(decoded.text, limits.json, 'file');
        const restored = restoreJsonValue(guard !== undefined ? guardJsonValue(document, guard) : document, restore);
        const text = serializeJson(restored.value, jsonIndent(decoded.text), decoded.text.endsWith('\n'));
        return { format: 'json', bytes: encodeUtf8(text, decoded.bom), tokensResolved: restored.tokensResolved, tokensUnresolved: restored.tokensUnresolved };
      }
      const restored = restore(guardText !== undefined ? guardText(decoded.text) : decoded.text);
      return {
        format: decoded.format,
        bytes: encodeUtf8(restored.restoredText, decoded.bom),
        tokensResolved: restored.tokensResolved,
        tokensUnresolved: restored.tokensUnresolved,
      };
    }
  }
}
