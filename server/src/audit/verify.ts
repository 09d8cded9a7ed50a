// `veil audit verify`: check an audit file's HMAC chain record by record and name the first
// broken one (line, seq, reason). Streams the file, so its size does not matter. Checks, in
// order, per line: the MAC over the exact bytes, seq = previous + 1 (reordered, duplicated,
// missing records), prev = previous mac (spliced chains), time never going backwards; at the
// end, a torn last write (bytes without a newline) and the checkpoint (records removed from
// the end, or the file rewritten after the checkpoint was taken).
import { createReadStream } from 'node:fs';
import { CHECKPOINT_SUFFIX, GENESIS_PREV, keyFingerprint, openCheckpoint, openRecord, type Checkpoint } from './chain.js';
import { nodeAuditFs } from './file-sink.js';

export type ProblemKind = 'record' | 'chain' | 'torn' | 'truncated' | 'checkpoint' | 'empty';

export interface VerifyProblem {
  readonly kind: ProblemKind;
  /** 1-based line of the broken record (0 when the problem is not one line's). */
  readonly line: number;
  readonly seq?: number;
  readonly reason: string;
}

export interface VerifyResult {
  readonly ok: boolean;
  /** Records that verified before the first problem. */
  readonly records: number;
  readonly lastSeq: number;
  readonly checkpointSeq?: number;
  readonly problem?: VerifyProblem;
}

export interface VerifyOptions {
  /** Checkpoint path; default `<file>.checkpoint`. False skips the truncation check. */
  readonly checkpoint?: string | false;
}

/** Longest line accepted; a record is a few KiB, so more means a damaged file. */
const MAX_LINE_BYTES = 1024 * 1024;

/** Lines of a file as strings, with whatever follows the last newline reported separately. */
async function* linesOf(path: string): AsyncGenerator<{ line: string } | { tail: Buffer } | { tooLong: true }> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    let start = 0;
    let newline = chunk.indexOf(0x0a, start);
    while (newline !== -1) {
      pending.push(chunk.subarray(start, newline));
      yield { line: Buffer.concat(pending).toString('utf8') };
      pending = [];
      pendingBytes = 0;
      start = newline + 1;
      newline = chunk.indexOf(0x0a, start);
    }
    if (start < chunk.length) {
      pending.push(chunk.subarray(start));
      pendingBytes += chunk.length - start;
      if (pendingBytes > MAX_LINE_BYTES) {
        yield { tooLong: true };
        return;
      }
    }
  }
  if (pendingBytes > 0) yield { tail: Buffer.concat(pending) };
}

/** Name a key mismatch when the failing record is a sink start that recorded its key's fingerprint. */
function keyHint(line: string, key: Buffer): string | undefined {
  try {
    const parsed = JSON.parse(line) as { event?: { event_type?: unknown; key_fingerprint?: unknown } };
    const recorded = parsed.event?.key_fingerprint;
    const given = keyFingerprint(key);
    if (typeof recorded === 'string' && recorded !== given) {
      return `MAC mismatch: the file was written with another key (key fingerprint ${recorded.slice(0, 16)}, given ${given})`;
    }
  } catch {
    // Not parseable: the generic reason stands.
  }
  return undefined;
}

export async function verifyAuditFile(path: string, key: Buffer, options: VerifyOptions = {}): Promise<VerifyResult> {
  let checkpoint: Checkpoint | undefined;
  const checkpointPath = options.checkpoint === undefined ? `${path}${CHECKPOINT_SUFFIX}` : options.checkpoint;
  if (checkpointPath !== false) {
    const text = await nodeAuditFs.readText(checkpointPath);
    if (text === undefined) {
      return { ok: false, records: 0, lastSeq: 0, problem: { kind: 'checkpoint', line: 0, reason: `checkpoint ${checkpointPath} not found (use --no-checkpoint to skip the truncation check)` } };
    }
    const opened = openCheckpoint(key, text);
    if (!opened.ok) return { ok: false, records: 0, lastSeq: 0, problem: { kind: 'checkpoint', line: 0, reason: opened.reason } };
    checkpoint = opened.checkpoint;
  }
  const withCheckpoint = checkpoint !== undefined ? { checkpointSeq: checkpoint.seq } : {};

  let lineNumber = 0;
  let records = 0;
  let lastSeq = 0;
  let lastMac = GENESIS_PREV;
  let lastTs = '';
  let macAtCheckpoint: string | undefined;
  const fail = (problem: VerifyProblem): VerifyResult => ({ ok: false, records, lastSeq, ...withCheckpoint, problem });

  for await (const item of linesOf(path)) {
    if ('tooLong' in item) return fail({ kind: 'record', line: lineNumber + 1, reason: `line longer than ${MAX_LINE_BYTES} bytes` });
    if ('tail' in item) {
      return fail({
        kind: 'torn',
        line: lineNumber + 1,
        reason: `torn last record: ${item.tail.length} bytes without a newline (an unacknowledged write; the server removes it on its next start)`,
      });
    }
    lineNumber += 1;
    const line = item.line;
    if (line === '') return fail({ kind: 'record', line: lineNumber, reason: 'empty line' });
    const opened = openRecord(key, line);
    if (!opened.ok) {
      const reason = (opened.reason.startsWith('MAC mismatch') ? keyHint(line, key) : undefined) ?? opened.reason;
      return fail({ kind: 'record', line: lineNumber, ...(opened.seq !== undefined ? { seq: opened.seq } : {}), reason });
    }
    const { record, mac } = opened;
    const expected = lastSeq + 1;
    if (record.seq !== expected) {
      const reason =
        record.seq === lastSeq
          ? `duplicate seq ${record.seq}`
          : record.seq < lastSeq
            ? `seq ${record.seq} after ${lastSeq}: records reordered`
            : `seq ${record.seq} where ${expected} was expected: ${record.seq - expected} record(s) missing`;
      return fail({ kind: 'chain', line: lineNumber, seq: record.seq, reason });
    }
    if (record.prev !== lastMac) {
      return fail({ kind: 'chain', line: lineNumber, seq: record.seq, reason: "chain broken: prev does not match the previous record's mac" });
    }
    if (record.ts < lastTs) {
      return fail({ kind: 'chain', line: lineNumber, seq: record.seq, reason: `time goes backwards (${record.ts} after ${lastTs})` });
    }
    records += 1;
    lastSeq = record.seq;
    lastMac = mac;
    lastTs = record.ts;
    if (checkpoint !== undefined && record.seq === checkpoint.seq) macAtCheckpoint = mac;
  }

  if (records === 0 && checkpoint === undefined) return fail({ kind: 'empty', line: 0, reason: 'no records' });
  if (checkpoint !== undefined) {
    if (lastSeq < checkpoint.seq) {
      return fail({
        kind: 'truncated',
        line: lineNumber,
        seq: lastSeq,
        reason: `truncated: the file ends at seq ${lastSeq} but the checkpoint records seq ${checkpoint.seq}`,
      });
    }
    if (macAtCheckpoint !== checkpoint.mac) {
      return fail({ kind: 'checkpoint', line: 0, seq: checkpoint.seq, reason: `record ${checkpoint.seq} does not match the checkpoint: the file was rewritten` });
    }
  }
  return { ok: true, records, lastSeq, ...withCheckpoint };
}

/** One line for the CLI. */
export function describeResult(path: string, result: VerifyResult): string {
  if (result.ok) {
    const checkpoint = result.checkpointSeq !== undefined ? `, checkpoint at seq ${result.checkpointSeq}` : ', checkpoint not checked';
    return `${path}: OK, ${result.records} record(s), last seq ${result.lastSeq}${checkpoint}`;
  }
  const problem = result.problem!;
  const where = problem.line > 0 ? `line ${problem.line}${problem.seq !== undefined ? ` (seq ${problem.seq})` : ''}` : problem.seq !== undefined ? `seq ${problem.seq}` : 'file';
  return `${path}: FAILED at ${where}: ${problem.reason} [${problem.kind}]; ${result.records} record(s) verified before it`;
}
