// Red-team finding (session 10, open until session 11): a value the model breaks with markup
// (`4111<b></b>1111 1111 1111`, a Markdown link around its first group, emphasis, a comment in
// an e-mail address) renders whole but passed the output guard, which read the text as written.
// Now the guard also reads the text as it renders (markup.ts) and masks such a value whole,
// markup inside it included; a stream holds a value while a tag may still continue it.
import { DEFAULT_POLICY } from '@veil/common';
import { describe, expect, it } from 'vitest';
import { detectAll } from '../detect/index.js';
import { CompiledPolicy } from '../policy/index.js';
import { indexEntries, rehydrateText } from '../rehydrate.js';
import { findTokensLenient } from '../repair/index.js';
import { StreamRehydrator } from '../stream/index.js';
import { KnownValues } from './known.js';
import { renderedView } from './markup.js';
import { OutputGuard, StreamOutputGuard } from './output.js';

const policy = new CompiledPolicy(DEFAULT_POLICY);
const restore = (text: string) => rehydrateText({ output: text, entries: indexEntries([]), policy, language: 'en', caller: {}, channel: 'user_output', scan: findTokensLenient });
const known = new KnownValues([{ type: 'person', value: 'Quentin Zyxwort' }], 'US');
const guardOf = (): OutputGuard => new OutputGuard({ action: 'mask', detect: (text) => detectAll(text), counts: (detection) => detection.type !== 'url' && detection.type !== 'date', scan: findTokensLenient, known });

const oneShot = (text: string): string => restore(guardOf().guard(text)).restoredText;

function streamed(text: string, size: number): string {
  const rehydrator = new StreamRehydrator(restore, { guard: new StreamOutputGuard(guardOf(), findTokensLenient) });
  let out = '';
  for (let index = 0; index < text.length; index += size) out += rehydrator.push(text.slice(index, index + size));
  return out + rehydrator.end();
}

/** Values broken by markup, and what of them must not leave. */
const BROKEN: readonly [string, readonly string[]][] = [
  ['4111<b></b>1111 1111 1111', ['4111', '1111']],
  ['<span>4111</span> 1111 1111 1111', ['4111', '1111']],
  ['[4111](https://x.example) 1111 1111 1111', ['4111', '1111']],
  ['![4111](https://x.example/p.png) 1111 1111 1111', ['4111', '1111']],
  ['**4111** 1111 `1111` 1111', ['4111', '1111']],
  ['4111<!-- gap -->1111<i>1111</i>1111', ['4111', '1111']],
  ['4111 <b\nclass="x">1111</b> 1111 1111', ['4111', '1111']],
  ['jane<b></b>.doe@corp.example', ['jane', 'doe@corp']],
  ['078-<i>05</i>-1120', ['078', '1120']],
  ['GB82 <b>WEST</b> 1234 5698 7654 32', ['GB82', '5698']],
  ['Quentin <em>Zyxwort</em>', ['Quentin', 'Zyxwort']],
  ['<span>4</span><span>1</span>11 1111 1111 1111', ['1111']],
  ['4111 \\(1111\\) 1111 1111', ['4111', '1111']],
  ['4111 $1111$ 1111 1111', ['4111', '1111']],
];

describe('a value broken by markup in the answer', () => {
  it.each(BROKEN)('%j is masked whole, one-shot and streamed in deltas of 1 to 16', (value, parts) => {
    const text = `Sure, here it is: ${value} as requested.`;
    const whole = oneShot(text);
    expect(whole).toContain('[REDACTED:');
    for (const part of parts) expect(whole).not.toContain(part);
    expect(whole.startsWith('Sure, here it is: ')).toBe(true);
    expect(whole.endsWith(' as requested.')).toBe(true);
    for (let size = 1; size <= 16; size += 1) expect(streamed(text, size), `deltas of ${size}`).toBe(whole);
  });

  it('is held while a tag may still continue the value', () => {
    const rehydrator = new StreamRehydrator(restore, { guard: new StreamOutputGuard(guardOf(), findTokensLenient) });
    let out = rehydrator.push('Card: 4111');
    out += rehydrator.push('<b');
    out += rehydrator.push(' class="x">');
    expect(out).not.toContain('4111');
    out += rehydrator.push('1111</b> 1111 1111 done.');
    out += rehydrator.end();
    expect(out).not.toContain('4111');
    expect(out).toContain('[REDACTED:credit_card]');
  });
});

describe('ordinary markup', () => {
  it.each([
    ['Use **bold** and `code` and <kbd>Ctrl</kbd>+<kbd>C</kbd> in version 1.2.3.'],
    ['See [the docs](https://docs.python.org/3/) for `asyncio.run()`.'],
    ['<table><tr><td>2019</td><td>2020</td><td>2021</td></tr></table>'],
    ['Use `a * b` and ~~strike~~, then call <code>f(x)</code> at 10:30.'],
  ])('%j is left alone', (text) => {
    expect(oneShot(text)).toBe(text);
  });

  it('maps every view offset back to the original', () => {
    const text = 'a<b>b</b>[c](x)**d**<!--e-->f<g';
    const view = renderedView(text);
    // A piece removed between two letters leaves a space, mapped to the piece's start.
    expect(view.text).toBe('a b c d f');
    for (let index = 0; index < view.text.length; index += 1) {
      if (view.text[index] !== ' ') expect(text[view.originalIndex(index)]).toBe(view.text[index]);
      else expect('<[*'.includes(text[view.originalIndex(index)]!)).toBe(true);
    }
    expect(view.spansMarkup(0, 3)).toBe(true);
    expect(view.spansMarkup(0, 1)).toBe(false);
  });

  it('stays linear on hostile markup', () => {
    const view = renderedView(`${'<a'.repeat(20_000)}${'[x'.repeat(20_000)}${'<!--'.repeat(20_000)}`);
    expect(view.text.length).toBeLessThan(200_000);
  });
});
