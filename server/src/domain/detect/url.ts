// URLs: http(s)://, ftp(s):// and bare www. hosts, found at the word that starts them. The URL
// runs to the first character that cannot be in a URL in running text (whitespace, quotes,
// angle brackets) or to a closing square bracket it never opened, capped at 2048; trailing sentence punctuation and unbalanced closing brackets
// are trimmed. The caller skips past the expansion, so "http://http://..." floods stay linear.
import { codeAt, F_DIGIT, F_LOWER, F_UPPER, FLAGS, isNonAsciiLetter, isSpaceCode } from './chars.js';
import { emit, type ScanState } from './state.js';

const MAX_URL = 2048;
const ALNUM = F_DIGIT | F_UPPER | F_LOWER;

const SCHEMES = ['https://', 'http://', 'ftps://', 'ftp://'];

export function isUrlChar(c: number): boolean {
  if (c < 128) {
    // Controls, space and the delimiters RFC 3986 appendix C names for URLs in text.
    if (c <= 32 || c === 127) return false;
    return c !== 34 && c !== 39 && c !== 60 && c !== 62 && c !== 96 && c !== 123 && c !== 125 && c !== 124 && c !== 92 && c !== 94;
  }
  if (isSpaceCode(c)) return false;
  // General punctuation (curly quotes, dashes), CJK punctuation, guillemets, BOM.
  if ((c >= 0x2000 && c <= 0x206f) || (c >= 0x3000 && c <= 0x303f) || c === 0xab || c === 0xbb || c === 0xfeff) return false;
  return !(c >= 0xff01 && c <= 0xff0f);
}

/** `literal` (lowercase ASCII) at `start`, letters compared case-insensitively, no allocation. */
function startsWithIgnoreCase(text: string, start: number, literal: string): boolean {
  if (text.length - start < literal.length) return false;
  for (let k = 0; k < literal.length; k++) {
    const expected = literal.charCodeAt(k);
    const actual = text.charCodeAt(start + k);
    if (actual !== expected && !(expected >= 97 && expected <= 122 && (actual | 0x20) === expected)) return false;
  }
  return true;
}

/** Does `actual` match the literal's `expected` code unit as startsWithIgnoreCase compares them? */
function sameIgnoringCase(actual: number, expected: number): boolean {
  return actual === expected || (expected >= 97 && expected <= 122 && (actual | 0x20) === expected);
}

/**
 * May detectUrl match at a word whose first two code units are `c` and `second` (127 stands for
 * any unit from 127 up, or none)? Its literals (`www.` and the schemes) compared as it compares
 * them: a superset of where it matches, for the scan's pair table.
 */
export function urlMayStartWith(c: number, second: number): boolean {
  return ['www.', ...SCHEMES].some((literal) => sameIgnoringCase(c, literal.charCodeAt(0)) && sameIgnoringCase(second, literal.charCodeAt(1)));
}

function schemeLength(text: string, start: number): number {
  // Scheme names are case-insensitive (HTTP://).
  for (const scheme of SCHEMES) if (startsWithIgnoreCase(text, start, scheme)) return scheme.length;
  return 0;
}

/** Drop trailing punctuation and closing brackets that have no opening partner in the URL. */
export function trimEnd(text: string, start: number, end: number): number {
  let e = end;
  for (;;) {
    if (e <= start) return e;
    const c = text.charCodeAt(e - 1);
    if (c === 46 || c === 44 || c === 59 || c === 58 || c === 33 || c === 63 || c === 42) {
      e--;
      continue;
    }
    if (c === 41 || c === 93) {
      const open = c === 41 ? 40 : 91;
      let balance = 0;
      for (let k = start; k < e; k++) {
        const d = text.charCodeAt(k);
        if (d === open) balance++;
        else if (d === c) balance--;
      }
      if (balance < 0) {
        e--;
        continue;
      }
    }
    return e;
  }
}

/** Host (after userinfo) must look like a name with a dot, localhost, or a bracketed IPv6. */
function hostValid(text: string, hostStart: number, end: number): boolean {
  let k = hostStart;
  while (k < end) {
    const c = text.charCodeAt(k);
    if (c === 47 || c === 63 || c === 35) break;
    k++;
  }
  let authority = text.slice(hostStart, k);
  const at = authority.lastIndexOf('@');
  if (at >= 0) authority = authority.slice(at + 1);
  if (authority.startsWith('[')) return authority.includes(']');
  const colon = authority.indexOf(':');
  const host = (colon >= 0 ? authority.slice(0, colon) : authority).toLowerCase();
  if (host === 'localhost') return true;
  const dot = host.lastIndexOf('.');
  if (dot <= 0 || dot === host.length - 1) return false;
  const first = host.charCodeAt(0);
  if (!((first < 128 && (FLAGS[first]! & ALNUM) !== 0) || first >= 128)) return false;
  // An address ends in digits; a name in a top-level domain of letters (or an IDN label), and
  // "www." is not one ("www.microsoft" is a word, not a host).
  return tldValid(host, dot + 1) && !(host.startsWith('www.') && host.indexOf('.', 4) < 0);
}

/** The last label of `host` (from `start`): all digits (an IPv4 address), two or more letters, or punycode. */
function tldValid(host: string, start: number): boolean {
  if (host.startsWith('xn--', start)) return host.length - start > 4;
  let digits = 0;
  for (let k = start; k < host.length; k++) {
    const c = host.charCodeAt(k);
    if (c >= 48 && c <= 57) digits++;
    else if (c < 128 ? !((c >= 97 && c <= 122) || (c >= 65 && c <= 90)) : !isNonAsciiLetter(c)) return false;
  }
  const length = host.length - start;
  return digits === length ? length <= 3 : digits === 0 && length >= 2;
}

const PASSWORD_PLACEHOLDER = /^(?:\*+|x+|\.\.\.|<[^>]*>|\$\{[^}]*\}|\{\{[^}]*\}\}|%[a-z_]*%?|\[[^\]]*\]|password|pass|pwd|secret|changeme)$/i;

/**
 * True when the authority starting at `authorityStart` has `user:password@` with a real password
 * (not empty, not a placeholder such as *** or <password> or ${DB_PASSWORD}).
 */
export function userinfoPassword(text: string, authorityStart: number, end: number): boolean {
  let k = authorityStart;
  while (k < end) {
    const c = text.charCodeAt(k);
    if (c === 47 || c === 63 || c === 35) break;
    k++;
  }
  const authority = text.slice(authorityStart, k);
  const at = authority.lastIndexOf('@');
  if (at <= 0) return false;
  const userinfo = authority.slice(0, at);
  const colon = userinfo.indexOf(':');
  if (colon < 0) return false;
  const password = userinfo.slice(colon + 1);
  return password.length > 0 && !PASSWORD_PLACEHOLDER.test(password);
}

const WEBHOOK_PREFIXES = ['hooks.slack.com/services/', 'discord.com/api/webhooks/', 'discordapp.com/api/webhooks/', 'hooks.zapier.com/hooks/catch/'];

/** Slack, Discord and Zapier incoming webhooks: the URL itself is the credential. */
function isWebhook(text: string, hostStart: number): boolean {
  for (const prefix of WEBHOOK_PREFIXES) if (startsWithIgnoreCase(text, hostStart, prefix)) return true;
  return false;
}

/** At a word starting with h/f/w: returns the end of the expansion looked at (0 if none). */
export function detectUrl(state: ScanState, start: number): number {
  const text = state.text;
  const c = text.charCodeAt(start) | 0x20;
  let hostStart: number;
  let confidence: number;
  if (c === 119 /* w */) {
    if (!startsWithIgnoreCase(text, start, 'www.')) return 0;
    const next = codeAt(text, start + 4);
    if (next < 0 || !(next >= 128 || (FLAGS[next]! & ALNUM) !== 0)) return 0;
    hostStart = start;
    confidence = 0.8;
  } else {
    const length = schemeLength(text, start);
    if (length === 0) return 0;
    hostStart = start + length;
    const next = codeAt(text, hostStart);
    if (next < 0 || !(next === 91 || next >= 128 || (FLAGS[next]! & ALNUM) !== 0)) return 0;
    confidence = 0.85;
  }
  let end = hostStart;
  // A `]` that closes no `[` of the URL ends it (RFC 3986 allows brackets only around an IPv6
  // host; in a path or query they are percent-encoded or paired, as in `ids[]=1`): the Markdown
  // link `[http://a.example](http://b.example)` holds two URLs, not one running through `](`.
  let brackets = 0;
  while (end < text.length && end - start < MAX_URL && isUrlChar(text.charCodeAt(end))) {
    const code = text.charCodeAt(end);
    if (code === 91) brackets++;
    else if (code === 93 && brackets-- === 0) break;
    end++;
  }
  const expansionEnd = end;
  end = trimEnd(text, hostStart, end);
  if (end > hostStart && hostValid(text, hostStart, end)) {
    // A password in the userinfo makes the whole URL a credential (connection_string); a bare
    // user@ still wins over the inner email match.
    const password = userinfoPassword(text, hostStart, end);
    if (password) {
      emit(state, 'connection_string', start, end, 0.95);
      return expansionEnd;
    }
    if (text.slice(hostStart, end).includes('@')) confidence = 0.9;
    // Incoming-webhook URLs carry their secret in the path: report them as keys.
    const type = isWebhook(text, hostStart) ? 'api_key' : 'url';
    emit(state, type, start, end, type === 'api_key' ? 0.95 : confidence);
  }
  return expansionEnd;
}
