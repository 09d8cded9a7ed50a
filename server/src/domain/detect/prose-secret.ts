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
// "secret", not "pass", "key", "pin") take a value, and only one that looks generated. After a
// password word and a copula, a passphrase of 3-8 plain words that ends the clause and holds no
// prose word is one too (passphraseEnd). Every anchor costs a bounded number of steps, so the
// pass is linear in the text.
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
  /(?:\s+(?:for|to|of|on|at|f[üu]r|pour|de|du|para|di|per|voor|van)(?:\s+[^\s:=]{1,30}){1,3}?)?(?:\s*([:=：＝是为為]|→|は|는|은)\s*|\s+(is\s+set\s+to|is(?:\s+now|\s+still)?|was|will\s+be|remains|ist|lautet|war|est|était|es|era|é|è)\s*[:：]?\s+)/iuy;

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
  if (!passwordLike(value, bare)) {
    const phraseEnd = bare || keyWord || word === 'pin' ? -1 : passphraseEnd(text, start);
    if (phraseEnd < 0) return -1;
    emit(state, 'password', start, phraseEnd, 0.75);
    return phraseEnd;
  }
  emit(state, 'password', start, end, 0.8);
  return end;
}

/** Fewest and most words of a passphrase given without quotes. */
const PHRASE_WORDS_MIN = 3;
const PHRASE_WORDS_MAX = 8;
/** One word of a passphrase: letters, lower case or capitalized, with at most a digit or two at its end. */
const PHRASE_WORD = /\p{L}[\p{Ll}\p{M}]{1,14}\p{N}{0,2}/uy;

/**
 * Words that make a run of words prose rather than a passphrase: function words of the catalog's
 * languages and what people say about passwords ("must be at least eight characters long", "same
 * as before", "the name of my dog", "stored in the vault"). A diceware or xkcd-style passphrase
 * ("correct horse battery staple") is a run of content words that ends the clause.
 */
const PROSE_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but nor not no yes so if then than that this these those there here it its is are was were be been being am do does did ' +
    'to of in on at by for with from into onto over under about above below after before between through during without within up down out off ' +
    'i me my mine you your yours he him his she her hers we us our they them their what which who whom whose when where why how ' +
    'all any each every some many much more most less least few own same other such only just also too very still again ever never always ' +
    'can could will would shall should may might must need needs needed have has had get got set use used using make made see seen ' +
    'now today tomorrow yesterday new old please thanks thank ok okay etc ' +
    'one two three four five six seven eight nine ten twelve sixteen twenty ' +
    'character characters letter letters digit digits number numbers symbol symbols word words long short length minimum maximum ' +
    'strong weak secure insecure random required optional invalid incorrect wrong expired reset changed change forgot forgotten ' +
    'stored saved hashed encrypted sent shared hidden empty blank unknown default same case sensitive field account login user ' +
    'der die das den dem des ein eine einen und oder nicht ist sind war mein meine dein deine ihr sein mit von zu auf für bei ' +
    'le la les un une des et ou pas est sont mon ma mes ton ta son sa avec pour dans sur par ' +
    'el los las una unos y o es son mi mis tu su con para en por del ' +
    'o os um uma e é são meu minha com em no na ' +
    'het een en of niet zijn mijn jouw met voor van op'
  ).split(' '),
);

/** Words that start a new clause after a passphrase. */
const CLAUSE_JOINERS: ReadonlySet<string> = new Set(['and', 'but', 'so', 'because', 'which', 'or', 'und', 'aber', 'et', 'mais', 'y', 'pero', 'e', 'mas', 'en', 'maar']);

/**
 * A passphrase of plain words after a password word and a copula ("my password is correct horse
 * battery staple", "passphrase: purple monkey dishwasher lamp"): 3 to 8 words separated by single
 * spaces, none a prose word, ending the clause (a line end, the text's end, sentence punctuation,
 * or a conjunction such as "and" starting the next one). Returns the phrase's end, or -1.
 */
function passphraseEnd(text: string, start: number): number {
  let pos = start;
  let words = 0;
  for (;;) {
    PHRASE_WORD.lastIndex = pos;
    const word = PHRASE_WORD.exec(text);
    if (word === null) return -1;
    const lower = word[0].toLowerCase();
    // "… battery staple and I forgot it": a conjunction after enough words ends the clause.
    if (words >= PHRASE_WORDS_MIN && CLAUSE_JOINERS.has(lower)) return pos - 1;
    if (PROSE_WORDS.has(lower)) return -1;
    words++;
    pos = PHRASE_WORD.lastIndex;
    if (text.charCodeAt(pos) === 32 && words < PHRASE_WORDS_MAX && /\p{L}/uy.test(text.charAt(pos + 1))) {
      pos++;
      continue;
    }
    if (words < PHRASE_WORDS_MIN) return -1;
    // The clause ends here (spaces before the punctuation allowed): anything else (more words, a
    // digit, a symbol) makes it prose or a list.
    let at = pos;
    while (text.charCodeAt(at) === 32 && at - pos < 3) at++;
    const next = text.charCodeAt(at);
    if (Number.isNaN(next) || next === 10 || next === 13) return pos;
    if (next === 46 || next === 44 || next === 59 || next === 33 || next === 63 || next === 41 || next === 34 || next === 39) {
      const after = text.charCodeAt(at + 1);
      return Number.isNaN(after) || after === 32 || after === 10 || after === 13 || after === 34 || after === 39 ? pos : -1;
    }
    return -1;
  }
}
