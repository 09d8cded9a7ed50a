// The output guard reads a model answer through the same folded view as detection
// (domain/text/fold.ts via view.ts): a session value the model writes with markup inside
// (`john<span>@</span>corp.example`, `415-<b>555</b>-0142`, `4111**1111**1111 1111`) is still the
// session's value and is masked over its whole span; a card written with look-alike letters is
// masked by detection (session 11, wave10/evade).
import { describe, expect, it } from 'vitest';
import { detectAll } from '../detect/index.js';
import { findTokensLenient } from '../repair/index.js';
import { KnownValues } from './known.js';
import { OutputGuard } from './output.js';

const SESSION = [
  { type: 'email', value: 'markup.erase@corp.example' },
  { type: 'phone', value: '+1 415 555 0142' },
  { type: 'credit_card', value: '4111 1111 1111 1111' },
];

/** The guard with the session's values only (no detectors): the known-values search alone. */
const knownOnly = (): OutputGuard =>
  new OutputGuard({ action: 'mask', detect: () => [], counts: () => true, scan: findTokensLenient, known: new KnownValues(SESSION) });

describe('session values broken by markup in a model answer', () => {
  it.each([
    ['Write to markup.erase<span>@</span>corp.example today.', 'markup.erase<span>@</span>corp.example'],
    ['Write to markup<wbr>.erase<wbr>@corp<wbr>.example today.', 'markup<wbr>.erase<wbr>@corp<wbr>.example'],
    ['Call 415-<b>555</b>-0142 now.', '415-<b>555</b>-0142'],
    ['Card 4111**1111**1111 1111 on file.', '4111**1111**1111 1111'],
    ['Card 4111<!-- x -->1111 1111 1111 on file.', '4111<!-- x -->1111 1111 1111'],
  ])('masks %j', (answer, value) => {
    const guarded = knownOnly().guard(answer);
    expect(guarded).toContain('[REDACTED:');
    expect(guarded).not.toContain(value);
    for (const piece of value.split(/<[^>]*>|\*\*/).filter((part) => part.length >= 3)) expect(guarded).not.toContain(piece);
  });

  it('leaves an answer with ordinary markup alone', () => {
    const answer = 'Use **bold** and `code`, <b>tags</b> and a[i] ** 2.';
    expect(knownOnly().guard(answer)).toBe(answer);
  });
});

describe('a leaked card written with look-alike letters', () => {
  it('is masked by detection', () => {
    const guard = new OutputGuard({ action: 'mask', detect: (text) => detectAll(text), counts: () => true, scan: findTokensLenient });
    const guarded = guard.guard('Your card is 4111 1lll 1111 1111, keep it safe.');
    expect(guarded).toContain('[REDACTED:credit_card]');
    expect(guarded).not.toContain('1lll');
  });
});
