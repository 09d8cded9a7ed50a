// Helpers for the audit tests: a temporary directory, an event factory, a file system wrapper
// that injects faults into the real one, and reading an audit file back.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEvent } from './event.js';
import { nodeAuditFs, type AppendHandle, type AuditFileSystem } from './file-sink.js';

export const AUDIT_TEST_KEY = Buffer.from('a5'.repeat(32), 'hex');
export const OTHER_KEY = Buffer.from('5a'.repeat(32), 'hex');

export function tempDir(prefix = 'veil-audit-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function testEvent(index: number, fields: Partial<AuditEvent> = {}): AuditEvent {
  return {
    event_type: 'transform',
    timestamp: new Date().toISOString(),
    tenant_id: null,
    request_id: `req-${index}`,
    entity_count: index,
    ...fields,
  };
}

/** The file's lines (without the final empty one) and each line's parsed record. */
export function readAudit(path: string): { lines: string[]; records: { seq: number; ts: string; prev: string; event: AuditEvent; mac: string }[] } {
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return { lines, records: lines.map((line) => JSON.parse(line) as { seq: number; ts: string; prev: string; event: AuditEvent; mac: string }) };
}

/** Faults to inject: each is consulted before the real operation runs. */
export interface Faults {
  /** Throw from the next N syncs (fdatasync) after the data was written. */
  failSyncs: number;
  /** Throw from the next N writes after writing this many bytes of the data (a torn write). */
  failWrites: number;
  tornBytes: number;
  syncs: number;
  writes: number;
}

function ioError(code: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${code}: injected`);
  error.code = code;
  return error;
}

/** The real file system with injectable write and sync failures, counting calls. */
export function faultyFs(): { fs: AuditFileSystem; faults: Faults } {
  const faults: Faults = { failSyncs: 0, failWrites: 0, tornBytes: 0, syncs: 0, writes: 0 };
  const fs: AuditFileSystem = {
    ...nodeAuditFs,
    async openAppend(path) {
      const real = await nodeAuditFs.openAppend(path);
      const handle: AppendHandle = {
        async write(data) {
          faults.writes += 1;
          if (faults.failWrites > 0) {
            faults.failWrites -= 1;
            await real.write(data.subarray(0, Math.min(faults.tornBytes, data.length)));
            throw ioError('ENOSPC');
          }
          await real.write(data);
        },
        async sync() {
          faults.syncs += 1;
          if (faults.failSyncs > 0) {
            faults.failSyncs -= 1;
            throw ioError('EIO');
          }
          await real.sync();
        },
        identity: () => real.identity(),
        close: () => real.close(),
      };
      return handle;
    },
  };
  return { fs, faults };
}
