"""Span hygiene applied to every backend's raw spans before they leave the sidecar.

Small statistical models make a few systematic span mistakes in the semi-structured text Veil
sees (signatures, forms, chat). These rules fix or drop them; each is generic (no corpus-specific
word lists) and documented in docs/ner.md:

1. A name never crosses a line break: the span is cut to the first line that has content (street
   addresses, which span lines in signatures and forms, are exempt: `multiline=True`).
2. Leading and trailing whitespace and punctuation are trimmed (`Acme Inc\\nMobile:` -> `Acme Inc`),
   except a closing bracket whose opening bracket is inside the span (`Cyprus (Greek)`).
3. Spans holding an e-mail address or a URL (`@`, `://`, `www.`) are dropped: the regex detector
   owns those types, and a name type on them would only shadow the right one.
4. Spans with no letter, or whose alphanumerics are mostly digits (IPv6 groups, account numbers),
   are dropped: they are not names. Street addresses are exempt from the digit rule (`address=True`:
   `PSC 2322, Box 6025, APO AA 88307` has more digits than letters and is still an address).
"""

from __future__ import annotations

import re

_FIRST_LINE = re.compile(r"\S[^\n\r\x0b\x0c\x85\u2028\u2029]*")
_TRIM = frozenset(
    " \t\r\n\x0b\x0c\u00a0.,;:!?\"'`()[]{}<>|/\\*#~^=+_-\u2013\u2014\u2026\u201c\u201d\u2018\u2019"
)


_PAIRS = {")": "(", "]": "["}


def clean_span(
    text: str, start: int, end: int, *, multiline: bool = False, address: bool = False
) -> tuple[int, int] | None:
    """Apply the rules above to text[start:end]; None when the span is dropped."""
    if not multiline:
        match = _FIRST_LINE.search(text, start, end)
        if match is None:
            return None
        start, end = match.start(), match.end()
    while start < end and text[start] in _TRIM:
        start += 1
    while end > start and text[end - 1] in _TRIM:
        closing = text[end - 1]
        if closing in _PAIRS and text.count(_PAIRS[closing], start, end) >= text.count(closing, start, end):
            break  # "Cyprus (Greek)": the bracket the span opened closes it
        end -= 1
    if end <= start:
        return None
    value = text[start:end]
    lowered = value.lower()
    if "@" in value or "://" in value or lowered.startswith("www."):
        return None
    letters = sum(ch.isalpha() for ch in value)
    digits = sum(ch.isdigit() for ch in value)
    if letters == 0 or (digits > letters and not address):
        return None
    return start, end
