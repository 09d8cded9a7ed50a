// An open incremental rehydrate stream against the real `veil serve` (issue 15 item 4): the
// revocations, the session deny list and the blob's expiry are checked again before every
// delta, not once at the start; and no stream stays open longer than limits.max_stream_seconds.
// The ndjson body is written line by line on a live connection while frames are read back, and
// the erasing calls go over other connections meanwhile.
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fresh, startVeil, type ServerProcess } from './support/server.js';

// The output guard holds back a tail of the output to see whole values; off here, each delta
// comes back as exactly one frame, which keeps the assertions simple.
const SECRET = { VEIL_SESSION_SECRET: '3e'.repeat(32), VEIL_OUTPUT_PROTECTION__ENABLED: 'false' };

/** One /v1/rehydrate/stream with an ndjson body we keep writing to, and its frames as they come. */
class LiveStream {
  readonly #request: ClientRequest;
  readonly #frames: Record<string, any>[] = [];
  readonly #waiters: (() => void)[] = [];
  #buffer = '';
  #ended = false;
  status = 0;

  private constructor(url: string) {
    this.#request = request(new URL('/v1/rehydrate/stream', url), { method: 'POST', agent: false, headers: { 'content-type': 'application/x-ndjson' } });
    this.#request.on('error', () => this.#finish());
  }

  static async open(url: string, params: Record<string, unknown>): Promise<LiveStream> {
    const stream = new LiveStream(url);
    const response = new Promise<IncomingMessage>((resolve) => stream.#request.once('response', resolve));
    stream.send(params);
    const incoming = await response;
    stream.status = incoming.statusCode ?? 0;
    incoming.on('data', (chunk: Buffer) => stream.#read(chunk.toString('utf8')));
    incoming.on('end', () => stream.#finish());
    incoming.on('error', () => stream.#finish());
    return stream;
  }

  send(line: Record<string, unknown>): void {
    this.#request.write(`${JSON.stringify(line)}\n`);
  }

  delta(text: string): void {
    this.send({ delta: text });
  }

  close(): void {
    this.#request.end();
  }

  /** The next frame; undefined when the stream ended without one. */
  async frame(): Promise<Record<string, any> | undefined> {
    while (this.#frames.length === 0 && !this.#ended) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    return this.#frames.shift();
  }

  get ended(): boolean {
    return this.#ended;
  }

  #read(text: string): void {
    this.#buffer += text;
    let at = this.#buffer.indexOf('\n\n');
    while (at !== -1) {
      const block = this.#buffer.slice(0, at);
      this.#buffer = this.#buffer.slice(at + 2);
      if (block.startsWith('data: ')) this.#frames.push(JSON.parse(block.slice(6)) as Record<string, any>);
      at = this.#buffer.indexOf('\n\n');
    }
    this.#wake();
  }

  #finish(): void {
    this.#ended = true;
    this.#wake();
  }

  #wake(): void {
    for (const waiter of this.#waiters.splice(0)) waiter();
  }
}

async function transform(server: ServerProcess, input: string): Promise<{ safe_text: string; session_state: string; token: string }> {
  const made = await fresh(server.url, 'POST', '/v1/transform', { input });
  expect(made.status).toBe(200);
  return { ...made.json, token: made.json.entities[0].token as string };
}

async function untilUnix(unixSeconds: number): Promise<void> {
  const wait = unixSeconds * 1000 + 150 - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

describe('an open ndjson rehydrate stream', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startVeil({ env: SECRET });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('restores [DELETED] for a value revoked on another connection after the stream started', async () => {
    const value = 'stream.revoked@example.org';
    const session = await transform(server, `mail ${value}`);
    const stream = await LiveStream.open(server.url, { session_state: session.session_state });
    expect(stream.status).toBe(200);
    stream.delta(`one ${session.token} .`);
    expect((await stream.frame())?.restored_text).toBe(`one ${value} .`);

    expect((await fresh(server.url, 'POST', '/v1/revoke', { entity_type: 'email', value })).status).toBe(200);
    stream.delta(`two ${session.token} .`);
    expect((await stream.frame())?.restored_text).toBe('two [DELETED] .');
    stream.close();
    const frames: Record<string, any>[] = [];
    for (let frame = await stream.frame(); frame !== undefined; frame = await stream.frame()) frames.push(frame);
    expect(frames.at(-1)).toMatchObject({ complete: true, tokens_resolved: 2 });
    expect(JSON.stringify(frames)).not.toContain(value);
  });

  it('restores [DELETED] for a phone number revoked mid-stream in another spelling, without its extension (erasure forms)', async () => {
    const written = '415-555-0142x45';
    const session = await transform(server, `call ${written}`);
    const stream = await LiveStream.open(server.url, { session_state: session.session_state });
    stream.delta(`one ${session.token} .`);
    expect((await stream.frame())?.restored_text).toBe(`one ${written} .`);

    expect((await fresh(server.url, 'POST', '/v1/revoke', { entity_type: 'phone', value: '+1 415 555 0142' })).status).toBe(200);
    stream.delta(`two ${session.token} .`);
    expect((await stream.frame())?.restored_text).toBe('two [DELETED] .');
    stream.close();
    for (let frame = await stream.frame(); frame !== undefined; frame = await stream.frame()) expect(JSON.stringify(frame)).not.toContain(written);
  });

  it('ends with the error frame once the session is invalidated (DELETE /v1/sessions) on another connection', async () => {
    const value = 'stream.invalidated@example.org';
    const session = await transform(server, `mail ${value}`);
    const stream = await LiveStream.open(server.url, { session_state: session.session_state });
    stream.delta(`one ${session.token} .`);
    expect((await stream.frame())?.restored_text).toBe(`one ${value} .`);

    const deleted = await fresh(server.url, 'DELETE', '/v1/sessions', { session_state: session.session_state });
    expect(deleted.json).toEqual({ invalidated: true });
    stream.delta(`two ${session.token} .`);
    const last = await stream.frame();
    expect(last).toMatchObject({ complete: true });
    expect(typeof last?.error).toBe('string');
    expect(JSON.stringify(last)).not.toContain(value);
    expect(await stream.frame()).toBeUndefined();
    expect(stream.ended).toBe(true);
    stream.close();
  });
});

describe('stream expiry and lifetime', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startVeil({ env: { ...SECRET, VEIL_SESSION__TTL_SECONDS: '5', VEIL_LIMITS__MAX_STREAM_SECONDS: '10' } });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('stops restoring once the blob expired while the stream was open', async () => {
    const value = 'stream.expired@example.org';
    const session = await transform(server, `mail ${value}`);
    const expiresAt = (await fresh(server.url, 'POST', '/v1/sessions/status', { session_state: session.session_state })).json.expires_at_unix as number;
    const stream = await LiveStream.open(server.url, { session_state: session.session_state });
    stream.delta(`one ${session.token} .`);
    expect((await stream.frame())?.restored_text).toBe(`one ${value} .`);
    await untilUnix(expiresAt);
    stream.delta(`two ${session.token} .`);
    const last = await stream.frame();
    expect(last).toMatchObject({ complete: true });
    expect(typeof last?.error).toBe('string');
    expect(JSON.stringify(last)).not.toContain(value);
    stream.close();
  }, 40_000);

  it('ends a stream left open past limits.max_stream_seconds with the error frame', async () => {
    const session = await transform(server, 'mail stream.lifetime@example.org');
    const stream = await LiveStream.open(server.url, { session_state: session.session_state });
    stream.delta('nothing to restore yet.');
    expect((await stream.frame())?.restored_text).toBe('nothing to restore yet.');
    // The client writes nothing more and never ends its body: the server ends the stream.
    const last = await stream.frame();
    expect(last).toMatchObject({ complete: true });
    expect(last?.error).toMatch(/limits\.max_stream_seconds/);
    expect(await stream.frame()).toBeUndefined();
    stream.close();
  }, 40_000);
});
