"""Gazetteer-backed person names, in any language of the catalog (label `PERSON_GAZ`).

The English model misses names in German, French, Spanish, Italian, Portuguese and Dutch text and
single first names in chat. These patterns need name evidence from the gazetteers (first names and
surnames from Faker's per-locale lists and the US Census, see data/SOURCES.md), never capital
letters alone (and never words in all capitals):

1. Full name: a known first name, optional middle names or initials (`C`, `B.`), optional
   particles (`van der`, `de la`, `di`, `dos`), then a known surname, every word capitalized:
   `Anne-Marie van der Berg`, `Valérie B Lafontaine`, `João dos Santos`.
2. Title + capitalized name: `Dr. Okafor`, `Frau Müller`, `Mme Lefèvre`, `Sr. García` (the title
   stays outside the span).
3. A single known first name where chat puts names: right after a greeting or closing
   (`Hi Paul`, `Thanks, Maria`, `Bonjour Camille`, `Hallo Jens`; any capitalized word when the
   greeting addresses it directly, `Hi Keiran,`, unless it is "team", "all", "zusammen", ...),
   as the speaker opening a transcript line (`Chloe: ...`; in a transcript with such a speaker,
   every other speaker that rule 4's word test accepts: `Mineko: ...`), after `@`, or after "my name is",
   "I'm", "je m'appelle", "ich bin", "me llamo", "mi chiamo", "meu nome é", "ik ben"; or right
   before a chat verb ("Constantin pushed", "Ingrid said", "Sophia shouted", "Jens hat",
   "Camille a dit"; month names excepted: "May is"), or after "call me" / "calls me" / "named".
   After a phrase that introduces a name ("my name is", "call me", "je m'appelle", "me llamo")
   any capitalized word that rule 4's word test accepts is a name ("everyone calls me Calan").
4. Name shape without a list entry for every word: a capitalized word, a middle initial and a
   capitalized word (`Elvar D Sigurlaugsson`, `Nanase M. Oyokawa`) when either outer word is in
   a name list or the last has a surname ending; or two capitalized words the second of which has
   a surname ending that few other words have (`-sson`, `-dóttir`, `-ová`, `-ski`, `-wicz`,
   `-escu`, `-opoulos`, ...: `Tómas Lýðsson`, `Katrín Óladóttir`). Neither word may be a
   greeting, label, instruction, stop word, technical term or known place.
5. A known first name followed by a capitalized rare word, one the model's word vectors do not
   know (gazetteer.common_word): `Cordelia Pugliesi`, `Moustafa Mellink`. Common words after a
   first name stay out ("Mark Down", "Grant Access"). Two rare words around a middle initial
   (`Nanase M Oyokawa`), and a line that holds nothing but two or three rare capitalized words
   (the name line of a signature or an address block: `Hysni Njivar`) are names too.
7. Case-folded names: a known first name (optional initial) and a known surname written all in
   lower case or all in capitals (`mohamed soos`, `FERENC KISS`), when the model's word vectors
   of both lean towards names (gazetteer.name_score): "line range" and "genesis block" are in the
   lists too but read as words.
8. Described: a known first name opening a sentence before "is a", "was the", "has a", ...
   ("Megan is a very sympathetic person"), when its word vector leans clearly towards names.
9. "Last, First" where rosters and forms put it (`Patient: Kowalski, Anna`, `Attendees: Dean,
   Javi; Borg, Mateusz`, `filed under Berry, Dale.`, `Signed: DUPONT, Marie`): after a colon, a
   semicolon, "under" or "by", ending the entry; a known first name, a known, rare or capitalized
   surname, not two places (`Lyon, France`).
10. Where only a person fits, names no list knows: after a role noun only people hold ("my
   colleague Isabeus Simpert", "Professor Barbfia", "our attorney Wibenne") and as the subject of
   a verb only people do ("Harhèle asked", "Andrador was born"); every word a known name or a rare
   word (no vector) in Latin script that is no label, term, place or organization word.
11. Where a sentence puts a person (session 11): one known first name or surname after "according
   to", "belongs to", "signed by", "forward this to", "add", "ask", ... ("The account belongs to
   Sipos."), and a one-word name on the line after a closing ("Thanks,\nRita"); see `_cued`.
6. Relations: a known first name addressed at the end of a sentence (", Tiffany!"), the object of a
   speech verb ("shouted at Lauren", "talked to Maria"), and any capitalized word that owns a
   relative ("Klaudijo's kid", "Anna's husband").
No rule yields a name where a sentence puts a place (session 15, `_in_place_frame`): after "city",
"town", "village", or after "in"/"near" when the run is a known place or opens with a place word
("home city Carlos Reyles", "in Monte Gil"), unless a possessive follows.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from . import gazetteer as g

_UP = g.UPPER


def _scan(pattern: re.Pattern[str], needed: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """`pattern.finditer(text)`, or nothing when `needed` finds nothing in the text.

    Session 16 (speed only, the same matches): `needed` is a literal part that every match of
    `pattern` holds at the same place (same flags, no look-behind before it), so without it
    `pattern` has no match. It opens with a literal or a character class, which the engine skips
    to in C, while `pattern` opens with a look-behind or a capitalized word tried at every
    position. ner/tests/test_session16_speed.py checks each pair on seeded texts."""
    if needed.search(text) is None:
        return iter(())
    return pattern.finditer(text)


# One way only to read each part after a hyphen or apostrophe: an optional capital before a run
# that may itself start with a capital read "-Aaa" two ways, exponential on "Aaa-Aaa-Aaa-...".
_NAME = rf"[{_UP}][^\W\d_]*(?:['\u2019\-][^\W\d_]+)*"
_INITIAL = rf"[{_UP}]\.?"
_PARTICLES = r"(?:van|von|der|den|de|del|della|dei|di|da|das|dos|do|du|le|la|ter|ten|zu|y|e|bin|al|el|mac)"
_TOKEN = re.compile(rf"{_NAME}|{_INITIAL}")
_PARTICLE_SET = frozenset(_PARTICLES[3:-1].split("|"))
_MAX_NAME_WORDS = 6
_TITLES = (
    r"mr|mrs|ms|miss|mx|dr|prof|herr|frau|mme|mlle|madame|monsieur|sr|sra|srta|señor|señora|"
    r"sig|sig\.ra|signor|signora|dott|dott\.ssa|senhor|senhora|dhr|mevr|mevrouw|meneer"
)
# The title is found case-insensitively (gazetteer.triggered), the name after it as written.
_TITLE = g.trigger(r"(?<![\w.])", _TITLES, r"(?=\.?[ \t])")
_TITLED_NAME = re.compile(
    rf"\.?[ \t]+(?P<name>{_NAME}(?:[ \t]+(?:{_PARTICLES}[ \t]+)*{_NAME}){{0,2}})(?![\w@])"
)
_CHAT_VERB = re.compile(
    rf"(?<![\w@.])(?P<name>{_NAME})[ \t]+"
    rf"(?:pushed|merged|said|says|wrote|writes|asked|asks|commented|replied|"
    rf"approved|reviewed|joined|left|mentioned|shared|posted|sent|thinks|thought|is out|is off|will be|"
    rf"has been|shouted|yelled|told|called|texted|emailed|answered|explained|whispered|laughed|smiled|"
    rf"added|noted|argued|announced|insisted|hat|ist|sagt|schrieb|a dit|a écrit|est|dijo|escribió|está|"
    rf"ha detto|ha scritto|disse|"
    rf"escreveu|zei|schreef)\b"
)
# A name after a greeting or a closing ("Hi Paul", "Thanks, Maria"): any word, then checked
# against gazetteer.NAME_OPENERS; a mention ("@Paul"); a phrase that introduces a person, found
# case-insensitively (gazetteer.triggered). Three patterns, not one alternation: a case-insensitive
# alternation tried at every position was most of this rule's cost.
_GREETED = re.compile(rf"(?<![\w])(?P<opener>[^\W\d_]+)[ \t]*,?[ \t]+(?P<name>{_NAME})(?![\w@])")
_MENTION = re.compile(rf"@(?P<name>{_NAME})(?![\w@])")
_INTRO_PHRASES = (
    r"my name is|i am|i'm|call me|calls me|called me|named|nicknamed|thanks to|je m'appelle|je suis|"
    r"ich bin|ich heiße|me llamo|soy|mi chiamo|sono|meu nome é|chamo-me|ik ben|mijn naam is"
)
_INTRO = g.trigger(r"(?<![\w])", _INTRO_PHRASES, r"(?=[ \t])")
_INTRO_NAME = re.compile(rf"[ \t]+(?P<name>{_NAME})(?![\w@])")


_INTRODUCES = re.compile(
    r"(?i:my name is|call me|calls me|called me|nicknamed|je m'appelle|ich heiße|me llamo|mi chiamo|"
    r"meu nome é|chamo-me|mijn naam is)[ \t]"
)


# A transcript line opened by a speaker: "Chloe: What a wife."
# A chat export may put a time stamp first: "[10:42] Chloe: ...", "10:42 Chloe: ...",
# "[26/11/2026, 10:42] Chloe: ...".
_SPEAKER = re.compile(
    r"(?m)^[ \t]*(?:\[[\d:/.,\- APMapm]{4,24}\][ \t]*|\d{1,2}:\d{2}(?::\d{2})?[ \t]+)?"
    rf"(?P<name>{_NAME}):[ \t]"
)


_SPOKEN_WORD = re.compile(r"[^\W\d_]*[a-z\u00df-\u00ff][^\W\d_]*")


def _speech(text: str, start: int) -> bool:
    """What follows a speaker's colon is speech: it holds a lower-case word or ends a question or
    exclamation. "Ward: 4B" or "Patient: Bos, Tristan" are form fields, not a transcript."""
    end = text.find("\n", start)
    line = text[start : len(text) if end < 0 else end]
    return bool(_SPOKEN_WORD.search(line)) or line.rstrip().endswith(("?", "!"))


def _shouted(word: str) -> bool:
    """All capitals: "CAN I SPEAK TO A REAL PERSON" holds no name, whatever the lists say."""
    return len(word) > 1 and word.isupper()


def _addressed(text: str, end: int) -> bool:
    """The greeting's name is followed by a comma, a line break, `!` or the end of the text."""
    rest = text[end : end + 2].lstrip(" \t")
    return rest == "" or rest[0] in ",!\n\r:;."


MONTHS = frozenset(
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ]
)


def _first(word: str) -> bool:
    key = g.fold(word)
    if key in g.first_names():
        return True
    # Session 13: a hyphenated first name whose parts are first names ("Hans-Peter", "Mary-Kate")
    parts = word.split("-")
    return 2 <= len(parts) <= 3 and all(p[:1].isupper() and g.fold(p) in g.first_names() for p in parts)


def _last(word: str) -> bool:
    return g.fold(word) in g.last_names() or _compound_surname(word)


# Session 13: surnames built from parts (names no list holds whole). An Arabic article or
# patronymic before a capitalized part ("Al-Masri", "El-Amin", "bin-Laden" is not written so;
# "Ibn-Rushd"); a Gaelic or Norman prefix glued to a capitalized part ("McPowell", "MacLeod",
# "FitzMorris", "O'Shea", "D'Abrego"); two or three hyphenated parts, each a surname, a first name
# or a rare word, at least one a listed surname ("Payne-Willis", "Guerra-Laureano"). Every part
# after the prefix or article is a capitalized word of three or more letters that is no common
# word unless a name list holds it.
_ARTICLES = frozenset(
    ["al", "el", "ul", "ud", "ad", "ar", "as", "ash", "ibn", "bin", "ben", "abu", "abd", "bint"]
)
_GLUED = re.compile(rf"(?:Mc|Mac|Fitz|O['\u2019]|D['\u2019])(?P<rest>[{_UP}][^\W\d_]{{2,}})")


def _surname_part(part: str) -> bool:
    if len(part) < 3 or not part[0].isupper() or any(ch.isupper() for ch in part[1:]):
        return False
    key = g.fold(part)
    if key in g.CLOSED_CLASS or key in g.function_words() or key in g.words("tech_terms"):
        return False
    return key in g.last_names() or key in g.first_names() or not g.common_word(part)


def _compound_surname(word: str) -> bool:
    if "-" not in word and not word.startswith(("Mc", "Mac", "Fitz", "O'", "D'", "O\u2019", "D\u2019")):
        return False  # the common case, decided without a pattern
    glued = _GLUED.fullmatch(word)
    if glued is not None:
        return _surname_part(glued.group("rest"))
    parts = re.split(r"[-\u2019']", word)
    if not 2 <= len(parts) <= 3:
        return False
    if g.fold(parts[0]) in _ARTICLES and len(parts) == 2:
        return _surname_part(parts[1])
    return all(_surname_part(p) for p in parts) and any(g.fold(p) in g.last_names() for p in parts)


def _full_names(text: str) -> Iterator[tuple[int, int]]:
    """Rule 1: the longest run first-name ... surname on one line, tried at every word."""
    tokens = list(_TOKEN.finditer(text))
    particles = list(re.finditer(rf"(?<![\w]){_PARTICLES}(?![\w])", text))
    words = sorted(tokens + particles, key=lambda m: m.start())
    for i, head in enumerate(words):
        word = head.group()
        if (
            not _first(word)
            or _shouted(word)
            or g.fold(word) in g.CLOSED_CLASS
            or (head.start() > 0 and text[head.start() - 1] in "@.\\/_")
        ):
            continue
        if (
            g.fold(word) in g.stop_words()
            and i + 1 < len(words)
            and text[head.end() : words[i + 1].start()] == " "
            and _first(words[i + 1].group())
        ):
            continue  # "Per Hamza Al-Masri's email": a preposition that is a first name too
        best = None
        previous = head
        for follower in words[i + 1 : i + _MAX_NAME_WORDS]:
            gap = text[previous.end() : follower.start()]
            # a zero-width no-break space (U+FEFF) pasted before a word ("Václav \ufeffHorák") joins it
            if not gap or gap.strip(" \t\ufeff") or not gap.strip("\ufeff"):
                break
            value = follower.group()
            if value.endswith(("'s", "\u2019s")) and len(value) > 3:
                # a possessive ends the name: "Hamza Al-Masri's email", "Anna Kowalczyk's report"
                if value[0].isupper() and not _shouted(value) and _last(value[:-2]):
                    best = follower.end() - 2
                break
            after_particle = g.fold(previous.group()) in _PARTICLE_SET and previous is not head
            if g.fold(value) in g.STREET_TYPES:
                best = None  # "Sille Ranch Street", "Emma Terrace": a street, not a person
                break
            if (
                value[0].isupper()
                and len(value) > 1
                and not _shouted(value)
                and (_last(value) or after_particle)
            ):
                best = follower.end()
            elif not (value[0].isupper() or g.fold(value) in _PARTICLE_SET):
                break
            previous = follower
        if best is not None:
            yield head.start(), best


_SURNAME_ENDING = re.compile(
    r"(?:sson|sdóttir|dóttir|ová|ská|ski|ska|wicz|wski|wska|escu|opoulos|poulos|akis|enko|ovich|evich|ović|"
    r"ovič|ovna|evna|yan|yev|yeva|ov|ova|ev|eva|ichi|oglu|oğlu)$"
)
_SHAPE = re.compile(
    rf"(?<![\w@.])(?P<first>{_NAME})[ \t]+(?:(?P<initial>[{_UP}])\.?[ \t]+)?(?P<last>{_NAME})(?![\w@])"
)


def _plain_word(word: str, places: bool = True) -> bool:
    """A capitalized word that may be part of a name: not shouted, not a closed-class word, stop
    word, technical term, street type or organization head, nor (unless `places` is False) a known
    place."""
    key = g.fold(word)
    return not (
        _shouted(word)
        or key in g.CLOSED_CLASS
        or key in g.function_words()
        or key in g.words("tech_terms")
        or (places and key in g.places())
        or key in g.STREET_TYPES
        or key in g.ORG_HEADS
    )


def _rare_name(word: str) -> bool:
    """Rule 5's second word: rare, and shaped like a name (`Pugliesi`, not `ESLint`, `AST-based`)."""
    return (
        len(word) > 2
        and not any(ch.isupper() for ch in word[1:])
        and not re.search(r"-[a-z]", word)
        and not g.common_word(word)
    )


_PLACE_WORD_BEFORE = re.compile(
    r"(?i:\b(?:in|from|to|near|at|of|via|visit|visiting|towards|outside|around|city|town|village)|:)[ \t]*$"
)


def _after_place_word(text: str, start: int) -> bool:
    """Two rare words after a place preposition or a label are more often a town or a firm
    ("in Dolní Kounice", "from Korutürk Ertaş", "City: Pergine Valsugana") than a person."""
    return _PLACE_WORD_BEFORE.search(text, max(0, start - 20), start) is not None


def _latin(word: str) -> bool:
    """Latin letters only: a word in Greek or Cyrillic script is more often a place here ("ΛΕΥΚΩΣΙΑ")."""
    return all(ch < "\u0370" or "\u1e00" <= ch <= "\u1eff" for ch in word)


def _shaped(text: str) -> Iterator[tuple[int, int]]:
    """Rule 4: names by their shape (module docstring)."""
    position = 0
    while True:
        match = _SHAPE.search(text, position)
        if match is None:
            return
        first, last = match.group("first"), match.group("last")
        position = match.start("last")
        if not (_plain_word(first) and _plain_word(last)) or len(last) < 3:
            continue
        ending = _SURNAME_ENDING.search(g.fold(last)) is not None and len(last) > 5
        if match.group("initial") is not None:
            rare = _rare_name(first) and _rare_name(last)  # "Nanase M Oyokawa"
            if _first(first) or _last(last) or ending or rare:
                yield match.start(), match.end()
        elif ending and len(_SURNAME_ENDING.search(g.fold(last)).group()) >= 3:
            yield match.start(), match.end()
        elif _first(first) and g.fold(first) not in g.stop_words() and _rare_name(last):
            yield match.start(), match.end()  # rule 5
        elif (
            _rare_name(first)
            and _latin(first)
            and (_last(last) or (_rare_name(last) and _latin(last)))
            and not _after_place_word(text, match.start())
            and g.fold(match.group()) not in g.towns()
            and g.fold(first) not in g.towns()
        ):
            yield match.start(), match.end()  # rule 5: "Edmonda Mazzanti", "Duqyaha Karataev"


_NAME_LINE = re.compile(rf"(?m)^[ \t]*(?P<name>{_NAME}(?:[ \t]+{_NAME}){{1,2}})[ \t]*$")
_VOCATIVE = re.compile(rf",[ \t]+(?P<name>{_NAME})[ \t]*(?:[!?]|\.?[ \t]*$)", re.MULTILINE)
_SPOKEN_VERBS = (
    r"shouted|yelled|screamed|said|talked|spoke|wrote|replied|waved|smiled|looked|pointed|turned|"
    r"whispered|called out"
)
_SPOKEN_TO = re.compile(rf"\b(?:{_SPOKEN_VERBS})[ \t]+(?:at|to|with)[ \t]+(?P<name>{_NAME})(?![\w@])")
# `_scan`'s literal: every verb above ends in one of these (fewer first letters to skip to).
_SPOKEN_ENDINGS = ("ed", "said", "spoke", "wrote", "called out")
_SPOKEN_TO_NEEDED = re.compile(rf"(?:{'|'.join(_SPOKEN_ENDINGS)})[ \t]+(?:at|to|with)[ \t]")
# Kin that name a person on either side: "Anna's sister", "my sister Anna" (_RELATIVE, _ROLE).
_KIN = "son|daughter|wife|husband|brother|sister|uncle|aunt|cousin|nephew|niece|boyfriend|girlfriend|fiancée?"
_RELATIVE_WORDS = (
    rf"{_KIN}|kid|kids|mother|father|mom|mum|dad|child|children|baby|partner|grandmother|grandfather|"
    r"parents|family"
)
_RELATIVE = re.compile(rf"(?<![\w@.])(?P<name>{_NAME})['\u2019]s[ \t]+(?:{_RELATIVE_WORDS})\b")
_RELATIVE_NEEDED = re.compile(rf"['\u2019]s[ \t]+(?:{_RELATIVE_WORDS})\b")


def _addressable(name: str) -> bool:
    """A known first name someone speaks to ("shouted at Caroline", ", Tiffany!"): a plain word,
    or one that is also a town ("Caroline", "Stella"), since people, not towns, are spoken to."""
    if _plain_word(name):
        return True
    key = g.fold(name)
    return key in g.places() and _plain_word(name, places=False)


def _relations(text: str) -> Iterator[tuple[int, int]]:
    """Rules 5 (name lines) and 6 (module docstring)."""
    for match in _NAME_LINE.finditer(text):
        words = match.group("name").split()
        if all(_plain_word(word) and _rare_name(word) for word in words):
            yield match.start("name"), match.end("name")
    for matches in (_VOCATIVE.finditer(text), _scan(_SPOKEN_TO, _SPOKEN_TO_NEEDED, text)):
        for match in matches:
            name = match.group("name")
            if _first(name) and _addressable(name) and g.fold(name) not in g.ADDRESSEES:
                yield match.start("name"), match.end("name")
    for match in _scan(_RELATIVE, _RELATIVE_NEEDED, text):
        if _plain_word(match.group("name")) and g.fold(match.group("name")) not in g.stop_words():
            yield match.start("name"), match.end("name")


# Rule 7: a first name and a surname written all in lower case or all in capitals.
_FOLDED = re.compile(
    r"(?<![\w@./\\-])(?P<first>[^\W\d_]{2,})(?:[ \t]+(?P<initial>[^\W\d_])\.?)?[ \t]+"
    r"(?P<last>[^\W\d_][^\W\d_'\u2019\-]*[^\W\d_])(?![\w@/\\-])"
)
# Where `_FOLDED` can start (Session 18): its first word is a run of two or more letters (the whole
# run: a letter cannot follow it, a blank must) after no word character, `@`, `.`, `/`, `\` or `-`.
_FOLDED_START = re.compile(r"(?<![\w@./\\-])[^\W\d_]{2,}(?=[ \t])")
_FIRST_SCORE = 0.03
_LAST_SCORE = 0.025
_PLACE_NAME_SCORE = 0.04


def _folded_word(word: str, names: frozenset[str], threshold: float, introduced: bool = False) -> bool:
    key = g.fold(word)
    if key not in names or key in g.stop_words() or key in g.CLOSED_CLASS or key in MONTHS:
        return False
    if key in g.words("tech_terms") and not introduced:
        return False
    score = g.name_score(key)
    if introduced:  # "my name is nela figueroa", "cc stella eriksson": any word not leaning away
        return score is None or score >= 0.0
    if key in g.places():  # "burton", "moore", "teresa": towns too; only a clear name vector counts
        return score is not None and score >= _PLACE_NAME_SCORE
    return score is None or score >= threshold


# Words that introduce a person in any case: "my name is nela figueroa", "cc jade berry", "ATTN:
# PENNY BORGES", "hey, it's marc leal". After them the folded pair's vectors need only not lean
# away from names (a list entry for each word is still required).
_INTRODUCED = re.compile(
    r"(?i:\b(?:my name is|name is|name's|i am|i'm|it's|it is|this is|call me|called|named|hi|hello|hey|dear|"
    r"thanks|thank you|cc|attn|attention|regards|signed|from|mr|mrs|ms|dr)\.?[ \t]*[:,]?[ \t]*)$"
)


_CAPITALS_BEFORE = re.compile(r"[A-Z\u00c0-\u00de][A-Z\u00c0-\u00de&./\-]*[ \t]+$")
_CAPITALS_AFTER = re.compile(r"[ \t]+[A-Z\u00c0-\u00de][A-Z\u00c0-\u00de&./\-]*(?![a-z])")


def _in_capitals_run(text: str, start: int, end: int) -> bool:
    """Two words in capitals inside a longer run of capitals are a shouted phrase or a firm's name
    in capitals ("TOYOTA MOTOR CORPORATION", "COML BK QATAR"), not a person written in capitals."""
    return bool(_CAPITALS_BEFORE.search(text, max(0, start - 30), start) or _CAPITALS_AFTER.match(text, end))


def _case_folded(text: str) -> Iterator[tuple[int, int]]:
    """Rule 7 (module docstring): "mohamed soos", "FERENC KISS", "luara b azevedo". Both words in
    the name lists is not enough in lower case ("line range", "genesis block" are in them): each
    word's vector must also lean towards the names (gazetteer.name_score), which common words do
    not. Off without the model's vocabulary."""
    if not g.has_name_vectors():
        return
    position = 0
    firsts = g.first_names()
    for opening in _FOLDED_START.finditer(text):
        # Session 18 (speed only): `_FOLDED` is tried only where its first word is a known first
        # name all in lower case or all in capitals, the test every pair below must pass anyway
        # (`_FOLDED_START`), instead of searched for from every word.
        start = opening.start()
        word = opening.group()
        if start < position or not (word.islower() or word.isupper()) or g.fold(word) not in firsts:
            continue
        match = _FOLDED.match(text, start)
        if match is None:
            continue
        first, last, initial = match.group("first"), match.group("last"), match.group("initial")
        position = match.start() + len(first)
        lower = first.islower() and last.islower() and (initial is None or initial.islower())
        upper = (
            first.isupper()
            and last.isupper()
            and (initial is None or initial.isupper())
            and not _in_capitals_run(text, match.start(), match.end())
        )
        if not (lower or upper) or g.fold(first) not in g.first_names() or g.fold(last) not in g.last_names():
            continue  # most word pairs end here, before any search around them
        introduced = _INTRODUCED.search(text, max(0, match.start() - 24), match.start()) is not None
        if (
            g.fold(match.group()) not in g.places()
            and _folded_word(first, g.first_names(), _FIRST_SCORE, introduced)
            and _folded_word(last, g.last_names(), _LAST_SCORE, introduced)
        ):
            yield match.start(), match.end()
            position = match.end()


# Rule 8: a first name opening a sentence that describes someone: "Megan is a very sympathetic
# person", "Daniel was the first to leave", "Noah has a dog".
_DESCRIBING = (
    r"(?:is|was|has|had|seems|looks|feels)[ \t]+"
    r"(?:a|an|the|very|so|really|always|never|my|our|his|her|their|not|quite|such)\b"
)
_DESCRIBED = re.compile(
    rf"(?:^|(?<=[.!?\n])[ \t]*|(?<=[.!?][\"'\u201d)]) *)(?P<name>{_NAME})[ \t]+{_DESCRIBING}",
    re.MULTILINE,
)
_DESCRIBED_NEEDED = re.compile(_DESCRIBING, re.MULTILINE)
_DESCRIBED_SCORE = 0.05
_SUBJECT_SCORE = 0.04  # a conjunction before and a verb after: a little more evidence than rule 8


# Rule 8 in mid-sentence: a known first name as the subject after a conjunction, before a verb
# ("but Vilma just has to get laid", "when Grace was ten", "and Noah wants to go").
_SUBJECT = re.compile(
    rf"(?<![\w])(?:but|and|because|when|while|so|then|until|since|although|though|if|as|before|after)"
    rf"[ \t]+(?P<name>{_NAME})[ \t]+"
    r"(?:(?:just|also|still|never|always|really|only|even|already|finally|often|usually)[ \t]+)?"
    r"(?:has|had|is|was|does|did|will|would|can|could|must|should|might|gets|got|wants|wanted|needs|"
    r"needed|likes|liked|loves|loved|hates|knows|knew|thinks|thought|says|said|goes|went|comes|came|"
    r"feels|felt|lives|lived|works|worked)\b"
)


def _described(text: str) -> Iterator[tuple[int, int]]:
    """Rule 8 (module docstring): the first name must be known, not a place, month or label, and
    its word vector must lean clearly towards names (gazetteer.name_score; "Will is a modal verb",
    "Grant is a ...": common words); off without the model's vectors."""
    if not g.has_name_vectors():
        return
    found = [(m, _DESCRIBED_SCORE) for m in _scan(_DESCRIBED, _DESCRIBED_NEEDED, text)]
    found += [(m, _SUBJECT_SCORE) for m in _SUBJECT.finditer(text)]
    for match, threshold in found:
        name = match.group("name")
        key = g.fold(name)
        if not _first(name) or _shouted(name) or key in g.CLOSED_CLASS or key in MONTHS or key in g.places():
            continue
        if key in g.function_words():
            continue
        score = g.name_score(key)
        if score is None or score >= threshold:
            yield match.start("name"), match.end("name")


def _opened(text: str) -> Iterator[tuple[int, int]]:
    """Rule 3's openers (module docstring): a greeting or closing, `@`, an introducing phrase."""
    openers: list[tuple[str | None, bool, re.Match[str]]] = [
        (m.group("opener"), False, m) for m in _GREETED.finditer(text)
    ]
    openers += [(None, False, m) for m in _MENTION.finditer(text)]
    openers += [
        (None, _INTRODUCES.match(text, start) is not None, m)
        for start, m in g.triggered(text, _INTRO, _INTRO_NAME)
    ]
    for opener, introduces, match in openers:
        if opener is not None and g.fold(opener) not in g.NAME_OPENERS:
            continue
        name = match.group("name")
        if g.fold(name) in g.CLOSED_CLASS or g.fold(name) in g.ADDRESSEES or _shouted(name):
            continue
        # After a greeting the addressee is a name even when no list knows it ("Hi Keiran,").
        greeting = (
            opener is not None and g.fold(opener) in g.GREETINGS and _addressed(text, match.end("name"))
        )
        # "my name is", "call me": the phrase introduces a name, known to a list or not.
        introduced = introduces and _plain_word(name)
        if _first(name) or greeting or introduced:
            yield match.start("name"), match.end("name")


# Rule 9: "Last, First" where rosters, forms and filings put it: after a label's colon, a
# semicolon, "under" or "by", or alone at a line's start, and ending the entry (line end, `;`, `.`,
# `(`): "Patient: Kowalski, Anna", "Attendees: Dean, Javi; Borg, Mateusz", "Signed: DUPONT, Marie".
_FIRST_ENDING_ENTRY = rf"(?P<first>{_NAME})(?:[ \t]+{_INITIAL})?)(?=[ \t]*(?:$|[;.(\r]))"
_LAST_FIRST = re.compile(
    rf"(?:^|[:;]|\b(?:under|by))[ \t]*(?P<name>(?:(?:{_PARTICLES})[ \t]+)*(?P<last>{_NAME}),[ \t]*"
    + _FIRST_ENDING_ENTRY,
    re.MULTILINE,
)
# `_scan`'s literal: the comma and the first name that ends the entry.
_LAST_FIRST_NEEDED = re.compile(rf",[ \t]*(?:{_FIRST_ENDING_ENTRY}", re.MULTILINE)


def _last_first(text: str) -> Iterator[tuple[int, int]]:
    """Rule 9 (module docstring): the first name is a known first name, the surname a known
    surname, a rare word or one in capitals (a filing's habit), neither a label or stop word, the
    surname no technical term unless a surname list holds it ("Berry" is both), and not two places
    ("Lyon, France")."""
    for match in _scan(_LAST_FIRST, _LAST_FIRST_NEEDED, text):
        last, first = match.group("last"), match.group("first")
        first_key = g.fold(first)
        if not _first(first) or _shouted(first) or len(first) < 2:
            continue
        if first_key in g.CLOSED_CLASS or first_key in g.function_words():
            continue
        key = g.fold(last)
        if key in g.CLOSED_CLASS or key in g.function_words():
            continue
        if key in g.places() and (key not in g.last_names() or first_key in g.places()):
            continue  # "Lyon, France", "Austin, Texas": a town and its region
        if key in g.words("tech_terms") and key not in g.last_names():
            continue  # "Stack: Python, Ruby"
        if _last(last) or (last.isupper() and len(last) > 2) or _rare_name(last):
            yield match.start("name"), match.end("name")


# Rule 10: where only a person fits, a name no list knows. After a role noun that only people
# hold ("my colleague Isabeus Simpert", "Professor Barbfia", "our attorney Wibenne"), and as the
# subject of a verb only people do ("Harhèle asked", "Andrador was born").
_ROLE_WORDS = (
    r"professor|judge|detective|inspector|sergeant|officer|captain|reverend|rev\.|pastor|"
    r"coach|nurse|attorney|lawyer|solicitor|barrister|colleague|co-?worker|boss|manager|supervisor|doctor|"
    r"landlord|landlady|neighbou?r|friend|teacher|tutor|dentist|therapist|accountant|assistant|roommate|"
    rf"flatmate|{_KIN}|grandson|granddaughter|grandma|grandpa|kollege|kollegin|collègue|colega|collega"
)
_ROLE = re.compile(
    # the look-ahead (a word, then a capital) skips most positions before the long alternation
    rf"(?<![\w])(?=[^\W\d_][\w\-.]*[ \t]+[{_UP}])(?i:{_ROLE_WORDS})"
    rf"[ \t]+(?P<name>{_NAME}(?:[ \t]+{_NAME})?)(?![\w@])"
)
# `_roles`' literal, on the lower-cased view of the text after a blank: a role word after a
# character that is no word character (the look-behind) and before a blank.
_ROLE_NEEDED = re.compile(rf"[^\w](?:{_ROLE_WORDS})[ \t]")
# The only characters that match a letter of `_ROLE_WORDS` case-insensitively yet do not lower-case
# to it (dotless i, long s); with one of them in the text the whole pattern runs.
_CASELESS_TWINS = ("\u0131", "\u017f")


def _roles(text: str) -> Iterator[re.Match[str]]:
    """`_ROLE.finditer(text)` (Session 16, speed only): nothing when the lower-cased view (the same
    offsets, `gazetteer.lower_view`) holds no role word after a non-word character or the text's
    start. Every character lowers to a non-word character when it is one, and matches a role
    word's letter case-insensitively only if it lowers to it, but for `_CASELESS_TWINS`."""
    view = g.lower_view(text)
    twins = any(c in text for c in _CASELESS_TWINS)
    if view is not None and not twins and _ROLE_NEEDED.search(" " + view) is None:
        return iter(())
    return _ROLE.finditer(text)


_PERSON_VERBS = (
    r"(?:said|says|wrote|asked|asks|replied|told|shouted|yelled|texted|emailed|answered|whispered|laughed|"
    r"smiled|insisted|argued|was born|died|married)\b"
)
_PERSON_VERB = re.compile(rf"(?<![\w@.\-])(?P<name>{_NAME}(?:[ \t]+{_NAME})?)[ \t]+" + _PERSON_VERBS)
_PERSON_VERB_NEEDED = re.compile(r"[ \t]" + _PERSON_VERBS)


def _unknown_name_word(word: str) -> bool:
    """A word that may be a name no list knows, or one a list knows: not a label, stop word,
    technical term, place or organization word; a word the model's vectors know counts only when
    a name list holds it ("my friend Google" is no person)."""
    if not _plain_word(word) or len(word) < 2:
        return False
    key = g.fold(word)
    return key in g.first_names() or key in g.last_names() or (_rare_name(word) and _latin(word))


_DETERMINERS = frozenset(
    [
        *("the", "a", "an", "this", "that", "these", "those", "my", "our", "your", "his", "her", "its"),
        *("their", "every", "each", "no", "some", "any"),
    ]
)


_AFTER_PREPOSITION = re.compile(r"(?i:\b(?:for|at|of|from|with|by|to|in|on|about))[ \t]+$")


def _only_people(text: str) -> Iterator[tuple[int, int]]:
    """Rule 10 (module docstring): the name's words (one or two) all pass `_unknown_name_word`;
    before a verb a failing first word leaves the second alone unless it is a determiner ("Then
    Harhèle asked" -> "Harhèle"; "The Kubelet said" -> nothing: a thing)."""
    for pattern, matches in (
        (_ROLE, _roles(text)),
        (_PERSON_VERB, _scan(_PERSON_VERB, _PERSON_VERB_NEEDED, text)),
    ):
        for match in matches:
            if pattern is _PERSON_VERB and _AFTER_PREPOSITION.search(
                text, max(0, match.start() - 12), match.start()
            ):
                continue  # "a spokesperson for Chadd Pouros said": the subject is someone else
            words = list(re.finditer(r"\S+", match.group("name")))
            base = match.start("name")
            if all(_unknown_name_word(w.group()) for w in words):
                yield base, match.end("name")
            elif (
                len(words) == 2
                and pattern is _PERSON_VERB
                and g.fold(words[0].group()) not in _DETERMINERS
                and _unknown_name_word(words[1].group())
            ):
                yield base + words[1].start(), match.end("name")


# Rule 11 (session 11): one known name where a sentence puts a person, not a thing: the object of
# "according to", "belongs to", "signed by", "forward this to", "add ... to the list", ... ("The
# account belongs to Sipos.", "According to Gunilla, ...", "Can you add Nagy to the mailing list?"),
# and the line after a closing ("Thanks,\nRita"). The word is a known first name or surname (after a
# closing a rare word too), a plain word (no place, term, label, street type or organization
# head: "according to Paris", "belongs to Support" stay out), and the clause goes on as a person's
# would (a comma or the end, or "to", "when", "in", "yesterday", ...; not a noun it modifies:
# "signed by Morgan Stanley" is rule 1's or the model's).
_CUE_PHRASES = (
    r"according to|belongs to|belonging to|belonged to|signed by|approved by|sent by|submitted by|"
    r"reviewed by|written by|authored by|assigned to|forward this to|forward it to|forwarded to|"
    r"reach out to|get in touch with|on behalf of|add|ask|tell|remind|ping|email|e-mail|cc"
)
_CUE = g.trigger(r"(?<![\w])", _CUE_PHRASES, r"(?=[ \t])")
_CUED_NAME = re.compile(
    rf"[ \t]+(?P<name>{_NAME})(?=[ \t]*(?:[,.;:!?)]|$)|[ \t]+(?:to|when|in|on|for|at|about|yesterday|today|"
    r"tomorrow|before|after|and|as|with)\b)",
    re.MULTILINE,
)
_CLOSING_LINE = re.compile(
    r"(?im)^[ \t]*(?:thanks|thank you|many thanks|regards|best regards|kind regards|warm regards|best|"
    r"best wishes|cheers|sincerely|yours|yours truly|cordially)[ \t]*[,!.]?[ \t]*\r?\n"
    rf"[ \t]*(?P<name>{_NAME})[ \t]*$"
)


# Session 13: the receiver of something handed on ("Send the slides to Marc by noon", "give the
# keys back to Salma tomorrow"): a verb of giving, at most six words of the same sentence, "to", and
# one known name word (`_cued_word`) that ends the clause or is followed by a time or clause word.
_HANDED_VERBS = (
    r"send|sent|give|gave|hand|handed|pass|passed|show|showed|mail|mailed|forward|deliver|return|"
    r"returned|text|lend|lent|bring|brought|take|took"
)
_HANDED = g.trigger(r"(?<![\w])", _HANDED_VERBS, r"(?=[ \t])")
_HANDED_NAME = re.compile(
    r"(?:[ \t]+[\w'\u2019\-]+){0,6}?[ \t]+to"
    rf"[ \t]+(?P<name>{_NAME})(?=[ \t]*(?:[,.;:!?)]|$)|[ \t]+(?:by|before|after|today|tomorrow|tonight|"
    r"when|once|first|asap|so|and)\b)",
    re.MULTILINE,
)


def _cued(text: str) -> Iterator[tuple[int, int]]:
    """Rule 11 (above)."""
    for _, match in g.triggered(text, _HANDED, _HANDED_NAME):
        if _cued_word(match.group("name")):
            yield match.start("name"), match.end("name")
    for _, match in g.triggered(text, _CUE, _CUED_NAME):
        if _cued_word(match.group("name")):
            yield match.start("name"), match.end("name")
    for match in _CLOSING_LINE.finditer(text):
        name = match.group("name")
        if _cued_word(name) or (_plain_word(name) and _rare_name(name)):
            yield match.start("name"), match.end("name")


def _cued_word(name: str) -> bool:
    """A known first name or surname that is a plain word; a town too ("Beverly", "Martinez"), not
    a country or region ("according to Paris" is a département's word too); its vector, when it has
    one, leaning clearly towards names ("belongs to Apple": "apple" is a surname in the lists)."""
    key = g.fold(name)
    if not (_first(name) or _last(name)) or not _plain_word(name, places=False):
        return False
    if key in MONTHS or key in g.regions():
        return False
    score = g.name_score(key)
    return score is None or score >= _FIRST_SCORE


# Session 13: initials before a surname ("B.R. Cox signed", "Approved by: F. Al-Masri", "J. P.
# Kowalczyk"): one to three capitals each with its dot, then a listed or compound surname that is a
# plain word whose vector (when it has one) does not lean away from names, after a space ("B.Eng."
# is a degree). Not after another
# capital with a dot ("U.S.A. Today"), never a country code's letters ("U.S. Steel", "U.K. Border").
_INITIALS_NAME = re.compile(
    rf"(?<![\w.])(?P<initials>(?:[{_UP}]\.[ \t]?){{0,2}}[{_UP}]\.)[ \t]+(?P<last>{_NAME})(?![\w@])"
)
_INITIALS_NAME_NEEDED = re.compile(rf"[{_UP}]\.[ \t]+[{_UP}]")  # the last initial and the name's capital


def _initialled(text: str) -> Iterator[tuple[int, int]]:
    for match in _scan(_INITIALS_NAME, _INITIALS_NAME_NEEDED, text):
        last = match.group("last")
        if last.endswith(("'s", "\u2019s")) and len(last) > 3:
            last = last[:-2]
        letters = re.sub(r"[^\w]", "", match.group("initials"))
        if len(letters) > 1 and g.fold(letters) in g.regions() | _COUNTRY_CODES:
            continue
        if _shouted(last) or not _last(last) or not _plain_word(last):
            continue
        key = g.fold(last)
        if key in MONTHS or key in g.stop_words():
            continue
        score = g.name_score(key)
        if score is not None and score < _LAST_SCORE and not _compound_surname(last):
            continue
        yield match.start(), match.start("last") + len(last)


_COUNTRY_CODES = frozenset(
    ["us", "uk", "eu", "un", "usa", "dc", "la", "ny", "nyc", "sf", "gb", "ca", "nz", "uae"]
)


# Session 15: a name-shaped run where a sentence puts a place. After "city", "town", "village" (the
# "home city Carlos Reyles", "the town Monte Gil") no person follows; after "in" or "near" only a
# run with a place's evidence is left out: a known place, region or town as a whole ("in Santa
# Lucia Del Mela", "in Campo Largo"), or a first word that opens place names ("in Monte Gil", "in
# El Alouj"). A possessive after it keeps it a person ("in Ana Lopez's team"). The model's own
# span (a GPE there) or the place rules then name it.
_PLACE_FRAME = re.compile(
    r"(?i:(?<![\w])(?P<strong>city|town|village|hometown|municipality)|(?<![\w])(?:in|near))[ \t]+$"
)
_PLACE_OPENERS = frozenset(
    [
        *("santa", "santo", "san", "são", "sao", "saint", "sainte", "st", "monte", "mount", "port", "porto"),
        *("puerto", "villa", "vila", "nueva", "nuevo", "bad", "castel", "lake", "fort", "el", "la", "le"),
        *("les", "los", "las", "al", "il", "agios", "agia", "agioi", "ayios", "ciudad", "cite", "cité"),
    ]
)


def _in_place_frame(text: str, start: int, end: int) -> bool:
    frame = _PLACE_FRAME.search(text, max(0, start - 16), start)
    if frame is None or text.startswith(("'s", "\u2019s"), end):
        return False
    if frame.group("strong"):
        return True
    value = g.fold(text[start:end])
    first = value.split()[0]
    return value in g.places() or value in g.regions() or value in g.towns() or first in _PLACE_OPENERS


def find(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of gazetteer-backed person names, possibly overlapping (the caller resolves);
    none where a sentence puts a place (`_in_place_frame`)."""
    for start, end in _find(text):
        if not _in_place_frame(text, start, end):
            yield start, end


def _find(text: str) -> Iterator[tuple[int, int]]:
    yield from _full_names(text)
    yield from _initialled(text)
    yield from _cued(text)
    yield from _last_first(text)
    yield from _only_people(text)
    yield from _case_folded(text)
    yield from _shaped(text)
    yield from _relations(text)
    for title_start, match in g.triggered(text, _TITLE, _TITLED_NAME):
        name = match.group("name")
        title = text[title_start : match.start("name")].strip()
        if title.isupper() and not title.endswith("."):
            continue  # "MS Office", "DR Congo": an acronym, not a title
        if g.fold(name.split()[0]) not in g.CLOSED_CLASS:
            yield match.start("name"), match.end("name")
    for match in _CHAT_VERB.finditer(text):
        name = match.group("name")
        if _first(name) and g.fold(name) not in g.CLOSED_CLASS and g.fold(name) not in MONTHS:
            yield match.start("name"), match.end("name")
    yield from _described(text)
    yield from _opened(text)
    # A transcript: once one speaker is a known first name, the other speakers are names too
    # ("Mineko: ..." next to "Sara: ..."); "Question:" / "Answer:" alone open no transcript.
    speakers = [
        m for m in _SPEAKER.finditer(text) if not _shouted(m.group("name")) and _speech(text, m.end())
    ]
    transcript = len(speakers) >= 2 and any(_first(m.group("name")) for m in speakers)
    for match in speakers:
        name = match.group("name")
        if _first(name) or (transcript and _plain_word(name)):
            yield match.start("name"), match.end("name")
