// Log lines cannot be forged by caller-supplied text (threat 18), and redaction covers the
// body and credential paths as a second guard behind "never log values".
import { describe, expect, it } from 'vitest';
import { buildEvent } from './audit/event.js';
import { LogAuditSink } from './audit/sink.js';
import pino from 'pino';
import { boundRecordWriterOf, createLogger, lazyChildLogger, LineBatch, recordWriterOf } from './logging.js';
import { buildTestApp, MemorySink } from '../test/support/harness.js';

describe('logger', () => {
  it('escapes CR, LF and ANSI escapes in text format', async () => {
    const sink = new MemorySink();
    const logger = createLogger({ level: 'info', format: 'text', stream: sink });
    logger.info({ field: 'a\r\nFAKE ERROR line\u001b[31m' }, 'msg\nINJECTED');
    await new Promise((resolve) => setImmediate(resolve));
    expect(sink.lines).toHaveLength(1);
    expect(sink.lines[0]).toContain('\\u000a');
    expect(sink.lines[0]).toContain('\\u001b');
    expect(sink.lines[0]).not.toMatch(/\nINJECTED/);
  });

  it('redacts bodies and credentials in JSON format', async () => {
    const sink = new MemorySink();
    const logger = createLogger({ level: 'info', format: 'json', stream: sink });
    logger.info({ req: { headers: { authorization: 'Bearer canary-token', 'x-api-key': 'canary-key' }, body: { input: 'canary-body' } }, value: 'canary-value' }, 'x');
    await new Promise((resolve) => setImmediate(resolve));
    expect(sink.text()).not.toMatch(/canary/);
  });

  // The direct record writer (the audit event on the `log` sink) must write what pino's child
  // logger would have written, in both formats, hostile strings and undefined fields (the audit
  // event's absent ones) included.
  const FIELDS = { audit: true, event_type: 'transform', request_id: 'r-1', identity: 'a\r\nFAKE\u001b[31m', tenant_id: null, entity_types: ['email', 'phone'], entity_count: 2, duration_ms: 1.25, replayed: false, quote: 'say "hi" \\ \u2028', absent: undefined };
  for (const format of ['json', 'text'] as const) {
    it(`writes a record directly exactly as pino's child logger does (${format})`, async () => {
      const viaPino = new MemorySink();
      createLogger({ level: 'info', format, stream: viaPino }).child({ name: 'veil.audit' }).info(FIELDS, 'audit');
      const direct = new MemorySink();
      const logger = createLogger({ level: 'info', format, stream: direct });
      // Reached through a child too (Fastify's app.log is a child of the logger it is given).
      const writer = recordWriterOf(logger.child({}));
      expect(writer).toBeDefined();
      writer!('veil.audit', FIELDS, 'audit');
      await new Promise((resolve) => setImmediate(resolve));
      const withoutTime = (line: string): string => (format === 'json' ? line.replace(/"time":\d+/, '"time":0') : line.replace(/^\S+/, 'T'));
      expect(direct.lines).toHaveLength(1);
      expect(withoutTime(direct.lines[0]!)).toBe(withoutTime(viaPino.lines[0]!));
      expect(direct.lines[0]).not.toMatch(/\r|\n./);
    });
  }

  // The audit line of the `log` sink: the bound writer (constant head formatted once, the event
  // written without a copy) gives the bytes pino's child logger gives for { audit: true, ...event }.
  const EVENT = buildEvent(
    { method: 'POST', url: '/v1/transform', requestId: 'r-2', status: 200, durationMs: 1.23456, identity: 'a\r\nFAKE "x"', tenant: 't\u2028', detectorMode: 'builtin', nowMs: 1_700_000_000_000 },
    { session_id: 'sid-1', trace_id: 'trace-1', policy: 'default', entity_types: new Set(['phone', 'email']), entity_count: 2, entities_tokenized: 2 },
  );
  for (const format of ['json', 'text'] as const) {
    it(`the bound writer and the log audit sink write what pino's child logger writes (${format})`, async () => {
      const viaPino = new MemorySink();
      createLogger({ level: 'info', format, stream: viaPino }).child({ name: 'veil.audit' }).info({ audit: true, ...EVENT }, 'audit');
      const bound = new MemorySink();
      const writer = boundRecordWriterOf(createLogger({ level: 'info', format, stream: bound }).child({}), 'veil.audit', 'audit', { audit: true });
      expect(writer).toBeDefined();
      writer!(EVENT);
      const viaSink = new MemorySink();
      await new LogAuditSink(createLogger({ level: 'info', format, stream: viaSink })).record(EVENT);
      await new Promise((resolve) => setImmediate(resolve));
      const withoutTime = (line: string): string => (format === 'json' ? line.replace(/"time":\d+/, '"time":0') : line.replace(/^\S+/, 'T'));
      expect(viaPino.lines).toHaveLength(1);
      expect(bound.lines.map(withoutTime)).toEqual(viaPino.lines.map(withoutTime));
      expect(viaSink.lines.map(withoutTime)).toEqual(viaPino.lines.map(withoutTime));
      expect(boundRecordWriterOf({}, 'veil.audit', 'audit')).toBeUndefined();
    });
  }

  it('the direct writer is silent when the logger does not write info, and absent on loggers it did not make', () => {
    const sink = new MemorySink();
    recordWriterOf(createLogger({ level: 'silent', format: 'json', stream: sink }))!('veil.audit', { a: 1 }, 'audit');
    recordWriterOf(createLogger({ level: 'warn', format: 'json', stream: sink }))!('veil.audit', { a: 1 }, 'audit');
    recordWriterOf(createLogger({ level: 'error', format: 'text', stream: sink }))!('veil.audit', { a: 1 }, 'audit');
    expect(sink.lines).toHaveLength(0);
    expect(recordWriterOf({})).toBeUndefined();
  });
});

// The batching destination (session 10): lines that arrive together share one write, nothing is
// reordered, changed or lost, and what is held when the process exits is written.
describe('log line batching', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /** A destination that keeps each write it gets. */
  function writes(): { chunks: string[]; synced: number; write(text: string): void; flushSync(): void } {
    return {
      chunks: [],
      synced: 0,
      write(text: string) {
        this.chunks.push(text);
      },
      flushSync() {
        this.synced += 1;
      },
    };
  }

  it('holds the lines of one batch and writes them together, in order, after the delay', async () => {
    const out = writes();
    const batch = new LineBatch(out, 5);
    for (let index = 0; index < 50; index += 1) batch.write(`line ${index}\n`);
    expect(out.chunks).toEqual([]);
    await sleep(60);
    expect(out.chunks).toEqual([Array.from({ length: 50 }, (_, index) => `line ${index}\n`).join('')]);
    // The next batch re-arms the same timer.
    batch.write('later\n');
    await sleep(60);
    expect(out.chunks).toEqual([out.chunks[0], 'later\n']);
  });

  it('writes a batch that reaches its size at once, and everything held on flushSync', () => {
    const out = writes();
    const batch = new LineBatch(out, 60_000, 100);
    batch.write('a'.repeat(60));
    expect(out.chunks).toEqual([]);
    batch.write('b'.repeat(40));
    expect(out.chunks).toEqual(['a'.repeat(60) + 'b'.repeat(40)]);
    batch.write('tail\n');
    batch.flushSync();
    expect(out.chunks.at(-1)).toBe('tail\n');
    expect(out.synced).toBe(1);
  });

  it('a logger writes a batch once it holds 8 K characters, without waiting for the timer', () => {
    // Large writes to a stdout pipe stalled the server under load (BENCHMARKS.md, session 10).
    const chunks: string[] = [];
    const logger = createLogger({ level: 'info', format: 'json', stream: { write: (text: string) => chunks.push(text) } as unknown as NodeJS.WritableStream, batchMs: 60_000 });
    for (let index = 0; index < 40; index += 1) logger.info({ index, padding: 'p'.repeat(450) }, 'line');
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    for (const chunk of chunks) expect(chunk.length).toBeLessThan(8 * 1024 + 600);
  });

  for (const format of ['json', 'text'] as const) {
    it(`a batching logger writes the same lines as an unbatched one (${format})`, async () => {
      const plain = new MemorySink();
      const batched = new MemorySink();
      let chunks = 0;
      batched.on('pipe', () => undefined);
      const write = batched.write.bind(batched);
      batched.write = ((chunk: unknown, ...rest: never[]) => {
        chunks += 1;
        return write(chunk, ...rest);
      }) as typeof batched.write;
      const loggers = [createLogger({ level: 'info', format, stream: plain }), createLogger({ level: 'info', format, stream: batched, batchMs: 5 })];
      for (const logger of loggers) {
        for (let index = 0; index < 20; index += 1) logger.child({ name: 'x' }).info({ index, text: 'a "b"\nc' }, `message ${index}`);
        recordWriterOf(logger)!('veil.audit', { audit: true, event_type: 'transform' }, 'audit');
      }
      await sleep(60);
      const withoutTime = (line: string): string => (format === 'json' ? line.replace(/"time":\d+/, '"time":0') : line.replace(/^\S+/, 'T'));
      expect(batched.lines.map(withoutTime)).toEqual(plain.lines.map(withoutTime));
      expect(batched.lines).toHaveLength(21);
      expect(chunks).toBe(1);
    });
  }

});

// Fastify's per-request child logger, made on the request's first log call (session 17, issue 20).
describe('lazyChildLogger', () => {
  const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  for (const format of ['json', 'text'] as const) {
    it(`writes what pino's child writes, at every level and through its own children (${format})`, async () => {
      const lines = async (make: (logger: ReturnType<typeof createLogger>) => ReturnType<typeof lazyChildLogger>): Promise<string[]> => {
        const sink = new MemorySink();
        const logger = createLogger({ level: 'trace', format, stream: sink });
        const log = make(logger);
        log.info({ event: 'e', n: 1 }, 'first');
        log.warn('plain %s', 'formatted');
        log.error({ err: new Error('boom') }, 'failed');
        log.debug({ quote: 'a "b" \n' }, 'debug');
        log.trace('trace');
        log.fatal({ x: null }, 'fatal');
        log.child({ name: 'sub' }).info({ k: 'v' }, 'nested');
        await settle();
        return sink.lines.map((line) => line.replace(/"time":\d+|^\S+Z/, 'T').replace(/"stack":"[^"]*"|stack=\S+/g, 'S'));
      };
      const bindings = { reqId: 'b9136e44-5410-4aa2-a78d-dcf9a3b21178' };
      const lazy = await lines((logger) => lazyChildLogger(logger, bindings, {}));
      expect(lazy).toHaveLength(7);
      expect(lazy).toEqual(await lines((logger) => logger.child(bindings)));
    });
  }

  it('makes the child once, on the first call, and reads the level without making it', () => {
    const parent = pino({ level: 'info' }, new MemorySink());
    let made = 0;
    const child = parent.child.bind(parent);
    parent.child = ((...args: Parameters<typeof parent.child>) => {
      made++;
      return child(...args);
    }) as typeof parent.child;
    const log = lazyChildLogger(parent, { reqId: 'r' }, {});
    expect(log.level).toBe('info');
    parent.level = 'warn';
    expect(log.level).toBe('warn');
    expect(made).toBe(0);
    log.debug('dropped');
    log.warn('kept');
    expect(made).toBe(1);
    log.level = 'debug';
    expect([log.level, parent.level]).toEqual(['debug', 'warn']);
    expect(made).toBe(1);
  });

  it("gives a route with its own level or serializers pino's child at once", () => {
    const parent = pino({ level: 'info' }, new MemorySink());
    const log = lazyChildLogger(parent, { reqId: 'r' }, { level: 'error' });
    expect(log.level).toBe('error');
    expect(Object.getPrototypeOf(log)).toBe(parent);
  });

  it("puts the request's id in the lines a request writes (a failed request's error line)", async () => {
    const t = await buildTestApp({ logLevel: 'info' });
    try {
      const response = await t.app.inject({ method: 'POST', url: '/v1/transform', headers: { 'content-type': 'application/json' }, payload: '{"input": 5}' });
      expect(response.statusCode).toBe(400);
      await settle();
      const records = t.logs.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      const failed = records.find((record) => record.level === 50 || record.level === 40 || record.error_code !== undefined);
      expect(failed?.reqId).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await t.close();
    }
  });
});
