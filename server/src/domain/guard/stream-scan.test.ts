// The stream output guard hands its token scan of a piece it released as it was to the restore
// of that piece (StreamOutputGuard.scanOf, issue 20 item 2): the same bytes out as a restore
// that scans each piece itself, over random streams of tokens (exact, in the spellings token
// repair accepts, broken), raw values, braces and backslashes, cut into random deltas, under
// every guard action.
import { DEFAULT_POLICY } from '@veil/common';
import { describe, expect, it } from 'vitest';
import { detectAll } from '../detect/index.js';
import { CompiledPolicy } from '../policy/index.js';
import { indexEntries, rehydrateText } from '../rehydrate.js';
import { findTokensLenient } from '../repair/index.js';
import { MarkupContext } from '../restore/index.js';
import { StreamRehydrator } from '../stream/index.js';
import type { TokenCandidate } from '../token/index.js';
import type { TokenEntry } from '../types.js';
import { KnownValues } from './known.js';
import { OutputGuard, StreamOutputGuard, type OutputGuardAction } from './output.js';

const policy = new CompiledPolicy(DEFAULT_POLICY);
const ENTRIES: TokenEntry[] = [
  { id: 'e_001', type: 'email', cap: '0123456789ab', value: 'ada@example.com', mode: 'full' },
  { id: 'e_002', type: 'person', cap: 'ba9876543210', value: 'Quentin Zyxwort', mode: 'full' },
  { id: 'e_003', type: 'credit_card', cap: 'a1b2c3d4e5f6', value: '4111 1111 1111 1111', mode: 'full' },
  { id: 'e_004', type: 'url', cap: '00aa11bb22cc', value: 'https://ada.example/profile', mode: 'full' },
];
const TOKENS = ENTRIES.map((entry) => `{{${entry.type}:${entry.id}:${entry.cap}}}`);
const entries = indexEntries(ENTRIES);

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function spelling(token: string, next: () => number): string {
  switch (Math.floor(next() * 9)) {
    case 0:
      return token.slice(1);
    case 1:
      return token.slice(0, -1);
    case 2:
      return token.replace('{{', '{{ ').replace('}}', ' }}');
    case 3:
      return token.replaceAll('{', '\\{').replaceAll('}', '\\}');
    case 4:
      return token.replace(/:[0-9a-f]+\}\}$/, ':000000000000}}');
    case 5:
      return `{${token}}`;
    case 6:
      return token.slice(0, 10 + Math.floor(next() * 10));
    default:
      return token;
  }
}

const WORDS = ['see', 'the', ' ', '\n', '{', '}', '{{', '}}', '\\', 'at', '[link](', ')', 'https://x.example/?q=', '<a href="', '">', '**', 'é', '😀'];
const RAW = ['ada@example.com', 'Quentin Zyxwort', '4111 1111 1111 1111', '078-05-1120'];

function output(next: () => number): string {
  const parts: string[] = [];
  for (let count = 2 + Math.floor(next() * 25); count > 0; count--) {
    const pick = next();
    if (pick < 0.4) parts.push(spelling(TOKENS[Math.floor(next() * TOKENS.length)]!, next));
    else if (pick < 0.5) parts.push(RAW[Math.floor(next() * RAW.length)]!);
    else parts.push(WORDS[Math.floor(next() * WORDS.length)]!);
  }
  return parts.join(next() < 0.5 ? ' ' : '');
}

function deltas(text: string, next: () => number): string[] {
  const pieces: string[] = [];
  for (let index = 0; index < text.length; ) {
    const size = 1 + Math.floor(next() * (next() < 0.2 ? 60 : 8));
    pieces.push(text.slice(index, index + size));
    index += size;
  }
  return pieces;
}

function guardOf(action: OutputGuardAction): OutputGuard {
  return new OutputGuard({ action, detect: (text) => detectAll(text), counts: () => true, scan: findTokensLenient, known: new KnownValues(ENTRIES) });
}

function run(action: OutputGuardAction, pieces: readonly string[], shared: boolean): { text: string; resolved: number; unresolved: string; handed: number } {
  const guard = new StreamOutputGuard(guardOf(action), findTokensLenient);
  const markup = new MarkupContext();
  let handed = 0;
  const rehydrator = new StreamRehydrator(
    (piece) => {
      const scanned: readonly TokenCandidate[] | undefined = shared ? guard.scanOf(piece) : undefined;
      if (scanned !== undefined) handed += 1;
      return rehydrateText({ output: piece, markup, entries, policy, language: 'en', caller: {}, channel: 'user_output', scan: scanned !== undefined ? () => scanned : findTokensLenient });
    },
    { guard },
  );
  let text = '';
  for (const delta of pieces) text += rehydrator.push(delta);
  text += rehydrator.end();
  return { text, resolved: rehydrator.tokensResolved, unresolved: JSON.stringify(rehydrator.tokensUnresolved), handed };
}

describe('StreamOutputGuard.scanOf: the restore of a released piece on the guard scan', () => {
  for (const action of ['allow', 'warn', 'mask'] as const) {
    it(`gives the bytes of a restore that scans each piece itself (${action})`, () => {
      const next = random(action.length * 7919);
      let handed = 0;
      let resolved = 0;
      for (let round = 0; round < 400; round++) {
        const pieces = deltas(output(next), next);
        const own = run(action, pieces, false);
        const shared = run(action, pieces, true);
        expect(shared.text).toBe(own.text);
        expect(shared.resolved).toBe(own.resolved);
        expect(shared.unresolved).toBe(own.unresolved);
        handed += shared.handed;
        resolved += own.resolved;
      }
      // The shared scan is used, and the streams restored tokens.
      expect(handed).toBeGreaterThan(400);
      expect(resolved).toBeGreaterThan(400);
    });
  }

  it('hands a scan out once, and only for the text it released', () => {
    const guard = new StreamOutputGuard(guardOf('mask'), findTokensLenient);
    const released = guard.release(`hello ${TOKENS[0]!} there `, Infinity, true);
    expect(guard.scanOf('something else')).toBeUndefined();
    const again = new StreamOutputGuard(guardOf('mask'), findTokensLenient);
    const text = again.release(`hello ${TOKENS[0]!} there `, Infinity, true).text;
    expect(text).toBe(released.text);
    expect(again.scanOf(text)?.map((candidate) => candidate.raw)).toEqual([TOKENS[0]]);
    expect(again.scanOf(text)).toBeUndefined();
  });

  it('hands no scan out for a piece it masked', () => {
    const guard = new StreamOutputGuard(guardOf('mask'), findTokensLenient);
    const released = guard.release(`mail ada@example.com and ${TOKENS[0]!} `, Infinity, true);
    expect(released.text).toContain('[REDACTED:');
    expect(guard.scanOf(released.text)).toBeUndefined();
  });
});
