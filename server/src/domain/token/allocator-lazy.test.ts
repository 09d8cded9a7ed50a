// TokenAllocator normalizes a type's values only once the type meets a second written value
// (session 17, issue 20): counted through a wrapped normalizeValue.
import { describe, expect, it, vi } from 'vitest';

const calls = vi.hoisted(() => [] as string[]);
vi.mock('./normalize.js', async (original) => {
  const actual = await original<typeof import('./normalize.js')>();
  return {
    ...actual,
    normalizeValue: (type: string, value: string, region?: string) => {
      calls.push(`${type}:${value}`);
      return actual.normalizeValue(type, value, region);
    },
  };
});

const { TokenAllocator } = await import('./allocator.js');

describe('TokenAllocator normalization', () => {
  it('normalizes nothing while each type has one written value, then both values of a type that meets a second', () => {
    calls.length = 0;
    const allocator = new TokenAllocator([{ id: 'p_001', type: 'person', value: 'Ann', cap: 'aaaaaaaaaaaa', mode: 'full' }], undefined, 'US');
    allocator.allocate('phone', '+1 415 555 0134');
    allocator.allocate('email', 'a@x.io');
    allocator.allocate('phone', '+1 415 555 0134');
    allocator.allocate('person', 'Ann');
    expect(calls).toEqual([]);
    allocator.allocate('phone', '(415) 555-0134');
    expect(calls).toEqual(['phone:+1 415 555 0134', 'phone:(415) 555-0134']);
    allocator.allocate('phone', '(415) 555-0134');
    allocator.allocate('person', 'Bob');
    expect(calls).toEqual(['phone:+1 415 555 0134', 'phone:(415) 555-0134', 'person:Ann', 'person:Bob']);
  });
});
