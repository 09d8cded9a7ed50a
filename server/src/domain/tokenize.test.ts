// tokenizeText decides, allocates and renders a repeated value once per call (issue 20, session
// 11): the counts of policy decisions and allocations, and the same result as deciding and
// allocating every detection on its own (a random allocator replayed from the same bytes).
import { parsePolicy } from '@veil/common';
import { describe, expect, it } from 'vitest';
import { CompiledPolicy } from './policy/index.js';
import { renderToken, TokenAllocator, type ValueAllocator } from './token/index.js';
import { REDACTED, tokenizeText } from './tokenize.js';
import type { Detection } from './types.js';

const parsed = parsePolicy(
  `name: mixed
version: "1"
rules:
  - {name: lab-ips, match: {entity_type: ip_address, value_pattern: '^10\\.'}, action: allow}
  - {name: cards, match: {entity_type: credit_card}, action: redact}
  - {name: mail, match: {entity_type: email}, action: tokenize, restore_mode: masked}
  - {name: rest, match: {}, action: tokenize, restore_mode: full}
`,
  'mixed.yaml',
);
const policy = new CompiledPolicy(parsed.policy!);

const VALUES: readonly (readonly [string, string])[] = [
  ['email', 'jane@example.com'],
  ['email', 'Jane@Example.com'],
  ['email', 'bob@example.org'],
  ['ip_address', '10.0.0.1'],
  ['ip_address', '192.168.1.7'],
  ['credit_card', '4111 1111 1111 1111'],
  ['phone', '+1 415 555 0134'],
  ['phone', '(415) 555-0134'],
];

/** A text of `count` values drawn (with repeats) from VALUES by a seeded generator (Park-Miller), and its detections. */
function textWithRepeats(count: number, seed: number): { text: string; detections: Detection[] } {
  let state = seed;
  const parts: string[] = [];
  const detections: Detection[] = [];
  let length = 0;
  for (let index = 0; index < count; index += 1) {
    state = (state * 48271) % 2147483647;
    const [type, value] = VALUES[state % VALUES.length]!;
    const filler = ` word ${index} `;
    parts.push(filler, value);
    length += filler.length;
    detections.push({ type, value, start: length, end: length + value.length, confidence: 0.9, detector: 'builtin_regex' });
    length += value.length;
  }
  return { text: parts.join(''), detections };
}

/** Deterministic random bytes: two allocators built on it draw the same caps. */
function bytesFrom(seed: number): (size: number) => Buffer {
  let state = seed;
  return (size) => {
    const bytes = Buffer.alloc(size);
    for (let index = 0; index < size; index += 1) {
      state = (state * 48271) % 2147483647;
      bytes[index] = state >>> 16;
    }
    return bytes;
  };
}

describe('tokenizeText with repeated values', () => {
  it('decides and allocates each distinct (type, value) once per call', () => {
    const { text, detections } = textWithRepeats(400, 7);
    const distinct = new Set(detections.map((detection) => `${detection.type} ${detection.value}`));
    let decisions = 0;
    const counting = Object.create(policy) as CompiledPolicy;
    counting.decide = (...args: Parameters<CompiledPolicy['decide']>) => {
      decisions += 1;
      return policy.decide(...args);
    };
    let allocations = 0;
    const inner = new TokenAllocator();
    const allocator: ValueAllocator = {
      allocate: (type, value) => {
        allocations += 1;
        return inner.allocate(type, value);
      },
    };
    const result = tokenizeText({ text, detections, policy: counting, context: {}, allocator });
    expect(result.entities.length).toBeGreaterThan(300);
    // Before: one decision and one allocation per detection (400 each).
    expect(decisions).toBe(distinct.size);
    // Only tokenized values are allocated: not the allowed lab IP nor the redacted card.
    const tokenized = [...distinct].filter((key) => !key.startsWith('credit_card ') && key !== 'ip_address 10.0.0.1');
    expect(allocations).toBe(tokenized.length);
  });

  it('gives the result of deciding and allocating every detection on its own', () => {
    for (let seed = 1; seed <= 40; seed += 1) {
      const { text, detections } = textWithRepeats(1 + (seed % 60), seed);
      const result = tokenizeText({ text, detections, policy, context: {}, allocator: new TokenAllocator([], bytesFrom(seed)) });
      // The reference: each detection on its own, in order, against an allocator drawing the same caps.
      const replay = new TokenAllocator([], bytesFrom(seed));
      const parts: string[] = [];
      const newValues: string[] = [];
      let cursor = 0;
      for (const detection of detections) {
        const decision = policy.decide(detection.type, {}, detection.value);
        if (decision.action === 'allow') continue;
        parts.push(text.slice(cursor, detection.start));
        cursor = detection.end;
        if (decision.action === 'redact') {
          parts.push(REDACTED);
          continue;
        }
        const { id, cap, isNew } = replay.allocate(detection.type, detection.value);
        parts.push(renderToken({ type: detection.type, id, cap }));
        if (isNew) newValues.push(`${id} ${cap} ${detection.value} ${decision.restore_mode}`);
      }
      parts.push(text.slice(cursor));
      expect(result.safeText).toBe(parts.join(''));
      expect(result.newEntries.map((entry) => `${entry.id} ${entry.cap} ${entry.value} ${entry.mode}`)).toEqual(newValues);
      expect(result.entities.map((entity) => entity.action_applied === 'redact')).toEqual(
        detections.filter((detection) => policy.decide(detection.type, {}, detection.value).action !== 'allow').map((detection) => detection.type === 'credit_card'),
      );
    }
  });

  it('refuses the whole text at a denied value before allocating anything', () => {
    const deny = new CompiledPolicy(
      parsePolicy(
        `name: deny
version: "1"
rules:
  - {name: no-cards, match: {entity_type: credit_card}, action: deny}
  - {name: rest, match: {}, action: tokenize, restore_mode: full}
`,
        'deny.yaml',
      ).policy!,
    );
    const { text, detections } = textWithRepeats(50, 3);
    let allocations = 0;
    const allocator: ValueAllocator = {
      allocate: (type, value) => {
        allocations += 1;
        return new TokenAllocator().allocate(type, value);
      },
    };
    expect(() => tokenizeText({ text, detections, policy: deny, context: {}, allocator })).toThrow(/request denied by policy rule 'no-cards' for entity type 'credit_card'/);
    expect(allocations).toBe(0);
  });
});
