// Email addresses (ASCII and internationalized, RFC 6531 / IDNA), anchored on '@': expand left over local-part characters (at most 64, RFC 5321)
// and right over domain characters (at most 255), then validate labels and the TLD. Expansions
// stop at another '@', so near-miss floods (a@a@a@..., aaaa...@) stay linear.
import { codeAt, continuedLineAt, F_DIGIT, F_LOWER, F_UPPER, FLAGS, isAlnumCode, isCjkCode, isNonAsciiLetter } from './chars.js';
import { emit, type ScanState } from './state.js';

const MAX_LOCAL = 64;
const MAX_DOMAIN = 255;
const ALNUM = F_DIGIT | F_UPPER | F_LOWER;

function isLocalChar(c: number): boolean {
  // [A-Za-z0-9._%+-]: the dot-atom characters people actually use, plus non-ASCII letters
  // (RFC 6531 internationalized addresses: jörg@…, 用户@…).
  if (c >= 128) return isNonAsciiLetter(c) && c !== 0xff20;
  return (FLAGS[c]! & ALNUM) !== 0 || c === 46 || c === 95 || c === 37 || c === 43 || c === 45;
}

function isDomainChar(c: number): boolean {
  // Internationalized domain names in Unicode form (bücher.de, 例子.中国) as well as xn-- labels.
  if (c >= 128) return isNonAsciiLetter(c) && c !== 0xff20;
  return (FLAGS[c]! & ALNUM) !== 0 || c === 46 || c === 45;
}

function domainValid(text: string, start: number, end: number): boolean {
  let labelStart = start;
  let labels = 0;
  for (let k = start; k <= end; k++) {
    if (k < end && text.charCodeAt(k) !== 46) continue;
    const length = k - labelStart;
    if (length === 0 || length > 63) return false;
    if (text.charCodeAt(labelStart) === 45 || text.charCodeAt(k - 1) === 45) return false;
    labels++;
    if (k === end) {
      // Top-level label: letters only (ASCII, Unicode letters of an IDN TLD, or an "xn--" label).
      if (!text.startsWith('xn--', labelStart)) {
        let nonAscii = false;
        for (let j = labelStart; j < k; j++) {
          const raw = text.charCodeAt(j);
          if (raw >= 128) {
            nonAscii = true;
            continue;
          }
          const c = raw | 0x20;
          if (c < 97 || c > 122) return false;
        }
        // Two letters at least; a one-character TLD only in a script without spaces (中国 is two).
        if (length < 2 && !nonAscii) return false;
      } else if (length < 5) return false;
    }
    labelStart = k + 1;
  }
  return labels >= 2;
}

function hasAsciiLetterOrDigit(text: string, start: number, end: number): boolean {
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c < 128 && (FLAGS[c]! & ALNUM) !== 0) return true;
  }
  return false;
}

/** Longest top-level label read past a blank (`.example`, `.com`, `.museum`). */
const MAX_SPLIT_LABEL = 24;

function isLowerAscii(c: number): boolean {
  return c >= 97 && c <= 122;
}

/**
 * A domain of one label followed by its top-level label past a blank (`jane@corp .example`,
 * `jane@corp . example`: an address split before its dot, as typed to get it past a filter):
 * the end past that label, or `end` when none follows. A blank before the dot (no sentence puts
 * one there), at most one blank after it, two to 24 lower-case letters, and then a blank, the end
 * or sentence punctuation (not a path: `user@host .ssh/`).
 */
function splitTopLabel(text: string, end: number): number {
  let k = end;
  const blank = (c: number): boolean => c === 32 || c === 9;
  if (!blank(text.charCodeAt(k))) return end;
  k++;
  if (text.charCodeAt(k) !== 46) return end;
  k++;
  if (blank(text.charCodeAt(k))) k++;
  const labelStart = k;
  while (k - labelStart <= MAX_SPLIT_LABEL && isLowerAscii(text.charCodeAt(k))) k++;
  if (k - labelStart < 2 || k - labelStart > MAX_SPLIT_LABEL) return end;
  const next = codeAt(text, k);
  if (!(next < 0 || blank(next) || next === 10 || next === 13 || next === 44 || next === 59 || next === 33 || next === 63 || next === 41 || (next === 46 && !isAlnumCode(codeAt(text, k + 1))))) return end;
  return k;
}

/** At '@' (position `at`): returns the end of an emitted address, or -1. */
export function detectEmail(state: ScanState, at: number): number {
  const text = state.text;
  let localStart = at;
  while (localStart > 0 && isLocalChar(text.charCodeAt(localStart - 1))) {
    localStart--;
    if (at - localStart > MAX_LOCAL) return -1;
  }
  // Chinese, Japanese or Korean written straight before an ASCII address ("邮箱jane@...") is
  // the sentence, not the local part: the address starts after the last CJK character when
  // ASCII letters or digits follow it ("090-1234-5678です。メールはtaro@...", where the
  // ideographic full stop reads as a dot, is a phone number, a sentence and taro@...).
  if (hasAsciiLetterOrDigit(text, localStart, at)) {
    let afterCjk = at;
    while (afterCjk > localStart && !isCjkCode(text.charCodeAt(afterCjk - 1))) afterCjk--;
    if (afterCjk > localStart && hasAsciiLetterOrDigit(text, afterCjk, at)) localStart = afterCjk;
    else while (localStart < at && isCjkCode(text.charCodeAt(localStart))) localStart++;
  }
  while (localStart < at && text.charCodeAt(localStart) === 46) localStart++; // no leading dot
  if (localStart === at || text.charCodeAt(at - 1) === 46) return -1;
  let domainEnd = at + 1;
  let firstNonAscii = -1;
  while (domainEnd < text.length && isDomainChar(text.charCodeAt(domainEnd))) {
    if (firstNonAscii < 0 && text.charCodeAt(domainEnd) >= 128) firstNonAscii = domainEnd;
    domainEnd++;
    if (domainEnd - at - 1 > MAX_DOMAIN) return -1;
  }
  // ... and after an ASCII domain ("example.com谢谢"): the domain ends at the first CJK
  // character that follows an ASCII letter or digit.
  for (let k = Math.max(firstNonAscii, at + 2); firstNonAscii >= 0 && k < domainEnd; k++) {
    const previous = text.charCodeAt(k - 1);
    if (isCjkCode(text.charCodeAt(k)) && previous < 128 && (FLAGS[previous]! & ALNUM) !== 0) {
      domainEnd = k;
      break;
    }
  }
  // Trailing sentence punctuation is not part of the domain.
  while (domainEnd > at + 1) {
    const last = text.charCodeAt(domainEnd - 1);
    if (last !== 46 && last !== 45) break;
    domainEnd--;
  }
  if (domainEnd <= at + 1 || isAlnumCode(codeAt(text, domainEnd))) return -1;
  const broken = brokenDomainEnd(text, at, domainEnd);
  if (broken > 0) {
    emit(state, 'email', localStart, broken, 0.9);
    return broken;
  }
  let dotted = false;
  for (let k = at + 1; k < domainEnd && !dotted; k++) dotted = text.charCodeAt(k) === 46;
  const split = dotted ? domainEnd : splitTopLabel(text, domainEnd);
  if (split !== domainEnd) {
    // Validated as written without the blanks: "corp" and "example" joined by the dot.
    let labelStart = split;
    while (isLowerAscii(text.charCodeAt(labelStart - 1))) labelStart--;
    const joined = `${text.slice(at + 1, domainEnd)}.${text.slice(labelStart, split)}`;
    if (!domainValid(joined, 0, joined.length)) return -1;
    domainEnd = split;
  } else if (!domainValid(text, at + 1, domainEnd)) return -1;
  // "a..b@x.com" is not an address.
  if (text.slice(localStart, at).includes('..')) return -1;
  emit(state, 'email', localStart, domainEnd, 0.9);
  return domainEnd;
}

/**
 * An address broken by one line break inside its domain (`jane.doe@c⏎orp.example`): the domain
 * before the break is no domain (no dot: the half is no address), the next line goes straight on
 * with domain characters holding a dot, and the joined domain is valid; the end of the joined
 * address, or -1. Both halves are address-like (a local part and `@` before, a dotted domain
 * after), so two words of prose never join. The span holds the break (normalization drops it).
 */
function brokenDomainEnd(text: string, at: number, domainEnd: number): number {
  const next = continuedLineAt(text, domainEnd, ALNUM);
  if (next < 0) return -1;
  for (let k = at + 1; k < domainEnd; k++) if (text.charCodeAt(k) === 46) return -1;
  let end = next;
  let dot = false;
  while (end < text.length && end - next <= MAX_DOMAIN && isDomainChar(text.charCodeAt(end)) && text.charCodeAt(end) < 128) {
    if (text.charCodeAt(end) === 46) dot = true;
    end++;
  }
  while (end > next && (text.charCodeAt(end - 1) === 46 || text.charCodeAt(end - 1) === 45)) end--;
  if (!dot || end - next > MAX_DOMAIN || isAlnumCode(codeAt(text, end))) return -1;
  const joined = text.slice(at + 1, domainEnd) + text.slice(next, end);
  return joined.includes('.') && domainValid(joined, 0, joined.length) ? end : -1;
}
