// Password hashes in the formats systems store them in (/etc/shadow, .htpasswd, LDAP, Django,
// passlib, PHP password_hash): `$1$`/`$apr1$` MD5-crypt, `$2a$`/`$2b$`/`$2y$` bcrypt, `$5$`/`$6$`
// SHA-crypt, `$y$` yescrypt, `$argon2id$v=19$m=…`, `$pbkdf2-sha256$…` (passlib), Django's
// `pbkdf2_sha256$…`, and LDAP's `{SSHA}…`/`{SHA}…`/`{CRYPT}$6$…`. A hash is cracked offline
// against the password it stores, so it is a `password`, though nothing names it one.
//
// Read after the scan's word loop: a native search for `$` and `{` (few in prose: prices,
// templates, code), then each format's own shape from there: its alphabet and its lengths
// (bcrypt 22+31 characters, SHA-512-crypt 86, …), bounded, so the pass is linear. A hash made
// of one repeated character or an alphabet run (`xxxx…`, `abcd…`), or without two of lower
// case, upper case and digits, is a documentation placeholder, not a hash.
import { codeAt, isAlnumCode, isDigit } from './chars.js';
import { emit, type ScanState } from './state.js';

/** crypt(3)'s alphabet: `./0-9A-Za-z`. */
function cryptCode(c: number): boolean {
  return c === 46 || c === 47 || isAlnumCode(c);
}

/** Standard base64 without padding: `A-Za-z0-9+/`. */
function base64Code(c: number): boolean {
  return c === 43 || c === 47 || isAlnumCode(c);
}

/** End of a run of `ok` characters at `from` of `min` to `max` characters, or -1. */
function run(text: string, from: number, ok: (c: number) => boolean, min: number, max: number): number {
  let end = from;
  while (end < text.length && end - from <= max && ok(text.charCodeAt(end))) end++;
  return end - from >= min && end - from <= max ? end : -1;
}

/** A digest or salt that looks generated: not one character, not an alphabet run, two character classes. */
function looksGenerated(text: string, start: number, end: number): boolean {
  let lower = 0;
  let upper = 0;
  let digit = 0;
  let steps = 0;
  let same = 0;
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c >= 97 && c <= 122) lower = 1;
    else if (c >= 65 && c <= 90) upper = 1;
    else if (c >= 48 && c <= 57) digit = 1;
    if (k > start) {
      const previous = text.charCodeAt(k - 1);
      if (c === previous + 1) steps++;
      else if (c === previous) same++;
    }
  }
  const pairs = end - start - 1;
  return lower + upper + digit >= 2 && steps * 3 < pairs && same * 3 < pairs;
}

/** The digest of `$id$` hashes: exact length in the crypt alphabet, then no more hash characters. */
function digestAt(text: string, from: number, length: number): number {
  const end = run(text, from, cryptCode, length, length);
  return end > 0 && looksGenerated(text, from, end) ? end : -1;
}

/** `$id$[rounds=N$]salt$digest` (MD5-, SHA-crypt, yescrypt); returns the end or -1. */
function saltedCrypt(text: string, from: number, maxSalt: number, digest: number, rounds: boolean): number {
  let k = from;
  if (rounds && text.startsWith('rounds=', k)) {
    const end = run(text, k + 7, isDigit, 1, 9);
    if (end < 0 || text.charCodeAt(end) !== 36) return -1;
    k = end + 1;
  }
  const saltEnd = run(text, k, cryptCode, 1, maxSalt);
  if (saltEnd < 0 || text.charCodeAt(saltEnd) !== 36) return -1;
  return digestAt(text, saltEnd + 1, digest);
}

/** `$2b$10$` + 22 salt + 31 digest characters. */
function bcrypt(text: string, from: number): number {
  if (!isDigit(text.charCodeAt(from)) || !isDigit(text.charCodeAt(from + 1)) || text.charCodeAt(from + 2) !== 36) return -1;
  return digestAt(text, from + 3, 53);
}

/** `$argon2id$v=19$m=65536,t=3,p=4$salt$digest` (salt and digest in unpadded base64). */
function argon2(text: string, from: number): number {
  let k = from;
  if (text.startsWith('v=', k)) {
    const end = run(text, k + 2, isDigit, 1, 3);
    if (end < 0 || text.charCodeAt(end) !== 36) return -1;
    k = end + 1;
  }
  const params = /^m=\d{1,10},t=\d{1,10},p=\d{1,3}(?:,[a-z]+=[A-Za-z0-9+/]{1,64})*\$/y;
  params.lastIndex = 0;
  const found = params.exec(text.slice(k, k + 120));
  if (found === null) return -1;
  k += found[0].length;
  const saltEnd = run(text, k, base64Code, 11, 64);
  if (saltEnd < 0 || text.charCodeAt(saltEnd) !== 36) return -1;
  const end = run(text, saltEnd + 1, base64Code, 22, 128);
  return end > 0 && looksGenerated(text, saltEnd + 1, end) ? end : -1;
}

/** passlib's `$pbkdf2[-sha256|-sha512]$rounds$salt$digest` (adapted base64: `.` for `+`). */
function passlibPbkdf2(text: string, from: number, digest: number): number {
  const roundsEnd = run(text, from, isDigit, 1, 10);
  if (roundsEnd < 0 || text.charCodeAt(roundsEnd) !== 36) return -1;
  const saltEnd = run(text, roundsEnd + 1, cryptCode, 4, 64);
  if (saltEnd < 0 || text.charCodeAt(saltEnd) !== 36) return -1;
  return digestAt(text, saltEnd + 1, digest);
}

/** The `$id$` prefixes and the reader of what follows each. */
const CRYPT_IDS: readonly (readonly [string, (text: string, from: number) => number])[] = [
  ['$1$', (text, from) => saltedCrypt(text, from, 8, 22, false)],
  ['$apr1$', (text, from) => saltedCrypt(text, from, 8, 22, false)],
  ['$2a$', bcrypt],
  ['$2b$', bcrypt],
  ['$2x$', bcrypt],
  ['$2y$', bcrypt],
  ['$5$', (text, from) => saltedCrypt(text, from, 16, 43, true)],
  ['$6$', (text, from) => saltedCrypt(text, from, 16, 86, true)],
  ['$y$', (text, from) => yescrypt(text, from)],
  ['$argon2id$', argon2],
  ['$argon2i$', argon2],
  ['$argon2d$', argon2],
  ['$pbkdf2$', (text, from) => passlibPbkdf2(text, from, 27)],
  ['$pbkdf2-sha256$', (text, from) => passlibPbkdf2(text, from, 43)],
  ['$pbkdf2-sha512$', (text, from) => passlibPbkdf2(text, from, 86)],
];

/** `$y$params$salt$digest` (yescrypt, the default of current Debian, Ubuntu and Fedora shadow files). */
function yescrypt(text: string, from: number): number {
  const paramsEnd = run(text, from, cryptCode, 1, 32);
  if (paramsEnd < 0 || text.charCodeAt(paramsEnd) !== 36) return -1;
  return saltedCrypt(text, paramsEnd + 1, 64, 43, false);
}

/** A `$id$…` hash at the `$` at `at`: its end, or -1. */
function cryptAt(text: string, at: number): number {
  // One load rules out most `$` (prices, shell variables, templates): every id starts `$1` `$2`
  // `$5` `$6` `$a` `$y` or `$p`.
  const first = text.charCodeAt(at + 1);
  if (first !== 49 && first !== 50 && first !== 53 && first !== 54 && first !== 97 && first !== 121 && first !== 112) return -1;
  for (const [id, read] of CRYPT_IDS) {
    if (!text.startsWith(id, at)) continue;
    const end = read(text, at + id.length);
    return end > 0 && !cryptCode(codeAt(text, end)) ? end : -1;
  }
  return -1;
}

/** Django's algorithm names before `$iterations$salt$digest`, with the base64 length of the digest. */
const DJANGO: ReadonlyMap<string, number> = new Map([
  ['pbkdf2_sha256', 44],
  ['pbkdf2_sha1', 28],
]);

/** Django's `pbkdf2_sha256$260000$salt$digest=` whose first `$` is at `at`: [start, end] or null. */
function djangoAt(text: string, at: number): readonly [number, number] | null {
  // Both names end in `sha256` or `sha1`: a digit before the `$`.
  if (!isDigit(text.charCodeAt(at - 1))) return null;
  const start = at - 13 >= 0 && text.startsWith('pbkdf2_sha256', at - 13) ? at - 13 : at - 11 >= 0 && text.startsWith('pbkdf2_sha1', at - 11) ? at - 11 : -1;
  if (start < 0 || isAlnumCode(codeAt(text, start - 1))) return null;
  const length = DJANGO.get(text.slice(start, at))!;
  const iterationsEnd = run(text, at + 1, isDigit, 1, 10);
  if (iterationsEnd < 0 || text.charCodeAt(iterationsEnd) !== 36) return null;
  const saltEnd = run(text, iterationsEnd + 1, isAlnumCode, 4, 64);
  if (saltEnd < 0 || text.charCodeAt(saltEnd) !== 36) return null;
  const digestStart = saltEnd + 1;
  let end = run(text, digestStart, base64Code, length - 2, length);
  if (end < 0) return null;
  while (end - digestStart < length && text.charCodeAt(end) === 61) end++;
  if (end - digestStart !== length || base64Code(codeAt(text, end)) || !looksGenerated(text, digestStart, end)) return null;
  return [start, end];
}

/** LDAP schemes and the digest length in bytes (salted: at least that plus four bytes of salt). */
const LDAP: ReadonlyMap<string, readonly [digest: number, salted: boolean]> = new Map([
  ['{sha}', [20, false]],
  ['{ssha}', [20, true]],
  ['{sha256}', [32, false]],
  ['{ssha256}', [32, true]],
  ['{sha512}', [64, false]],
  ['{ssha512}', [64, true]],
  ['{md5}', [16, false]],
  ['{smd5}', [16, true]],
]);

/** `{SSHA}base64` or `{CRYPT}$6$…` at the `{` at `at`: its end, or -1. */
function ldapAt(text: string, at: number): number {
  // Every scheme starts with `s`, `m` or `c` (`{SHA}`, `{SSHA512}`, `{MD5}`, `{CRYPT}`).
  const first = text.charCodeAt(at + 1) | 0x20;
  if (first !== 115 && first !== 109 && first !== 99) return -1;
  if (isAlnumCode(codeAt(text, at - 1))) return -1;
  // Bounded: a `{` with no `}` after it must not send every `{` to the end of the text.
  let close = at + 1;
  while (close < text.length && close - at <= 9 && text.charCodeAt(close) !== 125) close++;
  if (text.charCodeAt(close) !== 125) return -1;
  const scheme = text.slice(at, close + 1).toLowerCase();
  if (scheme === '{crypt}') return text.charCodeAt(close + 1) === 36 ? cryptAt(text, close + 1) : -1;
  const shape = LDAP.get(scheme);
  if (shape === undefined) return -1;
  const from = close + 1;
  let end = run(text, from, base64Code, 8, 256);
  if (end < 0) return -1;
  while (end - from < 260 && text.charCodeAt(end) === 61) end++;
  const chars = end - from;
  if (chars % 4 !== 0 || isAlnumCode(codeAt(text, end)) || !looksGenerated(text, from, end)) return -1;
  let bytes = (chars / 4) * 3;
  for (let k = end - 1; k >= from && text.charCodeAt(k) === 61; k--) bytes--;
  const [digest, salted] = shape;
  return (salted ? bytes >= digest + 4 : bytes === digest) ? end : -1;
}

/** Emit the password hashes in `state.text` (see the header). */
export function detectPasswordHashes(state: ScanState): void {
  const text = state.text;
  for (let at = text.indexOf('$'); at >= 0; ) {
    let next = at + 1;
    const django = djangoAt(text, at);
    if (django !== null) {
      emit(state, 'password', django[0], django[1], 0.95);
      next = django[1];
    } else {
      const end = cryptAt(text, at);
      if (end > 0) {
        emit(state, 'password', at, end, 0.95);
        next = end;
      }
    }
    at = text.indexOf('$', next);
  }
  for (let at = text.indexOf('{'); at >= 0; ) {
    const end = ldapAt(text, at);
    if (end > 0) emit(state, 'password', at, end, 0.95);
    at = text.indexOf('{', end > 0 ? end : at + 1);
  }
}
