// JSON mode (interface.md 4.1 JSON rules 1 to 5): every string value and every object key of a
// document is detected and tokenized on its own, through one allocator; numbers that are
// personal data become string tokens; booleans, null and everything else keep their place.
// Structure is preserved: the same keys in the same order (JavaScript's own enumeration order
// of the parsed input: integer-like keys first, then insertion order), the same array lengths,
// the same nesting. Two keys of one object that tokenize to the same key (two spellings of one
// email, two redacted keys) would merge members, so that fails closed (structural drift).
import { VeilError } from '@veil/common';
import { nestedTooDeep } from '../json-depth.js';
import { StructuredBudget, STRUCTURED_LIMITS, isPlainObject, type StructuredLimits } from './limits.js';
import { childPointer, nameForError } from './pointer.js';
import type { Detection } from '../types.js';
import { slotEntities, type SlotScanner, type StructuredEntity } from './slots.js';

export interface StructuredResult<T> {
  readonly value: T;
  /** In document order; keys before their values. */
  readonly entities: StructuredEntity[];
}

export interface JsonWalkOptions {
  /** Pointer prefix of every entity path (chat mode: `/messages/1/tool_calls/0/function/arguments`). */
  readonly basePath?: string;
  /** Field and path named in errors (`input_json`). Never holds a value. */
  readonly errorPath?: string;
  readonly maxDepth?: number;
}

/**
 * Check a whole `input_json` against the bounds before any detection runs. Throws
 * VEIL_PAYLOAD_TOO_LARGE (which bound) or VEIL_VALIDATION_FAILED (not JSON data).
 */
export function checkJsonDocument(value: unknown, limits: StructuredLimits = STRUCTURED_LIMITS): void {
  new StructuredBudget('input_json', limits).chargeDocument(value, 'input_json');
}

/** Define a member without invoking the `__proto__` setter (JSON.parse makes it an own key). */
export function setMember(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * The text a member offers to a joined reading (joins.ts): a string, a number's JSON text; null
 * for a member that holds nothing (null, a boolean, an empty array or object: passed over);
 * undefined for a container with members (it breaks the run).
 */
function scalarText(value: unknown): string | null | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return JSON.stringify(value);
  if (value === null || typeof value === 'boolean') return null;
  if (Array.isArray(value)) return value.length === 0 ? null : undefined;
  if (isPlainObject(value)) return Object.keys(value).length === 0 ? null : undefined;
  return undefined;
}

/** Most columns read across the records of one container (the first keys seen). */
const MAX_COLUMNS = 64;
/**
 * Confidence a detection down a column needs: more than a bare group of digits gives (an eight-
 * digit national phone number is 0.5), since parallel records of ids and counts are common and
 * their members are separate values far more often than parts of one.
 */
const COLUMN_MIN_CONFIDENCE = 0.6;

/** Parts of split values per child index, then per member key of that child. */
type ColumnParts = Map<number, Map<string, Detection[]>>;

/**
 * Values split across the members of different records (session 12): a column of records
 * (`[{"g": "4111"}, {"g": "1111"}, …]`, `[["4111"], ["1111"], …]`, `{"a": {"v": "alice"},
 * "b": {"v": "@corp.example"}}`) is read like the members of one container: for each member key
 * (an array index for arrays), the string members under it in consecutive children are a run (a
 * child without that key, with a number or a container under it, or that is no container, breaks
 * it; a null passes), with the key as context words.
 */
function columnParts(scanner: SlotScanner, children: readonly unknown[], contextKey: string | undefined): ColumnParts | undefined {
  let records = 0;
  const keys = new Set<string>();
  for (const child of children) {
    if (Array.isArray(child) || isPlainObject(child)) {
      records += 1;
      for (const key of Object.keys(child)) {
        if (keys.size >= MAX_COLUMNS) break;
        keys.add(key);
      }
    }
  }
  if (records < 2) return undefined;
  const parts: ColumnParts = new Map();
  for (const key of keys) {
    const slots = children.map((child) => {
      if (Array.isArray(child) || isPlainObject(child)) {
        const record = child as Readonly<Record<string, unknown>>;
        if (!Object.hasOwn(record, key)) return undefined;
        // Strings only: a column of numbers is ids, counts and offsets far more often than parts.
        const member = record[key];
        return typeof member === 'number' ? undefined : scalarText(member);
      }
      return undefined;
    });
    for (const [index, found] of scanner.splitParts(slots, [contextKey, Array.isArray(children[0]) ? undefined : key], COLUMN_MIN_CONFIDENCE)) {
      const byKey = parts.get(index) ?? new Map<string, Detection[]>();
      byKey.set(key, found);
      parts.set(index, byKey);
    }
  }
  return parts.size > 0 ? parts : undefined;
}

/** A member's parts from its own container's runs and from its column (sorted by start). */
function mergedParts(own: readonly Detection[] | undefined, column: readonly Detection[] | undefined): readonly Detection[] | undefined {
  if (column === undefined) return own;
  if (own === undefined) return column;
  return [...own, ...column].sort((a, b) => a.start - b.start);
}

class JsonWalker {
  readonly entities: StructuredEntity[] = [];
  readonly #scanner: SlotScanner;
  readonly #maxDepth: number;

  constructor(scanner: SlotScanner, maxDepth: number) {
    this.#scanner = scanner;
    this.#maxDepth = maxDepth;
  }

  walk(
    value: unknown,
    path: string,
    errorPath: string,
    contextKey: string | undefined,
    depth: number,
    parts: readonly Detection[] = [],
    columns?: ReadonlyMap<string, Detection[]>,
  ): unknown {
    switch (typeof value) {
      case 'string': {
        const scan = this.#scanner.text(value, contextKey, parts);
        for (const entity of slotEntities(scan, value, path, false)) this.entities.push(entity);
        return scan.safeText;
      }
      case 'number': {
        const text = JSON.stringify(value);
        const scan = this.#scanner.number(text, contextKey, parts);
        if (!scan.changed) return value;
        for (const entity of slotEntities(scan, text, path, false)) this.entities.push(entity);
        return scan.safeText;
      }
      case 'boolean':
        return value;
      case 'object':
        break;
      default:
        throw new VeilError('VEIL_VALIDATION_FAILED', `${errorPath}: holds a value that is not JSON`);
    }
    if (value === null) return null;
    if (depth >= this.#maxDepth) throw nestedTooDeep(errorPath, this.#maxDepth);
    if (Array.isArray(value)) {
      const items = value as unknown[];
      const split = this.#scanner.splitParts(items.map(scalarText), [contextKey]);
      const across = columnParts(this.#scanner, items, contextKey);
      const out = new Array<unknown>(items.length);
      for (let index = 0; index < items.length; index += 1) {
        const own = mergedParts(split.get(index), columns?.get(String(index)));
        out[index] = this.walk(items[index], childPointer(path, index), `${errorPath}/${index}`, contextKey, depth + 1, own, across?.get(index));
      }
      return out;
    }
    if (!isPlainObject(value)) throw new VeilError('VEIL_VALIDATION_FAILED', `${errorPath}: holds a value that is not JSON`);
    const out: Record<string, unknown> = {};
    const seen = new Set<string>();
    const keys = Object.keys(value);
    const split = this.#scanner.splitParts(keys.map((key) => scalarText(value[key])), [contextKey, ...keys]);
    const across = columnParts(this.#scanner, keys.map((key) => value[key]), contextKey);
    for (const [index, key] of keys.entries()) {
      const scan = this.#scanner.text(key);
      const safeKey = scan.safeText;
      if (seen.has(safeKey)) {
        throw new VeilError(
          'VEIL_VALIDATION_FAILED',
          `${errorPath}: two keys of this object become the same key once tokenized; the structure would change`,
        );
      }
      seen.add(safeKey);
      const memberPath = childPointer(path, safeKey);
      for (const entity of slotEntities(scan, key, memberPath, true)) this.entities.push(entity);
      const memberErrorPath = `${errorPath}/${nameForError(safeKey)}`;
      const own = mergedParts(split.get(index), columns?.get(key));
      setMember(out, safeKey, this.walk(value[key], memberPath, memberErrorPath, key, depth + 1, own, across?.get(index)));
    }
    return out;
  }
}

/**
 * Tokenize a JSON value (check it with checkJsonDocument or a StructuredBudget first). Returns
 * the safe document and its entities; the scanner holds the totals and the new session entries.
 */
export function tokenizeJsonDocument(value: unknown, scanner: SlotScanner, options: JsonWalkOptions = {}): StructuredResult<unknown> {
  const walker = new JsonWalker(scanner, options.maxDepth ?? STRUCTURED_LIMITS.maxDepth);
  const safe = walker.walk(value, options.basePath ?? '', options.errorPath ?? 'input_json', undefined, 0);
  return { value: safe, entities: walker.entities };
}
