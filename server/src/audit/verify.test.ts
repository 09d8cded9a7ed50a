// threats.md 17: the verifier catches every mutation of a real audit file written by the real
// sink (bit flip, deleted, inserted, reordered and duplicated records, a swapped key, time going
// backwards, truncation against the checkpoint, a torn last write), and names the first broken
// record. The CLI wraps it with exit codes.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditCommand } from './cli.js';
import { sealRecord, type ChainRecord } from './chain.js';
import { FileAuditSink } from './file-sink.js';
import { AUDIT_TEST_KEY, OTHER_KEY, readAudit, tempDir, testEvent } from './testing.js';
import { describeResult, verifyAuditFile } from './verify.js';

/** 1 audit_started record + 11 events = 12 records. */
const RECORDS = 12;
let original: string;
let directory: string;

beforeAll(async () => {
  directory = tempDir();
  original = join(directory, 'original.log');
  const sink = await FileAuditSink.open({ path: original, key: AUDIT_TEST_KEY });
  // Sequential and concurrent records, so the file holds single and group-committed writes.
  for (let index = 1; index <= 5; index += 1) await sink.record(testEvent(index));
  await Promise.all(Array.from({ length: 6 }, (_, index) => sink.record(testEvent(100 + index))));
  await sink.close();
});

let copies = 0;
/** A copy of the original (and its checkpoint) with its lines changed by `mutate`. */
function mutated(mutate: (lines: string[]) => string[] | string): string {
  copies += 1;
  const path = join(directory, `copy-${copies}.log`);
  copyFileSync(`${original}.checkpoint`, `${path}.checkpoint`);
  const result = mutate(readAudit(original).lines);
  writeFileSync(path, typeof result === 'string' ? result : `${result.join('\n')}\n`);
  return path;
}

/** Re-seal records with a key from `from` (0-based) on, keeping the chain consistent. */
function reseal(lines: string[], from: number, change: (record: ChainRecord, index: number) => ChainRecord, key = AUDIT_TEST_KEY): string[] {
  const out = lines.slice(0, from);
  let prev = from === 0 ? '0'.repeat(64) : (JSON.parse(lines[from - 1]!) as { mac: string }).mac;
  for (let index = from; index < lines.length; index += 1) {
    const { mac: _mac, ...record } = JSON.parse(lines[index]!) as ChainRecord & { mac: string };
    const sealed = sealRecord(key, change({ ...record, prev }, index));
    out.push(sealed.line);
    prev = sealed.mac;
  }
  return out;
}

describe('verifyAuditFile', () => {
  it('accepts the file the sink wrote', async () => {
    const result = await verifyAuditFile(original, AUDIT_TEST_KEY);
    expect(result).toEqual({ ok: true, records: RECORDS, lastSeq: RECORDS, checkpointSeq: RECORDS });
    expect(describeResult(original, result)).toMatch(/OK, 12 record\(s\), last seq 12, checkpoint at seq 12/);
  });

  it('catches a single bit flip anywhere in a record', async () => {
    const lines = readAudit(original).lines;
    // Flip one bit in every byte position class: seq digits, timestamp, event body, mac.
    for (const offset of [8, 20, 120, lines[4]!.length - 5]) {
      const path = mutated((current) => {
        const bytes = Buffer.from(current[4]!, 'utf8');
        bytes[offset] = bytes[offset]! ^ 0x01;
        current[4] = bytes.toString('utf8');
        return current;
      });
      const result = await verifyAuditFile(path, AUDIT_TEST_KEY);
      expect(result.ok).toBe(false);
      expect(result.problem).toMatchObject({ line: 5, kind: 'record' });
      expect(result.records).toBe(4);
    }
  });

  it('catches a deleted record', async () => {
    const path = mutated((lines) => lines.filter((_, index) => index !== 6));
    const result = await verifyAuditFile(path, AUDIT_TEST_KEY);
    expect(result.problem).toMatchObject({ line: 7, seq: 8, kind: 'chain' });
    expect(result.problem?.reason).toMatch(/seq 8 where 7 was expected: 1 record\(s\) missing/);
  });

  it('catches an inserted record (forged without the key, or copied from elsewhere)', async () => {
    const forged = sealRecord(OTHER_KEY, { seq: 5, ts: new Date().toISOString(), prev: 'f'.repeat(64), event: testEvent(666) }).line;
    const path = mutated((lines) => [...lines.slice(0, 4), forged, ...lines.slice(4)]);
    expect((await verifyAuditFile(path, AUDIT_TEST_KEY)).problem).toMatchObject({ line: 5, seq: 5, kind: 'record' });

    // A genuine record of the same chain replayed further down.
    const replayed = mutated((lines) => [...lines.slice(0, 8), lines[2]!, ...lines.slice(8)]);
    const result = await verifyAuditFile(replayed, AUDIT_TEST_KEY);
    expect(result.problem).toMatchObject({ line: 9, seq: 3, kind: 'chain' });
    expect(result.problem?.reason).toMatch(/reordered/);
  });

  it('catches reordered records', async () => {
    const path = mutated((lines) => {
      [lines[5], lines[6]] = [lines[6]!, lines[5]!];
      return lines;
    });
    expect((await verifyAuditFile(path, AUDIT_TEST_KEY)).problem).toMatchObject({ line: 6, seq: 7, kind: 'chain' });
  });

  it('catches a duplicated sequence number', async () => {
    const path = mutated((lines) => [...lines.slice(0, 6), lines[5]!, ...lines.slice(6)]);
    const result = await verifyAuditFile(path, AUDIT_TEST_KEY);
    expect(result.problem).toMatchObject({ line: 7, seq: 6, kind: 'chain' });
    expect(result.problem?.reason).toBe('duplicate seq 6');
  });

  it('catches a spliced chain even when every record carries a valid MAC (key holder edits)', async () => {
    // Records re-sealed with the right key but one prev left pointing at the old chain.
    const path = mutated((lines) => {
      const changed = reseal(lines, 7, (record) => ({ ...record, event: { ...record.event, entity_count: 0 } }));
      const { mac: _mac, ...record } = JSON.parse(changed[9]!) as ChainRecord & { mac: string };
      changed[9] = sealRecord(AUDIT_TEST_KEY, { ...record, prev: (JSON.parse(lines[8]!) as { mac: string }).mac }).line;
      return changed;
    });
    const result = await verifyAuditFile(path, AUDIT_TEST_KEY, { checkpoint: false });
    expect(result.problem).toMatchObject({ line: 10, seq: 10, kind: 'chain' });
    expect(result.problem?.reason).toMatch(/prev does not match/);
  });

  it('catches a swapped key and says the file was written with another key', async () => {
    const result = await verifyAuditFile(original, OTHER_KEY, { checkpoint: false });
    expect(result.problem).toMatchObject({ line: 1, seq: 1, kind: 'record' });
    expect(result.problem?.reason).toMatch(/written with another key/);
    // With the checkpoint, the wrong key already fails there.
    expect((await verifyAuditFile(original, OTHER_KEY)).problem).toMatchObject({ kind: 'checkpoint' });
  });

  it('catches time going backwards, even in records re-sealed with the right key', async () => {
    const path = mutated((lines) =>
      reseal(lines, 8, (record, index) => (index === 8 ? { ...record, ts: '2001-01-01T00:00:00.000Z' } : record)),
    );
    const result = await verifyAuditFile(path, AUDIT_TEST_KEY, { checkpoint: false });
    expect(result.problem).toMatchObject({ line: 9, seq: 9, kind: 'chain' });
    expect(result.problem?.reason).toMatch(/time goes backwards \(2001-01-01T00:00:00.000Z after/);
    // Without the key the same edit is a MAC failure.
    const unsealed = mutated((lines) => {
      lines[8] = lines[8]!.replace(/"ts":"[^"]+"/, '"ts":"2001-01-01T00:00:00.000Z"');
      return lines;
    });
    expect((await verifyAuditFile(unsealed, AUDIT_TEST_KEY)).problem).toMatchObject({ line: 9, kind: 'record' });
  });

  it('catches truncation against the checkpoint (and only the checkpoint can)', async () => {
    const path = mutated((lines) => lines.slice(0, RECORDS - 3));
    const result = await verifyAuditFile(path, AUDIT_TEST_KEY);
    expect(result.problem).toMatchObject({ kind: 'truncated', seq: RECORDS - 3 });
    expect(result.problem?.reason).toMatch(/ends at seq 9 but the checkpoint records seq 12/);
    expect((await verifyAuditFile(path, AUDIT_TEST_KEY, { checkpoint: false })).ok).toBe(true);
  });

  it('catches a rewritten tail that still chains (checkpoint mac differs)', async () => {
    const path = mutated((lines) => reseal(lines, 10, (record) => ({ ...record, event: { ...record.event, entity_count: 0 } })));
    expect((await verifyAuditFile(path, AUDIT_TEST_KEY, { checkpoint: false })).ok).toBe(true);
    expect((await verifyAuditFile(path, AUDIT_TEST_KEY)).problem).toMatchObject({ kind: 'checkpoint', seq: RECORDS });
  });

  it('catches a forged or missing checkpoint', async () => {
    const path = mutated((lines) => lines);
    writeFileSync(`${path}.checkpoint`, readFileSync(`${path}.checkpoint`, 'utf8').replace('"seq":12', '"seq":9'));
    expect((await verifyAuditFile(path, AUDIT_TEST_KEY)).problem?.reason).toMatch(/checkpoint MAC mismatch/);
    expect((await verifyAuditFile(path, AUDIT_TEST_KEY, { checkpoint: join(directory, 'none') })).problem?.reason).toMatch(/not found/);
  });

  it('reports a torn last write as such', async () => {
    const path = mutated((lines) => `${lines.join('\n')}\n${lines[3]!.slice(0, 50)}`);
    const result = await verifyAuditFile(path, AUDIT_TEST_KEY);
    expect(result.problem).toMatchObject({ kind: 'torn', line: RECORDS + 1 });
    expect(result.problem?.reason).toMatch(/torn last record: 50 bytes without a newline/);
  });

  it('catches an empty line, CRLF conversion and an emptied file', async () => {
    expect((await verifyAuditFile(mutated((lines) => [...lines.slice(0, 2), '', ...lines.slice(2)]), AUDIT_TEST_KEY)).problem).toMatchObject({ line: 3 });
    expect((await verifyAuditFile(mutated((lines) => lines.join('\r\n') + '\r\n'), AUDIT_TEST_KEY)).problem).toMatchObject({ line: 1, kind: 'record' });
    expect((await verifyAuditFile(mutated(() => ''), AUDIT_TEST_KEY)).problem).toMatchObject({ kind: 'truncated' });
    expect((await verifyAuditFile(mutated(() => ''), AUDIT_TEST_KEY, { checkpoint: false })).problem).toMatchObject({ kind: 'empty' });
  });
});

describe('veil audit verify', () => {
  function io(env: Record<string, string> = {}) {
    const out: string[] = [];
    const err: string[] = [];
    return { env, out: (text: string) => out.push(text), err: (text: string) => err.push(text), stdout: out, stderr: err };
  }

  it('exits 0 on a good file with the key from the environment', async () => {
    const streams = io({ VEIL_AUDIT__HMAC_KEY: AUDIT_TEST_KEY.toString('hex') });
    expect(await auditCommand(['verify', original], streams)).toBe(0);
    expect(streams.stdout.join('')).toMatch(/OK, 12 record/);
  });

  it('exits 1 and names the first broken record', async () => {
    const path = mutated((lines) => lines.filter((_, index) => index !== 3));
    const streams = io();
    expect(await auditCommand(['verify', path, '--key', AUDIT_TEST_KEY.toString('base64')], streams)).toBe(1);
    expect(streams.stderr.join('')).toMatch(/FAILED at line 4 \(seq 5\): seq 5 where 4 was expected/);
  });

  it('reads --key-file, skips the checkpoint on request, and never echoes a bad key', async () => {
    const keyFile = join(directory, 'key');
    writeFileSync(keyFile, `${AUDIT_TEST_KEY.toString('hex')}\n`);
    const truncated = mutated((lines) => lines.slice(0, 5));
    expect(await auditCommand(['verify', truncated, '--key-file', keyFile], io())).toBe(1);
    expect(await auditCommand(['verify', truncated, '--key-file', keyFile, '--no-checkpoint'], io())).toBe(0);
    const streams = io({ VEIL_AUDIT__HMAC_KEY: 'hunter2-not-a-key' });
    expect(await auditCommand(['verify', original], streams)).toBe(2);
    expect(streams.stderr.join('')).not.toContain('hunter2');
    expect(await auditCommand(['verify'], io())).toBe(2);
    expect(await auditCommand(['check', original], io())).toBe(2);
    expect(await auditCommand(['verify', join(directory, 'absent.log'), '--key-file', keyFile, '--no-checkpoint'], io())).toBe(1);
  });
});
