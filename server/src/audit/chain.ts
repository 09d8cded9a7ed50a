// The durable audit file's record format, shared by the writer (file-sink.ts) and the verifier
// (verify.ts), so both read the same bytes the same way.
//
// One record per line (JSON, UTF-8, `\n`-terminated):
//   {"seq":N,"ts":"<ISO>","prev":"<mac of record N-1, or 64 zeros>","event":{...},"mac":"<hex>"}
// `mac` is HMAC-SHA-256(key, the exact bytes of the line up to the `,"mac"` suffix, closed with
// `}`), so the verifier checks the bytes as written rather than a re-serialization. Records
// chain by `prev`; `seq` counts from 1 with no gaps; `ts` never decreases (the writer clamps a
// clock that steps back). The checkpoint (`<file>.checkpoint`, replaced atomically) holds the
// last durable seq and mac under its own MAC, so removing records from the end is detected.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { secretKeyOf } from '../domain/keys.js';
import type { AuditEvent } from './event.js';

export const GENESIS_PREV = '0'.repeat(64);
export const CHECKPOINT_SUFFIX = '.checkpoint';
const MAC_SUFFIX = /,"mac":"([0-9a-f]{64})"\}$/;
const HEX64 = /^[0-9a-f]{64}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export interface ChainRecord {
  readonly seq: number;
  readonly ts: string;
  readonly prev: string;
  readonly event: AuditEvent;
}

function hmac(key: Buffer, text: string): string {
  return createHmac('sha256', secretKeyOf(key)).update(text, 'utf8').digest('hex');
}

function equalHex(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}

/**
 * Characters JSON leaves unescaped that terminals or log viewers treat specially: DEL, the C1
 * controls (0x9b starts an ANSI sequence on some terminals) and the Unicode line separators.
 * They can only occur inside JSON strings, so escaping them keeps the JSON valid.
 */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u2028\u2029]/g;

/** JSON.stringify plus escaping of UNSAFE_IN_JSON (C0 controls are already escaped by JSON). */
export function safeJson(value: unknown): string {
  return JSON.stringify(value).replace(UNSAFE_IN_JSON, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Fingerprint of the HMAC key, recorded in the chain so a wrong key is named as such. */
export function keyFingerprint(key: Buffer): string {
  return createHash('sha256').update('veil-audit-key\n').update(key).digest('hex').slice(0, 16);
}

/** Serialize and MAC one record; returns the line without its `\n` and the record's mac. */
export function sealRecord(key: Buffer, record: ChainRecord): { line: string; mac: string } {
  const body = safeJson({ seq: record.seq, ts: record.ts, prev: record.prev, event: record.event });
  const mac = hmac(key, body);
  return { line: `${body.slice(0, -1)},"mac":"${mac}"}`, mac };
}

export type OpenResult = { ok: true; record: ChainRecord; mac: string } | { ok: false; reason: string; seq?: number };

/** Best-effort seq of a line that failed to verify, so a report can name it. */
function seqHint(line: string): number | undefined {
  const match = /^\{"seq":(\d{1,15}),/.exec(line);
  return match !== null ? Number(match[1]) : undefined;
}

/** Check one line's MAC and shape. Does not check its place in the chain. */
export function openRecord(key: Buffer, line: string): OpenResult {
  const match = MAC_SUFFIX.exec(line);
  const hint = seqHint(line);
  const withHint = (reason: string): OpenResult => (hint !== undefined ? { ok: false, reason, seq: hint } : { ok: false, reason });
  if (match === null || !line.startsWith('{')) return withHint('malformed record (no mac)');
  const body = `${line.slice(0, match.index)}}`;
  if (!equalHex(hmac(key, body), match[1]!)) return withHint('MAC mismatch: record modified, inserted, or written with another key');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return withHint('malformed record (invalid JSON under a valid MAC)');
  }
  const record = parsed as Partial<ChainRecord>;
  if (
    typeof record !== 'object' ||
    record === null ||
    !Number.isSafeInteger(record.seq) ||
    (record.seq ?? 0) < 1 ||
    typeof record.ts !== 'string' ||
    !ISO_TIME.test(record.ts) ||
    typeof record.prev !== 'string' ||
    !HEX64.test(record.prev) ||
    typeof record.event !== 'object' ||
    record.event === null
  ) {
    return withHint('malformed record (missing or invalid seq, ts, prev or event)');
  }
  return { ok: true, record: record as ChainRecord, mac: match[1]! };
}

/** The last durable position of the chain, MACed so it cannot be lowered without the key. */
export interface Checkpoint {
  readonly seq: number;
  readonly mac: string;
  readonly ts: string;
}

function checkpointMac(key: Buffer, checkpoint: Checkpoint): string {
  return hmac(key, `veil-audit-checkpoint\n${checkpoint.seq}\n${checkpoint.mac}\n${checkpoint.ts}`);
}

export function sealCheckpoint(key: Buffer, checkpoint: Checkpoint): string {
  return `${JSON.stringify({ version: 1, seq: checkpoint.seq, mac: checkpoint.mac, ts: checkpoint.ts, cmac: checkpointMac(key, checkpoint) })}\n`;
}

export function openCheckpoint(key: Buffer, text: string): { ok: true; checkpoint: Checkpoint } | { ok: false; reason: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'checkpoint is not valid JSON' };
  }
  const value = parsed as { version?: unknown; seq?: unknown; mac?: unknown; ts?: unknown; cmac?: unknown } | null;
  if (
    typeof value !== 'object' ||
    value === null ||
    value.version !== 1 ||
    typeof value.seq !== 'number' ||
    !Number.isSafeInteger(value.seq) ||
    value.seq < 0 ||
    typeof value.mac !== 'string' ||
    !HEX64.test(value.mac) ||
    typeof value.ts !== 'string' ||
    typeof value.cmac !== 'string' ||
    !HEX64.test(value.cmac)
  ) {
    return { ok: false, reason: 'checkpoint is malformed' };
  }
  const checkpoint: Checkpoint = { seq: value.seq, mac: value.mac, ts: value.ts };
  if (!equalHex(checkpointMac(key, checkpoint), value.cmac)) return { ok: false, reason: 'checkpoint MAC mismatch: modified, or written with another key' };
  return { ok: true, checkpoint };
}
