#!/usr/bin/env node
// Stream a chat completion from an OpenAI-compatible endpoint through Veil.
//
//   VEIL_URL=http://127.0.0.1:3000 \
//   MODEL_URL=http://127.0.0.1:8080/v1 MODEL=my-model [MODEL_API_KEY=...] \
//   node examples/stream-chat.mjs "Write to jane.doe@example.com or call +1 415 555 0134"
//
// What it does (Node 20+, no dependencies):
//   1. POST /v1/transform on Veil with `input_messages`: the user message goes out tokenized
//      (`safe_messages`), the values stay behind in `session_state` (or `session_id` with a
//      server-side session backend).
//   2. Open POST /v1/rehydrate/stream on Veil with an `application/x-ndjson` body: the first
//      line is `{"session_state": ...}`; Veil opens the session and answers with its SSE
//      headers before the model is asked anything (a bad session fails here, for free).
//   3. POST `${MODEL_URL}/chat/completions` with `stream: true` and the safe messages; every
//      `data: {"choices":[{"delta":{"content":"..."}}]}` chunk is forwarded to Veil as one
//      `{"delta": "..."}` line as soon as it arrives, until `data: [DONE]`.
//   4. Veil answers with `data: {"index":…,"restored_text":…}` frames (a token split across
//      chunks is held back until it is whole) and a last `{"complete": true, ...}` frame; the
//      restored text is printed to stdout as it arrives, followed by one newline.
//
// Exit status: 0 on success; 1 on any error (Veil or model HTTP error, an error frame, a broken
// stream), with a message on stderr; 2 on a usage error. The model only ever sees tokens; the
// original values exist only on this machine and inside Veil's sealed session state.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

const VEIL_URL = (process.env.VEIL_URL || 'http://127.0.0.1:3000').replace(/\/+$/, '');
const MODEL_URL = (process.env.MODEL_URL || '').replace(/\/+$/, '');
const MODEL = process.env.MODEL || '';
const MODEL_API_KEY = process.env.MODEL_API_KEY || '';

class ExampleError extends Error {}

function usage(message) {
  process.stderr.write(`stream-chat: ${message}\nusage: MODEL_URL=http://127.0.0.1:8080/v1 MODEL=name [VEIL_URL=...] [MODEL_API_KEY=...] node examples/stream-chat.mjs "message"\n`);
  process.exit(2);
}

/** A short, value-free description of an HTTP error body (Veil's envelope or the model's). */
function describeError(status, text) {
  try {
    const body = JSON.parse(text);
    const error = body && typeof body === 'object' ? body.error ?? body : undefined;
    if (error && typeof error === 'object') {
      const code = error.code ? `${error.code}: ` : '';
      if (error.message) return `HTTP ${status} ${code}${error.message}`;
    }
    if (typeof error === 'string') return `HTTP ${status} ${error}`;
  } catch {
    // not JSON
  }
  return `HTTP ${status} ${text.slice(0, 300)}`;
}

/** Step 1: tokenize the chat messages. */
async function transform(messages) {
  let response;
  try {
    response = await fetch(`${VEIL_URL}/v1/transform`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input_messages: messages }),
    });
  } catch (error) {
    throw new ExampleError(`cannot reach Veil at ${VEIL_URL}: ${error.cause?.message ?? error.message}`);
  }
  const text = await response.text();
  if (response.status !== 200) throw new ExampleError(`Veil /v1/transform failed: ${describeError(response.status, text)}`);
  const body = JSON.parse(text);
  if (!Array.isArray(body.safe_messages)) throw new ExampleError('Veil /v1/transform answered without safe_messages');
  const session = body.session_state !== undefined ? { session_state: body.session_state } : { session_id: body.session_id };
  return { safeMessages: body.safe_messages, session };
}

/**
 * Parse a stream of Server-Sent Events: calls `onData` with the `data` of every event (multi-line
 * data joined by "\n"). Tolerates CRLF and chunk boundaries anywhere.
 */
function sseParser(onData) {
  const decoder = new TextDecoder();
  let buffer = '';
  let data = [];
  const line = (text) => {
    if (text === '') {
      if (data.length > 0) onData(data.join('\n'));
      data = [];
    } else if (text.startsWith('data:')) {
      data.push(text.slice(text.startsWith('data: ') ? 6 : 5));
    }
    // comments (":") and other fields (event, id, retry) are ignored
  };
  return {
    push(chunk) {
      buffer += decoder.decode(chunk, { stream: true });
      let newline = buffer.search(/\r\n|\n|\r/);
      while (newline !== -1) {
        const crlf = buffer[newline] === '\r' && buffer[newline + 1] === '\n';
        // A lone "\r" at the very end may be the first half of "\r\n": wait for more.
        if (buffer[newline] === '\r' && newline === buffer.length - 1) break;
        line(buffer.slice(0, newline));
        buffer = buffer.slice(newline + (crlf ? 2 : 1));
        newline = buffer.search(/\r\n|\n|\r/);
      }
    },
    end() {
      buffer += decoder.decode();
      if (buffer !== '') line(buffer);
      buffer = '';
      line('');
    },
  };
}

/**
 * Step 2: open the incremental rehydrate stream. Resolves once Veil accepted the session (200
 * and SSE headers) with `send(delta)`, `finish()` and `done` (settles after the complete frame).
 */
function openRehydrate(session, onText) {
  const url = new URL(`${VEIL_URL}/v1/rehydrate/stream`);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolveOpen, rejectOpen) => {
    let settleDone;
    const done = new Promise((resolve, reject) => {
      settleDone = { resolve, reject };
    });
    done.catch(() => {}); // observed by the caller once the stream is open
    const req = send(url, {
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/x-ndjson', accept: 'text/event-stream' },
    });
    let opened = false;
    const fail = (error) => {
      if (!opened) rejectOpen(error);
      else settleDone.reject(error);
    };
    req.on('error', (error) => fail(new ExampleError(`Veil /v1/rehydrate/stream: ${error.message}`)));
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          fail(new ExampleError(`Veil /v1/rehydrate/stream failed: ${describeError(res.statusCode, Buffer.concat(chunks).toString('utf8'))}`));
          req.destroy();
        });
        return;
      }
      let complete = false;
      const parser = sseParser((data) => {
        if (complete) return;
        let frame;
        try {
          frame = JSON.parse(data);
        } catch {
          fail(new ExampleError('Veil sent a frame that is not JSON'));
          return;
        }
        if (typeof frame.restored_text === 'string') onText(frame.restored_text);
        if (frame.complete === true) {
          complete = true;
          if (frame.error !== undefined) fail(new ExampleError(`Veil stream error: ${frame.error}`));
          else settleDone.resolve(frame);
        }
      });
      res.on('data', (chunk) => parser.push(chunk));
      res.on('end', () => {
        parser.end();
        if (!complete) fail(new ExampleError('Veil stream ended without a complete frame'));
      });
      res.on('error', (error) => fail(new ExampleError(`Veil stream: ${error.message}`)));
      opened = true;
      resolveOpen({
        async send(delta) {
          if (req.destroyed) return;
          if (!req.write(`${JSON.stringify({ delta })}\n`)) {
            await new Promise((resolve) => {
              req.once('drain', resolve);
              req.once('close', resolve);
            });
          }
        },
        finish() {
          if (!req.destroyed) req.end();
        },
        abort() {
          req.destroy();
        },
        done,
      });
    });
    // The parameters line: Veil opens the session on it and only then sends its headers.
    req.write(`${JSON.stringify(session)}\n`);
    req.flushHeaders();
  });
}

/** Step 3: stream the completion, handing every content delta to `onDelta` as it arrives. */
async function streamCompletion(messages, onDelta, signal) {
  const headers = { 'content-type': 'application/json', accept: 'text/event-stream' };
  if (MODEL_API_KEY) headers.authorization = `Bearer ${MODEL_API_KEY}`;
  let response;
  try {
    response = await fetch(`${MODEL_URL}/chat/completions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: MODEL, messages, stream: true }),
      signal,
    });
  } catch (error) {
    throw new ExampleError(`cannot reach the model at ${MODEL_URL}: ${error.cause?.message ?? error.message}`);
  }
  if (response.status !== 200) throw new ExampleError(`model request failed: ${describeError(response.status, await response.text())}`);
  const pending = [];
  let finished = false;
  let failure;
  const parser = sseParser((data) => {
    if (finished || failure) return;
    if (data.trim() === '[DONE]') {
      finished = true;
      return;
    }
    let chunk;
    try {
      chunk = JSON.parse(data);
    } catch {
      failure = new ExampleError('the model sent a chunk that is not JSON');
      return;
    }
    if (chunk.error) {
      failure = new ExampleError(`model stream error: ${chunk.error.message ?? JSON.stringify(chunk.error)}`);
      return;
    }
    const content = chunk.choices?.[0]?.delta?.content;
    if (typeof content === 'string' && content !== '') pending.push(content);
  });
  for await (const bytes of response.body) {
    parser.push(bytes);
    while (pending.length > 0) await onDelta(pending.shift());
    if (failure) throw failure;
    if (finished) break;
  }
  if (!finished) parser.end();
  while (pending.length > 0) await onDelta(pending.shift());
  if (failure) throw failure;
}

async function main() {
  const message = process.argv.slice(2).join(' ');
  if (message.trim() === '') usage('a user message is required');
  if (!MODEL_URL) usage('MODEL_URL is required (an OpenAI-compatible base URL, e.g. http://127.0.0.1:8080/v1)');
  if (!MODEL) usage('MODEL is required');

  const { safeMessages, session } = await transform([{ role: 'user', content: message }]);
  const rehydrate = await openRehydrate(session, (text) => process.stdout.write(text));
  const abort = new AbortController();
  // If Veil fails mid-stream, stop asking the model.
  rehydrate.done.catch(() => abort.abort());
  try {
    await streamCompletion(safeMessages, (delta) => rehydrate.send(delta), abort.signal);
  } catch (error) {
    // A Veil failure is the better message when it caused the abort.
    if (abort.signal.aborted) await rehydrate.done;
    rehydrate.abort();
    throw error;
  }
  rehydrate.finish();
  const last = await rehydrate.done;
  await new Promise((resolve) => process.stdout.write('\n', resolve));
  if (Array.isArray(last.tokens_unresolved) && last.tokens_unresolved.length > 0) {
    process.stderr.write(`stream-chat: ${last.tokens_unresolved.length} token(s) left unresolved\n`);
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`stream-chat: ${error instanceof ExampleError ? error.message : error.stack ?? String(error)}\n`);
    process.exit(1);
  },
);
