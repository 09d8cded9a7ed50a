"""Organization names recognized by their form (label `ORG_FORM`), in the catalog's languages.

The small model tags firm names built from surnames as people ("Runolfsson - Bahringer",
"Carpentier et Dubois", "Harter Gruppe") and misses many with a legal form. Two forms are
unambiguous enough to find without a model:

1. Capitalized words (up to five, joined by spaces, `&` or ` - `) ending in a legal form or group
   word (also Central/Eastern European, Nordic and Turkish forms: `a.s.`, `s.r.o.`, `Sp. z o.o.`,
   `Kft.`, `Nyrt.`, `d.o.o.`, `Ky`, `A.Ş.`, `KGaA`, `UAB`, ...), in title case or capitals:
   `Pinecrest Financial Ltd`, `Legros-Boyer Inc`, `Bosch BV`, `Harter Gruppe`, `Sevilla Bernal e
   Hijos`, `Rossi & Sons`, `LG Balakrishnan & Bros Ltd`, `NTN CORPORATION`, `Totenko Co.Ltd.`,
   `Nyrstar NV`, `Britvic Plc`; or opened by an institution word: `University of Leeds`, `Bank of
   Portugal`. A list of surnames joined by commas and a non-English conjunction before the legal
   form belongs to it: `Luppino, Bortot e Puca SPA`, `Zedillo y Montez S.A.`, `Horváth és Nagy Kft.`.
2. Two or more known surnames joined the way firms are named (`&`, ` - `, and the conjunction in
   French, Italian, Portuguese, Spanish, German or Dutch; English "and" is left out because "our
   founders: Lapresse, Morris and Wright" lists people): `Runolfsson - Bahringer`, `Baker & Kent`,
   `Carpentier et Dubois`, `Rojo Borrego y Montañez Osorio`,
   `van Vliet - Groothuizen`. Every part must be a known surname (gazetteer) and at least one
   must not be a first name, so "Thomas and James" stays two people.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

from . import gazetteer as g

_UP = g.UPPER
# A name word: capitalized, or camel case after one or two lower-case letters ("iQIYI", "uCloudlink").
_WORD = rf"(?:[{_UP}]|[a-z]{{1,2}}(?=[A-Z]))[\w'\u2019&\-]*"
_PARTICLE = r"(?:van|von|der|den|de|del|della|di|da|do|dos|das|du|le|la|ter|ten)"
_SUFFIX = (
    # "Co., Ltd." (Japanese, Chinese and Korean firms' English names) before the plain forms
    r"Co\.?,?[ \t]?Ltd|CO\.?,?[ \t]?LTD|Co\.,?[ \t]?LTD|CO\.,?[ \t]?LIMITED|Co\.,?[ \t]?LIMITED|"
    r"Inc|INC|Incorporated|INCORPORATED|LLC|L\.L\.C|LLP|Ltd|LTD|Limited|LIMITED|PLC|Plc|plc|Corp|CORP|Corporation|CORPORATION|"
    r"Company|COMPANY|GmbH|AG|KG|OHG|UG|"
    r"BV|B\.V|NV|N\.V|S\.A|SA|SAS|SARL|SpA|SPA|S\.p\.A|Srl|S\.r\.l|S\.L|Lda|Ltda|Oy|Oyj|AB|ASA|A/S|ApS|Pty|"
    # Central and Eastern European, Nordic, Turkish and other legal forms (Czech/Slovak, Polish,
    # Hungarian, Balkan, Baltic, Icelandic, Turkish, Belgian, Mexican, Indonesian registers)
    r"a\.s|s\.r\.o|spol\. s r\.o|Sp\. z o\.o|S\.A\. de C\.V|Nyrt|Zrt|Kft|Bt|Ky|d\.o\.o|d\.d|s\.p|"
    r"A\.Ş|Ltd\. Şti|Şti|Tic|S\.R\.L|SRL|e\.U|GesbR|KGaA|OÜ|SIA|UAB|EIRL|EURL|SNC|EIRELI|ehf|hf|"
    r"Sp\.k|Sp\.j|S\.L\.U|CommV|BVBA|VOF|Tbk|"
    r"Group|Gruppe|Groep|Groupe|Grupo|Gruppo|Holding|Holdings|Partners|Associates|Foundation|Stiftung|"
    # the names listed companies and funds are registered under: "Pinnacle Bancorp", "MAXIS TOPIX ETF"
    r"Bancorp|Bancorporation|Bancshares|Bankshares|BANCORP|ETF|ETN|REIT|"
    r"(?:&|and|e|y|et|und|en)\s+(?:Sons|Hijos|Figli|Filhos|Fils|Söhne|Zonen|Co)"
)
_BY_SUFFIX = re.compile(
    rf"(?<![\w@.])(?:{_PARTICLE}\s+)?{_WORD}(?:[ \t]+(?:(?:{_PARTICLE}|&|-)[ \t]+)?{_WORD}){{0,4}}"
    rf",?[ \t]+(?:{_SUFFIX})\b\.?(?![\-/])"  # not a share class: "UBS ETF-JPM/GBP"
)
# A legal form written onto the last word of the name, as register extracts and listing files print
# them when a comma or space is dropped: "TOKYO KIKAI SEISAKUSHOLTD.", "THE ROYAL HOTELLIMITED",
# "Hankyu Hanshin HoldingsInc.", "SHARINGTECHNOLOGY.INC". The word before the form has at least four
# letters ("UNLIMITED", "ZINC" and "Unincorporated" are words, not firms), and "Inc" is capitalized.
_GLUED = re.compile(
    rf"(?<![\w@.])(?:{_WORD}[ \t]+){{0,4}}[{_UP}][\w&\-]*?[^\W\d_]{{3}}"
    rf"(?:\.?(?:LTD|LIMITED|INC)|\.?Inc|\.inc|Incorporated|Limited|Ltd)\b\.?(?![\w\-/])"
)
# Share classes and series after a firm's legal form belong to the listed name: "Metlife Inc Preferred
# Shares Series A", "Sartorius AG Preference Shares", "PAVmed Inc. - Series Z", "Alok Industries Ltd
# Fully Paid Ord. Shrs", "ING Groep N.V. PERP DBT 6.125".
_SHARE_TAIL = re.compile(
    r"(?:[ \t]+-)?[ \t]+(?:Preferred|Preference|Ordinary|Fully[ \t]Paid|Series|Class|PERP|Shares)(?![\w\-])"
    r"(?:[ \t]+(?:Preferred|Preference|Ordinary|Shares|Shrs|Ord\.|Series|Class|Units|DBT|[A-Z]|[IVX]{1,3}|"
    r"\d{1,3}(?:\.\d{1,3})?)(?![\w\-/]))*"
)
_INSTITUTION = re.compile(
    rf"(?<![\w@.])(?:University|Universität|Université|Universidad|Università|Universiteit|Bank|Banco|Banca|"
    rf"Institute|Ministry|College|Hospital|Museum)[ \t]+(?:of|for|de|di|der|van|do|da)[ \t]+(?:the[ \t]+)?"
    rf"{_WORD}(?:[ \t]+{_WORD}){{0,2}}"
)
_NAME_PART = rf"(?:{_PARTICLE}[ \t]+)?{_WORD}(?:[ \t]+{_WORD})?"
_FIRM = re.compile(
    rf"(?<![\w@.])(?P<firm>{_NAME_PART}(?:,[ \t]+{_NAME_PART}){{0,4}}"
    rf"[ \t]+(?:&|et|e|y|und|en|-)[ \t]+{_NAME_PART})(?![\w@])"
)


_FIRM_START = re.compile(rf"(?<![\w@.])(?:{_PARTICLE}|[{_UP}])")
_CONJUNCTION = re.compile(r"[ \t](?:&|et|e|y|und|en|-)[ \t]")
_NOT_NAME_PART = re.compile(r"[^\w'\u2019&\-, \t]")


# "Luppino, Bortot e Puca SPA", "Colón y Arroyo S.A.": a legal form after a list of surnames
# joined the way firms are named; the suffix pattern alone keeps only the last one ("Puca SPA").
# Not English "and": "First Advantage Corporation, Cloudmade and CalAmp Corp." lists three firms.
_LEFT_CONJUNCTION = re.compile(rf"(?<![\w@.])(?P<word>{_WORD})[ \t]+(?:&|e|y|et|und|en|és)[ \t]+$")
_LEFT_COMMA = re.compile(rf"(?<![\w@.])(?P<word>{_WORD}),[ \t]+$")


def _firm_word(word: str) -> bool:
    """A word that can be one of the surnames a firm is named after: a known surname or a rare
    word, never a label, a stop word or a common word ("Senior Analyst, Luppino" stops at it)."""
    key = g.fold(word)
    if key in g.CLOSED_CLASS or key in g.function_words() or key in g.ORG_HEADS:
        return False
    return key in g.last_names() or not g.common_word(word)


def _extend_left(text: str, start: int) -> int:
    """The start of the whole list of surnames before a suffix match at `start`, or `start`."""
    match = _LEFT_CONJUNCTION.search(text, max(0, start - 60), start)
    if match is None or not _firm_word(match.group("word")):
        return start
    start = match.start("word")
    for _ in range(4):
        match = _LEFT_COMMA.search(text, max(0, start - 40), start)
        if match is None or not _firm_word(match.group("word")):
            break
        start = match.start("word")
    return start


# Session 16 (wave15/ner2): an institution's name opened by capitalized words before its head
# ("Royal Bank of Scotland", "Commonwealth Bank of Australia", "State University of New York"),
# which the institution pattern cut to "Bank of Scotland", and a group word or legal form after it
# ("... Scotland Group plc"). Up to two words on the same line, each capitalized, no label, stop
# or function word ("The", "Dear", "At"); never the first word of a sentence or line ("Contact Bank
# of America": an instruction or a verb opens sentences as often as a name does).
_LEFT_WORD = re.compile(rf"(?<![\w@.&'\-])(?P<word>{_WORD})[ \t]+$")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\n\"(\[]\s*)$")
_INSTITUTION_TAIL = re.compile(
    r"(?:[ \t]+(?:Group|Holdings|plc|PLC|Plc|Ltd|Limited|AG|SA|NV|Inc|Corp)\b\.?){1,2}"
)


def _institution_left(text: str, start: int) -> int:
    """The start of an institution's name with the capitalized words before its head (see above)."""
    for _ in range(2):
        match = _LEFT_WORD.search(text, max(0, start - 40), start)
        if match is None:
            break
        word = match.group("word")
        key = g.fold(word)
        if key in g.CLOSED_CLASS or key in g.function_words() or not word[:1].isupper():
            break
        if _SENTENCE_START.search(text, max(0, match.start() - 4), match.start()) is not None:
            break
        start = match.start("word")
    return start


def _institution(text: str, start: int, end: int) -> tuple[int, int]:
    """An institution's name with the capitalized words before its head and a group word or legal
    form after it ("Group plc")."""
    tail = _INSTITUTION_TAIL.match(text, end)
    return _institution_left(text, start), end if tail is None else tail.end()


def _surname_parts(value: str) -> list[str]:
    return [w for w in re.split(r"[\s,\-&]+", value) if w and w[0].isupper()]


def _is_firm(value: str) -> bool:
    parts = _surname_parts(value)
    if len(parts) < 2 or any(g.fold(p) in ("and", "et", "und", "en") for p in parts):
        return False
    if not all(g.fold(p) in g.last_names() for p in parts):
        return False
    return any(g.fold(p) not in g.first_names() for p in parts)


# Literal pre-checks (session 14, speed only: the same matches). Each pattern above holds one of
# these, so a text without any cannot match it, and most texts hold none: a legal form after a space
# (one scan that skips to the spaces, instead of trying every word there as a name's first word),
# the literals of a glued legal form, an institution word. `_BY_SUFFIX` ends in `[ \t]+(?:SUFFIX)\b`
# and `_GLUED`, `_INSTITUTION` are case-sensitive.
_SUFFIX_AFTER_SPACE = re.compile(rf"[ \t](?:{_SUFFIX})\b")
_GLUED_LITERALS = ("LTD", "LIMITED", "INC", "Inc", ".inc", "Limited", "Ltd")
_INSTITUTION_LITERALS = ("Univers", "Ban", "Institute", "Ministry", "College", "Hospital", "Museum")


def _may_match(pattern: re.Pattern[str], text: str) -> bool:
    """False when `pattern` (one of the three of `find`) cannot match `text` (the pre-checks above)."""
    if pattern is _BY_SUFFIX:
        return _SUFFIX_AFTER_SPACE.search(text) is not None
    literals = _GLUED_LITERALS if pattern is _GLUED else _INSTITUTION_LITERALS
    return any(literal in text for literal in literals)


def find(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of organization names by form; may overlap (the caller resolves)."""
    yield from securities(text)
    for pattern in (_BY_SUFFIX, _GLUED, _INSTITUTION):
        if not _may_match(pattern, text):
            continue
        for match in pattern.finditer(text):
            # "Dear Acme Ltd" -> "Acme Ltd": greetings, labels, instructions and stop words are not
            # part of it.
            start = match.start()
            words = list(g.WORD.finditer(text, match.start(), match.end()))
            while words and (
                g.fold(words[0].group()) in g.CLOSED_CLASS or g.fold(words[0].group()) in g.function_words()
            ):
                words.pop(0)
            # A legal form needs a name before it: "BUT NOT LIMITED" (licence text) has none.
            if words and (pattern is not _BY_SUFFIX or len(words) >= 2):
                start = max(start, words[0].start())
                end = match.end()
                if pattern is not _INSTITUTION:
                    tail = _SHARE_TAIL.match(text, end)
                    end = tail.end() if tail is not None else end
                yield (
                    _institution(text, start, end)
                    if pattern is _INSTITUTION
                    else (_extend_left(text, start), end)
                )
    # Tried at every word: the leftmost match may start too early ("Analyst, Heller, Daugherty and
    # Cummings" is not a firm, "Heller, Daugherty and Cummings" is).
    # Only words with a conjunction ahead of them in the same run of name characters are tried:
    # the name parts before it hold nothing else, so a word after which a sentence, a line or a
    # bracket ends first cannot open a firm's name (most words of most texts).
    conjunctions = [m.start() for m in _CONJUNCTION.finditer(text)]
    position = 0
    for word in _FIRM_START.finditer(text):
        if word.start() < position:
            continue
        index = bisect.bisect_left(conjunctions, word.start())
        if index == len(conjunctions):
            break
        if _NOT_NAME_PART.search(text, word.start(), conjunctions[index]):
            continue
        match = _FIRM.match(text, word.start())
        if match is not None and _is_firm(match.group("firm")):
            yield match.start("firm"), match.end("firm")
            position = match.end()


# Exchange listing names: the short names that stock exchanges and fund lists print for shares,
# preferred stock, notes and exchange-traded products ("STIFL FNL DS REP NN CUM SRS A PRF", "HSBC
# HOLDINGS P/ADR", "ETFS FORE/LONG JPY SHORT GBP", "XTRACKERS FTSE CHN/USD", "MANX TELE/PAR VTG FPD
# 0.002"): a run of capitals, digits and listing punctuation, words joined by spaces or slashes. Found
# by their evidence: security-class abbreviations (preferred, cumulative, series, voting, depositary
# receipts, notes, perpetual) or a currency code joined by a slash, at least two pieces of it, and a
# name word of three letters or more that is neither. "TCP/IP STACK", "CI/CD" and a capitals prompt
# ("CAN I SPEAK TO A REAL PERSON") hold none.
_SECURITY_CLASS = frozenset(
    [
        *("PRF", "PFD", "PREF", "PRP", "CUM", "CNV", "SRS", "SR", "VTG", "FPD", "NV", "GDR", "ADR", "ADS"),
        *("ETN", "ETF", "ETFS", "SHS", "SH", "PERP", "DBT", "NTS", "UNSEC", "UNDTD", "DLY", "BKD", "144A"),
        *("3X", "2X", "3XS"),
    ]
)
_CURRENCY_CODES = frozenset(
    ["USD", "EUR", "GBP", "JPY", "CHF", "AUD", "CAD", "NZD", "SEK", "NOK", "DKK", "HKD", "SGD", "CNY", "INR"]
)
_LISTING_PIECE = r"[A-Z0-9][A-Z0-9.&+%\-]*"
_SECURITY_RUN = re.compile(
    rf"(?<![\w@./\-])[A-Z][A-Z0-9.&+%\-]*(?:(?:[ \t]{{1,3}}/?|/)[ \t]?{_LISTING_PIECE})+"
)
_SECURITY_SPLIT = re.compile(r"[ \t]*/[ \t]*|[ \t]+")


def securities(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of exchange listing names (the comment above)."""
    if "/" not in text and not any(word in text for word in (" PRF", " PFD", " CUM", " ETN", " GDR", " VTG")):
        return  # the cheap test: most texts hold neither a slash nor a class abbreviation
    for match in _SECURITY_RUN.finditer(text):
        value = match.group().rstrip(".,")
        tokens = [t.strip(".") for t in _SECURITY_SPLIT.split(value) if t.strip(".")]
        evidence = sum(t in _SECURITY_CLASS for t in tokens)
        for left, right in re.findall(r"([A-Z0-9.]+)[ \t]*/[ \t]*([A-Z0-9.]+)", value):
            evidence += 1 + (left.strip(".") in _CURRENCY_CODES or right.strip(".") in _CURRENCY_CODES)
        names = [
            t
            for t in tokens
            if sum(c.isalpha() for c in t) >= 3
            and t not in _SECURITY_CLASS
            and t.rstrip("0123456789") not in _CURRENCY_CODES  # "GBP1": a par value, no name
        ]
        if evidence >= 2 and names and len(tokens) >= 2:
            yield match.start(), match.start() + len(value)
