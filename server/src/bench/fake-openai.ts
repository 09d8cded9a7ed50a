// A local stand-in for an OpenAI-compatible upstream (the proxy's tests, e2e suites and the
// proxy benchmark): a real HTTP server on a loopback port that records every request it gets
// (so tests can prove no raw value reached it) and answers chat completions and embeddings.
// By default the assistant echoes the last user message (tokens included), so a proxied answer
// must come back as exactly the text the user sent; a streamed answer is cut into chunks of the
// sizes asked for (one character per chunk splits every token at every position). Kept with the
// benchmarks because `make bench-proxy` runs it from dist (Node built-ins only).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeToolCall {
  readonly id?: string;
  readonly name: string;
  /** The arguments JSON text, as the model writes it. */
  readonly arguments: string;
}

/** What the fake answers to one request. */
export interface FakeReply {
  /** The assistant's text; default: the last user message's text. */
  readonly content?: string | null;
  readonly toolCalls?: readonly FakeToolCall[];
  /** Streamed: sizes (UTF-16 units) of the successive content pieces, repeated; default [4]. */
  readonly chunkSizes?: readonly number[];
  /** An error status with this body (JSON) instead of an answer. */
  readonly status?: number;
  readonly errorBody?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** Streamed: this exact text as the whole response body (malformed streams). */
  readonly rawStream?: string;
  /** Wait this long before answering (timeouts). */
  readonly delayMs?: number;
  /** Answer only once this settles (a test acts while the upstream is answering, untimed). */
  readonly until?: Promise<unknown>;
  /** Streamed: wait this long between pieces. */
  readonly pieceDelayMs?: number;
  /** Streamed: end without `data: [DONE]`. */
  readonly omitDone?: boolean;
  /**
   * Streamed: after this many events, wait until `until` settles before sending the rest (a
   * test acts while the stream is open, e.g. revokes a value, without timing anything).
   */
  readonly holdAfter?: { readonly events: number; readonly until: Promise<unknown> };
}

export interface RecordedRequest {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: any;
  /** The raw body text, for scanning. */
  readonly text: string;
}

export interface FakeOpenAi {
  /** Base URL to configure as proxy.upstream_url (`http://127.0.0.1:<port>/v1`). */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** How the next requests are answered (until set again). */
  reply: (request: RecordedRequest) => FakeReply;
  close(): Promise<void>;
}

/** The text of the last user message (string content, or its text parts joined). */
export function lastUserText(body: any): string {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role !== 'user') continue;
    if (typeof message.content === 'string') return message.content;
    if (Array.isArray(message.content)) return message.content.map((part: any) => (typeof part?.text === 'string' ? part.text : '')).join('');
  }
  return '';
}

/** Cut `text` into pieces of the given sizes (cycled), never between surrogate halves. */
export function cutText(text: string, sizes: readonly number[]): string[] {
  const pieces: string[] = [];
  let cursor = 0;
  let turn = 0;
  while (cursor < text.length) {
    let end = Math.min(text.length, cursor + Math.max(1, sizes[turn % sizes.length] ?? 4));
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end += 1;
    pieces.push(text.slice(cursor, end));
    cursor = end;
    turn += 1;
  }
  return pieces;
}

const BASE = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'fake-model' };

function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  return `data: ${JSON.stringify({ ...BASE, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
}

/** The SSE events of a streamed answer, in order. */
export function streamEvents(content: string | null, toolCalls: readonly FakeToolCall[], sizes: readonly number[]): string[] {
  const events = [chunk({ role: 'assistant', content: '' })];
  if (content !== null) for (const piece of cutText(content, sizes)) events.push(chunk({ content: piece }));
  toolCalls.forEach((call, index) => {
    events.push(chunk({ tool_calls: [{ index, id: call.id ?? `call_${index}`, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of cutText(call.arguments, sizes)) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  events.push(chunk({}, toolCalls.length > 0 ? 'tool_calls' : 'stop'));
  return events;
}

function completion(content: string | null, toolCalls: readonly FakeToolCall[]): Record<string, unknown> {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'fake-model',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content,
          refusal: null,
          ...(toolCalls.length > 0
            ? { tool_calls: toolCalls.map((call, index) => ({ id: call.id ?? `call_${index}`, type: 'function', function: { name: call.name, arguments: call.arguments } })) }
            : {}),
        },
        logprobs: null,
        finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function answer(fake: FakeOpenAi, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const piece of request as AsyncIterable<Buffer>) chunks.push(piece);
  const text = Buffer.concat(chunks).toString('utf8');
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const recorded: RecordedRequest = { path: request.url ?? '', headers: request.headers, body, text };
  fake.requests.push(recorded);
  const reply = fake.reply(recorded);
  if (reply.delayMs !== undefined) await sleep(reply.delayMs);
  if (reply.until !== undefined) await reply.until.catch(() => undefined);
  if (reply.status !== undefined) {
    response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    response.end(JSON.stringify(reply.errorBody ?? { error: { message: 'fake failure', type: 'server_error' } }));
    return;
  }
  if (recorded.path.endsWith('/embeddings')) {
    const inputs: unknown[] = Array.isArray(body?.input) ? body.input : [body?.input];
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ object: 'list', data: inputs.map((_, index) => ({ object: 'embedding', index, embedding: [0.1, 0.2, 0.3] })), model: 'fake-embedding', usage: { prompt_tokens: 1, total_tokens: 1 } }));
    return;
  }
  const content = reply.content === undefined ? lastUserText(body) : reply.content;
  const toolCalls = reply.toolCalls ?? [];
  if (body?.stream !== true) {
    response.writeHead(200, { 'content-type': 'application/json', ...reply.headers });
    response.end(JSON.stringify(completion(content, toolCalls)));
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
  if (reply.rawStream !== undefined) {
    response.end(reply.rawStream);
    return;
  }
  const all = streamEvents(content, toolCalls, reply.chunkSizes ?? [4]);
  for (const [index, event] of all.entries()) {
    if (response.destroyed) return;
    if (reply.holdAfter !== undefined && index === reply.holdAfter.events) await reply.holdAfter.until.catch(() => undefined);
    response.write(event);
    if (reply.pieceDelayMs !== undefined) await sleep(reply.pieceDelayMs);
  }
  if (reply.omitDone !== true) response.write('data: [DONE]\n\n');
  response.end();
}

/** Start the fake on a free loopback port. */
export async function startFakeOpenAi(reply: (request: RecordedRequest) => FakeReply = () => ({})): Promise<FakeOpenAi> {
  const holder: { server?: Server } = {};
  const fake: FakeOpenAi = {
    url: '',
    requests: [],
    reply,
    close: () =>
      new Promise((resolve) => {
        holder.server?.closeAllConnections();
        holder.server?.close(() => resolve());
      }),
  };
  const server = createServer((request, response) => {
    answer(fake, request, response).catch(() => response.destroy());
  });
  holder.server = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  Object.assign(fake, { url: `http://127.0.0.1:${port}/v1` });
  return fake;
}
