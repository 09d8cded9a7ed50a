"""The recognition pipeline above the model: what a model alone lacks (docs/ner.md, Pipeline).

For one text and the model's raw spans:
1. street addresses (addresses.py) become `location` spans labelled `ADDRESS`, organization names
   by form (orgs.py: legal-form suffixes, firm names of surnames) `organization` spans labelled
   `ORG_FORM`; model spans that overlap one are pieces of it (the city as GPE, the street as ORG,
   a firm of surnames as PERSON) and are dropped;
2. each remaining model span goes through the non-entity filter (nonentity.py): trimmed of
   greetings, instructions and labels at its edges, or dropped as a technical term, currency,
   log word, identifier or unsupported single word; a PERSON span that is a known place and does
   not start with a known first name becomes a location ("Den Haag"); an ORG span with a person's
   shape and no organization evidence becomes a person ("Claim filed by Kenyon Walker");
3. gazetteer-backed person names (names.py, label `PERSON_GAZ`) are added where the model found
   nothing, replace a shorter PERSON span (an equal one is kept as the model's), and replace an
   organization or location span they cover entirely (a full first-name + surname match is
   stronger evidence than the model's type);
4. known places after a preposition (`in Groningen`, `nach Lostorf`, `à Lyon`) and a place that
   stands alone on a line are added as `location` (`GPE_GAZ`) where nothing else was found;
   smaller towns (1,000+ inhabitants) count only when they are not also a name or a term. A known
   place replaces model spans it covers that are shorter ("Vila" + "Conde" -> "Vila do Conde").
Before step 1, a context that says "a place follows" ("lives in", "born in", "home city", "town
of", "landed in", "flew out of", "drove from", "relocating to", "wohnt in", "habite à", ...)
makes the capitalized words after it a location whatever the lists know (`lives in STEINPARZ`,
`home city Kwenzekile`, also in Greek or Cyrillic script); it counts as structural, so a model
span there ("Amoreira da Gândara" as a person) gives way.
After step 2, a list of capitalized words joined by commas and "and"/"und"/"et"/"y"/"e"/"en" in
which the model or the lists found two or more people makes its other members people too
("founders: Lapresse, Morris and Wright"); a model PERSON span holding such a list is split.
Spans never overlap in the result.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Sequence
from typing import NamedTuple

from . import addresses, names, nonentity, orgs
from . import gazetteer as g
from .backends import RawEntity
from .labels import veil_type
from .postprocess import clean_span

ADDRESS_LABEL = "ADDRESS"
ORG_LABEL = "ORG_FORM"
PERSON_LABEL = "PERSON_GAZ"
PLACE_LABEL = "GPE_GAZ"
ADDRESS_CONFIDENCE = 0.9
ORG_CONFIDENCE = 0.85
PERSON_CONFIDENCE = 0.85
PLACE_CONFIDENCE = 0.8

_UP = g.UPPER
# Particles inside a place's name, up to two ("Frankfurt an der Oder"): the catalog's languages and
# the Slavic "nad"/"pod"/"na" ("Ústí nad Labem", "Nové Město na Moravě"), "upon", "im", "bei". A
# candidate with one counts only as a known place as a whole (`_is_place`), never by its shape.
_PLACE_PARTICLES = "de|del|la|le|am|an|der|sur|sul|do|da|dos|das|los|las|el|di|du|des|nad|pod|na|im|bei|upon"
_PLACE = rf"[{_UP}][^\W\d_]*(?:[ \t\-](?:(?:{_PLACE_PARTICLES})[ \t\-]){{0,2}}[{_UP}][^\W\d_]*){{0,3}}"
_PREPOSITION = re.compile(
    rf"(?<![\w])(?P<preposition>in|from|to|at|near|via|visit|visiting|visited|through|around|outside|"
    rf"across|en|à|au|aus|nach|bei|von|zu|a|da|em|para|naar|uit|te|desde|hacia|di|verso|vers)[ \t]+"
    rf"(?P<place>{_PLACE})"
)
_LINE = re.compile(rf"(?m)^[ \t]*(?P<place>{_PLACE})[ \t]*$")
# "a Konstantinovsk-based supplier", "our Rio Grande do Sul-based team": a place a firm or a person
# is based in (session 11); the words must be a place as after a preposition, never a term
# ("Python-based", "Java-based" stay out: technical terms).
_BASED = re.compile(rf"(?<![\w\-])(?P<place>{_PLACE})-based(?![\w])")
_ANY_WORD = r"[^\W\d_][^\W\d_'\u2019]*(?:-[^\W\d_]+)*"
_PLACE_CONTEXT_PHRASES = (
    r"(?:lives|live|living|lived|resides|reside|residing|born|grew up|based) in|"
    r"home ?town|home city|city of|town of|village of|municipality of|"
    # travel: nobody lands in, flies to or drives from a company ("moved to" is left out: people
    # move to a new employer too)
    r"(?:landed|landing|lands|arrived|arriving|arrives) in|(?:flew|flying|flies|drove|driving|travell?ed) "
    r"(?:to|from|out of)|(?:relocated|relocating|relocates) to|"
    # a vehicle or a journey goes between places ("the train from Bourdon", "a flight to Kurfar")
    r"(?:train|trains|flight|flights|bus|ferry|plane|trip|journey|commute|road trip) (?:to|from)|"
    r"wohnt in|wohne in|lebt in|lebe in|geboren in|habite à|habite a|vit à|né à|née à|vive en|vive em|"
    r"vive a|vivo en|vivo a|abita a|mora em|moro em|woont in|woon in|geboren te"
)
# The phrase is found case-insensitively (gazetteer.triggered), the place after it as written.
_PLACE_CONTEXT = g.trigger(r"(?<![\w])", _PLACE_CONTEXT_PHRASES, r"(?=[ \t])")
_PLACE_AFTER_CONTEXT = re.compile(
    r"[ \t]+"
    rf"(?P<place>{_ANY_WORD}(?:[ \t\-](?:(?:de|del|la|le|sur|am|an|do|da|dos|upon)[ \t\-])?"
    rf"{_ANY_WORD}){{0,3}})"
)
# Members of a list: "Lapresse, Morris and Wright", "Müller, Schmidt und Weber". At most ten
# members: an unbounded repetition would rescan a long comma run from every word (quadratic).
_LIST = re.compile(
    rf"(?<![\w])(?P<list>{_ANY_WORD}(?:,[ \t]+{_ANY_WORD}){{0,8}},?[ \t]+"
    rf"(?:and|und|et|y|e|en|&)[ \t]+{_ANY_WORD})(?![\w])"
)
# Session 15: the conjunction every list holds, alone: most texts have none, and `_LIST` tries a
# word chain from every word start.
_LIST_CONJUNCTION = re.compile(r"[ \t](?:and|und|et|y|e|en|&)[ \t]")


def _context_places(text: str) -> list[RawEntity]:
    """Capitalized words after a context that says a place follows (module docstring)."""
    out: list[RawEntity] = []
    for _, match in g.triggered(text, _PLACE_CONTEXT, _PLACE_AFTER_CONTEXT):
        start = match.start("place")
        end = start
        for word in g.WORD.finditer(text, start, match.end("place")):
            value = word.group()
            key = g.fold(value)
            if key in g.PARTICLES and end > start:
                continue
            if not value[0].isupper() or key in g.CLOSED_CLASS or key in g.function_words():
                break
            if key in g.words("tech_terms") and key not in g.places():
                break
            end = word.end()
        if end > start:
            out.append(RawEntity(start, end, PLACE_LABEL, PLACE_CONFIDENCE))
    return out


# A form field whose value is a place: "City of birth: Hoogland", "Wohnort: Roding". Not
# "Location:" (a room, "Remote", "Online").
_PLACE_LABELS = (
    r"city|town|home ?town|city of birth|place of birth|birth ?place|city of residence|"
    r"country|country of birth|country of residence|wohnort|geburtsort|ort|stadt|ville|lieu de naissance|"
    r"pays|ciudad|país|lugar de nacimiento|città|luogo di nascita|cidade|naturalidade|woonplaats|"
    r"geboorteplaats|plaats"
)
_PLACE_LABEL = g.trigger(r"(?<![\w])", _PLACE_LABELS, r"(?=[ \t]*:)")
_PLACE_LABEL_VALUE = re.compile(
    r"[ \t]*:[ \t]*"
    rf"(?P<place>{_ANY_WORD}(?:[ \t\-](?:(?:de|del|la|le|sur|am|an|do|da|dos|upon|di|im|in)[ \t\-])?"
    rf"{_ANY_WORD}){{0,3}})[ \t]*(?=$|[\r\n,;|)])",
    re.MULTILINE,
)


def _labelled_places(text: str) -> list[RawEntity]:
    """The value of a place field, the whole line's value (`_PLACE_LABEL`): every word capitalized,
    not a label or a term, and a known place or a word the model's vocabulary does not know
    ("City: Remote" is not a place)."""
    out: list[RawEntity] = []
    for _, match in g.triggered(text, _PLACE_LABEL, _PLACE_LABEL_VALUE):
        value = match.group("place")
        words = value.split()
        keys = [g.fold(w) for w in g.WORD.findall(value)]
        if not words or any(not w[0].isupper() for w in words if g.fold(w) not in g.PARTICLES):
            continue
        if any(k in g.CLOSED_CLASS or k in g.words("tech_terms") for k in keys):
            continue
        known = g.fold(value) in g.places() or g.fold(value) in g.towns()
        if known or not all(g.common_word(w) for w in words if g.fold(w) not in g.PARTICLES):
            out.append(RawEntity(match.start("place"), match.end("place"), PLACE_LABEL, PLACE_CONFIDENCE))
    return out


def _list_members(text: str, kept: _SpanSet) -> list[RawEntity]:
    """People by coordination (module docstring): the unfound members of a list of names. Every
    member must look like a name: found as a person already, in a name list, or a rare word (not
    "Analyst" in "Senior Analyst, Carpentier et Dubois"); a list that overlaps an organization
    or an address is left alone."""
    out: list[RawEntity] = []
    if _LIST_CONJUNCTION.search(text) is None:
        return out
    for match in _LIST.finditer(text):
        words = g.WORD.finditer(text, match.start(), match.end())
        members = [m for m in words if g.fold(m.group()) not in _AND]
        if len(members) < 3 or not all(_member_word(m.group()) for m in members):
            continue
        spans = [RawEntity(m.start(), m.end(), PERSON_LABEL, PERSON_CONFIDENCE) for m in members]
        people = 0
        for span in spans:
            rivals = kept.overlapping(span)
            if any(veil_type(r.label) != "person" for r in rivals):
                break
            value = text[span.start : span.end]
            known = g.fold(value) in g.last_names() or g.fold(value) in g.first_names()
            if not (rivals or known or not g.common_word(value)):
                break
            people += bool(rivals) or known
        else:
            if people >= 2:
                out.extend(spans)
    return out


_AND = frozenset(["and", "und", "et", "y", "e", "en"])


def _member_word(word: str) -> bool:
    key = g.fold(word)
    return word[0].isupper() and not (
        word.isupper()
        or key in g.CLOSED_CLASS
        or key in g.function_words()
        or key in g.words("tech_terms")
        or (key in g.places() and key not in g.last_names() and key not in g.first_names())
    )


def _places(text: str) -> list[RawEntity]:
    out: list[RawEntity] = []
    for pattern in (_PREPOSITION, _LINE):
        for match in pattern.finditer(text):
            value = match.group("place")
            words = value.split()
            if pattern is _PREPOSITION and _department_after(text, match.start("place")):
                continue  # "moved to Research and Development": no town "Research" (wave15/ner2)
            # After a preposition, the longest prefix that is a known place ("in Lyon Monday" ->
            # "Lyon"); a line must be a place as a whole ("Human Resources" is not "Human").
            for size in range(len(words), 0 if pattern is _PREPOSITION else len(words) - 1, -1):
                candidate = " ".join(words[:size])
                after = match.start("place") + len(candidate)
                if after < len(text) and text[after].isalnum():
                    continue  # "bei Split2": a word part, not a place
                preposition = match.group("preposition") if pattern is _PREPOSITION else None
                if preposition is not None and g.fold(preposition) in _VISIT and _MODIFIES.match(text, after):
                    preposition = None  # "visiting Grafana dashboards": a name before a noun it modifies
                if _is_place(candidate, preposition):
                    start = match.start("place")
                    out.append(RawEntity(start, start + len(candidate), PLACE_LABEL, PLACE_CONFIDENCE))
                    break
    for match in _BASED.finditer(text) if "-based" in text else ():
        # the longest suffix that is a place: "Our Konstantinovsk-based" -> "Konstantinovsk"
        end = match.end("place")
        for word in re.finditer(r"[^ \t]+", match.group("place")):
            start = match.start("place") + word.start()
            if _is_place(text[start:end]):
                out.append(RawEntity(start, end, PLACE_LABEL, PLACE_CONFIDENCE))
                break
    out.extend(_rare_known_places(text))
    return out


# Address fragments named alone: a county ("Campos County", "Orange County"), and a postcode + city
# after a preposition ("ship it to 88431 Jacksonshire", "in 1015 CJ Amsterdam").
_COUNTY = re.compile(
    rf"(?<![\w])(?P<place>[{_UP}][^\W\d_]+(?:[ \t\-][{_UP}][^\W\d_]+)?[ \t]+"
    r"(?:County|Parish|Borough))(?![\w])"
)
_POSTCODE_PLACE = re.compile(
    rf"(?<![\w])(?:to|in|from|at|near|nach|à|a|em|para|naar|en)[ \t]+"
    r"(?P<place>(?P<code>\d{4}[ \t]?[A-Z]{2}(?![\w])|\d{4,5}|[A-Z]{1,2}-\d{4,5})[ \t]+"
    rf"(?P<city>{_PLACE}))"
)


# A site of a firm named by its town: "the Pogoanele branch", "our Güçlüport office", "the
# Illnau-Effretikon plant". The words must read as a place (`_facility_places`): "the Sales
# office", "the GitHub office", "the Kowalski office" are none.
_HYPHENATED = rf"[{_UP}][^\W\d_]*(?:-[{_UP}][^\W\d_]*)*"
_FACILITY_WORDS = (
    # not "factory", "store", "hub", "outlet": code names them too ("the Fastify factory function")
    r"(?:branch|office|offices|site|plant|campus|warehouse|depot|headquarters|hq|subsidiary|"
    r"showroom|clinic|mill|refinery|terminal)\b"
)
_FACILITY_WORD = re.compile(rf"[ \t]{_FACILITY_WORDS}")  # the cheap test: most texts have none
_FACILITY = re.compile(
    rf"(?<![\w])(?i:the|our|their|its|your|a)[ \t]+"
    rf"(?P<place>{_HYPHENATED}(?:[ \t]{_HYPHENATED}){{0,2}})[ \t]+{_FACILITY_WORDS}"
)


def _facility_places(text: str) -> list[RawEntity]:
    """`_FACILITY`: the town is a known place, or a known town no name list holds, shaped like a
    place (`place_shaped`), or words of four letters or more the model's vectors do not know and
    no name list holds; never a label, term, currency or organization word."""
    out: list[RawEntity] = []
    if _FACILITY_WORD.search(text) is None:
        return out
    for match in _FACILITY.finditer(text):
        value = match.group("place")
        key = g.fold(value)
        words = re.split(r"[ \t\-]+", value)
        keys = [g.fold(w) for w in words]
        if any(k in g.CLOSED_CLASS or k in g.function_words() or k in g.words("tech_terms") for k in keys):
            continue
        if any(k in g.ORG_HEADS or k in g.words("currencies") for k in keys):
            continue
        named = key in g.first_names() or key in g.last_names()
        score = g.name_score(key) if named else None
        # a known place that a name list holds too counts only when its vector reads as a place's
        # ("the London office"; "our Kerman site" may be a person's, as in `_rare_known_places`)
        known = (key in g.places() and not (named and (score is None or score >= _FIRST_SCORE))) or (
            key in g.towns() and not named
        )
        rare = all(
            not g.common_word(w) and g.fold(w) not in g.first_names() and g.fold(w) not in g.last_names()
            for w in words
        )
        if known or place_shaped(value) or (rare and all(len(w) >= 4 for w in words)):
            out.append(RawEntity(match.start("place"), match.end("place"), PLACE_LABEL, PLACE_CONFIDENCE))
    return out


def _county_and_postcode_places(text: str) -> list[RawEntity]:
    """`_COUNTY` when its name is no label, stop word or term; `_POSTCODE_PLACE` when the clause
    ends after it (else the number is a house number before a street) and the city, as a whole, is
    a known place or town, shaped like a place, or one capitalized word the model's vocabulary does
    not know or a name list holds (towns are named after people: "06670 Charpentier"); a number
    that reads as a year ("in 2024 Microsoft") needs a known place."""
    out: list[RawEntity] = []
    county = "County" in text or "Parish" in text or "Borough" in text  # the words `_COUNTY` ends in
    for match in _COUNTY.finditer(text) if county else ():
        names = match.group("place").split()[:-1]
        if all(_place_name_word(w) for w in names) and g.fold(names[0]) not in g.function_words():
            out.append(RawEntity(match.start("place"), match.end("place"), PLACE_LABEL, PLACE_CONFIDENCE))
    for match in _POSTCODE_PLACE.finditer(text):
        if not _CLAUSE_END.match(text, match.end()):
            continue  # "to 49096 Lehner Course, ...": a house number and a street, not a postcode
        city = match.group("city")
        key = g.fold(city)
        code = match.group("code")
        year = code.isdigit() and len(code) == 4 and 1800 <= int(code) <= 2099
        known = key in g.places() or key in g.towns()
        single = " " not in city and _place_name_word(city)
        shaped = place_shaped(city) or (
            single and (not g.common_word(city) or key in g.last_names() or key in g.first_names())
        )
        if known or (shaped and not year):
            out.append(RawEntity(match.start("place"), match.end("place"), PLACE_LABEL, PLACE_CONFIDENCE))
    return out


_CLAUSE_END = re.compile(r"[ \t]*(?:[,.;:!?)\r\n]|$|[ \t]+[a-z])")


def _place_name_word(word: str) -> bool:
    key = g.fold(word)
    return not (
        key in g.CLOSED_CLASS
        or key in g.words("tech_terms")
        or key in g.words("currencies")
        or (word.isupper() and len(word) <= 5)
    )


_NAME_COMES = re.compile(
    r"(?i:\b(?:calls? me|called me|named|name is|i'?m|i am|this is|hi|hello|hey|dear|thanks|cc|@))[ \t,]*$"
)
_ANYWHERE = re.compile(rf"(?<![\w@./\-])(?P<place>{_PLACE})(?![\w@/\-]|\.\w)")


def _not_rare_place_word(word: str) -> bool:
    key = g.fold(word)
    return (
        g.common_word(word)
        or key in g.first_names()
        or key in g.last_names()
        or key in g.CLOSED_CLASS
        or key in g.words("tech_terms")
        or key in g.words("currencies")
    )


def _rare_known_places(text: str) -> list[RawEntity]:
    """A known place (15,000+ inhabitants; not the smaller towns) anywhere in the text when the
    model's vocabulary does not know any of its words ("our Matosinhos site", "Esbjerg and 3240
    Meadow Drive"): a word the vectors know may be a common word ("Mobile", "Split", "Nice"); a
    word a name list knows is left to the name rules; a technical term is none ("Kotlin")."""
    out: list[RawEntity] = []
    for match in _ANYWHERE.finditer(text):
        value = match.group("place")
        words = value.split()
        if _not_rare_place_word(words[0]):
            continue  # every candidate holds the first word: most capitalized words end here
        # (Session 15: tested after the word, which ends nine candidates in ten; both only skip.)
        if _NAME_COMES.search(text, max(0, match.start() - 20), match.start()):
            continue  # "everyone calls me Yaroslav", "Hi Lostorf,": a name's place
        for size in range(len(words), 0, -1):
            candidate = " ".join(words[:size])
            key = g.fold(candidate)
            if key not in g.places():
                continue
            if any(_not_rare_place_word(w) for w in words[:size]):
                break
            if candidate.isupper() and len(candidate) <= 5:
                break
            start = match.start("place")
            out.append(RawEntity(start, start + len(candidate), PLACE_LABEL, PLACE_CONFIDENCE))
            break
    return out


class _SpanSet:
    """Non-overlapping spans sorted by start: overlap queries in O(log n + k), so a 100,000-character
    text full of candidates stays linear-ish instead of quadratic."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._spans: list[RawEntity] = []

    def overlapping(self, span: RawEntity) -> list[RawEntity]:
        # Sorted, non-overlapping spans have sorted ends too: walk left from the last that starts
        # before `span` ends while they end after it starts.
        index = bisect.bisect_left(self._starts, span.end) - 1
        out = []
        while index >= 0 and self._spans[index].end > span.start:
            out.append(self._spans[index])
            index -= 1
        return out

    def add(self, span: RawEntity) -> None:
        index = bisect.bisect_left(self._starts, span.start)
        self._starts.insert(index, span.start)
        self._spans.insert(index, span)

    def remove(self, span: RawEntity) -> None:
        index = self._spans.index(span, bisect.bisect_left(self._starts, span.start))
        del self._starts[index]
        del self._spans[index]

    def spans(self) -> list[RawEntity]:
        return list(self._spans)


def _longest_first(spans: set[tuple[int, int]]) -> list[tuple[int, int]]:
    return sorted(spans, key=lambda s: (s[0], -(s[1] - s[0])))


# A run of 80+ characters without white space (a hash, base64, a minified line, a hyphen chain) is
# never part of a name or an address. The recognizers see it blanked out (same length, so offsets
# hold): their patterns scan a word chain from every boundary inside it, which is quadratic on
# "Aaa-Aaa-Aaa-..." of the sidecar's 100,000-character limit and linear once chains are short.
_LONG_RUN = re.compile(r"\S{80,}")


def _blank_long_runs(text: str) -> str:
    # Session 15: `str.split` cuts at the characters `\S` excludes (both are Py_UNICODE_ISSPACE),
    # in one pass; the pattern tries a run from every character of every word.
    if max(map(len, text.split()), default=0) < 80:  # `_LONG_RUN`'s length
        return text
    return _LONG_RUN.sub(lambda match: " " * len(match.group()), text)


class TextParts(NamedTuple):
    """What the recognizers that read only the text find (Session 16): the text with its long runs
    blanked, the structural spans, the gazetteer names and the place candidates. `text_parts` of a
    text gives the same values whenever and on whichever thread it runs (pure functions of the
    text), so the detector computes them beside the model (detector.py, `overlap`)."""

    text: str
    structural: _SpanSet
    people: set[tuple[int, int]]
    places: list[RawEntity]


def text_parts(text: str) -> TextParts:
    blanked = _blank_long_runs(text)
    return TextParts(blanked, _structural(blanked), set(names.find(blanked)), _places(blanked))


def recognize(text: str, model_spans: Sequence[RawEntity], parts: TextParts | None = None) -> list[RawEntity]:
    """The pipeline above (module docstring) for one text; `parts`, when given, is `text_parts(text)`
    computed ahead (it is then this call's to change)."""
    if parts is None:
        parts = text_parts(text)
    text = parts.text
    kept = parts.structural
    structural = _SpanSet()
    for span in kept.spans():
        structural.add(span)
    for span in model_spans:
        if structural.overlapping(span):
            continue
        for piece in _split_pair(text, span) or [span]:
            candidate = _filtered(text, piece)
            if candidate is not None and not kept.overlapping(candidate):  # model entities never overlap
                kept.add(candidate)
    _add_list_members(text, kept)
    for start, end in _longest_first(parts.people):
        candidate = RawEntity(start, end, PERSON_LABEL, PERSON_CONFIDENCE)
        rivals = kept.overlapping(candidate)
        if any(not _yields_to(text, rival, candidate) for rival in rivals):
            continue
        for rival in rivals:
            kept.remove(rival)
        kept.add(candidate)
    _add_paired_people(text, kept)
    _add_later_mentions(text, kept)
    for candidate in parts.places:
        rivals = kept.overlapping(candidate)
        if all(_fragment_of(rival, candidate) for rival in rivals):
            for rival in rivals:
                kept.remove(rival)
            kept.add(candidate)
    _add_paired_places(text, kept)
    _add_lone_region_codes(text, kept)
    spans = _merge_address_runs(text, _with_qualifier(text, _with_town_tail(text, kept.spans())))
    return _place_lists(text, _firm_runs(text, _town_region_pairs(text, _signature_employers(text, spans))))


# Session 16 (wave15/ner3): places listed after a label, "Offices: London, Lutry and Madrid",
# "Locations: Oslo, Bergen". The model reads such a list as people: one PERSON span over two
# members with the comma inside ("London, Lutry"), or a town alone as a person ("Lyon"), and the
# name rules call a town that is a surname too a person ("Bergen"). A list of capitalized members
# (one to three words each) joined by commas and a conjunction that fills the rest of a label's
# line is a list of places when the label names places (`_PLACE_LIST_LABELS`: "Offices",
# "Locations", "Branches", "Cities", ...) or when a member is a known place found as a location;
# each person or model-firm span inside it that is made of whole members is split at the commas
# and its members become places, provided each is a known place or a word the model's vocabulary
# does not know (not "Remote", "Online", "Teams"). A list with no such evidence is left alone
# ("Attendees: Smith, John" stays a name), and when only a member says place, a member that opens
# with a listed first name stays a person.
_PLACE_LIST_LABELS = frozenset(
    [
        *("office", "offices", "location", "locations", "branch", "branches", "site", "sites"),
        *("city", "cities", "town", "towns", "country", "countries", "destination", "destinations"),
        *("stop", "stops", "venue", "venues", "region", "regions", "hub", "hubs", "campus", "campuses"),
        *("headquarters", "warehouses", "depots", "plants", "factories", "stores", "studios"),
    ]
)
_LIST_MEMBER = rf"[{_UP}][^\W\d_]*(?:[ \t\-](?:(?:{_PLACE_PARTICLES})[ \t\-])?[{_UP}][^\W\d_]*){{0,2}}"
_PLACE_LIST = re.compile(
    rf"(?m)(?<![\w])(?P<label>[^\W\d_]+)[ \t]*:[ \t]*"
    rf"(?P<list>{_LIST_MEMBER}(?:(?:,[ \t]*|,?[ \t]+(?:and|und|et|y|e|en|&)[ \t]+){_LIST_MEMBER}){{1,11}})"
    r"[ \t]*[.;]?[ \t]*(?=\r?\n|$)"
)
_LIST_SEPARATOR = re.compile(r",[ \t]*|,?[ \t]+(?:and|und|et|y|e|en|&)[ \t]+")


def _list_place_word(value: str) -> bool:
    """A member that may be a place: no closed-class word, function word or term, and a known
    place or a word the model's vocabulary lacks."""
    keys = [g.fold(w) for w in value.split()]
    if any(k in g.CLOSED_CLASS or k in g.function_words() or k in g.words("tech_terms") for k in keys):
        return False
    key = g.fold(value)
    known = key in g.places() or key in g.towns() or key in g.regions()
    return known or not all(g.common_word(w) for w in value.split() if g.fold(w) not in g.PARTICLES)


def _labelled_place_lists(text: str, spans: list[RawEntity]) -> list[RawEntity]:
    if ":" not in text or "," not in text:
        return spans  # the cheap test: most texts hold no labelled list
    out = spans
    for match in _PLACE_LIST.finditer(text):
        start, end = match.span("list")
        members: list[tuple[int, int]] = []
        at = start
        for separator in _LIST_SEPARATOR.finditer(text, start, end):
            members.append((at, separator.start()))
            at = separator.end()
        members.append((at, end))
        edges = {a for a, _ in members} | {b for _, b in members}
        inside = [s for s in out if s.start < end and start < s.end]
        if any(s.start not in edges or s.end not in edges for s in inside):
            continue  # a span across the list's edges or inside a member: not a plain list
        labelled = g.fold(match.group("label")) in _PLACE_LIST_LABELS
        if not labelled and not any(
            veil_type(s.label) == "location" and _list_place_word(text[s.start : s.end]) for s in inside
        ):
            continue
        changed: list[RawEntity] = []
        for span in inside:
            kind = veil_type(span.label)
            if kind == "location" or span.label not in ("PERSON", PERSON_LABEL, "ORG"):
                changed.append(span)
                continue
            pieces = [m for m in members if span.start <= m[0] and m[1] <= span.end]
            named = any(g.fold(text[a:b].split(maxsplit=1)[0]) in g.first_names() for a, b in pieces)
            if not all(_list_place_word(text[a:b]) for a, b in pieces) or (not labelled and named):
                # a member alone says place: a first name stays ("Speakers: Paris, Madison")
                changed.append(span)
                continue
            changed.extend(RawEntity(a, b, PLACE_LABEL, span.confidence) for a, b in pieces)
        kept = [s for s in out if not (s.start < end and start < s.end)]
        out = sorted(kept + changed, key=lambda s: s.start)
    return out


def _place_lists(text: str, spans: list[RawEntity]) -> list[RawEntity]:
    """The last passes over the result: labelled place lists (wave15/ner3), then news forms (17)."""
    return _foreign_countries(text, _news_forms(text, _labelled_place_lists(text, spans)))


# Session 17 (wave16/ner): wordings of news text, found on text no rule was written against
# (data/heldout-voa.jsonl: two Voice of America articles annotated by Apache OpenNLP;
# data/heldout-spacy-examples.jsonl: spaCy's example sentences), dev halves only.
# An office or a courtesy title before a name: "President Obama's arrival" (the model's place),
# "Mr. President, your voice ..." (the title rule's person: a role, no name).
_OFFICE_TITLES = frozenset(
    [
        *("president", "vice", "senator", "sen", "governor", "gov", "minister", "prime", "premier"),
        *("secretary", "chancellor", "king", "queen", "prince", "princess", "pope", "ambassador"),
        *("mayor", "judge", "justice", "general", "gen", "speaker", "chairman", "chairwoman", "chair"),
        *("sheikh", "emir", "sultan", "representative", "rep", "congressman", "congresswoman"),
        *("commissioner", "director", "professor", "colonel", "col", "lieutenant", "lt", "captain"),
        *("sergeant", "sgt", "admiral", "bishop", "cardinal", "rabbi", "imam", "reverend", "rev"),
    ]
)
# a role alone is no name; "King", "Judge", "General" are surnames or towns too, so not here
_ROLE_WORDS = _OFFICE_TITLES - frozenset(
    [
        *("king", "queen", "prince", "princess", "justice", "general", "gen", "captain", "judge"),
        *("bishop", "cardinal", "vice", "prime", "sen", "gov", "rep", "col", "lt", "sgt", "rev", "chair"),
    ]
)
# A country written as dotted initials, found by the model as a place ("U.S. President", "a U.K.
# startup"); undotted "US", "UK" are words and codes too, and stay the filter's.
_DOTTED_COUNTRY = re.compile(r"U\.S(?:\.A)?\.?|U\.K\.?|U\.A\.E\.?|E\.U\.?")
_TITLE_WORD = re.compile(r"[^\W\d_]+\.?")
_COMPASS = frozenset(["north", "south", "east", "west", "northeast", "northwest", "southeast", "southwest"])
_WEEKDAYS = frozenset(["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"])
_WORD_AT = re.compile(r"[^\W\d_]+")


def _title_key(word: str) -> str:
    return g.fold(word.rstrip("."))


def _after_office_title(text: str, start: int, end: int) -> tuple[int, int] | None:
    """A model place that opens with one or two titles ("President Obama", "Prime Minister Rutte",
    "Mr. Karzai") and goes on with capitalized words none of which is a known place or region: the
    person after the titles, a town's name too ("Obama" is one in Japan). "Prince George" (a known
    place as a whole), "President Street", "General Santos" and "Mr. France" stay."""
    at = start
    titles = 0
    for match in _TITLE_WORD.finditer(text, start, end):
        if match.start() != at or titles == 2:
            break
        key = _title_key(match.group())
        if key not in _OFFICE_TITLES and key not in g.TITLES:
            break
        titles += 1
        at = match.end()
        while at < end and text[at] in " \t":
            at += 1
    if titles == 0 or at >= end or not text[at].isupper():
        return None
    name = text[at:end]
    words = g.WORD.findall(name)
    if not words or any(not w[0].isupper() for w in words):
        return None
    keys = [g.fold(w) for w in words]
    if g.fold(text[start:end]) in g.places() or g.fold(name) in g.regions():
        return None
    if keys[-1] in g.STREET_TYPES or any(k in g.ORG_HEADS for k in keys):
        return None
    return at, end


_PLACE_JOINERS = frozenset(
    [
        *("and", "und", "et", "y", "e", "i", "og", "och", "of", "the", "on", "upon", "in", "im", "am"),
        *("an", "auf", "bei", "ob", "nad", "pod", "u", "pri", "na", "sur", "sous", "lès", "les", "aan"),
        *("op", "bij", "over", "sul", "sull", "al", "ai", "dels", "das", "dos", "d", "l", "à", "en"),
        *("los", "las", "lo", "sa", "san", "santa", "ul", "di", "della", "delle", "degli"),
    ]
)


def _place_before_clause(text: str, start: int, end: int) -> tuple[int, int] | None:
    """A model place that runs on into the clause after it, over a lower-case word that is no
    particle ("Deutschland beschert Gastwirten mehr Umsatz": German writes nouns with capitals):
    the words before it. The lower-case words of places' names are no such word ("Bosnia and
    Herzegovina", "Frankfurt am Main", "Alphen aan den Rijn", "Isle of Man", "Stratford-upon-Avon")."""
    words = list(_WORD_AT.finditer(text, start, end))
    for i, word in enumerate(words):
        key = g.fold(word.group())
        if i and word.group()[0].islower() and key not in g.PARTICLES and key not in _PLACE_JOINERS:
            return start, words[i - 1].end()
    return None


def _demonym(value: str) -> bool:
    """A model place that is a people's adjective ("North Korean human rights advocates", "the
    South Korean capital", "Kenyan runners"): the value less its last "n" is a country or region
    ("North Korea", "Kenya") and the value itself is no known place ("Milan", "Iran", "Oman" are)."""
    if len(value) < 5 or not value.endswith("n") or value[-2] not in "aeiou":
        return False
    key = g.fold(value)
    if key in g.places() or key in g.regions():
        return False
    stem = g.fold(value[:-1])
    return stem in g.regions()


def _news_forms(text: str, spans: list[RawEntity]) -> list[RawEntity]:
    """Person spans that are a role ("Mr. President"), a direction ("the North's abuses") or that
    ran over a weekday ("called on Mr. Obama Wednesday to ..." -> "Obama")."""
    out: list[RawEntity] = []
    changed = False
    for span in spans:
        if span.label not in ("PERSON", PERSON_LABEL):
            out.append(span)
            continue
        words = list(_WORD_AT.finditer(text, span.start, span.end))
        if len(words) == 1:
            key = g.fold(words[0].group())
            before = (_previous_word(text, span.start) or "").lower()
            if key in _ROLE_WORDS or (key in _COMPASS and before == "the"):
                changed = True
                continue
        if (
            len(words) >= 2
            and g.fold(words[-1].group()) in _WEEKDAYS
            and words[-1].end() == span.end
            and not _given_name_only(words[:-1])
        ):
            cut = words[-2].end()
            if text[cut : words[-1].start()].strip(" \t") == "":
                out.append(RawEntity(span.start, cut, span.label, span.confidence))
                changed = True
                continue
        out.append(span)
    return out if changed else spans


# Session 18 (wave17/ner): country names in German, French, Spanish, Italian, Portuguese and Dutch
# ("Reino Unido", "Regno Unito", "Verenigd Koninkrijk", "États-Unis", "Deutschland", "L'Italie"),
# from ISO 3166-1's translations (`data/countries_i18n.txt`; `regions.txt` is English only): a run
# of capitalized words (joined by a particle) that is such a name is a place, and a model person,
# firm or place whose other words are lower case ("del Reino Unido" as a person) gives way to it. A
# single word that is also a listed first name or surname ("Italia", "Salvador") needs a particle
# or preposition before it.
_COUNTRY_RUN = re.compile(
    rf"(?<![\w\-])(?:[lLdD]['\u2019])?(?P<name>[{_UP}][^\W\d_]*(?:-[^\W\d_]+)*"
    r"(?:[ \t]+(?:(?:de|del|da|do|dos|das|des|di|van|der|und|y|e|et|en)[ \t]+)?"
    rf"[{_UP}][^\W\d_]*(?:-[^\W\d_]+)*){{0,3}})"
)
_COUNTRY_BEFORE = re.compile(
    r"(?:\b(?:in|nach|aus|von|en|a|au|aux|em|no|na|do|da|del|della|dell|di|de|du|des|van|het|uit|naar)"
    r"|[lLdD]['\u2019])[ \t]*$"
)


# The first word of each name: a capitalized word that opens none is skipped before the run is read.
_CAPITALIZED_AT = re.compile(rf"(?<![\w\-])(?:[lLdD]['\u2019])?([{_UP}][^\W\d_]*)")


@functools.cache
def _country_first_words() -> frozenset[str]:
    return frozenset(_WORD_AT.match(name).group() for name in g.words("countries_i18n"))  # type: ignore[union-attr]


def _country_at(text: str, run: re.Match[str]) -> tuple[int, int] | None:
    """The longest foreign country name that the run opens with."""
    names = g.words("countries_i18n")
    words = list(_WORD_AT.finditer(text, run.start("name"), run.end("name")))
    for count in range(len(words), 0, -1):
        end = words[count - 1].end()
        while end < run.end("name") and text[end] == "-":  # "États-Unis": the hyphen's second part
            end = _WORD_AT.match(text, end + 1).end()  # type: ignore[union-attr]
        key = g.fold(text[run.start("name") : end])
        if key not in names:
            continue
        named = count == 1 and "-" not in key and (key in g.first_names() or key in g.last_names())
        if named and not _COUNTRY_BEFORE.search(text, max(0, run.start("name") - 12), run.start("name")):
            return None
        return run.start("name"), end
    return None


def _capitalized_outside(text: str, span: RawEntity, start: int, end: int) -> bool:
    rest = text[span.start : start] + " " + text[end : span.end]
    return any(word.group()[:1].isupper() for word in _WORD_AT.finditer(rest))


def _foreign_countries(text: str, spans: list[RawEntity]) -> list[RawEntity]:
    out = list(spans)
    changed = False
    first_words = _country_first_words()
    for word in _CAPITALIZED_AT.finditer(text):
        if g.fold(word.group(1)) not in first_words:
            continue
        run = _COUNTRY_RUN.match(text, word.start())
        found = None if run is None else _country_at(text, run)
        if found is None:
            continue
        start, end = found
        over = [s for s in out if s.start < end and start < s.end]
        if any(s.label == ADDRESS_LABEL or _capitalized_outside(text, s, start, end) for s in over):
            continue  # part of an address, or of a name with other capitalized words
        if [(s.start, s.end, s.label) for s in over] in ([(start, end, PLACE_LABEL)], [(start, end, "GPE")]):
            continue
        out = [s for s in out if s not in over]
        out.append(RawEntity(start, end, PLACE_LABEL, 0.8))
        changed = True
    return sorted(out, key=lambda s: (s.start, s.end)) if changed else spans


def _given_name_only(words: list[re.Match[str]]) -> bool:
    """Session 18: a lone given name before the weekday makes the weekday a surname ("Sarah Friday
    joined the team"); a name no first-name list holds ("Mr. Obama Wednesday") leaves it a day."""
    return len(words) == 1 and g.fold(words[0].group()) in g.first_names()


# Session 18 (wave17/ner): a dotted country in an instruction's or a question's topic ("Explain
# U.S. tax brackets", "How do U.K. VAT rules apply?") names no one's place: the sentence opens with
# an imperative or a question word, and the model's place is left to the non-entity filter (as
# before session 17). News sentences are statements ("a U.S. air base", "U.S. President ...").
_QUESTION_OPENERS = frozenset(
    [
        *("what", "how", "why", "which", "when", "where", "who", "is", "are", "does", "do", "did", "can"),
        *("could", "should", "would", "will", "was", "were"),
    ]
)
# A sentence's end before the span: "!", "?", a line break, or a full stop after no capital (the
# dots of "U.S. and E.U." end no sentence).
_SENTENCE_BREAK = re.compile(r"[!?\n]|(?<![A-Z])\.[ \t]")
_LEAD_ADVERBS = frozenset(["now", "also", "then", "so", "and", "but", "next", "finally", "ok", "okay"])
_FIRST_WORD = re.compile(r"[\W\d_]*([^\W\d_]+)")


def _instruction_topic(text: str, start: int) -> bool:
    begin = 0
    for match in _SENTENCE_BREAK.finditer(text, max(0, start - 300), start):
        begin = match.end()
    for _ in range(3):
        first = _FIRST_WORD.match(text, begin, start)
        if first is None:
            return False
        key = g.fold(first.group(1))
        if key not in _LEAD_ADVERBS:
            return key in g.IMPERATIVES or key in _QUESTION_OPENERS
        begin = first.end()  # "Now explain U.S. capital gains tax", "And why ..."
    return False


# Session 15 (wave14/ner2): "They spent two weeks in Kruså, Møller Prairie.", "in Monte Gil,
# STEINKREUZ.": a place after a place preposition, then a comma and capitalized words that close
# the sentence, is a town-region (or town-district) pair: the second part is a place too, whatever
# the name rules or the model made of it (a person "Møller Prairie", an organization, nothing for a
# word no list holds). Not when the words are a listed first name and a listed surname ("in
# Berlin, Anna Schmidt."), nor a term or a function word ("in Rust, Too.").
_PAIR_TAIL = re.compile(
    rf",[ \t]+(?P<tail>[{_UP}][^\W\d_]*(?:-[^\W\d_]+)*(?:[ \t][{_UP}][^\W\d_]*(?:-[^\W\d_]+)*){{0,2}})"
    r"(?=[ \t]*(?:[.!?;]|\r?\n|$))"
)


def _pair_tail_place(words: list[str]) -> bool:
    keys = [g.fold(w) for w in words]
    if any(k in g.CLOSED_CLASS or k in g.function_words() or k in g.words("tech_terms") for k in keys):
        return False
    if len(words) == 1 and words[0].isupper() and len(words[0]) < 5:
        return False  # "in Lyon, FR.": a code, judged elsewhere
    person = len(keys) >= 2 and keys[0] in g.first_names() and keys[-1] in g.last_names()
    return not person or keys[-1] in g.STREET_TYPES


def _town_region_pairs(text: str, spans: list[RawEntity]) -> list[RawEntity]:
    if ", " not in text:
        return spans  # the cheap test: most texts hold no pair
    out = sorted(spans, key=lambda span: span.start)
    for index, span in enumerate(out):
        if veil_type(span.label) != "location" or _previous_word(text, span.start) not in _TOWN_PREPOSITIONS:
            continue
        match = _PAIR_TAIL.match(text, span.end)
        if match is None or not _pair_tail_place(match.group("tail").split()):
            continue
        start, end = match.span("tail")
        rivals = [i for i, other in enumerate(out) if other.start < end and start < other.end]
        if not rivals:
            out.insert(index + 1, RawEntity(start, end, PLACE_LABEL, PLACE_CONFIDENCE))
        elif len(rivals) == 1 and (out[rivals[0]].start, out[rivals[0]].end) == (start, end):
            rival = out[rivals[0]]
            if veil_type(rival.label) in ("person", "organization"):
                out[rivals[0]] = RawEntity(start, end, PLACE_LABEL, rival.confidence)
    return out


# Session 14: the employer on a signature's title line. "Jane Roe\nSenior Analyst, Wolters
# Combinatie" names a firm after "<job title>," whatever its words look like (surnames joined by
# a hyphen or "e", a first name that is a surname too): a person span that fills the rest of such
# a line, right under a line that is a person's name (the name may carry a short suffix: "MD"),
# is that firm. The title must end in a role noun only people hold ("Analyst", "Manager"), so a
# comma list of people ("Anna, Ben") or a name line alone ("Jane Roe\nAnna Schmidt") is untouched.
_ROLE_NOUNS = frozenset(
    [
        *("analyst", "manager", "engineer", "director", "officer", "consultant", "specialist"),
        *("developer", "architect", "designer", "administrator", "coordinator", "associate"),
        *("assistant", "advisor", "adviser", "accountant", "counsel", "attorney", "executive"),
        *("president", "vice-president", "representative", "scientist", "researcher", "strategist"),
        *("supervisor", "technician", "planner", "auditor", "editor", "producer", "recruiter"),
    ]
)
_EOL = re.compile(r"[ \t]*(?:\r?\n|$)")
_TITLE_LINE = re.compile(r"[ \t]*(?P<title>(?:[A-Z][\w\-]*[ \t]+){0,3}(?P<role>[A-Z][\w\-]*))[ \t]*,[ \t]*$")


# Session 16 (wave15/ner): a firm's name that opens with a person's name or a shorter firm's and
# goes on in capitalized words to an organization head noun or a fund's word ("Eaton Vance
# Floating-Rate 2022 Target Term Trust", "John Hancock Preferred Income Fund III": the model calls
# the first two words a person; "Invesco FTSE UK High Div Low Vol ETF": two firm pieces). The whole
# run on the line is one organization: the name alone was a wrong person or a piece that missed
# the rest. The run holds title-case words, capitals, numbers and hyphenated words only (no comma,
# no lower-case word but a particle), and its last word, or the word before a roman numeral, is an
# organization head noun (`gazetteer.ORG_HEADS`) or a fund's ("Trust", "Fund", "ETF", "ETN").
_FUND_HEADS = frozenset(["trust", "fund", "funds", "etf", "etn", "portfolio", "company", "companies"])
_CAPITAL_WORD = rf"[{_UP}0-9][\w&'\u2019.\-]*"
_FIRM_RUN = re.compile(
    rf"[ \t]+{_CAPITAL_WORD}(?:[ \t]+(?:{_CAPITAL_WORD}|of|de|du|der|di|van|von|&)){{0,9}}"
)
_ROMAN = frozenset(["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x"])


def _firm_run_end(text: str, end: int) -> int | None:
    """The end of a firm's name that goes on after `end` (the comment above), or None."""
    match = _FIRM_RUN.match(text, end)
    if match is None:
        return None
    words = match.group().split()
    best = None
    offset = end
    for index, word in enumerate(words):
        offset = text.index(word, offset) + len(word)
        key = g.fold(word.rstrip("."))
        if key in g.ORG_HEADS or key in _FUND_HEADS:
            best = offset
            if index + 1 < len(words) and g.fold(words[index + 1]) in _ROMAN:
                best = text.index(words[index + 1], offset) + len(words[index + 1])
    return best


def _firm_runs(text: str, spans: list[RawEntity]) -> list[RawEntity]:
    out = sorted(spans, key=lambda s: s.start)
    index = 0
    while index < len(out):
        span = out[index]
        kind = veil_type(span.label)
        if kind in ("person", "organization") and span.end < len(text) and text[span.end] in " \t":
            end = _firm_run_end(text, span.end)
            if end is not None:
                inside = [o for o in out[index + 1 :] if o.start < end]
                if all(veil_type(o.label) in ("person", "organization") and o.end <= end for o in inside):
                    merged = RawEntity(span.start, end, ORG_LABEL, max(span.confidence, ORG_CONFIDENCE))
                    out[index : index + 1 + len(inside)] = [merged]
        index += 1
    return out


def _signature_employers(text: str, spans: list[RawEntity]) -> list[RawEntity]:
    people = [s for s in spans if veil_type(s.label) == "person"]
    if not people or "," not in text:
        return spans
    out: list[RawEntity] = []
    for span in spans:
        if veil_type(span.label) == "person" and _employer_on_title_line(text, span, people):
            out.append(RawEntity(span.start, span.end, ORG_LABEL, ORG_CONFIDENCE))
        else:
            out.append(span)
    return out


def _employer_on_title_line(text: str, span: RawEntity, people: list[RawEntity]) -> bool:
    line_start = text.rfind("\n", 0, span.start) + 1
    if line_start == 0 or not _EOL.match(text, span.end):
        return False
    title = _TITLE_LINE.fullmatch(text, line_start, span.start)
    if title is None or g.fold(title.group("role")) not in _ROLE_NOUNS:
        return False
    above_end = line_start - 1
    above_start = text.rfind("\n", 0, above_end) + 1
    above = text[above_start:above_end].strip()
    if not above:
        return False
    first = above_start + len(text[above_start:above_end]) - len(text[above_start:above_end].lstrip())
    return any(p.start == first and p.end - p.start >= len(above) - 4 for p in people)


# "Springfield, IL", "Salem, OR 97301", "Kongens Lyngby, Denmark", "Hrastnik, Savinjska": a town
# then a comma and a region (a state or province abbreviation, a country, a first-level region),
# ending the clause. The region says the words before it are a town, whatever the lists know of
# them (a small town, or a name shaped like one: "Osborneburgh, ND"); each is its own location, as
# the held-out corpus and a reader count them (without a street part, "Lyon, France" is two places).
_REGION_CODES = frozenset(
    # US states, DC, territories and military "states"; Canadian provinces; Australian states
    [
        "AL",
        "AK",
        "AZ",
        "AR",
        "CA",
        "CO",
        "CT",
        "DE",
        "FL",
        "GA",
        "HI",
        "ID",
        "IL",
        "IN",
        "IA",
        "KS",
        "KY",
        "LA",
        "ME",
        "MD",
        "MA",
        "MI",
        "MN",
        "MS",
        "MO",
        "MT",
        "NE",
        "NV",
        "NH",
        "NJ",
        "NM",
        "NY",
        "NC",
        "ND",
        "OH",
        "OK",
        "OR",
        "PA",
        "RI",
        "SC",
        "SD",
        "TN",
        "TX",
        "UT",
        "VT",
        "VA",
        "WA",
        "WV",
        "WI",
        "WY",
        "DC",
        "AS",
        "GU",
        "MP",
        "PR",
        "VI",
        "FM",
        "MH",
        "PW",
        "AA",
        "AE",
        "AP",
        "AB",
        "BC",
        "MB",
        "NB",
        "NL",
        "NS",
        "NT",
        "NU",
        "ON",
        "PE",
        "QC",
        "SK",
        "YT",
        "NSW",
        "VIC",
        "QLD",
        "SA",
        "WA",
        "TAS",
        "ACT",
    ]
)
# Codes that are also a title or a degree after a person's name ("Jane Smith, MD", "Dr. Ruiz, DO"):
# after a town only when the town is a known or place-shaped one, never a model person.
_TITLE_CODES = frozenset(["MD", "DO", "PA", "RN"])
# A region's name may end in a lower-case word saying what it is: "Královéhradecký kraj", "Dalarnas län".
_REGION_WORD = r"(?:[ \t](?:kraj|län|megye|župa|oblast|voivodeship|vojvodství|maakond|fylke|amt|region))?"
_PAIR = re.compile(
    rf"(?<![\w@./\-])(?P<city>{_PLACE})[ \t]*,[ \t]*(?P<region>[A-Z]{{2,3}}|{_PLACE}{_REGION_WORD})"
    r"(?P<zip>[ \t]+\d{5}(?:-\d{4})?)?(?=[ \t]*(?:[,.;:!?)\r\n]|$)|[ \t]+[a-z(])"
)
_MODEL_LABELS = frozenset(["PERSON", "ORG", "GPE", "LOC", "FAC", "NORP"])


def _paired_city(city: str, coded: bool) -> int | None:
    """The offset in `city` where the town starts: the longest tail of its words that is a place
    (`_is_place`, a rare word included as after "in"), or, before a region code, a smaller town
    even when a name list holds it ("Dupont, NH")."""
    words = city.split(" ")
    offset = 0
    for index in range(len(words)):
        candidate = " ".join(words[index:])
        if g.fold(words[index]) not in g.CLOSED_CLASS and (
            _is_place(candidate, "in") or (coded and g.fold(candidate) in g.towns())
        ):
            return offset
        offset += len(words[index]) + 1
    return None


# A state's code alone after a place preposition, ending the clause ("she moved to NJ.", "based in
# TX, mostly"): not the codes that are English words or name something in technical text ("in
# PR", "in NS", "in GA", "in DC", "to ID", "in VI", "in PW", "in MS").
_LONE_CODE = re.compile(
    r"(?<![\w])(?:[Ii]n|[Nn]ear|[Ff]rom|[Tt]o|[Aa]round|[Oo]utside|[Aa]cross|[Tt]hrough|[Vv]isiting)[ \t]+"
    r"(?P<code>[A-Z]{2,3})"
    r"(?=[ \t]*(?P<end>[,.;:!?)\r\n]|$)|[ \t]+[a-z])"
)
# Codes that also name something in technical text before a noun ("the CA bundle", "in UT tests"):
# alone only when the clause ends after them.
_CLAUSE_CODES = frozenset(["CA", "SC", "UT", "VA", "MT", "NE", "DE", "AL", "LA", "NM", "TN", "AB", "QC"])
_WORD_CODES = frozenset(
    [
        "IN",
        "OR",
        "ME",
        "OK",
        "HI",
        "AS",
        "ON",
        "AA",
        "AE",
        "AP",
        "MD",
        "DO",
        "PA",
        "PR",
        "SA",
        "NS",
        "NT",
        "MS",
        "CO",
        "ID",
        "VI",
        "GA",
        "FM",
        "PW",
        "DC",
        "PE",
        "ACT",
        "SK",
        "BC",
        "MB",
        "NL",
    ]
)


def _add_lone_region_codes(text: str, kept: _SpanSet) -> None:
    for match in _LONE_CODE.finditer(text):
        code = match.group("code")
        if code in _WORD_CODES or code not in _REGION_CODES:
            continue
        if code in _CLAUSE_CODES and match.group("end") is None:
            continue
        candidate = RawEntity(match.start("code"), match.end("code"), PLACE_LABEL, PLACE_CONFIDENCE)
        if not kept.overlapping(candidate):
            kept.add(candidate)


def _add_paired_places(text: str, kept: _SpanSet) -> None:
    for match in _PAIR.finditer(text):
        region, city = match.group("region"), match.group("city")
        coded = region in _REGION_CODES
        region_start = match.start("region")
        if not coded and (region.isupper() or g.fold(region) not in g.words("regions")):
            continue
        placed = [  # the model or a place rule already found the town: "Gaillard, France"
            r.start
            for r in kept.overlapping(RawEntity(match.start("city"), match.end("city"), PLACE_LABEL, 0.0))
            if veil_type(r.label) == "location"
            and r.start >= match.start("city")
            and r.end in (match.end("city"), match.end("region"))  # "Staffordland, IA" as one model span
        ]
        offset = (
            placed[0] - match.start("city")
            if placed
            else _paired_city(city, coded and region not in _TITLE_CODES)
        )
        if (
            offset is None
            and coded
            and match.group("zip")
            and g.fold(city.split(" ")[0]) not in g.CLOSED_CLASS
        ):
            offset = 0  # "Jørgensen, AL 35863": a state code and a ZIP code say the words are a town
        if offset is None:
            continue
        start, end = match.start("city") + offset, match.end("region")
        if _NAME_COMES.search(text, max(0, start - 20), start):
            continue  # "Thanks Anna, Norway is lovely": a name the greeting addresses
        rivals = kept.overlapping(RawEntity(start, end, PLACE_LABEL, PLACE_CONFIDENCE))
        if (
            not coded
            and any(veil_type(r.label) == "person" and r.start < region_start - 1 for r in rivals)
            and g.fold(text[start : match.end("city")].split(" ", maxsplit=1)[0]) in g.first_names()
        ):
            continue  # "Anna, Texas": a person named before a region, not a town ("Kalmar, CT" is one)
        if any(
            r.start < start
            or r.end > end
            or not (
                r.label in _MODEL_LABELS
                or r.label == PLACE_LABEL
                or (r.label == PERSON_LABEL and r.start >= region_start)  # "Gaillard, France": no first name
                # "Częstochowa, NV": a state code that is a legal form too, after a known town
                or (r.label == ORG_LABEL and coded and r.end == end and _is_place(city[offset:]))
            )
            for r in rivals
        ):
            continue  # part of an address, a firm, a gazetteer name: those rules know more
        if any(veil_type(r.label) == "person" for r in rivals) and region in _TITLE_CODES:
            continue
        for rival in rivals:
            kept.remove(rival)
        kept.add(RawEntity(start, match.end("city"), PLACE_LABEL, PLACE_CONFIDENCE))
        kept.add(RawEntity(region_start, end, PLACE_LABEL, PLACE_CONFIDENCE))


# A place's qualifier in brackets belongs to its name: "Cyprus (Greek)", "Latsia (Lakkia)", "Georgia
# (country)". Not another known place: "Paris (France)" names two places.
_QUALIFIER = re.compile(rf"[ \t]?\((?P<words>[{_UP}][^\W\d_]*(?:[ \t][^\W\d_]+)?)\)")


# Czech, Slovak and Slovene towns named after a river, a forest or a nearby town keep the particle
# and the rest: "Lipník u Hrotovic", "Kostelec nad Černými Lesy", "Črni Vrh nad Idrijo", "Zagorje ob
# Savi". The model and the lists often stop at the first word. Session 12.
_TOWN_TAIL = re.compile(
    rf"[ \t]+(?:u|nad|pod|ob|pri)[ \t]+[{_UP}][^\W\d_]+(?:[ \t][{_UP}][^\W\d_]+)?(?![\w\-])"
)


def _with_town_tail(text: str, spans: list[RawEntity]) -> list[RawEntity]:
    out: list[RawEntity] = []
    skip_until = -1
    for span in spans:
        if span.start < skip_until:
            continue  # the tail's words, taken by the model as a person or a place of their own
        match = _TOWN_TAIL.match(text, span.end) if veil_type(span.label) == "location" else None
        if match is not None and not _DIGIT.search(text, span.start, span.end):
            span = RawEntity(span.start, match.end(), span.label, span.confidence)  # noqa: PLW2901
            skip_until = match.end()
        out.append(span)
    return out


def _with_qualifier(text: str, spans: list[RawEntity]) -> list[RawEntity]:
    out = []
    for index, span in enumerate(spans):
        match = _QUALIFIER.match(text, span.end) if veil_type(span.label) == "location" else None
        following = spans[index + 1].start if index + 1 < len(spans) else len(text)
        if match is not None and match.end() <= following and g.fold(match.group("words")) not in g.places():
            span = RawEntity(span.start, match.end(), span.label, span.confidence)  # noqa: PLW2901
        out.append(span)
    return out


# Between two parts of one postal address: a comma or a line break (with spaces), optionally a
# postcode in front of the next part ("75008 Paris", "H-6207 Annette Ville", "SW1A 1AA London",
# "H1R 8E7 KIELCE", "070 88 New Lucija"). Nothing else may stand between them.
_POSTCODE = (
    r"(?:(?:[A-Z]{1,2}-)?\d{2,6}(?:[ \-]\d{2,4})?"  # 75008, 070 88, H-6207, 1100-048
    r"|[A-Z]\d[A-Z][ ]?\d[A-Z]\d"  # Canada: H1R 8E7
    r"|[A-Z]{1,2}\d[A-Z\d]?[ ]?\d[A-Z]{2})"  # UK: SW1A 1AA
)
_ADDRESS_JOIN = re.compile(rf"[ \t]*(?:,|\r?\n)[ \t,]*(?:{_POSTCODE}[ \t]+)?")
_TRAILING_POSTCODE = re.compile(r"[ \t]+\d{4,6}(?![\w])")
_HOUSE_NUMBER = re.compile(r"(?<![\w])\d{1,6}[A-Za-z]?(?![\w])|^\d")


def _street_like(text: str, span: RawEntity) -> bool:
    """A location span that is a street part: the address recognizer's, or one holding a house
    number beside a word ("Idrottsgatan 468", "2 Mary Lane Suite 219")."""
    if span.label == ADDRESS_LABEL:
        return True
    value = text[span.start : span.end]
    return (
        veil_type(span.label) == "location"
        and bool(_HOUSE_NUMBER.search(value))
        and any(ch.isalpha() for ch in value)
    )


# "Monika and Turjaška 48", "Gunnar and Næssvika 26B": a first name joined to a street line by
# "and", one address as a whole, after "at"/"to"/"from"/"near", a colon or at a line's start; the
# street line is the address recognizer's, or capitalized words (name particles between them) and
# a house number ending the clause, every capitalized word rare (the model's vectors do not know
# it: "Turjaška", not "Chapter" or "Windows") and no first name. Session 11.
_FIRST_AND_TEXT = (
    rf"(?:(?<![\w])(?:at|to|from|near|and|is)[ \t]+|:[ \t]*|^[ \t]*)"
    rf"(?P<first>[{_UP}][^\W\d_]+(?:-[^\W\d_]+)?)[ \t]+and[ \t]+"
)
_FIRST_AND_BEFORE = re.compile(_FIRST_AND_TEXT + "$", re.MULTILINE)
_DIGIT = re.compile(r"\d")
# Where a street line stands alone: after "at"/"to"/"on"/"near", "address (is)", a colon or at a
# line's start, optionally after "<first name> and ".
_STREET_OPENER = re.compile(
    rf"(?:(?<![\w])(?:at|to|on|near|address|address is|is|and)[ \t]*:?[ \t]+|:[ \t]*|^[ \t]*)"
    rf"(?:(?P<first>[{_UP}][^\W\d_]+(?:-[^\W\d_]+)?)[ \t]+and[ \t]+)?(?=[{_UP}])",
    re.MULTILINE,
)
_TYPELESS_STREET = re.compile(
    # a short capitalized word opens a street only before another ("Na Fišerce 8", "U Dětského Hřiště 4")
    rf"(?P<street>(?:[{_UP}][^\W\d_]{{0,2}}[ \t]+(?=[{_UP}]))?[{_UP}][^\W\d_]{{2,}}"
    rf"(?:[ \t]+(?:[{_UP}][^\W\d_]+|{_PLACE_PARTICLES}|[a-zà-ÿ][^\W\d_]*)){{0,3}}"
    r",?[ \t]+\d{1,5}[A-Za-z]?)\.?(?=[ \t]*(?:$|[\r\n,;!?)]|\.(?:[ \t]|$)|[ \t]+(?:for|by|on|in|and|until|"
    r"before|after|with|from)\b))",
    re.MULTILINE,
)


def _first_name_before(text: str, start: int) -> int | None:
    """Where "<first name> and " opens the address at `start` (`_FIRST_AND_TEXT`), or None."""
    match = _FIRST_AND_BEFORE.search(text, max(0, start - 40), start)
    if match is None or match.end() != start:
        return None
    return match.start("first") if _first_before_street(match.group("first")) else None


def _first_before_street(word: str) -> bool:
    """A known first name, or a rare word in its place ("Alibek and De Veurs Comberg 429", "Amy-leigh
    and 646 Tait St": first names no list holds); never a label or a stop word. Session 12."""
    key = g.fold(word)
    if key in g.CLOSED_CLASS or key in g.function_words():
        return False
    head = g.fold(word.split("-", maxsplit=1)[0])  # "Amy-leigh"
    return key in g.first_names() or head in g.first_names() or not g.common_word(word)


def _typeless_streets(text: str, spans: list[RawEntity]) -> list[RawEntity]:
    """A street line without a type word that no recognizer took ("staying at Eidehaugen 48",
    "at Monika and Turjaška 48"), where a street line stands alone (`_STREET_OPENER`):
    capitalized words (name particles and lower-case words between them: "Dózsa györgy utca 13.")
    and a house number ending the clause, every capitalized word rare (the model's vectors do not
    know it: "Eidehaugen", not "Windows", "Chapter" or "Gate") and no first name. Session 11."""
    out = list(spans)
    if _DIGIT.search(text) is None:
        return out  # no house number, no street line
    for match in _STREET_OPENER.finditer(text):
        street = _TYPELESS_STREET.match(text, match.end())
        if street is None:
            continue
        first = match.group("first")
        if first is not None and not _first_before_street(first):
            continue
        capitalized = [w for w in g.WORD.findall(street.group("street")) if w[0].isupper() and len(w) > 2]
        if not capitalized or any(g.common_word(w) or g.fold(w) in g.first_names() for w in capitalized):
            continue  # "Maria and Windows 11", "to John and Mary 2.", "Anna and Chapter 3": no street name
        start = match.start("first") if first is not None else street.start("street")
        end = street.end("street")
        if any(_street_like(text, s) and s.start < end and start < s.end for s in out):
            continue  # found as a street already (extended in `_merge_address_runs`)
        out = [s for s in out if s.end <= start or s.start >= end]
        out.append(RawEntity(start, end, ADDRESS_LABEL, ADDRESS_CONFIDENCE))
    return sorted(out, key=lambda s: s.start)


def _merge_address_runs(text: str, spans: list[RawEntity]) -> list[RawEntity]:
    """One span per postal address (docs/ner.md): a street part followed by city, region or
    country spans joined only by commas or line breaks (and a postcode) becomes one `ADDRESS`
    span, with a postcode that closes the last part ("Finland 96882"). "Lyon, France" without a
    street part stays two places. A street part takes a first name joined to it by "and"
    (`_FIRST_AND_TEXT`); a street line without a type word stands alone (`_typeless_streets`)."""
    spans = _typeless_streets(text, spans)
    out: list[RawEntity] = []
    index = 0
    while index < len(spans):
        span = spans[index]
        index += 1
        if not _street_like(text, span):
            out.append(span)
            continue
        start, end = span.start, span.end
        merged = False
        first = _first_name_before(text, start)
        if (
            first is not None
            and out
            and first <= out[-1].start < out[-1].end <= start
            and veil_type(out[-1].label) == "person"
        ):
            out.pop()  # "and Alexandra and 52 Essex Rd": the first name the model took is the address's
        if first is not None and not (out and out[-1].end > first):
            start, merged = first, True
        while index < len(spans) and veil_type(spans[index].label) == "location":
            join = _ADDRESS_JOIN.fullmatch(text, end, spans[index].start)
            if join is None:
                break
            end = spans[index].end
            merged = True
            index += 1
        if not merged:
            out.append(span)
            continue
        tail = _TRAILING_POSTCODE.match(text, end)
        if tail is not None:
            end = tail.end()
        out.append(RawEntity(start, end, ADDRESS_LABEL, max(span.confidence, ADDRESS_CONFIDENCE)))
    return out


def _fragment_of(existing: RawEntity, place: RawEntity) -> bool:
    """A model span strictly inside a known place is a fragment of it ("Vila" of "Vila do Conde")."""
    inside = place.start <= existing.start and existing.end <= place.end
    return (
        inside
        and (existing.end - existing.start) < (place.end - place.start)
        and existing.label
        not in (
            ADDRESS_LABEL,
            ORG_LABEL,
            PERSON_LABEL,
        )
    )


# Session 13: two people joined by "and" / "&" / "or". A known first name next to a person
# already found ("Efe Şensoy and Rita", "Attendees: ..., Maria Laura Novais and Hellena") is a
# person too; a model PERSON span that is two single names joined so ("meeting Anna and Philip")
# is two people. The word must be capitalized, a listed first name (or, in a split pair, a listed
# surname), a plain word (names._plain_word: no label, term, street or organization word; a town
# may be one, no country or region), no month, and its vector (when it has one) must not lean away from names.
_PAIR_AFTER = re.compile(rf"[ \t]+(?:and|&|or)[ \t]+(?P<name>{_ANY_WORD})(?![\w@'\u2019\-])(?![ \t]+[{_UP}])")
_PAIR_BEFORE = re.compile(rf"(?<![\w@.'\u2019\-])(?P<name>{_ANY_WORD})[ \t]+(?:and|&|or)[ \t]+$")
_PAIR_SPAN = re.compile(rf"(?P<a>{_ANY_WORD})[ \t]+(?:and|&)[ \t]+(?P<b>{_ANY_WORD})")


def _pair_word(word: str, surnames: bool = False) -> bool:
    if not word[:1].isupper() or word.isupper() or len(word) < 2:
        return False
    key = g.fold(word)
    listed = names._first(word) or (surnames and key in g.last_names())
    if not listed or not names._plain_word(word, places=False) or key in g.regions():
        return False  # a town may be a first name too ("Rita", "Anna"), a country or region not
    if key in names.MONTHS or key in g.stop_words():
        return False
    score = g.name_score(key)
    return score is None or score >= names._FIRST_SCORE


# Session 19 (wave18/ner): a model firm over two names joined by "or" ("whether Vodafone or Orange
# has better coverage"): no firm's name holds " or ", so the two are judged apart.
_FIRM_WORDS = rf"[{_UP}][^\s]{{0,40}}(?:[ \t][{_UP}][^\s]{{0,40}}){{0,4}}"
_FIRM_OR = re.compile(rf"(?P<a>{_FIRM_WORDS})[ \t]+or[ \t]+(?P<b>{_FIRM_WORDS})")


def _split_pair(text: str, span: RawEntity) -> list[RawEntity] | None:
    """A model PERSON span "Anna and Philip": the two names, or None when it is no such pair; a
    model ORG span "Vodafone or Orange": the two firms."""
    if span.label == "ORG" and (firms := _FIRM_OR.fullmatch(text, span.start, span.end)) is not None:
        return [
            RawEntity(firms.start("a"), firms.end("a"), span.label, span.confidence),
            RawEntity(firms.start("b"), firms.end("b"), span.label, span.confidence),
        ]
    if veil_type(span.label) != "person":
        return None
    match = _PAIR_SPAN.fullmatch(text, span.start, span.end)
    if match is None or not (_pair_word(match.group("a"), True) and _pair_word(match.group("b"), True)):
        return None
    return [
        RawEntity(match.start("a"), match.end("a"), span.label, span.confidence),
        RawEntity(match.start("b"), match.end("b"), span.label, span.confidence),
    ]


def _add_paired_people(text: str, kept: _SpanSet) -> None:
    people = [s for s in kept.spans() if veil_type(s.label) == "person"]
    for span in people:
        if " " not in text[span.start : span.end] and (
            text[max(0, span.start - 2) : span.start].strip() == "," or text[span.end : span.end + 1] == ","
        ):
            continue  # a single word in a comma list: "Analyst, Nikolaus, Witting and Douglas" is a firm
        found = []
        after = _PAIR_AFTER.match(text, span.end)
        if after is not None:
            found.append((after.start("name"), after.end("name")))
        before = _PAIR_BEFORE.search(text, max(0, span.start - 40), span.start)
        if before is not None:
            found.append((before.start("name"), before.end("name")))
        for start, end in found:
            candidate = RawEntity(start, end, PERSON_LABEL, PERSON_CONFIDENCE)
            if _pair_word(text[start:end]) and not kept.overlapping(candidate):
                kept.add(candidate)


def _add_later_mentions(text: str, kept: _SpanSet) -> None:
    """A person found by a full name is the same person when the text names them again by the
    whole name, the first name or the surname alone ("My name is Yaroslav Alexandrov but everyone
    calls me Yaroslav"): each other occurrence of those words, capitalized as found, where nothing
    was found. A single word must be a name word (`_name_word`: no place, stop word, label or term,
    and a list entry or no vector), so "Paris Hilton ... Paris" and "Line Stream ... Stream" add
    nothing."""
    people = [s for s in kept.spans() if veil_type(s.label) == "person"]
    forms: set[str] = set()
    for span in people:
        words = text[span.start : span.end].split()
        if len(words) < 2 or len(words) > 4:
            continue
        forms.add(" ".join(words))
        for word in (words[0], words[-1]):
            if len(word) >= 3 and word[0].isupper() and not word.isupper() and _name_word(word):
                forms.add(word)
    for form in sorted(forms, key=len, reverse=True):
        # str.find, not a regex per form: a pattern compiled for each name of each text is what
        # made this step cost a millisecond per 1 KB text.
        start = text.find(form)
        while start >= 0:
            end = start + len(form)
            if _whole_word(text, start, end):
                candidate = RawEntity(start, end, PERSON_LABEL, PERSON_CONFIDENCE)
                if not kept.overlapping(candidate):
                    kept.add(candidate)
            start = text.find(form, end)


def _whole_word(text: str, start: int, end: int) -> bool:
    """Not part of a longer word, an e-mail address, a path or a hyphenated compound."""
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    glued = end + 1 < len(text) and after == "." and (text[end + 1].isalnum() or text[end + 1] == "_")
    return not (before.isalnum() or before in "_@.-" or after.isalnum() or after in "_@-" or glued)


def _name_word(word: str) -> bool:
    """A single word that names a person alone: a plain word (names._plain_word) a name list knows
    or the model's vectors do not ("Yaroslav", "Kowalska"; not "Stream" of a "Line Stream" the
    model took for a person)."""
    key = g.fold(word)
    if not names._plain_word(word):
        return False
    if not g.common_word(word):
        return True
    score = g.name_score(key)  # a listed word the vectors know must lean towards names ("stream")
    return (key in g.first_names() or key in g.last_names()) and (score is None or score >= _LAST_SCORE)


def _add_list_members(text: str, kept: _SpanSet) -> None:
    for member in _list_members(text, kept):
        rivals = kept.overlapping(member)
        if any((r.start, r.end) == (member.start, member.end) for r in rivals):
            continue  # found already
        if all(r.label != PERSON_LABEL for r in rivals):
            for rival in rivals:  # "James and Hogan" as one model span: two people
                kept.remove(rival)
            kept.add(member)


def _structural(text: str) -> _SpanSet:
    """Step 1: street addresses, then organization forms that do not overlap one."""
    found = _SpanSet()
    places = _context_places(text) + _labelled_places(text) + _county_and_postcode_places(text)
    for place in places + _facility_places(text):
        if not found.overlapping(place):
            found.add(place)
    for start, end in addresses.find(text):
        start = _cross_street_before(text, start)  # noqa: PLW2901 - "Kerman and 3240 Meadow Drive"
        candidate = RawEntity(start, end, ADDRESS_LABEL, ADDRESS_CONFIDENCE)
        for rival in found.overlapping(candidate):  # "lives in 12 rue de la Paix": the address
            found.remove(rival)
        found.add(candidate)
    for start, end in addresses.corners(text):  # an intersection holds the streets found above
        candidate = RawEntity(start, end, ADDRESS_LABEL, ADDRESS_CONFIDENCE)
        rivals = found.overlapping(candidate)
        for rival in rivals:
            found.remove(rival)
        first = min([start, *(r.start for r in rivals)])
        last = max([end, *(r.end for r in rivals)])
        found.add(RawEntity(first, last, ADDRESS_LABEL, ADDRESS_CONFIDENCE))
    for start, end in addresses.street_names(text):
        candidate = RawEntity(start, end, ADDRESS_LABEL, ADDRESS_CONFIDENCE)
        if not found.overlapping(candidate):
            found.add(candidate)
    for start, end in _longest_first(set(orgs.find(text))):
        candidate = RawEntity(start, end, ORG_LABEL, ORG_CONFIDENCE)
        if not found.overlapping(candidate):
            found.add(candidate)
    return found


# A cross street named before an address, "Kerman and 3240 Meadow Drive", "located at Warrane and
# Bécsi utca 53": one or two capitalized words and "and"/"&", at a line's start or after a place
# preposition, right before the street part.
_CROSS_STREET = re.compile(
    rf"(?:^|(?<=[\n:])|(?<![\w])(?:at|on|to|of|near|is)[ \t]+)[ \t]*"
    rf"(?P<street>[{_UP}][^\W\d_]+(?:[ \t][{_UP}][^\W\d_]+)?)[ \t]+(?:and|&)[ \t]+$"
)


def _cross_street_before(text: str, start: int) -> int:
    match = _CROSS_STREET.search(text, max(0, start - 60), start)
    if match is None:
        return start
    for word in match.group("street").split():
        key = g.fold(word)
        if key in g.CLOSED_CLASS or key in g.function_words() or key in g.words("tech_terms"):
            return start
    return match.start("street")


def _filtered(text: str, span: RawEntity) -> RawEntity | None:  # noqa: PLR0912 - one branch per rule
    """Step 2 for one model span: the refined span, relabelled when a "person" is a known place."""
    kind = veil_type(span.label)
    if kind is None:
        return None
    line = clean_span(text, span.start, span.end)  # a name never crosses a line break
    label = span.label
    if line is not None and (
        (kind in ("person", "organization") and _region_not_name(text[line[0] : line[1]]))
        or (label == "ORG" and capital_town_from(text, *line))
        or (label == "PERSON" and known_town_after_preposition(text, *line))
    ):
        # "Ireland's new mayor", "Uusimaa was the first stop": a region the model calls a person or
        # a firm, judged as the place it is ("Uusimaa" is no known person name); "My family comes
        # from NØTTERØY": the model's firm is the town one comes from (session 15, wave14/ner3)
        kind, label = "location", PLACE_LABEL
    if line is not None and label in ("GPE", "LOC", "PERSON") and _listed_firm(text[line[0] : line[1]]):
        kind, label = "organization", "ORG"  # "Head of Research, Unilever" as a place (session 19)
    if line is not None and label in ("GPE", "LOC") and _person_after_with(text, *line):
        kind, label = "person", "PERSON"  # "lunch with Courtney": a known name, not a town
    titled = False
    if line is not None and label in ("GPE", "LOC"):
        if _demonym(text[line[0] : line[1]]):
            return None  # "North Korean human rights advocates": an adjective, no place (session 17)
        named = _after_office_title(text, *line)
        if named is not None:
            line, kind, label, titled = named, "person", "PERSON", True  # "President Obama's arrival"
        elif (cut := _place_before_clause(text, *line)) is not None:
            line = cut  # "in Deutschland beschert Gastwirten mehr Umsatz": the place, not the clause
        elif _DOTTED_COUNTRY.fullmatch(text, *line) and not _instruction_topic(text, line[0]):
            kind, label = "location", PLACE_LABEL  # "a U.S. air base": dotted initials of a country
    if line is not None and (label == PLACE_LABEL or titled):
        # the whole region ("Rio Grande do Sul": "do" is no verb); the name after an office title
        refined: tuple[int, int] | None = line
    elif (
        line is not None
        and label in ("GPE", "LOC")
        and (_rare_town_after_preposition(text, *line) or typed_place_after_preposition(text, *line))
    ):
        # "comes from Kangerlussuaq", "moving to SLUSSFORS": no list holds the town; "sent from
        # Liviana Land": a name and a place noun (session 15, wave14/ner3)
        refined = line
    else:
        refined = None if line is None else nonentity.refine(text, line[0], line[1], kind)
    if refined is None:
        return None
    if label != PLACE_LABEL and kind in ("organization", "person"):
        refined = _without_job_title(text, refined, kind)
        if refined is None:
            return None
    head = _HEAD_AFTER.match(text, refined[1]) if label == "ORG" else None
    if head is not None and g.fold(head.group(1)) in nonentity.PUBLIC_BODY_HEADS:
        refined = (refined[0], head.end())  # "World Health" + " Organization" (session 18)
    value = text[refined[0] : refined[1]]
    if label == "ORG" and _department_or_offering(value):
        return None  # "Data Engineering", "Premium Plan", "Head of Sales": no firm (wave15/ner2)
    if label == PLACE_LABEL:
        pass
    elif kind == "person" and _known_place_not_name(value):
        label = PLACE_LABEL  # "Den Haag", "Amoreira da Gândara": places the model calls people
    elif kind == "person":
        refined = _extend_person(text, *refined)
    elif (
        kind == "organization"
        and _place_not_organization(value)
        and not (nonentity.news_role(text, *refined) and g.fold(value) not in g.regions())
        and not (span.label == "ORG" and nonentity.listed_firm_word(value))  # "Toyota and Panasonic are"
    ):
        # a firm acting in a news sentence stays a firm though a town has its name ("Hamas said")
        label = PLACE_LABEL  # "American Samoa", "Bahía Blanca", "Avenida Serna" as ORG
    elif kind == "organization" and _person_not_organization(text, *refined):
        label = "PERSON"  # "Claim filed by Kenyon Walker", "Best regards,\nChadd Pouros" as ORG
    return RawEntity(refined[0], refined[1], label, span.confidence)


# Session 16 (wave15/ner): job titles the model calls a firm or a person. An occupation written
# with a capital ("Lilly Campbell, the Teller supervisor, said", "the Network and computer systems
# administrator", "I used to work for Sigfig as Foreign language translator"): its first word is a
# common word the model reads as an ORG ("Securities", "Insurance": organization head nouns) or a
# PERSON ("Teller"), the rest lower case up to a head noun that names a trade. A closed class of
# such head nouns, written here; the words before them are everyday words ("Goldman Sachs analyst"
# keeps the firm: "Goldman" is no common word), after a determiner or "as" (a title, not a name).
_JOB_NOUNS = frozenset(
    [
        *("accountant", "actor", "actress", "actuary", "adjuster", "administrator", "adviser", "advisor"),
        *("agent", "aide", "analyst", "animator", "appraiser", "apprentice", "architect", "archivist"),
        *("artist", "assembler", "assessor", "assistant", "associate", "attendant", "attorney", "auditor"),
        *("author", "baker", "banker", "barber", "bartender", "biologist", "bookkeeper", "brewer", "broker"),
        *("buyer", "captain", "carpenter", "cashier", "chef", "chemist", "clerk", "coach", "collector"),
        *("commissioner", "conservationist", "consultant", "controller", "cook", "coordinator"),
        *("correspondent", "counsel", "counselor", "counsellor", "courier", "curator", "cutter", "dancer"),
        *("dealer", "dentist", "deputy", "designer", "detective", "developer", "dietitian", "director"),
        *("dispatcher", "doctor", "drafter", "driver", "economist", "editor", "educator", "electrician"),
        *("engineer", "estimator", "examiner", "executive", "expert", "farmer", "fabricator", "firefighter"),
        *("fitter", "foreman", "geologist", "guard", "hairdresser", "hairstylist", "handler", "helper"),
        *("hygienist", "illustrator", "inspector", "installer", "instructor", "interpreter", "investigator"),
        *("janitor", "journalist", "judge", "laborer", "labourer", "lawyer", "lecturer", "librarian"),
        *("lineman", "locksmith", "machinist", "maker", "manager", "mechanic", "mediator", "midwife"),
        *("miner", "musician", "nurse", "officer", "operator", "optician", "painter", "paralegal"),
        *("paramedic", "pathologist", "personnel", "pharmacist", "photographer", "physician", "physicist"),
        *("pilot", "planner", "plumber", "police", "porter", "practitioner", "president", "processor"),
        *("producer", "professor", "programmer", "psychologist", "publicist", "purchaser", "reader"),
        *("receptionist", "recruiter", "repairer", "reporter", "representative", "researcher"),
        *("roofer", "salesman", "salesperson", "scientist", "secretary", "seller", "sheriff"),
        *("singer", "sociologist", "solicitor", "specialist", "statistician", "steward", "stylist"),
        *("superintendent", "supervisor", "surgeon", "surveyor", "tailor", "teacher", "technician"),
        *("technologist", "teller", "therapist", "trader", "trainer", "translator", "treasurer"),
        *("tutor", "typist", "underwriter", "veterinarian", "waiter", "waitress", "welder", "worker"),
        *("writer", "intern"),
    ]
)
_JOB_BEFORE = frozenset(["the", "a", "an", "as", "our", "their", "his", "her", "my", "your", "former"])
_JOB_TAIL_WORD = re.compile(r"[ \t]+([a-z][a-z\-]*)")
_INNER_AS = re.compile(r"[ \t]+as[ \t]+(?=[{_UP}])".replace("{_UP}", _UP))


# Session 16 (wave15/ner): a legal form written in lower case after a firm's name ("Succeed co.
# ltd.", "Findel plc", "Acme gmbh"): the non-entity filter trims lower-case edge words, so "co.
# ltd." was cut and "Succeed" alone matched the firm by less than half. Put back, dots included.
_LOWER_LEGAL = re.compile(
    r"(?:[ \t]+(?:co\.|co\b|ltd\.|ltd\b|inc\.|inc\b|plc\b|llc\b|corp\.|corp\b|gmbh\b|limited\b)){1,3}"
)


# Session 16 (wave15/ner2): departments, plans, products and documents the model calls firms
# ("Data Engineering", "Customer Success", "Premium Plan", "Gold Membership", "Starter Kit", "Annual
# Report", "Black Friday", "Product Owner"): a span of everyday words (the vectors know each) whose
# last word names a company's function, an offering, a document or a role, a closed class written
# here. A firm's name has a word no vector knows ("Bajaj Finance"), a legal form or an organization
# head noun outside this class ("Bank", "Group", "Airlines", "University": kept), or ends in
# none of these words ("General Electric", "United Airlines", "American Express").
_DEPARTMENT_WORDS = frozenset(
    [
        *("accounting", "assurance", "compliance", "development", "engineering", "finance", "marketing"),
        *("payroll", "procurement", "purchasing", "recruiting", "recruitment", "sales", "success", "support"),
        *("desk", "payable", "receivable", "plan", "plans", "membership", "subscription", "tier", "kit"),
        *("bundle", "edition", "trial", "upgrade", "report", "notes", "policy", "minutes", "meeting"),
        *("handbook", "sale", "owner", "lead", "monday", "tuesday", "wednesday", "thursday", "friday"),
        *("saturday", "sunday", "resources"),
    ]
)
_DEPARTMENT_JOINERS = frozenset(["and", "of", "&"])


# Session 18 (wave17/ner): the model's firm stops before its head noun ("a spokesperson for World
# Health Organization" gives "World Health"): the capitalized head right after it joins the span.
_HEAD_AFTER = re.compile(rf"[ \t]+([{_UP}][^\W\d_]+)\b")


def _department_or_offering(value: str) -> bool:
    """Whether a model firm `value` is a department, plan, product, document or role (see above)."""
    words = [w for w in value.split() if w.lower() not in _DEPARTMENT_JOINERS]
    if not words or not 1 <= len(words) <= 4 or g.fold(words[-1]) not in _DEPARTMENT_WORDS:
        return False
    if g.fold(words[-1]) == "resources" and (len(words) != 2 or g.fold(words[0]) != "human"):
        return False
    for word in words:
        key = g.fold(word)
        if not word[:1].isupper() or not g.WORD.fullmatch(word) or not g.common_word(word):
            return False
        if key in g.ORG_HEADS and key not in _DEPARTMENT_WORDS:
            return False  # "Bank", "Group", "Airlines": a firm's head noun
    return True


# The capitalized words at a place's start, joined by "and", "of" or "&" ("Research and
# Development", "Gold Membership"): a department or an offering there is no town after a preposition.
_CAPITALIZED_RUN = re.compile(rf"[{_UP}][^\W\d_]*(?:[ \t]+(?:(?:and|of|&)[ \t]+)?[{_UP}][^\W\d_]*){{0,3}}")


def _department_after(text: str, start: int) -> bool:
    run = _CAPITALIZED_RUN.match(text, start)
    return run is not None and _department_or_offering(run.group())


def _job_title_from(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]` (capitalized everyday words) opens an occupation: lower-case words
    follow it, at most five, one of them a trade's head noun, or its own last word is one; and a
    determiner or "as" stands before it."""
    words = text[start:end].split()
    if not words or not all(w[:1].isupper() and w[1:].islower() and g.common_word(w) for w in words):
        return False
    if (_previous_word(text, start) or "").lower() not in _JOB_BEFORE:
        return False
    if g.fold(words[-1]) in _JOB_NOUNS:
        return True
    index = end
    for _ in range(5):
        match = _JOB_TAIL_WORD.match(text, index)
        if match is None:
            return False
        if match.group(1) in _JOB_NOUNS:
            return True
        index = match.end()
    return False


def _without_job_title(text: str, refined: tuple[int, int], kind: str) -> tuple[int, int] | None:
    """A model firm or person span without a job title (`_before_job_title`); a firm's with the
    legal form in lower case that follows it ("Succeed co. ltd.": the trim took it)."""
    span = _before_job_title(text, *refined)
    if span is not None and kind == "organization":
        legal = _LOWER_LEGAL.match(text, span[1])
        if legal is not None:
            span = (span[0], legal.end())
    return span


def _before_job_title(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The span without an occupation it holds or is (`_job_title_from`): None when all of it is one,
    the part before "as" when the occupation follows "as" inside it ("Sigfig as Foreign")."""
    if _job_title_from(text, start, end):
        return None
    inner = _INNER_AS.search(text, start, end)
    if inner is not None and _job_title_from(text, inner.end(), end):
        return start, inner.start()
    return start, end


# Session 15 (wave14/ner2): the model's one-word GPE/LOC spans that the non-entity filter drops
# because no list holds the word. After a place preposition, a word that no name list, function
# list or the vectors know is the town the model says it is ("My family comes from Kangerlussuaq",
# "sent from Tujetsch on Monday", "moving to SLUSSFORS"; `_unknown_after_in` for the word's shape:
# capitals of five letters or more read in title case, never an acronym). "at" is left out (firms
# follow it: "at Zendesk"); a listed first name or surname is a person's ("from Kwabena").
_TOWN_PREPOSITIONS = frozenset(
    ["in", "from", "to", "near", "via", "through", "around", "outside", "nach", "aus", "à", "em", "en"]
)


# Words before "to"/"from" that address a person ("spoke to", "forward the invoice to", "according
# to", "a message from"): a rare word after them is a name no list holds, not a town.
_TO_A_PERSON = frozenset(
    [
        *("spoke", "speak", "speaks", "speaking", "talk", "talked", "talking", "talks", "said", "say"),
        *("wrote", "write", "writes", "reply", "replied", "respond", "responded", "according"),
        *("invoice", "invoices", "email", "emails", "message", "messages", "letter", "note", "mail"),
        *("report", "reported", "reports", "forward", "forwarded", "introduce", "introduced", "thanks"),
        *("belongs", "belonged", "assigned", "addressed", "listen", "listened", "explain", "explained"),
        *("call", "called", "text", "texted", "gift", "gave", "give", "hand", "handed", "it", "them"),
    ]
)


def _previous_word(text: str, start: int) -> str | None:
    window = max(0, start - 24)
    before = _PREVIOUS.search(text[window:start])
    if before is None or (before.start(1) == 0 and window > 0 and text[window - 1].isalnum()):
        return None  # no word before, or the window cut one
    return before.group(1)  # as written: "In" of "San Martino In Pedriolo" is no preposition


def _rare_town_after_preposition(text: str, start: int, end: int) -> bool:
    value = text[start:end]
    if " " in value or not value[:1].isupper() or not g.WORD.fullmatch(value):
        return False
    if (end < len(text) and text[end] in "@/\\:_-") or (start > 0 and text[start - 1] in "@/\\#._-"):
        return False  # part of an address, a path or a handle
    preposition = _previous_word(text, start)
    if preposition not in _TOWN_PREPOSITIONS or not _unknown_after_in(value):
        return False
    if preposition in ("to", "from"):
        head = text[max(0, start - 40) : start].rstrip()
        verb = _PREVIOUS.search(head[: len(head) - len(preposition)])
        if verb is not None and verb.group(1).lower() in _TO_A_PERSON:
            return False  # "forward the invoice to Kinuho", "spoke to Czcibor": a person's name
    # a word glued into an identifier elsewhere in the text is a product's ("ExporterZipkin ...
    # send traces to Zipkin"): a town's name is not
    return not any(
        (m.start() > 0 and text[m.start() - 1].isalnum()) or (m.end() < len(text) and text[m.end()].isalnum())
        for m in re.finditer(re.escape(value), text)
    )


# Session 15 (wave14/ner2): "I had lunch with Courtney yesterday", "a call with Mayer": the model
# calls a lone name after "with" a place (some are towns too: "Mayer", "Guerrero", "Dalton"). A
# word that is a known first name or surname, and no country or region ("trade with Holland",
# "a deal with China" stay places), is the person one meets ("lunch with Torres": a town too).
# Session 15 (wave14/ner3): a model GPE/LOC span of two or three title-case words after a place
# preposition whose last word is a common place noun ("in Tot Trace", "sent from Liviana Land", "located
# in Layla Lake", "moving to Felix Shoals"): address generators and towns name places after people
# with a place noun. The non-entity filter dropped the span for its common last word, or a
# first-name + surname rule took it as a person ("Lake" is a surname too). Kept as the model's place
# when the words before the last are names or words the vectors do not know (not "in Data Lake",
# "to Google Cloud"), no capitalized word follows (a firm's name goes on: "from Orchard Lane
# Foods"), and "to"/"from" do not follow a word that addresses a person ("wrote to Anna Wells").
_TYPED_PLACE = re.compile(rf"[{_UP}][^\W\d_]+(?:[ \t][{_UP}][^\W\d_]+){{1,2}}")


def typed_place_after_preposition(text: str, start: int, end: int) -> bool:
    value = text[start:end]
    preposition = _previous_word(text, start)
    if (
        not _TYPED_PLACE.fullmatch(value)
        or _CAPITAL_NEXT.match(text, end)
        or preposition not in _TOWN_PREPOSITIONS
    ):
        return False
    words = value.split()
    last = g.fold(words[-1])
    if last not in addresses.PLACE_TYPE_WORDS or not g.common_word(words[-1]):
        return False
    for word in words[:-1]:
        key = g.fold(word)
        if key in g.CLOSED_CLASS or key in g.function_words() or key in g.words("tech_terms"):
            return False
        if g.common_word(word) and key not in g.first_names() and key not in g.last_names():
            return False
    if preposition in ("to", "from"):
        head = text[max(0, start - 40) : start].rstrip()
        verb = _PREVIOUS.search(head[: len(head) - len(preposition)])
        if verb is not None and verb.group(1).lower() in _TO_A_PERSON:
            return False
    return True


_CAPITAL_NEXT = re.compile(rf"[ \t]+[{_UP}]")


# Session 16 (wave15/ner): a known town the model calls a person, after a place preposition ("We
# drove through Store Merløse", "Shipping to Bad Brückenau", "based in Lázně Bohdaneč", "in
# Montalbano Elicona"): the whole span is a listed place, town or region, its first word no listed
# first name ("in Anna Berg" stays a person), no capitalized word or possessive follows ("in Lien
# Meyer", "in Becker's office"), and "to"/"from" do not follow a word that addresses a person. A
# lone word that is a surname too counts only after a preposition no person follows ("in", "near",
# "through"; "from Salerno" may be a person).
_PERSON_PREPOSITIONS = frozenset(["to", "from", "via"])
_POSSESSIVE_NEXT = re.compile(r"['\u2019]s?\b")


def known_town_after_preposition(text: str, start: int, end: int) -> bool:  # noqa: PLR0911 - one per test
    value = text[start:end]
    preposition = _previous_word(text, start)
    if (
        preposition not in _TOWN_PREPOSITIONS
        or _CAPITAL_NEXT.match(text, end)
        or _POSSESSIVE_NEXT.match(text, end)
    ):
        return False
    key = g.fold(value)
    if not (key in g.places() or key in g.towns() or key in g.regions()):
        return False
    words = g.WORD.findall(value)
    if not words or not words[0][:1].isupper() or g.fold(words[0]) in g.first_names():
        return False
    if key in g.CLOSED_CLASS or key in g.function_words() or key in names.MONTHS:
        return False
    if len(words) == 1 and preposition in _PERSON_PREPOSITIONS and key in g.last_names():
        return False
    if preposition in _PERSON_PREPOSITIONS:
        head = text[max(0, start - 40) : start].rstrip()
        verb = _PREVIOUS.search(head[: len(head) - len(preposition)])
        if verb is not None and verb.group(1).lower() in _TO_A_PERSON:
            return False
    return True


# Session 15 (wave14/ner3): a word in capitals no list or vector knows after "from", when the word
# before "from" says where someone or something comes from ("My family comes from NØTTERØY", "sent
# from TANYGRISIAU on Monday", "I am originally from STEINPARZ"): the model reads a capitals word as
# a firm, the verb makes it the town (an email or an update "from ZENDESK" stays a firm's: no origin
# verb before "from"). The word must pass the one-word rare-town test too.
_ORIGIN_VERBS = frozenset(
    [
        *(
            "come",
            "comes",
            "came",
            "coming",
            "hail",
            "hails",
            "hailed",
            "originally",
            "originate",
            "originates",
        ),
        *("sent", "shipped", "mailed", "posted", "flew", "fly", "flying", "moved", "relocated", "emigrated"),
        *("travelled", "traveled", "arrived", "arrives", "am", "family", "born", "drove", "driving"),
    ]
)


def capital_town_from(text: str, start: int, end: int) -> bool:
    value = text[start:end]
    if not value.isupper() or _previous_word(text, start) != "from":
        return False
    head = text[max(0, start - 40) : start].rstrip()
    verb = _PREVIOUS.search(head[: len(head) - len("from")])
    if verb is None or verb.group(1).lower() not in _ORIGIN_VERBS:
        return False
    return _rare_town_after_preposition(text, start, end)


def _person_after_with(text: str, start: int, end: int) -> bool:
    value = text[start:end]
    if " " in value or not _TITLE_WORD.fullmatch(value) or _previous_word(text, start) != "with":
        return False
    key = g.fold(value)
    if key in g.regions() or key in g.CLOSED_CLASS or key in g.function_words() or key in g.stop_words():
        return False
    return key in g.first_names() or key in g.last_names()


def _listed_firm(value: str) -> bool:
    """Session 19 (wave18/ner): a model place or person span whose words are a listed company's
    name (`data/firm_words.txt` for one word, `data/firms.txt` for more) and no known place or
    region ("Unilever", "Ericsson", "Goldman Sachs" as a place or a person; "Toyota", a town in
    Japan, keeps the model's type). The span was found already: this changes its type only."""
    key = g.fold(value)
    if key in g.places() or key in g.towns() or key in g.regions():
        return False
    if " " not in value:
        return nonentity.listed_firm_word(value)
    return key in g.words("firms")


def _place_not_organization(value: str) -> bool:
    """A model ORG span that is a known place as a whole, a street by its first word or a place by
    its form (`place_shaped`: "Port Ramona", "Sophiafurt"), and does not end in an organization
    head noun ("Bank of Portugal" stays an organization)."""
    words = g.WORD.findall(value)
    if not words or g.fold(words[-1]) in g.ORG_HEADS:
        return False
    named = len(words) == 1 and (g.fold(value) in g.first_names() or g.fold(value) in g.last_names())
    return (
        (g.fold(value) in g.places() and not named)
        or g.fold(words[0].rstrip(".")) in addresses.STREET_OPENERS
        or place_shaped(value)  # "the New Triin branch", "R3J 7V6 Port Sophiafurt"
    )


# Words before an organization's name ("works at", "joined", "a spokesperson for"): a model ORG
# after one stays an organization even when its words look like a person's ("at Morgan Stanley").
_ORG_CONTEXT = frozenset(
    ["at", "for", "with", "joined", "join", "from", "of", "via", "bei", "für", "chez", "pour", "para", "per"]
)
_TITLE_WORD = re.compile(rf"[{_UP}][^\W\d_A-Z]*[^\W\d_]")
_PREVIOUS = re.compile(r"([^\W\d_]+)[ \t]+$")
_FIRST_SCORE = 0.04  # a first word with no list entry must lean clearly towards names
_LAST_SCORE = 0.025


def _person_not_organization(text: str, start: int, end: int) -> bool:  # noqa: PLR0911 - one per test
    """A model ORG span with a person's shape and no organization evidence: two title-case words
    (three when the first is a known first name) joined by single spaces, no head noun, legal form,
    particle or place, the first a known first name or a word whose vector leans towards names,
    the last a known surname, a rare word (no vector) or name-like, and no "at"/"for"/"joined"
    before it (gazetteer.name_score; off without the model's vectors). Relabelled as a person, the
    value is still replaced: the rule changes the type, never whether it is protected."""
    if not g.has_name_vectors():
        return False
    value = text[start:end]
    words = value.split(" ")
    if not 2 <= len(words) <= 3 or not all(_TITLE_WORD.fullmatch(w) for w in words):
        return False
    if g.fold(value) in g.words("firms"):
        return False  # "Goldman Sachs", "Morgan Stanley": a listed company named for people (session 19)
    keys = [g.fold(w) for w in words]
    if g.fold(value) in g.places() or keys[0] in g.PARTICLES:  # "El Tarra": a place, not a name
        return False
    if any(k in g.ORG_HEADS or k in g.CLOSED_CLASS or k in g.function_words() for k in keys):
        return False
    before = _PREVIOUS.search(text, max(0, start - 20), start)
    if before is not None and before.group(1).lower() in _ORG_CONTEXT:
        return False
    return _first_name_like(keys[0], len(keys)) and _surname_like(keys[-1])


def _first_name_like(key: str, count: int) -> bool:
    score = g.name_score(key)
    if key in g.first_names() and key not in g.stop_words():
        return score is None or score >= _LAST_SCORE
    # An unlisted first word: two words only, not a place, its vector clearly a name's.
    return count == 2 and key not in g.places() and score is not None and score >= _FIRST_SCORE


def _surname_like(key: str) -> bool:
    if key in g.last_names():
        return True
    score = g.name_score(key)
    return key not in g.places() and (score is None or score >= _LAST_SCORE)


_NEXT_WORD = re.compile(rf"[ \t]+(?P<word>[{_UP}][^\W\d_]*(?:['\u2019\-][^\W\d_]+)*)(?P<dot>\.?)(?![\w@])")
_PREVIOUS_WORD = re.compile(rf"(?<![\w@.])(?P<word>[{_UP}][^\W\d_]+)[ \t]+$")


def _extend_person(text: str, start: int, end: int) -> tuple[int, int]:
    """A model PERSON span cut short: "Ana B" + ". Dias", "Cordelia" + " Pugliesi", "Szabina" +
    " J Gelencsér". Right: a middle initial, a known surname or a rare capitalized word (up to two
    words); left: a known first name."""
    if end < len(text) and text[end] == "." and end - start >= 2 and text[end - 2] in " \t":
        end += 1  # "Ana B" + "." : the initial's dot
    for _ in range(2):
        match = _NEXT_WORD.match(text, end)
        if match is None:
            break
        word = match.group("word")
        initial = len(word) == 1
        key = g.fold(word)
        usable = not (
            key in g.CLOSED_CLASS
            or (key in g.function_words() and key not in g.last_names())
            or key in g.words("tech_terms")
            or key in g.ORG_HEADS
            or key in g.STREET_TYPES
            or (word.isupper() and not initial)
        )
        if not usable or not (initial or key in g.last_names() or not g.common_word(word)):
            break
        end = match.end() if initial else match.end("word")
    previous = _PREVIOUS_WORD.search(text, max(0, start - 40), start)
    if previous is not None and g.fold(previous.group("word")) in g.first_names():
        key = g.fold(previous.group("word"))
        if key not in g.CLOSED_CLASS and key not in g.function_words() and key not in g.places():
            start = previous.start("word")
    return start, end


_NON_LATIN = re.compile(r"[\u0370-\u03ff\u0400-\u04ff]")


def _is_place(value: str, preposition: str | None = None) -> bool:
    """A known place; a smaller town only when no list knows the word as something else; a name
    shaped like a place (`place_shaped`). A name in Greek or Cyrillic script after a place
    preposition ("in ΠΑΦΟΣ") is a place too: the lists hold Latin-script names only. After "in"
    or "near" (`preposition`), a rare word no list knows is a place too (`_unknown_after_in`)."""
    if all(_NON_LATIN.match(word) for word in value.split()):
        return True
    key = g.fold(value)
    if key in g.CLOSED_CLASS or key in g.words("tech_terms") or key in g.words("currencies"):
        return False  # "in Rust", "in UTC"
    if value.isupper() and len(value) <= 5:
        return False  # acronyms: "CSS", "PBM"
    if key in names.MONTHS:
        return False  # "reopens in March", "due in May": towns too, but the month is meant
    if key in g.places() or key in g.regions():
        return True
    ambiguous = key in g.first_names() or key in g.last_names() or key in g.words("tech_terms")
    return (
        (key in g.towns() and not ambiguous)
        or place_shaped(value)
        or (preposition is not None and g.fold(preposition) in _IN and _unknown_after_in(value))
    )


# English place-name morphology (the names of towns in England and the settler countries, and
# the fake towns of address generators built the same way: "Bryantburgh", "Lorrainehaven",
# "North Deborahstad", "Port Michael", "Lake Jēkabs"): a compass or water prefix before a name,
# or a name glued to a settlement suffix.
_PLACE_PREFIXES = frozenset(
    [
        *("north", "south", "east", "west", "new", "port", "lake", "mount", "fort"),
        # the same habit in the catalog's other languages: "San Felix", "Nueva Grecia", "Bad Lostorf"
        *("san", "santa", "santo", "são", "saint", "sainte", "nueva", "nuevo", "vieja", "viejo", "vila"),
        *("villa", "bad", "puerto", "porto", "monte", "castel"),
    ]
)
# "Evie Ville", "Quebec City": a name, then a word that says "town".
_TOWN_WORDS = frozenset(["ville", "city", "town", "village"])
# "Dumas-sur-Pascal", "Châlons-en-Champagne", "Stratford-upon-Avon", "Frankfurt-am-Main".
_HYPHEN_PLACE = re.compile(
    rf"[{_UP}][^\W\d_]+-(?:sur|sous|en|lès|lez|upon|under|on|am|an|im|bei|le|la|les|de|del)-[{_UP}][^\W\d_]+"
)
_PLACE_SUFFIX = re.compile(
    r"(?:ville|town|ton|burg|burgh|borough|bury|field|land|port|haven|mouth|stad|furt|shire|chester|berg|"
    r"view|side|fort|ford|wick|ham|dale|mere|stead|stow|worth|by|thorpe)$"
)
# After these a rare word no list knows is a place (`_unknown_after_in`): "in Rünga", "near
# Bíldudalur", "visiting Prunetta", "via Kurfar". Not "from"/"to"/"at": people and firms follow
# them as often ("a message from Thibaeria", "talk to Zendesk").
_IN = frozenset(["in", "near", "visiting", "visit", "via", "nach", "à", "em", "en"])
# After "visiting"/"via" a product's name is common too: the rare word counts as a place only when
# no lower-case word other than a time or function word follows it ("visiting Prunetta next week",
# "via Kurfar, oddly"; not "visiting Grafana dashboards").
_VISIT = frozenset(["visiting", "visit", "via"])
_MODIFIES = re.compile(
    r"[ \t]+(?!(?:next|last|this|every|in|on|at|for|with|and|or|to|from|tomorrow|today|tonight|soon|"
    r"again|later|now|then|before|after|until|by|since|during|when|while|but|so|yesterday)\b)[a-z]"
)


def _suffix_shaped(word: str) -> bool:
    """One word glued to a settlement suffix, which the model's vocabulary does not know and no
    name list holds ("Lorrainehaven"; not "Singleton", a common word, nor "Newton", a surname)."""
    key = g.fold(word)
    match = _PLACE_SUFFIX.search(key)
    return (
        match is not None
        and len(key) - len(match.group()) >= 3
        and word[0].isupper()
        and "-" not in word
        and not any(ch.isupper() for ch in word[1:] if not word.isupper())
        and key not in g.first_names()
        and key not in g.last_names()
        and key not in g.function_words()
        and not g.common_word(word)
    )


def place_shaped(value: str) -> bool:  # noqa: PLR0911 - one return per form
    """A place by its form alone (module docstring, step 4): "Garyhaven", "North Ignė", "New
    Debratown", "Port Michael". The name after a prefix is a known first name or surname, a rare
    word, or suffix-shaped itself; a common word there is something else ("New Feature", "North
    Star"); a known term never counts."""
    words = value.split()
    if not words or any(g.fold(w) in g.CLOSED_CLASS or g.fold(w) in g.words("tech_terms") for w in words[:1]):
        return False
    if len(words) == 2 and g.fold(words[1]) in _TOWN_WORDS and words[1][0].isupper():
        first = g.fold(words[0])  # "Ville" is a field label too ("Ville: Lyon"): checked before the labels
        return (
            words[0][0].isupper()
            and first not in g.function_words()
            and (first in g.first_names() or first in g.last_names() or not g.common_word(words[0]))
        )
    if any(g.fold(w) in g.CLOSED_CLASS or g.fold(w) in g.words("tech_terms") for w in words):
        return False
    if len(words) == 1:
        return _suffix_shaped(words[0]) or _HYPHEN_PLACE.fullmatch(words[0]) is not None
    if len(words) != 2 or g.fold(words[0]) not in _PLACE_PREFIXES or not words[1][:1].isupper():
        return False
    second = words[1]
    key = g.fold(second)
    if key in g.function_words() or (second.isupper() != words[0].isupper()):
        return False
    return (
        key in g.first_names() or key in g.last_names() or _suffix_shaped(second) or not g.common_word(second)
    )


def _unknown_after_in(value: str) -> bool:
    """ "in Rünga", "near Bíldudalur": capitalized words that no list knows as a name and the
    model's vocabulary does not know at all (a product or a technology usually has a vector: "in
    Kubernetes"); in title case, each at least four letters. A town in capitals, as address lists and
    forms print them ("I am in HASKAYNE"), is judged in title case when it has five letters or more
    (shorter capitals are acronyms: "in HR", "in JSON"). Session 12."""
    words = [w.capitalize() if len(w) >= 5 and w.isupper() else w for w in value.split()]
    return len(words) <= 2 and all(
        len(word) >= 4
        and word[0].isupper()
        and not any(ch.isupper() for ch in word[1:])
        and g.fold(word) not in g.first_names()
        and g.fold(word) not in g.last_names()
        and g.fold(word) not in g.function_words()
        and not g.common_word(word)
        for word in words
    )


# The place prepositions of `_PREPOSITION`, as a set.
_PLACE_PREPOSITIONS = frozenset(_PREPOSITION.pattern.split("(?P<preposition>")[1].split(")")[0].split("|"))


def _region_not_name(value: str) -> bool:
    """A country or first-level region as a whole (`gazetteer.regions()`: "Ireland", "Uusimaa",
    "Rio Grande do Sul") that does not read as a person's name: no known first name as its first
    word, and not a lone word that is a known surname too ("Ireland", "Montana" stay the model's;
    the vectors do not tell a place from a name). Session 11: the model calls such regions people
    or firms before a verb or a possessive, and the person filter then dropped them."""
    key = g.fold(value)
    if key not in g.regions():  # the cheap test first: most spans are no region
        return False
    words = g.WORD.findall(value)
    if not words or g.fold(words[0]) in g.first_names():
        return False
    return len(words) > 1 or key not in g.last_names()


def _known_place_not_name(value: str) -> bool:
    words = g.WORD.findall(value)
    if not words or g.fold(value) not in g.places() or g.fold(words[0]) in g.first_names():
        return False
    return len(words) > 1 or g.fold(words[0]) not in g.last_names()


def _yields_to(text: str, existing: RawEntity, person: RawEntity) -> bool:  # noqa: PLR0911 - one per rule
    """Whether a span already kept gives way to a gazetteer person name (rule 3)."""
    if existing.label in (ADDRESS_LABEL, ORG_LABEL, PERSON_LABEL):
        return False
    covered = person.start <= existing.start and existing.end <= person.end
    if (
        existing.label == "ORG"
        and (existing.start, existing.end) == (person.start, person.end)
        and g.fold(text[existing.start : existing.end]) in g.words("firms")
    ):
        return False  # "Morgan Stanley opened": a listed company, not a first name and a surname (session 19)
    if (
        existing.label in ("GPE", "LOC", PLACE_LABEL)
        and (existing.start, existing.end) == (person.start, person.end)
        and typed_place_after_preposition(text, existing.start, existing.end)
    ):
        return False  # "located in Layla Lake": a place, not a first name and a surname
    if veil_type(existing.label) == "person":  # the same name, found twice: keep the model's unless longer
        return (person.end - person.start) > (existing.end - existing.start)
    if _known_place_of_words(text, existing) and (existing.start, existing.end) == (person.start, person.end):
        return False  # "in Mar del Plata", "to Pau dos Ferros": a first name, particle, surname, and a town
    if _model_country(text, existing) and (existing.start, existing.end) == (person.start, person.end):
        return False  # "The shipment to France left": the model's place, not a first name before a verb
    return covered


def _model_country(text: str, span: RawEntity) -> bool:
    """A model (or place-rule) GPE/LOC span of one word that is a country or first-level region after a place
    preposition ("The shipment to France left", "flights from Kenya arrive"): the model and the
    preposition read it as a place, a first-name rule (a verb after it; "France" and "Kenya" are
    first names too) is weaker there. At a sentence's start ("Georgia said") the name rule wins."""
    value = text[span.start : span.end]
    if span.label not in ("GPE", "LOC", PLACE_LABEL) or " " in value or g.fold(value) not in g.regions():
        return False
    window = max(0, span.start - 24)
    before = _PREVIOUS.search(text[window : span.start])
    if before is None or (before.start(1) == 0 and window > 0 and text[window - 1].isalnum()):
        return False  # no word before, or the window cut one ("reach" read as "ach")
    return before.group(1).lower() in _PLACE_PREPOSITIONS


def _known_place_of_words(text: str, span: RawEntity) -> bool:
    """A location span of two or more words that is a known place as a whole (session 16: a town
    or a region too: "based in Lázně Bohdaneč", "through Store Merløse")."""
    value = text[span.start : span.end]
    if veil_type(span.label) != "location" or " " not in value:
        return False
    key = g.fold(value)
    return key in g.places() or key in g.towns() or key in g.regions()
