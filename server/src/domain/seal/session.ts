// Sealed session state (interface.md 2.2, decisions.md section 4, threats.md 3 and 4): the token
// map and its scope travel with the client as `v1.<kid>.<base64url(nonce ‖ ciphertext ‖ tag)>`,
// AES-256-GCM under the key ring. The associated data binds version, kid, kind, tenant and
// classification, so a blob sealed for one scope never opens in another. Every way a blob can
// fail to open is reported as the same VEIL_SESSION_EXPIRED, so a client learns nothing about
// why (no oracle), and nothing a client sends can make openSession throw anything else.
import { createCipheriv, createDecipheriv, randomBytes, type KeyObject } from 'node:crypto';
import { randomHex } from '../random.js';
import { inflateRawSync } from 'node:zlib';
import { RESTORE_MODES, VeilError } from '@veil/common';
import type { RestoreMode } from '@veil/common';
import type { TokenEntry } from '../types.js';
import { capMatchesScheme, isValidTokenType } from '../token/grammar.js';
import { KID_PATTERN, aeadKeyFor } from './keyring.js';
import type { KeyRing } from './keyring.js';

export const SESSION_KINDS = ['transform', 'query', 'context', 'chunk', 'aggregate', 'batch'] as const;
export type SessionKind = (typeof SESSION_KINDS)[number];

export interface SessionPayload {
  /** 128-bit random session id, 32 lowercase hex characters (newSessionId). */
  sid: string;
  kind: SessionKind;
  /** Tenant the blob belongs to; null for untenanted (platform) callers. */
  tenant: string | null;
  language: string;
  policy: string;
  policyVersion: string;
  corpusId?: string;
  classification?: string;
  /** Replay counter (decisions.md section 4): each continuation issues counter + 1. */
  counter: number;
  /** Issued-at and expires-at, unix seconds. */
  iat: number;
  exp: number;
  entries: TokenEntry[];
}

export interface OpenExpectation {
  /** Kinds the caller accepts, tried in order (usually one). */
  readonly kinds: readonly SessionKind[];
  readonly tenant: string | null;
  /** Classification the blob must carry; undefined means the blob must carry none. */
  readonly classification?: string | undefined;
}

const VERSION = 'v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** Largest blob accepted, checked on the string before any decoding. */
export const MAX_SESSION_BLOB_CHARS = 16 * 1024 * 1024;
/** Inflate ceiling: a forged or buggy compressed plaintext cannot balloon memory. */
const MAX_PLAINTEXT_BYTES = 32 * 1024 * 1024;
/**
 * Sealing never compresses. A session mixes values an attacker may choose (text it sends
 * through a continuation) with values it must not learn; compressing before encrypting would
 * make the blob's length an oracle on the secret values (the CRIME/BREACH pattern). Opening
 * still accepts the deflated form (flag 1), bounded by MAX_PLAINTEXT_BYTES.
 */
const FLAG_JSON = 0;
const FLAG_DEFLATE_RAW = 1;

const SID_PATTERN = /^[0-9a-f]{32}$/;
const KIND_SET: ReadonlySet<string> = new Set(SESSION_KINDS);
const MODE_SET: ReadonlySet<string> = new Set(RESTORE_MODES);
/** Bound on free-text scope fields (tenant, language, policy, ...): generous, but bounded. */
const MAX_LABEL_LENGTH = 1024;

/**
 * Nonces are drawn from a pooled CSPRNG buffer: one randomBytes call per 256 seals instead of
 * one each (a measurable share of the per-seal budget). Each 12-byte slice is used once and is
 * as random as a separate call; with random 96-bit nonces the GCM collision bound stays far
 * beyond any realistic number of blobs per key.
 */
const NONCES_PER_REFILL = 256;
let noncePool = Buffer.alloc(0);
let noncePoolOffset = 0;

function nextNonce(): Buffer {
  if (noncePoolOffset + NONCE_BYTES > noncePool.length) {
    noncePool = randomBytes(NONCE_BYTES * NONCES_PER_REFILL);
    noncePoolOffset = 0;
  }
  const nonce = noncePool.subarray(noncePoolOffset, noncePoolOffset + NONCE_BYTES);
  noncePoolOffset += NONCE_BYTES;
  return nonce;
}

/** A fresh 128-bit session id as 32 lowercase hex characters. */
export function newSessionId(): string {
  return randomHex(16);
}

/**
 * Associated data: a fixed label and version, then each field as `|<length>:<text>` (length in
 * UTF-16 units) or `|-` for an absent value. The encoding is prefix-free, so no two different
 * scopes encode the same way, and a null tenant (platform) or absent classification cannot
 * collide with any string, the empty string included. Built as one string and encoded once:
 * measured about six times cheaper than concatenating length-prefixed Buffers.
 */
function associatedData(kid: string, kind: string, tenant: string | null, classification: string | undefined): Buffer {
  let text = `veil-session|${VERSION}`;
  for (const field of [kid, kind, tenant, classification ?? null]) {
    text += field === null ? '|-' : `|${field.length}:${field}`;
  }
  return Buffer.from(text, 'utf8');
}

// ---------------------------------------------------------------------------------------------
// Plaintext: compact JSON with short keys; entries as arrays
// [id, type, cap, value, mode] + optional strategy (or null) + optional override (or null) +
// optional extras object {d: destination, cl: classification, w: wholes (a split value's part)},
// each position present only when a later one is.

interface WireExtras {
  d?: string;
  cl?: string;
  w?: readonly string[];
}
type WireEntry = (string | null | WireExtras)[];
const EXTRA_KEYS: ReadonlySet<string> = new Set(['d', 'cl', 'w']);

interface WirePayload {
  s: string;
  k: string;
  t: string | null;
  l: string;
  p: string;
  pv: string;
  c?: string;
  cl?: string;
  n: number;
  ia: number;
  ex: number;
  e: WireEntry[];
}

const WIRE_KEYS: ReadonlySet<string> = new Set(['s', 'k', 't', 'l', 'p', 'pv', 'c', 'cl', 'n', 'ia', 'ex', 'e']);
const OPTIONAL_WIRE_KEYS: ReadonlySet<string> = new Set(['c', 'cl']);

function toWire(payload: SessionPayload): WirePayload {
  const wire: WirePayload = {
    s: payload.sid,
    k: payload.kind,
    t: payload.tenant,
    l: payload.language,
    p: payload.policy,
    pv: payload.policyVersion,
    n: payload.counter,
    ia: payload.iat,
    ex: payload.exp,
    e: payload.entries.map((entry) => {
      const row: WireEntry = [entry.id, entry.type, entry.cap, entry.value, entry.mode];
      if (entry.destination !== undefined || entry.classification !== undefined || entry.wholes !== undefined) {
        const extras: WireExtras = {};
        if (entry.destination !== undefined) extras.d = entry.destination;
        if (entry.classification !== undefined) extras.cl = entry.classification;
        if (entry.wholes !== undefined) extras.w = entry.wholes;
        row.push(entry.strategy ?? null, entry.override ?? null, extras);
      } else if (entry.override !== undefined) row.push(entry.strategy ?? null, entry.override);
      else if (entry.strategy !== undefined) row.push(entry.strategy);
      return row;
    }),
  };
  if (payload.corpusId !== undefined) wire.c = payload.corpusId;
  if (payload.classification !== undefined) wire.cl = payload.classification;
  return wire;
}

/** Internal rejection; always converted to VEIL_SESSION_EXPIRED at the boundary. */
class Reject extends Error {}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function wireString(value: unknown, field: string): string {
  if (typeof value !== 'string') throw new Reject(`plaintext field ${field}`);
  return value;
}

function wireInteger(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new Reject(`plaintext field ${field}`);
  return value;
}

function wireExtras(cell: unknown): { destination?: string; classification?: string; wholes?: readonly string[] } {
  if (!isObject(cell)) throw new Reject('plaintext entry extras');
  const keys = Object.keys(cell);
  if (keys.length === 0 || keys.some((key) => !EXTRA_KEYS.has(key))) throw new Reject('plaintext entry extras');
  return {
    ...('d' in cell ? { destination: wireString(cell.d, 'entry.destination') } : {}),
    ...('cl' in cell ? { classification: wireString(cell.cl, 'entry.classification') } : {}),
    ...('w' in cell ? { wholes: wireWholes(cell.w) } : {}),
  };
}

function wireWholes(cell: unknown): string[] {
  if (!Array.isArray(cell) || cell.length === 0) throw new Reject('plaintext entry wholes');
  return cell.map((whole) => wireString(whole, 'entry.wholes'));
}

function wireEntry(row: unknown): TokenEntry {
  if (!Array.isArray(row) || row.length < 5 || row.length > 8) throw new Reject('plaintext entry shape');
  const cells: readonly unknown[] = row;
  const [id, type, cap, value, mode, strategy, override, extras] = cells;
  if (typeof mode !== 'string' || !MODE_SET.has(mode)) throw new Reject('plaintext entry mode');
  const base = {
    id: wireString(id, 'entry.id'),
    type: wireString(type, 'entry.type'),
    cap: wireString(cap, 'entry.cap'),
    value: wireString(value, 'entry.value'),
    mode: mode as RestoreMode,
  };
  if (cells.length === 5) return base;
  if (cells.length === 6) return { ...base, strategy: wireString(strategy, 'entry.strategy') };
  // From 7 cells on, strategy may be null; override may be null only when extras follow.
  const withStrategy = strategy === null ? base : { ...base, strategy: wireString(strategy, 'entry.strategy') };
  if (cells.length === 7 || override !== null) {
    if (typeof override !== 'string' || !MODE_SET.has(override)) throw new Reject('plaintext entry override');
    if (cells.length === 7) return { ...withStrategy, override: override as RestoreMode };
    return { ...withStrategy, override: override as RestoreMode, ...wireExtras(extras) };
  }
  return { ...withStrategy, ...wireExtras(extras) };
}

function fromWire(json: unknown): SessionPayload {
  if (!isObject(json)) throw new Reject('plaintext shape');
  for (const key of Object.keys(json)) if (!WIRE_KEYS.has(key)) throw new Reject('plaintext unknown field');
  for (const key of WIRE_KEYS) if (!OPTIONAL_WIRE_KEYS.has(key) && !(key in json)) throw new Reject('plaintext missing field');
  const kind = wireString(json.k, 'kind');
  if (!KIND_SET.has(kind)) throw new Reject('plaintext field kind');
  if (!Array.isArray(json.e)) throw new Reject('plaintext field entries');
  const rows: readonly unknown[] = json.e;
  const payload: SessionPayload = {
    sid: wireString(json.s, 'sid'),
    kind: kind as SessionKind,
    tenant: json.t === null ? null : wireString(json.t, 'tenant'),
    language: wireString(json.l, 'language'),
    policy: wireString(json.p, 'policy'),
    policyVersion: wireString(json.pv, 'policyVersion'),
    counter: wireInteger(json.n, 'counter'),
    iat: wireInteger(json.ia, 'iat'),
    exp: wireInteger(json.ex, 'exp'),
    entries: rows.map(wireEntry),
  };
  if ('c' in json) payload.corpusId = wireString(json.c, 'corpusId');
  if ('cl' in json) payload.classification = wireString(json.cl, 'classification');
  const problem = payloadProblem(payload);
  if (problem !== null) throw new Reject(`plaintext ${problem}`);
  return payload;
}

/**
 * Entity types already checked against the grammar. A map repeats a handful of types many
 * times, so this skips most regex work on the hot path; bounded so it cannot grow without limit.
 */
const knownTypes = new Set<string>();
const MAX_KNOWN_TYPES = 4096;

function isEntryType(type: unknown): boolean {
  if (typeof type !== 'string') return false;
  if (knownTypes.has(type)) return true;
  if (!isValidTokenType(type)) return false;
  if (knownTypes.size >= MAX_KNOWN_TYPES) knownTypes.clear();
  knownTypes.add(type);
  return true;
}

function isLabel(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_LABEL_LENGTH;
}

/**
 * Semantic checks shared by seal (a bug if they fail) and open (a forged or stale plaintext if
 * they fail). Returns the name of the first bad field, or null. Names only, never values.
 */
function payloadProblem(payload: SessionPayload): string | null {
  if (typeof payload.sid !== 'string' || !SID_PATTERN.test(payload.sid)) return 'sid';
  if (!KIND_SET.has(payload.kind)) return 'kind';
  if (payload.tenant !== null && !isLabel(payload.tenant)) return 'tenant';
  if (!isLabel(payload.language)) return 'language';
  if (!isLabel(payload.policy)) return 'policy';
  if (typeof payload.policyVersion !== 'string' || payload.policyVersion.length > MAX_LABEL_LENGTH) return 'policyVersion';
  if (payload.corpusId !== undefined && !isLabel(payload.corpusId)) return 'corpusId';
  if (payload.classification !== undefined && !isLabel(payload.classification)) return 'classification';
  if (!Number.isSafeInteger(payload.counter) || payload.counter < 0) return 'counter';
  if (!Number.isSafeInteger(payload.iat) || payload.iat < 0) return 'iat';
  if (!Number.isSafeInteger(payload.exp) || payload.exp < payload.iat) return 'exp';
  if (!Array.isArray(payload.entries)) return 'entries';
  const ids = new Set<string>();
  for (const entry of payload.entries) {
    if (typeof entry !== 'object' || entry === null) return 'entries';
    if (typeof entry.id !== 'string' || typeof entry.cap !== 'string' || !capMatchesScheme(entry.id, entry.cap)) {
      return 'entries.id';
    }
    if (ids.has(entry.id)) return 'entries.id (duplicate)';
    ids.add(entry.id);
    if (!isEntryType(entry.type)) return 'entries.type';
    if (typeof entry.value !== 'string') return 'entries.value';
    if (!MODE_SET.has(entry.mode)) return 'entries.mode';
    if (entry.strategy !== undefined && !isLabel(entry.strategy)) return 'entries.strategy';
    if (entry.override !== undefined && !MODE_SET.has(entry.override)) return 'entries.override';
    if (entry.destination !== undefined && !isLabel(entry.destination)) return 'entries.destination';
    if (entry.classification !== undefined && !isLabel(entry.classification)) return 'entries.classification';
    if (entry.wholes !== undefined && (!Array.isArray(entry.wholes) || entry.wholes.length === 0 || entry.wholes.some((whole) => typeof whole !== 'string'))) return 'entries.wholes';
  }
  return null;
}

// ---------------------------------------------------------------------------------------------

/**
 * Seal `payload` under the ring's current kid. Throws a plain Error for a malformed payload (a
 * programming error: never issue a blob that would not open) and VEIL_LIMIT_EXCEEDED when the
 * blob would exceed the size openSession accepts.
 */
export function sealSession(ring: KeyRing, payload: SessionPayload): string {
  const problem = payloadProblem(payload);
  if (problem !== null) throw new Error(`sealSession: invalid payload field ${problem}`);
  const kid = ring.currentKid;
  const key = aeadKeyFor(ring, kid);
  if (key === undefined) throw new Error('sealSession: key ring has no key for its current kid');

  // The plaintext is the format flag then the JSON, encoded into one buffer and encrypted by one
  // update (GCM is a stream mode: the ciphertext is the same as flag and body fed separately).
  const json = JSON.stringify(toWire(payload));
  const plaintext = Buffer.allocUnsafe(1 + Buffer.byteLength(json, 'utf8'));
  plaintext[0] = FLAG_JSON;
  plaintext.write(json, 1, 'utf8');

  const nonce = nextNonce();
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(associatedData(kid, payload.kind, payload.tenant, payload.classification));
  const encrypted = cipher.update(plaintext);
  const last = cipher.final();
  const sealed = Buffer.concat([nonce, encrypted, last, cipher.getAuthTag()]).toString('base64url');
  const blob = `${VERSION}.${kid}.${sealed}`;
  if (blob.length > MAX_SESSION_BLOB_CHARS) {
    throw new VeilError('VEIL_LIMIT_EXCEEDED', undefined, 'sealed session state exceeds its size limit');
  }
  return blob;
}

function decryptWith(key: KeyObject, nonce: Buffer, ciphertext: Buffer, tag: Buffer, aad: Buffer): Buffer | null {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
    decipher.setAAD(aad);
    decipher.setAuthTag(tag);
    const head = decipher.update(ciphertext);
    const last = decipher.final();
    return last.length === 0 ? head : Buffer.concat([head, last]);
  } catch {
    return null;
  }
}

function openOrReject(ring: KeyRing, blob: unknown, expect: OpenExpectation, nowSeconds: number): SessionPayload {
  if (typeof blob !== 'string') throw new Reject('not a string');
  if (blob.length > MAX_SESSION_BLOB_CHARS) throw new Reject('too large');
  if (!blob.startsWith(`${VERSION}.`)) throw new Reject('version');
  const kidEnd = blob.indexOf('.', VERSION.length + 1);
  if (kidEnd < 0) throw new Reject('format');
  const kid = blob.slice(VERSION.length + 1, kidEnd);
  const encoded = blob.slice(kidEnd + 1);
  if (!KID_PATTERN.test(kid)) throw new Reject('kid format');
  const key = aeadKeyFor(ring, kid);
  if (key === undefined) throw new Reject('unknown kid');
  const bytes = Buffer.from(encoded, 'base64url');
  // Only the canonical encoding is accepted. Node's decoder skips characters outside the
  // alphabet and also accepts `+`, `/` and `=`; re-encoding and comparing rejects all of those,
  // and also a flip of the unused low bits of the last character, which would otherwise give a
  // different blob string that opens to the same session. (Cheaper than a regex pass.)
  if (bytes.toString('base64url') !== encoded) throw new Reject('encoding not canonical');
  if (bytes.length < NONCE_BYTES + 1 + TAG_BYTES) throw new Reject('too short');

  const nonce = bytes.subarray(0, NONCE_BYTES);
  const ciphertext = bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES);
  const tag = bytes.subarray(bytes.length - TAG_BYTES);
  let plaintext: Buffer | null = null;
  let openedKind: string | undefined;
  for (const kind of expect.kinds) {
    plaintext = decryptWith(key, nonce, ciphertext, tag, associatedData(kid, kind, expect.tenant, expect.classification));
    if (plaintext !== null) {
      openedKind = kind;
      break;
    }
  }
  if (plaintext === null) throw new Reject('authentication');

  const flag = plaintext[0];
  let json: Buffer;
  if (flag === FLAG_JSON) json = plaintext.subarray(1);
  else if (flag === FLAG_DEFLATE_RAW) json = inflateRawSync(plaintext.subarray(1), { maxOutputLength: MAX_PLAINTEXT_BYTES });
  else throw new Reject('plaintext flag');

  const payload = fromWire(JSON.parse(json.toString('utf8')));
  // Defence in depth: the associated data already bound these, the plaintext must agree.
  if (payload.kind !== openedKind || payload.tenant !== expect.tenant || payload.classification !== expect.classification) {
    throw new Reject('scope');
  }
  if (!(nowSeconds < payload.exp)) throw new Reject('expired');
  return payload;
}

/**
 * Open a sealed blob. Any failure (bad format, unknown kid, authentication failure, wrong kind,
 * tenant or classification, expiry at `nowSeconds >= exp`, malformed plaintext, oversized blob)
 * throws VeilError('VEIL_SESSION_EXPIRED'); the reason is only in the error's internal `detail`.
 */
export function openSession(ring: KeyRing, blob: unknown, expect: OpenExpectation, nowSeconds: number): SessionPayload {
  try {
    return openOrReject(ring, blob, expect, nowSeconds);
  } catch (error) {
    const detail = error instanceof Reject ? `session_state rejected: ${error.message}` : 'session_state rejected: unreadable';
    throw new VeilError('VEIL_SESSION_EXPIRED', undefined, detail);
  }
}
