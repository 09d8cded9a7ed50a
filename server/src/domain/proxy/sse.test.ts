// The upstream event-stream reader: events come out whole however the text is cut, every line
// ending and field form of the format is read, and an oversized event fails instead of buffering.
import { describe, expect, it } from 'vitest';
import { SseFormatError, SseParser } from './sse.js';

const STREAM = ': keep-alive\r\ndata: {"a":1}\r\n\r\nevent: message\nid: 7\ndata:{"b":\ndata: 2}\n\nretry: 10\n\rdata: [DONE]\r\r';
const EVENTS = ['{"a":1}', '{"b":\n2}', '[DONE]'];

function feed(pieces: readonly string[]): string[] {
  const parser = new SseParser(1000);
  const out = pieces.flatMap((piece) => parser.push(piece));
  parser.end();
  return out;
}

describe('SseParser', () => {
  it('reads every event whole, whatever two pieces the text is cut into', () => {
    expect(feed([STREAM])).toEqual(EVENTS);
    for (let cut = 0; cut <= STREAM.length; cut += 1) expect(feed([STREAM.slice(0, cut), STREAM.slice(cut)]), `cut ${cut}`).toEqual(EVENTS);
    expect(feed(Array.from(STREAM))).toEqual(EVENTS);
  });

  it('drops an event the stream never closed', () => {
    expect(feed(['data: {"a":1}\n\ndata: {"half"'])).toEqual(['{"a":1}']);
  });

  it('fails on an event larger than its bound, in one line or many', () => {
    expect(() => new SseParser(16).push(`data: ${'x'.repeat(32)}`)).toThrow(SseFormatError);
    const parser = new SseParser(16);
    expect(() => {
      for (let index = 0; index < 10; index += 1) parser.push('data: xxxx\n');
    }).toThrow(SseFormatError);
  });
});
