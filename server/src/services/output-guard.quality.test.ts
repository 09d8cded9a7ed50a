// Output guard quality (issue 18 items 8 and 9), a quality test, not a timing test: the default
// guard (strict, mask) changes at most 1 % of ordinary assistant answers
// (data/guard-ordinary.jsonl) and masks 100 % of leaked high-risk values
// (data/guard-leaks.jsonl), one-shot and streamed split at every position; the session's own
// values are masked verbatim and in every spelling the normalization treats as equal; and a
// streamed answer leaves in its first frame right after its first word.
import { readFileSync } from 'node:fs';
import { DEFAULT_POLICY } from '@veil/common';
import { describe, expect, it } from 'vitest';
import { StreamOutputGuard } from '../domain/guard/index.js';
import { CompiledPolicy } from '../domain/policy/index.js';
import { indexEntries, rehydrateText } from '../domain/rehydrate.js';
import { findTokensLenient } from '../domain/repair/index.js';
import { StreamRehydrator } from '../domain/stream/index.js';
import type { TokenEntry } from '../domain/types.js';
import { createOutputGuard, type OutputProtectionSettings } from './output-guard.js';
import type { LoadedPolicy } from './policies.js';

interface OrdinaryRecord {
  readonly id: string;
  readonly text: string;
}
interface LeakRecord extends OrdinaryRecord {
  readonly leaks: readonly { type: string; value: string }[];
}

function corpus<T>(name: string): T[] {
  const path = new URL(`../../../data/${name}`, import.meta.url);
  return readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as T);
}

const compiled = new CompiledPolicy(DEFAULT_POLICY);
const policy = { compiled, patterns: [] } as unknown as LoadedPolicy;
const DEFAULTS: OutputProtectionSettings = { mode: 'strict', action: 'mask', exemptTypes: [], defaultRegion: 'US' };

function guardFor(entries: readonly TokenEntry[] = []) {
  return createOutputGuard(DEFAULTS, { policy, language: 'en', caller: {}, entries });
}

function restore(text: string, entries: readonly TokenEntry[] = []) {
  return rehydrateText({ output: text, entries: indexEntries(entries), policy: compiled, language: 'en', caller: {}, channel: 'user_output', scan: findTokensLenient });
}

function streamed(deltas: readonly string[], entries: readonly TokenEntry[] = []): string[] {
  const rehydrator = new StreamRehydrator((piece) => restore(piece, entries), { guard: new StreamOutputGuard(guardFor(entries), findTokensLenient) });
  const frames = deltas.map((delta) => rehydrator.push(delta));
  frames.push(rehydrator.end());
  return frames;
}

const ordinary = corpus<OrdinaryRecord>('guard-ordinary.jsonl');
const leaks = corpus<LeakRecord>('guard-leaks.jsonl');

describe('default output guard on the corpora', () => {
  it('changes at most 1 % of at least 500 ordinary answers', () => {
    expect(ordinary.length).toBeGreaterThanOrEqual(500);
    const changed = ordinary.filter((record) => guardFor().guard(record.text) !== record.text).map((record) => record.id);
    expect(changed.length / ordinary.length, `changed: ${changed.join(', ')}`).toBeLessThanOrEqual(0.01);
  });

  it('masks every leaked high-risk value', () => {
    const kept: string[] = [];
    for (const record of leaks) {
      const guarded = guardFor().guard(record.text);
      for (const leak of record.leaks) if (guarded.includes(leak.value)) kept.push(`${record.id} (${leak.type})`);
    }
    expect(leaks.reduce((sum, record) => sum + record.leaks.length, 0)).toBeGreaterThanOrEqual(500);
    expect(kept).toEqual([]);
  });

  it('streamed, split at every position, never emits a raw leaked value across frames', () => {
    // Every tenth record (all kinds of leak), each split in two at every position.
    for (const record of leaks.filter((_, index) => index % 10 === 0)) {
      for (let cut = 0; cut <= record.text.length; cut += 1) {
        const output = streamed([record.text.slice(0, cut), record.text.slice(cut)]).join('');
        for (const leak of record.leaks) expect(output.includes(leak.value), `${record.id} split at ${cut}`).toBe(false);
      }
    }
  });

  it('streamed in 10-character deltas, gives the one-shot text', () => {
    for (const record of [...leaks.slice(0, 60), ...ordinary.slice(0, 60)]) {
      const deltas: string[] = [];
      for (let at = 0; at < record.text.length; at += 10) deltas.push(record.text.slice(at, at + 10));
      expect(streamed(deltas).join(''), record.id).toBe(guardFor().guard(record.text));
    }
  });
});

describe('the session\'s own values', () => {
  const CAP = '0a1b2c3d4e5f';
  const entries: TokenEntry[] = [
    { id: 'p_001', type: 'person', cap: CAP, value: 'Marguerite Okafor', mode: 'full' },
    { id: 'e_002', type: 'email', cap: CAP, value: 'm.okafor@corp.example', mode: 'full' },
    { id: 'cc_003', type: 'credit_card', cap: CAP, value: '4111 1111 1111 1111', mode: 'full' },
    { id: 'dt_004', type: 'date', cap: CAP, value: '1984-02-11', mode: 'full' },
    { id: 'c_005', type: 'custom:ticket', cap: CAP, value: 'TCK-88213', mode: 'full' },
  ];

  it('are masked verbatim and in every spelling the normalization treats as equal, whatever their type', () => {
    const cases: [string, string][] = [
      ['Marguerite Okafor', 'person'],
      ['marguerite  okafor', 'person'],
      ['M.Okafor@Corp.Example', 'email'],
      ['4111-1111-1111-1111', 'credit_card'],
      ['4111111111111111', 'credit_card'],
      ['1984-02-11', 'date'],
      ['tck 88213', 'custom:ticket'],
    ];
    for (const [written, type] of cases) {
      const guarded = guardFor(entries).guard(`As requested: ${written}, see above.`);
      expect(guarded, written).toBe(`As requested: [REDACTED:${type}], see above.`);
    }
    // Only whole words: a longer word that contains a value is another word.
    expect(guardFor(entries).guard('TCK-882134 and Okaforian')).toBe('TCK-882134 and Okaforian');
  });

  it('are never let out in pieces by a stream', () => {
    const text = 'The file names Marguerite Okafor as the owner.';
    for (let cut = 0; cut <= text.length; cut += 1) {
      const output = streamed([text.slice(0, cut), text.slice(cut)], entries).join('');
      expect(output).toBe('The file names [REDACTED:person] as the owner.');
    }
  });
});

describe('Unicode spellings (the folded view, issue 18 item 5)', () => {
  /** A value rewritten the way CJK input methods, Arabic-script keyboards and word processors type it. */
  const SPELLINGS: Record<string, (value: string) => string> = {
    'full-width': (value) => value.replace(/[0-9@-]/g, (ch) => String.fromCharCode(ch.charCodeAt(0) + 0xfee0)),
    'Arabic-Indic digits, en dashes': (value) => value.replace(/[0-9]/g, (d) => String.fromCharCode(0x0660 + Number(d))).replaceAll('-', '\u2013'),
    'U+2011 dashes, no-break spaces': (value) => value.replaceAll('-', '\u2011').replaceAll(' ', '\u00a0'),
  };
  // Only values whose spelling changes (digits, dashes, '@'); private keys are multi-line blocks.
  const respelled = leaks.filter((record) => record.leaks.every((leak) => leak.type !== 'private_key'));

  for (const [name, spell] of Object.entries(SPELLINGS)) {
    it(`masks every leaked high-risk value written with ${name}`, () => {
      const kept: string[] = [];
      let changed = 0;
      for (const record of respelled) {
        let text = record.text;
        const values = record.leaks.map((leak) => spell(leak.value));
        record.leaks.forEach((leak, index) => (text = text.replaceAll(leak.value, values[index]!)));
        if (text === record.text) continue;
        changed++;
        const guarded = guardFor().guard(text);
        for (const [index, value] of values.entries()) if (guarded.includes(value)) kept.push(`${record.id} (${record.leaks[index]!.type})`);
      }
      expect(changed).toBeGreaterThanOrEqual(200);
      expect(kept).toEqual([]);
    });
  }

  it('masks the whole original span of a session value or a labelled value written in other code points', () => {
    const CAP = '0a1b2c3d4e5f';
    const entries: TokenEntry[] = [
      { id: 'p_001', type: 'person', cap: CAP, value: 'Marguerite Okafor', mode: 'full' },
      { id: 'c_002', type: 'custom:ticket', cap: CAP, value: 'TCK-88213', mode: 'full' },
      { id: 'ph_003', type: 'phone', cap: CAP, value: '(415) 555-0100', mode: 'full' },
    ];
    const cases: [string, string][] = [
      ['\uff2d\uff41\uff52\uff47\uff55\uff45\uff52\uff49\uff54\uff45 \uff2f\uff4b\uff41\uff46\uff4f\uff52', 'person'],
      ['Margue\u200brite Okafor', 'person'],
      ['\uff34\uff23\uff2b\uff0d\uff18\uff18\uff12\uff11\uff13', 'custom:ticket'],
      ['TCK\u2011\u0668\u0668\u0662\u0661\u0663', 'custom:ticket'],
      ['+1\u00a0415\u2013555\u20130100', 'phone'],
    ];
    for (const [written, type] of cases) {
      expect(guardFor(entries).guard(`As requested: ${written}, see above.`), written).toBe(`As requested: [REDACTED:${type}], see above.`);
    }
    // A password after a full-width colon (what a CJK input method types after a label).
    expect(guardFor().guard('The admin password\uff1a Rp34s!BGt4AZ for now.')).toBe('The admin password\uff1a [REDACTED:password] for now.');
  });

  it('never lets a full-width session value out in pieces from a stream', () => {
    const CAP = '0a1b2c3d4e5f';
    const entries: TokenEntry[] = [{ id: 'c_001', type: 'custom:ticket', cap: CAP, value: 'TCK-88213', mode: 'full' }];
    const text = 'Ticket \uff34\uff23\uff2b\uff0d\uff18\uff18\uff12\uff11\uff13 is closed.';
    for (let cut = 0; cut <= text.length; cut += 1) {
      expect(streamed([text.slice(0, cut), text.slice(cut)], entries).join(''), `split at ${cut}`).toBe('Ticket [REDACTED:custom:ticket] is closed.');
    }
  });
});

describe('streaming hold-back', () => {
  it('a 330-character answer in 10-character deltas leaves within one delta of its first complete word', () => {
    const answer = ('Sure. Python 3.12 was released on October 2, 2023, see https://docs.python.org/3/whatsnew/3.12.html for details; '.repeat(3)).slice(0, 330);
    const firstWordEnd = answer.indexOf(' ') + 1;
    const rehydrator = new StreamRehydrator((piece) => restore(piece), { guard: new StreamOutputGuard(guardFor(), findTokensLenient) });
    let sent = 0;
    let firstFrameAt = -1;
    for (let at = 0; at < answer.length; at += 10) {
      sent += answer.slice(at, at + 10).length;
      if (rehydrator.push(answer.slice(at, at + 10)) !== '' && firstFrameAt < 0) firstFrameAt = sent;
    }
    expect(firstFrameAt).toBeGreaterThan(0);
    expect(firstFrameAt).toBeLessThanOrEqual(firstWordEnd + 10);
  });
});
