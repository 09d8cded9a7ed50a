// Secrets with a recognisable shape: provider API keys (by literal prefix: cloud, VCS, payment,
// chat, observability, LLM providers; see docs/detection.md for the list), Discord and Telegram
// bot tokens, JSON Web Tokens and PEM / OpenSSH private-key blocks. Prefix rules are bucketed by first character, so a word that
// cannot start a key costs one array load; key bodies are bounded runs of their alphabet.
import { Buffer } from 'node:buffer';
import { codeAt, continuedLineAt, F_B64URL, F_DIGIT, F_HEX, F_LOWER, F_UPPER, F_WORD, FLAGS, isAlnumCode, isSpaceCode, runEnd } from './chars.js';
import { emit, type ScanState } from './state.js';

const ALNUM = F_DIGIT | F_UPPER | F_LOWER;
const UPPER_DIGIT = F_DIGIT | F_UPPER;

interface KeyRule {
  readonly prefix: string;
  /** FLAGS mask every body character must hit. */
  readonly body: number;
  readonly min: number;
  readonly max: number;
  readonly confidence: number;
  /** Extra test on the body (entropy-ish checks for generic prefixes). */
  readonly check?: (body: string) => boolean;
}

function mixedClasses(body: string): boolean {
  let digit = false;
  let upper = false;
  let lower = false;
  for (let k = 0; k < body.length; k++) {
    const f = FLAGS[body.charCodeAt(k)] ?? 0;
    if ((f & F_DIGIT) !== 0) digit = true;
    else if ((f & F_UPPER) !== 0) upper = true;
    else if ((f & F_LOWER) !== 0) lower = true;
  }
  return digit && upper && lower;
}

/** 32 hex characters that are not all digits (a bare number is not a key). */
function hexWithLetters(body: string): boolean {
  for (let k = 0; k < body.length; k++) if (body.charCodeAt(k) >= 97) return true;
  return false;
}

// Longer prefixes before their own prefixes (sk-ant- before sk-): the first rule that matches wins.
const KEY_RULES: readonly KeyRule[] = [
  // AWS access key ids
  ...['AKIA', 'ASIA', 'AGPA', 'AIDA', 'AROA', 'AIPA', 'ANPA', 'ANVA', 'ABIA', 'ACCA'].map(
    (prefix): KeyRule => ({ prefix, body: UPPER_DIGIT, min: 16, max: 16, confidence: 0.95 }),
  ),
  { prefix: 'AIza', body: F_B64URL, min: 35, max: 35, confidence: 0.95 }, // Google API key
  { prefix: 'GOCSPX-', body: F_B64URL, min: 24, max: 40, confidence: 0.95 }, // Google OAuth client secret
  { prefix: 'ya29.', body: F_B64URL, min: 20, max: 2048, confidence: 0.9 }, // Google OAuth access token
  ...['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'].map((prefix): KeyRule => ({ prefix, body: ALNUM, min: 30, max: 255, confidence: 0.95 })),
  { prefix: 'github_pat_', body: F_WORD, min: 22, max: 255, confidence: 0.95 },
  ...['glpat-', 'glptt-', 'gldt-', 'glrt-'].map((prefix): KeyRule => ({ prefix, body: F_B64URL, min: 20, max: 255, confidence: 0.95 })),
  ...['xoxb-', 'xoxp-', 'xoxa-', 'xoxr-', 'xoxs-', 'xoxe-', 'xapp-'].map(
    (prefix): KeyRule => ({ prefix, body: F_B64URL, min: 10, max: 255, confidence: 0.95 }),
  ),
  ...['sk_live_', 'rk_live_', 'pk_live_'].map((prefix): KeyRule => ({ prefix, body: ALNUM, min: 10, max: 255, confidence: 0.95 })),
  ...['sk_test_', 'rk_test_', 'whsec_'].map((prefix): KeyRule => ({ prefix, body: ALNUM, min: 10, max: 255, confidence: 0.9 })),
  { prefix: 'sk-ant-', body: F_B64URL, min: 20, max: 255, confidence: 0.97 }, // Anthropic
  ...['sk-proj-', 'sk-svcacct-', 'sk-admin-'].map((prefix): KeyRule => ({ prefix, body: F_B64URL, min: 20, max: 255, confidence: 0.95 })),
  { prefix: 'sk-', body: ALNUM, min: 32, max: 255, confidence: 0.9, check: mixedClasses }, // OpenAI (legacy)
  { prefix: 'sk-', body: F_HEX, min: 32, max: 32, confidence: 0.85, check: hexWithLetters }, // DeepSeek and other sk-<32 hex>
  { prefix: 'npm_', body: ALNUM, min: 36, max: 36, confidence: 0.95 },
  { prefix: 'SK', body: F_HEX, min: 32, max: 32, confidence: 0.85 }, // Twilio API key SID
  { prefix: 'hf_', body: ALNUM, min: 30, max: 40, confidence: 0.9 }, // Hugging Face
  ...['shpat_', 'shpss_', 'shpca_', 'shppa_'].map((prefix): KeyRule => ({ prefix, body: F_HEX, min: 32, max: 32, confidence: 0.95 })),
  ...['dop_v1_', 'doo_v1_', 'dor_v1_'].map((prefix): KeyRule => ({ prefix, body: F_HEX, min: 64, max: 64, confidence: 0.95 })),
  { prefix: 'pypi-AgEIcHlwaS5vcmc', body: F_B64URL, min: 50, max: 300, confidence: 0.95 },
  { prefix: 'gsk_', body: ALNUM, min: 40, max: 64, confidence: 0.9 }, // Groq
  { prefix: 'xai-', body: ALNUM, min: 60, max: 100, confidence: 0.9 },
  { prefix: 'pplx-', body: ALNUM, min: 40, max: 60, confidence: 0.9 },
  { prefix: 'r8_', body: ALNUM, min: 30, max: 40, confidence: 0.9 }, // Replicate
  { prefix: 'key-', body: F_HEX, min: 32, max: 32, confidence: 0.85 }, // Mailgun
  ...['sq0atp-', 'sq0csp-'].map((prefix): KeyRule => ({ prefix, body: F_B64URL, min: 22, max: 60, confidence: 0.95 })), // Square
  { prefix: 'lin_api_', body: ALNUM, min: 40, max: 40, confidence: 0.95 }, // Linear
  { prefix: 'dapi', body: F_HEX, min: 32, max: 32, confidence: 0.85 }, // Databricks
  { prefix: 'ATATT3', body: F_B64URL, min: 100, max: 300, confidence: 0.95 }, // Atlassian API token
  { prefix: 'ATBB', body: ALNUM, min: 28, max: 64, confidence: 0.9 }, // Bitbucket app password
  ...['hvs.', 'hvb.'].map((prefix): KeyRule => ({ prefix, body: F_B64URL, min: 24, max: 200, confidence: 0.95 })), // HashiCorp Vault
  ...['dp.pt.', 'dp.st.', 'dp.sa.', 'dp.ct.', 'dp.scim.', 'dp.audit.'].map((prefix): KeyRule => ({ prefix, body: ALNUM, min: 40, max: 48, confidence: 0.95 })), // Doppler
  { prefix: 'glc_', body: F_B64URL, min: 32, max: 200, confidence: 0.95 }, // Grafana Cloud
  { prefix: 'glsa_', body: F_WORD, min: 32, max: 64, confidence: 0.95 }, // Grafana service account
  { prefix: 'NRAK-', body: UPPER_DIGIT, min: 27, max: 27, confidence: 0.95 }, // New Relic user key
  ...['sntrys_', 'sntryu_'].map((prefix): KeyRule => ({ prefix, body: F_B64URL, min: 40, max: 300, confidence: 0.95 })), // Sentry
  { prefix: 'PMAK-', body: F_B64URL, min: 40, max: 80, confidence: 0.95 }, // Postman
  { prefix: 'ntn_', body: ALNUM, min: 40, max: 60, confidence: 0.9 }, // Notion
  { prefix: 'secret_', body: ALNUM, min: 43, max: 43, confidence: 0.85 }, // Notion (legacy)
  { prefix: 'sbp_', body: F_HEX, min: 40, max: 40, confidence: 0.95 }, // Supabase
  { prefix: 'AGE-SECRET-KEY-1', body: UPPER_DIGIT, min: 58, max: 58, confidence: 0.98 }, // age
  { prefix: 'sk-or-v1-', body: F_HEX, min: 64, max: 64, confidence: 0.97 }, // OpenRouter
  { prefix: 'HRKU-', body: F_B64URL, min: 36, max: 80, confidence: 0.95 }, // Heroku
  { prefix: 'fo1_', body: F_B64URL, min: 40, max: 80, confidence: 0.9 }, // Fly.io
  ...['pscale_tkn_', 'pscale_pw_', 'pscale_oauth_'].map((prefix): KeyRule => ({ prefix, body: F_B64URL, min: 32, max: 64, confidence: 0.95 })), // PlanetScale
  { prefix: 'nfp_', body: ALNUM, min: 36, max: 40, confidence: 0.9 }, // Netlify
  { prefix: 'figd_', body: F_B64URL, min: 36, max: 60, confidence: 0.9 }, // Figma
  { prefix: 'sl.', body: F_B64URL, min: 130, max: 1400, confidence: 0.85 }, // Dropbox short-lived token
  { prefix: 'fw_', body: ALNUM, min: 24, max: 40, confidence: 0.85 }, // Fireworks AI
  ...['lsv2_pt_', 'lsv2_sk_'].map((prefix): KeyRule => ({ prefix, body: F_WORD, min: 40, max: 60, confidence: 0.95 })), // LangSmith
  { prefix: 'pcsk_', body: F_WORD, min: 40, max: 100, confidence: 0.95 }, // Pinecone
  { prefix: 'esecret_', body: ALNUM, min: 20, max: 60, confidence: 0.9 }, // Anyscale
  { prefix: 'sk_', body: F_HEX, min: 48, max: 48, confidence: 0.85 }, // ElevenLabs
  { prefix: 'AAAAAAAAAAAAAAAAAAAAA', body: F_B64URL, min: 40, max: 200, confidence: 0.9 }, // Twitter/X app bearer token
];

// Rules bucketed by their first two characters: most words fail on one array load and one
// Map miss, and a hit leaves only the few rules that share the two-character prefix.
const RULES_BY_FIRST: readonly boolean[] = (() => {
  const table: boolean[] = [];
  for (const rule of KEY_RULES) table[rule.prefix.charCodeAt(0)] = true;
  return table;
})();

/** The rules by their prefix's first two characters (all ASCII): index `(first << 7) | second`. */
const RULES_BY_PAIR: readonly (readonly KeyRule[] | undefined)[] = (() => {
  const table: (KeyRule[] | undefined)[] = new Array<KeyRule[] | undefined>(128 * 128).fill(undefined);
  for (const rule of KEY_RULES) {
    const first = rule.prefix.charCodeAt(0);
    const second = rule.prefix.charCodeAt(1);
    if (first >= 128 || second >= 128) throw new Error(`key rule prefix ${rule.prefix}: the table holds ASCII pairs only`);
    (table[(first << 7) | second] ??= []).push(rule);
  }
  return table;
})();

/** The rules whose prefix starts with the code units `c`, `second` (undefined: none, or not ASCII). */
function rulesFor(c: number, second: number): readonly KeyRule[] | undefined {
  return c < 128 && second < 128 ? RULES_BY_PAIR[(c << 7) | second] : undefined;
}

/** Every key rule's literal prefix (for the tests of keyMayStartAt). */
export const KEY_RULE_PREFIXES: readonly string[] = KEY_RULES.map((rule) => rule.prefix);

/**
 * The third code units the rules of each pair allow (KEY_RULES prefixes of three units or more):
 * KEY_THIRD holds 128 bits per pair, KEY_ANY marks a pair with a two-unit prefix (any third unit).
 */
const KEY_THIRD: Uint32Array = new Uint32Array(128 * 128 * 4);
const KEY_ANY: Uint8Array = new Uint8Array(128 * 128);
for (const rule of KEY_RULES) {
  const pair = (rule.prefix.charCodeAt(0) << 7) | rule.prefix.charCodeAt(1);
  if (rule.prefix.length === 2) KEY_ANY[pair] = 1;
  else {
    const third = rule.prefix.charCodeAt(2);
    if (third >= 128) KEY_ANY[pair] = 1;
    else KEY_THIRD[pair * 4 + (third >>> 5)]! |= 1 << (third & 31);
  }
}

/**
 * May detectApiKey match at `start`, a word whose first two units keyMayStartWith allows? False
 * only when its third unit starts no prefix of the pair's rules (`do`g, `fo`r, `wh`ile: each rule
 * wants its whole prefix, so detectApiKey would return -1 there without a side effect). Discord
 * (M, N, O) and SendGrid (S) words have readers of their own: always true.
 */
export function keyMayStartAt(text: string, start: number): boolean {
  const c = text.charCodeAt(start);
  if (c === 77 || c === 78 || c === 79 || c === 83 || c >= 128) return true;
  const second = text.charCodeAt(start + 1);
  if (!(second < 128)) return true;
  const pair = (c << 7) | second;
  if (KEY_ANY[pair] !== 0) return true;
  // NaN past the text fails `< 128`: a prefix of three units or more cannot match there.
  const third = text.charCodeAt(start + 2);
  return third < 128 && (KEY_THIRD[pair * 4 + (third >>> 5)]! & (1 << (third & 31))) !== 0;
}

/** True when a key rule could start with this character (cheap gate for the main loop). */
export function mayStartKey(c: number): boolean {
  return c < 128 && (RULES_BY_FIRST[c] === true || c === 77 || c === 78 || c === 79);
}

/**
 * May detectApiKey match at a word whose first two code units are `c` and `second` (127 stands
 * for any unit from 127 up, or none)? A superset of where it matches, for the scan's pair table:
 * Discord tokens start with M, N or O and any second character, SendGrid keys with `SG.`, every
 * other rule with its prefix's first two characters.
 */
export function keyMayStartWith(c: number, second: number): boolean {
  if (!mayStartKey(c)) return false;
  if (c === 77 || c === 78 || c === 79 || (c === 83 && second === 71)) return true;
  return rulesFor(c, second) !== undefined;
}

/** May detectJwt match at a word starting with `c`, `second`? (`eyJ`; for the scan's pair table.) */
export function jwtMayStartWith(c: number, second: number): boolean {
  return c === 101 && second === 121;
}


/** SendGrid: SG.<22>.<43>, base64url segments. */
function sendGridEnd(text: string, start: number): number {
  if (!text.startsWith('SG.', start)) return -1;
  const first = runEnd(text, start + 3, F_B64URL, 22);
  if (first !== start + 25 || text.charCodeAt(first) !== 46) return -1;
  const second = runEnd(text, first + 1, F_B64URL, 43);
  return second === first + 44 ? second : -1;
}

/** Discord bot token: [MNO] + 23-25 base64url, '.', 6, '.', 27-38. */
function discordEnd(text: string, start: number): number {
  const c = text.charCodeAt(start);
  if (c !== 77 && c !== 78 && c !== 79) return -1;
  const first = runEnd(text, start + 1, F_B64URL, 26);
  if (first < 0 || first - start < 24 || first - start > 26 || text.charCodeAt(first) !== 46) return -1;
  const second = runEnd(text, first + 1, F_B64URL, 7);
  if (second !== first + 7 || text.charCodeAt(second) !== 46) return -1;
  const third = runEnd(text, second + 1, F_B64URL, 38);
  if (third < 0 || third - second - 1 < 27) return -1;
  return mixedClasses(text.slice(start, first)) ? third : -1;
}

/** Telegram bot token at a digit word: 8-10 digit bot id, ':', "AA" + 33 base64url. */
export function detectTelegramToken(state: ScanState, start: number, wordEnd: number): number {
  const text = state.text;
  const idLength = wordEnd - start;
  if (idLength < 8 || idLength > 10 || text.charCodeAt(wordEnd) !== 58 || !text.startsWith('AA', wordEnd + 1)) return -1;
  const end = runEnd(text, wordEnd + 1, F_B64URL, 35);
  if (end !== wordEnd + 36 || isAlnumCode(codeAt(text, end))) return -1;
  emit(state, 'api_key', start, end, 0.95);
  return end;
}

/** Try the provider key rules at a word start; returns the match end or -1. */
export function detectApiKey(state: ScanState, start: number): number {
  const text = state.text;
  const c = text.charCodeAt(start);
  if (c === 83 /* S */) {
    const end = sendGridEnd(text, start);
    if (end > 0 && !isAlnumCode(codeAt(text, end))) {
      emit(state, 'api_key', start, end, 0.98);
      return end;
    }
  }
  if (c === 77 || c === 78 || c === 79) {
    const end = discordEnd(text, start);
    if (end > 0 && !isAlnumCode(codeAt(text, end))) {
      emit(state, 'api_key', start, end, 0.9);
      return end;
    }
  }
  const rules = rulesFor(c, text.charCodeAt(start + 1));
  if (rules === undefined) return -1;
  for (const rule of rules) {
    if (!text.startsWith(rule.prefix, start)) continue;
    const from = start + rule.prefix.length;
    let end = runEnd(text, from, rule.body, rule.max);
    if (end < 0) continue;
    let body = end - from;
    let wrapped = false;
    // A key wrapped by a terminal or a mail client: the line ends inside the key and the next
    // line goes on with a chunk of its alphabet.
    for (let breaks = 0; breaks < MAX_KEY_WRAPS && body < rule.max; breaks++) {
      const chunkEnd = wrappedChunkEnd(text, end, rule.body, rule.max - body, body >= rule.min);
      if (chunkEnd < 0) break;
      const chunkStart = text.charCodeAt(end) === 13 ? end + 2 : end + 1;
      body += chunkEnd - chunkStart;
      end = chunkEnd;
      wrapped = true;
    }
    if (body < rule.min) continue;
    // The key must end at a token boundary, not run on into more word characters.
    const next = codeAt(text, end);
    if (isAlnumCode(next) || next === 95) continue;
    if (rule.check !== undefined && !rule.check(wrapped ? text.slice(from, end).replace(/\r?\n/g, '') : text.slice(from, end))) continue;
    emit(state, 'api_key', start, end, rule.confidence);
    return end;
  }
  return -1;
}

/** Most line breaks inside one wrapped key (a 255-character key at 40 columns). */
const MAX_KEY_WRAPS = 8;
/** Shortest chunk read after a line break as the rest of a key: a word of prose is shorter or not mixed. */
const MIN_WRAP_CHUNK = 8;

/** A chunk after a key that is already whole must be this long unless it ends its line. */
const MIN_TAIL_CHUNK = 16;

/**
 * When a key's run ends at a line break (`\n` or `\r\n`, no space before it) and the next line
 * starts with a chunk of the key's alphabet of at least MIN_WRAP_CHUNK characters holding both a
 * digit and a letter, ending at a token boundary: the chunk's end. Otherwise -1. `whole`: the key
 * is long enough without the chunk, so the chunk must also end its line or be MIN_TAIL_CHUNK long
 * (a short id starting the next line is not the key's tail: erasure compares the whole value).
 */
function wrappedChunkEnd(text: string, at: number, mask: number, room: number, whole: boolean): number {
  const c = text.charCodeAt(at);
  const start = c === 10 ? at + 1 : c === 13 && text.charCodeAt(at + 1) === 10 ? at + 2 : -1;
  if (start < 0) return -1;
  const end = runEnd(text, start, mask, room);
  if (end < 0 || end - start < MIN_WRAP_CHUNK) return -1;
  // One key per line: the next line's key is its own.
  const rules = rulesFor(text.charCodeAt(start), text.charCodeAt(start + 1));
  if (rules?.some((rule) => text.startsWith(rule.prefix, start)) === true) return -1;
  let digit = false;
  let letter = false;
  for (let k = start; k < end; k++) {
    const f = FLAGS[text.charCodeAt(k)] ?? 0;
    if ((f & F_DIGIT) !== 0) digit = true;
    else if ((f & (F_UPPER | F_LOWER)) !== 0) letter = true;
  }
  const after = codeAt(text, end);
  if (!digit || !letter || isAlnumCode(after) || after === 95) return -1;
  if (whole && end - start < MIN_TAIL_CHUNK && !(end === text.length || after === 10 || after === 13)) return -1;
  return end;
}

const MAX_JWT_HEADER = 2048;
const MAX_JWT_PAYLOAD = 16384;
const MAX_JWT_SIGNATURE = 2048;

function headerHasAlg(segment: string): boolean {
  try {
    const header: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof header === 'object' && header !== null && typeof (header as Record<string, unknown>).alg === 'string';
  } catch {
    return false;
  }
}

/** header.payload.signature, each base64url; header decodes to JSON with "alg". At "eyJ". */
/**
 * `pos`, or past a line break (and the indentation after it) there: a token wrapped after a dot
 * by a terminal, a mail client or a YAML file (`eyJ….⏎eyJ….⏎Sfl…`) is one token.
 */
function afterLineBreak(text: string, pos: number): number {
  let at = pos;
  if (text.charCodeAt(at) === 13) at++;
  if (text.charCodeAt(at) !== 10) return pos;
  at++;
  const limit = at + 16;
  while (at < limit && (text.charCodeAt(at) === 32 || text.charCodeAt(at) === 9)) at++;
  return at;
}

/** True when a base64url segment decodes to a JSON object (a JWT's payload). */
function segmentIsJsonObject(segment: string): boolean {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null;
  } catch {
    return false;
  }
}

/**
 * A JWT's header or payload segment from `start`, read across one line break in the middle
 * (`…iwib⏎mFtZSI6…`) when the segment ends at the break and the next line goes straight on with
 * base64url characters up to the dot; `breaks` counts it (one per token). -1: no segment.
 */
function jwtSegmentEnd(text: string, start: number, max: number, breaks: { count: number; joined: string }): number {
  const end = runEnd(text, start, F_B64URL, max);
  if (end < 0 || breaks.count > 0 || text.charCodeAt(end) === 46) return end;
  const next = continuedLineAt(text, end, F_B64URL);
  if (next < 0) return end;
  const tail = runEnd(text, next, F_B64URL, max - (end - start));
  if (tail < 0 || text.charCodeAt(tail) !== 46) return end;
  breaks.count++;
  breaks.joined = text.slice(start, end) + text.slice(next, tail);
  return tail;
}

export function detectJwt(state: ScanState, start: number): number {
  const text = state.text;
  if (!text.startsWith('eyJ', start)) return -1;
  // One line break inside the header or the payload: the joined segment must decode (a header
  // with "alg", a payload to a JSON object), so two words on two lines never join.
  const headerBreak = { count: 0, joined: '' };
  const headerEnd = jwtSegmentEnd(text, start, MAX_JWT_HEADER, headerBreak);
  if (headerEnd < 0 || text.charCodeAt(headerEnd) !== 46) return -1;
  const payloadStart = afterLineBreak(text, headerEnd + 1);
  if (!text.startsWith('ey', payloadStart)) return -1;
  const payloadBreak = { count: headerBreak.count, joined: '' };
  const payloadEnd = jwtSegmentEnd(text, payloadStart, MAX_JWT_PAYLOAD, payloadBreak);
  if (payloadEnd < 0 || payloadEnd - payloadStart < 2 || codeAt(text, payloadEnd) !== 46) return -1;
  if (payloadBreak.count > headerBreak.count && !segmentIsJsonObject(payloadBreak.joined)) return -1;
  const signatureStart = afterLineBreak(text, payloadEnd + 1);
  const signatureEnd = runEnd(text, signatureStart, F_B64URL, MAX_JWT_SIGNATURE);
  if (signatureEnd < 0) return -1;
  const next = codeAt(text, signatureEnd);
  if (isAlnumCode(next) || (next === 46 && ((FLAGS[codeAt(text, signatureEnd + 1)] ?? 0) & F_B64URL) !== 0)) return -1;
  if (!headerHasAlg(headerBreak.count > 0 ? headerBreak.joined : text.slice(start, headerEnd))) return -1;
  const signed = signatureEnd - signatureStart >= 16;
  emit(state, 'jwt', start, signed ? signatureEnd : payloadEnd + 1, signed ? 0.95 : 0.85);
  return signatureEnd;
}

const PEM_BEGIN = '-----BEGIN ';
const PEM_END = '-----END ';
const MAX_PEM_LABEL = 60;
const MAX_PEM_BLOCK = 64 * 1024;
const MAX_PEM_BODY = 16 * 1024;

/**
 * Position of the next "-----END " at or after `from`, cached: BEGIN positions only grow during
 * a scan, so one indexOf serves every BEGIN before the END it found, and repeated BEGINs with no
 * END anywhere cost one search in total instead of one per BEGIN.
 */
function nextPemEnd(state: ScanState, from: number): number {
  if (state.pemEndAt === -1) return -1;
  if (state.pemEndAt >= from) return state.pemEndAt;
  state.pemEndAt = state.text.indexOf(PEM_END, from);
  return state.pemEndAt;
}

function isBase64Char(c: number): boolean {
  return (c < 128 && (FLAGS[c]! & ALNUM) !== 0) || c === 43 || c === 47 || c === 61;
}

/**
 * End of the key material after a BEGIN line with no END: the rest of the BEGIN line and then
 * whole lines that are pure base64 (or, before the body, "Proc-Type:"-style header lines).
 * Stops at the first other line, so prose after a truncated key is not swallowed.
 */
function truncatedBodyEnd(text: string, from: number): number {
  let end = from;
  let pos = from;
  let bodySeen = false;
  while (pos < text.length && pos - from < MAX_PEM_BODY) {
    let lineEnd = pos;
    while (lineEnd < text.length && text.charCodeAt(lineEnd) !== 10 && lineEnd - pos < 1024) lineEnd++;
    let contentStart = pos;
    let contentEnd = lineEnd;
    while (contentStart < contentEnd && isSpaceCode(text.charCodeAt(contentStart))) contentStart++;
    while (contentEnd > contentStart && isSpaceCode(text.charCodeAt(contentEnd - 1))) contentEnd--;
    if (contentStart === contentEnd) {
      if (bodySeen) break;
    } else {
      let base64 = true;
      for (let k = contentStart; k < contentEnd && base64; k++) base64 = isBase64Char(text.charCodeAt(k));
      if (base64) {
        bodySeen = true;
        end = contentEnd;
      } else if (!bodySeen && text.slice(contentStart, contentEnd).includes(': ')) {
        end = contentEnd;
      } else break;
    }
    if (lineEnd >= text.length || text.charCodeAt(lineEnd) !== 10) break;
    pos = lineEnd + 1;
  }
  return end;
}

/**
 * A PEM private-key block from "-----BEGIN <label> PRIVATE KEY-----" through the matching END
 * line (covers PKCS#1/#8, EC, DSA, encrypted, OpenSSH and PGP private key blocks). A block whose
 * END is missing still yields the header and base64 body that follow (a truncated paste leaks too).
 */
export function detectPrivateKey(state: ScanState, start: number): number {
  const text = state.text;
  if (!text.startsWith(PEM_BEGIN, start)) return -1;
  const labelStart = start + PEM_BEGIN.length;
  let k = labelStart;
  while (k < text.length && k - labelStart <= MAX_PEM_LABEL) {
    const c = text.charCodeAt(k);
    if (!((c >= 65 && c <= 90) || c === 32 || (c >= 48 && c <= 57))) break;
    k++;
  }
  const label = text.slice(labelStart, k);
  if (!text.startsWith('-----', k) || !label.includes('PRIVATE KEY')) return -1;
  const headerEnd = k + 5;
  const endAt = nextPemEnd(state, headerEnd);
  if (endAt >= 0 && endAt - start <= MAX_PEM_BLOCK) {
    const footer = `${PEM_END}${label}-----`;
    if (text.startsWith(footer, endAt)) {
      const end = endAt + footer.length;
      emit(state, 'private_key', start, end, 0.99);
      return end;
    }
  }
  // No matching END: take the encapsulated headers and base64 lines that follow.
  const end = truncatedBodyEnd(text, headerEnd);
  emit(state, 'private_key', start, end, end - headerEnd >= 16 ? 0.9 : 0.85);
  return end;
}
