// Values split across JSON members (joins.ts) and numbers that lost their leading zeros
// (slots.ts): every part of the value becomes a token of the value's type, nothing of it stays
// raw, the document keeps its shape and restores to the same members (numbers that were
// personal data come back as strings, JSON rule 3), and ordinary JSON (ids, counts, coordinates,
// timestamps, version arrays, span records) is left alone.
import { DEFAULT_POLICY } from '@veil/common';
import { describe, expect, it } from 'vitest';
import { detectAll } from '../detect/index.js';
import { CompiledPolicy } from '../policy/index.js';
import { indexEntries, rehydrateText } from '../rehydrate.js';
import { findTokens, TokenAllocator } from '../token/index.js';
import { prepareChatMessages, tokenizeChatMessages } from './chat.js';
import { JOIN_EDGE, splitValueParts } from './joins.js';
import { checkJsonDocument, tokenizeJsonDocument } from './json.js';
import { restoreJsonValue } from './restore.js';
import { SlotScanner } from './slots.js';

const defaultPolicy = new CompiledPolicy(DEFAULT_POLICY);
const detect = (text: string) => detectAll(text, { language: 'en' });

function run(document: unknown, policy = defaultPolicy) {
  checkJsonDocument(document);
  const scanner = new SlotScanner({ detect, policy, context: {}, allocator: new TokenAllocator() });
  const { value, entities } = tokenizeJsonDocument(document, scanner);
  const entries = indexEntries(scanner.newEntries);
  const restored = restoreJsonValue(value, (output) => rehydrateText({ output, entries, policy, language: 'en', caller: {}, channel: 'user_output' }));
  return { value, entities, restored: restored.value };
}

/** Every scalar leaf of a JSON value, in document order. */
function leaves(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(leaves);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(leaves);
  return [value];
}

/** The document with every number turned into its JSON text, as personal-data numbers come back. */
function numbersAsStrings(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(numbersAsStrings);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, numbersAsStrings(item)]));
  return typeof value === 'number' ? JSON.stringify(value) : value;
}

const SPLIT: readonly [string, unknown, string][] = [
  ['e-mail local part and domain', { user: 'alice.smith', domain: '@corp.example' }, 'email'],
  ['e-mail with the @ on the left', { local: 'bob.jones@', host: 'mail.example.org' }, 'email'],
  ['card as an array of numbers', { card: [4111, 1111, 1111, 1111] }, 'credit_card'],
  ['card as an array of strings', ['4111', '1111', '1111', '1111'], 'credit_card'],
  ['card as group members', { card: { g1: '5500', g2: '0000', g3: '0000', g4: '0004' } }, 'credit_card'],
  ['phone country code and number', { phone: { country_code: '+44', number: '7700 900123' } }, 'phone'],
  ['phone country code and number as a JSON number', { cc: '+1', number: 4155552671 }, 'phone'],
  ['IBAN in groups', { iban: ['DE89', '3704', '0044', '0532', '0130', '00'] }, 'iban'],
  ['SSN in three members', { ssn: { area: '078', group: '05', serial: '1120' } }, 'us_ssn'],
];

describe('a value split across JSON members', () => {
  it.each(SPLIT)('%s: every member becomes a token of the value, restore gives the members back', (_name, document, type) => {
    const { value, entities, restored } = run(document);
    const before = leaves(document);
    const after = leaves(value);
    expect(after).toHaveLength(before.length);
    for (const leaf of after) {
      // Each member is exactly one token of the value's type: no digit or letter of it is left raw.
      const found = findTokens(String(leaf));
      expect(found).toHaveLength(1);
      expect(found[0]!.raw).toBe(leaf);
      expect(found[0]!.token?.type).toBe(type);
    }
    expect(entities.every((entity) => entity.type === type)).toBe(true);
    expect(restored).toEqual(numbersAsStrings(document));
  });

  it('text content parts of a chat message are one text', () => {
    const messages = [
      { role: 'user', content: [{ type: 'text', text: 'Please write to alice.smith' }, { type: 'text', text: '@corp.example today' }] },
      { role: 'user', content: [{ type: 'text', text: 'My card is 4111 1111' }, { type: 'text', text: '1111 1111, thanks' }] },
    ];
    const scanner = new SlotScanner({ detect, policy: defaultPolicy, context: {}, allocator: new TokenAllocator() });
    const { value } = tokenizeChatMessages(prepareChatMessages(messages), scanner);
    const text = JSON.stringify(value);
    for (const raw of ['alice.smith', 'corp.example', '4111', '1111']) expect(text).not.toContain(raw);
    expect(text).toContain('Please write to {{email:');
    expect(text).toContain('today"');
    expect(text).toContain(', thanks"');
  });

  it('text contents of consecutive messages are one conversation', () => {
    const messages = [
      { role: 'user', content: 'My card number is 4111 1111' },
      { role: 'user', content: '1111 1111, sorry, it got cut' },
      { role: 'assistant', content: 'Thanks, noted.' },
    ];
    const scanner = new SlotScanner({ detect, policy: defaultPolicy, context: {}, allocator: new TokenAllocator() });
    const text = JSON.stringify(tokenizeChatMessages(prepareChatMessages(messages), scanner).value);
    for (const raw of ['4111', '1111']) expect(text).not.toContain(raw);
    expect(text).toContain(', sorry, it got cut');
    expect(text).toContain('Thanks, noted.');
  });

  it('a long member takes part with its edges only (a value at the end of a sentence)', () => {
    const sentence = `${'The account holder asked us to update the details on file. '.repeat(3)}Reach her at jane.doe`;
    expect(sentence.length).toBeGreaterThan(2 * JOIN_EDGE);
    const { value, restored } = run({ note: sentence, rest: '@example.net' });
    const safe = value as { note: string; rest: string };
    expect(safe.note.startsWith('The account holder')).toBe(true);
    expect(safe.note).not.toContain('jane.doe');
    expect(findTokens(safe.rest)).toHaveLength(1);
    expect(restored).toEqual({ note: sentence, rest: '@example.net' });
  });

  it('a partial rule restores each part masked: parts shown one by one would add up to the value', () => {
    const policy = new CompiledPolicy({
      ...DEFAULT_POLICY,
      rules: [{ name: 'cards-partial', match: { entity_types: ['credit_card'] }, action: 'tokenize', restore_mode: 'partial' }],
    });
    const { restored } = run({ card: ['4111', '1111', '1111', '1111'] }, policy);
    expect(JSON.stringify(restored)).not.toMatch(/\d/);
  });

  it('only what touches the value is context: a neighbour value naming a type does not make numbers one', () => {
    // An entity span record: "phone" is data here, and 149 163 no phone number.
    const record = { type: 'phone', start: 149, end: 163 };
    expect(run(record).value).toEqual(record);
  });

  it('joins are found per seam in linear passes (a property over random runs)', () => {
    // Whatever the run, every part lies inside its own slot and parts of one slot never overlap.
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let round = 0; round < 200; round += 1) {
      const slots = Array.from({ length: 2 + (next() % 6) }, () => (next() % 5 === 0 ? undefined : String(next() % 10_000).padStart(4, '0')));
      const parts = splitValueParts(slots, 'card', detect, 0.5);
      for (const [slot, list] of parts) {
        const text = slots[slot]!;
        list.forEach((part, index) => {
          expect(part.start).toBeGreaterThanOrEqual(0);
          expect(part.end).toBeLessThanOrEqual(text.length);
          expect(part.value).toBe(text.slice(part.start, part.end));
          if (index > 0) expect(part.start).toBeGreaterThanOrEqual(list[index - 1]!.end);
        });
      }
    }
  });
});

describe('a number that lost its leading zero', () => {
  it.each([
    ['SSN', { ssn: 78051120 }, 'us_ssn', '078051120'],
    ['SSN under a longer key', { social_security_number: 78051120 }, 'us_ssn', '078051120'],
  ])('%s: read with the zero restored, tokenized as the value it stood for', (_name, document, type, restoredValue) => {
    const { value, restored } = run(document);
    const [leaf] = leaves(value);
    expect(findTokens(String(leaf))[0]?.token?.type).toBe(type);
    expect(leaves(restored)).toEqual([restoredValue]);
  });

  it('numbers under keys that name no identifier stay numbers', () => {
    const document = { id: 78051120, count: 78051120, order: 7805112, total_cents: 12345678 };
    expect(run(document).value).toEqual(document);
  });
});

describe('ordinary JSON is spared', () => {
  const ORDINARY: readonly unknown[] = [
    { version: [1, 2, 3], semver: ['18', '19', '1'], node: [24, 21, 0] },
    { coords: [48.8566, 2.3522], bbox: [-122.52, 37.7, -122.35, 37.83], polyline: [[52.52, 13.405], [48.137, 11.575]] },
    { ts: [1700000000, 1700000060, 1700000120], created_at: '2026-11-27T08:10:29Z', updated_at: '2026-11-27T08:11:00Z' },
    { ids: [1234, 5678, 9012, 3456], user_ids: [1001, 1002, 1003, 1004], page: 2, per_page: 50, total: 1234 },
    { years: [2019, 2020, 2021, 2022], date: [2024, 11, 27], rgb: [255, 128, 0], ip: [192, 168, 0, 1] },
    { matrix: [[1, 0, 0], [0, 1, 0], [0, 0, 1]], scores: [0.91, 0.88, 0.75], ports: [8080, 8443, 9090] },
    { entities: [{ type: 'phone', start: 19, end: 32 }, { type: 'credit_card', start: 40, end: 59 }] },
    { sha: 'a1b2c3d', build: 12216, parts: ['src', 'domain', 'structured'], sizes: [4096, 8192, 16384, 32768] },
  ];
  it.each(ORDINARY.map((document) => [JSON.stringify(document).slice(0, 40), document]))('%s', (_name, document) => {
    expect(run(document).value).toEqual(document);
  });
});
