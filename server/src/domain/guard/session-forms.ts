// The output guard's search keys of a session state, built once per state rather than once per
// rehydrate (issue 20: a 1 KB rehydrate spent ~13 % of its CPU rebuilding them, most of it
// parsing the session's phone numbers for their other spellings, forms.ts).
//
// What makes a reuse safe:
//   - Keyed by the sealed state that was opened (usecases/executor.ts: the tenant, the blob's key
//     id and its AES-GCM tag, which it authenticated under: one tag, one plaintext), bound to
//     the very entry objects the open produced (a WeakMap: a binding dies with its request).
//     Entries that were not bound, or not all to one state, are never served from the cache.
//   - Fail closed: a record holds the type and value of every entry it was built from, and is used
//     only when the entries asking are those, in that order (else it is dropped and the keys are
//     built afresh). The keys are a pure function of (type, value) list and region, so a hit
//     returns what a build would.
//   - Erasure wins: `forgetSessionForms()` (called when a revocation is added, stores/erasure.ts)
//     empties the cache and moves the generation on; a binding made before it never stores a
//     record, so a rehydrate that passed its revocation check just before the revocation cannot
//     put the erased value's keys back. A state whose rehydrate finds revoked entries is dropped
//     (`dropSessionForms`) and not cached (a revocation made by another process). Records also
//     expire (SESSION_FORMS_TTL_MS): no record outlives that on a process that never saw the
//     revocation.
//   - Bounded: at most SESSION_FORMS_MAX_RECORDS states and SESSION_FORMS_MAX_UNITS UTF-16 units
//     of keys in all, least recently used out first; a state whose keys alone pass
//     SESSION_FORMS_MAX_RECORD_UNITS is not kept.
// A hit is faster than a build: it tells only the holder of the same blob (the key is its tag,
// under its tenant) that the blob was rehydrated in the last 15 s on this process.

/** The search keys of a list of entries and what the direct search indexes by first unit. */
export interface PreparedKeys {
  readonly keys: readonly string[];
  readonly types: readonly string[];
  /** First key (index) of each ASCII first unit, -1 none; lists linked through nextKey. */
  readonly asciiHead: readonly number[];
  readonly otherHead: ReadonlyMap<number, number>;
  readonly nextKey: readonly number[];
}

interface Binding {
  readonly state: string;
  readonly index: number;
  readonly total: number;
  readonly generation: number;
}

interface SessionRecord {
  readonly types: readonly string[];
  readonly values: readonly string[];
  readonly prepared: PreparedKeys;
  readonly units: number;
  readonly state: string;
  readonly expiresAt: number;
}

export const SESSION_FORMS_TTL_MS = 15_000;
export const SESSION_FORMS_MAX_RECORDS = 256;
export const SESSION_FORMS_MAX_UNITS = 1 << 20;
export const SESSION_FORMS_MAX_RECORD_UNITS = 1 << 16;

const bindings = new WeakMap<object, Binding>();
const records = new Map<string, SessionRecord>();
let generation = 0;
let totalUnits = 0;
let now: () => number = Date.now;

/**
 * The generation to bind with: read it before the store checks of the state (its revocation
 * check), so a revocation added after it keeps the binding from storing a record.
 */
export function sessionFormsGeneration(): number {
  return generation;
}

/** Bind the entries of an opened, checked state to `state` (its tenant, key id and tag). */
export function bindSessionEntries(entries: readonly object[], state: string, boundAt: number): void {
  if (boundAt !== generation) return;
  for (let index = 0; index < entries.length; index++) bindings.set(entries[index]!, { state, index, total: entries.length, generation: boundAt });
}

/** Every record of `state` out (its rehydrate found revoked entries). */
export function dropSessionForms(state: string): void {
  for (const [key, record] of records) if (record.state === state) remove(key, record);
}

/** Empty the cache and refuse records of every binding made so far (a revocation was added). */
export function forgetSessionForms(): void {
  generation += 1;
  records.clear();
  totalUnits = 0;
}

/** Records and key units held (tests, memory checks). */
export function sessionFormsSize(): { readonly records: number; readonly units: number } {
  return { records: records.size, units: totalUnits };
}

/** Tests: the clock records expire by. */
export function setSessionFormsClock(clock: () => number): void {
  now = clock;
}

function remove(key: string, record: SessionRecord): void {
  records.delete(key);
  totalUnits -= record.units;
}

/**
 * The prepared keys of `entries` read in `region`: from the cache when the entries are an opened
 * state's (bound) and a live record of them matches, else `build()` (stored when bound).
 */
export function preparedKeysOf(
  entries: readonly { readonly type: string; readonly value: string }[],
  region: string | undefined,
  build: () => PreparedKeys,
): PreparedKeys {
  const key = cacheKey(entries, region);
  if (key === undefined) return build();
  const record = records.get(key.id);
  const at = now();
  if (record !== undefined) {
    if (record.expiresAt > at && matches(record, entries)) {
      // Most recently used last.
      records.delete(key.id);
      records.set(key.id, record);
      return record.prepared;
    }
    remove(key.id, record);
  }
  const prepared = build();
  if (key.generation !== generation) return prepared;
  let units = 0;
  for (const each of prepared.keys) units += each.length;
  for (const entry of entries) units += entry.value.length;
  if (units > SESSION_FORMS_MAX_RECORD_UNITS) return prepared;
  records.set(key.id, {
    types: entries.map((entry) => entry.type),
    values: entries.map((entry) => entry.value),
    prepared,
    units,
    state: key.state,
    expiresAt: at + SESSION_FORMS_TTL_MS,
  });
  totalUnits += units;
  for (const [oldest, held] of records) {
    if (records.size <= SESSION_FORMS_MAX_RECORDS && totalUnits <= SESSION_FORMS_MAX_UNITS) break;
    remove(oldest, held);
  }
  return prepared;
}

/** The record key of bound entries (all of one state and generation), undefined otherwise. */
function cacheKey(entries: readonly object[], region: string | undefined): { id: string; state: string; generation: number } | undefined {
  if (entries.length === 0) return undefined;
  const first = bindings.get(entries[0]!);
  if (first === undefined) return undefined;
  let all = entries.length === first.total;
  let previous = -1;
  const indexes: number[] = [];
  for (const entry of entries) {
    const binding = bindings.get(entry);
    if (binding === undefined || binding.state !== first.state || binding.generation !== first.generation || binding.index <= previous) return undefined;
    if (binding.index !== previous + 1) all = false;
    previous = binding.index;
    indexes.push(binding.index);
  }
  // The entries a guard searches are the state's less its exempt types: the subset is part of the key.
  const subset = all ? '*' : indexes.join(',');
  return { id: `${first.state}\u0000${region ?? ''}\u0000${subset}`, state: first.state, generation: first.generation };
}

function matches(record: SessionRecord, entries: readonly { readonly type: string; readonly value: string }[]): boolean {
  if (record.values.length !== entries.length) return false;
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index]!;
    if (record.types[index] !== entry.type || record.values[index] !== entry.value) return false;
  }
  return true;
}
