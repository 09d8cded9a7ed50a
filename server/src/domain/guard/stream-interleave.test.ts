// Red-team finding (session 19, wave18/red): the text members of one streamed choice interleave
// (reasoning, then the content, then the reasoning or a refusal again), and a value may span
// three members or more (its middle a whole member: a tool call, a field). Each member was
// seeded once, with the tail of the member opened before it, and a seed held only that
// member's text: a value split where a member resumed, or over three members, passed raw. A
// member resuming after another member's text now follows it (StreamOutputGuard.follow: read
// after its tail), a seed holds the members before as far back as a value reaches (tail()),
// each piece is fed back to its member, and the member written last ends first.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { indexEntries, rehydrateText } from '../rehydrate.js';
import { CompiledPolicy } from '../policy/index.js';
import { DEFAULT_POLICY } from '@veil/common';
import { findTokensLenient } from '../repair/index.js';
import { ChunkRestorer, completionMembers, jsonStringRestore, restoreCompletion } from '../proxy/restore.js';
import { StreamRehydrator } from '../stream/index.js';
import { KnownValues, type KnownEntry } from './known.js';
import { OutputGuard, StreamOutputGuard, type OutputGuardAction } from './output.js';

const EMAIL = 'red.nineteen.victim@corpnineteen.example';
const ENTRIES: KnownEntry[] = [
  { type: 'email', value: EMAIL },
  { type: 'person', value: 'Quentin Zyxwort' },
];
const policy = new CompiledPolicy(DEFAULT_POLICY);
const restore = (text: string) => rehydrateText({ output: text, entries: indexEntries([]), policy, language: 'en', caller: {}, channel: 'user_output', scan: findTokensLenient });
function guardOf(action: OutputGuardAction = 'mask'): OutputGuard {
  return new OutputGuard({ action, detect: () => [], counts: () => true, scan: findTokensLenient, known: new KnownValues(ENTRIES) });
}

interface Run { fields: Record<string, string>; args: string[]; guard: OutputGuard }
function run(deltas: readonly Record<string, unknown>[], guard = guardOf()): Run {
  const guards = new WeakMap<StreamRehydrator, StreamOutputGuard>();
  const restorer = new ChunkRestorer((kind, previous, next) => {
    const shownAfter = next === undefined ? undefined : () => { const after = next(); return after === undefined ? undefined : guards.get(after); };
    const stream = new StreamOutputGuard(guard, findTokensLenient, { before: previous === undefined ? undefined : guards.get(previous), json: kind === 'json', next: shownAfter });
    const rehydrator = new StreamRehydrator(restore, { guard: stream });
    guards.set(rehydrator, stream);
    return rehydrator;
  }, { follow: (rehydrator, before) => { const resumed = guards.get(rehydrator); const after = guards.get(before); if (resumed !== undefined && after !== undefined) resumed.follow(after); }, named: (rehydrator, name) => guards.get(rehydrator)?.lead(name) });
  const fields: Record<string, string> = {};
  const args: string[] = [];
  deltas.forEach((delta, at) => {
    const out = restorer.rewrite({ id: 'c', choices: [{ index: 0, delta, finish_reason: at === deltas.length - 1 ? 'stop' : null }] });
    for (const choice of (out?.choices ?? []) as { delta: Record<string, unknown> & { tool_calls?: { index: number; function?: { arguments?: string } }[] } }[]) {
      for (const [key, value] of Object.entries(choice.delta)) if (typeof value === 'string' && key !== 'role') fields[key] = (fields[key] ?? '') + value;
      for (const call of choice.delta.tool_calls ?? []) args[call.index] = (args[call.index] ?? '') + (call.function?.arguments ?? '');
    }
  });
  return { fields, args, guard };
}
const pieces = (member: string, text: string, size: number) => { const out: Record<string, unknown>[] = []; for (let at = 0; at < text.length; at += size) out.push({ [member]: text.slice(at, at + size) }); return out; };
function call(index: number, args: string, size: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [{ tool_calls: [{ index, id: `call_${index}`, type: 'function', function: { name: 'send', arguments: '' } }] }];
  for (let at = 0; at < args.length; at += size) out.push({ tool_calls: [{ index, function: { arguments: args.slice(at, at + size) } }] });
  return out;
}

const whole = (member: string, text: string) => [{ [member]: text }];

describe('a session value split where the fields of one streamed choice interleave', () => {
  it('masks both pieces when the reasoning or a refusal resumes after the content began the value, at every cut and delta size, counted once', { timeout: 180_000 }, () => {
    for (const member of ['reasoning_content', 'refusal']) {
      for (let cut = 1; cut < EMAIL.length; cut++) {
        for (const size of [1, 6, 1000]) {
          const r = run([{ role: 'assistant' }, ...pieces(member, 'Thinking. ', size), ...pieces('content', `Write to ${EMAIL.slice(0, cut)}`, size), ...pieces(member, `${EMAIL.slice(cut)} ok`, size), {}]);
          const what = `${member} cut ${cut} size ${size}`;
          expect(r.fields, what).toEqual({ [member]: 'Thinking. [REDACTED:email] ok', content: 'Write to [REDACTED:email]' });
          expect(r.guard.summary().findings, what).toEqual([{ type: 'email', count: 1 }]);
        }
      }
    }
  });

  it('masks both pieces when the content resumes after the reasoning began the value', () => {
    for (const size of [1, 6, 1000]) {
      const r = run([{ role: 'assistant' }, ...pieces('content', 'Hi. ', size), ...pieces('reasoning_content', 'Write to red.nineteen', size), ...pieces('content', '.victim@corpnineteen.example', size), {}]);
      expect(r.fields, `size ${size}`).toEqual({ content: 'Hi. [REDACTED:email]', reasoning_content: 'Write to [REDACTED:email]' });
    }
  });

  it('refuses under block', () => {
    expect(() => run([...whole('reasoning_content', 'Hm. '), ...whole('content', 'Write to red.nineteen'), ...whole('reasoning_content', '.victim@corpnineteen.example'), {}], guardOf('block'))).toThrow(/output protection/);
  });

  it('leaves ordinary interleaved fields, and a start the resumed field does not complete, as written', () => {
    const guard = guardOf();
    const r = run([...whole('reasoning_content', 'Plan: '), ...whole('content', 'Write to red.nineteen'), ...whole('reasoning_content', ' then stop.'), ...whole('content', ' Done.'), {}], guard);
    expect(r.fields).toEqual({ reasoning_content: 'Plan:  then stop.', content: 'Write to red.nineteen Done.' });
    expect(guard.triggered).toBe(false);
  });
});

describe('a session value split over three members or more of one streamed choice', () => {
  it('masks every piece over three tool calls (the middle a whole call), the content and two calls, three fields, counted once', () => {
    for (const size of [1, 6, 1000]) {
      const calls = run([{ role: 'assistant' }, ...call(0, '{"a":"red."}', size), ...call(1, '{"b":"nineteen.victim"}', size), ...call(2, '{"c":"@corpnineteen.example","n":2}', size), {}]);
      expect(calls.args, `calls ${size}`).toEqual(['{"a":"[REDACTED:email]"}', '{"b":"[REDACTED:email]"}', '{"c":"[REDACTED:email]","n":2}']);
      expect(calls.guard.summary().findings).toEqual([{ type: 'email', count: 1 }]);
      const mixed = run([{ role: 'assistant' }, ...pieces('content', 'Write to red.', size), ...call(0, '{"b":"nineteen.victim"}', size), ...call(1, '{"c":"@corpnineteen.example"}', size), {}]);
      expect(mixed.fields.content, `mixed ${size}`).toBe('Write to [REDACTED:email]');
      expect(mixed.args, `mixed ${size}`).toEqual(['{"b":"[REDACTED:email]"}', '{"c":"[REDACTED:email]"}']);
      const fields = run([{ role: 'assistant' }, ...pieces('content', 'Write to red.', size), ...pieces('reasoning_content', 'nineteen', size), ...pieces('refusal', '.victim@corpnineteen.example', size), {}]);
      expect(fields.fields, `fields ${size}`).toEqual({ content: 'Write to [REDACTED:email]', reasoning_content: '[REDACTED:email]', refusal: '[REDACTED:email]' });
    }
    // Four calls, a piece each.
    const four = run([...call(0, '{"a":"red"}', 3), ...call(1, '{"b":"nineteen"}', 3), ...call(2, '{"c":"victim"}', 3), ...call(3, '{"d":"@corpnineteen.example"}', 3), {}]);
    expect(four.args).toEqual(['{"a":"[REDACTED:email]"}', '{"b":"[REDACTED:email]"}', '{"c":"[REDACTED:email]"}', '{"d":"[REDACTED:email]"}']);
  });

  it('leaves ordinary calls, and three calls that only look like pieces, as written', () => {
    const guard = guardOf();
    const r = run([...call(0, '{"a":"red."}', 4), ...call(1, '{"b":"nineteen"}', 4), ...call(2, '{"c":"corp"}', 4), {}], guard);
    expect(r.args).toEqual(['{"a":"red."}', '{"b":"nineteen"}', '{"c":"corp"}']);
    expect(guard.triggered).toBe(false);
  });

  it('changes no answer of the guard precision corpus split in three and interleaved (reasoning, content, reasoning; three calls)', { timeout: 180_000 }, () => {
    const path = new URL('../../../../data/guard-ordinary.jsonl', import.meta.url);
    const records = readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { id: string; text: string });
    expect(records.length).toBeGreaterThanOrEqual(500);
    const changed: string[] = [];
    for (const record of records) {
      const a = record.text.indexOf(' ', record.text.length / 3);
      const b = a < 0 ? -1 : record.text.indexOf(' ', (2 * record.text.length) / 3);
      const cuts = [a < 0 ? record.text.length : a, b < 0 ? record.text.length : b];
      const [one, two, three] = [record.text.slice(0, cuts[0]), record.text.slice(cuts[0], cuts[1]), record.text.slice(cuts[1])];
      const fields = run([...pieces('reasoning_content', one, 40), ...pieces('content', two, 40), ...pieces('reasoning_content', three, 40), {}]);
      if (fields.fields.reasoning_content !== one + three || (fields.fields.content ?? '') !== two) changed.push(`${record.id} fields`);
      const calls = run([...call(0, JSON.stringify({ t: one }), 40), ...call(1, JSON.stringify({ t: two }), 40), ...call(2, JSON.stringify({ t: three }), 40), {}]);
      if (calls.args.join('|') !== [one, two, three].map((t) => JSON.stringify({ t })).join('|')) changed.push(`${record.id} calls`);
    }
    expect(changed).toEqual([]);
  });
});

describe('a session value split between a tool call\'s name and its arguments', () => {
  it('masks the piece in the arguments (the name, an identifier, is sent whole); ordinary names change nothing', () => {
    for (const size of [1, 6, 1000]) {
      const deltas = [{ tool_calls: [{ index: 0, id: 'call_0', type: 'function', function: { name: 'red_nineteen_victim', arguments: '' } }] }, ...call(0, '{"at":"@corpnineteen.example"}', size).slice(1), {}];
      expect(run(deltas).args, `size ${size}`).toEqual(['{"at":"[REDACTED:email]"}']);
      const legacy = run([{ function_call: { name: 'red_nineteen_victim', arguments: '' } }, { function_call: { arguments: '{"at":"@corpnineteen.example"}' } }, {}]);
      expect(legacy.guard.summary().findings).toEqual([{ type: 'email', count: 1 }]);
    }
    const guard = guardOf();
    expect(run([...call(0, '{"to":"corpnineteen"}', 4), {}], guard).args).toEqual(['{"to":"corpnineteen"}']);
    expect(guard.triggered).toBe(false);
  });
});

describe('the same classes in a whole (not streamed) answer', () => {
  /** A whole answer guarded as the proxy does: the members read as one answer, then each restored. */
  function whole(message: Record<string, unknown>): { message: Record<string, unknown>; guard: OutputGuard } {
    const guard = guardOf();
    const completion = { id: 'c', choices: [{ index: 0, message, finish_reason: 'stop' }] };
    guard.acrossMembers(completionMembers(completion), 'answer');
    const text = (value: string) => restore(guard.guard(value));
    const json = jsonStringRestore((value) => restore(value), findTokensLenient);
    const restored = restoreCompletion(completion, { text, json: (value) => json(guard.guard(value, 'output_json')), guarded: true });
    return { message: (restored.value.choices as { message: Record<string, unknown> }[])[0]!.message, guard };
  }
  const tool = (index: number, args: string) => ({ id: `call_${index}`, type: 'function', function: { name: 'send', arguments: args } });

  it('masks a value across the reasoning, the content and a refusal, and over three tool calls, counted once', () => {
    const fields = whole({ role: 'assistant', reasoning_content: 'Write to red.', content: 'nineteen', refusal: '.victim@corpnineteen.example' });
    expect(fields.message).toMatchObject({ reasoning_content: 'Write to [REDACTED:email]', content: '[REDACTED:email]', refusal: '[REDACTED:email]' });
    expect(fields.guard.summary().findings).toEqual([{ type: 'email', count: 1 }]);
    const calls = whole({ role: 'assistant', content: null, tool_calls: [tool(0, '{"a":"red."}'), tool(1, '{"b":"nineteen.victim"}'), tool(2, '{"c":"@corpnineteen.example"}')] });
    const args = (calls.message.tool_calls as { function: { arguments: string } }[]).map((call) => call.function.arguments);
    expect(args).toEqual(['{"a":"[REDACTED:email]"}', '{"b":"[REDACTED:email]"}', '{"c":"[REDACTED:email]"}']);
    expect(calls.guard.summary().findings).toEqual([{ type: 'email', count: 1 }]);
    const mixed = whole({ role: 'assistant', content: 'Write to red.nineteen', tool_calls: [tool(0, '{"b":".victim@corpnineteen"}'), tool(1, '{"c":".example"}')] });
    expect(JSON.stringify(mixed.message)).not.toMatch(/nineteen|victim/);
  });
});
