// Output guard: raw values the model wrote are found outside tokens (never inside one, never a
// restored value), handled per action, and in a stream no value leaves split across frames:
// the streamed result equals the one-shot result for a split at every position, and the hold
// stays bounded even for a value longer than the bound.
import { DEFAULT_POLICY } from '@veil/common';
import { describe, expect, it } from 'vitest';
import { detectAll } from '../detect/index.js';
import { CompiledPolicy } from '../policy/index.js';
import { indexEntries, rehydrateText } from '../rehydrate.js';
import { findTokensLenient } from '../repair/index.js';
import { StreamRehydrator } from '../stream/index.js';
import type { Detection, TokenEntry } from '../types.js';
import { blankTokens, maskLabel, OUTPUT_GUARD_MAX_HOLD, OutputGuard, outputGuardWarning, StreamOutputGuard, type OutputGuardAction } from './output.js';

const policy = new CompiledPolicy(DEFAULT_POLICY);
const CAP = '0a1b2c3d4e5f';
const ENTRY: TokenEntry = { id: 'e_001', type: 'email', cap: CAP, value: 'alice@corp.example', mode: 'full' };
const TOKEN = `{{email:e_001:${CAP}}}`;
const RAW_EMAIL = 'mallory@evil.example';
const RAW_CARD = '4111 1111 1111 1111';

function guardOf(action: OutputGuardAction, counts: (detection: Detection) => boolean = () => true): OutputGuard {
  return new OutputGuard({ action, detect: (text) => detectAll(text), counts, scan: findTokensLenient });
}

function restore(text: string) {
  return rehydrateText({ output: text, entries: indexEntries([ENTRY]), policy, language: 'en', caller: {}, channel: 'user_output', scan: findTokensLenient });
}

describe('OutputGuard', () => {
  it('masks raw values outside tokens and leaves tokens to be restored', () => {
    const guard = guardOf('mask');
    const guarded = guard.guard(`Write to ${TOKEN} or ${RAW_EMAIL}.`);
    expect(guarded).toBe(`Write to ${TOKEN} or ${maskLabel('email')}.`);
    const restored = restore(guarded);
    // The restored value is never looked at: restore comes after the guard.
    expect(restored.restoredText).toBe(`Write to alice@corp.example or [REDACTED:email].`);
    expect(guard.summary()).toEqual({ triggered: true, action: 'mask', findings: [{ type: 'email', count: 1 }] });
  });

  it('never finds data in a token, nor lends a token context to what is next to it', () => {
    const guard = guardOf('mask');
    const numeric = `{{us_ssn:ssn_001:123456789012}} {{phone:ph_002:415555267100}}`;
    expect(guard.guard(numeric)).toBe(numeric);
    expect(guard.triggered).toBe(false);
    expect(blankTokens(`a ${TOKEN} b`, findTokensLenient(`a ${TOKEN} b`))).toBe(`a ${' '.repeat(TOKEN.length)} b`);
  });

  it('only counts what the predicate accepts', () => {
    const guard = guardOf('mask', (detection) => detection.type !== 'email');
    expect(guard.guard(`${RAW_EMAIL} and card ${RAW_CARD}`)).toBe(`${RAW_EMAIL} and card ${maskLabel('credit_card')}`);
    expect(guard.summary().findings).toEqual([{ type: 'credit_card', count: 1 }]);
  });

  it('warn and allow leave the text; block throws VEIL_OUTPUT_BLOCKED without the value', () => {
    for (const action of ['warn', 'allow'] as const) {
      const guard = guardOf(action);
      expect(guard.guard(`mail ${RAW_EMAIL}`)).toBe(`mail ${RAW_EMAIL}`);
      expect(guard.summary()).toEqual({ triggered: true, action, findings: [{ type: 'email', count: 1 }] });
    }
    const block = guardOf('block');
    let thrown: unknown;
    try {
      block.guard(`mail ${RAW_EMAIL}`);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'VEIL_OUTPUT_BLOCKED', status: 422 });
    expect((thrown as Error).message).not.toContain('mallory');
    expect(guardOf('block').guard('nothing here')).toBe('nothing here');
  });

  it('scans the output for tokens once: the restore reuses the guard\'s scan when nothing was masked', () => {
    let scans = 0;
    const counting = (text: string) => {
      scans += 1;
      return findTokensLenient(text);
    };
    const clean = `Write to ${TOKEN} or {{EMAIL:e_001:${CAP}}}.`;
    const guard = new OutputGuard({ action: 'mask', detect: (text) => detectAll(text), counts: () => true, scan: counting });
    const guarded = guard.guardScanned(clean);
    expect(scans).toBe(1);
    expect(guarded.text).toBe(clean);
    expect(guarded.candidates).toEqual(findTokensLenient(clean));
    // Restoring from the shared scan gives what a restore with its own scan gives.
    const shared = rehydrateText({ output: guarded.text, entries: indexEntries([ENTRY]), policy, language: 'en', caller: {}, channel: 'user_output', scan: () => guarded.candidates! });
    expect(shared).toEqual(restore(clean));
    expect(shared.tokensResolved).toBe(2);
    // A masked output is a new text: its scan is not handed on (the restore scans what it gets).
    const masked = guard.guardScanned(`${clean} ${RAW_EMAIL}`);
    expect(masked.text).toContain(maskLabel('email'));
    expect(masked.candidates).toBeUndefined();
    // With warn (or allow) the text stays, and so does its scan.
    expect(guardOf('warn').guardScanned(`${TOKEN} ${RAW_EMAIL}`).candidates).toHaveLength(1);
  });

  it('the warning names types and counts, never values', () => {
    const guard = guardOf('mask');
    guard.guard(`${RAW_EMAIL} ${RAW_EMAIL} ${RAW_CARD}`);
    const warning = outputGuardWarning(guard.summary())!;
    expect(warning).toContain('3 raw value(s)');
    expect(warning).toContain('credit_card, email');
    expect(warning).not.toContain('mallory');
    expect(outputGuardWarning(guardOf('mask').summary())).toBeUndefined();
  });
});

/** A model answer long enough that the guard releases text before the end. */
function longOutput(): string {
  const filler = 'The quarterly report covers revenue, costs and the outlook for the next period. ';
  return [
    filler.repeat(4),
    `Contact ${TOKEN} for details, or ${RAW_EMAIL} if urgent. `,
    filler.repeat(3),
    `Card on file: ${RAW_CARD}. `,
    filler.repeat(5),
    `Again ${TOKEN} and ${RAW_EMAIL}`,
  ].join('');
}

function oneShot(text: string): { text: string; counts: unknown } {
  const guard = guardOf('mask');
  const restored = restore(guard.guard(text)).restoredText;
  return { text: restored, counts: guard.summary() };
}

function streamed(deltas: readonly string[]): { text: string; frames: string[]; counts: unknown; maxHeld: number } {
  const guard = guardOf('mask');
  const rehydrator = new StreamRehydrator((piece) => restore(piece), { guard: new StreamOutputGuard(guard, findTokensLenient) });
  const frames: string[] = [];
  let maxHeld = 0;
  for (const delta of deltas) {
    const out = rehydrator.push(delta);
    if (out !== '') frames.push(out);
    maxHeld = Math.max(maxHeld, rehydrator.held);
  }
  const rest = rehydrator.end();
  if (rest !== '') frames.push(rest);
  return { text: frames.join(''), frames, counts: guard.summary(), maxHeld };
}

describe('StreamOutputGuard', () => {
  const text = longOutput();
  const expected = oneShot(text);

  it('the one-shot result masks both raw values and restores the token', () => {
    expect(expected.text).not.toContain(RAW_EMAIL);
    expect(expected.text).not.toContain(RAW_CARD);
    expect(expected.text).toContain('alice@corp.example');
    expect(text.length).toBeGreaterThan(1000);
  });

  it('a split at every position gives exactly the one-shot result', () => {
    for (let cut = 0; cut <= text.length; cut += 1) {
      const result = streamed([text.slice(0, cut), text.slice(cut)]);
      expect(result.text, `split at ${cut}`).toBe(expected.text);
      expect(result.counts).toEqual(expected.counts);
    }
  });

  it('character by character: same result, text released early, no frame holds a raw value or part of one', () => {
    const result = streamed([...text]);
    expect(result.text).toBe(expected.text);
    expect(result.frames.length).toBeGreaterThan(3);
    for (const frame of result.frames) {
      expect(frame).not.toContain('mallory');
      expect(frame).not.toContain('evil.example');
      expect(frame).not.toMatch(/4111/);
    }
    // Held back: only a word, a value or a token that can still grow (the longest is the token).
    expect(result.maxHeld).toBeLessThanOrEqual(TOKEN.length + 10);
  });

  it('three-way splits around each value give the one-shot result', () => {
    const start = text.indexOf(RAW_EMAIL);
    for (let first = start - 3; first < start + RAW_EMAIL.length + 3; first += 1) {
      for (let second = first; second < first + 12; second += 1) {
        const result = streamed([text.slice(0, first), text.slice(first, second), text.slice(second)]);
        expect(result.text).toBe(expected.text);
      }
    }
  });

  it('random outputs (repair forms, brace noise, raw values) in random deltas match the one-shot result', () => {
    let seed = 7;
    const random = (limit: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % limit;
    };
    const pieces = [
      TOKEN,
      `{{ EMAIL : e_001 : ${CAP} }}`,
      `\\{\\{email:e_001:${CAP}\\}\\}`,
      `{email:e_001:${CAP}}}`,
      '{{{',
      '}}',
      '\\',
      RAW_EMAIL,
      RAW_CARD,
      ' ',
      'word ',
      'The answer continues here with ordinary prose. ',
    ];
    for (let round = 0; round < 40; round += 1) {
      const parts: string[] = [];
      for (let index = 0; index < 60; index += 1) parts.push(pieces[random(pieces.length)]!);
      const text = parts.join('');
      const expected = oneShot(text);
      const deltas: string[] = [];
      for (let cursor = 0; cursor < text.length; ) {
        const size = 1 + random(40);
        deltas.push(text.slice(cursor, cursor + size));
        cursor += size;
      }
      const result = streamed(deltas);
      expect(result.text, `round ${round}`).toBe(expected.text);
      expect(result.counts).toEqual(expected.counts);
    }
  });

  it('a value longer than the hold bound is released masked in parts, never raw', () => {
    const secret = 'X'.repeat(OUTPUT_GUARD_MAX_HOLD * 2 + 100);
    const longText = `start ${'word '.repeat(80)}${secret} end ${'word '.repeat(80)}`;
    const detect = (input: string): Detection[] => {
      const found: Detection[] = [];
      const pattern = /X+/g;
      for (const match of input.matchAll(pattern)) {
        found.push({ type: 'custom:blob', start: match.index, end: match.index + match[0].length, value: match[0], confidence: 0.9, detector: 'custom_pattern' });
      }
      return found;
    };
    const guard = new OutputGuard({ action: 'mask', detect, counts: () => true, scan: findTokensLenient });
    const rehydrator = new StreamRehydrator((piece) => restore(piece), { guard: new StreamOutputGuard(guard, findTokensLenient) });
    let out = '';
    let maxHeld = 0;
    for (let index = 0; index < longText.length; index += 7) {
      out += rehydrator.push(longText.slice(index, index + 7));
      maxHeld = Math.max(maxHeld, rehydrator.held);
    }
    out += rehydrator.end();
    expect(out).not.toContain('X');
    expect(out.startsWith('start word')).toBe(true);
    expect(out.endsWith('word ')).toBe(true);
    expect(out).toContain(maskLabel('custom:blob'));
    expect(guard.summary().findings).toEqual([{ type: 'custom:blob', count: 1 }]);
    // The bound, plus the new text a pass waits for (a quarter of the hold) and one delta.
    expect(maxHeld).toBeLessThanOrEqual(OUTPUT_GUARD_MAX_HOLD + OUTPUT_GUARD_MAX_HOLD / 4 + 7);
  });

  it('block ends the stream before any part of the value leaves', () => {
    const guard = guardOf('block');
    const rehydrator = new StreamRehydrator((piece) => restore(piece), { guard: new StreamOutputGuard(guard, findTokensLenient) });
    let out = '';
    let error: unknown;
    try {
      for (const char of text) out += rehydrator.push(char);
      out += rehydrator.end();
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: 'VEIL_OUTPUT_BLOCKED' });
    expect(out).not.toContain('mallory');
    expect(out.length).toBeLessThan(text.indexOf(RAW_EMAIL));
  });
});
