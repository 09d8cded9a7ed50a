// Red-team finding (session 18, wave17/red): a session value the model splits across two tool
// calls of one streamed choice. Call 0's arguments end (`"}`) when call 1 starts, so call 0 used
// to release its last piece before call 1 had text: only call 1's piece was masked. Call 0's
// arguments now keep a value's first piece held through the closing syntax, and call 0 ends
// only once call 1's guard has read past where a value begun in call 0 could still grow (its
// finding is fed back first). The same holds when both calls arrive in one delta.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { indexEntries, rehydrateText } from '../rehydrate.js';
import { CompiledPolicy } from '../policy/index.js';
import { DEFAULT_POLICY } from '@veil/common';
import { findTokensLenient } from '../repair/index.js';
import { ChunkRestorer } from '../proxy/restore.js';
import { StreamRehydrator } from '../stream/index.js';
import { KnownValues, type KnownEntry } from './known.js';
import { OutputGuard, StreamOutputGuard, type OutputGuardAction } from './output.js';

const EMAIL = 'red.eighteen.victim@corpeighteen.example';
const ENTRIES: KnownEntry[] = [
  { type: 'email', value: EMAIL },
  { type: 'person', value: 'Quentin Zyxwort' },
];

const policy = new CompiledPolicy(DEFAULT_POLICY);
const restore = (text: string) => rehydrateText({ output: text, entries: indexEntries([]), policy, language: 'en', caller: {}, channel: 'user_output', scan: findTokensLenient });

function guardOf(action: OutputGuardAction = 'mask'): OutputGuard {
  return new OutputGuard({ action, detect: () => [], counts: () => true, scan: findTokensLenient, known: new KnownValues(ENTRIES) });
}

/** Run `chunks` (deltas of choice 0, the last one finishing) through a guarded ChunkRestorer: each tool call's arguments and the content, joined as a client joins them. */
function runCalls(deltas: readonly Record<string, unknown>[], guard = guardOf()): { content: string; args: string[]; guard: OutputGuard } {
  const guards = new WeakMap<StreamRehydrator, StreamOutputGuard>();
  const restorer = new ChunkRestorer((kind, previous, next) => {
    const shownAfter = next === undefined ? undefined : () => { const after = next(); return after === undefined ? undefined : guards.get(after); };
    const stream = new StreamOutputGuard(guard, findTokensLenient, { before: previous === undefined ? undefined : guards.get(previous), json: kind === 'json', next: shownAfter });
    const rehydrator = new StreamRehydrator(restore, { guard: stream });
    guards.set(rehydrator, stream);
    return rehydrator;
  });
  let content = '';
  const args: string[] = [];
  deltas.forEach((delta, at) => {
    const out = restorer.rewrite({ id: 'c', choices: [{ index: 0, delta, finish_reason: at === deltas.length - 1 ? 'tool_calls' : null }] });
    for (const choice of (out?.choices ?? []) as { delta: { content?: string; tool_calls?: { index: number; function?: { arguments?: string } }[] } }[]) {
      content += choice.delta.content ?? '';
      for (const call of choice.delta.tool_calls ?? []) args[call.index] = (args[call.index] ?? '') + (call.function?.arguments ?? '');
    }
  });
  return { content, args, guard };
}

/** Tool call `index`'s deltas: its opening (id, name) then its arguments in `size`-character pieces. */
function call(index: number, args: string, size: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [{ tool_calls: [{ index, id: `call_${index}`, type: 'function', function: { name: 'send', arguments: '' } }] }];
  for (let at = 0; at < args.length; at += size) out.push({ tool_calls: [{ index, function: { arguments: args.slice(at, at + size) } }] });
  return out;
}

describe('a session value split across two tool calls of one streamed choice', () => {
  it('masks both pieces at every cut and delta size (call 0 then call 1), counted once', { timeout: 180_000 }, () => {
    for (let cut = 1; cut < EMAIL.length; cut++) {
      for (const size of [1, 6, 1000]) {
        const first = JSON.stringify({ to: EMAIL.slice(0, cut) });
        const second = JSON.stringify({ cc: EMAIL.slice(cut), n: 2 });
        const run = runCalls([{ role: 'assistant' }, ...call(0, first, size), ...call(1, second, size), {}]);
        const what = `cut ${cut} size ${size}`;
        expect(run.args, what).toEqual(['{"to":"[REDACTED:email]"}', '{"cc":"[REDACTED:email]","n":2}']);
        expect(run.guard.summary().findings, what).toEqual([{ type: 'email', count: 1 }]);
      }
    }
  });

  it('masks both pieces of a name split between two calls', () => {
    const run = runCalls([...call(0, '{"first":"Quentin"}', 3), ...call(1, '{"last":"Zyxwort"}', 3), {}]);
    expect(run.args).toEqual(['{"first":"[REDACTED:person]"}', '{"last":"[REDACTED:person]"}']);
  });

  it('masks both pieces when both calls arrive in one delta (parallel tool calls)', () => {
    const both = { tool_calls: [
      { index: 0, id: 'call_0', type: 'function', function: { name: 'send', arguments: '{"to":"red.eighteen.victim"}' } },
      { index: 1, id: 'call_1', type: 'function', function: { name: 'send', arguments: '{"cc":"@corpeighteen.example"}' } },
    ] };
    const run = runCalls([{ role: 'assistant' }, both, {}]);
    expect(run.args).toEqual(['{"to":"[REDACTED:email]"}', '{"cc":"[REDACTED:email]"}']);
    expect(run.guard.summary().findings).toEqual([{ type: 'email', count: 1 }]);
  });

  it('refuses arguments interleaved by index (call 0 again after call 1 started) and a call that starts below one already started', () => {
    expect(() => runCalls([...call(0, '{"to":"red.', 4), ...call(1, '{"cc":"x"}', 4), { tool_calls: [{ index: 0, function: { arguments: 'eighteen"}' } }] }, {}])).toThrow(/malformed/);
    expect(() => runCalls([...call(1, '{"cc":"@corpeighteen.example"}', 4), ...call(0, '{"to":"red.eighteen.victim"}', 4), {}])).toThrow(/malformed/);
    const reversed = { tool_calls: [
      { index: 1, id: 'call_1', type: 'function', function: { name: 'send', arguments: '{"cc":"@corpeighteen.example"}' } },
      { index: 0, id: 'call_0', type: 'function', function: { name: 'send', arguments: '{"to":"red.eighteen.victim"}' } },
    ] };
    expect(() => runCalls([reversed, {}])).toThrow(/malformed/);
  });

  it('a call keeps only what its guard holds until the next call read past it: ordinary calls leave in order, each call\'s text once', () => {
    const deltas = [...call(0, '{"city":"Paris","n":3}', 5), ...call(1, '{"city":"Rome"}', 5), ...call(2, '{"q":"weather"}', 5), {}];
    expect(runCalls(deltas).args).toEqual(['{"city":"Paris","n":3}', '{"city":"Rome"}', '{"q":"weather"}']);
  });

  it('reverse order: the content resumes after a tool call that completes a value the content then begins: the content\'s piece is masked (the call\'s left first)', { timeout: 120_000 }, () => {
    const value = EMAIL;
    let sentFirst = 0;
    for (let cut = 1; cut < value.length; cut++) {
      for (const size of [1, 6, 1000]) {
        const content: Record<string, unknown>[] = [];
        const text = `Write to ${value.slice(0, cut)}`;
        for (let at = 0; at < text.length; at += size) content.push({ content: text.slice(at, at + size) });
        for (const before of [false, true]) {
          // The content opened before the call (`Write to ` first) or only after it.
          const deltas = before ? [{ role: 'assistant', content: 'Hi. ' }, ...call(0, JSON.stringify({ cc: value.slice(cut) }), size), ...content, {}] : [{ role: 'assistant' }, ...call(0, JSON.stringify({ cc: value.slice(cut) }), size), ...content, {}];
          const run = runCalls(deltas);
          const what = `cut ${cut} size ${size} before ${String(before)}`;
          expect(run.content, what).toBe(`${before ? 'Hi. ' : ''}Write to [REDACTED:email]`);
          // The call's piece is masked too where the call still held it when the content arrived.
          if (!run.args[0]!.includes('[REDACTED:email]')) sentFirst += 1;
          expect(run.guard.summary().findings, what).toEqual([{ type: 'email', count: 1 }]);
        }
      }
    }
    expect(sentFirst).toBeLessThan((value.length - 1) * 6);
    // A legacy function call shown after the content: the same.
    const legacy = runCalls([{ function_call: { name: 'send', arguments: '{"cc":"@corpeighteen.example"}' } }, { content: 'Write to red.eighteen.victim' }, {}]);
    expect(legacy.content).toBe('Write to [REDACTED:email]');
  });

  it('reverse order leaves ordinary content after a call, and content that only looks like a start, as written', () => {
    const guard = guardOf();
    expect(runCalls([...call(0, '{"cc":"@corpeighteen.example"}', 4), { content: 'Write to red.eighteen.victim today.' }, {}], guard).content).toBe('Write to red.eighteen.victim today.');
    expect(runCalls([...call(0, '{"city":"Paris"}', 4), { content: 'Done: Quentin' }, {}], guard).content).toBe('Done: Quentin');
    expect(guard.triggered).toBe(false);
  });

  it('changes no answer of the guard precision corpus split into a call and the content resuming after it, nor into two calls', { timeout: 180_000 }, () => {
    const path = new URL('../../../../data/guard-ordinary.jsonl', import.meta.url);
    const records = readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { id: string; text: string });
    expect(records.length).toBeGreaterThanOrEqual(500);
    const changed: string[] = [];
    for (const record of records) {
      const middle = record.text.indexOf(' ', record.text.length >> 1);
      const cut = middle < 0 ? record.text.length : middle;
      const [first, second] = [record.text.slice(0, cut), record.text.slice(cut)];
      const reversed = runCalls([...call(0, JSON.stringify({ text: second }), 40), { content: first }, {}]);
      const calls = runCalls([...call(0, JSON.stringify({ text: first }), 40), ...call(1, JSON.stringify({ text: second }), 40), {}]);
      if (reversed.content !== first || reversed.args[0] !== JSON.stringify({ text: second })) changed.push(`${record.id} reversed`);
      if (calls.args.join('|') !== `${JSON.stringify({ text: first })}|${JSON.stringify({ text: second })}`) changed.push(`${record.id} calls`);
    }
    expect(changed).toEqual([]);
  });

  it('refuses under block', () => {
    expect(() => runCalls([...call(0, '{"to":"red.eighteen.victim"}', 4), ...call(1, '{"cc":"@corpeighteen.example"}', 4), {}], guardOf('block'))).toThrow(/output protection/);
  });

  it('leaves ordinary calls, and a call that ends with the start of a value the next one does not complete, as written', () => {
    const guard = guardOf();
    const plain = runCalls([...call(0, '{"to":"Quentin"}', 3), ...call(1, '{"subject":"plans","n":1}', 3), {}], guard);
    expect(plain.args).toEqual(['{"to":"Quentin"}', '{"subject":"plans","n":1}']);
    const prefix = runCalls([...call(0, '{"to":"red.eighteen"}', 5), ...call(1, '{"cc":"corp"}', 5), {}], guard);
    expect(prefix.args).toEqual(['{"to":"red.eighteen"}', '{"cc":"corp"}']);
    expect(guard.triggered).toBe(false);
  });
});
