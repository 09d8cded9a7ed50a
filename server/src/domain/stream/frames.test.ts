// Transform-stream frames: one tokenization of the whole input, cut on sentence boundaries that
// never split an entity; frames concatenate to the safe text and carry their own entities.
import { DEFAULT_POLICY, VeilError, type Policy } from '@veil/common';
import { describe, expect, it } from 'vitest';
import { detectAll } from '../detect/index.js';
import { CompiledPolicy } from '../policy/index.js';
import { TokenAllocator } from '../token/index.js';
import { tokenizeIntoFrames } from './frames.js';

function frames(text: string, policy: Policy = DEFAULT_POLICY, maxLength?: number) {
  return tokenizeIntoFrames(
    { text, detections: detectAll(text, { language: 'en' }), policy: new CompiledPolicy(policy), context: {}, allocator: new TokenAllocator() },
    maxLength !== undefined ? { maxLength } : {},
  );
}

describe('tokenizeIntoFrames', () => {
  it('frames concatenate to the safe text and own the entities inside them', () => {
    const text = 'Hi, I am ada@example.com. My card is 4111 1111 1111 1111.\n\nCall +1 415 555 2671. Or mail ada@example.com again.';
    const { result, frames: list } = frames(text);
    expect(list.map((frame) => frame.safeText).join('')).toBe(result.safeText);
    expect(list.map((frame) => frame.index)).toEqual(list.map((_, index) => index));
    expect(list.length).toBe(4);
    expect(list.flatMap((frame) => frame.entities)).toEqual(result.entities);
    for (const frame of list) {
      expect(frame.safeText).not.toMatch(/ada@|4111|415/);
      for (const entity of frame.entities) expect(entity.start >= frame.start && entity.end <= frame.end).toBe(true);
    }
    expect(list[3]!.safeText).toContain(list[0]!.entities[0]!.token);
  });

  it('refuses a denied entity before any frame exists', () => {
    const deny: Policy = { name: 'deny', version: '1', rules: [{ name: 'no-cards', match: { entity_type: 'credit_card' }, action: 'deny' }] };
    expect(() => frames('Fine. Then 4111 1111 1111 1111.', deny)).toThrow(VeilError);
  });

  it('bounds long frames without splitting an entity', () => {
    const text = `${'word '.repeat(50)}ada@example.com ${'word '.repeat(50)}`;
    const { result, frames: list } = frames(text, DEFAULT_POLICY, 64);
    expect(list.map((frame) => frame.safeText).join('')).toBe(result.safeText);
    expect(list.filter((frame) => frame.entities.length > 0)).toHaveLength(1);
  });
});
