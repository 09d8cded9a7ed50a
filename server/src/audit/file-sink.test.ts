// The durable file sink: chained and fsynced records, group commit, resuming after a restart,
// torn tails, refusing to continue a damaged file, outage and recovery, a clock stepping back,
// and log-injection characters staying inside one JSON line.
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keyFingerprint, safeJson } from './chain.js';
import { AuditOpenError, AuditUnavailableError, FileAuditSink } from './file-sink.js';
import { AUDIT_TEST_KEY, faultyFs, OTHER_KEY, readAudit, tempDir, testEvent } from './testing.js';
import { verifyAuditFile } from './verify.js';

async function written(count: number, path = join(tempDir(), 'audit.log')): Promise<string> {
  const sink = await FileAuditSink.open({ path, key: AUDIT_TEST_KEY });
  await Promise.all(Array.from({ length: count }, (_, index) => sink.record(testEvent(index + 1))));
  await sink.close();
  return path;
}

describe('FileAuditSink', () => {
  it('starts a chain with an audit_started record and appends verifiable records', async () => {
    const path = await written(5);
    const { records } = readAudit(path);
    expect(records.map((record) => record.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(records[0]!.event).toMatchObject({ event_type: 'audit_started', resumed: false, key_fingerprint: keyFingerprint(AUDIT_TEST_KEY) });
    expect(records[0]!.prev).toBe('0'.repeat(64));
    for (let index = 1; index < records.length; index += 1) expect(records[index]!.prev).toBe(records[index - 1]!.mac);
    expect(await verifyAuditFile(path, AUDIT_TEST_KEY)).toMatchObject({ ok: true, records: 6, lastSeq: 6, checkpointSeq: 6 });
  });

  it('group-commits concurrent records: one write and one fsync serve many', async () => {
    const { fs, faults } = faultyFs();
    const path = join(tempDir(), 'audit.log');
    const sink = await FileAuditSink.open({ path, key: AUDIT_TEST_KEY, fs });
    const before = faults.syncs;
    await Promise.all(Array.from({ length: 300 }, (_, index) => sink.record(testEvent(index))));
    const syncs = faults.syncs - before;
    expect(syncs).toBeGreaterThanOrEqual(1);
    // The first record takes one fsync alone; the 299 queued behind it share the next ones.
    expect(syncs).toBeLessThan(10);
    await sink.close();
    expect(await verifyAuditFile(path, AUDIT_TEST_KEY)).toMatchObject({ ok: true, records: 301 });
  });

  it('checks that the file is still its own beside the write and fsync, not before them', async () => {
    // A stat that answers only once the batch's fsync has started: with the check run first, the
    // append would wait on it forever (the test's timeout); run beside them, it completes.
    const { fs } = faultyFs();
    const path = join(tempDir(), 'audit.log');
    let syncStarted: () => void = () => undefined;
    const gate: { open?: Promise<void> } = {};
    const gated: typeof fs = {
      ...fs,
      stat: async (target) => {
        if (gate.open !== undefined) await gate.open;
        return fs.stat(target);
      },
      openAppend: async (target) => {
        const handle = await fs.openAppend(target);
        return {
          ...handle,
          sync: () => {
            syncStarted();
            return handle.sync();
          },
        };
      },
    };
    const sink = await FileAuditSink.open({ path, key: AUDIT_TEST_KEY, fs: gated });
    gate.open = new Promise((resolve) => {
      syncStarted = resolve;
    });
    await sink.record(testEvent(1));
    expect(readAudit(path).records.at(-1)!.event.request_id).toBe('req-1');
    // The check still fails the batch when the file was replaced: nothing is acknowledged.
    rmSync(path);
    writeFileSync(path, '');
    await expect(sink.record(testEvent(2))).rejects.toBeInstanceOf(AuditUnavailableError);
    expect(sink.healthy()).toBe(false);
    await sink.close();
  });

  it('resolves a record only after its bytes are synced', async () => {
    const { fs, faults } = faultyFs();
    const path = join(tempDir(), 'audit.log');
    const sink = await FileAuditSink.open({ path, key: AUDIT_TEST_KEY, fs });
    const syncsBefore = faults.syncs;
    await sink.record(testEvent(1));
    expect(faults.syncs).toBe(syncsBefore + 1);
    expect(readAudit(path).records.at(-1)!.event.request_id).toBe('req-1');
    await sink.close();
  });

  it('writes the checkpoint at most once per interval while records keep coming, and the last one on close', async () => {
    const { fs } = faultyFs();
    const checkpoints: number[] = [];
    const counting = {
      ...fs,
      replaceAtomically: async (path: string, text: string) => {
        checkpoints.push((JSON.parse(text) as { seq: number }).seq);
        await fs.replaceAtomically(path, text);
      },
    };
    const path = join(tempDir(), 'audit.log');
    let now = 1_700_000_000_000;
    const sink = await FileAuditSink.open({ path, key: AUDIT_TEST_KEY, fs: counting, now: () => now, checkpointIntervalMs: 1000 });
    // audit_started (seq 1) took the first checkpoint; the next 20 records fall in its interval.
    for (let index = 0; index < 20; index += 1) await sink.record(testEvent(index));
    expect(checkpoints).toEqual([1]);
    now += 1000;
    await sink.record(testEvent(20));
    await new Promise((resolve) => setImmediate(resolve));
    expect(checkpoints).toEqual([1, 22]);
    await sink.record(testEvent(21));
    await sink.close();
    expect(checkpoints).toEqual([1, 22, 23]);
    expect(await verifyAuditFile(path, AUDIT_TEST_KEY)).toMatchObject({ ok: true, records: 23, checkpointSeq: 23 });
  });

  it('resumes the chain after a restart', async () => {
    const path = await written(3);
    const sink = await FileAuditSink.open({ path, key: AUDIT_TEST_KEY });
    await sink.record(testEvent(99));
    await sink.close();
    const { records } = readAudit(path);
    expect(records.map((record) => record.event.event_type)).toEqual(['audit_started', 'transform', 'transform', 'transform', 'audit_started', 'transform']);
    expect(records[4]!.event.resumed).toBe(true);
    expect(await verifyAuditFile(path, AUDIT_TEST_KEY)).toMatchObject({ ok: true, records: 6 });
  });

  it('truncates a torn last write on open and records how many bytes it removed', async () => {
    const path = await written(2);
    const { lines } = readAudit(path);
    appendFileSync(path, lines[1]!.slice(0, 40));
    expect((await verifyAuditFile(path, AUDIT_TEST_KEY)).problem?.kind).toBe('torn');
    const warnings: string[] = [];
    const sink = await FileAuditSink.open({ path, key: AUDIT_TEST_KEY, onError: (message) => warnings.push(message) });
    await sink.close();
    const after = readAudit(path);
    expect(after.records.at(-1)!.event).toMatchObject({ event_type: 'audit_started', resumed: true, recovered_bytes: 40 });
    expect(warnings.join('\n')).toMatch(/torn last record \(40 bytes\)/);
    expect(await verifyAuditFile(path, AUDIT_TEST_KEY)).toMatchObject({ ok: true, records: 4 });
  });

  it('handles a torn very first write (no complete record at all)', async () => {
    const path = join(tempDir(), 'audit.log');
    writeFileSync(path, '{"seq":1,"ts":"2024-');
    const sink = await FileAuditSink.open({ path, key: AUDIT_TEST_KEY });
    await sink.close();
    expect(readAudit(path).records[0]!.event).toMatchObject({ event_type: 'audit_started', recovered_bytes: 20, resumed: false });
    expect((await verifyAuditFile(path, AUDIT_TEST_KEY)).ok).toBe(true);
  });

  it('refuses to continue a file whose last record does not verify, or under another key', async () => {
    const path = await written(2);
    await expect(FileAuditSink.open({ path, key: OTHER_KEY })).rejects.toThrow(AuditOpenError);
    const text = readFileSync(path, 'utf8');
    writeFileSync(path, text.replace(/"request_id":"req-2"/, '"request_id":"req-X"'));
    await expect(FileAuditSink.open({ path, key: AUDIT_TEST_KEY })).rejects.toThrow(/last record does not verify/);
  });

  it('refuses to continue a file that lost records from its end (checkpoint ahead)', async () => {
    const path = await written(4);
    const { lines } = readAudit(path);
    writeFileSync(path, `${lines.slice(0, 3).join('\n')}\n`);
    await expect(FileAuditSink.open({ path, key: AUDIT_TEST_KEY })).rejects.toThrow(/checkpoint records seq 5/);
    rmSync(path);
    // A missing file with a checkpoint is the same loss.
    await expect(FileAuditSink.open({ path, key: AUDIT_TEST_KEY })).rejects.toThrow(/ends at seq 0/);
  });

  it('refuses a checkpoint that was modified', async () => {
    const path = await written(1);
    const checkpoint = `${path}.checkpoint`;
    writeFileSync(checkpoint, readFileSync(checkpoint, 'utf8').replace(/"seq":2/, '"seq":1'));
    await expect(FileAuditSink.open({ path, key: AUDIT_TEST_KEY })).rejects.toThrow(/checkpoint MAC mismatch/);
  });

  it('fails records when fsync fails, then recovers: partial bytes dropped, lost events counted', async () => {
    const { fs, faults } = faultyFs();
    const path = join(tempDir(), 'audit.log');
    let now = 1_700_000_000_000;
    const errors: string[] = [];
    const sink = await FileAuditSink.open({ path, key: AUDIT_TEST_KEY, fs, now: () => now, onError: (message) => errors.push(message) });
    await sink.record(testEvent(1));
    faults.failSyncs = 1;
    await expect(sink.record(testEvent(2))).rejects.toThrow(AuditUnavailableError);
    expect(sink.healthy()).toBe(false);
    expect(errors.join('\n')).toMatch(/write to .* failed \(EIO\)/);
    // The unsynced record's bytes are in the file for now; within the probe interval nothing is retried.
    expect(readAudit(path).records.at(-1)!.event.request_id).toBe('req-2');
    await expect(sink.record(testEvent(3))).rejects.toThrow(AuditUnavailableError);
    expect(await sink.probe()).toBe(false);
    now += 1500;
    expect(await sink.probe()).toBe(true);
    await sink.record(testEvent(4));
    await sink.close();
    const { records } = readAudit(path);
    expect(records.map((record) => record.event.request_id ?? record.event.event_type)).toEqual(['audit_started', 'req-1', 'audit_recovered', 'req-4']);
    expect(records[2]!.event).toMatchObject({ lost_events: 2 });
    expect(records[2]!.event.recovered_bytes).toBeGreaterThan(0);
    expect(await verifyAuditFile(path, AUDIT_TEST_KEY)).toMatchObject({ ok: true, records: 4 });
  });

  it('a torn write (disk full mid-append) is cut back on recovery', async () => {
    const { fs, faults } = faultyFs();
    const path = join(tempDir(), 'audit.log');
    let now = 1_700_000_000_000;
    const sink = await FileAuditSink.open({ path, key: AUDIT_TEST_KEY, fs, now: () => now });
    faults.failWrites = 1;
    faults.tornBytes = 17;
    await expect(sink.record(testEvent(1))).rejects.toThrow(AuditUnavailableError);
    now += 1000;
    await sink.record(testEvent(2));
    await sink.close();
    const { records } = readAudit(path);
    expect(records[1]!.event).toMatchObject({ event_type: 'audit_recovered', lost_events: 1, recovered_bytes: 17 });
    expect((await verifyAuditFile(path, AUDIT_TEST_KEY)).ok).toBe(true);
  });

  it('notices the file being removed under it and stays unhealthy (no silent writes to an unlinked file)', async () => {
    const directory = tempDir();
    const path = join(directory, 'audit.log');
    let now = 1_700_000_000_000;
    const sink = await FileAuditSink.open({ path, key: AUDIT_TEST_KEY, now: () => now });
    rmSync(directory, { recursive: true, force: true });
    await expect(sink.record(testEvent(1))).rejects.toThrow(AuditUnavailableError);
    expect(sink.healthy()).toBe(false);
    now += 5000;
    expect(await sink.probe()).toBe(false);
    await sink.close();
  });

  it('never lets chain time go backwards when the clock steps back', async () => {
    const path = join(tempDir(), 'audit.log');
    const times = [1_700_000_010_000, 1_700_000_020_000, 1_700_000_005_000, 1_700_000_006_000];
    let call = 0;
    const sink = await FileAuditSink.open({ path, key: AUDIT_TEST_KEY, now: () => times[Math.min(call++, times.length - 1)]! });
    await sink.record(testEvent(1));
    await sink.record(testEvent(2));
    await sink.close();
    const stamps = readAudit(path).records.map((record) => record.ts);
    expect([...stamps].sort()).toEqual(stamps);
    expect((await verifyAuditFile(path, AUDIT_TEST_KEY)).ok).toBe(true);
  });

  it('keeps CR/LF, ANSI escapes, C1 controls and line separators inside one escaped JSON line (threat 18)', async () => {
    const path = join(tempDir(), 'audit.log');
    const hostile = 'eve\r\n{"seq":999,"forged":true}\u001b[31mRED\u009b2J\u2028\u2029\u007f"}';
    const sink = await FileAuditSink.open({ path, key: AUDIT_TEST_KEY });
    await sink.record(testEvent(1, { identity: hostile, policy: hostile }));
    await sink.close();
    const raw = readFileSync(path, 'utf8');
    expect(raw.split('\n').filter((line) => line !== '')).toHaveLength(2);
    // eslint-disable-next-line no-control-regex
    expect(raw).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/);
    expect(raw).toContain('\\u001b[31m');
    expect(raw).toContain('\\u009b');
    expect(readAudit(path).records[1]!.event.identity).toBe(hostile);
    expect((await verifyAuditFile(path, AUDIT_TEST_KEY)).ok).toBe(true);
    expect(JSON.parse(safeJson({ value: hostile }))).toEqual({ value: hostile });
  });

  it('rejects records after close, and a key of the wrong size at open', async () => {
    const path = join(tempDir(), 'audit.log');
    const sink = await FileAuditSink.open({ path, key: AUDIT_TEST_KEY });
    await sink.close();
    await expect(sink.record(testEvent(1))).rejects.toThrow(AuditUnavailableError);
    expect(sink.healthy()).toBe(false);
    await expect(FileAuditSink.open({ path, key: Buffer.alloc(16) })).rejects.toThrow(/32 bytes/);
  });

  it('fails to open in a directory that does not exist (no trail, no start)', async () => {
    const path = join(tempDir(), 'missing', 'audit.log');
    await expect(FileAuditSink.open({ path, key: AUDIT_TEST_KEY })).rejects.toThrow(/ENOENT/);
  });
});
