"""Street-address recognizer: one `location` span (model label `ADDRESS`) per postal address.

A statistical model finds the city of "125 S Church Street, East Stephanie" and tags the street
as an ORG or a PERSON; the address is one identifier and is found here by its structure instead:
a street part, then optional unit, postcode, city, state and country segments.

Street part, by the forms used in the catalog's countries:
- number first, street type last (US, UK, CA, AU, IE): `221B Baker Street`, `43855 Park Drive`,
  `125 S Church St.`; the street types are the USPS Publication 28 suffixes and common UK ones;
- number first, type first (FR): `12 rue de la Paix`, `3 bis avenue Foch`;
- type first, number last (IT, ES, PT, FR, NL forms): `Via Pasquale Scura 127`, `Calle Mayor, 5`,
  `Avenida da Liberdade 110`, `Rua Augusta n.º 24`;
- compound street word then number (DE, AT, CH, NL): `Hauptstraße 5`, `Keizersgracht 123a`,
  `Hauptstr. 5`, `Am Markt 3`;
- street words of the Nordic, Finnish, Baltic and Central European forms, glued or apart:
  `Norrbyvägen 21`, `Ringvej 177`, `Siikarannantie 59`, `Grazer Strasse 10`, `Bécsi utca 53`;
- post-office boxes: `P.O. Box 255`, `Postfach 1234`;
- US military mail (USPS Publication 28, 2.5): `PSC 2322, Box 6025, APO AA 88307`,
  `Unit 0143 Box 6349 DPO AA 62532`, `USNS Javorac FPO AE 67942`.

A street named without a number after a preposition (`shows on Hoffmann Point Street`) is a
location too (`street_names`), but not a whole address.

Tail segments (each after a comma or line break, or right after the street for a unit, postcode
or state/ZIP): `Apt 4B`, `Suite 026`, `75008 Paris`, `1012 AB Amsterdam`, `1100-148 Lisboa`,
`SW1A 1AA`, `Springfield, IL 62704`, `East Stephanie`, `Czech Republic`, `Sweden 75248`; after a
unit the city and country may follow on the same line without a comma (`Suite 626 FAUSKE Norway`).
A street named without a type (`Kallio 3`) needs a house number before it, a unit, a postcode
or a known place among its segments. A city segment must end where the line, the clause (comma)
or the sentence (`.`, `?`, `!`) ends, and it is never a known first name followed by a surname
(a signature's name line after an address is not its city).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from . import gazetteer as g

_UP = g.UPPER
CAP = rf"[{_UP}][\w'\u2019\-]*\.?"
_CAP_NAME = rf"[{_UP}][\w'\u2019\-]*"
_PARTICLE = (
    r"(?:de|du|des|la|le|les|l'|d'|del|della|dei|degli|delle|di|da|do|dos|das|y|e|van|von|der|den|het|am|an)"
)
# An elided article or preposition glued to the name that follows it: "Avenue d'Ouchy 109", "Via
# dell'Indipendenza 8", "rue de l'Université 7" (Italian and French). Session 14 (wave13/ner2).
_ELIDED = rf"(?:[dlDL]|dell|dall|all|sull|nell|coll|Dell|Dall|All|Sull|Nell)['\u2019](?=[{g.UPPER}])"
# A street's name word, never a unit word: in "703, chemin Emmanuel Charles Apt. 581" the unit is a tail.
_NAME = rf"(?!(?:Apt|Apartment|Suite|Ste|Unit|Flat|Floor|Room|Bldg|Building)\b){CAP}"
# A house number's second part: "13/35", "1-5", "79/36".
_RANGE = r"(?:[/\-]\d{1,4}[a-zA-Z]?\b)?"
_NUM = r"\d{1,6}[A-Za-z]?(?:\s?[-/\u2013]\s?\d{1,5}[A-Za-z]?)?"

_US_TYPES = (
    "Street|St|Avenue|Ave|Av|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Place|Pl|Square|Sq|Terrace|Ter|"
    "Str|Way|Parkway|Pkwy|Parkways|Highway|Hwy|Circle|Cir|Circles|Trail|Trl|Crescent|Cres|Close|Grove|Gardens|Gdns|"
    "Row|Mews|Hill|Hills|Plaza|Alley|Aly|Route|Rte|Walk|Walks|Park|Parks|Expressway|Expy|Freeway|Fwy|Ridge|"
    "Ridges|Pike|Loop|Corner|Corners|Village|Villages|Union|Unions|Cape|Spur|Spurs|Pine|Pines|Point|Points|"
    "Port|Ports|Crossing|Xing|Heights|Hts|View|Views|Vista|Harbor|Harbors|Harbour|Haven|Island|Islands|Isle|"
    "Junction|Junctions|Jct|Key|Keys|Knoll|Knolls|Lake|Lakes|Landing|Light|Lights|Lodge|Manor|Manors|Meadow|"
    "Meadows|Mill|Mills|Mission|Motorway|Mount|Mountain|Mountains|Oval|Orchard|Pass|Passage|Path|Plain|"
    "Plains|Prairie|Ranch|Rapid|Rapids|Rest|River|Run|Shoal|Shoals|Shore|Shores|Skyway|Spring|Springs|"
    "Station|Stravenue|Stream|Summit|Throughway|Trace|Track|Trafficway|Tunnel|Turnpike|Underpass|Valley|"
    "Valleys|Viaduct|Ville|Well|Wells|Bypass|Causeway|Center|Centers|Centre|Cliff|Cliffs|Club|Common|Commons|"
    "Cove|Coves|Creek|Crest|Curve|Dale|Dam|Divide|Estate|Estates|Extension|Extensions|Falls|Ferry|Field|"
    "Fields|Flat|Flats|Ford|Fords|Forest|Forge|Forges|Fork|Forks|Fort|Garden|Gateway|Glen|Glens|Green|Greens|"
    "Hollow|Inlet|Lock|Locks|Mall|Neck|Overpass|Radial|Ramp|Squares|Streets|Brook|Brooks|Burg|Burgs|Bluff|"
    "Bluffs|Bottom|Branch|Bridge|Bridges|Bend|Beach|Arcade|Camp|Canyon|Wynd|Parade|Esplanade|Broadway|Embankment|"
    "Fall|Drives|Roads|Courts|Lanes|Streets|Avenues|Ways|Plazas|Trails|Course|Crossroad|Groves|Loaf|Wall"
)
# The street and place types above as words (session 15, wave14/ner3), with the place nouns address
# generators also put after a name ("Liviana Land", "Verda Via", "Tadzio Rue"): the last word of a
# model place the pipeline keeps after a preposition (`pipeline.typed_place_after_preposition`).
PLACE_TYPE_WORDS = frozenset(word.lower() for word in _US_TYPES.split("|")) | {"land", "via", "rue"}
_FR_TYPES = (
    r"rue|avenue|av\.|boulevard|bd|place|chemin|allée|impasse|quai|route|cours|passage|square|faubourg"
)
_SOUTH_TYPES = (
    "Via|Viale|Piazza|Piazzale|Corso|Largo|Vicolo|Strada|Calle|C/|Avenida|Avda\\.?|Av\\.|Plaza|Paseo|Camino|"
    "Carrer|Carretera|Ronda|Travesía|Rua|Travessa|Praça|Estrada|Alameda|Rue|Avenue|Boulevard|Place|Chemin|"
    "Quai|Allée|Impasse|"
    # more Italian, Spanish and Portuguese street words (toponymy of those countries)
    "Contrada|Borgo|Rotonda|Stretto|Incrocio|Canale|Lungomare|Salita|Vico|Traversa|Prolongación|Circuito|"
    "Cerrada|Privada|Callejón|Pasaje|Glorieta|Cañada|Urbanización|Diagonal|Diag\\.|Ladeira|Esplanada|Rodovia|"
    "Vereda|Viela|Largo|Beco|Parque|Passeio|R\\.|Av|Rambla|Lagoa|Setor|Quadra|"
    # Polish and Czech: "ul. Wiosenna 11", "Aleja Róż 4", "plac Wolności 3"
    "ul\\.|Ul\\.|ulica|Ulica|al\\.|Al\\.|aleja|Aleja|Aleje|plac|Plac|pl\\.|os\\.|náměstí|nám\\.|třída|"
    # Dutch and Flemish street words before the name: "Laan van Meerdervoort 50", "Plein 1944 3"
    # (session 14, wave13/ner2)
    "Laan|Plein|Kade|Dreef|Singel|Steenweg"
)


def _words(alternation: str) -> frozenset[str]:
    return frozenset(
        g.fold(w.replace("\\", "").rstrip(".?/"))
        for w in alternation.split("|")
        if w.replace("\\", "").strip(".?/")
    )


# Words that open a street's name ("Avenida Serna", "Intrarea Claudia Dochioiu", "Travessa de
# Nascimento"): a model span that starts with one is a street, not an organization or a person.
STREET_OPENERS = (
    _words(_FR_TYPES)
    | _words(_SOUTH_TYPES)
    | frozenset(
        [
            "strada",
            "intrarea",
            "aleea",
            "calea",
            "bulevardul",
            "soseaua",
            "piata",
            "splaiul",
            "andador",
            "retorno",
            "periférico",
            "eje",
            "lagoa",
            "r",
        ]
    )
)

_MONTHS = (
    r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|January|February|March|April|June|July|August|"
    r"September|October|November|December|Januar|Februar|März|Juni|Juli|Oktober|Dezember|janvier|février|mars|"
    r"avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre|Enero|Febrero|Marzo|Abril|Mayo|Junio|"
    r"Julio|Agosto|Septiembre|Octubre|Noviembre|Diciembre|Gennaio|Febbraio|Aprile|Maggio|Giugno|Luglio|"
    r"Settembre|Ottobre|Dicembre|Janeiro|Fevereiro|Março|Maio|Junho|Julho|Setembro|Outubro|Novembro|Dezembro|"
    r"Januari|Februari|Maart|Mei|Augustus|Chapter|Section|Page|Version|Windows|Python|Java|Node|Android|iOS|"
    r"Ubuntu|Debian|Fedora|Office|Level|Step|Part|Room|Table|Figure|Item|Line|Row|Issue|Release)\b"
)
_COMPOUND_SUFFIX = (
    "straße|strasse|str\\.|weg|gasse|platz|allee|ring|damm|ufer|chaussee|steig|pfad|markt|hof|"
    "straat|laan|plein|plaats|gracht|kade|singel|dijk|steeg|dreef|pad|wal|haven|"
    # Nordic, Finnish, Estonian, Polish/Czech: Sjötullsgatan, Norrbyvägen, Ringvej, Skoanveien, Laukaantie
    "gatan|gata|gränd|vägen|väg|gade|vej|veien|vegen|gaten|katu|tie|kuja|tee|ulica|ulice"
)

_GLUED_TYPES = "straße|strasse|weg|gasse|platz|allee|laan|straat|gracht|steeg|kade|plein"

_STREET = re.compile(
    rf"""(?x)
    # every form opens with a digit, a capital or a Polish/Czech street word in lower case: one
    # character test rejects most positions before the seven forms are tried there; and every form
    # opens at a word boundary (session 14: tested once here, not once per form)
    (?=[\d{_UP}uapnt])\b
    (?:(?P<military>\b(?:(?:PSC|CMR|Unit)\s+\d{{3,5}},?\s+Box\s+\d{{3,5}}|(?:USNS|USNV|USS|USCGC)\s+{CAP}(?:\s+{CAP})?)
        [ \t]*(?:,[ \t]*|\r?\n[ \t]*)(?:APO|FPO|DPO)\s+(?:AA|AE|AP)\s+\d{{5}}\b)
    |(?P<us>\b{_NUM}[ \t]+(?:(?:{CAP}|\d{{1,3}}(?:st|nd|rd|th))[ \t]+){{0,4}}(?:{_US_TYPES})s?\b\.?
        (?:[ \t]+(?:N|S|E|W|NE|NW|SE|SW|North|South|East|West)\b\.?)?)
    |(?P<fr>\b\d{{1,5}}(?:\s?(?:bis|ter|[A-Za-z]))?,?\s+(?i:{_FR_TYPES})\s+
        (?:{_PARTICLE}[ \t]*|{_ELIDED})*{_NAME}(?:[ \t\-]+(?:{_PARTICLE}[ \t]*|{_ELIDED})*{_NAME}){{0,4}}
        # a street line copied whole after a building number keeps its own number: "44485 Rue
        # Supexhe 303 Apt. 888", "29668 Rue du Commerce 12\n Suite 582" (never a postcode: "12 rue
        # de la Paix 75002 Paris" ends at the street)
        (?:[ \t]+\d{{1,4}}[A-Za-z]?\b(?=[ \t]*(?:$|[\r\n,;]|(?:Apt|Apartment|Suite|Ste|Unit)\b)))?)
    |(?P<south>\b(?:{_SOUTH_TYPES})[ \t]+(?:{_PARTICLE}[ \t]+|{_ELIDED})*{_NAME}
        (?:[ \t]+(?:{_PARTICLE}[ \t]+|{_ELIDED})*{_NAME}){{0,4}}
        ,?\s*(?:n\.?\s?[º°o]?\.?\s*)?\d{{1,5}}[A-Za-z]?\b{_RANGE})
    # (the look-ahead, session 14: only a word followed by a number, or by one word and a number,
    # is tried against every ending of the suffix list)
    # a house number before a name glued to its German or Dutch street type, the English order:
    # "12 Hauptstrasse", "7 Keizersgracht" (session 14, wave13/ner2); with its own number after it,
    # a street line copied whole, it is the compound form below
    |(?P<glued>\b\d{{1,5}}[a-zA-Z]?[ \t]+[{_UP}][\w\-]{{2,}}(?:{_GLUED_TYPES})\b(?![ \t]*\d))
    |(?P<compound>\b(?=[{_UP}][\w\-]*\.?\s+(?:{CAP}\s+)?\d)[{_UP}][\w\-]*(?:{_COMPOUND_SUFFIX}|-(?i:{_COMPOUND_SUFFIX}))
        (?:\s+{CAP})?\s+\d{{1,4}}(?:[ \t]?[a-zA-Z]\b)?{_RANGE}
        |\b(?:Am|An\sder|Auf\sder|Im|In\sder|Zum|Zur|Op\sde|Aan\sde)\s+{CAP}\s+\d{{1,4}}[a-z]?\b
        |\b{CAP}\s+(?:Straße|Strasse|Str\.|Gasse|Weg|Platz|Allee|utca|út|körút|tér|rakpart|sétány|köz|fasor|sor|
            iela|gatvė|prospekt|ulica|cesta|trg|ulice|nábřeží)[ \t]+\d{{1,4}}[a-z]?\b{_RANGE}\.?)
    # (the look-ahead is the form's own words and number, session 14: checked before the list of
    # month and product words is tried at every capitalized word)
    |(?P<weak>\b(?:\d{{1,6}}[ \t]+)?(?=[{_UP}][^\W\d_]{{2,}}(?:[ \t]+[{_UP}][^\W\d_]+){{0,2}}[ \t]+\d)
        (?!{_MONTHS}|[A-Z]{{2,4}}[ \t])  # not an acronym: "GDR 144A"
        [{_UP}][^\W\d_]{{2,}}(?:[ \t]+[{_UP}][^\W\d_]+){{0,2}}[ \t]+\d{{1,5}}[a-zA-Z]?\b{_RANGE})
    |(?P<box>\b(?:P\.?\s?O\.?\s?Box|Postfach|Apartado|Casella\spostale|Caixa\spostal)\s+\d{{1,6}}\b))
    """
)

_POSTCODE = r"(?:\d{4}\s?[A-Z]{2}|\d{4,5}(?:-\d{3,4})?|[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}|[A-Z]-\d{4,5})"
# A town's name stays on its line; Czech, Slovene and German towns hold particles too
# ("Rychnov u Jablonce nad Nisou", "Zagorje ob Savi").
_TOWN_PARTICLE = rf"(?:{_PARTICLE}|nad|pod|u|ob|na|pri|bei|im|sur|sul|upon)"
_CITY = rf"{_CAP_NAME}(?:[ \t\-]+(?:{_TOWN_PARTICLE}[ \t\-]+)*{_CAP_NAME}){{0,3}}"
_END = r"(?=[ \t]*(?:[,;\n\r)\]?!]|$|\.(?:\s|$))|[ \t]+[a-z])"
_UNIT = re.compile(
    r"(?:,?[ \t]*|[ \t]*\n[ \t]*)"
    r"(?:Apt|Apartment|Suite|Ste|Unit|Flat|Floor|Fl|Room|Rm|Bldg|Building|#|"
    # floors, doors and flats in the catalog's other languages: "Piso 6", "Puerta 2", "Stiege 3"
    r"Piso|Puerta|Planta|Esc|Escalera|Apto|Depto|Dpto|Andar|Bloco|Sala|Piano|Interno|Scala|Stiege|Tür|Top|Appartamento|"
    r"Étage|Etg|Bte|Boîte)\.?[ \t]*#?\w{1,6}\b"
)
_SAME_LINE = re.compile(
    rf"(?:,?[ \t]+)(?:{_POSTCODE}(?:[ \t]+{_CITY})?|[A-Z]{{2}}[ \t]+\d{{5}}(?:-\d{{4}})?){_END}"
)
# After a unit, the city (and country) may follow on the same line: "Suite 626 FAUSKE Norway".
_AFTER_UNIT = re.compile(rf"[ \t]+{_CITY}(?:,?[ \t]+{_POSTCODE})?{_END}")
_NEXT = re.compile(
    rf"""(?x)(?:[ \t]*(?:,|\r?\n)[ \t]*)+
    (?:{_POSTCODE}(?:[ \t]+{_CITY})?
      |{_CITY}(?:,?[ \t]+[A-Z]{{2}})?(?:,?[ \t]+{_POSTCODE})?
    ){_END}"""
)
_MAX_TAIL = 5
# A building number, a street line in any language and a unit: "44485 Rue Supexhe 303 Apt. 888",
# "9188 115 Av. Habib bourguiba\n Suite 055", "2204 86 Pavlou Drandaki Apt. 923", "1220 Agip u.
# 91.\n Apt. 615". The number and the apartment or suite bracket the street whatever its words
# (a street type this file does not list, a name in lower case, an abbreviation with a dot); the
# city, region, country and postcode after the unit follow as after any unit. Session 12.
_BRACKETED = re.compile(
    r"(?<![\w.,/\-])\d{1,6}[A-Za-z]?(?P<words>(?:[ \t]+[^\W_][\w'\u2019.\-]*){1,7}?)"
    r"[ \t]*(?:,[ \t]*|\r?\n[ \t]*)?(?:Apt|Apartment|Suite|Ste)\.?[ \t]*#?\d{1,5}[A-Za-z]?\b"
)
# English words that a sentence has between a number and "Suite 5" but a street line never has.
_NOT_STREET_WORDS = frozenset(
    [
        *("to", "for", "the", "and", "at", "is", "of", "in", "on", "my", "our", "your", "with", "from", "by"),
        *("was", "are", "be", "it", "this", "that", "have", "has", "or", "as", "me", "we", "you", "i", "a"),
        *("an", "per", "rooms", "room", "nights", "night", "guests", "people", "days", "years", "floor"),
    ]
)


_WORD_BEFORE = re.compile(r"([^\W\d_]+)[ \t]+$")


def _bracketed(text: str, match: re.Match[str]) -> bool:
    words = match.group("words").split()
    if not any(w[0].isupper() for w in words):
        return False
    if any(w.lower().strip(".") in _NOT_STREET_WORDS for w in words):
        return False
    # "Version 3 Beta Suite 2024", "Chapter 4 ... Suite 2": the number is a version, a chapter, a step
    before = _WORD_BEFORE.search(text, max(0, match.start() - 20), match.start())
    return before is None or re.match(_MONTHS, before.group(1)) is None


# A second street name on a street line's own line, after its house number ("Maapadonkuja 6 Baldwin
# Harbor", "ul. Nad Jarem 22 Petheö Canyon": a street line copied whole, then the street of the
# building): one to three capitalized words and a USPS/UK street type, then the line, the clause or
# a unit. Session 11.
_SECOND_STREET = re.compile(
    rf"[ \t]+(?:{_NAME}[ \t]+){{1,3}}(?:{_US_TYPES})s?\b\.?(?=[ \t]*(?:$|[\r\n,;]|(?:Apt|Suite|Unit)\b))",
    re.MULTILINE,
)


def _is_person_line(value: str) -> bool:
    words = g.WORD.findall(value)
    return (
        len(words) >= 2
        and not any(ch.isdigit() for ch in value)  # "Bertrand, ME 63844": a town, a state and a ZIP code
        and not words[0].isupper()  # "LE CREUSOT", "LO": a city or region in capitals, not a name line
        and g.fold(words[0]) in g.first_names()
        and g.fold(words[0]) not in g.places()
        and g.fold(value.strip()) not in g.places()
    )


# A house number before a street line that holds its own number: "637 Strojírenská 1006", "5650 69
# boulevard Aristide Briand", "0915 Rozmanova ulica 771" (a building on a numbered lot, and the form
# an address takes when a number is written before a street line copied whole).
_NUMBER_BEFORE = re.compile(r"(?:^|(?<=[\s:;(]))\d{1,6}[ \t]+$")


def _house_number_before(text: str, match: re.Match[str], floor: int) -> int:
    start = match.start()
    if match.lastgroup in ("military", "box"):
        return start
    low = max(floor, start - 12)
    before = _NUMBER_BEFORE.search(text[low:start])
    if before is None or (before.start() == 0 and low > 0 and not text[low - 1].isspace()):
        return start
    return low + before.start()


# The word "street" (or "road", "avenue") right after a name and a number names it as a street whose
# own type is in its language or left out: "refers to Bonaröd 15 street in LÄNGHEM", "Democracia
# 7069 street". Session 14 (wave13/ner2).
_STREET_WORD_AFTER = re.compile(r"[ \t]+(?i:street|road|avenue)\b")


def find(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of every street address in `text`, in order, not overlapping."""
    position = floor = 0  # floor: the end of the last address (a number there is its own)
    has_unit = "Apt" in text or "Suite" in text or "Ste" in text  # the cheap test for _BRACKETED
    while True:
        match = _STREET.search(text, position)
        bracket = _BRACKETED.search(text, position) if has_unit else None
        while bracket is not None and not _bracketed(text, bracket):
            bracket = _BRACKETED.search(text, bracket.start() + 1)
        if bracket is not None and (
            match is None
            or bracket.end() <= match.start()  # an address of its own before the street match
            or (bracket.start() <= match.start() and bracket.end() > match.end())  # the street and more
        ):
            match = bracket
        if match is None:
            return
        end = match.end()
        second = _SECOND_STREET.match(text, end)
        if second is not None:
            end = second.end()  # "Maapadonkuja 6 Baldwin Harbor": a second street name on the line
        # A street named without a type ("Erbenova 1334") is an address only with a leading house
        # number or a unit or postcode after it: "Windows 10" and "Python 3" have neither.
        confirmed = (
            match.lastgroup != "weak"
            or bool(re.match(r"\d", match.group()))
            or second is not None
            or _STREET_WORD_AFTER.match(text, end) is not None  # "Bonaröd 15 street in LÄNGHEM"
        )
        after_unit = match.re is _BRACKETED
        for _ in range(_MAX_TAIL):
            unit = _UNIT.match(text, end)
            tail = unit or _SAME_LINE.match(text, end)
            if tail is None and after_unit:
                tail = _AFTER_UNIT.match(text, end)
            after_unit = unit is not None
            confirmed = confirmed or tail is not None
            if tail is None:
                tail = _NEXT.match(text, end)
                if tail is not None and _is_person_line(tail.group()):
                    tail = None
            if tail is None:
                break
            # A postcode, or a segment that is a known place or country ("Mairring 3\nNew
            # Debratown\nYemen"), makes a street named without a type an address.
            pieces = [g.fold(piece.strip(" \t")) for piece in re.split(r"[\r\n,]", tail.group())]
            confirmed = (
                confirmed or bool(re.search(r"\d", tail.group())) or any(p in g.places() for p in pieces)
            )
            end = tail.end()
        if not confirmed:
            position = match.start() + 1
            continue
        while end > match.start() and text[end - 1] in " \t,.":  # a closing dot belongs to the sentence
            end -= 1
        yield _house_number_before(text, match, floor), end
        floor = end
        position = end


# Street types that name little else after "on"/"along"/"off" ("a flat on Blake Bypass", "on Moore
# Stravenue"): the USPS suffixes, less those that are everyday nouns in technical text too ("on
# Azure Key", "in Data Lake", "at Union Station", "on Google Cloud Platform").
_NAMED_TYPES = (
    "Street|Road|Avenue|Boulevard|Lane|Drive|Parkway|Terrace|Crescent|Square|Highway|Expressway|Freeway|"
    "Motorway|Turnpike|Bypass|Causeway|Stravenue|Viaduct|Alley|Mews|Close|Grove|Gardens|Heights|Hills|Meadows|"
    "Meadow|Plaza|Court|Circle|Trail|Ridge|Pike|Crossing|Esplanade|Embankment|Parade|Wynd|Row|Walk|Knoll|"
    "Knolls|Glen|Hollow|Manor|Orchard|Summit|Vista|Overpass|Underpass|Throughway|Trafficway|Skyway"
)
# Session 15: after "from", "to", "near", "via" too ("My family comes from Cardoso Bypass", "sent
# from Sato Mill"): a street or an address generator's town named this way is a place there too,
# unless a capitalized word follows the type ("the invoice from Orchard Lane Foods Group": a firm).
_NAMED_STREET = re.compile(
    rf"(?<![\w])(?P<preposition>on|in|at|along|off|down|up|into|from|to|near|via|towards)[ \t]+"
    rf"(?P<street>{_CAP_NAME}(?:[ \t]+{_CAP_NAME}){{0,3}}[ \t]+(?:{_NAMED_TYPES}))\b(?![\-.]\w)"
)


# Any USPS street type after one or two words that are names (a known first name or surname, or a
# word the model's vectors do not know): "on Lee Shore", "on Dunn Forks", "on Christopher Rest"
# (address generators and towns name streets after people). Everyday nouns among the types ("Park",
# "Station", "Key") count here only because the words before them are names.
_NAME_STREET = re.compile(
    rf"(?<![\w])(?P<preposition>on|at|along|off|down|up|into|in|from|to|near|via|towards)[ \t]+"
    rf"(?P<street>(?P<names>{_CAP_NAME}(?:[ \t]+{_CAP_NAME})?)[ \t]+(?P<type>{_US_TYPES}))\b(?![\-.]\w|'s)"
)


# Types that name buildings and products more often than streets ("Union Station", "Azure Key",
# "Lincoln Center", "Power Point"): never after names alone.
_EVERYDAY_TYPES = frozenset(
    [
        *("station", "center", "centre", "club", "key", "keys", "union", "unions", "light", "lights"),
        *("point", "points", "mission", "port", "ports", "lake", "lakes", "park", "parks", "village"),
        "villages",
    ]
)


def _named_after_people(match: re.Match[str]) -> bool:
    names = match.group("names").split()
    kind = g.fold(match.group("type"))
    if kind in _EVERYDAY_TYPES:
        return False
    if any(
        g.fold(w) in g.CLOSED_CLASS or g.fold(w) in g.function_words() or g.fold(w) in g.words("tech_terms")
        for w in names
    ):
        return False
    if len(names) == 1 and g.fold(names[0]) in g.first_names() and kind in g.last_names():
        return False  # "at Sarah Park", "with Anna Wells": a person just as likely
    return all(
        g.fold(w) in g.first_names() or g.fold(w) in g.last_names() or not g.common_word(w) for w in names
    )


# Pre-checks (session 14, speed only): both patterns end in a street type after a space or tab
# (`_NAMED_TYPES` are among `_US_TYPES`), so one scan that skips to the spaces tells whether either
# can match; most texts name no street type.
_TYPE_AFTER_SPACE = re.compile(rf"[ \t](?:{_US_TYPES})\b")


# The prepositions session 15 added to each pattern: after them a capitalized word that follows the
# street type continues a firm's name instead.
_ADDED_NAMED = frozenset(["from", "to", "near", "via", "towards"])
_ADDED_NAME = _ADDED_NAMED | {"in"}
_CAPITAL_AFTER = re.compile(rf"[ \t]+[{_UP}]")


def _firm_goes_on(text: str, match: re.Match[str], added: frozenset[str]) -> bool:
    return match.group("preposition") in added and _CAPITAL_AFTER.match(text, match.end()) is not None


def street_names(text: str) -> Iterator[tuple[int, int]]:
    """Streets named without a house number after a preposition: "on Hoffmann Point Street",
    "on Lee Shore" (`_NAME_STREET`). The words before the type must not be greetings, labels or
    instructions ("on Reply Street" is rare; "at Main Street" is a place)."""
    if _TYPE_AFTER_SPACE.search(text) is None:
        return
    seen = set()
    for match in _NAMED_STREET.finditer(text):
        if _firm_goes_on(text, match, _ADDED_NAMED):
            continue
        words = g.WORD.findall(match.group("street"))[:-1]
        if any(g.fold(word) in g.CLOSED_CLASS or g.fold(word) in g.function_words() for word in words):
            continue
        seen.add(match.span("street"))
        yield match.start("street"), match.end("street")
    for match in _NAME_STREET.finditer(text):
        if _firm_goes_on(text, match, _ADDED_NAME):
            continue
        if match.span("street") not in seen and _named_after_people(match):
            yield match.start("street"), match.end("street")


# Intersections: "the corner of Elm Street and Ruiz Avenue", "the intersection of 4308 Morris
# Street & Åström Viaduct", and "Bond and Porter streets". One place, one span (both streets).
_ORDINAL = r"\d{1,3}(?:st|nd|rd|th)"
_CROSS_WORD = rf"(?:{_CAP_NAME}|{_ORDINAL})"
# A street type of the French, Southern European and Polish/Czech forms before the name, in either
# case and abbreviated ("rue", "ul.", "C/", "Avda.", "via"), and the types that follow the name in
# lower case ("Rákóczi út", "Gosposka ulica", "Síp utca") or glued in lower case after a space
# ("Kieler strasse"): the first street of an intersection is often written the local way ("the
# corner of 14 rue Marie de Médicis and Alexandra Row", "the corner of ul. Spychalskiego 96 and
# Dávila Villages"). Session 14 (wave13/ner2).
_CROSS_TYPE = rf"(?i:{_FR_TYPES}|{_SOUTH_TYPES})(?:[ \t]+|(?<=[./]))"
_CROSS_AFTER = (
    r"(?:utca|út|útja|körút|tér|rakpart|sétány|köz|fasor|sor|kapu|iela|gatvė|prospekt|ulica|cesta|trg|"
    r"ulice|nábřeží|třída|straße|strasse|str\.|gasse|weg|platz|allee|plass|vej|gata|gatan|põik|tee|"
    r"laan|straat|gracht|kade|plein)"
)
# a house number after the name, with the Hungarian and Czech closing dot before "and" ("Budaörsi út 44.")
_CROSS_NUMBER = r"\d{1,5}[A-Za-z]?(?:\.(?=[ \t]+(?:and|&)[ \t]))?"
_CROSS_PART = (
    rf"(?:{_NUM}[ \t]+)?(?:{_CROSS_TYPE})?(?:{_PARTICLE}[ \t]+)*{_CROSS_WORD}"
    rf"(?:[ \t]+(?:{_PARTICLE}[ \t]+)*(?:{_CROSS_WORD}|{_CROSS_AFTER}\b|{_CROSS_NUMBER})){{0,5}}"
)
_CORNER = re.compile(
    rf"(?<![\w])(?i:corner|intersection|crossroads|junction)[ \t]+of[ \t]+(?:the[ \t]+)?"
    rf"(?P<streets>{_CROSS_PART}[ \t]+(?:and|&)[ \t]+{_CROSS_PART})(?![\w'\u2019])"
)
_PLURAL_TYPES = ("streets", "avenues", "roads", "Streets", "Avenues", "Roads")
_STREETS = re.compile(
    rf"(?<![\w])(?P<streets>{_CAP_NAME}(?:[ \t]+{_CAP_NAME})?[ \t]+(?:and|&)[ \t]+"
    rf"{_CAP_NAME}(?:[ \t]+{_CAP_NAME})?[ \t]+(?:streets|avenues|roads|Streets|Avenues|Roads))\b"
)


def _street_words(part: str) -> bool:
    """The words of one street's name: no greeting, instruction, log or auth word, not a technical
    term alone, and no stop word first ("the corner of Reply and Send", "corner of This and That"); a street
    type or a house number always may ("Morris Street", "David Well")."""
    words = part.split()
    opener = g.fold(words[0].rstrip(".")) in STREET_OPENERS  # "Via Roma": "via" is a stop word too
    if g.fold(words[0]) in g.function_words() and not words[0][:1].isdigit() and not opener:
        return False
    if len(words) == 1 and g.fold(part) in g.words("tech_terms"):
        return False  # "the intersection of Python and Rust"; inside a longer name ("Impala St") fine
    return not any(g.fold(word) in _NOT_STREET for word in words)


_NOT_STREET = g.GREETINGS | g.IMPERATIVES | g.LOG_WORDS | g.AUTH_WORDS


def corners(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of street intersections (`_CORNER`, `_STREETS`): after "corner of" /
    "intersection of" any two capitalized street names joined by "and" or "&"; otherwise two
    names and "and" before a plural street word."""
    for pattern in (_CORNER, _STREETS):
        if pattern is _STREETS and not any(word in text for word in _PLURAL_TYPES):
            continue  # the cheap test (session 14): `_STREETS` ends in one of these words
        for match in pattern.finditer(text):
            parts = re.split(r"[ \t]+(?:and|&)[ \t]+", match.group("streets"))
            if all(_street_words(part) for part in parts):
                yield match.start("streets"), match.end("streets")
