// The `partial` restore mode: a deterministic subset of the value. Either a configured
// strategy (reveal_last_n, reveal_first_n, reveal_range, mask, bucket) or the per-type default.
// Everything fails closed: when a bounded subset cannot be produced, or the subset would be the
// whole value, the value is masked instead.
import type { RestoreStrategy } from '@veil/common';
import { codePoints, DEFAULT_MASK_CHAR, isSecretType, maskExcept, maskValue, SECRET_MASK } from './mask.js';

/** Languages whose personal names are written family name first (interface.md 2.7). */
export const FAMILY_FIRST_LANGUAGES: readonly string[] = Object.freeze(['zh', 'ja', 'ko', 'vi', 'hu']);
const FAMILY_FIRST: ReadonlySet<string> = new Set(FAMILY_FIRST_LANGUAGES);
/** Names written in these scripts are family-first whatever the request language. */
const FAMILY_FIRST_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** Primary language subtag, lowercase: `pt-BR` -> `pt`. */
export function primaryLanguage(language: string): string {
  return (language.split(/[-_]/)[0] ?? '').toLowerCase();
}

// ---------------------------------------------------------------------------------------------
// Strategies

/** Parse a numeric value for bucketing: currency signs and codes, spaces and thousand separators are ignored. */
export function parseNumeric(value: string): number | undefined {
  let text = value.trim().replace(/^[A-Z]{3}(?=[\s\d+-])|(?<=[\d\s])[A-Z]{3}$/u, '');
  text = text.replace(/[\p{Sc}\s'_\u00A0\u202F]/gu, '');
  let normalized: string | undefined;
  if (/^[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$/.test(text)) normalized = text.replaceAll(',', '');
  else if (/^[+-]?(?:\d{1,3}(?:\.\d{3})+|\d+)(?:,\d+)?$/.test(text)) normalized = text.replaceAll('.', '').replace(',', '.');
  if (normalized === undefined) return undefined;
  const number = Number(normalized);
  return Number.isFinite(number) ? number : undefined;
}

/** Apply a configured strategy; fails closed to a full mask. */
export function applyStrategy(type: string, value: string, strategy: RestoreStrategy): string {
  const chars = codePoints(value);
  switch (strategy.kind) {
    case 'reveal_last_n': {
      const maskChar = strategy.mask_char ?? DEFAULT_MASK_CHAR;
      if (chars.length <= strategy.n) return maskValue(type, value, maskChar);
      const from = chars.length - strategy.n;
      return maskExcept(type, chars, (index) => index >= from, maskChar);
    }
    case 'reveal_first_n': {
      const maskChar = strategy.mask_char ?? DEFAULT_MASK_CHAR;
      if (chars.length <= strategy.n) return maskValue(type, value, maskChar);
      return maskExcept(type, chars, (index) => index < strategy.n, maskChar);
    }
    case 'reveal_range': {
      const maskChar = strategy.mask_char ?? DEFAULT_MASK_CHAR;
      const end = strategy.start + strategy.len;
      if (strategy.start < 0 || strategy.len < 1 || end > chars.length || strategy.len >= chars.length) {
        return maskValue(type, value, maskChar);
      }
      return maskExcept(type, chars, (index) => index >= strategy.start && index < end, maskChar);
    }
    case 'mask':
      return maskValue(type, value);
    case 'bucket': {
      const number = parseNumeric(value);
      if (number === undefined) return maskValue(type, value);
      const range = strategy.ranges.find((candidate) => (candidate.min === undefined || number >= candidate.min) && (candidate.max === undefined || number < candidate.max));
      return range === undefined ? maskValue(type, value) : range.label;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Per-type defaults

function lastDigitsOnly(type: string, value: string, keep: number): string {
  const chars = codePoints(value);
  const digitPositions = chars.flatMap((char, index) => (/\d/.test(char) ? [index] : []));
  if (digitPositions.length <= keep) return maskValue(type, value);
  const revealFrom = digitPositions[digitPositions.length - keep]!;
  return chars.map((char, index) => (index >= revealFrom || !/[\p{L}\p{N}]/u.test(char) ? char : '*')).join('');
}

function partialEmail(value: string): string | undefined {
  const at = value.lastIndexOf('@');
  if (at < 0) return undefined;
  const local = codePoints(value.slice(0, at));
  const domain = value.slice(at + 1);
  if (domain === '') return undefined;
  return `${local[0] ?? ''}***@${domain}`;
}

function partialCard(value: string): string | undefined {
  const digits = value.replace(/\D/g, '');
  if (digits.length < 12) return undefined;
  return `**** **** **** ${digits.slice(-4)}`;
}

function partialIban(value: string): string | undefined {
  const compact = value.replace(/\s/g, '').toUpperCase();
  if (compact.length < 12 || !/^[A-Z]{2}/.test(compact)) return undefined;
  return `${compact.slice(0, 2)}${'*'.repeat(compact.length - 6)}${compact.slice(-4)}`;
}

function partialSsn(value: string): string | undefined {
  const digits = value.replace(/\D/g, '');
  if (digits.length !== 9) return undefined;
  return `***-**-${digits.slice(-4)}`;
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function partialIp(value: string): string | undefined {
  const trimmed = value.trim();
  const v4 = IPV4.exec(trimmed);
  if (v4 !== null) return `***.***.***.${v4[4]!}`;
  if (!trimmed.includes(':') || !/^[0-9a-fA-F:.]+$/.test(trimmed)) return undefined;
  const groups = trimmed.split(':');
  const last = groups.at(-1) ?? '';
  const tailV4 = IPV4.exec(last);
  const tail = tailV4 !== null ? `***.***.***.${tailV4[4]!}` : last;
  if (tail === '') return undefined;
  return [...groups.slice(0, -1).map((group) => (group === '' ? '' : '****')), tail].join(':');
}

const URL_HEAD = /^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)?(?:[^/?#@\s]*@)?([^/?#:@\s]+)/;

function partialUrl(value: string): string | undefined {
  const head = URL_HEAD.exec(value.trim());
  if (head === null) return undefined;
  return `${head[1] ?? ''}${head[2]!}`;
}

function partialDate(value: string): string | undefined {
  return /(?<!\d)\d{4}(?!\d)/.exec(value)?.[0];
}

function partialPerson(value: string, language: string): string | undefined {
  if (FAMILY_FIRST.has(primaryLanguage(language)) || FAMILY_FIRST_SCRIPT.test(value)) return undefined;
  const trimmed = value.trim();
  let given: string;
  let family: string | undefined;
  const comma = trimmed.indexOf(',');
  if (comma > 0) {
    // "Smith, John": family name first, then given names.
    family = trimmed.slice(0, comma).trim();
    given = trimmed.slice(comma + 1).trim();
  } else {
    const parts = trimmed.split(/\s+/);
    given = parts[0] ?? '';
    family = parts.length > 1 ? parts.at(-1) : undefined;
  }
  const initial = codePoints(given)[0];
  if (initial === undefined) return undefined;
  return family === undefined || family === '' ? `${initial}.` : `${initial}. ${family}`;
}

/** The per-type default subset (interface.md 2.7 leaves it to us; docs list these). */
export function defaultPartial(type: string, value: string, language: string): string {
  if (isSecretType(type)) return SECRET_MASK;
  let result: string | undefined;
  switch (type) {
    case 'email':
      result = partialEmail(value);
      break;
    case 'phone':
      return guard(type, value, lastDigitsOnly(type, value, 4));
    case 'credit_card':
      result = partialCard(value);
      break;
    case 'iban':
      result = partialIban(value);
      break;
    case 'us_ssn':
      result = partialSsn(value);
      break;
    case 'ip_address':
      result = partialIp(value);
      break;
    case 'url':
      result = partialUrl(value);
      break;
    case 'date':
      result = partialDate(value);
      break;
    case 'person':
      result = partialPerson(value, language);
      break;
    default: {
      const chars = codePoints(value);
      if (chars.length > 8) result = maskExcept(type, chars, (index) => index >= chars.length - 4, DEFAULT_MASK_CHAR);
    }
  }
  return result === undefined ? maskValue(type, value) : guard(type, value, result);
}

/** A partial result equal to the whole value (trimmed or not) reveals everything: mask instead. */
export function guard(type: string, value: string, result: string): string {
  return value !== '' && (result === value || result === value.trim()) ? maskValue(type, value) : result;
}
