// The token-repair accuracy corpus (issue 6, BENCHMARKS.md): a seeded generator of model outputs
// in which one token per sample is mangled in a known way, and a measurement that restores every
// sample with the strict scan and with the repair scan. A mangling the repair promises must
// restore the exact value; a mangling it must refuse (threats.md 6: a changed cap, zero-width
// characters, fullwidth braces, homoglyphs, over-braced forms, ...) must restore nothing. Any
// restore where none was due, or of a different value, is a false restore; the target is zero.
// Pure and deterministic: the same seed gives the same corpus and the same table.
import { DEFAULT_POLICY } from '@veil/common';
import { CompiledPolicy } from '../policy/index.js';
import { indexEntries, rehydrateText } from '../rehydrate.js';
import { findTokens, type TokenCandidate } from '../token/index.js';
import type { TokenEntry } from '../types.js';
import { findTokensLenient } from './lenient.js';

export type Expectation = 'restore' | 'refuse';

type Rng = () => number;

/** mulberry32: a small seeded PRNG, enough for a reproducible corpus (not for secrets). */
export function seeded(seed: number): Rng {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)]!;
}

function hex(rng: Rng, length: number): string {
  let out = '';
  for (let index = 0; index < length; index += 1) out += '0123456789abcdef'[Math.floor(rng() * 16)]!;
  return out;
}

function spaces(rng: Rng): string {
  return pick(rng, [' ', ' ', '  ', '\t']);
}

interface Parts {
  readonly type: string;
  readonly id: string;
  readonly cap: string;
}

interface Mangling {
  readonly name: string;
  readonly expect: Expectation;
  /** Only for entries this mangling applies to (an escaped underscore needs an underscore). */
  readonly applies?: (entry: TokenEntry) => boolean;
  readonly mangle: (token: Parts, rng: Rng) => string;
}

const plain = (t: Parts): string => `${t.type}:${t.id}:${t.cap}`;
const upperFirst = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
const hasUnderscore = (entry: TokenEntry): boolean => entry.type.includes('_');

/** Swap one lowercase hex character of `cap` for another. */
function oneCharOff(cap: string, rng: Rng): string {
  const index = Math.floor(rng() * cap.length);
  const current = cap[index]!;
  const replacement = '0123456789abcdef'.replace(current, '')[Math.floor(rng() * 15)]!;
  return cap.slice(0, index) + replacement + cap.slice(index + 1);
}

/** Cyrillic look-alikes of Latin letters. */
const HOMOGLYPHS: Readonly<Record<string, string>> = { a: '\u0430', c: '\u0441', e: '\u0435', o: '\u043e', p: '\u0440', s: '\u0455' };

export const MANGLINGS: readonly Mangling[] = [
  { name: 'intact', expect: 'restore', mangle: (t) => `{{${plain(t)}}}` },
  { name: 'spaces inside the braces', expect: 'restore', mangle: (t, rng) => `{{${spaces(rng)}${plain(t)}${spaces(rng)}}}` },
  { name: 'spaces around colons', expect: 'restore', mangle: (t, rng) => `{{${t.type}${spaces(rng)}:${spaces(rng)}${t.id}${spaces(rng)}:${spaces(rng)}${t.cap}}}` },
  { name: 'line break before the cap', expect: 'restore', mangle: (t) => `{{${t.type}:${t.id}:\n${t.cap}}}` },
  { name: 'line breaks inside the braces', expect: 'restore', mangle: (t, rng) => `{{${pick(rng, ['\n', '\r\n'])}${plain(t)}\n}}` },
  { name: 'uppercase type', expect: 'restore', mangle: (t) => `{{${t.type.toUpperCase()}:${t.id}:${t.cap}}}` },
  { name: 'title-case type', expect: 'restore', mangle: (t) => `{{${upperFirst(t.type)}:${t.id}:${t.cap}}}` },
  { name: 'lost opening brace', expect: 'restore', mangle: (t) => `{${plain(t)}}}` },
  { name: 'lost closing brace', expect: 'restore', mangle: (t) => `{{${plain(t)}}` },
  { name: 'markdown-escaped braces', expect: 'restore', mangle: (t) => `\\{\\{${plain(t)}\\}\\}` },
  {
    name: 'markdown-escaped underscore in the type',
    expect: 'restore',
    applies: hasUnderscore,
    mangle: (t) => `{{${t.type.replaceAll('_', '\\_')}:${t.id}:${t.cap}}}`,
  },
  {
    name: 'combined: escaped, spaced, upper-cased',
    expect: 'restore',
    mangle: (t, rng) => `\\{\\{${spaces(rng)}${t.type.toUpperCase().replaceAll('_', '\\_')}${spaces(rng)}:${spaces(rng)}${t.id}:${t.cap}${spaces(rng)}\\}\\}`,
  },
  // What repair must refuse.
  { name: 'cap upper-cased', expect: 'refuse', mangle: (t) => `{{${t.type}:${t.id}:${t.cap.toUpperCase()}}}` },
  { name: 'cap with one character changed', expect: 'refuse', mangle: (t, rng) => `{{ ${t.type} : ${t.id} : ${oneCharOff(t.cap, rng)} }}` },
  { name: 'cap missing its last character', expect: 'refuse', mangle: (t) => `{{${t.type}:${t.id}:${t.cap.slice(0, -1)}}}` },
  { name: 'cap missing', expect: 'refuse', mangle: (t) => `{{ ${t.type} : ${t.id} }}` },
  {
    name: 'zero-width space inside the cap',
    expect: 'refuse',
    mangle: (t, rng) => {
      const at = 1 + Math.floor(rng() * (t.cap.length - 1));
      return `{{${t.type}:${t.id}:${t.cap.slice(0, at)}\u200b${t.cap.slice(at)}}}`;
    },
  },
  { name: 'zero-width space between parts', expect: 'refuse', mangle: (t) => `{{${t.type}\u200b:${t.id}:${t.cap}}}` },
  {
    name: 'line break inside the cap',
    expect: 'refuse',
    mangle: (t, rng) => {
      const at = 1 + Math.floor(rng() * (t.cap.length - 1));
      return `{{${t.type}:${t.id}:${t.cap.slice(0, at)}\n${t.cap.slice(at)}}}`;
    },
  },
  { name: 'fullwidth braces', expect: 'refuse', mangle: (t) => `\uff5b\uff5b${plain(t)}\uff5d\uff5d` },
  { name: 'homoglyph in the type', expect: 'refuse', mangle: (t) => `{{${t.type.replace(/[aceops]/, (letter) => HOMOGLYPHS[letter] ?? letter)}:${t.id}:${t.cap}}}` },
  { name: 'triple braces', expect: 'refuse', mangle: (t) => `{{{${plain(t)}}}}` },
  { name: 'both sides lost a brace', expect: 'refuse', mangle: (t) => `{${plain(t)}}` },
  { name: 'id upper-cased', expect: 'refuse', mangle: (t) => `{{${t.type}:${t.id.toUpperCase()}:${t.cap}}}` },
  { name: 'markdown-escaped underscore in the id', expect: 'refuse', mangle: (t) => `{{${t.type}:${t.id.replace('_', '\\_')}:${t.cap}}}` },
  { name: 'type swapped', expect: 'refuse', mangle: (t) => `{{ ${t.type === 'email' ? 'phone' : 'email'} : ${t.id} : ${t.cap} }}` },
];

/** A session of realistic entries: random-scheme and corpus-scheme, built-in and custom types. */
function corpusEntries(rng: Rng): TokenEntry[] {
  // Two different values per type: one behind a random-scheme token, one behind a corpus token.
  const values: [type: string, prefix: string, random: string, corpus: string][] = [
    ['email', 'e', 'ada.lovelace@example.com', 'grace.hopper@example.org'],
    ['phone', 'ph', '+1 415 555 2671', '+44 20 7946 0958'],
    ['credit_card', 'cc', '4111 1111 1111 1111', '5555 5555 5555 4444'],
    ['iban', 'ib', 'DE89 3704 0044 0532 0130 00', 'GB82 WEST 1234 5698 7654 32'],
    ['us_ssn', 'ssn', '078-05-1120', '219-09-9999'],
    ['ip_address', 'ip', '192.168.10.20', '10.0.0.7'],
    ['custom:ticket_id', 'c', 'TCK-004217', 'TCK-991044'],
    ['person', 'p', 'Ada Lovelace', 'Grace Hopper'],
  ];
  const entries: TokenEntry[] = [];
  for (const [index, [type, prefix, random, corpus]] of values.entries()) {
    entries.push({ id: `${prefix}_${String(index + 1).padStart(3, '0')}`, type, cap: hex(rng, 12), value: random, mode: 'full' });
    entries.push({ id: `${prefix}_${hex(rng, 24)}`, type, cap: hex(rng, 32), value: corpus, mode: 'full' });
  }
  return entries;
}

/** Prose around the token, with braces that are not tokens (JSON, templates, code). */
const BEFORE = [
  'Sure! I have updated the record for ',
  'Here is the summary:\n\n- Contact: ',
  '```json\n{"note": "see ',
  'Dear customer, we will reach you at ',
  'Template {{ user.name }} resolved; value: ',
  '> Quoted reply { name: value } ',
  '**Important:** ',
  '',
];
const AFTER = [' as requested.', '", "ok": true}\n```', '.\n\nBest regards', ' {x} and {{y}}.', '', ' — thanks!'];

export interface CorpusRow {
  readonly mangling: string;
  readonly expect: Expectation;
  readonly samples: number;
  /** Samples restored exactly with the strict scan. */
  readonly strictRestored: number;
  /** Samples restored exactly with the repair scan. */
  readonly repairRestored: number;
  /** Repair-scan samples where a value came back that should not have (wrong place, wrong value, refused class). */
  readonly falseRestores: number;
}

export interface CorpusOptions {
  readonly seed?: number;
  readonly samplesPerMangling?: number;
}

/** Generate the corpus and restore every sample with both scans. */
export function runRepairCorpus(options: CorpusOptions = {}): CorpusRow[] {
  const rng = seeded(options.seed ?? 20_240_601);
  const samples = options.samplesPerMangling ?? 200;
  const entries = corpusEntries(rng);
  const map = indexEntries(entries);
  const policy = new CompiledPolicy(DEFAULT_POLICY);
  const restore = (output: string, scan: (text: string) => readonly TokenCandidate[]) =>
    rehydrateText({ output, entries: map, policy, language: 'en', caller: {}, channel: 'user_output', scan });

  const rows: CorpusRow[] = [];
  for (const mangling of MANGLINGS) {
    const eligible = entries.filter((entry) => mangling.applies?.(entry) ?? true);
    let strictRestored = 0;
    let repairRestored = 0;
    let falseRestores = 0;
    for (let index = 0; index < samples; index += 1) {
      const entry = eligible[index % eligible.length]!;
      const before = pick(rng, BEFORE);
      const after = pick(rng, AFTER);
      const output = before + mangling.mangle(entry, rng) + after;
      const expected = mangling.expect === 'restore' ? before + entry.value + after : output;
      const strict = restore(output, findTokens);
      const repaired = restore(output, findTokensLenient);
      if (mangling.expect === 'restore') {
        if (strict.restoredText === expected) strictRestored += 1;
        if (repaired.restoredText === expected) repairRestored += 1;
        else if (repaired.tokensResolved > 0) falseRestores += 1;
      } else {
        if (strict.tokensResolved > 0) strictRestored += 1;
        if (repaired.tokensResolved > 0) {
          repairRestored += 1;
          falseRestores += 1;
        }
      }
      // Whatever the class, no other value may ever appear.
      for (const other of entries) {
        if (other !== entry && !output.includes(other.value) && repaired.restoredText.includes(other.value)) falseRestores += 1;
      }
    }
    rows.push({ mangling: mangling.name, expect: mangling.expect, samples, strictRestored, repairRestored, falseRestores });
  }
  return rows;
}

function percent(part: number, whole: number): string {
  return whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)}%`;
}

/** A markdown table for BENCHMARKS.md, with totals per expectation. */
export function formatCorpusTable(rows: readonly CorpusRow[]): string {
  const lines = [
    '| Mangling | Expected | Samples | Restored (strict) | Restored (repair) | False restores |',
    '|---|---|---:|---:|---:|---:|',
  ];
  for (const row of rows) {
    lines.push(
      `| ${row.mangling} | ${row.expect} | ${row.samples} | ${percent(row.strictRestored, row.samples)} | ${percent(row.repairRestored, row.samples)} | ${row.falseRestores} |`,
    );
  }
  for (const expect of ['restore', 'refuse'] as const) {
    const group = rows.filter((row) => row.expect === expect);
    const total = group.reduce((sum, row) => sum + row.samples, 0);
    const strict = group.reduce((sum, row) => sum + row.strictRestored, 0);
    const repair = group.reduce((sum, row) => sum + row.repairRestored, 0);
    const falses = group.reduce((sum, row) => sum + row.falseRestores, 0);
    lines.push(`| **all ${expect === 'restore' ? 'repairable' : 'refused'}** | ${expect} | ${total} | ${percent(strict, total)} | ${percent(repair, total)} | ${falses} |`);
  }
  return lines.join('\n');
}
