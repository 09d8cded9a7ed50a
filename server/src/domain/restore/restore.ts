// Renders one token's value under its resolved restore mode (interface.md 2.7, 2.8). Pure: the
// mode was already resolved by the policy engine (floor, overrides, channel ceiling) and
// revocation (`[DELETED]`) is decided by the caller. Every result passes the bidi rule.
import type { RestoreMode, RestoreStrategy } from '@veil/common';
import { applyBidiRule } from './bidi.js';
import { formatValue } from './formatted.js';
import { BUILTIN_ABSTRACT_LABELS, GENERIC_LABEL_KEY } from './labels.js';
import { maskValue } from './mask.js';
import { applyStrategy, defaultPartial, guard, primaryLanguage } from './partial.js';

/** Literal restored for mode `none`. */
export const REDACTED = '[REDACTED]';

/** Config `restore_templates` (decisions.md section 10). */
export interface RestoreTemplates {
  /** Default partial strategy per entity type (`email`, `custom:ticket_id` or bare `ticket_id`). */
  readonly partial_formats?: Readonly<Record<string, RestoreStrategy>>;
  /** Extra or overriding abstract labels: language -> entity type (or `_generic`) -> label, used verbatim. */
  readonly abstract_labels?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

export interface RestoreOptions {
  /** Session language (BCP 47 or ISO 639-1), for abstract labels and name order. */
  readonly language: string;
  /** The policy rule's strategy; wins over templates.partial_formats. */
  readonly strategy?: RestoreStrategy;
  readonly templates?: RestoreTemplates;
}

const CUSTOM_PREFIX = 'custom:';

function ownLookup<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Keys a type may be configured under: `custom:ticket_id` also as `ticket_id`. */
function typeKeys(type: string): string[] {
  return type.startsWith(CUSTOM_PREFIX) ? [type, type.slice(CUSTOM_PREFIX.length)] : [type];
}

function templateStrategy(type: string, templates: RestoreTemplates | undefined): RestoreStrategy | undefined {
  for (const key of typeKeys(type)) {
    const strategy = ownLookup(templates?.partial_formats, key);
    if (strategy !== undefined) return strategy;
  }
  return undefined;
}

/**
 * Localized abstract label. Order: configured label for the type, built-in label for the type,
 * configured generic label, built-in generic label of the language; an unknown language falls
 * back to the English generic label.
 */
export function abstractLabel(type: string, language: string, templates?: RestoreTemplates): string {
  const tag = language.toLowerCase().replaceAll('_', '-');
  const primary = primaryLanguage(language);
  const configured = [ownLookup(templates?.abstract_labels, tag), ownLookup(templates?.abstract_labels, primary)];
  const builtin = BUILTIN_ABSTRACT_LABELS.get(primary);
  for (const key of typeKeys(type)) {
    for (const labels of configured) {
      const label = ownLookup(labels, key);
      if (label !== undefined) return label;
    }
  }
  const builtinType = builtin?.get(type);
  if (builtinType !== undefined) return builtinType;
  for (const labels of configured) {
    const label = ownLookup(labels, GENERIC_LABEL_KEY);
    if (label !== undefined) return label;
  }
  const builtinGeneric = builtin?.get(GENERIC_LABEL_KEY);
  if (builtinGeneric !== undefined) return builtinGeneric;
  return ownLookup(ownLookup(templates?.abstract_labels, 'en'), GENERIC_LABEL_KEY) ?? BUILTIN_ABSTRACT_LABELS.get('en')!.get(GENERIC_LABEL_KEY)!;
}

function render(entry: { type: string; value: string }, mode: RestoreMode, options: RestoreOptions): string {
  const { type, value } = entry;
  switch (mode) {
    case 'full':
      return value;
    case 'none':
      return REDACTED;
    case 'formatted':
      return formatValue(type, value);
    case 'masked':
      return maskValue(type, value);
    case 'abstract':
      return abstractLabel(type, options.language, options.templates);
    case 'partial': {
      const strategy = options.strategy ?? templateStrategy(type, options.templates);
      if (strategy !== undefined) return guard(type, value, applyStrategy(type, value, strategy));
      return defaultPartial(type, value, options.language);
    }
  }
}

/** Render one value under a resolved restore mode, then apply the bidi rule. */
export function restoreValue(entry: { type: string; value: string }, mode: RestoreMode, options: RestoreOptions): string {
  return applyBidiRule(render(entry, mode, options));
}
