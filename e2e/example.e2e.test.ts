// examples/stream-chat.mjs end to end: the real `veil serve` process, a fake OpenAI-compatible
// model on loopback that streams its reply (the tokens it was given, cut into small SSE chunks
// that split tokens on purpose) over real HTTP, and the example run as a child process. The
// model never sees a value; the example prints the reply with the values restored.
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startVeil, settledLogs, type ServerProcess } from './support/server.js';

const EXAMPLE = fileURLToPath(new URL('../examples/stream-chat.mjs', import.meta.url));
const EMAIL = 'ada.example@example.com';
const PHONE = '+1 415 555 0188';
const MESSAGE = `Please write to ${EMAIL} or call ${PHONE} about the invoice.`;
const API_KEY = 'fake-model-key';
const TOKEN = /\{\{[^{}]+\}\}/g;

/** The fake model's reply around the tokens it found in the last user message. */
function reply(tokens: readonly string[]): string {
  return `Sure. I will email ${tokens[0] ?? ''} today,\nand if that fails I will call ${tokens[1] ?? ''}. Reply sent to ${tokens[0] ?? ''}.`;
}
const EXPECTED = reply([EMAIL, PHONE]);

interface ModelCall {
  authorization: string | undefined;
  body: string;
  chunks: string[];
}

/** Cut a text into pieces of 1 to 4 UTF-16 units: every token ends up split several times. */
function pieces(text: string): string[] {
  const out: string[] = [];
  let at = 0;
  let step = 0;
  while (at < text.length) {
    const size = 1 + (step % 4);
    out.push(text.slice(at, at + size));
    at += size;
    step += 1;
  }
  return out;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function handleModel(calls: ModelCall[], req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readBody(req);
  const call: ModelCall = { authorization: req.headers.authorization, body, chunks: [] };
  calls.push(call);
  const parsed = JSON.parse(body) as { model: string; stream?: boolean; messages: { role: string; content: string }[] };
  if (req.url !== '/v1/chat/completions' || parsed.stream !== true) {
    res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'expected a streaming chat completion' } }));
    return;
  }
  if (parsed.model === 'broken') {
    res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'model overloaded' } }));
    return;
  }
  const last = parsed.messages.filter((message) => message.role === 'user').at(-1);
  const tokens = [...(last?.content ?? '').matchAll(TOKEN)].map((match) => match[0]);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  const send = async (data: string): Promise<void> => {
    res.write(`data: ${data}\n\n`);
    // Let each chunk leave as its own write, as a real model's tokens do.
    await new Promise((resolve) => setTimeout(resolve, 1));
  };
  await send(JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant' } }] }));
  for (const piece of pieces(reply(tokens))) {
    call.chunks.push(piece);
    await send(JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] }));
  }
  await send(JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
  await send('[DONE]');
  res.end();
}

function runExample(env: Record<string, string>, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [EXAMPLE, ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

let veil: ServerProcess;
let model: Server;
let modelUrl: string;
const calls: ModelCall[] = [];

beforeAll(async () => {
  veil = await startVeil({ env: { VEIL_SESSION_SECRET: '5d'.repeat(32) } });
  model = createServer((req, res) => {
    handleModel(calls, req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
  modelUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await veil.stop();
  await new Promise((resolve) => model.close(resolve));
});

describe('examples/stream-chat.mjs (real Veil, fake streaming model)', () => {
  it('pipes a streamed completion through Veil and prints the restored reply', async () => {
    const before = calls.length;
    const run = await runExample({ VEIL_URL: veil.url, MODEL_URL: modelUrl, MODEL: 'fake-model', MODEL_API_KEY: API_KEY }, [MESSAGE]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${EXPECTED}\n`);

    expect(calls.length).toBe(before + 1);
    const call = calls.at(-1)!;
    expect(call.authorization).toBe(`Bearer ${API_KEY}`);
    const request = JSON.parse(call.body) as { model: string; messages: { role: string; content: string }[] };
    expect(request.model).toBe('fake-model');
    // The model received tokens only, never the values.
    expect(call.body).not.toContain(EMAIL);
    expect(call.body).not.toContain(PHONE);
    expect(call.body).not.toContain('555 0188');
    const tokens = request.messages.at(-1)!.content.match(TOKEN) ?? [];
    expect(tokens).toHaveLength(2);
    // The reply really was cut inside the tokens: no chunk holds a whole token.
    expect(call.chunks.length).toBeGreaterThan(40);
    for (const token of tokens) expect(call.chunks.some((chunk) => chunk.includes(token))).toBe(false);
    expect(await settledLogs(veil)).not.toContain(EMAIL);
    expect(await settledLogs(veil)).not.toContain(PHONE);
  });

  it('exits non-zero with a message when the model fails', async () => {
    const run = await runExample({ VEIL_URL: veil.url, MODEL_URL: modelUrl, MODEL: 'broken' }, [MESSAGE]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('model request failed: HTTP 503 model overloaded');
    expect(run.stderr).not.toContain(EMAIL);
  });

  it('exits non-zero with a message when Veil cannot be reached', async () => {
    // Nothing is sent to the model.
    const before = calls.length;
    const run = await runExample({ VEIL_URL: 'http://127.0.0.1:1', MODEL_URL: modelUrl, MODEL: 'fake-model' }, [MESSAGE]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('cannot reach Veil');
    expect(calls.length).toBe(before);
  });

  it('exits 2 without a message', async () => {
    const run = await runExample({ VEIL_URL: veil.url, MODEL_URL: modelUrl, MODEL: 'fake-model' }, []);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('usage:');
  });
});
