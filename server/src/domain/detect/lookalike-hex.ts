// Colon-separated hex values written with look-alike letters for their digits (session 15,
// wave14/evade): an IPv6 address `2aOO:l45O:4OOl:82a::2OOe`, a MAC address `OO:lA:2B:3C:4D:5E`
// (`O`/`o` for 0, `l`/`I` for 1; Cyrillic, Greek, full-width and mathematical forms reach this as
// ASCII through the fold). lookalike-digits.ts reads chains of digits and look-alikes only, so a
// hex group's own letters (`2a`, `lA`) ended its chains. `O`, `o`, `l` and `I` are no hex digits:
// in a run of colon-separated groups of hex digits and those letters the reading is unambiguous,
// and the run is read with every look-alike as its digit, scanned one level deep, and kept when
// the reading is an IP or MAC address (the detector's own checks: group counts, `::` once) and the
// address's word stands before it (value-words.ts: `ip`, `server`, `host`, `mac`, …): an address
// proves nothing by itself, and a hex run with a letter `O` is no address as written.
//
// Runs on the folded text from detectAll. Trigger: a native search for `:` and two reads (a hex
// digit or look-alike on both sides); then a look-alike in the groups beside it (eight reads).
import type { Detection } from '../types.js';
import type { ReadingScanner } from './lookalike-digits.js';
import { hasValueWordBefore } from './value-words.js';

/** Most colons looked at in one text (a long text of colons costs a bounded pass). */
const MAX_COLONS = 2048;
/** Longest run read (an IPv6 address is at most 39 characters, a MAC address 17). */
const MAX_RUN = 45;
/** Text before a run scanned with it (its value word), and after it (an end boundary). */
const CONTEXT_BEFORE = 64;
const CONTEXT_AFTER = 2;
const READ_TYPES: ReadonlySet<string> = new Set(['ip_address', 'mac_address']);

/**
 * O o l I: the letters drawn like 0 and 1; and the Greek and Cyrillic O, o and I, which the fold
 * reads as Latin only in a word that mixes in ASCII (`ΟΟ:lA:…` written with a Greek group alone).
 */
function isLookalike(code: number): boolean {
  if (code < 128) return code === 0x4f || code === 0x6f || code === 0x6c || code === 0x49;
  // Greek capital and small omicron, Cyrillic capital and small O, Cyrillic capital I (one UTF-16 unit each).
  return code === 0x39f || code === 0x3bf || code === 0x41e || code === 0x43e || code === 0x406;
}

const OTHER_O = /[\u039f\u03bf\u041e\u043e]/g;
const OTHER_I = /\u0406/g;

function isHex(code: number): boolean {
  return (code >= 48 && code <= 57) || ((code | 0x20) >= 97 && (code | 0x20) <= 102);
}

function isGroupChar(code: number): boolean {
  return isHex(code) || isLookalike(code);
}

function isWordChar(code: number): boolean {
  return (code >= 48 && code <= 57) || ((code | 0x20) >= 97 && (code | 0x20) <= 122) || code === 95;
}

/** A look-alike within four characters of the colon at `colon`, on its own groups' side. */
function lookalikeBeside(text: string, colon: number): boolean {
  for (let k = colon - 1; k >= 0 && k >= colon - 4 && isGroupChar(text.charCodeAt(k)); k--) if (isLookalike(text.charCodeAt(k))) return true;
  for (let k = colon + 1; k < text.length && k <= colon + 4 && isGroupChar(text.charCodeAt(k)); k++) if (isLookalike(text.charCodeAt(k))) return true;
  return false;
}

/**
 * The run [start, end) of colon-separated groups around `colon` when it has the shape of an
 * address written with look-alikes: three colons or more, groups of at most four characters
 * (`::` once at most), a look-alike and a digit; undefined otherwise.
 */
function runAround(text: string, colon: number): { start: number; end: number } | undefined {
  let start = colon;
  while (start > 0 && colon - start < MAX_RUN && (isGroupChar(text.charCodeAt(start - 1)) || text.charCodeAt(start - 1) === 58)) start--;
  let end = colon + 1;
  while (end < text.length && end - start < MAX_RUN && (isGroupChar(text.charCodeAt(end)) || text.charCodeAt(end) === 58)) end++;
  if ((start > 0 && isWordChar(text.charCodeAt(start - 1))) || (end < text.length && isWordChar(text.charCodeAt(end)))) return undefined;
  let colons = 0;
  let doubles = 0;
  let group = 0;
  let looks = 0;
  let digits = 0;
  for (let k = start; k < end; k++) {
    const code = text.charCodeAt(k);
    if (code === 58) {
      colons++;
      if (k > start && text.charCodeAt(k - 1) === 58) doubles++;
      group = 0;
      continue;
    }
    if (++group > 4) return undefined;
    if (isLookalike(code)) looks++;
    else if (code >= 48 && code <= 57) digits++;
  }
  return colons >= 3 && doubles <= 1 && looks > 0 && digits > 0 ? { start, end } : undefined;
}

/**
 * The MAC address written with `-` around the hyphen at `hyphen` (session 16, wave15/evade2:
 * `mac 0O-1A-2B-3C-4D-5E`): exactly six groups of two hex digits or look-alikes joined by five
 * hyphens, a word boundary on both sides, a look-alike and a digit; undefined otherwise. (`-`
 * joins no IPv6 groups; a MAC address is the only hex value this reads so.)
 */
function macRunAround(text: string, hyphen: number): { start: number; end: number } | undefined {
  // The hyphen is the first, second, … or fifth of the address: its start is 2, 5, … 14 before it.
  for (let start = hyphen - 2; start >= 0 && start >= hyphen - 14; start -= 3) {
    if (start > 0 && (isWordChar(text.charCodeAt(start - 1)) || text.charCodeAt(start - 1) === 45)) continue;
    const end = start + MAC_LENGTH;
    if (end > text.length || (end < text.length && (isWordChar(text.charCodeAt(end)) || text.charCodeAt(end) === 45))) continue;
    let looks = 0;
    let digits = 0;
    let shaped = true;
    for (let k = start; k < end && shaped; k++) {
      const code = text.charCodeAt(k);
      if ((k - start) % 3 === 2) shaped = code === 45;
      else if (isLookalike(code)) looks++;
      else if (code >= 48 && code <= 57) digits++;
      else shaped = isHex(code);
    }
    if (shaped && looks > 0 && digits > 0) return { start, end };
  }
  return undefined;
}

/** Length of a MAC address written with separators (`00-1A-2B-3C-4D-5E`). */
const MAC_LENGTH = 17;

/** `text` with the look-alike letters of [start, end) as digits (one unit each: offsets unchanged). */
function readRun(text: string, start: number, end: number): string {
  return text.slice(0, start) + digitsOf(text.slice(start, end)) + text.slice(end);
}

function digitsOf(run: string): string {
  return run.replace(/[Oo]/g, '0').replace(/[lI]/g, '1').replace(OTHER_O, '0').replace(OTHER_I, '1');
}

/** Add to `candidates` the IP and MAC addresses `text` (the folded text) holds written with look-alike letters. */
export function addLookalikeHex(text: string, candidates: Detection[], scan: ReadingScanner): void {
  let readUpTo = -1;
  let seen = 0;
  for (let colon = text.indexOf(':', 1); colon >= 0 && seen < MAX_COLONS; colon = text.indexOf(':', colon + 1)) {
    seen++;
    if (colon < readUpTo) continue;
    const before = text.charCodeAt(colon - 1);
    const after = text.charCodeAt(colon + 1);
    if (!isGroupChar(before) && before !== 58) continue;
    if (!isGroupChar(after) && after !== 58) continue;
    if (!lookalikeBeside(text, colon)) continue;
    const run = runAround(text, colon);
    if (run === undefined) continue;
    readUpTo = run.end;
    addRunReading(text, run, READ_TYPES, candidates, scan);
  }
  addLookalikeMacHyphens(text, candidates, scan);
}

/**
 * Scan the run [run.start, run.end) read with its look-alikes as digits (with its context) and add
 * the value of `types` the scan finds exactly over the run (a look-alike read in it), with its word
 * before it.
 */
function addRunReading(text: string, run: { readonly start: number; readonly end: number }, types: ReadonlySet<string>, candidates: Detection[], scan: ReadingScanner): void {
  const from = Math.max(0, run.start - CONTEXT_BEFORE);
  const to = Math.min(text.length, run.end + CONTEXT_AFTER);
  const reading = readRun(text.slice(from, to), run.start - from, run.end - from);
  for (const found of scan(reading)) {
    if (found.confidence < 0.5 || !types.has(found.type)) continue;
    const start = found.start + from;
    const end = found.end + from;
    if (start !== run.start || end !== run.end || !hasValueWordBefore(text, found.type, start)) continue;
    candidates.push({ type: found.type, start, end, value: text.slice(start, end), confidence: found.confidence, detector: 'builtin_regex' });
  }
}

const MAC_TYPE: ReadonlySet<string> = new Set(['mac_address']);

/**
 * Add the MAC addresses written with `-` and look-alike letters (`0O-1A-2B-3C-4D-5E`; macRunAround).
 * Trigger: a native search for `-` and two reads (a hex digit or look-alike on both sides, a
 * look-alike beside it); the run is read and kept as the colon form is (a MAC address the scan
 * finds exactly over the run, its word before it).
 */
function addLookalikeMacHyphens(text: string, candidates: Detection[], scan: ReadingScanner): void {
  let readUpTo = -1;
  let seen = 0;
  for (let hyphen = text.indexOf('-', 2); hyphen >= 0 && seen < MAX_COLONS; hyphen = text.indexOf('-', hyphen + 1)) {
    seen++;
    if (hyphen < readUpTo) continue;
    if (!isGroupChar(text.charCodeAt(hyphen - 1)) || !isGroupChar(text.charCodeAt(hyphen + 1))) continue;
    if (!lookalikeBeside(text, hyphen)) continue;
    const run = macRunAround(text, hyphen);
    if (run === undefined) continue;
    readUpTo = run.end;
    addRunReading(text, run, MAC_TYPE, candidates, scan);
  }
}

/** An IP or MAC address written with look-alike letters, with its digits (normalization); undefined for any other value. */
export function readLookalikeHex(value: string): string | undefined {
  // A MAC address with `-` between its groups (session 16, wave15/evade2) reads the same.
  const hyphens = /^(?:[0-9A-Fa-fOolI\u039f\u03bf\u041e\u043e\u0406]{2}-){5}[0-9A-Fa-fOolI\u039f\u03bf\u041e\u043e\u0406]{2}$/.test(value);
  if (!hyphens && (!/^[0-9A-Fa-fOolI:\u039f\u03bf\u041e\u043e\u0406]+$/.test(value) || !value.includes(':'))) return undefined;
  if (!/[OolI\u039f\u03bf\u041e\u043e\u0406]/.test(value)) return undefined;
  return digitsOf(value);
}
