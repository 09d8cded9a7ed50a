// logCompleted (routes/common.ts): a route's debug-level completion event builds its fields (a
// trace-id fingerprint among them) only when the logger writes debug; at debug the record is
// the event name plus those fields, as before.
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { logCompleted } from './common.js';

function logger(level: string): { log: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { log: pino({ level }, stream).child({ request: 'r1' }), lines };
}

describe('logCompleted', () => {
  it('does not build the fields when debug is off', () => {
    for (const level of ['info', 'warn', 'silent']) {
      const { log, lines } = logger(level);
      const fields = vi.fn(() => ({ trace_id: 'abc' }));
      logCompleted(log, 'transform_completed', fields);
      expect(fields).not.toHaveBeenCalled();
      expect(lines).toEqual([]);
    }
  });

  it('writes the event and its fields at debug and trace', async () => {
    for (const level of ['debug', 'trace']) {
      const { log, lines } = logger(level);
      logCompleted(log, 'rehydrate_completed', () => ({ trace_id: 'abc', resolved: 2 }));
      await new Promise((resolve) => setImmediate(resolve));
      expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
        expect.objectContaining({ level: 20, event: 'rehydrate_completed', trace_id: 'abc', resolved: 2, msg: 'rehydrate_completed' }),
      ]);
    }
  });
});
