// Member keys that say what a JSON string value is: `{"first_name": "Zyx"}`, `{"street":
// "12 Rue des Lilas"}`, `{"employer": "Qwerty GmbH"}`. In free text a name is found by the NER
// model from its context; in a record the key is the context, and a name the model does not
// know (or a lower-case one, or the regex-only detector mode) would go to the model raw.
//
// Only keys that name a person's name, a postal address or a place, or a company unambiguously:
// a bare `name` (a product, a file, a field) or `state` (a status) is not one.
import type { Detection } from '../types.js';

type KeyedType = 'person' | 'location' | 'organization';

/** Key words (contextWords of the key: lower case, separators and camelCase split) per type. */
const KEYS: Readonly<Record<KeyedType, readonly string[]>> = {
  person: [
    'first name', 'firstname', 'last name', 'lastname', 'surname', 'family name', 'given name', 'middle name', 'full name',
    'fullname', 'maiden name', 'customer name', 'contact name', 'patient name', 'employee name', 'holder name', 'cardholder name',
    'card holder', 'cardholder', 'account holder', 'recipient name', 'sender name', 'beneficiary name', 'person name',
    'display name', 'legal name', 'spouse name', 'guardian name', 'vorname', 'nachname', 'prénom', 'prenom', 'nom de famille',
    'nombre', 'apellido', 'apellidos', 'cognome', 'voornaam', 'achternaam', 'sobrenome',
  ],
  location: [
    'street', 'street address', 'address', 'address line', 'address line 1', 'address line 2', 'address1', 'address2',
    'addr', 'home address', 'billing address', 'shipping address', 'mailing address', 'postal address', 'residential address',
    'city', 'town', 'birthplace', 'place of birth', 'city of birth', 'strasse', 'straße', 'adresse', 'anschrift', 'wohnort',
    'rue', 'ville', 'calle', 'dirección', 'direccion', 'ciudad', 'indirizzo', 'città', 'citta', 'straat', 'adres',
    'woonplaats', 'plaats', 'morada', 'endereço', 'endereco', 'cidade',
  ],
  organization: [
    'company', 'company name', 'employer', 'employer name', 'organization', 'organisation', 'organization name',
    'organisation name', 'org name', 'business name', 'firm', 'firma', 'unternehmen', 'arbeitgeber', 'entreprise',
    'société', 'societe', 'employeur', 'empresa', 'empleador', 'azienda', 'datore di lavoro', 'bedrijf', 'werkgever',
  ],
};

const TYPE_OF_KEY: ReadonlyMap<string, KeyedType> = new Map(
  (Object.entries(KEYS) as [KeyedType, readonly string[]][]).flatMap(([type, words]) => words.map((word): [string, KeyedType] => [word, type])),
);

/** Longest value typed by its key alone: a name or an address, not a paragraph. */
const MAX_VALUE = 200;

/** Letters (any script), marks, digits, spaces and the punctuation of names and addresses; an address may start with its number. */
const NAME_LIKE = /^[\p{L}\p{M}][\p{L}\p{M}\p{N} .,'’\-/#°ºª&()]*$/u;
const ADDRESS_LIKE = /^[\p{L}\p{M}\p{N}][\p{L}\p{M}\p{N} .,'’\-/#°ºª&()]*$/u;
const HAS_LETTERS = /\p{L}.*\p{L}/u;

/**
 * The type a member key gives its string value (`keyWords`: the key as contextWords reads it,
 * "first name" for `firstName`), or undefined.
 */
export function keyedType(keyWords: string): KeyedType | undefined {
  return TYPE_OF_KEY.get(keyWords);
}

/**
 * A detection of the whole (trimmed) `value` as the type its key names, when the value looks like
 * a name, an address or a company (letters first, no line breaks, at most MAX_VALUE characters)
 * and is not a placeholder (`n/a`, `unknown`, `-`). Undefined otherwise.
 */
export function keyedDetection(type: KeyedType, value: string): Detection | undefined {
  const start = value.length - value.trimStart().length;
  const end = value.trimEnd().length;
  if (end - start < 2 || end - start > MAX_VALUE) return undefined;
  const text = value.slice(start, end);
  if (!(type === 'location' ? ADDRESS_LIKE : NAME_LIKE).test(text) || !HAS_LETTERS.test(text) || PLACEHOLDERS.has(text.toLowerCase())) return undefined;
  return { type, start, end, value: text, confidence: 0.8, detector: 'builtin_regex' };
}

const PLACEHOLDERS: ReadonlySet<string> = new Set([
  'n/a', 'na', 'none', 'null', 'unknown', 'tbd', 'todo', 'redacted', 'anonymous', 'test', 'example', 'string', 'name',
  'first name', 'last name', 'address', 'city', 'company',
]);
