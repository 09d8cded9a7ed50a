// Constant-time cap comparison (threats.md 1): rehydrate compares the presented cap with the
// stored one without a timing signal that would let an attacker learn a cap byte by byte.
import { timingSafeEqual } from 'node:crypto';

/**
 * True when `presented` equals `expected`. The work done depends only on the presented length:
 * equal lengths go through timingSafeEqual; a length mismatch still does one comparison of the
 * presented size before returning false. So there is no early, data-dependent exit, and a caller
 * that passes '' for an unknown id does the same work as for a known id with a wrong cap (no
 * oracle, threats.md 1). Cap lengths are public (12 or 32), so the length itself leaks nothing.
 */
export function capsEqual(expected: string, presented: string): boolean {
  const expectedBytes = Buffer.from(expected, 'utf8');
  const presentedBytes = Buffer.from(presented, 'utf8');
  if (expectedBytes.length !== presentedBytes.length) {
    timingSafeEqual(presentedBytes, presentedBytes);
    return false;
  }
  return timingSafeEqual(expectedBytes, presentedBytes);
}
