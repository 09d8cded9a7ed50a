// The session's own values in model output (issue 18 item 8): every value of the session's
// token map that the model writes raw is found, whatever its type, level or context, in any
// spelling the normalization treats as equal.
//
// Two ways a value is recognized:
//   - a detection in the output whose normalized value (token/normalize.ts, the key a token is
//     allocated by) is the normalized value of an entry of the same type ("4111-1111-1111-1111"
//     for an entry "4111 1111 1111 1111", "Alice@Example.com" for "alice@example.com");
//   - a text search for every entry, detected or not (names, custom types): on the skeleton of
//     the guard view (its letters and digits, lower-cased), matched at word boundaries, so
//     spacing, separators and case do not hide a value ("Alice  Smith", "alice-smith"). A direct
//     search by first unit while it stays cheap, else one Aho-Corasick automaton over the
//     entries' skeletons (KnownValues): linear in the output either way.
// Skeletons shorter than MIN_KNOWN_CHARS are not searched (a two-letter value would match
// every such word); such values are still found through their detection.
import { normalizeValue } from '../token/normalize.js';
import { searchForms, urlEncodedForms } from './forms.js';
import { preparedKeysOf, type PreparedKeys } from './session-forms.js';
import { guardView } from './view.js';

/** Shortest skeleton (letters and digits) a session value is searched for as text. */
export const MIN_KNOWN_CHARS = 3;

export interface KnownEntry {
  readonly type: string;
  readonly value: string;
}

export interface KnownFinding {
  readonly type: string;
  readonly start: number;
  readonly end: number;
}

const ALNUM = /[\p{L}\p{N}]/u;

/** The skeleton as UTF-16 units and the index in the text of each; valid up to `length`. */
export interface SkeletonUnits {
  readonly units: Uint16Array;
  readonly positions: Int32Array;
  readonly length: number;
}

/**
 * Scratch arrays of skeletonUnits, grown when a text needs more and reused by every call: the
 * search reads a skeleton before the next one is made (nothing here is asynchronous), so one
 * pair serves every request without an allocation per character or per call.
 */
const SCRATCH_INITIAL = 1024;
/** Scratch kept between calls at most this long (units); a longer one lasts until the next short text. */
const SCRATCH_KEEP = 1 << 16;
let scratchUnits = new Uint16Array(SCRATCH_INITIAL);
let scratchPositions = new Int32Array(SCRATCH_INITIAL);

function grow(needed: number): void {
  const size = Math.max(needed, scratchUnits.length * 2);
  const units = new Uint16Array(size);
  units.set(scratchUnits);
  const positions = new Int32Array(size);
  positions.set(scratchPositions);
  scratchUnits = units;
  scratchPositions = positions;
}

/**
 * Lower-cased letters and digits of `text` as UTF-16 units, with the index in `text` of each, in
 * the module's scratch arrays (valid until the next call). ASCII, most of any model output, is
 * read by its code (for ASCII, \p{L} and \p{N} are A-Z, a-z and 0-9, and lower-casing adds 32)
 * without a one-character string, a regex test and a lower-casing per character; every other
 * character takes the general path (known.test.ts checks both agree). No string is built: the
 * automaton reads the units (a string grown one character at a time and an array of positions
 * pushed one by one were most of the search's time, issue 20).
 */
export function skeletonUnits(text: string): SkeletonUnits {
  // A long output grew the scratch; the next ordinary one gives that memory back (6 bytes a
  // character: a 10 MB answer's arrays must not stay with the process).
  if (scratchUnits.length > SCRATCH_KEEP && text.length <= SCRATCH_KEEP) {
    scratchUnits = new Uint16Array(SCRATCH_INITIAL);
    scratchPositions = new Int32Array(SCRATCH_INITIAL);
  }
  if (scratchUnits.length < text.length) grow(text.length);
  let units = scratchUnits;
  let positions = scratchPositions;
  let length = 0;
  for (let index = 0; index < text.length; ) {
    const code = text.charCodeAt(index);
    if (code < 0x80) {
      const letterOrDigit = (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a);
      if (letterOrDigit) {
        // Full only after letters that lower-case to more units than they have (İ is two).
        if (length === units.length) {
          grow(length + text.length - index);
          units = scratchUnits;
          positions = scratchPositions;
        }
        units[length] = code <= 0x5a && code >= 0x41 ? code + 0x20 : code;
        positions[length++] = index;
      }
      index += 1;
      continue;
    }
    const cp = text.codePointAt(index)!;
    const width = cp > 0xffff ? 2 : 1;
    const ch = text.slice(index, index + width);
    if (ALNUM.test(ch)) {
      // One position per UTF-16 unit written (an astral letter is two; a lower-cased letter may
      // be more than one character): units and positions stay index-aligned.
      const lower = ch.toLowerCase();
      if (length + lower.length > units.length) {
        grow(length + lower.length);
        units = scratchUnits;
        positions = scratchPositions;
      }
      for (let unit = 0; unit < lower.length; unit++) {
        units[length] = lower.charCodeAt(unit);
        positions[length++] = index;
      }
    }
    index += width;
  }
  return { units, positions, length };
}

/** Lower-cased letters and digits of `text`, with the index of each in `text` (skeletonUnits as a string and an array). */
export function skeletonOf(text: string): { chars: string; positions: number[] } {
  const { units, positions, length } = skeletonUnits(text);
  let chars = '';
  const indexes: number[] = [];
  for (let unit = 0; unit < length; unit++) {
    chars += String.fromCharCode(units[unit]!);
    indexes.push(positions[unit]!);
  }
  return { chars, positions: indexes };
}

/** Lower-cased letters and digits of `text` as a string (skeletonOf's chars, without its positions). */
export function skeletonKey(text: string): string {
  const { units, length } = skeletonUnits(text);
  let key = '';
  // In chunks: a spread of a long array would overflow the stack.
  // (apply reads the typed array by index; a spread would walk it with an iterator, ~5x slower).
  for (let from = 0; from < length; from += KEY_CHUNK) key += String.fromCharCode.apply(null, units.subarray(from, Math.min(length, from + KEY_CHUNK)) as unknown as number[]);
  return key;
}

const KEY_CHUNK = 4096;

/** End (exclusive) in `text` of the character at `index`. */
function charEnd(text: string, index: number): number {
  return (text.codePointAt(index) ?? 0) > 0xffff ? index + 2 : index + 1;
}

/**
 * Scripts written without spaces between words (and Hangul, whose particles attach to the noun
 * before them): next to such a letter a value may start or end without any separator
 * ("电话4155550100", "王小明说", "김철수는").
 */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Tibetan}]/u;
const DIGIT = /\p{N}/u;

/**
 * Are the letters or digits at view positions `before` and `after` (consecutive in the skeleton)
 * one word, so that no value may start or end between them? Only when they touch and are both
 * digits, or both letters of scripts that put spaces between words: a value is never taken out
 * of a longer number ("94155550100") or a longer word ("alicesmithy"), but is found against a
 * letter of another kind ("ID4155550100") or in text without spaces.
 */
function joined(text: string, before: number, after: number): boolean {
  if (after === before || charEnd(text, before) !== after) return false;
  if (text.charCodeAt(before) < 0x80 && text.charCodeAt(after) < 0x80) {
    const a = text.charCodeAt(before) <= 0x39;
    return a === text.charCodeAt(after) <= 0x39;
  }
  const first = String.fromCodePoint(text.codePointAt(before)!);
  const second = String.fromCodePoint(text.codePointAt(after)!);
  const digit = DIGIT.test(first);
  if (digit !== DIGIT.test(second)) return false;
  return digit || !(UNSPACED.test(first) || UNSPACED.test(second));
}

/**
 * The Aho-Corasick automaton of the entries' skeletons, walked by UTF-16 unit (as skeletonOf
 * writes them). Two forms of the same automaton:
 * - dense: a transition table (fail links folded in) in one typed array, so a step is one table
 *   read rather than Map lookups along the fail chain (issue 20: building and walking a Map trie
 *   was ~8 % of a 1 KB rehydrate's CPU); a cell is filled the first time a search reads it;
 * - sparse: a Map per trie node, for sessions whose table would exceed DENSE_CELLS (states x
 *   distinct units grows with the session: 50,000 values in many scripts would ask for
 *   gigabytes), so memory stays proportional to the values' total length.
 */
interface Automaton {
  /** The state after `state` reads the UTF-16 unit `code` (a unit in no key returns to the root). */
  step(state: number, code: number): number;
  readonly fail: Int32Array | Int16Array;
  /** Keys (by index into `keys`) ending at each state, including through fail links. */
  readonly out: (readonly number[])[];
  readonly depth: Int32Array | Int16Array;
}

/**
 * Most states (trie nodes, the root included) a table of 16-bit cells holds: a cell holds a
 * state number or ROOT_CELL (-1), and a depth or fail state is below the number of states.
 */
export const NARROW_STATES = 0x7fff;

/**
 * The number of states of the trie of `keys` (the root and one per distinct prefix): on the
 * keys in code-unit order, each key adds the units past its longest common prefix with the key
 * before it (the longest it shares with any earlier one).
 */
export function trieStates(keys: readonly string[]): number {
  let states = 1;
  let previous = '';
  for (const key of [...keys].sort()) {
    const limit = Math.min(key.length, previous.length);
    let common = 0;
    while (common < limit && key.charCodeAt(common) === previous.charCodeAt(common)) common++;
    states += key.length - common;
    previous = key;
  }
  return states;
}

/** Most cells (Int32, 4 bytes each) a dense transition table may have: 4 MiB. */
export const DENSE_CELLS = 1 << 20;

const NO_KEYS: readonly number[] = [];

function build(keys: readonly string[]): Automaton {
  const ascii = new Int32Array(128).fill(-1);
  const other = new Map<number, number>();
  let symbols = 0;
  for (const key of keys) {
    for (let unit = 0; unit < key.length; unit++) {
      const code = key.charCodeAt(unit);
      if (code < 128) {
        if (ascii[code] === -1) ascii[code] = symbols++;
      } else if (!other.has(code)) other.set(code, symbols++);
    }
  }
  const capacity = trieStates(keys);
  if (capacity * symbols > DENSE_CELLS) return buildSparse(keys);
  const symbolOf = (code: number): number => (code < 128 ? ascii[code]! : (other.get(code) ?? -1));
  // The transition table, filled as far as it is known: a trie edge from the start, and every
  // other (state, symbol) the first time a search needs it, from the fail chain (computed once
  // and kept). Cells: 0 not known yet, ROOT_CELL the root, a positive number that state.
  // Filling every cell up front (states x symbols) was most of the automaton's cost for the few
  // values of a session, and a search of a short output reads a small part of them.
  // Sized to the trie's states, in 16-bit cells while every state number fits: allocating and
  // zeroing the table was most of the build (a session's e-mail forms share long prefixes, so the
  // sum of the keys' lengths overstated the states by a third; issue 20).
  const narrow = capacity <= NARROW_STATES;
  const table = narrow ? new Int16Array(capacity * symbols) : new Int32Array(capacity * symbols);
  const depth = narrow ? new Int16Array(capacity) : new Int32Array(capacity);
  // Construction-only arrays: plain arrays (on the heap, cheap to allocate) rather than typed ones.
  const parent: number[] = [0];
  const via: number[] = [0];
  const out: (readonly number[])[] = [NO_KEYS];
  let states = 1;
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    let state = 0;
    for (let unit = 0; unit < key.length; unit++) {
      const symbol = symbolOf(key.charCodeAt(unit));
      const slot = state * symbols + symbol;
      let child = table[slot]!;
      if (child === 0) {
        child = states++;
        table[slot] = child;
        out.push(NO_KEYS);
        depth[child] = depth[state]! + 1;
        parent.push(state);
        via.push(symbol);
      }
      state = child;
    }
    out[state] = [...out[state]!, index];
  }
  const fail = narrow ? new Int16Array(states) : new Int32Array(states);
  /** The next state from `state` on `symbol` (fail links of shallower states must be set). */
  const next = (state: number, symbol: number): number => {
    let current = state;
    let known = table[current * symbols + symbol]!;
    while (known === 0 && current !== 0) {
      current = fail[current]!;
      known = table[current * symbols + symbol]!;
    }
    const target = known > 0 ? known : 0;
    table[state * symbols + symbol] = target === 0 ? ROOT_CELL : target;
    return target;
  };
  // Fail links in order of depth (a state's fail state is shallower): states are numbered in
  // insertion order, so sort them by depth first (counting sort; depth < capacity).
  let deepest = 0;
  for (let state = 1; state < states; state++) if (depth[state]! > deepest) deepest = depth[state]!;
  const starts = new Array<number>(deepest + 2).fill(0);
  for (let state = 1; state < states; state++) starts[depth[state]! + 1]! += 1;
  for (let level = 1; level <= deepest + 1; level++) starts[level]! += starts[level - 1]!;
  const byDepth = new Array<number>(states - 1).fill(0);
  for (let state = 1; state < states; state++) byDepth[starts[depth[state]!]!++] = state;
  for (let order = 0; order < states - 1; order++) {
    const state = byDepth[order]!;
    const from = parent[state]!;
    const failed = from === 0 ? 0 : next(fail[from]!, via[state]!);
    fail[state] = failed;
    if (out[failed]!.length > 0) out[state] = [...out[state]!, ...out[failed]!];
  }
  return {
    step: (state, code) => {
      const symbol = code < 128 ? ascii[code]! : (other.get(code) ?? -1);
      if (symbol < 0) return 0;
      const known = table[state * symbols + symbol]!;
      if (known > 0) return known;
      return known === ROOT_CELL ? 0 : next(state, symbol);
    },
    fail,
    out,
    depth,
  };
}

/** A table cell whose transition is known to be the root (0 means not known yet). */
const ROOT_CELL = -1;

/** The same automaton with a Map of children per trie node, following fail links while stepping. */
function buildSparse(keys: readonly string[]): Automaton {
  const next: Map<number, number>[] = [new Map<number, number>()];
  const out: (readonly number[])[] = [NO_KEYS];
  const depth: number[] = [0];
  keys.forEach((key, index) => {
    let state = 0;
    for (let unit = 0; unit < key.length; unit++) {
      const code = key.charCodeAt(unit);
      let child = next[state]!.get(code);
      if (child === undefined) {
        child = next.length;
        next.push(new Map<number, number>());
        out.push(NO_KEYS);
        depth.push(depth[state]! + 1);
        next[state]!.set(code, child);
      }
      state = child;
    }
    out[state] = [...out[state]!, index];
  });
  const fail = new Int32Array(next.length);
  const queue: number[] = [...next[0]!.values()];
  for (let head = 0; head < queue.length; head++) {
    const state = queue[head]!;
    for (const [code, child] of next[state]!) {
      let f = fail[state]!;
      while (f !== 0 && !next[f]!.has(code)) f = fail[f]!;
      const target = next[f]!.get(code);
      fail[child] = target !== undefined && target !== child ? target : 0;
      if (out[fail[child]]!.length > 0) out[child] = [...out[child]!, ...out[fail[child]]!];
      queue.push(child);
    }
  }
  return {
    step: (state, code) => {
      for (let current = state; ; current = fail[current]!) {
        const child = next[current]!.get(code);
        if (child !== undefined) return child;
        if (current === 0) return 0;
      }
    },
    fail,
    out,
    depth: Int32Array.from(depth),
  };
}

/**
 * How a search for the session's values runs: 'auto' (the direct search while it stays cheap,
 * else the automaton), or one of the two alone (tests compare them).
 */
export type KnownSearch = 'auto' | 'automaton' | 'direct';

/**
 * The direct search gives up (and the automaton is built) once it has compared more units than
 * this many per unit of the text's skeleton, plus DIRECT_WORK_BASE: its cost stays linear in
 * the output whatever the session's values and the output are (a value of repeated letters
 * against a run of that letter would otherwise cost the value's length at every position).
 */
export const DIRECT_WORK_PER_UNIT = 8;
export const DIRECT_WORK_BASE = 1024;

/** The search keys of `entries` (skeletons of every spelling, deduplicated, first entry's type) and their first-unit index. */
export function prepareKeys(entries: readonly KnownEntry[], region: string | undefined): PreparedKeys {
  const keys: string[] = [];
  const types: string[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    const forms = [skeletonKey(guardView(entry.value).text)];
    // A phone number without its country code, an address with "at" for its "@", ...
    forms.push(...searchForms(entry.type, entry.value, region));
    // As a URL encoder writes it in a link (`?q=Quentin%20Zyxwort`), read through the same view,
    // alone and after a path (the fold keeps a `%20` between digits in a run with a `/`:
    // `https://x.example/?p=%2B1%20415%20555%200134`).
    for (const encoded of urlEncodedForms(entry.value)) forms.push(skeletonKey(guardView(encoded).text), skeletonKey(guardView(`/${encoded}`).text));
    // Written backwards (`trowxyZ nitneuQ`): the skeleton read from its end, for values long
    // enough that their reversal is no ordinary word (`Leon` is `noel`, `Emil` is `lime`).
    const reversed = reversedKey(forms[0]!);
    if (reversed !== undefined) forms.push(reversed);
    for (const key of forms) {
      if (key.length < MIN_KNOWN_CHARS || seen.has(key)) continue;
      seen.add(key);
      keys.push(key);
      types.push(entry.type);
    }
  }
  // Plain arrays: allocating typed ones costs more than these few cells are read.
  const asciiHead = new Array<number>(128).fill(-1);
  const otherHead = new Map<number, number>();
  const nextKey = new Array<number>(keys.length).fill(-1);
  for (let index = 0; index < keys.length; index++) {
    const first = keys[index]!.charCodeAt(0);
    if (first < 128) {
      nextKey[index] = asciiHead[first]!;
      asciiHead[first] = index;
    } else {
      nextKey[index] = otherHead.get(first) ?? -1;
      otherHead.set(first, index);
    }
  }
  return { keys, types, asciiHead, otherHead, nextKey };
}

/**
 * The session's values for one request. Nothing is computed up front (issue 20: building the
 * search for every value on every rehydrate was ~9 % of a 1 KB rehydrate): a type's normalized
 * values when a detection of that type is first asked about (`has`), the values' search keys
 * (skeletons and other spellings) at the first search. A search first runs directly (each
 * position of the output tried against the keys that start with its unit, found through a
 * table by first unit), which for the few values of a session and an answer of a few KB costs
 * less than building the Aho-Corasick automaton; past a work bound (DIRECT_WORK_PER_UNIT) the
 * automaton is built, kept for the rest of the request and used from then on. Both find the
 * same spans with the same types (known.test.ts). Everything lives in this object, made per
 * request, but the search keys of an opened session state's entries, which session-forms.ts
 * keeps for that state (bounded, expiring, emptied by any revocation).
 */
export class KnownValues {
  readonly #entries: readonly KnownEntry[];
  /** Normalized values by type, filled per type on the first `has` for it. */
  readonly #normalized = new Map<string, ReadonlySet<string>>();
  /** Region national phone numbers are read in (the session language's, else the default). */
  readonly #region: string | undefined;
  readonly #search: KnownSearch;
  #keys: readonly string[] | undefined;
  #types: readonly string[] = [];
  /**
   * Keys by their first unit, as lists linked through #nextKey (in no particular order: the
   * direct search sorts what it finds): the first key of an ASCII unit in #asciiHead (-1 none),
   * of any other unit in #otherHead.
   */
  #asciiHead: readonly number[] = [];
  #otherHead: ReadonlyMap<number, number> = new Map<number, number>();
  #nextKey: readonly number[] = [];
  #automaton: Automaton | undefined;

  constructor(entries: readonly KnownEntry[], region?: string, search: KnownSearch = 'auto') {
    this.#entries = [...entries];
    this.#region = region;
    this.#search = search;
  }

  get empty(): boolean {
    return this.#entries.length === 0;
  }

  /** Is `value`, detected as `type`, a session value of that type (normalized)? */
  has(type: string, value: string): boolean {
    let set = this.#normalized.get(type);
    if (set === undefined) {
      const values = new Set<string>();
      for (const entry of this.#entries) if (entry.type === type) values.add(normalizeValue(type, entry.value, this.#region));
      this.#normalized.set(type, (set = values));
    }
    return set.size > 0 && set.has(normalizeValue(type, value, this.#region));
  }

  /**
   * The search keys (skeletons of every spelling) and their types, computed once per request, or
   * once per opened session state (session-forms.ts: bound entries, checked against the record).
   */
  #prepare(): readonly string[] {
    if (this.#keys !== undefined) return this.#keys;
    const prepared = preparedKeysOf(this.#entries, this.#region, () => prepareKeys(this.#entries, this.#region));
    this.#asciiHead = prepared.asciiHead;
    this.#otherHead = prepared.otherHead;
    this.#nextKey = prepared.nextKey;
    this.#types = prepared.types;
    this.#keys = prepared.keys;
    return prepared.keys;
  }

  /** Length (UTF-16 units) of the shortest search key: the letters and digits a text needs to hold a value. */
  #shortestKey(): number {
    let shortest = Infinity;
    for (const key of this.#prepare()) if (key.length < shortest) shortest = key.length;
    return Number.isFinite(shortest) ? shortest : 1;
  }

  /** Length (UTF-16 units) of the longest search key: how far a value reaches in a skeleton. */
  longestKey(): number {
    let longest = 0;
    for (const key of this.#prepare()) if (key.length > longest) longest = key.length;
    return longest;
  }

  #built(): Automaton | undefined {
    const keys = this.#prepare();
    if (this.#automaton === undefined && keys.length > 0) this.#automaton = build(keys);
    return this.#automaton;
  }

  /**
   * Session values written in `text`, sorted and merged where they overlap (the longer type
   * first). Word-aligned: a match neither starts nor ends inside a word or a number (`joined`).
   */
  find(text: string): KnownFinding[] {
    const keys = this.#prepare();
    if (keys.length === 0) return [];
    const found = this.#findIn(text);
    // A value written base64-encoded, alone or inside an encoded text: each run of base64 that
    // decodes to printable text is searched as text, and masked whole when it holds a value.
    const encoded = encodedRuns(text, (decoded) => this.#findIn(decoded)[0]?.type, Math.ceil(this.#shortestKey() / 3));
    return encoded.length === 0 ? found : mergeSpans([...found, ...encoded]);
  }

  /** find() on the text as written (no decoding). */
  #findIn(text: string): KnownFinding[] {
    const keys = this.#keys!;
    const view = guardView(text);
    const { units, positions, length } = skeletonUnits(view.text);
    // Matches as (end unit, key) pairs, in the order the automaton reports them: by end, then
    // the longest key first (a state's own key, then its fail chain's).
    let ends: number[] | undefined;
    if (this.#automaton === undefined && this.#search !== 'automaton') {
      ends = this.#direct(units, length, this.#search === 'direct' ? Infinity : DIRECT_WORK_PER_UNIT * length + DIRECT_WORK_BASE);
    }
    if (ends === undefined) ends = walk(this.#built()!, units, length);
    const hits: KnownFinding[] = [];
    for (let pair = 0; pair < ends.length; pair += 2) {
      const j = ends[pair]!;
      const keyIndex = ends[pair + 1]!;
      const endPos = positions[j]!;
      // Word end: the next letter or digit does not continue the same word.
      if (j + 1 < length && joined(view.text, endPos, positions[j + 1]!)) continue;
      const i = j - keys[keyIndex]!.length + 1;
      const startPos = positions[i]!;
      // Word start: the previous letter or digit does not either.
      if (i > 0 && joined(view.text, positions[i - 1]!, startPos)) continue;
      const span = view.originalSpan(startPos, charEnd(view.text, endPos));
      hits.push({ type: this.#types[keyIndex]!, start: span.start, end: span.end });
    }
    return mergeSpans(hits);
  }

  /**
   * Every key at every position of the skeleton, as (end unit, key) pairs ordered as `walk`
   * orders them; undefined once more than `budget` units were compared.
   */
  #direct(units: Uint16Array, length: number, budget: number): number[] | undefined {
    const keys = this.#keys!;
    const asciiHead = this.#asciiHead;
    const otherHead = this.#otherHead;
    const nextKey = this.#nextKey;
    const found: number[] = [];
    let work = 0;
    for (let i = 0; i < length; i++) {
      const code = units[i]!;
      let keyIndex = code < 128 ? asciiHead[code]! : (otherHead.get(code) ?? -1);
      if (keyIndex < 0) continue;
      for (; keyIndex >= 0; keyIndex = nextKey[keyIndex]!) {
        const key = keys[keyIndex]!;
        if (i + key.length > length) continue;
        let unit = 1;
        while (unit < key.length && units[i + unit] === key.charCodeAt(unit)) unit++;
        work += unit;
        if (unit === key.length) found.push(i + unit - 1, keyIndex);
      }
      if (work > budget) return undefined;
    }
    if (found.length <= 2) return found;
    // Found by start; the automaton reports by end, the longest key first.
    const order: number[] = [];
    for (let pair = 0; pair < found.length; pair += 2) order.push(pair);
    order.sort((a, b) => found[a]! - found[b]! || keys[found[b + 1]!]!.length - keys[found[a + 1]!]!.length);
    const sorted: number[] = [];
    for (const pair of order) sorted.push(found[pair]!, found[pair + 1]!);
    return sorted;
  }

  /**
   * Start of the longest suffix of `text` that could still grow into a session value (a proper
   * prefix of an entry's skeleton that begins at a word start), or text.length when none.
   */
  pendingStart(text: string): number {
    const automaton = this.#built();
    if (automaton === undefined) return text.length;
    const view = guardView(text);
    const { units, positions, length } = skeletonUnits(view.text);
    let node = 0;
    for (let j = 0; j < length; j++) node = automaton.step(node, units[j]!);
    // Walk the fail chain for the longest prefix state that starts at a word start.
    for (let current = node; current !== 0; current = automaton.fail[current]!) {
      const i = length - automaton.depth[current]!;
      const startPos = positions[i]!;
      if (i > 0 && joined(view.text, positions[i - 1]!, startPos)) continue;
      return view.originalSpan(startPos, startPos).start;
    }
    return text.length;
  }
}

/** Shortest skeleton whose reversal is searched: a shorter one reversed is too often a word. */
export const MIN_REVERSED_CHARS = 8;

/** The skeleton `key` read backwards (by code point), when long enough and not a palindrome. */
export function reversedKey(key: string): string | undefined {
  if (key.length < MIN_REVERSED_CHARS) return undefined;
  // By code point: an astral letter (two UTF-16 units) stays one letter.
  let reversed = '';
  for (let index = 0; index < key.length; ) {
    const width = (key.codePointAt(index) ?? 0) > 0xffff ? 2 : 1;
    reversed = key.slice(index, index + width) + reversed;
    index += width;
  }
  return reversed === key ? undefined : reversed;
}

/**
 * Runs of base64 (either alphabet, optional padding) at least this long: the base64 of a
 * six-character value ("Bob Li" is `Qm9iIExp`). Hex and base32 runs too.
 */
export const MIN_ENCODED_RUN = 8;
/** Longest run decoded (1 MiB of base64): a longer one is an attachment, not a value. */
const MAX_ENCODED_RUN = 1 << 20;
/**
 * Longest run also decoded at its other alignments and read around bytes that are not text:
 * a value's encoding glued to other characters or inside encoded bytes. A longer run (an
 * image, an attachment) is read as before: whole, aligned, only when all of it is text.
 */
export const MAX_ALIGNED_RUN = 16 * 1024;
const WORD = /^(?:[A-Za-z][a-z]*|[A-Z]+)$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true });
const UTF8_LENIENT = new TextDecoder('utf-8');
/** What is not text in decoded bytes: control characters (but tab and line breaks) and invalid UTF-8. */
// eslint-disable-next-line no-control-regex -- control characters are what this matches
const NOT_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffd]+/g;

/** Decoded bytes that are text: no control character other than tab and line breaks. */
function isText(decoded: string): boolean {
  for (let index = 0; index < decoded.length; index++) {
    const code = decoded.charCodeAt(index);
    if ((code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) || code === 0x7f) return false;
  }
  return decoded.length > 0;
}

const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 (upper case), trailing bits dropped. */
function base32Bytes(body: string): Buffer {
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of body) {
    value = (value << 5) | BASE32_ALPHABET.indexOf(char);
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((value >>> bits) & 0xff);
    }
    value &= (1 << bits) - 1;
  }
  return Buffer.from(out);
}

/** An encoding the model may write a value in: its runs, its group (characters per whole bytes), its decoder. */
interface Encoding {
  readonly runs: RegExp;
  /** A quick test: the base64 run holds a run of this encoding (base64 runs hold every other one). */
  readonly within?: RegExp;
  readonly group: number;
  /** Bytes a group decodes to. */
  readonly bytes: number;
  readonly decode: (body: string) => Buffer;
}

/** Base64, either alphabet: its runs hold the runs of every other encoding read. */
const BASE64: Encoding = {
  runs: /[A-Za-z0-9+/_-]{8,}=*/g,
  group: 4,
  bytes: 3,
  decode: (body) => Buffer.from(body, 'base64'),
};

const INNER_ENCODINGS: readonly Encoding[] = [
  // Hex of the value's bytes, either case.
  { runs: /[0-9A-Fa-f]{8,}/g, within: /[0-9A-Fa-f]{8}/, group: 2, bytes: 1, decode: (body) => Buffer.from(body.slice(0, body.length - (body.length % 2)), 'hex') },
  // Base32 (RFC 4648, upper case as encoders write it).
  { runs: /[A-Z2-7]{8,}=*/g, within: /[A-Z2-7]{8}/, group: 8, bytes: 5, decode: base32Bytes },
];

/**
 * The runs of `text` in an encoding (base64 of either alphabet, hex, base32) that decode to
 * text in which `typeIn` finds a session value, as findings over the whole run with that
 * value's type (the run is one encoded value). A run is read at each alignment of its groups
 * (the encoding may start one to three characters into a base64 run: glued to a word, or the
 * value's bytes inside a longer encoding), and its decoded bytes are read around anything that
 * is not text (the bytes an alignment gets wrong, a binary header). Ordinary encoded runs (an
 * image, a hash, a key) decode to bytes that hold no session value and are left as they are.
 * Not recursive: a decoded text is not decoded again. One scan of the text: a hex or base32
 * run is always inside a base64 run, and is looked for there only.
 */
export function encodedRuns(text: string, typeIn: (decoded: string) => string | undefined, minChars = 1): KnownFinding[] {
  const out: KnownFinding[] = [];
  BASE64.runs.lastIndex = 0;
  for (let match = BASE64.runs.exec(text); match !== null; match = BASE64.runs.exec(text)) {
    const run = match[0];
    if (run.length > MAX_ENCODED_RUN) continue;
    // An ordinary word (`Internationalization`, `README`) is no base64 of a text: the base64 of a
    // text has a capital or a digit past its first character.
    if (!WORD.test(run)) {
      const type = readRun(BASE64, run, typeIn, minChars);
      if (type !== undefined) {
        out.push({ type, start: match.index, end: match.index + run.length });
        continue;
      }
    }
    for (const encoding of INNER_ENCODINGS) {
      if (!encoding.within!.test(run)) continue;
      encoding.runs.lastIndex = 0;
      for (let inner = encoding.runs.exec(run); inner !== null; inner = encoding.runs.exec(run)) {
        const type = readRun(encoding, inner[0], typeIn, minChars);
        if (type !== undefined) out.push({ type, start: match.index + inner.index, end: match.index + inner.index + inner[0].length });
      }
    }
  }
  return out.length > 1 ? mergeSpans(out) : out;
}

function readRun(encoding: Encoding, run: string, typeIn: (decoded: string) => string | undefined, minChars: number): string | undefined {
  const body = run.replace(/=+$/, '');
  return run.length > MAX_ALIGNED_RUN ? wholeText(encoding, body, typeIn) : alignedText(encoding, body, typeIn, minChars);
}

const SPACES = /\s+/g;

/** A long run: decoded aligned, read only when all of it is text. */
function wholeText(encoding: Encoding, body: string, typeIn: (decoded: string) => string | undefined): string | undefined {
  if (encoding.group === 4 && body.length % 4 === 1) return undefined;
  let decoded: string;
  try {
    decoded = UTF8.decode(encoding.decode(body));
  } catch {
    return undefined; // not UTF-8: bytes, not text
  }
  return isText(decoded) ? typeIn(decoded) : undefined;
}

/**
 * Whole groups of other characters glued before a value's encoding read: the bytes they decode
 * to may be letters that join the value's first word (`data` + base64 decodes to `u?Z` before it).
 */
export const GLUED_GROUPS = 2;

/**
 * A run read at each alignment of its groups, around what is not text; at each alignment also
 * without its first one or two groups (what a word glued before the encoding decodes to). The
 * readings are searched as one text (one search a run, not one a reading), a line break between
 * them; a value found in any of them is the run's.
 */
function alignedText(encoding: Encoding, body: string, typeIn: (decoded: string) => string | undefined, minChars: number): string | undefined {
  const readings: string[] = [];
  for (let skip = 0; skip < encoding.group && body.length - skip >= MIN_ENCODED_RUN; skip++) {
    const bytes = encoding.decode(body.slice(skip));
    for (let glued = 0; glued <= GLUED_GROUPS; glued++) {
      const from = glued * encoding.bytes;
      if (glued > 0 && bytes.length - from < MIN_ENCODED_RUN / 2) break;
      // The text between what is not text, where it has room for the shortest search key: at
      // least a third of its length in characters other than spaces (the view's folding, NFKC,
      // writes at most three letters for one character but for a few ligatures of words).
      for (const piece of UTF8_LENIENT.decode(bytes.subarray(from)).split(NOT_TEXT)) {
        if (piece.length >= minChars && piece.replace(SPACES, '').length >= minChars) readings.push(piece);
      }
    }
  }
  return readings.length === 0 ? undefined : typeIn(readings.join('\n'));
}

/** The automaton's matches in the skeleton, as (end unit, key) pairs. */
function walk(automaton: Automaton, units: Uint16Array, length: number): number[] {
  const found: number[] = [];
  let node = 0;
  for (let j = 0; j < length; j++) {
    node = automaton.step(node, units[j]!);
    for (const keyIndex of automaton.out[node]!) found.push(j, keyIndex);
  }
  return found;
}

/** Sort by start and merge overlapping spans (the first span's type is kept). */
export function mergeSpans(spans: readonly KnownFinding[]): KnownFinding[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: KnownFinding[] = [];
  for (const span of sorted) {
    const last = merged[merged.length - 1];
    if (last !== undefined && span.start < last.end) {
      if (span.end > last.end) merged[merged.length - 1] = { type: last.type, start: last.start, end: span.end };
    } else {
      merged.push({ type: span.type, start: span.start, end: span.end });
    }
  }
  return merged;
}
