// Log lines cannot be forged by caller-supplied text (threat 18), and redaction covers the
// body and credential paths as a second guard behind "never log values". Lines reach stdout in
// gathered writes, and none is kept back for long.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { tempDir } from './audit/testing.js';
import { bufferedDestination, createLogger, LOG_BUFFER_BYTES } from './logging.js';
import { MemorySink } from './testing/harness.js';

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

  it('gathers lines into few writes; a quiet logger\'s lines and warnings still go out', async () => {
    const lines = (path: string): string[] => readFileSync(path, 'utf8').split('\n').filter((line) => line !== '');
    const until = async (check: () => boolean): Promise<void> => {
      while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    // No periodic flush within the test: lines below the buffer size stay in memory.
    const path = join(tempDir('veil-log-'), 'out.log');
    const dest = bufferedDestination(path, 600_000);
    const logger = pino({ base: null }, dest);
    for (let index = 0; index < 40; index += 1) {
      logger.info({ index }, 'line');
      await new Promise((resolve) => setImmediate(resolve));
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(lines(path)).toHaveLength(0);
    // Past the buffer size they are written, in order, without waiting for a flush.
    const filler = 'x'.repeat(200);
    const more = Math.ceil(LOG_BUFFER_BYTES / 200);
    for (let index = 40; index < 40 + more; index += 1) logger.info({ index, filler }, 'line');
    await until(() => lines(path).length > 0);
    expect(lines(path).map((line) => (JSON.parse(line) as { index: number }).index)).toEqual(Array.from({ length: lines(path).length }, (_, index) => index));
    dest.destroy();

    // With the periodic flush, a single line goes out on its own.
    const quietPath = join(tempDir('veil-log-'), 'quiet.log');
    const quiet = bufferedDestination(quietPath, 20);
    pino({ base: null }, quiet).info('alone');
    await until(() => lines(quietPath).length === 1);
    expect(JSON.parse(lines(quietPath)[0]!)).toMatchObject({ msg: 'alone' });
    quiet.destroy();

    // The process logger writes a warning or an error at once, in either format.
    for (const format of ['json', 'text'] as const) {
      const urgentPath = join(tempDir('veil-log-'), 'urgent.log');
      const urgent = bufferedDestination(urgentPath, 600_000);
      // A file opens asynchronously (stdout, the real destination, is open from the start).
      await once(urgent, 'ready');
      const processLogger = createLogger({ level: 'info', format }, urgent);
      processLogger.info('kept back');
      processLogger.warn('said at once');
      await until(() => lines(urgentPath).length === 2);
      expect(readFileSync(urgentPath, 'utf8')).toMatch(/kept back[^]*said at once/);
      urgent.destroy();
    }
  });
});
