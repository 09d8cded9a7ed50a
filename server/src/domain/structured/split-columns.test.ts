// Red-team finding (session 11 Open list, closed in session 12, wave11/red): a value split across
// the members of different records (`[{"g": "4111"}, {"g": "1111"}, …]`, a column) or across
// members with nothing between them (`["4111", null, "1111", …]`) was not joined, so every part
// reached the model raw. Now a member that holds nothing (null, a boolean, an empty string or
// container) is passed over, and the members under one key in consecutive records are read as
// one run (joins.ts, json.ts columnParts).
import { DEFAULT_POLICY } from '@veil/common';
import { describe, expect, it } from 'vitest';
import { detectAll } from '../detect/index.js';
import { CompiledPolicy } from '../policy/index.js';
import { indexEntries, rehydrateText } from '../rehydrate.js';
import { TokenAllocator } from '../token/index.js';
import { checkJsonDocument, tokenizeJsonDocument } from './json.js';
import { restoreJsonValue } from './restore.js';
import { SlotScanner } from './slots.js';

const policy = new CompiledPolicy(DEFAULT_POLICY);
const detect = (text: string) => detectAll(text, { language: 'en' });

function run(document: unknown) {
  checkJsonDocument(document);
  const scanner = new SlotScanner({ detect, policy, context: {}, allocator: new TokenAllocator() });
  const { value, entities } = tokenizeJsonDocument(document, scanner);
  const entries = indexEntries(scanner.newEntries);
  const restored = restoreJsonValue(value, (output) => rehydrateText({ output, entries, policy, language: 'en', caller: {}, channel: 'user_output' }));
  return { value, entities, restored: restored.value };
}

const CARD = ['4111', '1111', '1111', '1111'];
const SPLIT: readonly [string, unknown, string, readonly string[]][] = [
  ['nulls between the parts', ['4111', null, '1111', null, '1111', null, '1111'], 'credit_card', CARD],
  ['a boolean, an empty string and empty containers between', { a: '4111', b: true, c: '1111', d: '', e: '1111', f: [], g: {}, h: '1111' }, 'credit_card', CARD],
  ['a column of records', [{ g: '4111' }, { g: '1111' }, { g: '1111' }, { g: '1111' }], 'credit_card', CARD],
  ['a column beside other members', { rows: [{ n: 1, g: '4111' }, { n: 2, g: '1111' }, { n: 3, g: '1111' }, { n: 4, g: '1111' }] }, 'credit_card', CARD],
  ['a column of one-item arrays', [['4111'], ['1111'], ['1111'], ['1111']], 'credit_card', CARD],
  ['records as the members of an object', { a: { part: 'alice.smith' }, b: { part: '@corp.example' } }, 'email', ['alice', 'corp.example']],
  ['an IBAN down a column', { iban: [{ v: 'DE89' }, { v: '3704' }, { v: '0044' }, { v: '0532' }, { v: '0130' }, { v: '00' }] }, 'iban', ['DE89', '3704', '0532']],
  ['an SSN down a column with nulls', [{ s: '078' }, { s: null }, { s: '05' }, { s: '1120' }], 'us_ssn', ['078', '1120']],
];

describe('a value split across records or with nothing between its parts', () => {
  it.each(SPLIT)('%s: every part is a token of the value, restore gives the document back', (_name, document, type, raw) => {
    const { value, entities, restored } = run(document);
    // Outside its tokens: a token's digest is random hex and may hold a part's digits by chance.
    const safe = JSON.stringify(value).replace(/\{\{[^{}]*\}\}/g, '{{}}');
    for (const part of raw) expect(safe).not.toContain(part);
    expect(entities.length).toBeGreaterThan(0);
    expect(entities.every((entity) => entity.type === type)).toBe(true);
    expect(restored).toEqual(document);
  });

  it('ordinary tables are left alone', () => {
    for (const document of [
      // Span records: a column of numbers is never read across records.
      [{ type: 'phone', start: 19, end: 32 }, { type: 'phone', start: 40, end: 54 }, { type: 'phone', start: 61, end: 75 }, { type: 'phone', start: 90, end: 104 }],
      [{ g: 4111 }, { g: 1111 }, { g: 1111 }, { g: 1111 }],
      [{ id: 17, qty: 2, price: 19.99 }, { id: 18, qty: 1, price: 5 }, { id: 19, qty: 3, price: 7.5 }],
      { versions: [{ major: 1, minor: 2 }, { major: 1, minor: 3 }, { major: 2, minor: 0 }] },
      [{ type: 'phone', start: 19, end: 32 }, { type: 'email', start: 40, end: 61 }],
      [{ ts: 1700000000, ok: true }, { ts: 1700000060, ok: null }, { ts: 1700000120, ok: false }],
      [['x', 1], ['y', 2], ['z', 3]],
      { points: [{ lat: 48.8566, lon: 2.3522 }, { lat: 51.5074, lon: -0.1278 }] },
    ]) {
      const { value, entities } = run(document);
      expect(entities).toEqual([]);
      expect(value).toEqual(document);
    }
  });
});
