// The value's word a reading of session 14 (wave13/evade) wants before a value that proves
// nothing by itself (markup-joined.ts, lookalike-worded.ts): an SSN's, a phone's, a card's, an
// IBAN's, a date's, an IP or MAC address's, a national id's context words, as the detectors use
// them. A type with none is not read so.
import { CARD_CONTEXT, contextWords, DATE_CONTEXT, hasWordBefore, IBAN_CONTEXT, PHONE_CONTEXT, SSN_CONTEXT, type ContextWords } from './context.js';
import { ID_CONTEXT } from './id-context.js';

/** The words of an IP or a MAC address. */
export const ADDRESS_CONTEXT: ContextWords = contextWords([
  'ip', 'ip address', 'ipv4', 'ipv6', 'ip addr', 'server', 'host', 'address', 'mac', 'mac address', 'hwaddr', 'ether', 'bssid', 'device',
]);

/** How far before the value its word may stand. */
export const VALUE_WORD_DISTANCE = 48;

/** The value words of `type`, or undefined (none: not read on a word). */
export function valueWordsFor(type: string): readonly ContextWords[] | undefined {
  switch (type) {
    case 'us_ssn':
    case 'us_itin':
      return [SSN_CONTEXT];
    case 'phone':
      return [PHONE_CONTEXT];
    case 'credit_card':
      return [CARD_CONTEXT];
    case 'iban':
      return [IBAN_CONTEXT];
    case 'date':
      return [DATE_CONTEXT];
    case 'ip_address':
    case 'mac_address':
      return [ADDRESS_CONTEXT];
    default: {
      const id = ID_CONTEXT[type];
      if (id === undefined) return undefined;
      return id.generic === undefined ? [id.specific] : [id.specific, id.generic];
    }
  }
}

/** A value word of `type` stands within VALUE_WORD_DISTANCE before `start`. */
export function hasValueWordBefore(text: string, type: string, start: number): boolean {
  const words = valueWordsFor(type);
  return words !== undefined && words.some((context) => hasWordBefore(text, start, VALUE_WORD_DISTANCE, context));
}
