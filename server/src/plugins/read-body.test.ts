// readBody (plugins/json.ts): the body reader that copies a large body into one buffer as it
// arrives. It must give back exactly the bytes sent, whatever the chunking, and keep Fastify's
// checks (body limit, a Content-Length that does not match what arrived).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBody } from './json.js';

/** A stream that emits `body` in chunks of `size` bytes, each from a fresh shared buffer. */
function chunked(body: Buffer, size: number): PassThrough {
  const stream = new PassThrough();
  setImmediate(() => {
    for (let offset = 0; offset < body.length; offset += size) stream.write(body.subarray(offset, offset + size));
    stream.end();
  });
  return stream;
}

const body = Buffer.from(Array.from({ length: 300_000 }, (_, index) => String.fromCharCode(97 + (index % 26))).join(''));

describe('readBody', () => {
  it.each([1000, 16_384, 65_536, 70_001, 300_000])('gives back every byte in chunks of %i, with and without a declared length', async (size) => {
    expect((await readBody(chunked(body, size), 1_000_000, String(body.length))).equals(body)).toBe(true);
    expect((await readBody(chunked(body, size), 1_000_000, undefined)).equals(body)).toBe(true);
  });

  it('refuses a body over the limit, declared or not', async () => {
    await expect(readBody(chunked(body, 10_000), 100_000, String(body.length))).rejects.toMatchObject({ code: 'FST_ERR_CTP_BODY_TOO_LARGE' });
    await expect(readBody(chunked(body, 10_000), 100_000, undefined)).rejects.toMatchObject({ code: 'FST_ERR_CTP_BODY_TOO_LARGE' });
  });

  it('refuses a body longer or shorter than its Content-Length, small or large', async () => {
    for (const declared of [body.length - 1, body.length + 1, 100_000, 10]) {
      await expect(readBody(chunked(body, 8192), 1_000_000, String(declared))).rejects.toMatchObject({ code: 'FST_ERR_CTP_INVALID_CONTENT_LENGTH' });
    }
  });

  it('does not keep views of the chunks it was given', async () => {
    const shared = Buffer.from('{"input":"abc"}');
    const stream = new PassThrough();
    const read = readBody(stream, 1000, String(shared.length));
    stream.end(shared);
    const bytes = await read;
    shared.fill(0);
    expect(bytes.toString('utf8')).toBe('{"input":"abc"}');
  });

  it('passes a stream error on as a client error', async () => {
    const stream = new PassThrough();
    const read = readBody(stream, 1000, '100');
    stream.destroy(new Error('aborted'));
    await expect(read).rejects.toMatchObject({ statusCode: 400 });
  });
});
