// Restore-mode order and tightening.
import { describe, expect, it } from 'vitest';
import { RESTORE_MODES, type RestoreMode } from '../vocabulary.js';
import { BUILTIN_CHANNEL_CEILINGS, modeRank, tightest } from './modes.js';

describe('restore-mode order', () => {
  it('orders full = formatted > partial > masked > abstract > none', () => {
    expect(modeRank('full')).toBe(modeRank('formatted'));
    const order: RestoreMode[] = ['formatted', 'partial', 'masked', 'abstract', 'none'];
    for (let index = 1; index < order.length; index++) expect(modeRank(order[index - 1]!)).toBeGreaterThan(modeRank(order[index]!));
  });

  it('tightest is the less revealing mode and commutative', () => {
    expect(tightest('full', 'partial')).toBe('partial');
    expect(tightest('none', 'full')).toBe('none');
    expect(tightest('masked', 'abstract')).toBe('abstract');
    for (const a of RESTORE_MODES) for (const b of RESTORE_MODES) expect(tightest(a, b)).toBe(tightest(b, a));
  });

  it('keeps formatted when clamped to full, and turns full into formatted under a formatted ceiling', () => {
    expect(tightest('formatted', 'full')).toBe('formatted');
    expect(tightest('full', 'formatted')).toBe('formatted');
    expect(tightest('full', 'full')).toBe('full');
  });

  it('has the built-in channel ceilings of decisions.md section 7', () => {
    expect(BUILTIN_CHANNEL_CEILINGS).toEqual({
      user_output: 'full',
      tool_payload: 'full',
      internal_summary: 'partial',
      customer_email: 'partial',
      export: 'masked',
      log_safe: 'none',
    });
  });
});
