// One scannable slot of a structured document (a string value, an object key, a number) goes
// through detection and tokenization exactly as text mode does, through one shared allocator,
// so the same value anywhere in the document (or across chat messages) gets the same token.
// Pure: detection, policy and allocation are passed in.
import type { CompiledPolicy } from '../policy/index.js';
import { utf16ToCodePoints } from '../text/codepoints.js';
import type { TokenAllocator } from '../token/index.js';
import { tokenizeText, type TokenizedEntity } from '../tokenize.js';
import type { Detection, RequestContext, RestoreMode, TokenEntry } from '../types.js';
import { findTokens } from '../token/index.js';
import { splitValueParts, wholeOf } from './joins.js';
import { keyedDetection, keyedType } from './key-types.js';

/**
 * Lowest confidence at which a number is treated as personal data. A bare number carries no
 * formatting, so checksum-only matches at low confidence (a 9-digit count that happens to pass
 * a national-id checksum) would otherwise turn ordinary numeric fields into strings; the
 * detector's default reporting threshold (interface.md 4.5) is the bar instead.
 */
export const NUMBER_MIN_CONFIDENCE = 0.5;

/** Longest member key used as detection context for a number. */
const MAX_CONTEXT_KEY = 64;

/** One entity of a structured transform, as the response reports it. */
export interface StructuredEntity {
  readonly token: string;
  readonly type: string;
  readonly protection_level: string;
  readonly action_applied: 'tokenize' | 'redact';
  readonly confidence: number;
  readonly detector: string;
  /** Code points, end exclusive, relative to the string (or number text) it was found in. */
  readonly span: { readonly start: number; readonly end: number };
  /** JSON Pointer of the value (or, with in_key, of the member whose key held the entity). */
  readonly path: string;
  /** Present (true) when the entity was found in an object key rather than a value. */
  readonly in_key?: true;
}

export interface SlotScan {
  readonly safeText: string;
  /**
   * The text detection ran on when the scanner's `screen` changed the slot (prompt security
   * stripped it); entity offsets refer to it. Absent when the slot was scanned as given.
   */
  readonly source?: string;
  /** True when the slot was tokenized or redacted anywhere. */
  readonly changed: boolean;
  readonly entities: readonly TokenizedEntity[];
}

export interface SlotScannerOptions {
  /** Detection over one string: sorted, non-overlapping detections (detectAll's contract). */
  readonly detect: (text: string) => readonly Detection[];
  /**
   * Detection over a string slot (a value or a key), when it differs from `detect`, which then
   * serves numbers only: string slots also get NER, numbers never do. Same contract.
   */
  readonly detectText?: ((text: string) => readonly Detection[]) | undefined;
  readonly policy: CompiledPolicy;
  readonly context: RequestContext;
  readonly allocator: TokenAllocator;
  readonly protectionOverrides?: Readonly<Record<string, RestoreMode>> | undefined;
  /**
   * Runs on every string slot (values and keys, not numbers) before detection: prompt security.
   * Returns the text to detect on (it may throw to refuse the request).
   */
  readonly screen?: ((text: string) => string) | undefined;
}

/**
 * `customerPhone`, `phone_number`, `card-no` read as words, so detector context words match; a
 * plural key (`phones`, `ssns`) also gets its singular, since context words are singular.
 */
export function contextWords(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-.]+/g, ' ')
    .toLowerCase()
    .split(' ')
    .filter((word) => word.length > 0);
  const singular = words.map((word) => (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word));
  return singular.join(' ') === words.join(' ') ? words.join(' ') : `${words.join(' ')} ${singular.join(' ')}`;
}

/** Longest run of context words before a run of joined members. */
const MAX_JOIN_CONTEXT = 160;

/** Longest string value that is also read with its member key as context. */
const MAX_KEYED_VALUE = 256;

/** `<key words>: ` for a member key that can serve as context, else ''. */
function keyPrefix(contextKey: string | undefined): string {
  return contextKey !== undefined && contextKey.length > 0 && contextKey.length <= MAX_CONTEXT_KEY ? `${contextWords(contextKey)}: ` : '';
}

/**
 * The keyed detections, then every own detection of the value that overlaps none of them
 * (NER spans, low-confidence patterns); sorted and non-overlapping like detectAll's.
 */
export function preferKeyed(keyed: readonly Detection[], own: readonly Detection[]): readonly Detection[] {
  if (keyed.length === 0) return own;
  const kept = own.filter((detection) => !keyed.some((k) => k.start < detection.end && detection.start < k.end));
  const merged = [...keyed, ...kept].sort((a, b) => a.start - b.start);
  // belongs_to indexes the value's own array: point it at the owner's new place, or drop it
  // when the owner gave way to a keyed detection.
  const place = new Map<Detection, number>(merged.map((detection, index) => [detection, index]));
  return merged.map((detection) => {
    if (detection.belongs_to === undefined) return detection;
    const owner = own[detection.belongs_to];
    const index = owner === undefined ? undefined : place.get(owner);
    const { belongs_to: _link, ...rest } = detection;
    return index === undefined ? rest : { ...rest, belongs_to: index };
  });
}

interface Cached {
  readonly scan: SlotScan;
  readonly detected: number;
  readonly transformed: number;
  readonly blocked: number;
}

/** Scans slots and keeps the request's running totals and new session entries. */
export class SlotScanner {
  readonly #options: SlotScannerOptions;
  /** Repeated strings (keys above all) are detected once: same text, same tokens. */
  readonly #cache = new Map<string, Cached>();
  readonly #newEntries: TokenEntry[] = [];
  /** Entry id -> the whole values it is a part of (split values, joins.ts). */
  readonly #wholes = new Map<string, Set<string>>();
  #detected = 0;
  #transformed = 0;
  #blocked = 0;

  constructor(options: SlotScannerOptions) {
    this.#options = options;
  }

  /** Detections over all slots scanned so far (every occurrence counts). */
  get detected(): number {
    return this.#detected;
  }

  get transformed(): number {
    return this.#transformed;
  }

  get blocked(): number {
    return this.#blocked;
  }

  /** Session entries created so far (values first seen in this session). */
  get newEntries(): readonly TokenEntry[] {
    return this.linked(this.#newEntries);
  }

  /**
   * `entries` (this request's new ones, or the continued session's) with the wholes each part
   * belongs to added (TokenEntry.wholes), so revoking a whole erases the part: a part first
   * tokenized in an earlier turn is linked to the wholes of this one too.
   */
  linked(entries: readonly TokenEntry[]): readonly TokenEntry[] {
    if (this.#wholes.size === 0) return entries;
    return entries.map((entry) => {
      const wholes = this.#wholes.get(entry.id);
      return wholes === undefined ? entry : { ...entry, wholes: [...new Set([...(entry.wholes ?? []), ...wholes])] };
    });
  }

  /**
   * A string value or an object key. A short value under a member key is also read as
   * `<key words>: <value>` (like a number), so the key works as a context word for the pattern
   * detectors: `{"password": "hunter2x"}`, `{"ssn": "078051120"}`, `{"api_key": "Zx81…"}` are
   * what `password: hunter2x` is in text. Those detections win where they overlap the value's own.
   * A key that names a person's name, an address or a company (key-types.ts) makes the whole
   * value one, when nothing found it whole.
   */
  text(value: string, contextKey?: string, parts: readonly Detection[] = []): SlotScan {
    // Screened on every occurrence (its findings count each time), detected once per text.
    const screened = this.#options.screen !== undefined && value.length > 0 ? this.#options.screen(value) : value;
    const prefix = screened.length > 0 && screened.length <= MAX_KEYED_VALUE ? keyPrefix(contextKey) : '';
    const cacheKey = prefix === '' ? screened : `${prefix}\u0000${screened}`;
    // Parts of a split value (joins.ts) hold for this occurrence only: never cached, and only
    // over the text they were found in (prompt security may have changed the slot).
    const split = screened === value ? parts : [];
    const cached = split.length === 0 ? this.#cache.get(cacheKey) : undefined;
    if (cached !== undefined) return this.#count(cached, screened !== value ? screened : undefined);
    let detections = screened.length === 0 ? [] : (this.#options.detectText ?? this.#options.detect)(screened);
    if (prefix !== '') detections = preferKeyed(this.#keyed(prefix, screened), detections);
    // A name, an address or a company under a key that says so, which nothing else found whole.
    const named = prefix === '' ? undefined : keyedType(prefix.slice(0, -2));
    if (named !== undefined && !detections.some((d) => d.type === named && d.end - d.start >= screened.trim().length)) {
      const whole = keyedDetection(named, screened);
      if (whole !== undefined) detections = preferKeyed([whole], detections);
    }
    if (split.length > 0) return this.#count(this.#tokenize(screened, withParts(screened, split, detections), split));
    const result = this.#tokenize(screened, detections);
    this.#cache.set(cacheKey, result);
    return this.#count(result, screened !== value ? screened : undefined);
  }

  /**
   * A numeric leaf, given as its JSON text. Detection runs on `<key words>: <number>` so the
   * member key works as a context word (`phone: 4155552671`); only detections inside the number
   * at NUMBER_MIN_CONFIDENCE or above count. The caller turns a changed number into a string.
   */
  number(numberText: string, contextKey: string | undefined, parts: readonly Detection[] = []): SlotScan {
    const prefix = keyPrefix(contextKey);
    let detections: readonly Detection[] = this.#keyed(prefix, numberText);
    if (detections.length === 0 && prefix !== '') detections = this.#padded(prefix, numberText);
    return this.#count(this.#tokenize(numberText, withParts(numberText, parts, detections), parts));
  }

  /**
   * A JSON number drops leading zeros: `{"ssn": 78051120}` is SSN 078-05-1120, `{"phone":
   * 7700900123}` the UK mobile 07700 900123. An integer of six digits or more under a member key
   * is also read with one and two zeros restored; a detection of the whole padded number (the key
   * being the context, at NUMBER_MIN_CONFIDENCE or above) makes it that value, padded, since that
   * is the value the number stood for (and what a revocation of it names).
   */
  #padded(prefix: string, numberText: string): Detection[] {
    if (!/^[1-9]\d{5,}$/.test(numberText)) return [];
    for (const zeros of ['0', '00']) {
      const padded = zeros + numberText;
      const whole = this.#keyed(prefix, padded).find((detection) => detection.start === 0 && detection.end === padded.length);
      if (whole !== undefined) return [{ ...whole, start: 0, end: numberText.length, value: padded }];
    }
    return [];
  }

  /**
   * Parts of values split across the scalar members of one container (joins.ts), per member
   * index; `keys` (the container's own key, then its members' keys) are read as context words.
   */
  splitParts(slots: readonly (string | null | undefined)[], keys: readonly (string | undefined)[], minConfidence = NUMBER_MIN_CONFIDENCE): Map<number, Detection[]> {
    const words = keys
      .filter((key): key is string => key !== undefined && key.length > 0 && key.length <= MAX_CONTEXT_KEY)
      .map(contextWords)
      .join(' ')
      .slice(0, MAX_JOIN_CONTEXT);
    return splitValueParts(slots, words, this.#options.detect, minConfidence);
  }

  /** Pattern detections inside `text` when read after `prefix`, at NUMBER_MIN_CONFIDENCE or above. */
  #keyed(prefix: string, text: string): Detection[] {
    const shifted: Detection[] = [];
    for (const detection of this.#options.detect(prefix + text)) {
      if (detection.start < prefix.length || detection.confidence < NUMBER_MIN_CONFIDENCE) continue;
      // belongs_to indexes the detections of the prefixed text; it does not carry over.
      const { belongs_to: _link, ...rest } = detection;
      shifted.push({ ...rest, start: detection.start - prefix.length, end: detection.end - prefix.length });
    }
    return shifted;
  }

  #tokenize(text: string, detections: readonly Detection[], parts: readonly Detection[] = []): Cached {
    if (detections.length === 0) return { scan: { safeText: text, changed: false, entities: [] }, detected: 0, transformed: 0, blocked: 0 };
    const result = tokenizeText({
      text,
      detections,
      policy: this.#options.policy,
      context: this.#options.context,
      allocator: this.#options.allocator,
      protectionOverrides: this.#partOverrides(parts),
    });
    for (const entry of result.newEntries) this.#newEntries.push(entry);
    if (parts.length > 0) this.#linkWholes(result.entities, parts);
    return {
      scan: { safeText: result.safeText, changed: result.transformed + result.blocked > 0, entities: result.entities },
      detected: detections.length,
      transformed: result.transformed,
      blocked: result.blocked,
    };
  }

  /** Record, for each token a part of a split value became, the whole value it is a part of. */
  #linkWholes(entities: readonly TokenizedEntity[], parts: readonly Detection[]): void {
    for (const entity of entities) {
      if (entity.action_applied !== 'tokenize') continue;
      const id = findTokens(entity.token)[0]?.token?.id;
      if (id === undefined) continue;
      for (const part of parts) {
        const whole = wholeOf(part);
        if (whole === undefined || part.type !== entity.type || part.end <= entity.start || entity.end <= part.start) continue;
        const set = this.#wholes.get(id) ?? new Set<string>();
        set.add(whole);
        this.#wholes.set(id, set);
      }
    }
  }

  /**
   * The request's overrides, tightened for the types of a split value's parts: a `partial` rule
   * (last four digits, the domain of an e-mail) applied to each part on its own would reveal
   * every part, so a part restores `masked` where the whole would restore `partial`.
   */
  #partOverrides(parts: readonly Detection[]): Readonly<Record<string, RestoreMode>> | undefined {
    const base = this.#options.protectionOverrides;
    if (parts.length === 0) return base;
    const overrides: Record<string, RestoreMode> = { ...base };
    for (const part of parts) {
      const decided = this.#options.policy.decide(part.type, this.#options.context, part.value).restore_mode;
      const own = overrides[part.type];
      if (decided === 'partial' && (own === undefined || own === 'full' || own === 'formatted' || own === 'partial')) overrides[part.type] = 'masked';
    }
    return overrides;
  }

  #count(cached: Cached, source?: string): SlotScan {
    this.#detected += cached.detected;
    this.#transformed += cached.transformed;
    this.#blocked += cached.blocked;
    return source === undefined ? cached.scan : { ...cached.scan, source };
  }
}

/**
 * A slot's detections with the parts of split values (joins.ts) added: a part an own detection
 * already covers whole is dropped; otherwise the part wins where they overlap.
 */
function withParts(text: string, parts: readonly Detection[], own: readonly Detection[]): readonly Detection[] {
  const needed: Detection[] = [];
  for (const part of parts) {
    if (own.some((detection) => detection.start <= part.start && part.end <= detection.end)) continue;
    // An own detection the part overlaps only in part would give way whole: the part grows over
    // it instead, so no character of either value is left raw.
    let { start, end } = part;
    for (const detection of own) {
      if (detection.start < end && start < detection.end) {
        start = Math.min(start, detection.start);
        end = Math.max(end, detection.end);
      }
    }
    const previous = needed.at(-1);
    if (previous !== undefined && start < previous.end) {
      needed[needed.length - 1] = { ...previous, end: Math.max(previous.end, end), value: text.slice(previous.start, Math.max(previous.end, end)) };
      continue;
    }
    needed.push({ ...part, start, end, value: text.slice(start, end) });
  }
  return preferKeyed(needed, own);
}

/**
 * Response entities for one slot: code-point spans within `source` (or within the screened
 * text, when prompt security changed the slot), tagged with `path`.
 */
export function slotEntities(scan: SlotScan, source: string, path: string, inKey: boolean): StructuredEntity[] {
  if (scan.entities.length === 0) return [];
  const offsets: number[] = [];
  for (const entity of scan.entities) offsets.push(entity.start, entity.end);
  const points = utf16ToCodePoints(scan.source ?? source, offsets);
  return scan.entities.map((entity, index) => ({
    token: entity.token,
    type: entity.type,
    protection_level: entity.protection_level,
    action_applied: entity.action_applied,
    confidence: entity.confidence,
    detector: entity.detector,
    span: { start: points[index * 2]!, end: points[index * 2 + 1]! },
    path,
    ...(inKey ? { in_key: true as const } : {}),
  }));
}
