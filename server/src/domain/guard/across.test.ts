// Red-team finding (session 14, open; closed in session 15): a session value the model splits
// across two text members of one whole answer ("Quentin" ending the content, "Zyxwort" opening
// the tool-call arguments; two choices; two strings of an `output_json` document) passed the
// known-values check, which read each member alone. The guard now reads the members as one
// answer around each boundary (OutputGuard.acrossMembers) and masks the piece in each member.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KnownValues, type KnownEntry } from './known.js';
import { guardJsonValue, OutputGuard, type OutputGuardAction } from './output.js';
import { findTokensLenient } from '../repair/index.js';

const ENTRIES: KnownEntry[] = [
  { type: 'person', value: 'Quentin Zyxwort' },
  { type: 'email', value: 'ada.lovelace@example.com' },
  { type: 'phone', value: '+1 415 555 0134' },
  { type: 'organization', value: 'Brightwater Analytics' },
];

function guardOf(action: OutputGuardAction = 'mask', entries: readonly KnownEntry[] = ENTRIES): OutputGuard {
  return new OutputGuard({ action, detect: () => [], counts: () => true, scan: findTokensLenient, known: new KnownValues(entries) });
}

/** Guard `members` as one whole answer: the joined read first, then each member. */
function guardMembers(members: readonly string[], guard = guardOf()): string[] {
  guard.acrossMembers(members);
  return members.map((member) => guard.guard(member));
}

describe('OutputGuard.acrossMembers: a session value split across two members', () => {
  it('masks each piece of a value split between content and arguments, and counts it once', () => {
    const guard = guardOf();
    const out = guardMembers(['I will send it to Quentin', '{"to":"Zyxwort","body":"hi"}'], guard);
    expect(out).toEqual(['I will send it to [REDACTED:person]', '{"to":"[REDACTED:person]","body":"hi"}']);
    expect(guard.summary().findings).toEqual([{ type: 'person', count: 1 }]);
  });

  it('masks a value split at any character, with spacing or markup between the pieces', { timeout: 60_000 }, () => {
    const value = 'ada.lovelace@example.com';
    for (let cut = 1; cut < value.length; cut++) {
      const out = guardMembers([`Write to ${value.slice(0, cut)}`, `${value.slice(cut)} today.`]);
      expect(out.join('|'), `cut ${cut}`).not.toMatch(/lovelace|example\.com/);
    }
    // The markup between the pieces goes with the value, as in one member.
    expect(guardMembers(['Call **Quentin**', '  _Zyxwort_ now'])).toEqual(['Call **[REDACTED:person]', '[REDACTED:person]_ now']);
  });

  it('masks a value split over two strings of one JSON member (tool-call arguments), keeping its keys', () => {
    const guard = guardOf();
    expect(guardMembers(['{"first":"Quentin","last":"Zyxwort","n":2}'], guard)).toEqual(['{"first":"[REDACTED:person]","last":"[REDACTED:person]","n":2}']);
    expect(guard.summary().findings).toEqual([{ type: 'person', count: 1 }]);
    const block = guardOf('block');
    block.acrossMembers(['{"a":"Quentin","b":"Zyxwort"}']);
    expect(() => block.guard('{"a":"Quentin","b":"Zyxwort"}')).toThrow(/output protection/);
  });

  it('masks a value split over three members (a middle member that is only a piece)', () => {
    expect(guardMembers(['Brightwater', ' ', 'Analytics Ltd'])).toEqual(['[REDACTED:organization]', '[REDACTED:organization]', '[REDACTED:organization] Ltd']);
  });

  it('refuses the answer under block; counts and keeps it under warn', () => {
    expect(() => guardOf('block').acrossMembers(['Quentin', 'Zyxwort'])).toThrow(/split across two members/);
    const warn = guardOf('warn');
    expect(guardMembers(['Quentin', 'Zyxwort'], warn)).toEqual(['Quentin', 'Zyxwort']);
    expect(warn.summary().findings).toEqual([{ type: 'person', count: 1 }]);
  });

  it('leaves a member alone when the join reaches into a token, or the pieces are whole words of other words', () => {
    expect(guardMembers(['Quentin {{person:e_002}}', 'Zyxwort'])).toEqual(['Quentin {{person:e_002}}', 'Zyxwort']);
    expect(guardMembers(['Quentins', 'Zyxwort'])).toEqual(['Quentins', 'Zyxwort']);
    expect(guardMembers(['Quentin', 'Zyxworth'])).toEqual(['Quentin', 'Zyxworth']);
    // A value inside one member is that member's own guard's (found once, not twice).
    const guard = guardOf();
    expect(guardMembers(['Quentin Zyxwort', 'hello'], guard)).toEqual(['[REDACTED:person]', 'hello']);
    expect(guard.summary().findings).toEqual([{ type: 'person', count: 1 }]);
  });

  it('reads a long member only near its ends (a value far from a boundary is its own)', () => {
    const long = `${'word '.repeat(2000)}Quentin`;
    expect(guardMembers([long, 'Zyxwort'])[0]!.endsWith('[REDACTED:person]')).toBe(true);
  });
});

describe('guardJsonValue: a value split across two strings of an output_json document', () => {
  it('masks a name split into two fields, a phone into two items', () => {
    const guard = guardOf();
    expect(guardJsonValue({ first: 'Quentin', last: 'Zyxwort', note: 'ok' }, guard)).toEqual({ first: '[REDACTED:person]', last: '[REDACTED:person]', note: 'ok' });
    expect(guardJsonValue({ phone: ['+1 415', '555 0134'] }, guardOf())).toEqual({ phone: ['+[REDACTED:phone]', '[REDACTED:phone]'] });
  });
});

describe('acrossMembers: precision on ordinary answers', () => {
  it('changes no answer of the guard precision corpus read as members (consecutive answers, and each answer cut at its sentences)', { timeout: 300_000 }, () => {
    const path = new URL('../../../../data/guard-ordinary.jsonl', import.meta.url);
    const records = readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { id: string; text: string });
    expect(records.length).toBeGreaterThanOrEqual(500);
    // Common values too (a session of ordinary names and places): only what the join adds counts.
    const session = [...ENTRIES, { type: 'person', value: 'John Smith' }, { type: 'location', value: 'New York' }, { type: 'location', value: 'San Francisco' }, { type: 'organization', value: 'Google Cloud' }];
    // One search for the whole corpus (its keys made once): a guard per answer keeps only counts.
    const known = new KnownValues(session);
    const guardOf = (): OutputGuard => new OutputGuard({ action: 'mask', detect: () => [], counts: () => true, scan: findTokensLenient, known });
    const guardMembers = (members: readonly string[]): string[] => {
      const guard = guardOf();
      guard.acrossMembers(members);
      return members.map((member) => guard.guard(member));
    };
    const changed: string[] = [];
    for (let index = 0; index < records.length; index++) {
      const record = records[index]!;
      const next = records[(index + 1) % records.length]!;
      // Each answer alone must be as the session values alone leave it.
      const alone = guardOf().guard(record.text);
      const pairs = guardMembers([record.text, next.text]);
      const sentences = record.text.split(/(?<=[.!?:])\s+/);
      const cut = guardMembers(sentences);
      if (pairs[0] !== alone || cut.join(' ') !== sentences.map((sentence) => guardOf().guard(sentence)).join(' ')) changed.push(record.id);
    }
    expect(changed).toEqual([]);
  });
});

// Session 16 (wave15/red): the members were read in document order only, so a value whose end
// the model wrote first (the arguments) and its start after (the content) passed.
describe('OutputGuard.acrossMembers: a value split in the reverse order of the members', () => {
  it('masks a value whose first piece is in the later member, at every cut, and counts it once', () => {
    const value = 'ada.lovelace@example.com';
    for (let cut = 1; cut < value.length; cut++) {
      const guard = guardOf();
      const out = guardMembers([`${value.slice(cut)} is the rest.`, `{"start":${JSON.stringify(value.slice(0, cut))}}`], guard);
      expect(out[0], `${cut}`).toBe('[REDACTED:email] is the rest.');
      expect(out[1]).toBe('{"start":"[REDACTED:email]"}');
      expect(guard.summary().findings).toEqual([{ type: 'email', count: 1 }]);
    }
  });

  it('masks a name written surname piece first across two plain members', () => {
    expect(guardMembers(['Zyxwort will call.', 'Please greet Quentin'])).toEqual(['[REDACTED:person] will call.', 'Please greet [REDACTED:person]']);
  });

  it('counts a value over two strings of one JSON member once', () => {
    const guard = guardOf();
    expect(guardMembers(['Here it is:', '{"first":"Quentin","last":"Zyxwort"}'], guard)[1]).toBe('{"first":"[REDACTED:person]","last":"[REDACTED:person]"}');
    expect(guard.summary().findings).toEqual([{ type: 'person', count: 1 }]);
  });
});
