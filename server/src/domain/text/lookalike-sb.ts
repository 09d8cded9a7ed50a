// `S` for 5 and `B` for 8 inside a number (session 15, wave14/evade2; detect/lookalike-sb.ts).
// Only a word of digits and these two letters, holding a digit, is read: words of prose (`BOSS`,
// `SOS`), words with other letters (`B2B` has too few digits to be a value, a vanity `FLOWERS` has
// other letters) and hex ids (`5B3A`: other letters) stay as written.

const isDigit = (code: number): boolean => code >= 48 && code <= 57;
const isSB = (code: number): boolean => code === 83 || code === 66;
const isWordCode = (code: number): boolean => isDigit(code) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;

/** The digit an `S` or `B` stands for. */
const digitOf = (code: number): string => (code === 83 ? '5' : '8');

/**
 * `value` with `S` read as 5 and `B` as 8 in every word made of digits and these letters only,
 * holding a digit and a letter; other words unchanged.
 */
export function readSBDigits(value: string): string {
  let out = '';
  let index = 0;
  while (index < value.length) {
    if (!isWordCode(value.charCodeAt(index))) {
      out += value.charAt(index);
      index++;
      continue;
    }
    let end = index;
    let digits = 0;
    let letters = 0;
    let other = false;
    while (end < value.length && isWordCode(value.charCodeAt(end))) {
      const code = value.charCodeAt(end);
      if (isDigit(code)) digits++;
      else if (isSB(code)) letters++;
      else other = true;
      end++;
    }
    const word = value.slice(index, end);
    out += !other && digits > 0 && letters > 0 ? word.replace(/[SB]/g, (letter) => digitOf(letter.charCodeAt(0))) : word;
    index = end;
  }
  return out;
}

/** Does `value` hold a word readSBDigits would change? */
export function holdsSBDigits(value: string): boolean {
  return readSBDigits(value) !== value;
}
