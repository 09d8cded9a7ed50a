// IPv6 and MAC addresses, found at a hex-digit word start (or at "::"). The candidate run of
// [0-9A-Fa-f:.] is bounded to the longest legal IPv6 text (45 characters), and a start is only
// taken where the previous character cannot belong to the same run, so a megabyte of colons or
// hex costs one bounded look per run.
import { codeAt, isAlnumCode, isHex, isDigit } from './chars.js';
import { emit, type ScanState } from './state.js';

const COLON = 58;
const DOT = 46;
const DASH = 45;
const MAX_IPV6 = 45;

function isV6Char(c: number): boolean {
  return c === COLON || c === DOT || isHex(c);
}

function ipv4Valid(part: string): boolean {
  const octets = part.split('.');
  if (octets.length !== 4) return false;
  for (const octet of octets) {
    if (octet.length === 0 || octet.length > 3) return false;
    for (let k = 0; k < octet.length; k++) if (!isDigit(octet.charCodeAt(k))) return false;
    if (octet.length > 1 && octet.charCodeAt(0) === 48) return false;
    if (Number(octet) > 255) return false;
  }
  return true;
}

function groupsValid(part: string): number {
  if (part === '') return 0;
  const groups = part.split(':');
  for (const group of groups) {
    if (group.length === 0 || group.length > 4) return -1;
    for (let k = 0; k < group.length; k++) if (!isHex(group.charCodeAt(k))) return -1;
  }
  return groups.length;
}

/**
 * Confidence for an IPv6 text (0 when invalid): eight groups, or '::' compression, optionally
 * ending in an embedded dotted IPv4 (::ffff:1.2.3.4). Short compressed forms that also read as
 * code (a[1::2], Foo::Bar) are rejected or scored low.
 */
export function ipv6Confidence(value: string): number {
  let head = value;
  let v4 = false;
  const lastColon = value.lastIndexOf(':');
  if (value.indexOf('.') >= 0) {
    if (lastColon < 0 || !ipv4Valid(value.slice(lastColon + 1))) return 0;
    head = value.slice(0, lastColon + 1);
    v4 = true;
    // "::ffff:" -> "::ffff"; a trailing colon stays only when it is part of "::".
    if (!head.endsWith('::')) head = head.slice(0, -1);
  }
  const compressed = head.indexOf('::');
  let explicit: number;
  let longestGroup = 0;
  for (const group of head.split(':')) longestGroup = Math.max(longestGroup, group.length);
  if (compressed >= 0) {
    if (head.indexOf('::', compressed + 1) >= 0) return 0;
    const left = groupsValid(head.slice(0, compressed));
    const right = groupsValid(head.slice(compressed + 2));
    if (left < 0 || right < 0) return 0;
    explicit = left + right + (v4 ? 2 : 0);
    if (explicit > 7) return 0;
    if (value === '::1') return 0.7;
    if (explicit === 0) return 0;
    if (!v4 && (left + right < 2 || longestGroup < 2)) return 0;
    let digitSeen = false;
    for (let k = 0; k < head.length; k++) if (isDigit(head.charCodeAt(k))) digitSeen = true;
    if (!digitSeen && !v4) return 0;
    return explicit <= 2 ? 0.7 : 0.85;
  }
  explicit = groupsValid(head);
  if (explicit < 0 || explicit + (v4 ? 2 : 0) !== 8) return 0;
  // 1:2:3:4:5:6:7:8 is a ratio or a list; real addresses have multi-digit groups.
  return longestGroup >= 2 || v4 ? 0.85 : 0;
}

function tryIPv6(state: ScanState, start: number): number {
  const text = state.text;
  let end = start;
  let colons = 0;
  let compressed = false;
  let dotted = false;
  while (isV6Char(codeAt(text, end))) {
    const c = text.charCodeAt(end);
    if (c === COLON) {
      colons++;
      if (codeAt(text, end + 1) === COLON) compressed = true;
    } else if (c === DOT) dotted = true;
    end++;
    if (end - start > MAX_IPV6 + 1) return -1;
  }
  // Cheap gate before any slicing: without '::' an address has 7 colons (6 with a dotted tail);
  // times (12:30:45) and ratios stop here.
  if (!compressed && colons < (dotted ? 6 : 7)) return -1;
  // Sentence punctuation after an address: "from fe80::1." / "fe80::1:".
  while (end > start) {
    const last = text.charCodeAt(end - 1);
    if (last === DOT) end--;
    else if (last === COLON && text.charCodeAt(end - 2) !== COLON) end--;
    else break;
  }
  if (end - start < 3 || end - start > MAX_IPV6) return -1;
  const next = codeAt(text, end);
  if (isAlnumCode(next) || next === 95) return -1;
  const value = text.slice(start, end);
  if (value.indexOf(':') < 0) return -1;
  const confidence = ipv6Confidence(value);
  if (confidence === 0) return -1;
  emit(state, 'ip_address', start, end, confidence);
  return end;
}

function hexPairs(text: string, start: number, count: number, sep: number): boolean {
  for (let k = 0; k < count; k++) {
    const at = start + k * 3;
    if (!isHex(codeAt(text, at)) || !isHex(codeAt(text, at + 1))) return false;
    if (k < count - 1 && codeAt(text, at + 2) !== sep) return false;
  }
  return true;
}

/** Every octet of the six at `start` is 00, or every one is ff (either case). */
function sameOctets(text: string, start: number): boolean {
  const zero = text.charCodeAt(start) === 48;
  for (let k = 0; k < 6; k++) {
    for (let j = 0; j < 2; j++) {
      const c = text.charCodeAt(start + k * 3 + j);
      if (zero ? c !== 48 : (c | 0x20) !== 102) return false;
    }
  }
  return true;
}

function hasHexLetter(text: string, start: number, end: number): boolean {
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k) | 0x20;
    if (c >= 97 && c <= 102) return true;
  }
  return false;
}

function tryMac(state: ScanState, start: number): boolean {
  const text = state.text;
  const third = codeAt(text, start + 2);
  if (third === COLON || third === DASH) {
    if (!hexPairs(text, start, 6, third)) return false;
    const end = start + 17;
    const next = codeAt(text, end);
    if (isAlnumCode(next) || (next === third && isHex(codeAt(text, end + 1)))) return false;
    // Broadcast (ff:ff:ff:ff:ff:ff) and all-zero addresses name no device.
    if (sameOctets(text, start)) return true;
    const confidence = third === COLON ? 0.85 : hasHexLetter(text, start, end) ? 0.8 : 0.6;
    emit(state, 'mac_address', start, end, confidence);
    return true;
  }
  // Cisco dotted form 0011.2233.4455
  if (codeAt(text, start + 4) === DOT) {
    for (let k = 0; k < 14; k++) {
      const c = codeAt(text, start + k);
      if (k === 4 || k === 9 ? c !== DOT : !isHex(c)) return false;
    }
    const end = start + 14;
    const next = codeAt(text, end);
    if (isAlnumCode(next) || (next === DOT && isHex(codeAt(text, end + 1)))) return false;
    if (!hasHexLetter(text, start, end)) return false; // all-digit dotted groups read as numbers
    emit(state, 'mac_address', start, end, 0.8);
    return true;
  }
  return false;
}

/**
 * At a word start whose first character is a hex digit: try MAC, then IPv6. Returns the end of
 * an IPv6 match (so the caller can skip it) or -1.
 */
export function detectHexAt(state: ScanState, start: number): number {
  const text = state.text;
  const prev = codeAt(text, start - 1);
  // Not inside a longer run of groups (the run was looked at from its own start).
  if (isAlnumCode(prev) || prev === COLON || prev === DOT || prev === DASH || prev === 95) return -1;
  // Cheap gate: a hex run of at most 4 followed by ':' '-' or '.'.
  let k = start;
  while (isHex(codeAt(text, k)) && k - start <= 4) k++;
  const run = k - start;
  const next = codeAt(text, k);
  if (run > 4 || run === 0) return -1;
  if (next === COLON) {
    if (run === 2 && tryMac(state, start)) return -1;
    return tryIPv6(state, start);
  }
  if ((next === DASH && run === 2) || (next === DOT && run === 4)) tryMac(state, start);
  return -1;
}

/** At "::" that does not continue a hex/colon run: compressed IPv6 such as ::1 or ::ffff:1.2.3.4. */
export function detectDoubleColonAt(state: ScanState, start: number): number {
  const text = state.text;
  const prev = codeAt(text, start - 1);
  if (isAlnumCode(prev) || prev === COLON || prev === DOT || prev === 95) return -1;
  return tryIPv6(state, start);
}
