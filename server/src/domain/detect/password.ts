// Passwords and secret values in key=value / key: value context (env files, YAML, JSON, INI,
// connection strings, log lines, HTTP Authorization headers). Key-like names (api_key,
// secret_key, AccountKey) take their value as an api_key only when it has high entropy. Anchored on '=' and ':'; the key is read backwards (bounded) and
// matched against password/secret/token-like names; only the value is reported. Placeholders
// (***, <redacted>, ${VAR}, type annotations such as `password: str`) are not secrets.
import { codeAt, isAlnumCode, isDigit, isNonAsciiLetter, isSpaceCode, isUpper } from './chars.js';
import { emit, type ScanState } from './state.js';

const MAX_KEY = 48;
const MAX_VALUE = 256;

/** Key names (lowercase, separators removed) whose value is a password: type `password`. */
const PASSWORD_SUFFIXES = [
  'password', 'passwd', 'passphrase', 'passwort', 'kennwort', 'motdepasse', 'contraseña', 'contrasena',
  'senha', 'wachtwoord', 'secret', 'token', 'pwd', 'pass', 'pw', 'apikey', 'key', 'authorization',
];
/** Suffixes that need a separator or camelCase boundary before them ("bypass", "compass"). */
const BOUNDED_SUFFIXES = new Set(['pwd', 'pass', 'pw', 'token', 'secret', 'key']);
/** Token-like keys hold long random values; short human words after them are prose. */
const TOKEN_SUFFIXES = new Set(['token', 'secret']);

const PLACEHOLDERS = new Set([
  'null', 'none', 'nil', 'undefined', 'empty', 'true', 'false', 'redacted', '[redacted]', '(redacted)', 'hidden',
  '[hidden]', 'filtered', '[filtered]', 'masked', '[masked]', 'removed', '[removed]', 'secret', 'password', 'changeit',
  'str', 'string', 'int', 'bool', 'boolean', 'any', 'number', 'bytes', 'secretstr', 'optional', 'required', 'text',
  'your_password', 'yourpassword', 'your-password', 'xxx', 'n/a', 'tbd', 'todo', '...',
  'is', 'was', 'will', 'must', 'should', 'the', 'and', 'for', 'not', 'reset', 'expired', 'invalid',
]);

// Module-level and without the g flag, so no lastIndex state is shared between calls.
const ENV_VARIABLE = /^\$[A-Z_0-9]+$/;
const POSITIONAL = /^\$\d$/;
const CALL_OR_ATTRIBUTE = /^[A-Za-z_][A-Za-z0-9_.]*\(/;
const LOWERCASE_WORD = /^[a-z]+$/;
/**
 * Unquoted values that are code, not secrets: member access (session.secret), calls and indexing
 * (get(kid), list[0]), regex literals (/^[0-9]/), camelCase and SCREAMING_SNAKE identifiers
 * (jwtSecret, HEX_SECRET). Every alternative splits its input one way only (no backtracking).
 */
const CODE_VALUE =
  /^(?:[A-Za-z_$][\w$]*(?:\.[A-Za-z_$#][\w$#]*)+.*|[A-Za-z_$][\w$]*[[(].*|\/\^.*|[a-z]+(?:[A-Z][a-z]+)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)$/;

function isKeyChar(c: number): boolean {
  return (c < 128 && (isAlnumCode(c) || c === 95 || c === 45 || c === 46)) || (c >= 128 && isNonAsciiLetter(c));
}

/** Last two letters of the suffixes (and "passe"), so most keys are rejected on two characters. */
const SUFFIX_TAILS = new Set([...PASSWORD_SUFFIXES, 'passe'].map((suffix) => tailKey(suffix.charCodeAt(suffix.length - 2), suffix.charCodeAt(suffix.length - 1))));

function tailKey(beforeLast: number, last: number): number {
  // Latin-1 letters differ from their uppercase form in bit 0x20 only.
  return ((beforeLast | 0x20) << 16) | (last | 0x20);
}

/** `suffix` (lowercase) ends text[.., end), compared case-insensitively for Latin-1 letters. */
function endsWithIgnoreCase(text: string, end: number, suffix: string, keyStart: number): boolean {
  const from = end - suffix.length;
  if (from < keyStart) return false;
  for (let k = 0; k < suffix.length; k++) {
    const expected = suffix.charCodeAt(k);
    const actual = text.charCodeAt(from + k);
    // Latin-1 letters differ from their uppercase form in bit 0x20 only.
    if (actual !== expected && (actual | 0x20) !== expected) return false;
  }
  return true;
}

/** Kind of secret named by text[keyStart, keyEnd): 'password', 'token' or undefined. */
type KeyKind = 'password' | 'token' | 'key' | 'auth';

/** Key names whose value is an API key when it looks random (api_key, secretKey, AccountKey). */
const KEY_SUFFIXES = new Set(['apikey', 'key']);

function keyKind(text: string, keyStart: number, keyEnd: number): KeyKind | undefined {
  if (!SUFFIX_TAILS.has(tailKey(text.charCodeAt(keyEnd - 2), text.charCodeAt(keyEnd - 1)))) return undefined;
  for (const suffix of PASSWORD_SUFFIXES) {
    if (!endsWithIgnoreCase(text, keyEnd, suffix, keyStart)) continue;
    const at = keyEnd - suffix.length;
    if (BOUNDED_SUFFIXES.has(suffix) && at > keyStart) {
      const before = text.charCodeAt(at - 1);
      const separator = before === 95 || before === 45 || before === 46;
      const camel = isUpper(text.charCodeAt(at)) && !isUpper(before);
      if (!separator && !camel) continue;
    }
    if (KEY_SUFFIXES.has(suffix)) return 'key';
    if (suffix === 'authorization') return 'auth';
    return TOKEN_SUFFIXES.has(suffix) ? 'token' : 'password';
  }
  // The French multi-word key "mot de passe".
  if (endsWithIgnoreCase(text, keyEnd, 'passe', keyStart) && keyEnd - keyStart === 5) {
    if (text.slice(Math.max(0, keyStart - 7), keyStart).toLowerCase() === 'mot de ') return 'password';
  }
  return undefined;
}

function countSpaces(text: string, start: number, end: number): number {
  let spaces = 0;
  for (let k = start; k < end; k++) if (text.charCodeAt(k) === 32) spaces++;
  return spaces;
}

export function isPlaceholder(value: string): boolean {
  const lower = value.toLowerCase();
  if (PLACEHOLDERS.has(lower)) return true;
  const first = value.charCodeAt(0);
  // One repeated mask character: ***, xxxx, ••••, ----, ????.
  let uniform = true;
  for (let k = 1; k < value.length && uniform; k++) if ((value.charCodeAt(k) | 0x20) !== (first | 0x20)) uniform = false;
  if (uniform && (first === 42 || first === 120 || first === 88 || first === 0x2022 || first === 45 || first === 63 || first === 46 || first === 35)) {
    return true;
  }
  // <redacted>, <password>, ${DB_PASSWORD}, {{ secret }}, %s, $1, env references.
  if ((first === 60 && value.endsWith('>')) || value.startsWith('${') || value.startsWith('{{') || value.startsWith('%(')) return true;
  if (value === '%s' || ENV_VARIABLE.test(value) || POSITIONAL.test(value)) return true;
  if (lower.startsWith('process.env') || lower.startsWith('os.environ') || lower.startsWith('env(') || lower.startsWith('getenv')) return true;
  // A call or attribute access (password = getpass(), password: form.password) is code, not a value.
  if (CALL_OR_ATTRIBUTE.test(value)) return true;
  return false;
}

/** highEntropy's character counts (every UTF-16 unit; a value is at most MAX_VALUE long) and first occurrences; all zero between calls. */
const ENTROPY_COUNTS = new Uint16Array(65536);
const ENTROPY_ORDER: number[] = [];

/**
 * Shannon entropy of at least 3.5 bits per character over at least 16 characters, with digits
 * and letters mixed: what generated keys look like, and what names, words and paths do not.
 */
export function highEntropy(value: string): boolean {
  if (value.length < 16 || value.length > MAX_VALUE || value.includes(' ')) return false;
  // Counts in a table kept between calls (reset below) instead of a Map per value; the sum runs
  // over the characters in the order of their first occurrence, as the Map's did, so every
  // rounding is the same.
  const counts = ENTROPY_COUNTS;
  const order = ENTROPY_ORDER;
  order.length = 0;
  let digits = 0;
  let letters = 0;
  for (let k = 0; k < value.length; k++) {
    const c = value.charCodeAt(k);
    if (c >= 48 && c <= 57) digits++;
    else if ((c | 0x20) >= 97 && (c | 0x20) <= 122) letters++;
    if (counts[c]!++ === 0) order.push(c);
  }
  let entropy = 0;
  if (digits !== 0 && letters !== 0) {
    for (const c of order) {
      const p = counts[c]! / value.length;
      entropy -= p * Math.log2(p);
    }
  }
  for (const c of order) counts[c] = 0;
  return digits !== 0 && letters !== 0 && entropy >= 3.5;
}

/** Longest key read after a list delimiter ("&next=", "; path=", ",user="). */
const MAX_NEXT_KEY = 40;

/**
 * Whether the ; & or , at `at` ends an unquoted value: it does at the end of the text or a
 * line, before a space, and before the next key of a query string, cookie or list ("&next=",
 * ",user:", "&amp;"); "pw=Tr0ub4dor&3" and "pw=Tr0ub;4dor" keep their whole value.
 */
export function listDelimiter(text: string, at: number): boolean {
  const next = codeAt(text, at + 1);
  if (next < 0 || isSpaceCode(next)) return true;
  if (text.startsWith('amp;', at + 1)) return true;
  let k = at + 1;
  if (!((next | 0x20) >= 97 && (next | 0x20) <= 122) && next !== 95) return false;
  while (k < text.length && k - at <= MAX_NEXT_KEY && isKeyChar(text.charCodeAt(k))) k++;
  const after = codeAt(text, k);
  return after === 61 || after === 58;
}

const AUTH_SCHEMES = ['bearer ', 'basic ', 'token ', 'apikey ', 'digest ', 'negotiate '];

/** "Authorization: Bearer <token>" (or Basic/Token): the credential after the scheme word. */
function authorizationValue(state: ScanState, at: number): number {
  const text = state.text;
  let v = at + 1;
  while (v < text.length && v - at <= 8 && (text.charCodeAt(v) === 32 || text.charCodeAt(v) === 9 || text.charCodeAt(v) === 34 || text.charCodeAt(v) === 39)) v++;
  const head = text.slice(v, v + 10).toLowerCase();
  const scheme = AUTH_SCHEMES.find((candidate) => head.startsWith(candidate));
  if (scheme === undefined) return -1;
  const valueStart = v + scheme.length;
  let valueEnd = valueStart;
  while (valueEnd < text.length && valueEnd - valueStart <= 4096) {
    const c = text.charCodeAt(valueEnd);
    if (isSpaceCode(c) || c === 34 || c === 39 || c === 44 || c === 59 || c === 60 || c === 41 || c === 93 || c === 125) break;
    valueEnd++;
  }
  state.assignScanEnd = Math.max(state.assignScanEnd, valueEnd);
  const value = text.slice(valueStart, valueEnd);
  if (value.length < 8 || isPlaceholder(value) || LOWERCASE_WORD.test(value)) return -1;
  emit(state, 'api_key', valueStart, valueEnd, 0.9);
  return valueEnd;
}

/**
 * At '=' or ':' (position `at`): if a secret-like key precedes it, emit its value. Returns the
 * value end or -1. The text after the separator is still scanned by the caller (a card number or
 * provider key in the value keeps its own type); separators inside an already-scanned value are
 * not examined again, so "password=password=..." floods stay linear.
 */
/**
 * Where the value of a YAML block scalar opened at `v` (`|` or `>`, an optional chomping or
 * indentation indicator, the line's end) starts: the first character of the next line past its
 * indentation; `v` when there is no block scalar.
 */
function blockScalarValue(text: string, v: number): number {
  const open = text.charCodeAt(v);
  if (open !== 124 && open !== 62) return v;
  let b = v + 1;
  while (b < text.length && b - v <= 3 && (text.charCodeAt(b) === 45 || text.charCodeAt(b) === 43 || isDigit(text.charCodeAt(b)))) b++;
  while (b < text.length && b - v <= 8 && (text.charCodeAt(b) === 32 || text.charCodeAt(b) === 9)) b++;
  if (text.charCodeAt(b) === 13) b++;
  if (text.charCodeAt(b) !== 10) return v;
  const indent = ++b;
  while (b < text.length && b - indent <= 16 && (text.charCodeAt(b) === 32 || text.charCodeAt(b) === 9)) b++;
  return b > indent ? b : v;
}

export function detectAssignedSecret(state: ScanState, at: number): number {
  const text = state.text;
  if (at < state.assignScanEnd) return -1;
  const sep = text.charCodeAt(at);
  const next = codeAt(text, at + 1);
  if (sep === 61 /* = */) {
    const prev = codeAt(text, at - 1);
    if (next === 61 || prev === 61 || prev === 33 || prev === 60 || prev === 62) return -1; // ==, !=, <=, >=
  } else if (next === 58 || next === 47 || codeAt(text, at - 1) === 58) return -1; // ::, ://
  // Key: skip spaces and a closing quote, then read key characters backwards.
  let k = at - 1;
  while (k >= 0 && at - k <= 4 && (text.charCodeAt(k) === 32 || text.charCodeAt(k) === 9)) k--;
  const quote = codeAt(text, k);
  const keyQuoted = quote === 34 || quote === 39;
  if (keyQuoted) k--;
  const keyEnd = k + 1;
  while (k >= 0 && keyEnd - k <= MAX_KEY && isKeyChar(text.charCodeAt(k))) k--;
  const keyStart = k + 1;
  if (keyEnd - keyStart < 2 || keyEnd - keyStart > MAX_KEY) return -1;
  const kind = keyKind(text, keyStart, keyEnd);
  if (kind === undefined) return -1;
  if (kind === 'auth') return authorizationValue(state, at);
  // Value: skip spaces, then a quoted string or an unquoted run.
  let v = at + 1;
  while (v < text.length && v - at <= 8 && (text.charCodeAt(v) === 32 || text.charCodeAt(v) === 9)) v++;
  // A YAML block scalar (`password: |⏎  S3cret!`, `>-`): the value is on the next, indented line.
  if (sep === 58) v = blockScalarValue(text, v);
  const open = codeAt(text, v);
  let valueStart: number;
  let valueEnd: number;
  let proseLike = false;
  const quoted = open === 34 || open === 39 || open === 96;
  if (quoted) {
    valueStart = v + 1;
    valueEnd = valueStart;
    while (valueEnd < text.length && valueEnd - valueStart <= MAX_VALUE) {
      const c = text.charCodeAt(valueEnd);
      if (c === open || c === 10 || c === 13) break;
      valueEnd++;
    }
    state.assignScanEnd = valueEnd;
    if (codeAt(text, valueEnd) !== open) return -1;
    // 'asks for a passphrase: "Enter passphrase for key"' is prose quoting a prompt; a JSON or
    // YAML value has a quoted key or no run of words.
    if (sep === 58 && !keyQuoted && countSpaces(text, valueStart, valueEnd) >= 2) return -1;
  } else {
    valueStart = v;
    valueEnd = v;
    while (valueEnd < text.length && valueEnd - valueStart <= MAX_VALUE) {
      const c = text.charCodeAt(valueEnd);
      // Delimiters of the surrounding syntax: whitespace, closing brackets/quotes, and ; & , where
      // they separate (see listDelimiter); inside a value they are the value's own characters.
      if (isSpaceCode(c) || c === 41 || c === 93 || c === 125 || c === 34 || c === 39 || c === 60) break;
      if ((c === 59 || c === 38 || c === 44) && listDelimiter(text, valueEnd)) break;
      valueEnd++;
    }
    // A bracketed placeholder ([REDACTED], (hidden)) ends at its closing bracket.
    const first = codeAt(text, valueStart);
    const closer = codeAt(text, valueEnd);
    if ((first === 91 && closer === 93) || (first === 40 && closer === 41)) valueEnd++;
    // Sentence punctuation after an unquoted value ("password: hunter2.").
    while (valueEnd > valueStart && (text.charCodeAt(valueEnd - 1) === 46 || text.charCodeAt(valueEnd - 1) === 58)) valueEnd--;
    // "Password: please ask the admin" is prose: a lowercase word followed by more words.
    if (sep === 58 && text.charCodeAt(at + 1) === 32 && codeAt(text, valueEnd) === 32 && isAlnumCode(codeAt(text, valueEnd + 1))) {
      proseLike = LOWERCASE_WORD.test(text.slice(valueStart, valueEnd));
    }
  }
  state.assignScanEnd = Math.max(state.assignScanEnd, valueEnd);
  const length = valueEnd - valueStart;
  if (length < 3 || length > MAX_VALUE || proseLike) return -1;
  const value = text.slice(valueStart, valueEnd);
  if (isPlaceholder(value)) return -1;
  if (!quoted) {
    if (CODE_VALUE.test(value)) return -1;
    // A bare lowercase word is a variable in code (password: value, password = pw) unless it is
    // written tight as in env files and URLs (password=letmein).
    const tight = sep === 61 && valueStart === at + 1 && codeAt(text, at - 1) !== 32;
    if (!tight && LOWERCASE_WORD.test(value)) return -1;
  }
  if (kind === 'token' && (length < 8 || LOWERCASE_WORD.test(value))) return -1;
  if (kind === 'key') {
    // api_key / secret_key / AccountKey: only random-looking values (a key, not a key name).
    if (!highEntropy(value)) return -1;
    emit(state, 'api_key', valueStart, valueEnd, 0.8);
    return valueEnd;
  }
  emit(state, 'password', valueStart, valueEnd, kind === 'token' ? 0.8 : 0.85);
  return valueEnd;
}
