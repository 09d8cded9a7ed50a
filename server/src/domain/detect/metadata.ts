// Entity metadata (interface.md 2.3, decisions.md section 7 metadata_policy): gender, formality,
// language, role and belongs_to, inferred from the words around the detections. Pure: the caller
// passes the text, the final (non-overlapping, sorted) detections and the policy's role labels,
// and gets the same detections back with the fields that could be inferred. Which fields leave
// the service is the caller's decision (metadata_policy.expose_*); nothing here is a raw value.
import type { Detection } from '../types.js';

export interface MetadataOptions {
  /** Request language hint (`de`, `pt-BR`); becomes `language` on every detection. */
  readonly language?: string;
  /** Role labels the policy declares (metadata_policy.roles), e.g. ['patient', 'customer']. */
  readonly roles?: readonly string[];
  /** How far (characters) an email, phone or id may stand after its person; default 200. */
  readonly window?: number;
}

type Gender = 'female' | 'male';
type Formality = 'formal' | 'informal';

interface Salutation {
  readonly words: readonly string[];
  readonly gender?: Gender;
  readonly formality: Formality;
}

// Salutations and greetings directly before a name, in en, de, fr, es, it, nl, pt. Longer
// phrases first so "sehr geehrte frau" wins over "frau".
const SALUTATIONS: readonly Salutation[] = [
  {
    words: ['mrs', 'ms', 'miss', 'madam', 'frau', 'madame', 'mme', 'mademoiselle', 'mlle', 'señora', 'sra', 'señorita', 'srta', 'signora', 'sig.ra', 'signorina', 'sig.na', 'senhora', 'mevrouw', 'mevr', 'mw', 'dona', 'doña', 'dear mrs', 'dear ms', 'sehr geehrte frau', 'liebe', 'chère', 'estimada', 'querida', 'gentile signora', 'cara', 'geachte mevrouw', 'prezada'],
    gender: 'female',
    formality: 'formal',
  },
  {
    words: ['mr', 'mister', 'sir', 'herr', 'monsieur', 'm', 'señor', 'sr', 'signor', 'sig', 'signore', 'senhor', 'dhr', 'meneer', 'de heer', 'don', 'dom', 'dear mr', 'sehr geehrter herr', 'lieber', 'cher', 'estimado', 'querido', 'gentile signor', 'caro', 'geachte heer', 'prezado'],
    gender: 'male',
    formality: 'formal',
  },
  { words: ['dr', 'prof', 'professor', 'doctor', 'doktor', 'docteur', 'dott', 'dear', 'sehr geehrte', 'geachte', 'gentile'], formality: 'formal' },
  { words: ['hi', 'hey', 'hello', 'hallo', 'salut', 'coucou', 'hola', 'ciao', 'oi', 'olá', 'hoi', 'moin', 'servus'], formality: 'informal' },
];

/** Gendered greetings that fix the gender but whose formality depends on the greeting. */
const INFORMAL_GENDERED: ReadonlyMap<string, Gender> = new Map([
  ['liebe', 'female'],
  ['lieber', 'male'],
  ['querida', 'female'],
  ['querido', 'male'],
  ['cara', 'female'],
  ['caro', 'male'],
]);

const SALUTATION_INDEX: ReadonlyMap<string, Salutation> = (() => {
  const map = new Map<string, Salutation>();
  for (const salutation of SALUTATIONS) for (const word of salutation.words) if (!map.has(word)) map.set(word, salutation);
  return map;
})();

/** Localized words for common declared roles; a declared role always matches itself too. */
const ROLE_SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  patient: ['patient', 'patientin', 'paciente', 'paziente', 'patiënt', 'patiente'],
  customer: ['customer', 'client', 'kunde', 'kundin', 'cliente', 'klant', 'cliënt'],
  employee: ['employee', 'mitarbeiter', 'mitarbeiterin', 'employé', 'employée', 'empleado', 'empleada', 'dipendente', 'medewerker', 'funcionário', 'funcionária'],
  doctor: ['doctor', 'physician', 'arzt', 'ärztin', 'médecin', 'médico', 'medico', 'arts'],
  student: ['student', 'studentin', 'étudiant', 'étudiante', 'estudiante', 'studente', 'estudante'],
  applicant: ['applicant', 'candidate', 'bewerber', 'bewerberin', 'candidat', 'candidate', 'candidato', 'candidata', 'sollicitant'],
  tenant: ['tenant', 'mieter', 'mieterin', 'locataire', 'inquilino', 'inquilina', 'huurder'],
  witness: ['witness', 'zeuge', 'zeugin', 'témoin', 'testigo', 'testimone', 'getuige', 'testemunha'],
};

/** Types that belong to a person when one stands close by. */
const PERSONAL_TYPES: ReadonlySet<string> = new Set([
  'email', 'phone', 'credit_card', 'iban', 'date', 'us_ssn', 'us_itin', 'us_passport', 'us_mbi', 'uk_nino', 'uk_nhs', 'uk_passport',
  'ie_pps', 'de_tax_id', 'fr_nir', 'es_dni', 'es_nie', 'it_fiscal_code', 'nl_bsn', 'be_national_number', 'pt_nif', 'pl_pesel',
  'se_personnummer', 'fi_hetu', 'dk_cpr', 'no_fodselsnummer', 'ch_ahv', 'in_aadhaar', 'in_pan', 'au_tfn', 'au_medicare', 'sg_nric',
  'kr_rrn', 'cn_resident_id', 'jp_my_number', 'br_cpf', 'ca_sin', 'mx_curp',
]);

const DEFAULT_WINDOW = 200;
/** An email or phone may also name its person right after it: "jane@x.org (Jane Doe)". */
const AFTER_WINDOW = 40;
const LEADING_WORDS = /([\p{L}@][\p{L}.@]*)(?:\s+([\p{L}.]+))?(?:\s+([\p{L}.]+))?[\s,:]*$/u;
const WORD_CHARS = /[\p{L}\p{N}]/u;

function primaryLanguage(language: string): string {
  return (language.split(/[-_]/)[0] ?? '').toLowerCase();
}

function normalizeWord(word: string): string {
  return word.toLowerCase().replace(/\.$/, '');
}

/** Salutation (up to three words) ending right before `start`, e.g. "Sehr geehrte Frau ". */
function salutationBefore(text: string, start: number): { gender?: Gender; formality: Formality } | undefined {
  const head = text.slice(Math.max(0, start - 40), start);
  const match = LEADING_WORDS.exec(head);
  if (match === null) return undefined;
  const words = [match[1], match[2], match[3]].filter((word): word is string => word !== undefined).map(normalizeWord);
  // Try the longest phrase that ends at the name: last three words, last two, last one.
  for (let take = Math.min(3, words.length); take >= 1; take--) {
    const phrase = words.slice(words.length - take).join(' ');
    const found = SALUTATION_INDEX.get(phrase);
    if (found === undefined) continue;
    const informalGender = take === 1 ? INFORMAL_GENDERED.get(phrase) : undefined;
    if (informalGender !== undefined) {
      // "Liebe Anna" is informal German, "Querida Ana" informal Spanish.
      return { gender: informalGender, formality: 'informal' };
    }
    return found.gender === undefined ? { formality: found.formality } : { gender: found.gender, formality: found.formality };
  }
  return undefined;
}

interface CompiledRole {
  readonly label: string;
  readonly matcher: RegExp;
}

function compileRoles(roles: readonly string[]): CompiledRole[] {
  return roles.map((label) => {
    const words = [...new Set([label.toLowerCase(), ...(ROLE_SYNONYMS[label.toLowerCase()] ?? [])])].map((word) =>
      word.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'),
    );
    return { label, matcher: new RegExp(`(?<![\\p{L}\\p{N}])(?:${words.join('|')})(?![\\p{L}\\p{N}])`, 'iu') };
  });
}

/**
 * A declared role word in the 40 characters before the person or the 30 after it, never past
 * the neighbouring persons (their roles are their own).
 */
function roleNear(text: string, person: Detection, previousEnd: number, nextStart: number, roles: readonly CompiledRole[]): string | undefined {
  const before = text.slice(Math.max(0, person.start - 40, previousEnd), person.start);
  // After the name only within the same clause: "Jane Doe (patient)", "Jane Doe, customer".
  const after = text.slice(person.end, Math.min(person.end + 30, nextStart)).split(/[.;!?\n]/u)[0] ?? '';
  for (const role of roles) if (role.matcher.test(before) || role.matcher.test(after)) return role.label;
  return undefined;
}

/** Letters of a name part, lowercase, accents kept (emails often drop them: compared loosely). */
function nameParts(value: string): string[] {
  return value
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .split(/[^\p{L}]+/u)
    .filter((part) => part.length >= 3);
}

function localPart(email: string): string {
  const at = email.lastIndexOf('@');
  return (at > 0 ? email.slice(0, at) : email).toLowerCase().normalize('NFD').replace(/\p{M}/gu, '');
}

/** True when text between two spans has a blank line (a new record or paragraph). */
function separated(text: string, from: number, to: number): boolean {
  const between = text.slice(from, to);
  return /\n\s*\n/.test(between);
}

/**
 * The person a personal detection belongs to, as an index into `detections`: an email whose
 * local part contains a person's name part; else the nearest person before it within the window
 * with no other person and no blank line between; else a person right after it.
 */
function ownerOf(text: string, detections: readonly Detection[], index: number, persons: readonly number[], window: number): number | undefined {
  const detection = detections[index]!;
  if (detection.type === 'email') {
    const local = localPart(detection.value);
    for (const p of persons) {
      if (nameParts(detections[p]!.value).some((part) => local.includes(part))) return p;
    }
  }
  let before: number | undefined;
  for (const p of persons) {
    const person = detections[p]!;
    if (person.end <= detection.start) before = p;
    else break;
  }
  if (before !== undefined) {
    const person = detections[before]!;
    if (detection.start - person.end <= window && !separated(text, person.end, detection.start)) return before;
  }
  for (const p of persons) {
    const person = detections[p]!;
    if (person.start >= detection.end) {
      const gap = text.slice(detection.end, person.start);
      if (gap.length <= AFTER_WINDOW && !WORD_CHARS.test(gap.replace(/\b(?:of|von|de|di|van|do|da)\b/giu, ''))) return p;
      break;
    }
  }
  return undefined;
}

/**
 * Detections with inferred metadata. `detections` must be sorted by start and non-overlapping
 * (what detectAll returns, merged with NER results); the result has the same order and length,
 * so `belongs_to` indexes stay valid for the caller's array.
 */
export function inferMetadata(text: string, detections: readonly Detection[], options: MetadataOptions = {}): Detection[] {
  const language = options.language !== undefined && options.language !== '' ? primaryLanguage(options.language) : undefined;
  const roles = compileRoles(options.roles ?? []);
  const window = options.window ?? DEFAULT_WINDOW;
  const persons: number[] = [];
  detections.forEach((detection, index) => {
    if (detection.type === 'person') persons.push(index);
  });
  return detections.map((detection, index) => {
    let result: Detection = language === undefined ? detection : { ...detection, language };
    if (detection.type === 'person') {
      const salutation = salutationBefore(text, detection.start);
      if (salutation?.gender !== undefined) result = { ...result, gender: salutation.gender };
      if (salutation !== undefined) result = { ...result, formality: salutation.formality };
      const at = persons.indexOf(index);
      const previousEnd = at > 0 ? detections[persons[at - 1]!]!.end : 0;
      const nextStart = at + 1 < persons.length ? detections[persons[at + 1]!]!.start : text.length;
      const role = roles.length > 0 ? roleNear(text, detection, previousEnd, nextStart, roles) : undefined;
      if (role !== undefined) result = { ...result, role };
    } else if (PERSONAL_TYPES.has(detection.type) && persons.length > 0) {
      const owner = ownerOf(text, detections, index, persons, window);
      if (owner !== undefined) result = { ...result, belongs_to: owner };
    }
    return result;
  });
}
