// Built-in localized labels for the `abstract` restore mode (interface.md 2.8: a 30-language
// floor). One label per catalog entity type plus `_generic`, used for custom and unknown types:
// the core types have their own column; identifier types share a localized category label and
// add the id's short name (see CATEGORY_TYPES).
// Labels are stored bare and rendered in square brackets, e.g. `[email address]`. Operators
// extend or override them with config `restore_templates.abstract_labels` (used verbatim).

/** Key of the label used when a language has no label for the type. */
export const GENERIC_LABEL_KEY = '_generic';

/** Order of the columns of LABEL_ROWS. */
const LABEL_TYPES = [
  'person',
  'organization',
  'location',
  'email',
  'phone',
  'credit_card',
  'iban',
  'us_ssn',
  'ip_address',
  'url',
  'date',
  'api_key',
  'jwt',
  'private_key',
  'password',
  'mac_address',
  'crypto_wallet',
  'swift_bic',
  GENERIC_LABEL_KEY,
] as const;

type LabelRow = readonly [
  person: string,
  organization: string,
  location: string,
  email: string,
  phone: string,
  creditCard: string,
  iban: string,
  usSsn: string,
  ipAddress: string,
  url: string,
  date: string,
  apiKey: string,
  jwt: string,
  privateKey: string,
  password: string,
  macAddress: string,
  cryptoWallet: string,
  swiftBic: string,
  generic: string,
];

// prettier-ignore
const LABEL_ROWS: Readonly<Record<string, LabelRow>> = {
  en: ['person name', 'organization', 'location', 'email address', 'phone number', 'credit card number', 'IBAN', 'US social security number', 'IP address', 'web address', 'date', 'API key', 'access token', 'private key', 'password', 'MAC address', 'crypto wallet address', 'BIC/SWIFT code', 'sensitive data'],
  de: ['Personenname', 'Organisation', 'Ort', 'E-Mail-Adresse', 'Telefonnummer', 'Kreditkartennummer', 'IBAN', 'US-Sozialversicherungsnummer', 'IP-Adresse', 'Webadresse', 'Datum', 'API-Schlüssel', 'Zugriffstoken', 'privater Schlüssel', 'Passwort', 'MAC-Adresse', 'Krypto-Wallet-Adresse', 'BIC/SWIFT-Code', 'vertrauliche Daten'],
  fr: ['nom de personne', 'organisation', 'lieu', 'adresse e-mail', 'numéro de téléphone', 'numéro de carte bancaire', 'IBAN', 'numéro de sécurité sociale américain', 'adresse IP', 'adresse web', 'date', 'clé API', "jeton d'accès", 'clé privée', 'mot de passe', 'adresse MAC', 'adresse de portefeuille crypto', 'code BIC/SWIFT', 'données sensibles'],
  es: ['nombre de persona', 'organización', 'ubicación', 'dirección de correo electrónico', 'número de teléfono', 'número de tarjeta de crédito', 'IBAN', 'número de seguro social de EE. UU.', 'dirección IP', 'dirección web', 'fecha', 'clave de API', 'token de acceso', 'clave privada', 'contraseña', 'dirección MAC', 'dirección de monedero de criptomonedas', 'código BIC/SWIFT', 'datos sensibles'],
  it: ['nome di persona', 'organizzazione', 'luogo', 'indirizzo e-mail', 'numero di telefono', 'numero di carta di credito', 'IBAN', 'numero di previdenza sociale USA', 'indirizzo IP', 'indirizzo web', 'data', 'chiave API', 'token di accesso', 'chiave privata', 'password', 'indirizzo MAC', 'indirizzo di portafoglio crypto', 'codice BIC/SWIFT', 'dati sensibili'],
  pt: ['nome de pessoa', 'organização', 'localização', 'endereço de e-mail', 'número de telefone', 'número de cartão de crédito', 'IBAN', 'número de segurança social dos EUA', 'endereço IP', 'endereço web', 'data', 'chave de API', 'token de acesso', 'chave privada', 'senha', 'endereço MAC', 'endereço de carteira de criptomoedas', 'código BIC/SWIFT', 'dados sensíveis'],
  nl: ['persoonsnaam', 'organisatie', 'locatie', 'e-mailadres', 'telefoonnummer', 'creditcardnummer', 'IBAN', 'Amerikaans socialezekerheidsnummer', 'IP-adres', 'webadres', 'datum', 'API-sleutel', 'toegangstoken', 'privésleutel', 'wachtwoord', 'MAC-adres', 'cryptowalletadres', 'BIC/SWIFT-code', 'gevoelige gegevens'],
  sv: ['personnamn', 'organisation', 'plats', 'e-postadress', 'telefonnummer', 'kreditkortsnummer', 'IBAN', 'amerikanskt personnummer (SSN)', 'IP-adress', 'webbadress', 'datum', 'API-nyckel', 'åtkomsttoken', 'privat nyckel', 'lösenord', 'MAC-adress', 'kryptoplånboksadress', 'BIC/SWIFT-kod', 'känsliga uppgifter'],
  da: ['personnavn', 'organisation', 'sted', 'e-mailadresse', 'telefonnummer', 'kreditkortnummer', 'IBAN', 'amerikansk personnummer (SSN)', 'IP-adresse', 'webadresse', 'dato', 'API-nøgle', 'adgangstoken', 'privat nøgle', 'adgangskode', 'MAC-adresse', 'kryptotegnebogsadresse', 'BIC/SWIFT-kode', 'følsomme oplysninger'],
  nb: ['personnavn', 'organisasjon', 'sted', 'e-postadresse', 'telefonnummer', 'kredittkortnummer', 'IBAN', 'amerikansk personnummer (SSN)', 'IP-adresse', 'nettadresse', 'dato', 'API-nøkkel', 'tilgangstoken', 'privat nøkkel', 'passord', 'MAC-adresse', 'kryptolommebokadresse', 'BIC/SWIFT-kode', 'sensitive opplysninger'],
  fi: ['henkilön nimi', 'organisaatio', 'sijainti', 'sähköpostiosoite', 'puhelinnumero', 'luottokortin numero', 'IBAN', 'yhdysvaltalainen sosiaaliturvatunnus', 'IP-osoite', 'verkko-osoite', 'päivämäärä', 'API-avain', 'käyttöoikeustunnus', 'yksityinen avain', 'salasana', 'MAC-osoite', 'kryptolompakon osoite', 'BIC/SWIFT-koodi', 'arkaluonteinen tieto'],
  pl: ['imię i nazwisko', 'organizacja', 'lokalizacja', 'adres e-mail', 'numer telefonu', 'numer karty kredytowej', 'IBAN', 'amerykański numer ubezpieczenia społecznego', 'adres IP', 'adres internetowy', 'data', 'klucz API', 'token dostępu', 'klucz prywatny', 'hasło', 'adres MAC', 'adres portfela kryptowalut', 'kod BIC/SWIFT', 'dane wrażliwe'],
  cs: ['jméno osoby', 'organizace', 'místo', 'e-mailová adresa', 'telefonní číslo', 'číslo platební karty', 'IBAN', 'americké číslo sociálního zabezpečení', 'IP adresa', 'webová adresa', 'datum', 'klíč API', 'přístupový token', 'soukromý klíč', 'heslo', 'MAC adresa', 'adresa kryptoměnové peněženky', 'kód BIC/SWIFT', 'citlivé údaje'],
  sk: ['meno osoby', 'organizácia', 'miesto', 'e-mailová adresa', 'telefónne číslo', 'číslo platobnej karty', 'IBAN', 'americké číslo sociálneho zabezpečenia', 'IP adresa', 'webová adresa', 'dátum', 'kľúč API', 'prístupový token', 'súkromný kľúč', 'heslo', 'MAC adresa', 'adresa kryptopeňaženky', 'kód BIC/SWIFT', 'citlivé údaje'],
  hu: ['személynév', 'szervezet', 'helyszín', 'e-mail-cím', 'telefonszám', 'bankkártyaszám', 'IBAN', 'amerikai társadalombiztosítási szám', 'IP-cím', 'webcím', 'dátum', 'API-kulcs', 'hozzáférési token', 'privát kulcs', 'jelszó', 'MAC-cím', 'kriptotárca-cím', 'BIC/SWIFT-kód', 'érzékeny adat'],
  ro: ['nume de persoană', 'organizație', 'locație', 'adresă de e-mail', 'număr de telefon', 'număr de card de credit', 'IBAN', 'număr de asigurare socială din SUA', 'adresă IP', 'adresă web', 'dată', 'cheie API', 'token de acces', 'cheie privată', 'parolă', 'adresă MAC', 'adresă de portofel cripto', 'cod BIC/SWIFT', 'date sensibile'],
  el: ['όνομα προσώπου', 'οργανισμός', 'τοποθεσία', 'διεύθυνση email', 'αριθμός τηλεφώνου', 'αριθμός πιστωτικής κάρτας', 'IBAN', 'αριθμός κοινωνικής ασφάλισης ΗΠΑ', 'διεύθυνση IP', 'διαδικτυακή διεύθυνση', 'ημερομηνία', 'κλειδί API', 'διακριτικό πρόσβασης', 'ιδιωτικό κλειδί', 'κωδικός πρόσβασης', 'διεύθυνση MAC', 'διεύθυνση πορτοφολιού κρυπτονομισμάτων', 'κωδικός BIC/SWIFT', 'ευαίσθητα δεδομένα'],
  tr: ['kişi adı', 'kuruluş', 'konum', 'e-posta adresi', 'telefon numarası', 'kredi kartı numarası', 'IBAN', 'ABD sosyal güvenlik numarası', 'IP adresi', 'web adresi', 'tarih', 'API anahtarı', 'erişim belirteci', 'özel anahtar', 'parola', 'MAC adresi', 'kripto cüzdan adresi', 'BIC/SWIFT kodu', 'hassas veri'],
  ru: ['имя человека', 'организация', 'местоположение', 'адрес электронной почты', 'номер телефона', 'номер кредитной карты', 'IBAN', 'номер социального страхования США', 'IP-адрес', 'веб-адрес', 'дата', 'ключ API', 'токен доступа', 'закрытый ключ', 'пароль', 'MAC-адрес', 'адрес криптокошелька', 'код BIC/SWIFT', 'конфиденциальные данные'],
  uk: ['ім’я особи', 'організація', 'місцезнаходження', 'адреса електронної пошти', 'номер телефону', 'номер кредитної картки', 'IBAN', 'номер соціального страхування США', 'IP-адреса', 'вебадреса', 'дата', 'ключ API', 'токен доступу', 'приватний ключ', 'пароль', 'MAC-адреса', 'адреса криптогаманця', 'код BIC/SWIFT', 'конфіденційні дані'],
  bg: ['име на лице', 'организация', 'местоположение', 'имейл адрес', 'телефонен номер', 'номер на кредитна карта', 'IBAN', 'номер на социална осигуровка в САЩ', 'IP адрес', 'уеб адрес', 'дата', 'API ключ', 'токен за достъп', 'частен ключ', 'парола', 'MAC адрес', 'адрес на криптопортфейл', 'BIC/SWIFT код', 'чувствителни данни'],
  hr: ['ime osobe', 'organizacija', 'lokacija', 'adresa e-pošte', 'telefonski broj', 'broj kreditne kartice', 'IBAN', 'američki broj socijalnog osiguranja', 'IP adresa', 'web-adresa', 'datum', 'API ključ', 'pristupni token', 'privatni ključ', 'lozinka', 'MAC adresa', 'adresa kripto novčanika', 'BIC/SWIFT kod', 'osjetljivi podaci'],
  sl: ['ime osebe', 'organizacija', 'lokacija', 'e-poštni naslov', 'telefonska številka', 'številka kreditne kartice', 'IBAN', 'ameriška številka socialnega zavarovanja', 'naslov IP', 'spletni naslov', 'datum', 'ključ API', 'žeton za dostop', 'zasebni ključ', 'geslo', 'naslov MAC', 'naslov kriptodenarnice', 'koda BIC/SWIFT', 'občutljivi podatki'],
  et: ['isiku nimi', 'organisatsioon', 'asukoht', 'e-posti aadress', 'telefoninumber', 'krediitkaardi number', 'IBAN', 'USA sotsiaalkindlustuse number', 'IP-aadress', 'veebiaadress', 'kuupäev', 'API-võti', 'juurdepääsuluba', 'privaatvõti', 'parool', 'MAC-aadress', 'krüptorahakoti aadress', 'BIC/SWIFT-kood', 'tundlikud andmed'],
  lv: ['personas vārds', 'organizācija', 'atrašanās vieta', 'e-pasta adrese', 'tālruņa numurs', 'kredītkartes numurs', 'IBAN', 'ASV sociālās apdrošināšanas numurs', 'IP adrese', 'tīmekļa adrese', 'datums', 'API atslēga', 'piekļuves marķieris', 'privātā atslēga', 'parole', 'MAC adrese', 'kriptomaka adrese', 'BIC/SWIFT kods', 'sensitīvi dati'],
  lt: ['asmens vardas', 'organizacija', 'vieta', 'el. pašto adresas', 'telefono numeris', 'kredito kortelės numeris', 'IBAN', 'JAV socialinio draudimo numeris', 'IP adresas', 'interneto adresas', 'data', 'API raktas', 'prieigos žetonas', 'privatusis raktas', 'slaptažodis', 'MAC adresas', 'kriptovaliutų piniginės adresas', 'BIC/SWIFT kodas', 'jautrūs duomenys'],
  ar: ['اسم شخص', 'مؤسسة', 'موقع', 'عنوان البريد الإلكتروني', 'رقم الهاتف', 'رقم بطاقة الائتمان', 'رقم الحساب المصرفي الدولي (IBAN)', 'رقم الضمان الاجتماعي الأمريكي', 'عنوان IP', 'عنوان ويب', 'تاريخ', 'مفتاح API', 'رمز الوصول', 'مفتاح خاص', 'كلمة المرور', 'عنوان MAC', 'عنوان محفظة العملات المشفرة', 'رمز BIC/SWIFT', 'بيانات حساسة'],
  he: ['שם אדם', 'ארגון', 'מיקום', 'כתובת דואר אלקטרוני', 'מספר טלפון', 'מספר כרטיס אשראי', 'IBAN', 'מספר ביטוח לאומי אמריקאי', 'כתובת IP', 'כתובת אתר', 'תאריך', 'מפתח API', 'אסימון גישה', 'מפתח פרטי', 'סיסמה', 'כתובת MAC', 'כתובת ארנק קריפטו', 'קוד BIC/SWIFT', 'מידע רגיש'],
  zh: ['人名', '组织', '地点', '电子邮件地址', '电话号码', '信用卡号', 'IBAN 账号', '美国社会安全号码', 'IP 地址', '网址', '日期', 'API 密钥', '访问令牌', '私钥', '密码', 'MAC 地址', '加密货币钱包地址', 'BIC/SWIFT 代码', '敏感数据'],
  ja: ['人名', '組織', '場所', 'メールアドレス', '電話番号', 'クレジットカード番号', 'IBAN', '米国社会保障番号', 'IPアドレス', 'ウェブアドレス', '日付', 'APIキー', 'アクセストークン', '秘密鍵', 'パスワード', 'MACアドレス', '暗号資産ウォレットアドレス', 'BIC/SWIFTコード', '機密データ'],
  ko: ['사람 이름', '조직', '위치', '이메일 주소', '전화번호', '신용카드 번호', 'IBAN', '미국 사회보장번호', 'IP 주소', '웹 주소', '날짜', 'API 키', '액세스 토큰', '개인 키', '비밀번호', 'MAC 주소', '암호화폐 지갑 주소', 'BIC/SWIFT 코드', '민감한 데이터'],
  vi: ['tên người', 'tổ chức', 'địa điểm', 'địa chỉ email', 'số điện thoại', 'số thẻ tín dụng', 'IBAN', 'số an sinh xã hội Hoa Kỳ', 'địa chỉ IP', 'địa chỉ web', 'ngày', 'khóa API', 'mã truy cập', 'khóa riêng tư', 'mật khẩu', 'địa chỉ MAC', 'địa chỉ ví tiền mã hóa', 'mã BIC/SWIFT', 'dữ liệu nhạy cảm'],
  hi: ['व्यक्ति का नाम', 'संगठन', 'स्थान', 'ईमेल पता', 'फ़ोन नंबर', 'क्रेडिट कार्ड नंबर', 'IBAN', 'अमेरिकी सामाजिक सुरक्षा नंबर', 'IP पता', 'वेब पता', 'तारीख', 'API कुंजी', 'एक्सेस टोकन', 'निजी कुंजी', 'पासवर्ड', 'MAC पता', 'क्रिप्टो वॉलेट पता', 'BIC/SWIFT कोड', 'संवेदनशील डेटा'],
  id: ['nama orang', 'organisasi', 'lokasi', 'alamat email', 'nomor telepon', 'nomor kartu kredit', 'IBAN', 'nomor jaminan sosial AS', 'alamat IP', 'alamat web', 'tanggal', 'kunci API', 'token akses', 'kunci privat', 'kata sandi', 'alamat MAC', 'alamat dompet kripto', 'kode BIC/SWIFT', 'data sensitif'],
  th: ['ชื่อบุคคล', 'องค์กร', 'สถานที่', 'ที่อยู่อีเมล', 'หมายเลขโทรศัพท์', 'หมายเลขบัตรเครดิต', 'IBAN', 'หมายเลขประกันสังคมสหรัฐฯ', 'ที่อยู่ IP', 'ที่อยู่เว็บ', 'วันที่', 'คีย์ API', 'โทเค็นการเข้าถึง', 'คีย์ส่วนตัว', 'รหัสผ่าน', 'ที่อยู่ MAC', 'ที่อยู่กระเป๋าเงินคริปโต', 'รหัส BIC/SWIFT', 'ข้อมูลที่ละเอียดอ่อน'],
};

/** Categories of the identifier types added with the full catalog; each type names one (plus an acronym). */
const CATEGORIES = [
  'national_id', 'tax_id', 'passport', 'health_id', 'social_security', 'company_id', 'vat', 'routing', 'vehicle', 'device',
  'connection',
] as const;
type Category = (typeof CATEGORIES)[number];

// prettier-ignore
const CATEGORY_ROWS: Readonly<Record<string, readonly string[]>> = {
  en: ['national ID number', 'tax identification number', 'passport number', 'health insurance number', 'social security number', 'company registration number', 'VAT number', 'bank routing number', 'vehicle identification number', 'device identifier', 'connection string'],
  de: ['nationale Identifikationsnummer', 'Steueridentifikationsnummer', 'Reisepassnummer', 'Krankenversicherungsnummer', 'Sozialversicherungsnummer', 'Handelsregisternummer', 'Umsatzsteuer-Identifikationsnummer', 'Bankleitzahl', 'Fahrzeug-Identifizierungsnummer', 'Gerätekennung', 'Verbindungszeichenfolge'],
  fr: ['numéro d\'identification national', 'numéro d\'identification fiscale', 'numéro de passeport', 'numéro d\'assurance maladie', 'numéro de sécurité sociale', 'numéro d\'immatriculation d\'entreprise', 'numéro de TVA', 'code d\'acheminement bancaire', 'numéro d\'identification du véhicule', 'identifiant d\'appareil', 'chaîne de connexion'],
  es: ['número de identificación nacional', 'número de identificación fiscal', 'número de pasaporte', 'número de seguro médico', 'número de seguridad social', 'número de registro mercantil', 'número de IVA', 'número de ruta bancaria', 'número de identificación del vehículo', 'identificador de dispositivo', 'cadena de conexión'],
  it: ['numero di identificazione nazionale', 'codice di identificazione fiscale', 'numero di passaporto', 'numero di assicurazione sanitaria', 'numero di previdenza sociale', 'numero di registrazione dell\'impresa', 'partita IVA', 'codice di instradamento bancario', 'numero di identificazione del veicolo', 'identificativo del dispositivo', 'stringa di connessione'],
  pt: ['número de identificação nacional', 'número de identificação fiscal', 'número de passaporte', 'número de seguro de saúde', 'número de segurança social', 'número de registo da empresa', 'número de IVA', 'código de encaminhamento bancário', 'número de identificação do veículo', 'identificador do dispositivo', 'cadeia de ligação'],
  nl: ['nationaal identificatienummer', 'fiscaal identificatienummer', 'paspoortnummer', 'zorgverzekeringsnummer', 'socialezekerheidsnummer', 'bedrijfsregistratienummer', 'btw-nummer', 'bankroutingnummer', 'voertuigidentificatienummer', 'apparaat-ID', 'verbindingsreeks'],
  sv: ['nationellt identitetsnummer', 'skatteregistreringsnummer', 'passnummer', 'sjukförsäkringsnummer', 'socialförsäkringsnummer', 'organisationsnummer', 'momsregistreringsnummer', 'bankens clearingnummer', 'chassinummer', 'enhetsidentifierare', 'anslutningssträng'],
  da: ['nationalt identifikationsnummer', 'skatteidentifikationsnummer', 'pasnummer', 'sygesikringsnummer', 'socialsikringsnummer', 'virksomhedsregistreringsnummer', 'momsnummer', 'bankregistreringsnummer', 'stelnummer', 'enheds-id', 'forbindelsesstreng'],
  nb: ['nasjonalt identifikasjonsnummer', 'skatteidentifikasjonsnummer', 'passnummer', 'helseforsikringsnummer', 'trygdenummer', 'organisasjonsnummer', 'MVA-nummer', 'bankens rutenummer', 'understellsnummer', 'enhets-ID', 'tilkoblingsstreng'],
  fi: ['kansallinen henkilötunnus', 'verotunniste', 'passin numero', 'sairausvakuutusnumero', 'sosiaaliturvatunnus', 'yritystunnus', 'ALV-tunniste', 'pankin reititysnumero', 'ajoneuvon valmistenumero', 'laitetunniste', 'yhteysmerkkijono'],
  pl: ['krajowy numer identyfikacyjny', 'numer identyfikacji podatkowej', 'numer paszportu', 'numer ubezpieczenia zdrowotnego', 'numer ubezpieczenia społecznego', 'numer rejestrowy firmy', 'numer VAT', 'numer rozliczeniowy banku', 'numer identyfikacyjny pojazdu', 'identyfikator urządzenia', 'ciąg połączenia'],
  cs: ['národní identifikační číslo', 'daňové identifikační číslo', 'číslo pasu', 'číslo zdravotního pojištění', 'číslo sociálního zabezpečení', 'identifikační číslo firmy', 'DIČ pro DPH', 'směrovací kód banky', 'identifikační číslo vozidla', 'identifikátor zařízení', 'připojovací řetězec'],
  sk: ['národné identifikačné číslo', 'daňové identifikačné číslo', 'číslo pasu', 'číslo zdravotného poistenia', 'číslo sociálneho poistenia', 'identifikačné číslo organizácie', 'IČ DPH', 'smerový kód banky', 'identifikačné číslo vozidla', 'identifikátor zariadenia', 'pripájací reťazec'],
  hu: ['nemzeti azonosító szám', 'adóazonosító jel', 'útlevélszám', 'egészségbiztosítási szám', 'társadalombiztosítási szám', 'cégjegyzékszám', 'közösségi adószám', 'banki irányítószám', 'járműazonosító szám', 'eszközazonosító', 'kapcsolati karakterlánc'],
  ro: ['cod numeric personal', 'cod de identificare fiscală', 'număr de pașaport', 'număr de asigurare de sănătate', 'număr de asigurare socială', 'număr de înregistrare a societății', 'cod de TVA', 'cod de rutare bancară', 'număr de identificare a vehiculului', 'identificator de dispozitiv', 'șir de conexiune'],
  el: ['εθνικός αριθμός ταυτότητας', 'αριθμός φορολογικού μητρώου', 'αριθμός διαβατηρίου', 'αριθμός ασφάλισης υγείας', 'αριθμός κοινωνικής ασφάλισης', 'αριθμός μητρώου εταιρείας', 'αριθμός ΦΠΑ', 'τραπεζικός κωδικός δρομολόγησης', 'αριθμός πλαισίου οχήματος', 'αναγνωριστικό συσκευής', 'συμβολοσειρά σύνδεσης'],
  tr: ['ulusal kimlik numarası', 'vergi kimlik numarası', 'pasaport numarası', 'sağlık sigortası numarası', 'sosyal güvenlik numarası', 'şirket sicil numarası', 'KDV numarası', 'banka yönlendirme numarası', 'araç kimlik numarası', 'cihaz tanımlayıcısı', 'bağlantı dizesi'],
  ru: ['национальный идентификационный номер', 'идентификационный номер налогоплательщика', 'номер паспорта', 'номер медицинского страхования', 'номер социального страхования', 'регистрационный номер компании', 'номер плательщика НДС', 'банковский маршрутный номер', 'идентификационный номер транспортного средства', 'идентификатор устройства', 'строка подключения'],
  uk: ['національний ідентифікаційний номер', 'податковий ідентифікаційний номер', 'номер паспорта', 'номер медичного страхування', 'номер соціального страхування', 'реєстраційний номер компанії', 'номер платника ПДВ', 'банківський маршрутний номер', 'ідентифікаційний номер транспортного засобу', 'ідентифікатор пристрою', 'рядок підключення'],
  bg: ['национален идентификационен номер', 'данъчен идентификационен номер', 'номер на паспорт', 'номер на здравна осигуровка', 'номер на социална осигуровка', 'регистрационен номер на фирма', 'номер по ДДС', 'банков маршрутен код', 'идентификационен номер на превозно средство', 'идентификатор на устройство', 'низ за връзка'],
  hr: ['nacionalni identifikacijski broj', 'porezni identifikacijski broj', 'broj putovnice', 'broj zdravstvenog osiguranja', 'broj socijalnog osiguranja', 'matični broj tvrtke', 'PDV broj', 'bankovni usmjerni broj', 'identifikacijski broj vozila', 'identifikator uređaja', 'niz za povezivanje'],
  sl: ['nacionalna identifikacijska številka', 'davčna številka', 'številka potnega lista', 'številka zdravstvenega zavarovanja', 'številka socialnega zavarovanja', 'matična številka podjetja', 'identifikacijska številka za DDV', 'bančna usmerjevalna številka', 'identifikacijska številka vozila', 'identifikator naprave', 'niz za povezavo'],
  et: ['isikukood', 'maksukohustuslase number', 'passi number', 'ravikindlustuse number', 'sotsiaalkindlustuse number', 'registrikood', 'käibemaksukohustuslase number', 'panga suunamisnumber', 'sõiduki identifitseerimisnumber', 'seadme identifikaator', 'ühendusstring'],
  lv: ['personas kods', 'nodokļu maksātāja numurs', 'pases numurs', 'veselības apdrošināšanas numurs', 'sociālās apdrošināšanas numurs', 'uzņēmuma reģistrācijas numurs', 'PVN numurs', 'bankas maršrutēšanas numurs', 'transportlīdzekļa identifikācijas numurs', 'ierīces identifikators', 'savienojuma virkne'],
  lt: ['asmens kodas', 'mokesčių mokėtojo kodas', 'paso numeris', 'sveikatos draudimo numeris', 'socialinio draudimo numeris', 'įmonės kodas', 'PVM mokėtojo kodas', 'banko maršruto numeris', 'transporto priemonės identifikavimo numeris', 'įrenginio identifikatorius', 'prisijungimo eilutė'],
  ar: ['رقم الهوية الوطنية', 'رقم التعريف الضريبي', 'رقم جواز السفر', 'رقم التأمين الصحي', 'رقم الضمان الاجتماعي', 'رقم السجل التجاري', 'رقم ضريبة القيمة المضافة', 'رقم التوجيه المصرفي', 'رقم تعريف المركبة', 'معرّف الجهاز', 'سلسلة الاتصال'],
  he: ['מספר זהות לאומי', 'מספר זיהוי לצורכי מס', 'מספר דרכון', 'מספר ביטוח בריאות', 'מספר ביטוח לאומי', 'מספר רישום חברה', 'מספר עוסק במע״מ', 'מספר ניתוב בנקאי', 'מספר זיהוי רכב', 'מזהה מכשיר', 'מחרוזת חיבור'],
  zh: ['国民身份号码', '税务识别号', '护照号码', '医疗保险号', '社会保障号码', '公司注册号', '增值税号', '银行路由号', '车辆识别号', '设备标识符', '连接字符串'],
  ja: ['国民識別番号', '納税者番号', 'パスポート番号', '健康保険番号', '社会保障番号', '法人登録番号', 'VAT番号', '銀行ルーティング番号', '車両識別番号', 'デバイス識別子', '接続文字列'],
  ko: ['국민 식별 번호', '납세자 번호', '여권 번호', '건강보험 번호', '사회보장번호', '사업자 등록 번호', '부가가치세 번호', '은행 라우팅 번호', '차량 식별 번호', '기기 식별자', '연결 문자열'],
  vi: ['số định danh quốc gia', 'mã số thuế', 'số hộ chiếu', 'số bảo hiểm y tế', 'số an sinh xã hội', 'số đăng ký doanh nghiệp', 'mã số VAT', 'số định tuyến ngân hàng', 'số nhận dạng xe', 'mã định danh thiết bị', 'chuỗi kết nối'],
  hi: ['राष्ट्रीय पहचान संख्या', 'कर पहचान संख्या', 'पासपोर्ट संख्या', 'स्वास्थ्य बीमा संख्या', 'सामाजिक सुरक्षा संख्या', 'कंपनी पंजीकरण संख्या', 'वैट संख्या', 'बैंक रूटिंग संख्या', 'वाहन पहचान संख्या', 'डिवाइस पहचानकर्ता', 'कनेक्शन स्ट्रिंग'],
  id: ['nomor identitas nasional', 'nomor pokok wajib pajak', 'nomor paspor', 'nomor asuransi kesehatan', 'nomor jaminan sosial', 'nomor registrasi perusahaan', 'nomor PPN', 'nomor routing bank', 'nomor identifikasi kendaraan', 'pengenal perangkat', 'string koneksi'],
  th: ['เลขประจำตัวประชาชน', 'เลขประจำตัวผู้เสียภาษี', 'หมายเลขหนังสือเดินทาง', 'หมายเลขประกันสุขภาพ', 'หมายเลขประกันสังคม', 'เลขทะเบียนนิติบุคคล', 'เลขประจำตัวผู้เสียภาษีมูลค่าเพิ่ม', 'รหัสเส้นทางธนาคาร', 'หมายเลขตัวถังรถ', 'ตัวระบุอุปกรณ์', 'สตริงการเชื่อมต่อ'],
};

/**
 * Identifier types: category label plus the id's own short name in parentheses, which reads the
 * same in every language ("[national ID number (BSN)]", "[numéro de passeport (US)]").
 */
const CATEGORY_TYPES: Readonly<Record<string, readonly [Category, string?]>> = {
  us_itin: ['tax_id', 'ITIN'],
  us_ein: ['tax_id', 'EIN'],
  us_passport: ['passport', 'US'],
  us_npi: ['health_id', 'NPI'],
  us_mbi: ['health_id', 'MBI'],
  aba_routing: ['routing', 'ABA'],
  uk_nino: ['social_security', 'NINO'],
  uk_nhs: ['health_id', 'NHS'],
  uk_passport: ['passport', 'UK'],
  ie_pps: ['social_security', 'PPS'],
  de_tax_id: ['tax_id', 'Steuer-ID'],
  fr_nir: ['social_security', 'NIR'],
  fr_siren: ['company_id', 'SIREN'],
  fr_siret: ['company_id', 'SIRET'],
  es_dni: ['national_id', 'DNI'],
  es_nie: ['national_id', 'NIE'],
  it_fiscal_code: ['tax_id', 'codice fiscale'],
  nl_bsn: ['national_id', 'BSN'],
  be_national_number: ['national_id', 'BE'],
  pt_nif: ['tax_id', 'NIF'],
  pl_pesel: ['national_id', 'PESEL'],
  se_personnummer: ['national_id', 'personnummer'],
  fi_hetu: ['national_id', 'HETU'],
  dk_cpr: ['national_id', 'CPR'],
  no_fodselsnummer: ['national_id', 'fødselsnummer'],
  ch_ahv: ['social_security', 'AHV/AVS'],
  in_aadhaar: ['national_id', 'Aadhaar'],
  in_pan: ['tax_id', 'PAN'],
  au_tfn: ['tax_id', 'TFN'],
  au_medicare: ['health_id', 'Medicare'],
  au_abn: ['company_id', 'ABN'],
  au_acn: ['company_id', 'ACN'],
  sg_nric: ['national_id', 'NRIC/FIN'],
  kr_rrn: ['national_id', 'RRN'],
  cn_resident_id: ['national_id', 'CN'],
  jp_my_number: ['national_id', 'My Number'],
  br_cpf: ['tax_id', 'CPF'],
  br_cnpj: ['company_id', 'CNPJ'],
  ca_sin: ['social_security', 'SIN'],
  mx_curp: ['national_id', 'CURP'],
  vin: ['vehicle'],
  imei: ['device', 'IMEI'],
  eu_vat: ['vat'],
  connection_string: ['connection'],
};

/**
 * Types with a label of their own in the catalog's context languages only; every other language
 * shows its generic label ("[sensitive data]") for them.
 */
// prettier-ignore
const OWN_LABELS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  bank_account: { en: 'bank account number', de: 'Kontonummer', fr: 'numéro de compte bancaire', es: 'número de cuenta bancaria', it: 'numero di conto bancario', nl: 'bankrekeningnummer', pt: 'número de conta bancária' },
  card_security_code: { en: 'card security code', de: 'Kartenprüfnummer', fr: 'cryptogramme visuel', es: 'código de seguridad de la tarjeta', it: 'codice di sicurezza della carta', nl: 'beveiligingscode van de kaart', pt: 'código de segurança do cartão' },
  medical_record_number: { en: 'medical record number', de: 'Patientennummer', fr: 'numéro de dossier médical', es: 'número de historia clínica', it: 'numero di cartella clinica', nl: 'patiëntnummer', pt: 'número de prontuário' },
  insurance_id: { en: 'insurance member number', de: 'Versichertennummer', fr: "numéro d'assuré", es: 'número de afiliado', it: 'numero di polizza', nl: 'verzekeringsnummer', pt: 'número de apólice' },
  driver_license: { en: "driver's license number", de: 'Führerscheinnummer', fr: 'numéro de permis de conduire', es: 'número de licencia de conducir', it: 'numero di patente di guida', nl: 'rijbewijsnummer', pt: 'número da carta de condução' },
};

/** Language aliases: ISO 639-1 `no` (Norwegian) uses the Bokmål labels. */
const LANGUAGE_ALIASES: Readonly<Record<string, string>> = { no: 'nb' };

function buildLabels(): ReadonlyMap<string, ReadonlyMap<string, string>> {
  const labels = new Map<string, ReadonlyMap<string, string>>();
  for (const [language, row] of Object.entries(LABEL_ROWS)) {
    const map = new Map<string, string>(LABEL_TYPES.map((type, index) => [type, `[${row[index]!}]`]));
    const categories = CATEGORY_ROWS[language];
    if (categories !== undefined) {
      for (const [type, [category, name]] of Object.entries(CATEGORY_TYPES)) {
        const label = categories[CATEGORIES.indexOf(category)]!;
        map.set(type, name === undefined ? `[${label}]` : `[${label} (${name})]`);
      }
    }
    for (const [type, own] of Object.entries(OWN_LABELS)) {
      const label = own[language];
      map.set(type, label === undefined ? map.get(GENERIC_LABEL_KEY)! : `[${label}]`);
    }
    labels.set(language, map);
  }
  for (const [alias, target] of Object.entries(LANGUAGE_ALIASES)) {
    const targetLabels = labels.get(target);
    if (targetLabels !== undefined) labels.set(alias, targetLabels);
  }
  return labels;
}

/** Built-in bracketed labels: language -> entity type (or `_generic`) -> label. */
export const BUILTIN_ABSTRACT_LABELS: ReadonlyMap<string, ReadonlyMap<string, string>> = buildLabels();

/** ISO 639-1 codes with built-in abstract labels. */
export const ABSTRACT_LANGUAGES: readonly string[] = Object.freeze([...BUILTIN_ABSTRACT_LABELS.keys()].sort());
