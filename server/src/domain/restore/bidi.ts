// The bidi rule for restored values (interface.md 2.8): a value containing right-to-left text
// or bidi control characters is isolated in U+2068 FIRST STRONG ISOLATE ... U+2069 POP
// DIRECTIONAL ISOLATE, with its own bidi controls stripped, so a restored value can neither
// reorder the surrounding text (Trojan-Source style) nor be reordered by it. Left-to-right
// values are returned unchanged.

export const FSI = '\u2068';
export const PDI = '\u2069';

/**
 * Right-to-left scripts: Hebrew, Arabic, Syriac, Thaana, NKo, Samaritan, Mandaic and the
 * Arabic extensions (U+0590-U+08FF), Hebrew and Arabic presentation forms, and the RTL
 * blocks of the supplementary planes (Phoenician, Kharoshthi, Avestan, Adlam, ...).
 */
const RTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFE\u{10800}-\u{10FFF}\u{1E800}-\u{1EFFF}]/u;

/** Embeddings, overrides, isolates, LRM/RLM and the Arabic letter mark. */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/gu;
const HAS_BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/u;

export function needsIsolation(text: string): boolean {
  return RTL.test(text) || HAS_BIDI_CONTROL.test(text);
}

/** Apply the bidi rule to one restored value. */
export function applyBidiRule(text: string): string {
  if (!needsIsolation(text)) return text;
  return `${FSI}${text.replace(BIDI_CONTROLS, '')}${PDI}`;
}
