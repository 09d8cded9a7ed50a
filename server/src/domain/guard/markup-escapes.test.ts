// Red-team finding (session 11 Open list, closed in session 12, wave11/red): a value broken by
// markup written with string escapes (`4111\u003cb\u003e1111 1111 1111` in a JSON answer, a
// tool call's arguments) renders whole once the string is parsed, but the guard's rendered view
// read the escapes as written. The view now decodes string escapes (one and two levels, as the
// restore's MarkupContext does) before it removes markup, with an exact map back.
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

const ESCAPED: readonly [string, readonly string[]][] = [
  ['4111\\u003cb\\u003e\\u003c/b\\u003e1111 1111 1111', ['4111', '1111']],
  ['4111\\u003Cb\\u003E1111\\u003C/b\\u003E 1111 1111', ['4111', '1111']],
  ['\\u003cspan\\u003e4111\\u003c/span\\u003e 1111 1111 1111', ['4111', '1111']],
  ['4111\\x3cb\\x3e1111 1111 1111', ['4111', '1111']],
  ['4111\\\\u003cb\\\\u003e1111 1111 1111', ['4111', '1111']],
  ['jane\\u003c!-- --\\u003e.doe@corp.example', ['jane', 'doe@corp']],
  ['078-\\u003ci\\u003e05\\u003c/i\\u003e-1120', ['078', '1120']],
  ['Quentin \\u003cem\\u003eZyxwort\\u003c/em\\u003e', ['Quentin', 'Zyxwort']],
  ['\\u003cspan\\u003e4\\u003c/span\\u003e\\u003cspan\\u003e1\\u003c/span\\u003e11 1111 1111 1111', ['1111']],
];

describe('a value broken by markup written with string escapes', () => {
  it.each(ESCAPED)('%s is masked whole, one-shot and streamed in deltas of 1 to 16', (value, parts) => {
    const text = `{"note": "Sure: ${value} as asked."}`;
    const whole = oneShot(text);
    expect(whole).toContain('[REDACTED:');
    for (const part of parts) expect(whole).not.toContain(part);
    expect(whole.startsWith('{"note": "Sure: ')).toBe(true);
    expect(whole.endsWith(' as asked."}')).toBe(true);
    for (let size = 1; size <= 16; size += 1) expect(streamed(text, size), `deltas of ${size}`).toBe(whole);
  });

  it('ordinary escaped JSON text and markup without values pass unchanged', () => {
    for (const text of [
      '{"a": "line one\\nline two, version 1.2.3 \\u003cb\\u003ebold\\u003c/b\\u003e"}',
      '{"path": "C:\\\\Users\\\\build\\\\2026", "html": "\\u003ca href=\\"https://docs.example/v2\\"\\u003edocs\\u003c/a\\u003e"}',
      'Use \\u003ccode\\u003enpm install\\u003c/code\\u003e, then open port 8080.',
    ]) {
      expect(oneShot(text)).toBe(text);
    }
  });

  it('maps view offsets back through escapes and markup', () => {
    const text = 'ab\\u003cb\\u003ecd';
    const view = renderedView(text);
    expect(view.text).toBe('ab cd');
    expect(view.originalSpan(0, 5)).toEqual({ start: 0, end: text.length });
    expect(view.originalIndex(3)).toBe(text.indexOf('cd'));
    expect(view.spansMarkup(0, 5)).toBe(true);
    expect(view.spansMarkup(0, 2)).toBe(false);
  });

  it('a text with escapes and no markup keeps the identity view', () => {
    expect(renderedView('line\\nbreak \\u0041').identity).toBe(true);
  });
});
