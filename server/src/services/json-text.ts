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
