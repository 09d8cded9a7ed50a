// Red-team finding (session 10): the stream output guard must mask whatever the one-shot guard
// masks, for every spelling of a value the detectors read (digits grouped any way, full-width,
// Unicode dashes, spelled out word by word), whatever the deltas. Before, a number spelled out
// ("four one one one ...") streamed one character per delta left in pieces: the hold covered
// digit groups, not digit words, so only the last words were masked.
import { DEFAULT_POLICY } from '@veil/common';
import { describe, expect, it } from 'vitest';
import { detectAll } from '../detect/index.js';
import { CompiledPolicy } from '../policy/index.js';
import { indexEntries, rehydrateText } from '../rehydrate.js';
import { findTokensLenient } from '../repair/index.js';
import { StreamRehydrator } from '../stream/index.js';
import { OutputGuard, StreamOutputGuard } from './output.js';

const policy = new CompiledPolicy(DEFAULT_POLICY);

/** Leaked values in the spellings the one-shot guard masks. */
const LEAKS: readonly string[] = [
  '4111 1111 1111 1111',
  '4111-1111-1111-1111',
  '4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1',
  '４１１１ １１１１ １１１１ １１１１',
  '4111\u20111111\u20111111\u20111111',
  'four one one one one one one one one one one one one one one one',
  'Four One One One One One One One One One One One One One One One',
  'four one one one, one one one one, one one one one, one one one one',
  'four-one-one-one-one-one-one-one-one-one-one-one-one-one-one-one',
  'vier eins eins eins eins eins eins eins eins eins eins eins eins eins eins eins',
  'quatre un un un un un un un un un un un un un un un',
  'my SSN is zero seven eight zero five one one two zero',
  'call five five five, oh one three four, area four one five',
  '078-05-1120',
  '+1 415 555 0134',
  'GB82 WEST 1234 5698 7654 32',
];

function restore(text: string) {
  return rehydrateText({ output: text, entries: indexEntries([]), policy, language: 'en', caller: {}, channel: 'user_output', scan: findTokensLenient });
}

const guardOf = (): OutputGuard => new OutputGuard({ action: 'mask', detect: (text) => detectAll(text), counts: () => true, scan: findTokensLenient });

function oneShot(text: string): string {
  return restore(guardOf().guard(text)).restoredText;
}

function streamed(deltas: readonly string[]): string {
  const rehydrator = new StreamRehydrator((piece) => restore(piece), { guard: new StreamOutputGuard(guardOf(), findTokensLenient) });
  let out = '';
  for (const delta of deltas) out += rehydrator.push(delta);
  return out + rehydrator.end();
}

function cut(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let index = 0; index < text.length; index += size) pieces.push(text.slice(index, index + size));
  return pieces;
}

describe('the stream output guard masks every spelling the one-shot guard masks', () => {
  it.each(LEAKS.map((leak) => [leak]))('%j, in deltas of 1 to 16 characters and split anywhere', (leak) => {
    const text = `Sure. The value you asked for is ${leak} as requested, bye.`;
    const expected = oneShot(text);
    expect(expected, 'the one-shot guard masks it').toContain('[REDACTED:');
    for (let size = 1; size <= 16; size += 1) expect(streamed(cut(text, size)), `deltas of ${size}`).toBe(expected);
    for (let at = 0; at <= text.length; at += 1) expect(streamed([text.slice(0, at), text.slice(at)]), `split at ${at}`).toBe(expected);
  });
});
