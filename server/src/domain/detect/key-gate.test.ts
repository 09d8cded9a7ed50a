// The scan's third-unit gate before detectApiKey (secrets.ts keyMayStartAt): a word whose first
// two units start a key prefix but whose third does not (`do`g, `fo`r, `wh`ile) skips the call
// and may take the scan's quiet path. Held here to the rule prefixes themselves, over every
// three-unit start of the key alphabets, and on the scan's answers (scanBuiltin against its
// ungated reference).
import { describe, expect, it } from 'vitest';
import { scanBuiltin, scanBuiltinUngated } from './scan.js';
import { detectApiKey, KEY_RULE_PREFIXES, keyMayStartAt } from './secrets.js';
import type { ScanState } from './state.js';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.: ';

function stateOf(text: string): ScanState {
  return { text, out: [], region: 'US', fallbackRegions: [], pemEndAt: -2, assignScanEnd: 0, bicPending: [], lookalikeSeeds: [], reversedSeeds: [] };
}

/** What the gate must allow: a rule prefix the text's first three units start, or a Discord or SendGrid word. */
function mayStart(text: string): boolean {
  const c = text.charCodeAt(0);
  if (c === 77 || c === 78 || c === 79 || c === 83) return true;
  return KEY_RULE_PREFIXES.some((prefix) => text.startsWith(prefix.slice(0, 3)));
}

describe('keyMayStartAt', () => {
  it('allows every rule prefix, followed by anything or nothing', () => {
    for (const prefix of KEY_RULE_PREFIXES) {
      expect(keyMayStartAt(prefix, 0)).toBe(true);
      expect(keyMayStartAt(`${prefix}x`, 0)).toBe(true);
      expect(keyMayStartAt(`see ${prefix}x`, 4)).toBe(true);
    }
  });

  it('refuses words of prose that share only a prefix pair', () => {
    for (const word of ['dog', 'fox', 'while', 'for', 'what', 'when', 'which', 'see', 'sky', 'glad', 'keep']) {
      expect(keyMayStartAt(`${word} `, 0)).toBe(false);
    }
  });

  it('refuses only starts no rule prefix begins with, where detectApiKey finds nothing', () => {
    const pairs = new Set(KEY_RULE_PREFIXES.map((prefix) => prefix.slice(0, 2)));
    const wrong: string[] = [];
    let refused = 0;
    for (const a of ALPHABET) {
      for (const b of ALPHABET) {
        for (const c of ALPHABET) {
          const start = `${a}${b}${c}`;
          if (keyMayStartAt(start, 0)) continue;
          refused++;
          if (mayStart(start)) wrong.push(start);
          // Where the pair starts a prefix, the key reader itself finds nothing behind any body.
          if (!pairs.has(`${a}${b}`)) continue;
          for (const body of ['A1b2C3d4E5f6'.repeat(20), '0123456789abcdef'.repeat(8), 'ABCDEFGHIJ0123456789'.repeat(8)]) {
            if (detectApiKey(stateOf(start + body), 0) !== -1) wrong.push(start + body);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(refused).toBeGreaterThan(0);
  });

  it('leaves the scan equal to its ungated reference on prose and keys that share a pair', () => {
    const texts = [
      'the quick brown fox jumps over the lazy dog while the team reviews the billing ticket',
      'for what it is worth, see the secret_ and sk- docs; do it while fox1 waits',
      'key sk-proj-abc123DEF456ghi789JKL012mno345PQR678stu901VWX and dop_v1_' + 'a1'.repeat(32) + ' then fo1_' + 'Ab3'.repeat(16),
      'whsec_' + 'a1B2'.repeat(10) + ' while dogs fox',
    ];
    for (const text of texts) expect(scanBuiltin(text, 'en')).toEqual(scanBuiltinUngated(text, 'en'));
  });
});
