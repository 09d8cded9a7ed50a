// A Brazilian CPF written with other separators between its groups (session 17, wave16/evade; the
// matrix's most frequent raw family): `CPF 123/456/789/09`, `123_456_789_09`, `123'456'789'09`,
// `123 | 456 | 789 | 09`, `123\t456\t789\t09`, `123.456.789.09`. digit-ids.ts reads the published
// print forms (`123.456.789-09`, eleven digits); these kept the value whole before the model.
//
// Trigger: a native search for the CPF's word (`cpf`, any case) in the text; after it (within
// ID_CONTEXT_WINDOW), the first digit must open three groups of three digits joined by the same
// separator (one to three characters that are no letter, digit or line break, or `_`) and a group
// of two after one more separator; kept on the CPF's two check digits (brCpfValid), over the run
// as written. Normalization keeps a CPF's digits only (token/normalize.ts), so each spelling is the
// plain value's token and erasure.
// Session 18 (wave17/evade): or eleven one-digit groups joined by the same separator
// (`1-2-3-4-5-6-7-8-9-0-9`, `1.2.3.…`, `1 / 2 / 3 …`; the matrix's `dash-each` cell), on the same
// trigger and the same check.
import { ID_CONTEXT_WINDOW } from './digit-ids.js';
import { emit, type ScanState } from './state.js';
import { brCpfValid } from './validators.js';

const CPF_WORD = /(?<![\p{L}\p{N}])cpf(?![\p{L}])/giu;
const GROUPS = /(\d{3})([^\p{L}\p{N}\n\r]{1,3}|_)(\d{3})\2(\d{3})([^\p{L}\p{N}\n\r]{1,3}|_)(\d{2})(?![\p{L}\p{N}])/uy;
/** Eleven digits one by one, the same separator between each two (session 18). */
const EACH = /\d([^\p{L}\p{N}\n\r]{1,3}|_)\d(?:\1\d){9}(?![\p{L}\p{N}]|\1\p{N})/uy;
/** Most CPF words read in one scan. */
const MAX_WORDS = 16;
const CONFIDENCE = 0.9;

/** Emit the CPFs with other separators found after a CPF word. */
export function detectLooseCpf(state: ScanState): void {
  const text = state.text;
  CPF_WORD.lastIndex = 0;
  for (let words = 0; words < MAX_WORDS; words++) {
    const word = CPF_WORD.exec(text);
    if (word === null) return;
    const after = word.index + word[0].length;
    let digit = after;
    while (digit < text.length && digit - after < ID_CONTEXT_WINDOW && !(text.charCodeAt(digit) >= 48 && text.charCodeAt(digit) <= 57)) digit++;
    if (digit - after >= ID_CONTEXT_WINDOW || (digit > 0 && /[\p{L}\p{N}]/u.test(text.charAt(digit - 1)))) continue;
    GROUPS.lastIndex = digit;
    const match = GROUPS.exec(text);
    let run: string;
    if (match !== null) run = match[0];
    else {
      EACH.lastIndex = digit;
      const each = EACH.exec(text);
      if (each === null) continue;
      run = each[0];
    }
    const end = digit + run.length;
    if (state.out.some((found) => found.type === 'br_cpf' && found.start <= digit && found.end >= end)) continue;
    if (!brCpfValid(run.replace(/\D/g, ''))) continue;
    emit(state, 'br_cpf', digit, end, CONFIDENCE);
    CPF_WORD.lastIndex = end;
  }
}
