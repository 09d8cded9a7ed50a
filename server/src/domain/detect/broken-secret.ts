// Passwords broken over a line (session 18, wave17/evade): `password: Tr0ub4⏎dor&3x`,
// `my password is Hunter⏎    2!Blue`, `PASSWORD=hunter2-⏎  continued`, `pw=Tr0ub4\⏎dor&3x`. The
// password detectors (password.ts, prose-secret.ts) end an unquoted value at white space, so the
// line after the break reached the model raw. A password has no shape or check of its own (round
// 5b's reason), so the next line is taken only when it reads as the rest of a value, not as the
// next line of a config or of prose:
//
// - the password the scan found ends exactly at the line's end (or at a `\` that continues the
//   line, as shells and INI files write it), with no blank before the break;
// - the next line, past at most eight blanks or tabs, starts with a run of characters (to a blank)
//   at most MAX_RUN long, starting with a letter or a digit (anything after a `\`), holding no `=` or `:` (a `key=value`
//   or `key: value` line is the config's next entry, a URL is no password); sentence punctuation
//   at its end is not read;
// - the first line's half ends with `-` or `\` (a value that says it goes on), or the run reads as
//   a password's piece: alone on its line, it holds a digit or a symbol (`Thanks` or `fi` after a
//   password line are words); followed by more words, it holds a digit and a letter or a symbol
//   and is MIN_RUN_IN_LINE long (`dor&3x ok thanks`; `2 items left`, `don't` are prose);
// - no other value the scan found starts in the run (it is a value of its own).
//
// The password is reported over both lines; normalization drops the break, the indentation and a
// `\` before the break (token/normalize.ts), so it is the plain value's token and erasure.
import type { Detection } from '../types.js';
import type { ScanState } from './state.js';

/** Most blanks or tabs of indentation on the next line. */
const INDENT = 8;
/** Longest second half read. */
const MAX_RUN = 128;
/** Shortest second half read when more words follow it on its line. */
const MIN_RUN_IN_LINE = 4;
/** Most passwords looked at in one scan. */
const MAX_SECRETS = 32;

const isDigitCode = (c: number): boolean => c >= 48 && c <= 57;
const isLetterCode = (c: number): boolean => (c | 32) >= 97 && (c | 32) <= 122;
const isBlankCode = (c: number): boolean => c === 32 || c === 9;
/** Sentence punctuation that may end the run without making it a symbol-bearing value. */
const isSentenceEnd = (c: number): boolean => c === 46 || c === 44 || c === 59 || c === 33 || c === 63;

/**
 * Where the second half of a password ending at `end` ends, or -1: the line break right after it
 * (or after a `\` there), the next line read as the header says.
 */
export function secretContinuesAt(text: string, end: number, others: readonly Detection[]): number {
  let k = end;
  // A `\` that continues the line: after the value, or the value's own last character (password.ts reads it in).
  const marked = text.charCodeAt(k) === 92 || text.charCodeAt(end - 1) === 92;
  if (text.charCodeAt(k) === 92) k++;
  if (text.charCodeAt(k) === 13) k++;
  if (text.charCodeAt(k) !== 10) return -1;
  k++;
  const indent = k;
  while (k < text.length && k - indent < INDENT && isBlankCode(text.charCodeAt(k))) k++;
  const start = k;
  const first = text.charCodeAt(start);
  // After a `\` the line goes on whatever it starts with (`Hunter2\⏎  !Blue`); else a letter or a digit.
  if (!marked && !isDigitCode(first) && !isLetterCode(first)) return -1;
  while (k < text.length && k - start < MAX_RUN) {
    const c = text.charCodeAt(k);
    if (c === 32 || c === 9 || c === 10 || c === 13) break;
    if (c === 61 || c === 58) return -1; // `=` `:`: a key's line or a URL
    k++;
  }
  const runEnd = k;
  if (runEnd === start || runEnd - start >= MAX_RUN) return -1;
  let valueEnd = runEnd;
  while (valueEnd > start + 1 && isSentenceEnd(text.charCodeAt(valueEnd - 1))) valueEnd--;
  let digit = false;
  let letter = false;
  let symbol = false;
  for (let j = start; j < valueEnd; j++) {
    const c = text.charCodeAt(j);
    if (isDigitCode(c)) digit = true;
    else if (isLetterCode(c)) letter = true;
    else if (c !== 39 && c !== 34) symbol = true; // quotes: `don't`
  }
  while (k < text.length && isBlankCode(text.charCodeAt(k))) k++;
  const alone = k >= text.length || text.charCodeAt(k) === 10 || text.charCodeAt(k) === 13;
  const goesOn = marked || text.charCodeAt(end - 1) === 45; // `\` or `-` before the break
  // Alone on its line: a digit or a symbol; followed by more words: a digit with a letter or a symbol.
  const secretLike = alone ? digit || symbol : digit && (letter || symbol) && valueEnd - start >= MIN_RUN_IN_LINE;
  if (!goesOn && !secretLike) return -1;
  if (others.some((other) => other.start >= start && other.start < valueEnd)) return -1;
  return valueEnd;
}

/** Extend each password the scan found that a line break cuts (secretContinuesAt) over the next line. */
export function joinBrokenSecrets(state: ScanState): void {
  const out = state.out;
  const text = state.text;
  let seen = 0;
  for (let k = 0; k < out.length && seen < MAX_SECRETS; k++) {
    const detection = out[k]!;
    if (detection.type !== 'password') continue;
    seen++;
    const end = detection.end;
    const c = text.charCodeAt(end);
    if (c !== 10 && c !== 13 && c !== 92) continue;
    if (end === detection.start || isBlankCode(text.charCodeAt(end - 1))) continue;
    const others = out.filter((other) => other !== detection && other.end > end);
    const valueEnd = secretContinuesAt(text, end, others);
    if (valueEnd < 0) continue;
    out[k] = { ...detection, end: valueEnd, value: text.slice(detection.start, valueEnd) };
  }
}
