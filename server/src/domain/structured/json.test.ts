// JSON mode (interface.md 4.1 JSON rules 1 to 5): strings and keys tokenized on their own with
// shared tokens, PII numbers as string tokens, structure preserved, bounds enforced before any
// detection, key collisions failing closed, and a round trip through rehydrate.
import { DEFAULT_POLICY, VeilError, type Policy } from '@veil/common';
import { describe, expect, it, vi } from 'vitest';
import { detectAll } from '../detect/index.js';
import { CompiledPolicy } from '../policy/index.js';
import { indexEntries, rehydrateText } from '../rehydrate.js';
import { findTokens, TokenAllocator } from '../token/index.js';
import type { Detection } from '../types.js';
import { checkJsonDocument, tokenizeJsonDocument } from './json.js';
import { STRUCTURED_LIMITS } from './limits.js';
import { restoreJsonValue } from './restore.js';
import { preferKeyed, SlotScanner } from './slots.js';

const defaultPolicy = new CompiledPolicy(DEFAULT_POLICY);

function scanner(policy: CompiledPolicy = defaultPolicy, detect: (text: string) => Detection[] = (text) => detectAll(text, { language: 'en' })) {
  return new SlotScanner({ detect, policy, context: {}, allocator: new TokenAllocator() });
}

function transform(document: unknown, slotScanner = scanner()) {
  checkJsonDocument(document);
  return { ...tokenizeJsonDocument(document, slotScanner), scanner: slotScanner };
}

function veilError(run: () => unknown): VeilError {
  try {
    run();
  } catch (error) {
    if (error instanceof VeilError) return error;
    throw error;
  }
  throw new Error('expected a VeilError');
}

const DOCUMENT = {
  user: {
    email: 'ada@example.com',
    phones: ['+1 415 555 2671', 4155552671],
    active: true,
    score: 42,
    ratio: 0.5,
    note: null,
    'ada@example.com': 'owner',
  },
  cards: [4111111111111111, '4111 1111 1111 1111'],
  count: 123456789,
  empty: {},
  nothing: [],
  text: '',
};

describe('tokenizeJsonDocument', () => {
  const { value, entities, scanner: used } = transform(DOCUMENT);
  const safe = value as typeof DOCUMENT & { user: Record<string, unknown>; cards: unknown[] };
  const tokenOf = (text: unknown): string => {
    const found = findTokens(String(text));
    expect(found).toHaveLength(1);
    return found[0]!.raw;
  };

  it('preserves keys, order, array lengths and non-PII leaves', () => {
    expect(Object.keys(safe)).toEqual(Object.keys(DOCUMENT));
    expect(Object.keys(safe.user)).toHaveLength(Object.keys(DOCUMENT.user).length);
    expect(safe.user.phones).toHaveLength(2);
    expect(safe.cards).toHaveLength(2);
    expect(safe.user.active).toBe(true);
    expect(safe.user.score).toBe(42);
    expect(safe.user.ratio).toBe(0.5);
    expect(safe.user.note).toBeNull();
    expect(safe.count).toBe(123456789); // a low-confidence checksum match does not turn a number into a string
    expect(safe.empty).toEqual({});
    expect(safe.nothing).toEqual([]);
    expect(safe.text).toBe('');
  });

  it('tokenizes strings and keys, with one token per value across the document', () => {
    const emailToken = tokenOf(safe.user.email);
    expect(safe.user.email).toBe(emailToken);
    expect(safe.user[emailToken]).toBe('owner');
    expect(Object.keys(safe.user)).toEqual(['email', 'phones', 'active', 'score', 'ratio', 'note', emailToken]);
    expect(JSON.stringify(safe)).not.toContain('ada@example.com');
  });

  it('turns PII numbers into string tokens, sharing the token of the same value as a string', () => {
    const [cardNumber, cardString] = safe.cards;
    expect(typeof cardNumber).toBe('string');
    expect(tokenOf(cardNumber)).toBe(tokenOf(cardString));
    const phones = safe.user.phones as unknown[];
    expect(typeof phones[1]).toBe('string');
    expect(tokenOf(phones[1])).toMatch(/^\{\{phone:/);
  });

  it('reports entities with JSON Pointer paths and code-point spans relative to their string', () => {
    const emailToken = tokenOf(safe.user.email);
    const byPath = new Map(entities.map((entity) => [`${entity.path}${entity.in_key === true ? '#key' : ''}`, entity]));
    expect(byPath.get('/user/email')).toMatchObject({ type: 'email', span: { start: 0, end: 15 }, action_applied: 'tokenize' });
    expect(byPath.get(`/user/${emailToken}#key`)).toMatchObject({ type: 'email', in_key: true, span: { start: 0, end: 15 } });
    expect(byPath.get('/cards/0')).toMatchObject({ type: 'credit_card', span: { start: 0, end: 16 } });
    expect(byPath.get('/user/phones/1')).toMatchObject({ type: 'phone' });
    expect(used.transformed).toBe(entities.length);
    // '+1 415 555 2671' and 4155552671 are one number (E.164): one entry, one token.
    expect(used.newEntries.map((entry) => entry.type).sort()).toEqual(['credit_card', 'email', 'phone']);
    const phones = safe.user.phones as unknown[];
    expect(tokenOf(phones[0])).toBe(tokenOf(phones[1]));
  });

  it('escapes pointer segments and counts spans in code points', () => {
    const result = transform({ 'a/b~c': { '😀': '😀 ada@example.com' } });
    expect(result.entities[0]).toMatchObject({ path: '/a~1b~0c/😀', span: { start: 2, end: 17 } });
  });

  it('handles top-level scalars', () => {
    expect(transform('mail ada@example.com').entities[0]?.path).toBe('');
    expect(transform(null).value).toBeNull();
    expect(transform(7).value).toBe(7);
    expect(typeof transform(4111111111111111).value).toBe('string');
  });

  it('keeps a __proto__ key as an own member', () => {
    const document = JSON.parse('{"__proto__": {"email": "ada@example.com"}, "x": 1}') as unknown;
    const result = transform(document).value as Record<string, unknown>;
    expect(Object.keys(result)).toEqual(['__proto__', 'x']);
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(JSON.stringify(result)).toMatch(/^\{"__proto__":\{"email":"\{\{email:e_001:[0-9a-f]{12}\}\}"\},"x":1\}$/);
  });

  it('fails closed when two keys of one object tokenize to the same key', () => {
    const error = veilError(() => transform({ list: [{ 'Ada@Example.com': 1, 'ada@example.com': 2 }] }));
    expect(error.code).toBe('VEIL_VALIDATION_FAILED');
    expect(error.message).toBe('input_json/list/0: two keys of this object become the same key once tokenized; the structure would change');
    const redactEmails: Policy = { name: 'redact', version: '1', rules: [{ name: 'redact-email', match: { entity_type: 'email' }, action: 'redact' }] };
    const redacting = scanner(new CompiledPolicy(redactEmails));
    expect(veilError(() => transform({ 'a@example.com': 1, 'b@example.com': 2 }, redacting)).code).toBe('VEIL_VALIDATION_FAILED');
  });

  it('rejects values that are not JSON, naming no value', () => {
    for (const bad of [{ a: undefined }, { a: () => 1 }, { a: Number.NaN }, { a: new Date() }, [1n]]) {
      expect(veilError(() => transform(bad)).code).toBe('VEIL_VALIDATION_FAILED');
    }
  });
});

describe('JSON mode: the member key is context for a string value', () => {
  it('reads {"password": …}, {"ssn": …}, {"api_key": …} as text reads "password: …"', () => {
    const { value, entities } = transform({
      user: { password: 'hunter2x', ssn: '078051120', api_key: 'Zx81kQm2Lp0Wn7Rt4Yv9Bc3Df6Gh1Jk5', pin: '4921' },
      plain: ['hunter2x', '078051120'],
      name: 'Ada',
    });
    const safe = value as { user: Record<string, string>; plain: string[]; name: string };
    const typeAt = (path: string): string | undefined => entities.find((entity) => entity.path === path)?.type;
    expect(typeAt('/user/password')).toBe('password');
    expect(typeAt('/user/ssn')).toBe('us_ssn');
    expect(typeAt('/user/api_key')).toBe('api_key');
    expect(typeAt('/user/pin')).toBe('password');
    for (const field of Object.values(safe.user)) expect(findTokens(field)).toHaveLength(1);
    // The same strings without a telling key are not credentials or SSNs.
    expect(safe.plain[0]).toBe('hunter2x');
    expect(typeAt('/plain/1')).not.toBe('us_ssn');
    expect(safe.name).toBe('Ada');
  });

  it('keeps the value\'s own detections beside the keyed ones, with belongs_to pointing at the right place', () => {
    const detect = (text: string): Detection[] => {
      const found = detectAll(text, { language: 'en' });
      // A stand-in for NER on the value alone: a person at the start owning the phone after it.
      if (text.startsWith('Ada Lovelace')) return [{ type: 'person', start: 0, end: 12, value: 'Ada Lovelace', confidence: 0.9, detector: 'python_ner' }, ...found.map((d) => ({ ...d, belongs_to: 0 }))];
      return found;
    };
    const used = new SlotScanner({ detect: (text) => detectAll(text, { language: 'en' }), detectText: detect, policy: defaultPolicy, context: {}, allocator: new TokenAllocator() });
    const scan = used.text('Ada Lovelace +1 415 555 2671', 'phone');
    expect(scan.entities.map((entity) => entity.type)).toEqual(['person', 'phone']);
    const d = (type: string, start: number, end: number, belongs_to?: number): Detection => ({ type, start, end, value: 'x'.repeat(end - start), confidence: 0.9, detector: 'builtin_regex', ...(belongs_to === undefined ? {} : { belongs_to }) });
    // keyed: [us_ssn 0-4]; own: [person 6-10, phone 20-30 (owner: own[0]), date 2-5 (dropped:
    // the keyed detection overlaps it), email 40-50 (owner: the dropped date)].
    const merged = preferKeyed([d('us_ssn', 0, 4)], [d('person', 6, 10), d('phone', 20, 30, 0), d('date', 2, 5), d('email', 40, 50, 2)]);
    expect(merged.map((x) => [x.type, x.belongs_to])).toEqual([
      ['us_ssn', undefined],
      ['person', undefined],
      ['phone', 1],
      ['email', undefined],
    ]);
  });
});

describe('JSON mode: keys that name a name, an address or a company', () => {
  it('takes the whole value as that type when nothing found it whole', () => {
    const { value, entities } = transform({
      customer: { firstName: 'zyxel', last_name: 'Qwertzuiop-Ankh', street: '12 Rue des Lilas', city: 'Tarnobrzeg', employer: 'Qwerty Widgets GmbH' },
      product: { name: 'Widget Pro', state: 'active', city_count: 'three' },
      placeholders: { first_name: 'n/a', address: '', company: '-' },
    });
    const safe = value as { customer: Record<string, string>; product: Record<string, string>; placeholders: Record<string, string> };
    const typeAt = (path: string): string | undefined => entities.find((entity) => entity.path === path)?.type;
    expect(typeAt('/customer/firstName')).toBe('person');
    expect(typeAt('/customer/last_name')).toBe('person');
    expect(typeAt('/customer/street')).toBe('location');
    expect(typeAt('/customer/city')).toBe('location');
    expect(typeAt('/customer/employer')).toBe('organization');
    for (const field of Object.values(safe.customer)) expect(findTokens(field)).toHaveLength(1);
    expect(safe.product).toEqual({ name: 'Widget Pro', state: 'active', city_count: 'three' });
    expect(safe.placeholders).toEqual({ first_name: 'n/a', address: '', company: '-' });
  });
});

describe('JSON mode bounds', () => {
  const nested = (depth: number): unknown => {
    let value: unknown = 'leaf';
    for (let level = 0; level < depth; level += 1) value = level % 2 === 0 ? [value] : { k: value };
    return value;
  };

  it('accepts 64 levels and refuses 65, before any detection', () => {
    expect(() => transform(nested(64))).not.toThrow();
    const detect = vi.fn((text: string) => detectAll(text));
    const error = veilError(() => transform(nested(65), scanner(defaultPolicy, detect)));
    expect(error.code).toBe('VEIL_PAYLOAD_TOO_LARGE');
    expect(error.message).toBe('input_json: nested deeper than 64 levels');
    expect(detect).not.toHaveBeenCalled();
  });

  it('refuses a document nested 100,000 levels deep without exhausting the stack', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
    expect(veilError(() => checkJsonDocument(deep)).code).toBe('VEIL_PAYLOAD_TOO_LARGE');
  });

  it('counts strings, keys and numbers as slots: 10,000 pass, 10,001 fail', () => {
    expect(() => transform(Array.from({ length: STRUCTURED_LIMITS.maxSlots }, () => 'x'))).not.toThrow();
    const error = veilError(() => checkJsonDocument({ ...Object.fromEntries(Array.from({ length: 5_000 }, (_, index) => [`k${index}`, index])), extra: 1 }));
    expect(error.code).toBe('VEIL_PAYLOAD_TOO_LARGE');
    expect(error.message).toBe('input_json: more than 10000 scannable values (strings, keys and numbers)');
  });

  it('refuses more than 1 MB of scanned text', () => {
    const error = veilError(() => checkJsonDocument({ a: 'x'.repeat(STRUCTURED_LIMITS.maxScannedChars - 1), b: 'yy' }));
    expect(error.code).toBe('VEIL_PAYLOAD_TOO_LARGE');
    expect(error.message).toBe('input_json: more than 1048576 characters of text to scan');
    expect(() => checkJsonDocument({ a: 'x'.repeat(STRUCTURED_LIMITS.maxScannedChars - 2) })).not.toThrow();
  });
});

describe('JSON mode round trip', () => {
  const original = {
    customer: { name: 'Ada', email: 'ada@example.com', phone: '+1 415 555 2671' },
    payments: [{ card: 4111111111111111, amount: 12.5 }, { card: '5555 5555 5555 4444', amount: 3 }],
    'ada@example.com': { vip: true, since: '2024-01-05' },
    notes: ['call +1 415 555 2671 or mail ada@example.com'],
  };
  const slotScanner = scanner();
  const { value } = transform(original, slotScanner);
  const entries = indexEntries(slotScanner.newEntries);
  const restore = (output: string) => rehydrateText({ output, entries, policy: defaultPolicy, language: 'en', caller: {}, channel: 'user_output' });
  /** The original with PII numbers as the strings they come back as. */
  const expected = JSON.parse(JSON.stringify(original).replace('4111111111111111', '"4111111111111111"')) as unknown;

  it('text rehydrate of safe_text gives back the document (PII numbers as strings)', () => {
    const restored = restore(JSON.stringify(value));
    expect(JSON.parse(restored.restoredText)).toEqual(expected);
    expect(restored.tokensUnresolved).toEqual([]);
  });

  it('structure-aware restore gives the same document and survives values with quotes', () => {
    expect(restoreJsonValue(value, restore).value).toEqual(expected);
    const tricky = { quote: 'pass"word ada@example.com', key: { 'ada@example.com\\"': 1 } };
    const trickyScanner = scanner();
    const safe = transform(tricky, trickyScanner).value;
    const trickyEntries = indexEntries(trickyScanner.newEntries);
    const result = restoreJsonValue(safe, (output) => rehydrateText({ output, entries: trickyEntries, policy: defaultPolicy, language: 'en', caller: {}, channel: 'user_output' }));
    expect(result.value).toEqual(tricky);
  });
});
