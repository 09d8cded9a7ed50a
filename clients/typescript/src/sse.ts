// Reading Veil's server-sent events: `data: <json>` frames separated by blank lines (docs/api.md,
// "Streaming (SSE)"). Frames come out as parsed JSON the moment their blank line arrives; the
// stream's terminal error frame `{error, complete: true}` becomes a StreamError.
import { StreamError } from './errors.js';

/** The data payloads of an event stream, in order, as they arrive. */
export async function* sseData(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  const onAbort = (): void => {
    reader.cancel().catch(() => undefined);
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      const next = await reader.read();
      buffer += next.done ? decoder.decode() : decoder.decode(next.value, { stream: true });
      const lines = buffer.split(/\r\n|\r|\n/);
      // The last piece may be an incomplete line (or a lone \r of a \r\n pair).
      buffer = next.done ? '' : (lines.pop() ?? '');
      for (const line of lines) {
        if (line === '') {
          if (data.length > 0) yield data.join('\n');
          data = [];
        } else if (line.startsWith('data:')) {
          data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
        }
      }
      if (next.done) break;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    reader.cancel().catch(() => undefined);
  }
}

/** One frame of a Veil stream, or the error frame turned into a StreamError. */
export function parseFrame(data: string, requestId: string | undefined): Record<string, unknown> {
  const frame = JSON.parse(data) as Record<string, unknown>;
  if (typeof frame.error === 'string' && frame.complete === true) {
    throw new StreamError(frame.error, { code: 'VEIL_STREAM_FAILED', status: 200, requestId });
  }
  return frame;
}
