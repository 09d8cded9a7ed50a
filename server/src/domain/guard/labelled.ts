// Values a model labels in its own words (issue 18 item 8): the output guard's recall on top of
// the detectors, for shapes detection alone does not accept because nothing but the label says
// what they are, and in model output a label is what the model tells the reader:
//
//   password  "the admin password is Rp34s!BGt4AZ", "Das Passwort lautet …", "mot de passe : …":
//             a password word, an optional verb or colon, then one run of 6-64 characters mixing
//             letters with digits or symbols (a word such as "incorrect" is prose);
//   api_key   a secret word (token, key, secret, credential, bearer) at most 40 characters
//             before a run of 24 or more characters that looks random (highEntropy: mixed
//             letters and digits, 3.5 bits per character) and is not hexadecimal (hashes);
//   phone     a number of 7 to 15 digits that is valid written internationally with '+' or 00
//             ("+31 (0)20 …" included), or, after a phone word (detect/context.ts PHONE_CONTEXT
//             plus "number", "numéro", "text me", ...) or an e-mail address (a contact record)
//             at most 48 characters before it, valid internationally without '+' or nationally
//             in one of the PHONE_REGIONS: a model writes numbers of any country, whatever the
//             session's language.
// Pure; linear in the text (each regex is anchored on its label and bounded).
import { contextWords, PHONE_CONTEXT } from '../detect/context.js';
import { highEntropy } from '../detect/password.js';
import { checkInternational, checkNational } from '../detect/phone-metadata.js';
import type { Detection } from '../types.js';
import { isPlaceholderValue } from './risk.js';
import { guardView } from './view.js';

/** Regions a labelled national number is checked in (the catalog's phone languages). */
const PHONE_REGIONS = ['US', 'GB', 'DE', 'FR', 'ES', 'IT', 'NL', 'BE', 'PT', 'PL', 'AT', 'CH', 'IE', 'SE', 'DK', 'NO', 'FI', 'CZ', 'AU', 'IN', 'BR', 'MX', 'CA'];

const PASSWORD = /(?<![\p{L}\p{N}])(?:password|passwort|kennwort|passcode|passphrase|mot de passe|contraseña|contrasena|senha|wachtwoord|hasło|lösenord|adgangskode|salasana)(?:\s+(?:is|was|lautet|ist|war|est|était|es|era|è|é|is:|:)|\s*[:=])?\s+[`"'“«]?([^\s`"'”»]{6,64})/giu;
const SECRET_WORD = /(?<![\p{L}\p{N}])(?:token|key|secret|credential|credentials|bearer|api key|apikey|access key|schlüssel|clé|clave|chiave)(?![\p{L}\p{N}])/giu;
const MAX_SECRET = 512;
// No g flag: exec() then neither reads nor writes lastIndex.
const SECRET_RUN = /[A-Za-z0-9+/=_.-]{24,512}/;
const PHONE_RUN = /(?<![\p{L}\p{N}+])(\+|00)?(?:\(?\d[\d\s().\-/]{5,22}\d)(?![\p{N}])/gu;

/**
 * Label words that can start a PASSWORD or SECRET_WORD match in a text of ASCII characters only,
 * lower case: every ASCII keyword of the regex contains one of them (`pass` covers password,
 * passwort, passcode, passphrase and mot de passe; `key` covers api key, apikey and access key).
 * The keywords with other letters (contraseña, hasło, lösenord, schlüssel, clé) cannot match
 * ASCII text: under the regexes' `iu` flags a letter matches only the letters it case-folds
 * with, and none of theirs is ASCII; the ASCII letters that fold with something else (k with
 * the Kelvin sign, s with the long s) fold with letters outside ASCII, absent from such a text.
 */
const PASSWORD_STEMS = ['pass', 'kennwort', 'contrasena', 'senha', 'wachtwoord', 'adgangskode', 'salasana'];
const SECRET_STEMS = ['token', 'key', 'secret', 'credential', 'bearer', 'clave', 'chiave'];
/** A UTF-16 unit outside ASCII (surrogates included). */
const NON_ASCII = /[\u0080-\uffff]/;

/**
 * Whether a label regex with these stems needs to run on `text` (`lower`: the text in lower
 * case when it is all ASCII, else undefined). Most model outputs name no password or secret
 * label: the two regexes, each a Unicode lookbehind tried at every position (~3 µs per KB),
 * are then skipped after a few substring searches of the lower-cased text (issue 20).
 */
function mayHaveLabel(lower: string | undefined, stems: readonly string[]): boolean {
  return lower === undefined || stems.some((stem) => lower.includes(stem));
}

/** Shapes that are something else: dates (2024-02-29, 03.12.2024, 2016/679), dotted quads. */
const NOT_A_PHONE = /^(?:\d{4}[-/.]\d{1,3}(?:[-/.]\d{1,2})?|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}|\d{1,3}(?:\.\d{1,3}){3})$/;

const SECRET_DISTANCE = 40;
const PHONE_DISTANCE = 48;
/** Phone words of the detectors plus the ones people use for a number in a sentence. */
const PHONE_LABELS = contextWords([
  ...PHONE_CONTEXT.words, 'number', 'numbers', 'numéro', 'número', 'numero', 'nummer', 'nr', 'text', 'texts', 'reach', 'ring', 'dial',
  'anrufen', 'erreichen', 'appeler', 'joindre', 'llamar', 'chiamare', 'ligar', 'bellen', 'mobile', 'landline',
]);
/** An e-mail address shortly before a number: a contact record (name, e-mail, phone). */
const EMAIL_BEFORE = /[^\s@]+@[^\s@]+\.[\p{L}]{2,}/u;

function mixesClasses(value: string): boolean {
  const letter = /\p{L}/u.test(value);
  const other = /[\p{N}\p{P}\p{S}]/u.test(value);
  return letter && other;
}

/** A value's span without trailing sentence punctuation. */
function trimmed(text: string, start: number, end: number): number {
  let stop = end;
  while (stop > start && /[.,;:!?)\]]/.test(text[stop - 1]!)) stop--;
  return stop;
}

function passwords(text: string, out: Detection[]): void {
  for (const match of text.matchAll(PASSWORD)) {
    const value = match[1]!;
    const start = match.index + match[0].length - value.length;
    const end = trimmed(text, start, start + value.length);
    const body = text.slice(start, end);
    if (body.length < 6 || !mixesClasses(body) || isPlaceholderValue(body, 'password')) continue;
    out.push({ type: 'password', start, end, value: body, confidence: 0.8, detector: 'builtin_regex' });
  }
}

function secrets(text: string, out: Detection[]): void {
  for (const label of text.matchAll(SECRET_WORD)) {
    const from = label.index + label[0].length;
    // Bounded window: a label never makes the search run to the end of the text.
    const window = text.slice(from, from + SECRET_DISTANCE + MAX_SECRET);
    const run = SECRET_RUN.exec(window);
    if (run === null || run.index > SECRET_DISTANCE) continue;
    const start = from + run.index;
    const end = trimmed(text, start, start + run[0].length);
    const value = text.slice(start, end);
    if (/^[0-9a-f]+$/i.test(value) || !highEntropy(value) || isPlaceholderValue(value)) continue;
    out.push({ type: 'api_key', start, end, value, confidence: 0.75, detector: 'builtin_regex' });
  }
}

function validPhone(digits: string, international: boolean): boolean {
  if (digits.length < 7 || digits.length > 15) return false;
  if (international) return checkInternational(digits).valid;
  if (checkInternational(digits).valid) return true;
  return PHONE_REGIONS.some((region) => checkNational(digits, region).valid);
}

function phones(text: string, out: Detection[]): void {
  for (const run of text.matchAll(PHONE_RUN)) {
    const start = run.index;
    // No double separators or line breaks inside one number.
    const end = trimmed(text, start, start + run[0].length);
    const raw = text.slice(start, end);
    if (/\s\s|\n|[-./]{2}/.test(raw) || NOT_A_PHONE.test(raw)) continue;
    const international = run[1] !== undefined;
    const before = text.slice(Math.max(0, start - PHONE_DISTANCE), start);
    if (!international && !PHONE_LABELS.matcher.test(before) && !EMAIL_BEFORE.test(before)) continue;
    // "+31 (0)20 …": the national trunk prefix in parentheses is not dialled internationally.
    const digits = (international ? raw.replace(/\(0\)/, '') : raw).replace(/\D/g, '').replace(/^00/, '');
    if (!validPhone(digits, international)) continue;
    out.push({ type: 'phone', start, end, value: raw, confidence: 0.7, detector: 'builtin_regex' });
  }
}

/**
 * Labelled values in `text` (UTF-16 offsets into `text`), unsorted, possibly overlapping each
 * other or the detectors' findings (the caller merges).
 */
export function labelledValues(text: string): Detection[] {
  return collect(text, true);
}

/** labelledValues without the label pre-test (mayHaveLabel): every regex runs. The reference its tests compare with. */
export function labelledValuesUnscreened(text: string): Detection[] {
  return collect(text, false);
}

function collect(text: string, screen: boolean): Detection[] {
  const view = guardView(text);
  const found: Detection[] = [];
  const lower = !screen || NON_ASCII.test(view.text) ? undefined : view.text.toLowerCase();
  if (mayHaveLabel(lower, PASSWORD_STEMS)) passwords(view.text, found);
  if (mayHaveLabel(lower, SECRET_STEMS)) secrets(view.text, found);
  phones(view.text, found);
  if (view.identity) return found;
  return found.map((item) => {
    const span = view.originalSpan(item.start, item.end);
    return { ...item, start: span.start, end: span.end, value: text.slice(span.start, span.end) };
  });
}
