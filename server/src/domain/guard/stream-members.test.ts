// Red-team finding (session 16, wave15/red2): a session value the model splits across two
// streamed members of one answer (the content, then a tool call's arguments; two tool calls'
// arguments) passed the stream guards, which read each member alone. A member's guard is now
// seeded with the tail of the member before it (StreamOutputGuard `before`), so the piece that
// completes the value is masked; the first piece, already sent, cannot be.
import { DEFAULT_POLICY } from '@veil/common';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CompiledPolicy } from '../policy/index.js';
import { indexEntries, rehydrateText } from '../rehydrate.js';
import { findTokensLenient } from '../repair/index.js';
import { ChunkRestorer } from '../proxy/restore.js';
import { StreamRehydrator } from '../stream/index.js';
import { KnownValues, type KnownEntry } from './known.js';
import { blankJsonSyntax, OutputGuard, StreamOutputGuard, type OutputGuardAction } from './output.js';

const ENTRIES: KnownEntry[] = [
  { type: 'email', value: 'red.sixteen.victim@corpsixteen.example' },
  { type: 'person', value: 'Quentin Zyxwort' },
];

function guardOf(action: OutputGuardAction = 'mask', known = new KnownValues(ENTRIES)): OutputGuard {
  return new OutputGuard({ action, detect: () => [], counts: () => true, scan: findTokensLenient, known });
}

const policy = new CompiledPolicy(DEFAULT_POLICY);
const restore = (text: string) => rehydrateText({ output: text, entries: indexEntries([]), policy, language: 'en', caller: {}, channel: 'user_output', scan: findTokensLenient });

interface Member {
  readonly guard: StreamOutputGuard;
  readonly rehydrator: StreamRehydrator;
}

function member(guard: OutputGuard, json: boolean, before?: Member, seeded = true): Member {
  const stream = new StreamOutputGuard(guard, findTokensLenient, { before: seeded ? before?.guard : undefined, json });
  return { guard: stream, rehydrator: new StreamRehydrator(restore, { guard: stream }) };
}

/** Stream `first` then `second` (each in `size`-character deltas); the first ends after the second, as a choice's content does. */
function stream(first: string, second: string, size: number, json = true, guard = guardOf(), seeded = true): [string, string] {
  const a = member(guard, false);
  let outA = '';
  for (let at = 0; at < first.length; at += size) outA += a.rehydrator.push(first.slice(at, at + size));
  const b = member(guard, json, a, seeded);
  let outB = '';
  for (let at = 0; at < second.length; at += size) outB += b.rehydrator.push(second.slice(at, at + size));
  outB += b.rehydrator.end();
  outA += a.rehydrator.end();
  return [outA, outB];
}

describe('StreamOutputGuard before: a session value split across two streamed members', () => {
  it('masks the piece in the second member at every cut (content, then arguments), counted once', () => {
    const value = 'red.sixteen.victim@corpsixteen.example';
    for (let cut = 1; cut < value.length; cut++) {
      for (const size of [1, 5, 1000]) {
        const guard = guardOf();
        const [, args] = stream(`Write to ${value.slice(0, cut)}`, `{"to":"${value.slice(cut)}","n":2}`, size, true, guard);
        expect(args, `cut ${cut} size ${size}`).toBe('{"to":"[REDACTED:email]","n":2}');
        expect(guard.summary().findings, `cut ${cut} size ${size}`).toEqual([{ type: 'email', count: 1 }]);
      }
    }
  });

  it('masks the first piece too while the first member still holds it (the later finding fed back), at every cut, counted once', { timeout: 120_000 }, () => {
    const value = 'red.sixteen.victim@corpsixteen.example';
    for (let cut = 1; cut < value.length; cut++) {
      for (const size of [1, 5, 1000]) {
        const guard = guardOf();
        const [content, args] = stream(`Write to ${value.slice(0, cut)}`, `{"to":"${value.slice(cut)}","n":2}`, size, true, guard);
        expect(content, `cut ${cut} size ${size}`).toBe('Write to [REDACTED:email]');
        expect(args, `cut ${cut} size ${size}`).toBe('{"to":"[REDACTED:email]","n":2}');
        expect(guard.summary().findings, `cut ${cut} size ${size}`).toEqual([{ type: 'email', count: 1 }]);
      }
    }
    expect(stream('Call Quentin', ' Zyxwort today', 3, false)).toEqual(['Call [REDACTED:person]', ' [REDACTED:person] today']);
  });

  it('a chat stream ends the choice\'s members in reverse order, so the content\'s held piece is masked when the arguments complete the value in the last chunk', { timeout: 120_000 }, () => {
    const guard = guardOf();
    const guards = new WeakMap<StreamRehydrator, StreamOutputGuard>();
    const restorer = new ChunkRestorer((kind, previous) => {
      const opened = member(guard, kind === 'json', previous !== undefined ? { guard: guards.get(previous)!, rehydrator: previous } : undefined);
      guards.set(opened.rehydrator, opened.guard);
      return opened.rehydrator;
    });
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ id: 'c', choices: [{ index: 0, delta, finish_reason: finish }] });
    const chunks = [
      chunk({ role: 'assistant', content: 'Write to red.sixteen' }),
      chunk({ content: '.victim' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'send', arguments: '' } }] }),
      // Cut short (`length`): the value could still grow until the choice ends.
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"to":"@corpsixteen.example' } }] }),
      chunk({}, 'length'),
    ];
    let content = '';
    let args = '';
    for (const one of chunks) {
      const delta = (restorer.rewrite(one)?.choices as { delta: { content?: string; tool_calls?: { function?: { arguments?: string } }[] } }[] | undefined)?.[0]?.delta;
      content += delta?.content ?? '';
      for (const call of delta?.tool_calls ?? []) args += call.function?.arguments ?? '';
    }
    expect([content, args]).toEqual(['Write to [REDACTED:email]', '{"to":"[REDACTED:email]']);
    expect(guard.summary().findings).toEqual([{ type: 'email', count: 1 }]);
  });

  it('an annotation string (restored whole) follows the content: a value the content began is masked in both; the refusal follows the content too', { timeout: 120_000 }, () => {
    const run = (chunks: Record<string, unknown>[]): { guard: OutputGuard; deltas: Record<string, unknown>[] } => {
      const guard = guardOf();
      const guards = new WeakMap<StreamRehydrator, StreamOutputGuard>();
      const restorer = new ChunkRestorer((kind, previous) => {
        const opened = member(guard, kind === 'json', previous !== undefined ? { guard: guards.get(previous)!, rehydrator: previous } : undefined);
        guards.set(opened.rehydrator, opened.guard);
        return opened.rehydrator;
      });
      const deltas: Record<string, unknown>[] = [];
      for (const one of chunks) for (const choice of (restorer.rewrite(one)?.choices ?? []) as { delta: Record<string, unknown> }[]) deltas.push(choice.delta);
      return { guard, deltas };
    };
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ id: 'c', choices: [{ index: 0, delta, finish_reason: finish }] });
    const annotated = run([
      chunk({ role: 'assistant', content: 'Write to red.sixteen.victim' }),
      chunk({ annotations: [{ type: 'url_citation', url_citation: { title: '@corpsixteen.example', start_index: 0, end_index: 4 } }] }),
      chunk({}, 'stop'),
    ]);
    expect(annotated.deltas.map((delta) => (typeof delta.content === 'string' ? delta.content : '')).join('')).toBe('Write to [REDACTED:email]');
    expect(JSON.stringify(annotated.deltas)).not.toContain('corpsixteen');
    expect(annotated.guard.summary().findings).toEqual([{ type: 'email', count: 1 }]);
    const refused = run([chunk({ role: 'assistant', content: 'Write to red.sixteen.victim' }), chunk({ refusal: '@corpsixteen.example is refused' }), chunk({}, 'stop')]);
    expect(JSON.stringify(refused.deltas)).not.toMatch(/corpsixteen|victim/);
    // An ordinary annotation stays as written.
    const plain = run([chunk({ role: 'assistant', content: 'See the report' }), chunk({ annotations: [{ type: 'url_citation', url_citation: { title: 'Quarterly report', start_index: 0, end_index: 3 } }] }), chunk({}, 'stop')]);
    expect(JSON.stringify(plain.deltas)).toContain('"title":"Quarterly report"');
    expect(plain.guard.triggered).toBe(false);
  });

  it('masks a name split between two plain members and between two tool calls', () => {
    expect(stream('Call Quentin', ' Zyxwort today', 3, false)[1]).toBe(' [REDACTED:person] today');
    expect(stream('{"first":"Quentin"}', '{"last":"Zyxwort"}', 4)[1]).toBe('{"last":"[REDACTED:person]"}');
  });

  it('refuses under block', () => {
    expect(() => stream('Call Quentin', '{"last":"Zyxwort"}', 4, true, guardOf('block'))).toThrow(/output protection/);
  });

  it('leaves ordinary members, a value inside one member, and a token at the boundary as they were', () => {
    const guard = guardOf();
    expect(stream('I will call Quentin about it.', '{"to":"Bob","subject":"Zyx plans"}', 3, true, guard)).toEqual(['I will call Quentin about it.', '{"to":"Bob","subject":"Zyx plans"}']);
    expect(stream('Write to red.sixteen.', '{"to":"corp","note":"victim"}', 2, true, guard)[1]).toBe('{"to":"corp","note":"victim"}');
    expect(stream('Call {{person:p_001:abc}}', '{"last":"Zyxwort"}', 4, true, guard)[1]).toBe('{"last":"Zyxwort"}');
    expect(guard.triggered).toBe(false);
  });

  it('changes no answer of the guard precision corpus split in two members, also when the first ends with the start of a value', { timeout: 120_000 }, () => {
    const path = new URL('../../../../data/guard-ordinary.jsonl', import.meta.url);
    const records = readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { id: string; text: string });
    expect(records.length).toBeGreaterThanOrEqual(500);
    const splits = records.map((record) => {
      const middle = record.text.indexOf(' ', record.text.length >> 1);
      const cut = middle < 0 ? record.text.length : middle;
      return { id: record.id, first: record.text.slice(0, cut), second: JSON.stringify({ text: record.text.slice(cut) }) };
    });
    // A session value that begins with the last word of the first member and never completes.
    const entries: KnownEntry[] = [...ENTRIES];
    for (const { first } of splits) {
      const word = /([A-Za-z]{3,})\W*$/.exec(first)?.[1];
      if (word !== undefined) entries.push({ type: 'person', value: `${word} Zyxwortson` });
    }
    const known = new KnownValues(entries);
    const changed = splits
      .filter(({ first, second }) => {
        const seeded = stream(first, second, 40, true, guardOf('mask', known));
        const alone = stream(first, second, 40, true, guardOf('mask', known), false);
        return seeded.join('|') !== alone.join('|');
      })
      .map((split) => split.id);
    expect(changed).toEqual([]);
  });

  it('blankJsonSyntax keeps the values of a JSON text, also one cut short', () => {
    const text = '{"to":"a@b","n":[1,"x"],"o":{"k":"v\\"w"}}';
    expect(blankJsonSyntax(text)).toHaveLength(text.length);
    expect(blankJsonSyntax(text).trim().split(/ +/)).toEqual(['a@b', '1', 'x', 'v\\"w']);
    expect(blankJsonSyntax('{"to":"@corp')).toBe('       @corp');
  });
});
