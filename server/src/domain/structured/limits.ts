// Bounds of a structured document (interface.md 4.1 JSON rule 5 and section 8): at most 64
// nesting levels, 10,000 scannable slots (string values, object keys and numbers) and 1 MB of
// scanned text, counted before any detection runs. Exceeding a bound fails closed with
// 413 VEIL_PAYLOAD_TOO_LARGE naming the bound (json-depth.ts: one answer for every structure bound). The walk is iterative, so a document nested far deeper
// than the bound (or a cyclic object handed in by a library caller) is refused, not recursed.
import { VeilError } from '@veil/common';
import { nestedTooDeep, structureBoundExceeded } from '../json-depth.js';

export interface StructuredLimits {
  /** Deepest container nesting: a top-level object or array is level 1. */
  readonly maxDepth: number;
  /** String values, object keys and numbers, summed over the whole request. */
  readonly maxSlots: number;
  /**
   * Scanned text in UTF-16 code units (JavaScript string length), summed over every slot. A
   * number counts the length of its JSON text. 1 MB is read as 1,048,576 code units: for ASCII
   * text that is exactly 1 MiB of UTF-8, for other scripts it is fewer code units than bytes
   * would allow, never more.
   */
  readonly maxScannedChars: number;
}

export const STRUCTURED_LIMITS: StructuredLimits = Object.freeze({
  maxDepth: 64,
  maxSlots: 10_000,
  maxScannedChars: 1_048_576,
});

/**
 * One request's budget. JSON mode charges one document; chat mode charges every text field and
 * every tool-call arguments document of every message against the same budget.
 */
export class StructuredBudget {
  readonly limits: StructuredLimits;
  /** The request field named in limit errors (`input_json`, `input_messages`). */
  readonly #field: string;
  #slots = 0;
  #chars = 0;

  constructor(field: string, limits: StructuredLimits = STRUCTURED_LIMITS) {
    this.#field = field;
    this.limits = limits;
  }

  get slots(): number {
    return this.#slots;
  }

  get scannedChars(): number {
    return this.#chars;
  }

  /** Charge one scannable slot of `length` code units. */
  chargeSlot(length: number): void {
    this.#slots += 1;
    this.#chars += length;
    if (this.#slots > this.limits.maxSlots) {
      throw structureBoundExceeded(`${this.#field}: more than ${this.limits.maxSlots} scannable values (strings, keys and numbers)`);
    }
    if (this.#chars > this.limits.maxScannedChars) {
      throw structureBoundExceeded(`${this.#field}: more than ${this.limits.maxScannedChars} characters of text to scan`);
    }
  }

  /**
   * Validate that `value` is plain JSON data and charge all of its slots. `where` names the
   * value in errors (a field name and pointer built from safe names only). Throws
   * VEIL_PAYLOAD_TOO_LARGE for a bound and VEIL_VALIDATION_FAILED for a non-JSON value.
   */
  chargeDocument(value: unknown, where: string): void {
    const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
    while (stack.length > 0) {
      const { value: current, depth } = stack.pop()!;
      switch (typeof current) {
        case 'string':
          this.chargeSlot(current.length);
          continue;
        case 'number':
          if (!Number.isFinite(current)) throw new VeilError('VEIL_VALIDATION_FAILED', `${where}: numbers must be finite`);
          this.chargeSlot(JSON.stringify(current).length);
          continue;
        case 'boolean':
          continue;
        case 'object':
          break;
        default:
          throw new VeilError('VEIL_VALIDATION_FAILED', `${where}: holds a value that is not JSON`);
      }
      if (current === null) continue;
      if (depth + 1 > this.limits.maxDepth) {
        throw nestedTooDeep(where, this.limits.maxDepth);
      }
      if (Array.isArray(current)) {
        for (const item of current as unknown[]) stack.push({ value: item, depth: depth + 1 });
        continue;
      }
      if (!isPlainObject(current)) throw new VeilError('VEIL_VALIDATION_FAILED', `${where}: holds a value that is not JSON`);
      for (const key of Object.keys(current)) {
        this.chargeSlot(key.length);
        stack.push({ value: current[key], depth: depth + 1 });
      }
    }
  }
}

/** An object literal or JSON.parse result (prototype Object.prototype or null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
