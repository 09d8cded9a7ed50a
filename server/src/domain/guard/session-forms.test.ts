// The output guard's search keys kept per opened session state (session-forms.ts): a second
// rehydrate of the same state reuses them, with the answers a fresh build gives; anything that
// is not the same bound state builds afresh; a revocation (forgetSessionForms) empties the cache
// and keeps a request that opened before it from storing the erased value's keys again.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KnownValues, prepareKeys, type KnownEntry } from './known.js';
import {
  bindSessionEntries,
  dropSessionForms,
  forgetSessionForms,
  preparedKeysOf,
  SESSION_FORMS_MAX_RECORDS,
  SESSION_FORMS_TTL_MS,
  sessionFormsGeneration,
  sessionFormsSize,
  setSessionFormsClock,
} from './session-forms.js';

const VALUES: readonly KnownEntry[] = [
  { type: 'phone', value: '+1 415 555 0100' },
  { type: 'email', value: 'jane.roe@corp.example' },
  { type: 'person', value: 'Quentin Zyxwort' },
  { type: 'phone', value: '+44 20 7946 0958' },
];

/** A fresh copy of the entries, as each open of a blob makes (new objects, same values). */
function opened(values: readonly KnownEntry[] = VALUES): KnownEntry[] {
  return values.map((entry) => ({ ...entry }));
}

/** Entries of one open of `state`, bound at the current generation. */
function openedBound(state: string, values: readonly KnownEntry[] = VALUES): KnownEntry[] {
  const entries = opened(values);
  bindSessionEntries(entries, state, sessionFormsGeneration());
  return entries;
}

/** preparedKeysOf with a build that counts its calls. */
function counted(entries: readonly KnownEntry[], region = 'US'): { builds: number; keys: readonly string[] } {
  let builds = 0;
  const prepared = preparedKeysOf(entries, region, () => {
    builds += 1;
    return prepareKeys(entries, region);
  });
  return { builds, keys: prepared.keys };
}

const OUTPUT = 'Call (415) 555-0100 or 020 7946 0958, write to jane.roe at corp dot example, ask Quentin  Zyxwort; 4155550100.';

beforeEach(() => {
  forgetSessionForms();
  setSessionFormsClock(() => 1_000_000);
});

afterEach(() => {
  forgetSessionForms();
  setSessionFormsClock(Date.now);
});

describe('session-forms', () => {
  it('builds a state once: a second open of the same state reuses the keys, which are what a build gives', () => {
    expect(counted(openedBound('s1')).builds).toBe(1);
    const again = counted(openedBound('s1'));
    expect(again.builds).toBe(0);
    expect(again.keys).toEqual(prepareKeys(VALUES, 'US').keys);
    expect(sessionFormsSize().records).toBe(1);
  });

  it('finds in the output what an unbound (per-request) search finds, on the first and a cached open', () => {
    const fresh = new KnownValues(opened(), 'US').find(OUTPUT);
    expect(fresh.length).toBeGreaterThan(3);
    expect(new KnownValues(openedBound('s2'), 'US').find(OUTPUT)).toEqual(fresh);
    expect(new KnownValues(openedBound('s2'), 'US').find(OUTPUT)).toEqual(fresh);
    expect(sessionFormsSize().records).toBe(1);
  });

  it('never serves entries that were not bound, and keeps nothing of them', () => {
    expect(counted(opened()).builds).toBe(1);
    expect(counted(opened()).builds).toBe(1);
    expect(sessionFormsSize().records).toBe(0);
  });

  it('fails closed: the same state key with other values, another region or a subset builds afresh', () => {
    expect(counted(openedBound('s3')).builds).toBe(1);
    const other = VALUES.map((entry, index) => (index === 0 ? { type: 'phone', value: '+1 415 555 0199' } : entry));
    const mismatch = counted(openedBound('s3', other));
    expect(mismatch.builds).toBe(1);
    expect(mismatch.keys).toEqual(prepareKeys(other, 'US').keys);
    expect(counted(openedBound('s3'), 'DE').builds).toBe(1);
    // The guard searches the state less its exempt types: another subset, another record.
    const subset = openedBound('s3').filter((entry) => entry.type !== 'email');
    const built = counted(subset);
    expect(built.builds).toBe(1);
    expect(built.keys).toEqual(prepareKeys(subset, 'US').keys);
    // Entries of two states mixed are never served.
    const mixed = [...openedBound('s3').slice(0, 2), ...openedBound('s4').slice(2)];
    expect(counted(mixed).builds).toBe(1);
    expect(counted(mixed).builds).toBe(1);
  });

  it('erasure wins: a revocation empties the cache, and an open from before it stores nothing', () => {
    expect(counted(openedBound('s5')).builds).toBe(1);
    // A rehydrate opened and passed its revocation check...
    const before = openedBound('s5');
    // ...then a revocation is added before its guard ran.
    forgetSessionForms();
    expect(sessionFormsSize()).toEqual({ records: 0, units: 0 });
    expect(counted(before).builds).toBe(1);
    expect(sessionFormsSize().records).toBe(0);
    // The same state opened after the revocation (and found with no revoked entry) is kept again.
    expect(counted(openedBound('s5')).builds).toBe(1);
    expect(sessionFormsSize().records).toBe(1);
  });

  it('drops the records of a state whose rehydrate found revoked entries', () => {
    counted(openedBound('s6'));
    counted(openedBound('s6').slice(1));
    counted(openedBound('s7'));
    expect(sessionFormsSize().records).toBe(3);
    dropSessionForms('s6');
    expect(sessionFormsSize().records).toBe(1);
    expect(counted(openedBound('s7')).builds).toBe(0);
  });

  it('expires records after the TTL', () => {
    let clock = 5_000_000;
    setSessionFormsClock(() => clock);
    counted(openedBound('s8'));
    clock += SESSION_FORMS_TTL_MS - 1;
    expect(counted(openedBound('s8')).builds).toBe(0);
    clock += SESSION_FORMS_TTL_MS;
    expect(counted(openedBound('s8')).builds).toBe(1);
  });

  it('holds at most SESSION_FORMS_MAX_RECORDS states, the least recently used out first', () => {
    for (let index = 0; index < SESSION_FORMS_MAX_RECORDS + 10; index++) counted(openedBound(`many-${index}`));
    expect(sessionFormsSize().records).toBe(SESSION_FORMS_MAX_RECORDS);
    expect(counted(openedBound('many-0')).builds).toBe(1);
    expect(counted(openedBound(`many-${SESSION_FORMS_MAX_RECORDS + 9}`)).builds).toBe(0);
    forgetSessionForms();
    expect(sessionFormsSize().units).toBe(0);
  });
});
