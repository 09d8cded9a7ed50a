// Log lines cannot be forged by caller-supplied text (threat 18), and redaction covers the
// body and credential paths as a second guard behind "never log values".
import { describe, expect, it } from 'vitest';
import { createLogger, recordWriterOf } from './logging.js';
import { MemorySink } from '../test/support/harness.js';

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

  it('the direct writer is silent when the logger does not write info, and absent on loggers it did not make', () => {
    const sink = new MemorySink();
    recordWriterOf(createLogger({ level: 'silent', format: 'json', stream: sink }))!('veil.audit', { a: 1 }, 'audit');
    recordWriterOf(createLogger({ level: 'warn', format: 'json', stream: sink }))!('veil.audit', { a: 1 }, 'audit');
    recordWriterOf(createLogger({ level: 'error', format: 'text', stream: sink }))!('veil.audit', { a: 1 }, 'audit');
    expect(sink.lines).toHaveLength(0);
    expect(recordWriterOf({})).toBeUndefined();
  });
});
