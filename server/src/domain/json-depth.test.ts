// The nesting pre-scan counts only structural brackets and stops at the limit.
import { describe, expect, it } from 'vitest';
import { checkJsonDepth } from './json-depth.js';

describe('checkJsonDepth', () => {
  it('accepts documents within the limit and ignores brackets inside strings', () => {
    expect(() => checkJsonDepth(`{"a":${'['.repeat(10)}${']'.repeat(10)}}`, 11)).not.toThrow();
    expect(() => checkJsonDepth(`{"a":"${'[{'.repeat(1000)}\\"["}`, 2)).not.toThrow();
  });

  it('refuses deeper documents with 413 VEIL_PAYLOAD_TOO_LARGE naming the field, quoting nothing', () => {
    expect(() => checkJsonDepth(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)).toThrow(/^body: nested deeper than 128 levels$/);
    expect(() => checkJsonDepth('{"a":{"b":[1]}}', 2, 'delta')).toThrow(expect.objectContaining({ code: 'VEIL_PAYLOAD_TOO_LARGE', status: 413, message: 'delta: nested deeper than 2 levels' }));
  });
});
