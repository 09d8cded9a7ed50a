"""Session 16 (wave15/fast): the person-name rules' literal pre-checks give the same matches.

`names._scan` skips a whole-text pattern when a literal part that every match holds (`needed`) is
absent, and `names._roles` skips `_ROLE` when the lower-cased view holds no role word. Checked
here on seeded texts made from each pattern's own material (names, initials, role words in any
case, verbs, kin words, separators, the characters whose case rules differ) and on the dev
corpus's texts:

- every match of a pattern is found where `needed` finds something (the pre-check is necessary);
- `_scan` and `_roles` yield the spans `finditer` yields;
- `_CASELESS_TWINS` lists every character that matches a role word's letter case-insensitively
  without lower-casing to it, and no character that is no word character lowers to one;
- `names.find` with the pre-checks equals `names.find` with every pattern run in full.

Fixed seeds, so a failure repeats. The sidecar-level check is `ner/tools/sidecar_equivalence.py`.
"""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Iterator

import pytest

from rule_support import dev_corpus_texts
from veil_ner import gazetteer as g
from veil_ner import names

_PAIRS = [
    (names._PERSON_VERB, names._PERSON_VERB_NEEDED),
    (names._DESCRIBED, names._DESCRIBED_NEEDED),
    (names._LAST_FIRST, names._LAST_FIRST_NEEDED),
    (names._RELATIVE, names._RELATIVE_NEEDED),
    (names._INITIALS_NAME, names._INITIALS_NAME_NEEDED),
    (names._SPOKEN_TO, names._SPOKEN_TO_NEEDED),
]

_WORDS = [
    *("Anna", "Kowalski", "Mateusz", "Borg", "Dean", "Javi", "Lyon", "France", "DUPONT", "Marie"),
    *("Harhèle", "O'Shea", "Al-Masri", "Anne-Marie", "van", "der", "de", "la", "Berg", "Élodie"),
    *("B.", "J.", "P.", "U.S.", "F.", "A", "C", "Dr.", "Mr", "I", "The", "the", "then", "and", "my"),
    *("said", "says", "asked", "was born", "was", "born", "died", "married", "wrote", "told", "insisted"),
    *("is", "has", "had", "seems", "looks", "feels", "a", "an", "very", "really", "such", "quite"),
    *("shouted", "yelled", "spoke", "called out", "called", "talked", "waved", "at", "to", "with"),
    *("'s", "\u2019s", "s", "son", "kids", "mother", "fiancé", "fiancée", "family", "partner"),
    *("under", "by", "Signed:", "Patient:", "Attendees:", "under", "UNDER", "By"),
    *("professor", "Professor", "PROFESSOR", "colleague", "coworker", "co-worker", "CO-WORKER"),
    *("neighbour", "Neighbor", "rev.", "Rev.", "REV.", "collègue", "COLLÈGUE", "Fiancée", "FIANCÉE"),
    *("boss", "Boss", "friend", "FRIEND", "person", "json", "sister", "Sister", "grandma", "kollegin"),
    *("pro\u017fessor", "\u017fon", "\u017fister", "fr\u0131end", "İnspector", "JUDGE", "judge", "Kid"),
    *("\u212aollege", "K", "\u0130", "\u0131", "\u017f", "ß", "ẞ", "Σ", "ς", "ﬁ", "\u2160", "ǅ"),
    # whole phrases, so that every pattern matches in some texts
    *("Anna's", "Anna\u2019s", "Klaudijo's kid", "Harhèle's  sister", "Anna's\tfamily", "ANNA'S SON"),
    *("Megan is a", "Daniel was the", "Noah has   a", "Megan is\ta", "Megan is an", "Anna seems so"),
    *("Kowalski, Anna", "DUPONT, Marie B.", "Berry,Dale", "Borg, Mateusz;", "Lyon, France"),
    *("B.R. Cox", "J. P. Kowalczyk", "F. Al-Masri", "U.S. Steel", "A.\tSmith", "Dr. Okafor"),
    *("shouted at Lauren", "called out to Maria", "talked to", "spoke with Anna", "said to"),
    *("Anna said", "Harhèle asked", "Andrador was born", "Chadd Pouros said", "The Kubelet\tsaid"),
]
_SEPARATORS = [" ", " ", " ", " ", " ", " ", "  ", "\t", ", ", ",", "; ", ";", ": ", ":", ".", ". ", "!", "?"]
_SEPARATORS += ["\n", "\r\n", "(", ")", "@", "-", "_", "/", ".\n", "\u201d ", '" ', "' ", "2", ""]


def _seeded_texts(count: int, seed: int) -> Iterator[str]:
    rng = random.Random(seed)  # noqa: S311 - test strings, not secrets
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(1, 14)):
            parts.append(rng.choice(_WORDS))
            parts.append(rng.choice(_SEPARATORS))
        if rng.random() < 0.3:
            parts.insert(0, rng.choice(_SEPARATORS))
        yield "".join(parts)


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return list(_seeded_texts(30_000, seed=16)) + dev_corpus_texts()


def _spans(matches: Iterator[re.Match[str]]) -> list[tuple[int, int, tuple[str | None, ...]]]:
    return [(m.start(), m.end(), m.groups()) for m in matches]


def test_each_literal_is_necessary_and_scan_keeps_the_matches(texts: list[str]) -> None:
    found = dict.fromkeys(range(len(_PAIRS)), 0)
    for text in texts:
        for index, (pattern, needed) in enumerate(_PAIRS):
            full = _spans(pattern.finditer(text))
            if full:
                found[index] += 1
                assert needed.search(text) is not None, (pattern.pattern[:40], text)
            assert _spans(names._scan(pattern, needed, text)) == full, (pattern.pattern[:40], text)
    assert all(count >= 20 for count in found.values()), found  # the texts reach every pattern


def test_roles_keeps_the_role_matches(texts: list[str]) -> None:
    found = 0
    for text in texts:
        full = _spans(names._ROLE.finditer(text))
        found += bool(full)
        assert _spans(names._roles(text)) == full, text
    assert found >= 200


def test_caseless_twins_are_all_the_characters_lowering_elsewhere() -> None:
    letters = set(re.sub(r"[^\w.\-]", "", names._ROLE_WORDS))
    any_letter = re.compile("[" + re.escape("".join(sorted(letters))) + "]", re.IGNORECASE)
    word = re.compile(r"\w")
    twins = set()
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        lowered = char.lower()
        if len(lowered) != 1:
            continue  # the view is None for such a text (gazetteer.lower_view): the full scan runs
        assert word.match(char) or not word.match(lowered), hex(code)
        if any_letter.match(char) and lowered not in letters:
            twins.add(char)
    assert twins == set(names._CASELESS_TWINS)


def test_find_equals_find_with_every_pattern_in_full(
    texts: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    g.load_all()
    sample = texts[::5]
    fast = [list(names.find(text)) for text in sample]
    monkeypatch.setattr(names, "_scan", lambda pattern, _needed, text: pattern.finditer(text))
    monkeypatch.setattr(names, "_roles", names._ROLE.finditer)
    slow = [list(names.find(text)) for text in sample]
    assert fast == slow
    assert sum(map(len, fast)) > 1_000


def test_recognize_with_parts_computed_ahead_is_the_same(texts: list[str]) -> None:
    from veil_ner.backends import RawEntity  # noqa: PLC0415
    from veil_ner.pipeline import recognize, text_parts  # noqa: PLC0415

    g.load_all()
    for text in [*texts[::25], "x" * 90 + " Dr. Anna Kowalski lives in Lyon, France."]:
        model = [RawEntity(0, min(4, len(text)), "PERSON", 0.9)] if text[:1].isupper() else []
        assert recognize(text, model, text_parts(text)) == recognize(text, model)


def test_detector_with_overlap_answers_as_without(texts: list[str]) -> None:
    from conftest import FakeBackend  # noqa: PLC0415
    from veil_ner.detector import Detector, Item  # noqa: PLC0415

    g.load_all()
    items = [Item(text, None, None) for text in texts[::40]]
    answers = []
    for overlap in (False, True):
        detector = Detector(FakeBackend(), ["en"], "en", overlap=overlap)
        detector.load()
        answers.append(
            [(r.entities, r.degraded, r.warnings) for r in detector.detect(items)]
            + [(r.entities, r.degraded, r.warnings) for item in items[:50] for r in detector.detect([item])]
        )
    assert answers[0] == answers[1]
    assert sum(len(entities) for entities, _, _ in answers[1]) > 500


def test_overlap_setting() -> None:
    from veil_ner.config import ConfigError, load_settings  # noqa: PLC0415

    assert load_settings({}).overlap is False  # Session 17: off by default (test_session17_speed.py)
    assert load_settings({"VEIL_NER_OVERLAP": "1"}).overlap is True
    assert load_settings({"VEIL_NER_OVERLAP": "0"}).overlap is False
    with pytest.raises(ConfigError):
        load_settings({"VEIL_NER_OVERLAP": "sometimes"})
