"""The recognition pipeline above the model: what a model alone lacks (docs/ner.md, Pipeline).

For one text and the model's raw spans:
1. street addresses (addresses.py) become `location` spans labelled `ADDRESS`, organization names
   by form (orgs.py: legal-form suffixes, firm names of surnames) `organization` spans labelled
   `ORG_FORM`; model spans that overlap one are pieces of it (the city as GPE, the street as ORG,
   a firm of surnames as PERSON) and are dropped;
2. each remaining model span goes through the non-entity filter (nonentity.py): trimmed of
   greetings, instructions and labels at its edges, or dropped as a technical term, currency,
   log word, identifier or unsupported single word; a PERSON span that is a known place and does
   not start with a known first name becomes a location ("Den Haag");
3. gazetteer-backed person names (names.py, label `PERSON_GAZ`) are added where the model found
   nothing, replace a shorter PERSON span (an equal one is kept as the model's), and replace an
   organization or location span they cover entirely (a full first-name + surname match is
   stronger evidence than the model's type);
4. known places after a preposition (`in Groningen`, `nach Lostorf`, `à Lyon`) and a place that
   stands alone on a line are added as `location` (`GPE_GAZ`) where nothing else was found;
   smaller towns (1,000+ inhabitants) count only when they are not also a name or a term.
Spans never overlap in the result.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

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
_PLACE = (
    rf"[{_UP}][^\W\d_]*(?:[ \t\-](?:(?:de|del|la|le|am|an|sur|sul|do|da)[ \t\-])?[{_UP}][^\W\d_]*){{0,3}}"
)
_PREPOSITION = re.compile(
    rf"(?<![\w])(?:in|from|to|at|near|visit|visiting|en|à|au|aus|nach|bei|von|zu|a|da|em|para|naar|uit|te|"
    rf"desde|hacia|di|verso|vers)[ \t]+(?P<place>{_PLACE})"
)
_LINE = re.compile(rf"(?m)^[ \t]*(?P<place>{_PLACE})[ \t]*$")


def _places(text: str) -> list[RawEntity]:
    out: list[RawEntity] = []
    for pattern in (_PREPOSITION, _LINE):
        for match in pattern.finditer(text):
            value = match.group("place")
            words = value.split()
            # After a preposition, the longest prefix that is a known place ("in Lyon Monday" ->
            # "Lyon"); a line must be a place as a whole ("Human Resources" is not "Human").
            for size in range(len(words), 0 if pattern is _PREPOSITION else len(words) - 1, -1):
                candidate = " ".join(words[:size])
                if _is_place(candidate):
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


def recognize(text: str, model_spans: Sequence[RawEntity]) -> list[RawEntity]:
    """The pipeline above (module docstring) for one text."""
    kept = _structural(text)
    structural = _SpanSet()
    for span in kept.spans():
        structural.add(span)
    for span in model_spans:
        candidate = None if structural.overlapping(span) else _filtered(text, span)
        if candidate is not None and not kept.overlapping(candidate):  # model entities never overlap
            kept.add(candidate)
    for start, end in _longest_first(set(names.find(text))):
        candidate = RawEntity(start, end, PERSON_LABEL, PERSON_CONFIDENCE)
        rivals = kept.overlapping(candidate)
        if any(not _yields_to(rival, candidate) for rival in rivals):
            continue
        for rival in rivals:
            kept.remove(rival)
        kept.add(candidate)
    for candidate in _places(text):
        if not kept.overlapping(candidate):
            kept.add(candidate)
    return kept.spans()


def _structural(text: str) -> _SpanSet:
    """Step 1: street addresses, then organization forms that do not overlap one."""
    found = _SpanSet()
    for start, end in addresses.find(text):
        found.add(RawEntity(start, end, ADDRESS_LABEL, ADDRESS_CONFIDENCE))
    for start, end in _longest_first(set(orgs.find(text))):
        candidate = RawEntity(start, end, ORG_LABEL, ORG_CONFIDENCE)
        if not found.overlapping(candidate):
            found.add(candidate)
    return found


def _filtered(text: str, span: RawEntity) -> RawEntity | None:
    """Step 2 for one model span: the refined span, relabelled when a "person" is a known place."""
    kind = veil_type(span.label)
    if kind is None:
        return None
    line = clean_span(text, span.start, span.end)  # a name never crosses a line break
    refined = None if line is None else nonentity.refine(text, line[0], line[1], kind)
    if refined is None:
        return None
    label = span.label
    if kind == "person" and _known_place_not_name(text[refined[0] : refined[1]]):
        label = PLACE_LABEL  # "Den Haag", "Amoreira da Gândara": places the model calls people
    return RawEntity(refined[0], refined[1], label, span.confidence)


def _is_place(value: str) -> bool:
    """A known place; a smaller town only when no list knows the word as something else."""
    key = g.fold(value)
    if key in g.CLOSED_CLASS or key in g.words("tech_terms") or key in g.words("currencies"):
        return False  # "in Rust", "in UTC"
    if value.isupper() and len(value) <= 5:
        return False  # acronyms: "CSS", "PBM"
    if key in g.places():
        return True
    ambiguous = key in g.first_names() or key in g.last_names() or key in g.words("tech_terms")
    return key in g.towns() and not ambiguous


def _known_place_not_name(value: str) -> bool:
    words = g.WORD.findall(value)
    if not words or g.fold(value) not in g.places() or g.fold(words[0]) in g.first_names():
        return False
    return len(words) > 1 or g.fold(words[0]) not in g.last_names()


def _yields_to(existing: RawEntity, person: RawEntity) -> bool:
    """Whether a span already kept gives way to a gazetteer person name (rule 3)."""
    if existing.label in (ADDRESS_LABEL, ORG_LABEL, PERSON_LABEL):
        return False
    covered = person.start <= existing.start and existing.end <= person.end
    if veil_type(existing.label) == "person":  # the same name, found twice: keep the model's unless longer
        return (person.end - person.start) > (existing.end - existing.start)
    return covered
