// Reading an upstream's server-sent events (the WHATWG event-stream format, as OpenAI-compatible
// servers frame streamed completions: `data: {...}` lines, a blank line ends an event,
// `data: [DONE]` ends the stream). Incremental: text goes in as it arrives, in pieces cut
// anywhere, complete events come out. Only the data of an event matters here; `event:`, `id:`,
// `retry:` and comment lines are read and dropped. Bounded: an event whose data grows past
// `maxEventChars` fails rather than buffering without limit.

export class SseFormatError extends Error {}

export class SseParser {
  readonly #maxEventChars: number;
  /** Text received but not yet a complete line. */
  #line = '';
  /** Data lines of the event being read, joined by `\n` at its end. */
  #data: string[] = [];
  #dataChars = 0;
  /** A `\r` ended the last piece: a `\n` starting the next one belongs to the same line end. */
  #afterCr = false;

  constructor(maxEventChars: number) {
    this.#maxEventChars = maxEventChars;
  }

  /** Feed decoded text; returns the data of every event completed by it, in order. */
  push(text: string): string[] {
    const events: string[] = [];
    let start = 0;
    let index = 0;
    if (this.#afterCr && text.startsWith('\n')) {
      start = 1;
      index = 1;
    }
    this.#afterCr = false;
    for (; index < text.length; index += 1) {
      const code = text.charCodeAt(index);
      if (code !== 0x0a && code !== 0x0d) continue;
      this.#line += text.slice(start, index);
      this.#takeLine(events);
      if (code === 0x0d) {
        if (index + 1 === text.length) this.#afterCr = true;
        else if (text.charCodeAt(index + 1) === 0x0a) index += 1;
      }
      start = index + 1;
    }
    this.#line += text.slice(start);
    if (this.#line.length + this.#dataChars > this.#maxEventChars) throw new SseFormatError('an event exceeds the size limit');
    return events;
  }

  /** The stream ended: an event not closed by a blank line is dropped (the format says so). */
  end(): void {
    this.#line = '';
    this.#data = [];
    this.#dataChars = 0;
  }

  #takeLine(events: string[]): void {
    const line = this.#line;
    this.#line = '';
    if (line === '') {
      if (this.#data.length > 0) events.push(this.#data.join('\n'));
      this.#data = [];
      this.#dataChars = 0;
      return;
    }
    if (line.startsWith(':')) return; // a comment (keep-alive)
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field !== 'data') return;
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    this.#dataChars += value.length + 1;
    if (this.#dataChars > this.#maxEventChars) throw new SseFormatError('an event exceeds the size limit');
    this.#data.push(value);
  }
}
