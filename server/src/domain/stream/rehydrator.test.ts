// Streaming restore (threats.md 8): real tokenized outputs split at every code-point position and
// in random multi-way splits restore exactly as one non-streaming restore does, with the strict
// and the repair scan; no piece carries a partial token, a raw cap or a lone surrogate; the
// held-back suffix stays bounded.
import { DEFAULT_POLICY } from '@veil/common';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectAll } from '../detect/index.js';
import { CompiledPolicy } from '../policy/index.js';
import { indexEntries, rehydrateText } from '../rehydrate.js';
import { MarkupContext } from '../restore/index.js';
import { findTokensLenient } from '../repair/index.js';
import { findTokens, TokenAllocator, type TokenCandidate } from '../token/index.js';
import { tokenizeText } from '../tokenize.js';
import type { TokenEntry } from '../types.js';
import { MAX_HELD_BRACE_RUN, MAX_HOLDBACK, StreamRehydrator, streamCut, type RestoreFunction } from './rehydrator.js';

const policy = new CompiledPolicy(DEFAULT_POLICY);
const allocator = new TokenAllocator();
const entries: TokenEntry[] = [];

/** Tokenize like the transform does, sharing one session. */
function tokenize(input: string): string {
  const result = tokenizeText({ text: input, detections: detectAll(input, { language: 'en' }), policy, context: {}, allocator });
  entries.push(...result.newEntries);
  return result.safeText;
}

const OUTPUTS = [
  'Write to ada.lovelace@example.com or call +1 415 555 2671 today.',
  'Card 4111 1111 1111 1111 on file 😀; IBAN DE89 3704 0044 0532 0130 00. 谢谢！',
  'Server 192.168.10.20 answered; ping ada.lovelace@example.com again 🎉🎉',
  'SSN 078-05-1120\n\nRegards,\nthe team ✉️',
].map(tokenize);
const map = indexEntries(entries);
const CAPS = entries.map((entry) => entry.cap);
const VALUES = entries.map((entry) => entry.value);

/** A restore that, given a rendering context, continues it (as the stream route does). */
type ContextRestore = (output: string, markup?: MarkupContext) => ReturnType<RestoreFunction>;

function restorer(scan: (text: string) => readonly TokenCandidate[]): ContextRestore {
  return (output, markup) => rehydrateText({ output, entries: map, policy, language: 'en', caller: {}, channel: 'user_output', scan, markup });
}
const SCANS = [
  ['strict', restorer(findTokens)],
  ['repair', restorer(findTokensLenient)],
] as const;

/** Mangle every token of `text` the way models do (repairable forms). */
function mangle(text: string, variant: number): string {
  return text.replace(/\{\{([a-z_:]+):([a-z]+_\d+):([0-9a-f]+)\}\}/g, (_match, type: string, id: string, cap: string) => {
    switch (variant % 4) {
      case 0:
        return `{{ ${type.toUpperCase()} : ${id} : ${cap} }}`;
      case 1:
        return `\\{\\{${type.replaceAll('_', '\\_')}:${id}:${cap}\\}\\}`;
      case 2:
        return `{${type}:${id}:${cap}}}`;
      default:
        return `{{${type}:${id}:\n${cap}}`;
    }
  });
}

interface Streamed {
  readonly pieces: string[];
  readonly cuts: number[];
  readonly rehydrator: StreamRehydrator;
}

function stream(restore: ContextRestore, deltas: readonly string[]): Streamed {
  // One rendering context for the whole stream, as routes/stream.ts does: a URL or tag opened in
  // an earlier piece must clamp a token of a later one exactly as the one-shot restore does.
  const markup = new MarkupContext();
  const rehydrator = new StreamRehydrator((text) => restore(text, markup));
  const pieces: string[] = [];
  const cuts: number[] = [];
  for (const delta of deltas) {
    pieces.push(rehydrator.push(delta));
    cuts.push(rehydrator.consumed);
    expect(rehydrator.held).toBeLessThanOrEqual(MAX_HOLDBACK);
  }
  pieces.push(rehydrator.end());
  return { pieces, cuts, rehydrator };
}

function splitAt(text: string, positions: readonly number[]): string[] {
  const sorted = [...new Set(positions)].filter((position) => position > 0 && position < text.length).sort((a, b) => a - b);
  const deltas: string[] = [];
  let from = 0;
  for (const position of sorted) {
    deltas.push(text.slice(from, position));
    from = position;
  }
  deltas.push(text.slice(from));
  return deltas;
}

function hasLoneSurrogate(text: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

/** Brace units (`{` or `\{`, or the closing pair) in the run touching `position`, both ways. */
function unitsAround(text: string, position: number, brace: '{' | '}'): number {
  let anchor = brace === '{' ? position : position - 1;
  if (text[anchor] === '\\') anchor += 1;
  let units = 0;
  let cursor = anchor;
  while (cursor >= 0 && text[cursor] === brace) {
    units += 1;
    cursor -= text[cursor - 1] === '\\' ? 2 : 1;
  }
  cursor = anchor + 1;
  while (cursor < text.length) {
    if (text[cursor] === brace) cursor += 1;
    else if (text[cursor] === '\\' && text[cursor + 1] === brace) cursor += 2;
    else break;
    units += 1;
  }
  return units;
}

/** The checks every streamed restore must pass against the one-shot restore. */
function checkAgainstWhole(restore: ContextRestore, text: string, streamed: Streamed): void {
  const whole = restore(text);
  expect(streamed.pieces.join('')).toBe(whole.restoredText);
  expect(streamed.rehydrator.tokensResolved).toBe(whole.tokensResolved);
  expect(streamed.rehydrator.tokensUnresolved.map((item) => item.reason)).toEqual(whole.tokensUnresolved.map((item) => item.reason));
  // Exact, raw text included, unless a brace run is longer than the held bound.
  if (!/(?:\\?\{){17,}|(?:\\?\}){17,}/.test(text)) expect(streamed.rehydrator.tokensUnresolved).toEqual(whole.tokensUnresolved);
  // No cut ever falls inside a token candidate of either grammar. The one exception is an
  // over-braced attempt (never a token) whose brace run is longer than MAX_HELD_BRACE_RUN.
  const candidates = [...findTokens(text), ...findTokensLenient(text)];
  for (const cut of streamed.cuts) {
    for (const candidate of candidates) {
      if (cut <= candidate.start || cut >= candidate.end) continue;
      const longRun = candidate.token === null && Math.max(unitsAround(text, candidate.start, '{'), unitsAround(text, candidate.end, '}')) > MAX_HELD_BRACE_RUN;
      expect(longRun, `cut ${cut} inside ${candidate.raw}`).toBe(true);
    }
  }
  for (const piece of streamed.pieces) expect(hasLoneSurrogate(piece)).toBe(false);
}

describe('StreamRehydrator on real tokenized outputs', () => {
  const texts = OUTPUTS.flatMap((output, index) => [output, mangle(output, index), mangle(output, index + 1)]);

  for (const [scanName, restore] of SCANS) {
    it(`${scanName}: a split at every code-point position restores like the whole`, () => {
      for (const text of texts) {
        const whole = restore(text).restoredText;
        let position = 0;
        for (const char of text) {
          position += char.length;
          const streamed = stream(restore, splitAt(text, [position]));
          expect(streamed.pieces.join('')).toBe(whole);
          expect(streamed.rehydrator.tokensResolved).toBe(restore(text).tokensResolved);
          for (const piece of streamed.pieces) expect(hasLoneSurrogate(piece)).toBe(false);
        }
      }
    });

    it(`${scanName}: random multi-way splits (code units included) restore like the whole`, () => {
      fc.assert(
        fc.property(fc.constantFrom(...texts), fc.array(fc.nat(), { maxLength: 24 }), (text, raw) => {
          checkAgainstWhole(restore, text, stream(restore, splitAt(text, raw.map((value) => value % (text.length + 1)))));
        }),
        { numRuns: 300 },
      );
    });
  }

  it('never emits a partial token or a raw cap when every token resolves', () => {
    const [, restore] = SCANS[1];
    for (const text of texts) {
      expect(restore(text).tokensUnresolved).toEqual([]);
      const deltas = Array.from(text); // one code point per delta: the harshest stream
      const streamed = stream(restore, deltas);
      for (const piece of streamed.pieces) {
        expect(piece).not.toMatch(/[{}\\]/);
        for (const cap of CAPS) expect(piece).not.toContain(cap.slice(0, 6));
      }
      expect(streamed.pieces.join('')).toBe(restore(text).restoredText);
    }
  });

  it('emits restored text early: only a possible token suffix is held', () => {
    const [, restore] = SCANS[0];
    const rehydrator = new StreamRehydrator(restore);
    const token = OUTPUTS[0]!.slice(OUTPUTS[0]!.indexOf('{{'), OUTPUTS[0]!.indexOf('}}') + 2);
    expect(rehydrator.push('Hello, ')).toBe('Hello, ');
    expect(rehydrator.push(token.slice(0, 9))).toBe('');
    expect(rehydrator.push(token.slice(9))).toBe(''); // complete, but a third brace could follow
    expect(rehydrator.push(' bye')).toBe(`${VALUES[0]!} bye`);
    expect(rehydrator.end()).toBe('');
    expect(rehydrator.tokensResolved).toBe(1);
  });
});

/** Fragments that stress the cut: tokens, mangled and smuggled forms, brace noise, astral text. */
function fragments(): fc.Arbitrary<string> {
  const token = fc.constantFrom(...OUTPUTS.flatMap((output) => output.match(/\{\{[^}]+\}\}/g) ?? []));
  return fc.oneof(
    token,
    token.map((value) => mangle(value, 0)),
    token.map((value) => mangle(value, 1)),
    token.map((value) => mangle(value, 2)),
    token.map((value) => mangle(value, 3)),
    token.map((value) => `{${value}}`),
    token.map((value) => value.replace(/[0-9a-f]{12}\}\}$/, 'ffffffffffff}}')),
    token.map((value) => value.slice(0, 12)),
    fc.constantFrom('{', '}', '{{', '}}', '\\', '\\{', '\\}', '{{{', '{'.repeat(9), '{'.repeat(20), '\\{'.repeat(18), '}'.repeat(7), '}'.repeat(20), ' ', '\n', ':', 'e_001', '\\_', '😀', '谢', '{{ user.name }}', '{ "a": 1 }'),
    // Rendering contexts, so splits fall inside URLs, link targets and tags too.
    fc.constantFrom('![x](', '](', ')', 'https://evil.example/p?d=', 'www.', '<img src="', '<IMG SRC=', '">', '>', '"', "'", '&#58;//', '[ref]: ', '<style>', '</style>', '<!--', '-->', 'mailto:'),
    fc.string({ maxLength: 8 }),
  );
}

describe('StreamRehydrator on adversarial streams', () => {
  for (const [scanName, restore] of SCANS) {
    it(`${scanName}: any text, any split, restores like the whole`, () => {
      fc.assert(
        fc.property(fc.array(fragments(), { maxLength: 14 }), fc.array(fc.nat(), { maxLength: 16 }), (parts, raw) => {
          const text = parts.join('');
          checkAgainstWhole(restore, text, stream(restore, splitAt(text, raw.map((value) => value % (text.length + 1)))));
        }),
        { numRuns: 500 },
      );
    });
  }

  it('keeps the holdback bounded on long brace runs, long bodies and closing runs', () => {
    const [, restore] = SCANS[1];
    for (const text of ['{'.repeat(5000), `{{${'a'.repeat(5000)}`, `{{ ${'a : '.repeat(2000)}`, `{{a:b${'}'.repeat(3000)}`, '\\{'.repeat(3000)]) {
      const streamed = stream(restore, Array.from(text));
      expect(streamed.pieces.join('')).toBe(restore(text).restoredText);
    }
  });

  it('stays fast on a long stream of one-character deltas', () => {
    const [, restore] = SCANS[1];
    const text = OUTPUTS.join(' ').repeat(60);
    const streamed = stream(restore, Array.from(text));
    expect(streamed.pieces.join('')).toBe(restore(text).restoredText);
  });

  it('cuts only where it must', () => {
    expect(streamCut('plain text')).toBe(10);
    expect(streamCut('ends with a backslash \\')).toBe(22);
    expect(streamCut('emoji 😀'.slice(0, -1))).toBe(6);
    expect(streamCut('before {{email:e_0')).toBe(7);
    expect(streamCut('before {{email:e_001:0123456789ab}}')).toBe(7);
    expect(streamCut('before {{email:e_001:0123456789ab}} after')).toBe(41);
    expect(streamCut('code { return 1; }')).toBe(18);
    expect(streamCut(`x${'{'.repeat(10)}`)).toBe(1);
    expect(streamCut(`x${'{'.repeat(20)}`)).toBe(5); // 16 held, the rest released
  });

  it('refuses pushes after end', () => {
    const rehydrator = new StreamRehydrator(SCANS[0][1]);
    rehydrator.end();
    expect(() => rehydrator.push('x')).toThrow();
  });
});
