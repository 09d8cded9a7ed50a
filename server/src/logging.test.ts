// Log lines cannot be forged by caller-supplied text (threat 18), and redaction covers the
// body and credential paths as a second guard behind "never log values".
import { describe, expect, it } from 'vitest';
import { createLogger } from './logging.js';
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
});
