// Serialized JSON that crosses from a worker thread to the event loop. A long answer (a detect
// of megabytes of phone numbers serializes to tens of megabytes) is encoded to UTF-8 on the
// worker and its bytes are moved, not copied, to the event loop, which writes them to the socket
// as they are: the loop never copies, re-encodes or garbage-collects a string of that size
// (issue 16 item 1; measured: writing a 52 MB answer string blocked the loop 130 ms of a 250 ms
// task). Short answers stay strings (a transfer costs more than copying a few kilobytes).
import { Readable } from 'node:stream';

/** A serialized JSON value: a string, or its UTF-8 bytes when long. */
export type JsonText = string | Uint8Array;

/** Serialized answers longer than this (UTF-16 units) cross as bytes. */
export const JSON_BYTES_ABOVE = 64 * 1024;

/** On a worker: `json` as it should cross to the event loop. */
export function toJsonText(json: string): JsonText {
  if (json.length <= JSON_BYTES_ABOVE) return json;
  const bytes = Buffer.from(json, 'utf8');
  // A transfer moves the whole ArrayBuffer: the view must own all of it (a large Buffer.from
  // does; anything else is copied once into one that does).
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return new Uint8Array(bytes.buffer, 0, bytes.byteLength);
  return new Uint8Array(bytes);
}

/** On a worker: the ArrayBuffers of a task result's byte fields (shallow, and one array level), to move. */
export function transferablesOf(value: unknown): ArrayBuffer[] {
  const found: ArrayBuffer[] = [];
  const add = (item: unknown): void => {
    if (item instanceof Uint8Array && item.buffer instanceof ArrayBuffer && !found.includes(item.buffer)) found.push(item.buffer);
  };
  if (typeof value !== 'object' || value === null) return found;
  for (const field of Object.values(value)) {
    if (Array.isArray(field)) for (const item of field as unknown[]) add(item);
    else add(field);
  }
  return found;
}

/** The text of a serialized value, for the few consumers that splice or parse it (bounded sizes). */
export function jsonString(text: JsonText): string {
  return typeof text === 'string' ? text : Buffer.from(text.buffer, text.byteOffset, text.byteLength).toString('utf8');
}

/**
 * An answer assembled from serialized parts, ready for `reply.send`: one string when every part
 * is a string, the bytes themselves when they are the only part (written as they are), else a
 * stream of the parts' bytes with its content-length (no concatenation of the long part on the
 * event loop).
 */
export function jsonPayload(parts: readonly JsonText[]): { readonly body: string | Buffer | Readable; readonly length?: number } {
  if (parts.every((part): part is string => typeof part === 'string')) return { body: parts.join('') };
  const only = parts.length === 1 ? parts[0]! : undefined;
  if (only !== undefined && typeof only !== 'string') return { body: Buffer.from(only.buffer, only.byteOffset, only.byteLength), length: only.byteLength };
  const buffers = parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : Buffer.from(part.buffer, part.byteOffset, part.byteLength)));
  return { body: Readable.from(buffers, { objectMode: false }), length: buffers.reduce((sum, buffer) => sum + buffer.length, 0) };
}

/** `jsonPayload` of a serialized object with `fields` added after its own members. */
export function withTrailingFields(json: JsonText, fields: string): JsonText[] {
  if (typeof json === 'string') return [`${json.slice(0, -1)}${fields}}`];
  return [json.subarray(0, json.byteLength - 1), `${fields}}`];
}

/** What the answer schema's serializer writes first for an empty `safe_text` (it is the schema's first, required member). */
const EMPTY_SAFE_TEXT = '{"safe_text":""';
/** The same member's head, before its escaped value (ASCII: its UTF-8 length is its length). */
const SAFE_TEXT_HEAD = '{"safe_text":';

/**
 * A text transform's answer with a long `safe_text` (above JSON_BYTES_ABOVE), as the bytes the
 * route's schema serializer would write for it; undefined for a shorter one (the serializer
 * writes that). The serializer (fast-json-stringify) builds its output by concatenation: for a
 * 100 KB text a string of thousands of pieces, which Fastify flattens into a new string of ~190
 * KB to measure its length, then encodes again to write it. Here `safe_text` is escaped on its
 * own (JSON.stringify, as the serializer escapes every string of eight units or more) and the
 * rest of the answer is serialized by `serialize` with an empty `safe_text`; the member's head,
 * the escaped text and the rest are each encoded once into one Buffer, written as it is (never
 * joined into one string first: that would copy the 100 KB text once more). Same bytes, same
 * key order.
 */
export function textAnswerBytes(answer: { readonly safe_text?: string | undefined }, serialize: (value: unknown) => unknown): Buffer | undefined {
  const text = answer.safe_text;
  if (text === undefined || text.length <= JSON_BYTES_ABOVE) return undefined;
  const rest = serialize({ ...answer, safe_text: '' });
  if (typeof rest !== 'string' || !rest.startsWith(EMPTY_SAFE_TEXT)) return undefined;
  const escaped = JSON.stringify(text);
  const tail = rest.slice(EMPTY_SAFE_TEXT.length);
  const escapedLength = Buffer.byteLength(escaped);
  const bytes = Buffer.allocUnsafe(SAFE_TEXT_HEAD.length + escapedLength + Buffer.byteLength(tail));
  bytes.write(SAFE_TEXT_HEAD, 0, 'latin1');
  bytes.write(escaped, SAFE_TEXT_HEAD.length);
  bytes.write(tail, SAFE_TEXT_HEAD.length + escapedLength);
  return bytes;
}
