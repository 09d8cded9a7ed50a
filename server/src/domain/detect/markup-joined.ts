// Values split by markup that renders as nothing (session 14, wave13/evade; text/markup-strip.ts):
// `DNI 1234<b></b>5678Z`, `passport number **9128**03456`, `mac address 00:1A:2B<b></b>:3C:4D:5E`,
// `my password is <span>Tr0ub4</span><span>dor&3x</span>`, `card [41](x)11 1111 1111 1111`,
// `"1234" + "5678Z"`. The fold reads a space between two digits there (or keeps the unit beside a
// `:` or a letter), so the value's detector saw two short numbers.
//
// Where the text holds a chain of units between two characters of a run (one a digit, or a `:`
// beside a letter or digit: jointsInText), the run is read with every unit taken out, with the
// text before it (its value word), by the same built-in scan one level deep. A value found in
// that reading is kept only when it spans a place where a unit was taken out (the markup is
// inside it) and it proves itself: a type with a check or a prefix of its own (cards: Luhn; IBANs:
// mod 97; wallets: base58check or the 0x shape; provider keys, JWTs and private keys: their
// prefix; passwords and e-mail addresses: their detector's own word or shape), or the type's value
// word stands before it (an SSN, a phone, a date, an IP or MAC address, a national id: the same
// context words the detectors use). The value is reported over the text as written, units
// included; normalization takes the units out again (token/normalize.ts), so it is one token and
// one erasure with the plain value, and restore gives back the text as written.
import type { Detection } from '../types.js';
import type { FoldedText } from '../text/fold.js';
import { foldWithOffsets } from '../text/fold.js';
import { chainEnd, jointsInText, stripMarkup } from '../text/markup-strip.js';
import { hasValueWordBefore } from './value-words.js';

/** The scanner a reading goes through (scanBuiltin one level deep). */
export type ReadingScanner = (text: string) => Detection[];

/** Most joints read in one text (each a scan of about BEFORE + the run). */
const MAX_JOINTS = 32;
/** Text before the run read with it (its value word). */
const BEFORE = 64;
/** Longest run read on either side of a joint. */
const RUN_MAX = 160;

/** Types whose detector proves the value by a check, a prefix or its own word. */
const SELF_PROVING: ReadonlySet<string> = new Set([
  'credit_card', 'iban', 'crypto_wallet', 'api_key', 'jwt', 'private_key', 'password', 'email', 'connection_string',
]);

function isBlank(code: number): boolean {
  return !(code > 0x20);
}

/**
 * Add to `candidates` (spans in `view`'s folded text) the values `text` holds split by markup;
 * a candidate found forwards inside such a value's span gives way to it.
 */
export function addMarkupJoined(text: string, view: FoldedText, candidates: Detection[], scan: ReadingScanner): void {
  const joints = jointsInText(text, MAX_JOINTS);
  if (joints.length === 0) return;
  const found: Detection[] = [];
  let readUpTo = -1;
  for (const joint of joints) {
    if (joint < readUpTo) continue;
    // The run around the joint: to the blanks on either side (units with blanks inside, such as a
    // tag's attributes, are stepped over by stripMarkup; the run stops at the first blank).
    let runStart = joint;
    while (runStart > 0 && joint - runStart < RUN_MAX && !isBlank(text.charCodeAt(runStart - 1))) runStart--;
    let runEnd = chainEnd(text, joint);
    while (runEnd < text.length && runEnd - joint < RUN_MAX && !isBlank(text.charCodeAt(runEnd))) runEnd++;
    // A run of grouped digits goes on past single blanks (`[41](x)11 1111 1111 1111`).
    while (runEnd < text.length && runEnd - joint < RUN_MAX && text.charCodeAt(runEnd) === 0x20 && isGroupStart(text, runEnd + 1)) {
      runEnd++;
      while (runEnd < text.length && runEnd - joint < RUN_MAX && !isBlank(text.charCodeAt(runEnd))) runEnd++;
    }
    readUpTo = runEnd;
    const from = Math.max(0, runStart - BEFORE);
    const stripped = stripMarkup(text, from, runEnd);
    const inner = stripped.joints.filter((at) => stripped.origin[at]! > runStart);
    if (inner.length === 0) continue;
    const folded = foldWithOffsets(`${stripped.text} `);
    for (const detection of scan(folded.text)) {
      if (detection.confidence < 0.5) continue;
      const span = folded.originalSpan(detection.start, detection.end);
      if (span.end > stripped.text.length) span.end = stripped.text.length;
      if (!inner.some((at) => at > span.start && at < span.end)) continue;
      const start = stripped.origin[span.start]!;
      const end = stripped.origin[span.end - 1]! + 1;
      if (!proves(text, detection.type, start)) continue;
      const mapped = view.foldedSpan(start, end);
      found.push({ ...detection, start: mapped.start, end: mapped.end, value: view.text.slice(mapped.start, mapped.end) });
    }
  }
  if (found.length === 0) return;
  // What the scan found forwards inside a joined value (its halves) gives way to it.
  const kept = candidates.filter((candidate) => !found.some((joined) => candidate.start < joined.end && candidate.end > joined.start && (candidate.start > joined.start || candidate.end < joined.end)));
  candidates.length = 0;
  candidates.push(...kept, ...found);
}

/** A digit group (or a `+` or `(` before one) starts at `at`. */
function isGroupStart(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  return (code >= 48 && code <= 57) || ((code === 0x2b || code === 0x28) && text.charCodeAt(at + 1) >= 48 && text.charCodeAt(at + 1) <= 57);
}

/** A value of `type` at `start` (original text) proves itself or has its value word before it. */
function proves(text: string, type: string, start: number): boolean {
  return SELF_PROVING.has(type) || hasValueWordBefore(text, type, start);
}
