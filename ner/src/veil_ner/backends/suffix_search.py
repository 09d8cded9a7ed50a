"""The tokenizer's suffix search over the end of a chunk only, same matches (docs/ner.md,
"Throughput, latency and memory", session 15).

spaCy splits a chunk the cache does not hold by searching its suffix pattern: one alternation of
about 80 forms, each anchored at the end (`…$`, `,$`, `(?<=[0-9])km$`, ...). Python's engine tries
every form at every position of the chunk from the first, so the cost grows with the chunk's
length although only a match that ends at the end counts: about a fifth of the tokenizer's time
on a 1 KB text.

When every form but a few has a bounded length (at most `width` characters; lookbehinds read
before the start and do not count), a match can only start in the last `width` characters (one
more for the line break `$` also accepts before), so searching from there (`pattern.search(text,
pos)`: lookbehinds still see the characters before `pos`) finds the same leftmost match, of the
same form. The unbounded forms (English: `\\.\\.+$`) are searched on their own first; if one
matches, the whole text is searched as before. `install` replaces `tokenizer.suffix_search` only
when the pattern splits into its forms as expected and the window search returns the same span as
the full one on a fixed list of chunks; ner/tests/test_session15_speed.py compares them on every
string of the model's string store.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from re import _parser  # type: ignore[attr-defined]  # the engine's own parser: widths of forms
from typing import Any

log = logging.getLogger("veil_ner.spacy")

# Forms longer than this count as unbounded (searched on the whole chunk).
_MAX_WIDTH = 64


def split_alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of a pattern, as written (escapes, groups and classes kept)."""
    out: list[str] = []
    depth = 0
    in_class = False
    start = 0
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            if char == "]":
                in_class = False
        elif char == "[":
            in_class = True
            if pattern.startswith("^", index + 1):
                index += 1
            if pattern.startswith("]", index + 1):  # a literal "]" first in a class
                index += 1
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            out.append(pattern[start:index])
            start = index + 1
        index += 1
    out.append(pattern[start:])
    return out


def windowed(compiled: re.Pattern[str]) -> Callable[[str], re.Match[str] | None] | None:
    """A search equal to `compiled.search` that starts near the end, or None if the pattern is
    not an alternation of end-anchored forms of which some are bounded."""
    forms = split_alternatives(compiled.pattern)
    if "|".join(forms) != compiled.pattern or not all(form.endswith("$") for form in forms):
        return None
    bounded: list[str] = []
    unbounded: list[str] = []
    for form in forms:
        width = _parser.parse(form, compiled.flags).getwidth()[1]
        (bounded if width <= _MAX_WIDTH else unbounded).append(form)
    if not bounded:
        return None
    width = max(_parser.parse(form, compiled.flags).getwidth()[1] for form in bounded) + 1
    search = compiled.search
    if not unbounded:

        def suffix_search(text: str) -> re.Match[str] | None:
            return search(text, max(0, len(text) - width))

        return suffix_search
    other = re.compile("|".join(unbounded), compiled.flags).search

    def suffix_search_with_unbounded(text: str) -> re.Match[str] | None:
        if other(text) is not None:
            return search(text)
        return search(text, max(0, len(text) - width))

    return suffix_search_with_unbounded


def check_chunks() -> list[str]:
    """The fixed list the window search is compared on at load."""
    out = [
        *("word", "word.", "word,", "U.S.", "etc..", "wait...", "end…", "(Smith)", "[1]", "10km"),
        *("5km/h", "20°C.", "100%", "$5", "5$", "€20", "20€", "it's", "IT'S", "Jones\u2019", "\u2019s"),
        *("a", ".", "..", "....", "x" * 80, "x" * 80 + "...", "1" * 70 + "km", "a\n", "a.\n"),
        *("e-mail", "«quoted»", "“quoted”", "end:", "end;", "Why?", "Stop!", "3+", "4th.", "«"),
        *("x.y.z.", "Dr.", "Ph.D.", "12:30.", "°F.", "word)", "word),", "word).", "word)."),
    ]
    out += [f"x{chr(code)}" for code in range(0x20, 0x3000, 3)]
    return out


def install(tokenizer: Any) -> bool:
    """Replace `tokenizer.suffix_search` by its window form when it gives the same spans on
    `check_chunks`. Before the tokenizer's cache is filled: spaCy empties it on the change."""
    original = tokenizer.suffix_search
    compiled = getattr(original, "__self__", None)
    if not isinstance(compiled, re.Pattern) or original != compiled.search:
        return False
    fast = windowed(compiled)
    if fast is None:
        return False
    for chunk in check_chunks():
        want, got = original(chunk), fast(chunk)
        if (want is None) != (got is None) or (want is not None and want.span() != got.span()):  # type: ignore[union-attr]
            log.warning("suffix search kept")
            return False
    tokenizer.suffix_search = fast
    return True
