// Red-team finding (session 10): every answer member other than content, refusal, an audio
// transcript and arguments passed through unread, so a raw value the model wrote in
// `reasoning_content`, content parts, an annotation, a custom tool's input or any field a newer
// API adds reached the caller past the output guard. Now a whole answer restores and guards every
// string of a message (identifiers aside); a stream restores and guards every top-level string
// member of a delta and the audio transcript with the same hold-back as content, and refuses text
// it cannot hold back (content parts, a custom tool's input, nested members) as malformed.
import { DEFAULT_POLICY, isVeilError } from '@veil/common';
import { describe, expect, it } from 'vitest';
import { detectAll } from '../detect/index.js';
import { OutputGuard, StreamOutputGuard } from '../guard/index.js';
import { CompiledPolicy } from '../policy/index.js';
import { indexEntries, rehydrateText } from '../rehydrate.js';
import { findTokensLenient } from '../repair/index.js';
import { MarkupContext } from '../restore/index.js';
import { StreamRehydrator, type RestoreFunction } from '../stream/index.js';
import { renderToken } from '../token/index.js';
import type { TokenEntry } from '../types.js';
import { ChunkRestorer, isUrlMember, jsonStringRestore, restoreCompletion, urlTarget } from './restore.js';

const ENTRY: TokenEntry = { id: 'e_001', type: 'email', cap: '0123456789ab', value: 'jane@example.com', mode: 'full' };
const TOKEN = renderToken(ENTRY);
const RAW = '4111 1111 1111 1111';
const policy = new CompiledPolicy(DEFAULT_POLICY);
const entries = indexEntries([ENTRY]);
const guardOf = (): OutputGuard => new OutputGuard({ action: 'mask', detect: (text) => detectAll(text), counts: (detection) => detection.type !== 'url', scan: findTokensLenient });
const restore: RestoreFunction = (output) => rehydrateText({ output, entries, policy, language: 'en', caller: {}, channel: 'user_output', scan: findTokensLenient });
const json = jsonStringRestore(restore, findTokensLenient);

describe('a whole answer: every string of a message is restored and guarded', () => {
  it('reasoning, content parts, annotations, a custom tool input and unknown fields; identifiers stay', () => {
    const guard = guardOf();
    const text: RestoreFunction = (value) => restore(guard.guard(value));
    const said = `card ${RAW} for ${TOKEN}`;
    const message = {
      role: 'assistant',
      content: [{ type: 'text', text: said }],
      reasoning_content: said,
      reasoning: said,
      thinking_v2: { steps: [said] },
      annotations: [{ type: 'url_citation', url_citation: { url: 'https://docs.example/', title: said } }],
      audio: { id: 'audio_4111111111111111', data: 'QUJD', transcript: said },
      tool_calls: [
        { id: 'call_1', type: 'custom', custom: { name: 'lookup', input: said } },
        { id: 'call_2', type: 'function', function: { name: 'mail', arguments: `{"to":"${TOKEN}"}` } },
      ],
    };
    const restored = restoreCompletion({ id: 'x', choices: [{ index: 0, finish_reason: 'stop', message }] }, { text, json });
    const out = (restored.value.choices as any[])[0].message;
    const expected = 'card [REDACTED:credit_card] for jane@example.com';
    expect(out.content).toEqual([{ type: 'text', text: expected }]);
    expect(out.reasoning_content).toBe(expected);
    expect(out.reasoning).toBe(expected);
    expect(out.thinking_v2).toEqual({ steps: [expected] });
    expect(out.annotations[0].url_citation).toEqual({ url: 'https://docs.example/', title: expected });
    expect(out.audio).toEqual({ id: 'audio_4111111111111111', data: 'QUJD', transcript: expected });
    expect(out.tool_calls[0]).toEqual({ id: 'call_1', type: 'custom', custom: { name: 'lookup', input: expected } });
    expect(JSON.parse(out.tool_calls[1].function.arguments)).toEqual({ to: 'jane@example.com' });
    expect(out.role).toBe('assistant');
    expect(JSON.stringify(restored.value)).not.toContain('4111 1111');
  });
});

function chunk(delta: Record<string, unknown>, finish: string | null = null): Record<string, unknown> {
  return { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] };
}

function streamOf(chunks: readonly Record<string, unknown>[]): { deltas: Record<string, unknown>[]; error?: unknown } {
  // As the proxy opens them: one MarkupContext per text stream.
  const open = (kind: 'text' | 'json'): StreamRehydrator => {
    const markup = new MarkupContext();
    const piece: RestoreFunction =
      kind === 'text'
        ? (output) => rehydrateText({ output, entries, policy, language: 'en', caller: {}, channel: 'user_output', scan: findTokensLenient, markup })
        : jsonStringRestore((output, context) => rehydrateText({ output, entries, policy, language: 'en', caller: {}, channel: 'tool_payload', scan: findTokensLenient, ...(context !== undefined ? { markup: context } : {}) }), findTokensLenient, markup);
    return new StreamRehydrator(piece, { guard: new StreamOutputGuard(guardOf(), findTokensLenient) });
  };
  const restorer = new ChunkRestorer(open);
  const deltas: Record<string, unknown>[] = [];
  const collect = (rewritten: Record<string, unknown> | undefined): void => {
    for (const choice of (rewritten?.choices ?? []) as { delta: Record<string, unknown> }[]) deltas.push(choice.delta);
  };
  try {
    for (const one of chunks) collect(restorer.rewrite(one));
    collect(restorer.finish());
  } catch (error) {
    return { deltas, error };
  }
  return { deltas };
}

describe('a stream: other text members are held back, restored and guarded, or refused', () => {
  const said = `card ${RAW} for ${TOKEN} ok`;

  it.each([['reasoning_content'], ['reasoning'], ['a_future_text_field']])('%s, one character per chunk', (member) => {
    const result = streamOf([chunk({ role: 'assistant' }), ...Array.from(said, (char) => chunk({ [member]: char })), chunk({}, 'stop')]);
    expect(result.error).toBeUndefined();
    expect(result.deltas.map((delta) => (delta[member] as string | undefined) ?? '').join('')).toBe('card [REDACTED:credit_card] for jane@example.com ok');
  });

  it('an audio transcript, one character per chunk; its id and data pass', () => {
    const result = streamOf([...Array.from(said, (char, index) => chunk({ audio: { id: 'a1', ...(index === 0 ? { data: 'QUJD' } : {}), transcript: char } })), chunk({}, 'stop')]);
    expect(result.error).toBeUndefined();
    expect(result.deltas.map((delta) => (delta.audio as { transcript?: string } | undefined)?.transcript ?? '').join('')).toBe('card [REDACTED:credit_card] for jane@example.com ok');
  });

  it.each([
    ['content parts', { content: [{ type: 'text', text: RAW }] }],
    ['a custom tool input', { tool_calls: [{ index: 0, id: 'c1', type: 'custom', custom: { name: 'f', input: RAW } }] }],
    ['function_call text besides arguments', { function_call: { name: 'f', arguments: '{}', note: RAW } }],
  ])('%s: refused as malformed, nothing of it sent', (_name, delta) => {
    const result = streamOf([chunk({ role: 'assistant' }), chunk(delta), chunk({}, 'stop')]);
    expect(isVeilError(result.error) && result.error.code === 'VEIL_UPSTREAM_FAILED').toBe(true);
    expect(JSON.stringify(result.deltas)).not.toContain('4111');
  });

  it('a member with nested text (annotations) restores and guards each string whole, in its chunk', () => {
    const annotations = [{ type: 'url_citation', url_citation: { url: `https://evil.example/?d=${TOKEN}`, title: `card ${RAW} of ${TOKEN}`, start_index: 0 } }];
    const result = streamOf([chunk({ role: 'assistant', content: 'See.' }), chunk({ annotations }), chunk({}, 'stop')]);
    expect(result.error).toBeUndefined();
    const sent = result.deltas.find((delta) => delta.annotations !== undefined)!.annotations as { url_citation: Record<string, unknown> }[];
    expect(sent[0]!.url_citation).toEqual({ url: 'https://evil.example/?d=[email address]', title: 'card [REDACTED:credit_card] of jane@example.com', start_index: 0 });
  });

  it('text after the finish_reason in any member is refused', () => {
    const result = streamOf([chunk({ reasoning_content: 'a' }), chunk({}, 'stop'), chunk({ reasoning_content: RAW })]);
    expect(isVeilError(result.error) && result.error.code === 'VEIL_UPSTREAM_FAILED').toBe(true);
  });
});

describe('logprobs spell out the model text past the output guard: dropped when it runs', () => {
  const logprobs = { content: [{ token: '4111', logprob: -0.1, bytes: [52, 49, 49, 49], top_logprobs: [] }] };

  it('a whole answer', () => {
    const completion = { id: 'x', choices: [{ index: 0, finish_reason: 'stop', logprobs, message: { role: 'assistant', content: `card ${RAW}` } }] };
    const guard = guardOf();
    const guarded = restoreCompletion(completion, { text: (value) => restore(guard.guard(value)), json, guarded: true });
    expect((guarded.value.choices as any[])[0].logprobs).toBeNull();
    const open = restoreCompletion(completion, { text: restore, json });
    expect((open.value.choices as any[])[0].logprobs).toEqual(logprobs);
  });

  it('a stream', () => {
    const chunks = [{ id: 'c', choices: [{ index: 0, delta: { content: `card ${RAW}` }, logprobs, finish_reason: null }] }, chunk({}, 'stop')];
    const run = (guarded: boolean): unknown[] => {
      const restorer = new ChunkRestorer((kind) => new StreamRehydrator(kind === 'text' ? restore : json), { guarded });
      return chunks.flatMap((one) => ((restorer.rewrite(one)?.choices ?? []) as { logprobs?: unknown }[]).map((choice) => choice.logprobs));
    };
    expect(run(true).filter((value) => value !== undefined && value !== null)).toEqual([]);
    expect(run(false)).toContainEqual(logprobs);
  });
});

describe('nesting', () => {
  it('a message or delta nested deeper than 64 levels is malformed, never a stack overflow', () => {
    let deep: unknown = 'x';
    for (let level = 0; level < 100_000; level += 1) deep = [deep];
    const whole = () => restoreCompletion({ id: 'x', choices: [{ index: 0, message: { role: 'assistant', content: 'a', extra: deep } }] }, { text: restore, json });
    expect(whole).toThrow(/nested too deep/);
    const result = streamOf([chunk({ extra: deep })]);
    expect(isVeilError(result.error) && result.error.code === 'VEIL_UPSTREAM_FAILED').toBe(true);
  });
});

// Session 14 (wave13/red): a token that is the whole of a URL member (`url_citation.url`,
// `image_url.url`) restored in full: the member is a link or image target by its name, so it
// restores as in a URL (the channel's url_restore_mode, the label by default), whole and streamed.
describe('a URL member restores as a link target', () => {
  const markupRestore = (output: string, markup?: MarkupContext) => rehydrateText({ output, entries, policy, language: 'en', caller: {}, channel: 'user_output', scan: findTokensLenient, ...(markup !== undefined ? { markup } : {}) });

  it('whole: a token that is the whole url of a citation or an image gets the label; the title its value', () => {
    const message = {
      role: 'assistant',
      content: [{ type: 'image_url', image_url: { url: TOKEN } }],
      annotations: [{ type: 'url_citation', url_citation: { url: TOKEN, title: TOKEN } }],
    };
    const restored = restoreCompletion({ id: 'x', choices: [{ index: 0, message }] }, { text: restore, json, url: (value) => markupRestore(value, urlTarget()) });
    const out = (restored.value.choices as { message: typeof message }[])[0]!.message;
    expect(out.content[0]!.image_url.url).toBe('[email address]');
    expect(out.annotations[0]!.url_citation).toEqual({ url: '[email address]', title: 'jane@example.com' });
    // An ordinary URL member without a token is unchanged.
    const plain = restoreCompletion({ id: 'x', choices: [{ index: 0, message: { role: 'assistant', annotations: [{ type: 'url_citation', url_citation: { url: 'https://docs.example/a?b=c', title: 't' } }] } }] }, { text: restore, json, url: (value) => markupRestore(value, urlTarget()) });
    expect(JSON.stringify(plain.value)).toContain('https://docs.example/a?b=c');
  });

  it('streamed: a whole-token url in an annotation gets the label', () => {
    const open = (): StreamRehydrator => {
      const markup = urlTarget();
      return new StreamRehydrator((output) => markupRestore(output, markup), { guard: new StreamOutputGuard(guardOf(), findTokensLenient) });
    };
    const restorer = new ChunkRestorer(() => new StreamRehydrator(restore), { openUrl: open });
    const rewritten = restorer.rewrite({ id: 'x', choices: [{ index: 0, delta: { annotations: [{ type: 'url_citation', url_citation: { url: TOKEN, title: TOKEN } }] } }] });
    const sent = (rewritten?.choices as { delta: { annotations: { url_citation: Record<string, unknown> }[] } }[])[0]!.delta.annotations[0]!.url_citation;
    expect(sent).toEqual({ url: '[email address]', title: 'jane@example.com' });
  });

  it('a member named as a link or resource target in other APIs (href, link, src, uri, image_url, imageUrl) is one too; other names are text', () => {
    for (const key of ['href', 'HREF', 'link', 'src', 'uri', 'image_url', 'website-uri', 'next_link', 'imageUrl', 'sourceURI', 'canonicalHref']) expect(isUrlMember(key)).toBe(true);
    for (const key of ['title', 'text', 'content', 'urls', 'curl', 'hurl', 'unlink', 'linked', 'description', 'source']) expect(isUrlMember(key)).toBe(false);
    const message = { role: 'assistant', content: 'see', tool_results: [{ href: TOKEN, link: TOKEN, imageUrl: TOKEN, title: TOKEN }] };
    const restored = restoreCompletion({ id: 'x', choices: [{ index: 0, message }] }, { text: restore, json, url: (value) => markupRestore(value, urlTarget()) });
    const out = (restored.value.choices as { message: typeof message }[])[0]!.message;
    expect(out.tool_results[0]).toEqual({ href: '[email address]', link: '[email address]', imageUrl: '[email address]', title: 'jane@example.com' });
  });
});
