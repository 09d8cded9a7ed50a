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
