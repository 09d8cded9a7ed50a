// A post-filter for NER spans: small English models tag field labels as names ("Email jane@…"
// makes "Email" a PERSON, "IBAN DE89…" makes "IBAN" an ORG). A person, organization or
// location whose whole text is one of the words the catalog itself uses to label identifiers
// (the context-word lists and the entity type names) AND that is directly followed by a value a
// regex detector found ("Email: jane@…", "IBAN DE89…") is such a label, not a name, so it is
// dropped. Both conditions, because a label word can also be a real name ("Tin" is a first
// name and an SSN context word): a name is dropped only where it stands as a field label.
// Whole-span matches only: "Maria Email" or "Phone House Ltd" stay.
import { ENTITY_CATALOG } from '../catalog.js';
import type { Detection } from '../types.js';
import { BIC_CONTEXT, CARD_CONTEXT, DATE_CONTEXT, PHONE_CONTEXT, SSN_CONTEXT } from './context.js';
import { ANY_ID_CONTEXT, SPECIFIC_ID_CONTEXT } from './id-context.js';

const NAME_TYPES = new Set(['person', 'organization', 'location']);

function normalized(text: string): string {
  return text
    .trim()
    .replace(/[\s:#.,;]+$/u, '')
    .replace(/\s+/gu, ' ')
    .toLowerCase();
}

/** Every word the catalog labels identifiers with, normalized. */
export const LABEL_WORDS: ReadonlySet<string> = new Set(
  [
    ...[PHONE_CONTEXT, SSN_CONTEXT, CARD_CONTEXT, DATE_CONTEXT, BIC_CONTEXT, ANY_ID_CONTEXT, SPECIFIC_ID_CONTEXT].flatMap((context) => context.words),
    ...[...ENTITY_CATALOG.keys()].flatMap((type) => [type, type.replaceAll('_', ' ')]),
    'e-mail',
    'mail',
    'email address',
    'e-mail address',
    'iban',
    'card',
    'credit card',
    'passport',
    'address',
  ]
    .map(normalized)
    .filter((word) => word !== ''),
);

/** Largest gap between a label and its value ("Email: " is two characters). */
export const LABEL_GAP = 3;

/** True when a NER span is a field label rather than a name: a label word right before a value. */
export function isLabelSpan(detection: Pick<Detection, 'type' | 'value' | 'end'>, valueStarts: ReadonlySet<number>): boolean {
  if (!NAME_TYPES.has(detection.type) || !LABEL_WORDS.has(normalized(detection.value))) return false;
  for (let gap = 0; gap <= LABEL_GAP; gap += 1) if (valueStarts.has(detection.end + gap)) return true;
  return false;
}

/** The NER detections minus field labels mistaken for names (`values`: the regex detections). */
export function dropLabelSpans<T extends Pick<Detection, 'type' | 'value' | 'end'>>(ner: readonly T[], values: readonly Pick<Detection, 'start'>[]): T[] {
  if (ner.length === 0 || values.length === 0) return [...ner];
  const starts = new Set(values.map((value) => value.start));
  return ner.filter((detection) => !isLabelSpan(detection, starts));
}
