// Passwords, PINs, tokens and keys given in a sentence rather than as key=value ("my password is
// hunter2", "la contraseña es Perro#2020", "密码是abc123", "use token 9f8e…", "secret wJalr…"):
// chat is where people type them, and password.ts only reads `key = value` / `key: value`.
//
// Anchored on a credential word (at the word starts the scan flags, keywords.ts), then read
// forwards with bounded steps: an optional qualifier ("for my gmail account"), a copula ("is",
// "ist", "es", "est", "é", "è", "是", "は", ":", "="), and the value: a quoted string, or one run
// without spaces. A value must look like a credential, not a word: a password holds a digit, a
// symbol or a capital inside ("incorrect", "required", "Secret" are prose), a key or token is
// random-looking (highEntropy). Without a copula only unambiguous words ("password", "token",
// "secret", not "pass", "key", "pin") take a value, and only one that looks generated. Every
// anchor costs a bounded number of steps, so the pass is linear in the text.
import { isCjkCode, isSpaceCode } from './chars.js';
import { atKeywords, CJK_KEYWORD_CHAR } from './keywords.js';
import { highEntropy, isPlaceholder, listDelimiter } from './password.js';
import { emit, type ScanState } from './state.js';

const MAX_VALUE = 128;

/**
 * Credential words, matched where the scan's word loop says one may start (keywords.ts): the
 * whole word, not the start of "keyboard" or "tokenizer".
 */
const LATIN_WORD =
  /(pass(?:word|wd|phrase|code)?|pwd|pin|passwort|kennwort|mot de passe|contrase[ñn]a|senha|wachtwoord|(?:api|access|secret|private|licen[cs]e|auth)[ _-]?(?:key|token)|token|secret|key)(?=[^\p{L}\p{N}_-]|[\p{sc=Han}\p{sc=Hira}\p{sc=Kana}\p{sc=Hang}]|$)/iuy;

/** CJK credential words, written against the sentence around them (searched only when one of their characters occurs). */
const CJK_WORD = /密码|密碼|口令|パスワード|暗証番号|비밀번호/gu;

/** Words after which a value may follow with no copula at all ("token 9f8e…", "password Xk9#…"). */
const BARE_WORDS: ReadonlySet<string> = new Set(['password', 'passwd', 'passphrase', 'passwort', 'kennwort', 'pwd', 'token', 'secret']);

/**
 * After the word (sticky): an optional qualifier of one to three words after a preposition, then
 * a copula. Group 1: the copula (undefined when there is none).
 */
const QUALIFIED_COPULA =
  /(?:\s+(?:for|to|of|on|at|f[üu]r|pour|de|du|para|di|per|voor|van)(?:\s+[^\s:=]{1,30}){1,3}?)?(?:\s*([:=：＝是为為]|→|は|는|은)\s*|\s+(is\s+set\s+to|is(?:\s+now|\s+still)?|was|will\s+be|remains|ist|lautet|war|est|était|es|era|é|è)\s+)/iuy;

/** CJK copulas, written without spaces ("密码是abc123", "パスワードはabc123です"). */
const CJK_COPULA = /\s*([是为為:：=＝]|は|는|은)\s*/uy;

/** Quote characters and their closers. */
const CLOSERS: ReadonlyMap<number, number> = new Map([
  [34, 34], [39, 39], [96, 96], [0x201c, 0x201d], [0x2018, 0x2019], [0xab, 0xbb], [0x300c, 0x300d],
]);

/** Characters that end an unquoted value besides white space: CJK letters and CJK punctuation. */
function endsValue(c: number): boolean {
  return isSpaceCode(c) || isCjkCode(c) || (c >= 0x3000 && c <= 0x303f) || (c >= 0xff01 && c <= 0xff0f) || c === 0xff0c || c === 0xff1b;
}

/** Sentence punctuation that may follow a value and is not part of it. */
function trailing(c: number): boolean {
  return c === 46 || c === 44 || c === 59 || c === 58 || c === 41 || c === 93 || c === 125 || c === 34 || c === 39;
}

const LETTERS_ONLY = /^\p{L}[\p{Ll}\p{M}]*$/u;
const HAS_DIGIT = /\p{N}/u;
const HAS_SYMBOL = /[^\p{L}\p{N}\p{M}]/u;

/** A password-like value: not a plain word (lower case or capitalized), not a placeholder. */
function passwordLike(value: string, bare: boolean): boolean {
  if (value.length < 4 || isPlaceholder(value) || LETTERS_ONLY.test(value)) return false;
  const digit = HAS_DIGIT.test(value);
  // Without a copula: a generated-looking value only (letters and digits or symbols, 6+ chars).
  if (bare) return value.length >= 6 && /\p{L}/u.test(value) && (digit || HAS_SYMBOL.test(value));
  return digit || HAS_SYMBOL.test(value) || /\p{Lu}/u.test(value.slice(1));
}

/**
 * Emit the credentials given in prose in `state.text`: Latin words at `starts` (word starts the
 * scan flagged with mayStartKeyword, ascending), CJK words wherever they are (when the scan saw
 * a CJK character at all).
 */
export function detectProseSecrets(state: ScanState, starts: readonly number[], sawCjk: boolean): void {
  const text = state.text;
  atKeywords(text, starts, LATIN_WORD, (match, start) => readAfterWord(state, match[1]!.toLowerCase(), start + match[0].length, true));
  if (!sawCjk || !CJK_KEYWORD_CHAR.test(text)) return;
  CJK_WORD.lastIndex = 0;
  for (let match = CJK_WORD.exec(text); match !== null; match = CJK_WORD.exec(text)) {
    const end = readAfterWord(state, match[0], match.index + match[0].length, false);
    if (end > CJK_WORD.lastIndex) CJK_WORD.lastIndex = end;
  }
}

/** After a credential word ending at `after`: the copula and the value. Returns the value's end or -1. */
function readAfterWord(state: ScanState, word: string, after: number, latin: boolean): number {
  const text = state.text;
  const copula = latin ? QUALIFIED_COPULA : CJK_COPULA;
  copula.lastIndex = after;
  const found = copula.exec(text);
  let valueStart: number;
  let bare = false;
  if (found !== null) valueStart = copula.lastIndex;
  else if (latin && BARE_WORDS.has(word.replace(/\s+/g, ' ')) && text.charCodeAt(after) === 32) {
    valueStart = after + 1;
    bare = true;
  } else return -1;
  return readValue(state, valueStart, word, bare);
}

/** Read and emit the value at `start`; returns its end, or -1 when there is none. */
function readValue(state: ScanState, start: number, word: string, bare: boolean): number {
  const text = state.text;
  const closer = CLOSERS.get(text.charCodeAt(start));
  const keyWord = /key|token|secret/.test(word);
  if (closer !== undefined && !bare) {
    // Bounded: a quote never closed must not send every anchor to the end of the text.
    let close = start + 1;
    while (close < text.length && close - start - 1 <= MAX_VALUE && text.charCodeAt(close) !== closer) close++;
    if (text.charCodeAt(close) !== closer || close === start + 1) return -1;
    const value = text.slice(start + 1, close);
    if (value.includes('\n') || isPlaceholder(value) || (keyWord && !highEntropy(value))) return -1;
    emit(state, keyWord ? 'api_key' : 'password', start + 1, close, 0.8);
    return close;
  }
  let end = start;
  // ; & , end the value only before the next key of a query string, cookie or list (password.ts).
  while (end < text.length && end - start <= MAX_VALUE && !endsValue(text.charCodeAt(end))) {
    const c = text.charCodeAt(end);
    if ((c === 59 || c === 38 || c === 44) && listDelimiter(text, end)) break;
    end++;
  }
  if (end - start > MAX_VALUE || isPlaceholder(text.slice(start, end))) return -1;
  // A bracketed or templated value ([REDACTED], <password>, {{ secret }}) is a placeholder.
  const open = text.charCodeAt(start);
  if (open === 91 || open === 40 || open === 60 || open === 123) return -1;
  while (end > start && trailing(text.charCodeAt(end - 1))) end--;
  const value = text.slice(start, end);
  if (keyWord) {
    if (!highEntropy(value)) return -1;
    emit(state, 'api_key', start, end, 0.8);
    return end;
  }
  if (!passwordLike(value, bare)) return -1;
  emit(state, 'password', start, end, 0.8);
  return end;
}
