// Strict UTF-8 decoding of request bytes. A lenient decoder turns every invalid sequence into
// U+FFFD and the request goes on with text the caller never sent (a value silently altered
// before detection, a token id or cap that can no longer match). Every byte body Veil reads as
// text (JSON bodies, ndjson lines, multipart text fields) is decoded here instead and refused
// with 400 when it is not UTF-8. The message names the field, never the bytes.
import { TextDecoder } from 'node:util';
import { VeilError } from '@veil/common';

/** Refusal for `field` (a body, a line, a form field): names it, quotes nothing. */
export function invalidUtf8(field: string): VeilError {
  return new VeilError('VEIL_VALIDATION_FAILED', `${field}: is not valid UTF-8`);
}

/**
 * A fatal decoder: `ignoreBOM` keeps a leading BOM in the text, so a JSON body that starts with
 * one is refused as JSON exactly as before rather than silently accepted.
 */
export function strictUtf8Decoder(): TextDecoder {
  return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
}

/**
 * The decoder of every whole-body decode: a decode without `{ stream: true }` ends its input
 * (an unfinished sequence fails it) and leaves the decoder empty, so one instance serves every
 * call; building one per body was a measurable share of a small request (issue 20). Streaming
 * readers (routes/stream.ts) keep a decoder of their own.
 */
const wholeBodyDecoder = strictUtf8Decoder();

/** Decode `bytes` as UTF-8 or throw VEIL_VALIDATION_FAILED naming `field`. */
export function decodeUtf8(bytes: Uint8Array, field: string): string {
  try {
    return wholeBodyDecoder.decode(bytes);
  } catch {
    throw invalidUtf8(field);
  }
}

/** Code units above U+00FF: a string that holds one was not made of single bytes. */
const WIDE = /[\u0100-\uffff]/;

/**
 * A multipart text field read as bytes (busboy's `latin1` charset maps each byte to one code
 * unit): decode those bytes as UTF-8. A part that declared another charset was decoded by
 * busboy already and its bytes cannot be recovered; it is refused rather than trusted, since a
 * declared `utf-8` is decoded leniently there.
 */
export function decodeLatin1Field(value: string, field: string): string {
  const refused = new VeilError('VEIL_VALIDATION_FAILED', `${field}: is not valid UTF-8 (send text fields as UTF-8, without a charset parameter)`);
  if (WIDE.test(value)) throw refused;
  try {
    return wholeBodyDecoder.decode(Buffer.from(value, 'latin1'));
  } catch {
    throw refused;
  }
}
