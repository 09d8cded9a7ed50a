// Context words for national identifiers, tax, company, health, vehicle and device numbers, in
// English, German, French, Spanish, Italian, Dutch and Portuguese plus the id's own language and
// its usual abbreviations. Many of these ids are bare digit runs: a word from these lists within
// a short window before the candidate is what lifts them over the default threshold.
import { contextWords, type ContextWords } from './context.js';

/** Generic words for "national id / personal number / tax number" in the covered languages. */
const NATIONAL_ID = [
  'national id', 'national identification', 'id number', 'id no', 'id-nr', 'identity number', 'personal number',
  'personal identification', 'citizen id', 'personalausweis', 'ausweisnummer', 'identifikationsnummer', 'personennummer',
  "numéro d'identification", "numéro d'identité", 'pièce d’identité', 'número de identificación', 'número de identidad',
  'documento de identidad', 'numero di identificazione', "carta d'identità", 'identificatienummer', 'identiteitsnummer',
  'persoonsnummer', 'número de identificação', 'bilhete de identidade', 'cartão de cidadão',
];
const TAX_ID = [
  'tax id', 'tax number', 'tax identification', 'TIN', 'taxpayer', 'steuernummer', 'steuer-id', 'steuerid',
  'steueridentifikationsnummer', 'steuer-identifikationsnummer', 'identifikationsnummer', 'idnr', 'numéro fiscal',
  "numéro d'identification fiscale", 'nif', 'número fiscal', 'número de identificación fiscal', 'codice fiscale',
  'fiscaal nummer', 'fiscaalnummer', 'número de contribuinte', 'contribuinte', 'nif',
];
const PASSPORT = ['passport', 'passport no', 'passport number', 'reisepass', 'passnummer', 'pass-nr', 'passeport', 'pasaporte', 'passaporto', 'paspoort', 'passaporte'];
const HEALTH = ['health', 'insurance', 'medical', 'patient', 'krankenversicherung', 'versichertennummer', 'santé', 'assurance maladie', 'sanitaria', 'salud', 'zorgverzekering', 'saúde'];
const COMPANY = ['company', 'business', 'registration', 'registered', 'firma', 'unternehmen', 'handelsregister', 'entreprise', 'société', 'empresa', 'azienda', 'bedrijf', 'kvk'];

/** Specific words first (the id's own name), then generic ones (national id, tax number ...). */
interface TypeContext {
  readonly specific: readonly string[];
  readonly generic: readonly string[];
}

const GENERIC_LISTS: ReadonlySet<readonly string[]> = new Set([NATIONAL_ID, TAX_ID, PASSPORT, HEALTH, COMPANY]);

function words(...lists: readonly (readonly string[])[]): TypeContext {
  const generic = lists.filter((list) => GENERIC_LISTS.has(list)).flat();
  const specific = lists.filter((list) => !GENERIC_LISTS.has(list)).flat();
  return { specific: [...new Set(specific)], generic: [...new Set(generic)].filter((word) => !specific.includes(word)) };
}

const TYPE_CONTEXT: Readonly<Record<string, TypeContext>> = {
  us_itin: words(['itin', 'individual taxpayer', 'taxpayer identification', 'tax id', 'TIN']),
  us_ein: words(['EIN', 'employer identification', 'employer id', 'FEIN', 'federal tax id', 'tax id', 'TIN', 'IRS']),
  us_passport: words(PASSPORT, ['us passport', 'u.s. passport', 'united states passport']),
  us_npi: words(['npi', 'national provider', 'provider id', 'provider number', 'prescriber']),
  us_mbi: words(['mbi', 'medicare', 'beneficiary', 'medicare number', 'medicare id']),
  aba_routing: words(['ABA', 'routing', 'routing number', 'routing no', 'RTN', 'transit number', 'bank routing', 'ACH', 'wire transfer', 'abartn']),
  uk_nino: words(['national insurance', 'nino', 'ni number', 'ni no', 'nin', 'insurance number']),
  uk_nhs: words(['nhs', 'nhs number', 'nhs no', 'health service', 'chi number', 'patient number'], HEALTH),
  uk_passport: words(PASSPORT, ['uk passport', 'british passport', 'hm passport', 'uk passport number']),
  de_tax_id: words(TAX_ID, ['steuerliche identifikationsnummer', 'TIN', 'tax id']),
  fr_nir: words([
    'nir', 'sécurité sociale', 'securite sociale', 'numéro de sécu', 'numero de secu', 'n° ss', 'insee', 'social security',
    'carte vitale', 'numéro de sécurité sociale', 'nss',
  ]),
  fr_siren: words(COMPANY, ['siren', 'n° siren', 'rcs', 'immatriculation']),
  fr_siret: words(COMPANY, ['siret', 'n° siret', 'établissement', 'etablissement']),
  es_dni: words(NATIONAL_ID, ['dni', 'nif', 'd.n.i', 'documento nacional', 'documento nacional de identidad']),
  es_nie: words(NATIONAL_ID, ['NIE', 'n.i.e', 'número de identidad de extranjero', 'extranjero', 'TIE']),
  it_fiscal_code: words(TAX_ID, ['codice fiscale', 'cod. fisc', 'C.F', 'CF', 'tessera sanitaria']),
  nl_bsn: words(['bsn', 'burgerservicenummer', 'sofinummer', 'sofi-nummer', 'citizen service number', 'persoonsgebonden nummer']),
  be_national_number: words(NATIONAL_ID, [
    'rijksregisternummer', 'rijksregister', 'registre national', 'numéro national', 'national number', 'NN', 'insz',
    'nationalregisternummer', 'numéro de registre national',
  ]),
  pl_pesel: words(NATIONAL_ID, ['pesel', 'numer pesel', 'nr pesel']),
  se_personnummer: words(NATIONAL_ID, ['personnummer', 'personnr', 'pnr', 'samordningsnummer', 'swedish personal']),
  fi_hetu: words(NATIONAL_ID, ['henkilötunnus', 'hetu', 'henkilotunnus', 'personbeteckning', 'finnish personal']),
  dk_cpr: words(NATIONAL_ID, ['cpr', 'cpr-nr', 'cpr-nummer', 'cprnr', 'personnummer', 'sygesikring']),
  no_fodselsnummer: words(NATIONAL_ID, ['fødselsnummer', 'fodselsnummer', 'fnr', 'personnummer', 'd-nummer', 'norwegian personal']),
  ch_ahv: words(NATIONAL_ID, ['ahv', 'avs', 'ahv-nr', 'ahv-nummer', 'sozialversicherungsnummer', 'numéro avs', 'numero avs', 'svn', 'social security']),
  in_aadhaar: words(NATIONAL_ID, ['aadhaar', 'aadhar', 'uidai', 'UID', 'आधार']),
  in_pan: words(TAX_ID, ['PAN', 'pan card', 'pan no', 'permanent account number', 'income tax']),
  au_tfn: words(TAX_ID, ['tfn', 'tax file number', 'tax file no', 'ATO']),
  au_medicare: words(HEALTH, ['medicare', 'medicare card', 'medicare number', 'medicare no']),
  au_abn: words(COMPANY, ['abn', 'australian business number', 'business number']),
  au_acn: words(COMPANY, ['acn', 'australian company number', 'company number', 'arbn']),
  sg_nric: words(NATIONAL_ID, ['nric', 'FIN', 'nric/fin', 'identity card', 'ic number', 'ic no']),
  br_cpf: words(TAX_ID, ['cpf', 'cpf/mf', 'cadastro de pessoas físicas', 'cadastro de pessoa física', 'inscrito no cpf']),
  br_cnpj: words(COMPANY, ['cnpj', 'cnpj/mf', 'cadastro nacional da pessoa jurídica', 'inscrita no cnpj']),
  ca_sin: words(['SIN', 'social insurance', 'social insurance number', 'numéro d’assurance sociale', "numéro d'assurance sociale", 'NAS']),
  mx_curp: words(NATIONAL_ID, ['curp', 'clave única', 'clave unica', 'registro de población']),
  kr_rrn: words(NATIONAL_ID, ['rrn', 'resident registration', 'registration number', '주민등록번호', '주민번호']),
  cn_resident_id: words(NATIONAL_ID, ['resident id', 'identity card', 'id card', '身份证', '身份证号', '身份证号码', 'shenfenzheng']),
  // "My Number" only as Japan writes it: "my number is ..." is how people give a phone number.
  jp_my_number: words(NATIONAL_ID, ['My Number', 'MY NUMBER', 'my number card', 'mynumber', 'individual number', 'マイナンバー', '個人番号']),
  vin: words([
    'vin', 'vehicle identification', 'chassis', 'chassis number', 'frame number', 'fahrgestellnummer', 'fahrzeug-identifizierungsnummer',
    'FIN', 'numéro de série', 'numéro vin', 'número de bastidor', 'bastidor', 'numero di telaio', 'telaio', 'chassisnummer',
    'número do chassi', 'chassi', 'vehicle',
  ]),
  imei: words(['imei', 'imei number', 'imei no', 'device id', 'handset', 'seriennummer', 'numéro imei', 'número imei', 'numero imei']),
  eu_vat: words([
    'vat', 'vat no', 'vat number', 'vat id', 'vat reg', 'ust-idnr', 'ust-id', 'umsatzsteuer', 'ustid', 'UID', 'uid-nr',
    'tva', 'n° tva', 'tva intracommunautaire', 'IVA', 'cif', 'nif-iva', 'partita iva', 'p.iva', 'p. iva', 'piva', 'BTW', 'btw-nummer',
    'btw-id', 'mwst', 'MOMS', 'ALV', 'NIP', 'dph', 'DIC', 'ddv', 'oib', 'afm', 'cvr', 'tax id', 'intracommunity',
  ]),
  pt_nif: words(TAX_ID, ['nif', 'nipc', 'número de contribuinte', 'contribuinte', 'n.º contribuinte', 'nº contribuinte']),
  ie_pps: words(['pps', 'ppsn', 'pps number', 'pps no', 'personal public service', 'social welfare']),
};

/**
 * Per type: words naming the id itself ("BSN", "Steuer-ID") and generic words ("tax number",
 * "national id") that several types share. A specific word scores higher, so "Tax File Number"
 * picks the TFN over a Portuguese NIF that happens to pass its own check.
 */
export const ID_CONTEXT: Readonly<Record<string, { readonly specific: ContextWords; readonly generic: ContextWords | undefined }>> = Object.fromEntries(
  Object.entries(TYPE_CONTEXT).map(([type, context]) => [
    type,
    { specific: contextWords(context.specific), generic: context.generic.length > 0 ? contextWords(context.generic) : undefined },
  ]),
);

/**
 * Every id context word in one list: one test per candidate tells whether any type-specific
 * list can match, so a number with no context nearby (the usual case in logs) costs one regex
 * run instead of one per candidate type.
 */
export const ANY_ID_CONTEXT: ContextWords = contextWords([
  ...new Set(Object.values(TYPE_CONTEXT).flatMap((context) => [...context.specific, ...context.generic])),
]);

/** The words that name an id itself (not the generic ones): a number right after one is that id, not a phone. */
export const SPECIFIC_ID_CONTEXT: ContextWords = contextWords([...new Set(Object.values(TYPE_CONTEXT).flatMap((context) => context.specific))]);

/** Words for "passport" in the covered languages (a passport number has no check digit: only a label makes one). */
export const PASSPORT_CONTEXT: ContextWords = contextWords(PASSPORT);

/** The passport type a bare "passport number" label means: the UK's in the UK, else the US's. */
export function passportTypeFor(region: string): 'uk_passport' | 'us_passport' {
  return region === 'GB' ? 'uk_passport' : 'us_passport';
}
