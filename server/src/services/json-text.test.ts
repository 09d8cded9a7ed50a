// services/json-text.ts: long serialized answers cross from a worker as bytes and leave as parts;
// what the client receives must be the same JSON as the string would have been.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { JSON_BYTES_ABOVE, jsonPayload, jsonString, toJsonText, transferablesOf, withTrailingFields } from './json-text.js';

async function text(payload: { body: string | Buffer | Readable; length?: number }): Promise<string> {
  if (typeof payload.body === 'string') return payload.body;
  if (Buffer.isBuffer(payload.body)) {
    expect(payload.body.length).toBe(payload.length);
    return payload.body.toString('utf8');
  }
  const chunks: Buffer[] = [];
  for await (const chunk of payload.body) chunks.push(chunk as Buffer);
  const joined = Buffer.concat(chunks);
  expect(joined.length).toBe(payload.length);
  return joined.toString('utf8');
}

describe('json-text', () => {
  const long = JSON.stringify({ items: Array.from({ length: 5000 }, (_, index) => `café ☕ ${index} 𝄞`) });

  it('keeps short answers as strings and long ones as bytes that own their buffer', () => {
    expect(toJsonText('{"a":1}')).toBe('{"a":1}');
    expect(long.length).toBeGreaterThan(JSON_BYTES_ABOVE);
    const bytes = toJsonText(long);
    expect(bytes).toBeInstanceOf(Uint8Array);
    const view = bytes as Uint8Array;
    expect(view.byteOffset).toBe(0);
    expect(view.byteLength).toBe(view.buffer.byteLength);
    expect(jsonString(bytes)).toBe(long);
    expect(transferablesOf({ body: bytes, count: 3, frames: [bytes], other: 'x' })).toEqual([view.buffer]);
    expect(transferablesOf({ body: '{}' })).toEqual([]);
  });

  it('sends the same JSON from string and byte parts, with the handle spliced in', async () => {
    const handle = ',"session_state":"v1.abc"';
    const expected = `${long.slice(0, -1)}${handle}}`;
    expect(await text(jsonPayload(withTrailingFields(long, handle)))).toBe(expected);
    expect(await text(jsonPayload(withTrailingFields(toJsonText(long), handle)))).toBe(expected);
    expect(JSON.parse(await text(jsonPayload(['{"entities":', toJsonText(long), ',"n":1}'])))).toEqual({ entities: JSON.parse(long), n: 1 });
  });

  it('writes bytes that are the only part as they are, not through a stream', () => {
    const bytes = toJsonText(long) as Uint8Array;
    const payload = jsonPayload([bytes]);
    expect(Buffer.isBuffer(payload.body)).toBe(true);
    expect(payload.length).toBe(bytes.byteLength);
    expect((payload.body as Buffer).buffer).toBe(bytes.buffer);
  });
});

